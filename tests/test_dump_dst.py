"""--dump-dst / --dump-src reports (ttemu/tensix/dump_dst.py): 32x32 tiles of four
16x16 faces (Dst.md views), raw rows, formats, JSON-able data, deterministic text."""

import json

import numpy as np
import pytest

from test_unit_math_helpers import (
    FMT_BF16,
    put_dst_bf16,
    put_dst_fp32,
    put_src,
    setup,
    src_bf16,
)
from ttemu.errors import UsageError
from ttemu.tensix.dump_dst import dst_report, parse_rows, src_report
from ttemu.tensix.formats import layout as L


def fresh():
    tile, issue, cop = setup(FMT_BF16)
    return tile, cop


def strict_json(data):
    return json.loads(json.dumps(data, allow_nan=False))


def test_tile_is_four_faces():
    """Tile k is view rows 64k..64k+63: face 0 (rows +0..15) top-left, face 1 top-right,
    face 2 bottom-left, face 3 bottom-right."""
    tile, cop = fresh()
    rows = np.arange(64 * 16, dtype=np.float32).reshape(64, 16) % 251 - 125
    put_dst_bf16(cop, 128, rows)
    text, data = dst_report(tile, "all", "bf16")
    assert data["view"] == "Dst16b" and data["mode"] == "tiles"
    assert [t["index"] for t in data["tiles"]] == [2]
    assert data["skipped_zero_tiles"] == [0, 1] + list(range(3, 16))
    m = np.array(data["tiles"][0]["values"])
    assert m.shape == (32, 32)
    faces = rows.reshape(4, 16, 16)
    np.testing.assert_array_equal(m[:16, :16], faces[0])
    np.testing.assert_array_equal(m[:16, 16:], faces[1])
    np.testing.assert_array_equal(m[16:, :16], faces[2])
    np.testing.assert_array_equal(m[16:, 16:], faces[3])
    assert "tile 2: Dst16b rows 128..191" in text
    assert "all-zero tiles not shown: 0, 1, 3," in text
    strict_json(data)


def test_text_is_aligned_and_deterministic():
    tile, cop = fresh()
    put_dst_bf16(cop, 0, np.array([[1.5, -2.0, 1000.0, 0.0] * 4], np.float32))
    t1, _ = dst_report(tile, "all", "bf16")
    t2, _ = dst_report(tile, "all", "bf16")
    assert t1 == t2
    grid = [ln for ln in t1.splitlines() if ln.startswith("  ")]
    assert len(grid) == 33  # 32 rows + the separator between the face rows
    assert len({len(ln) for ln in grid}) == 1  # aligned columns
    assert grid[0].split()[:4] == ["1.5", "-2", "1000", "0"]


def test_range_selects_intersecting_tiles_and_shows_zero_tiles():
    tile, cop = fresh()
    text, data = dst_report(tile, "60:10", "bf16")
    assert [t["index"] for t in data["tiles"]] == [0, 1]  # rows 60..69 touch tiles 0 and 1
    assert data["skipped_zero_tiles"] == []


def test_raw_rows():
    tile, cop = fresh()
    cop.dst.bits[5] = np.arange(16, dtype=np.uint16) + 0xABC0
    text, data = dst_report(tile, "5:2:raw", "hex")
    assert data["mode"] == "raw"
    assert [r["row"] for r in data["row_values"]] == [5, 6]
    assert data["row_values"][0]["values"][:2] == ["0xabc0", "0xabc1"]
    lines = text.splitlines()
    assert lines[0].startswith("Dst (Dst16b, raw DstBits in hex) rows 5..6")
    assert lines[1].split()[:3] == ["row", "5:", "0xabc0"]
    text_all, data_all = dst_report(tile, "raw", "hex")
    assert len(data_all["row_values"]) == 1024
    assert dst_report(tile, "all:raw", "hex")[0] == text_all


def test_fp32_uses_dst32b_view():
    tile, cop = fresh()
    vals = np.zeros((64, 16), np.float32)
    vals[0, 0] = 1.25
    vals[17, 3] = -3.5  # face 1 (rows 16..31), row 1, column 3 -> tile row 1, column 19
    vals[40, 15] = np.inf
    put_dst_fp32(cop, 64, vals)  # Dst32b tile 1
    text, data = dst_report(tile, "all", "fp32")
    assert data["view"] == "Dst32b"
    assert [t["index"] for t in data["tiles"]] == [1]
    m = data["tiles"][0]["values"]
    assert m[0][0] == 1.25 and m[1][19] == -3.5 and m[16 + 8][15] == "inf"
    strict_json(data)
    # 8 tiles of 64 rows in the 32-bit view
    _, d2 = dst_report(tile, "0:512", "fp32")
    assert len(d2["tiles"]) == 8
    with pytest.raises(UsageError):
        dst_report(tile, "0:513", "fp32")


def test_int_formats():
    tile, cop = fresh()
    sm = np.array([5, (1 << 31) | 7, 0, (1 << 31)] + [0] * 12, np.uint32)
    cop.dst.write32(0, L.dst32_from_fp32(sm))
    _, data = dst_report(tile, "0:1:raw", "int32")
    assert data["row_values"][0]["values"][:4] == [5, -7, 0, 0]
    text, _ = dst_report(tile, "0:1:raw", "int32")
    assert text.splitlines()[1].split()[2:6] == ["5", "-7", "0", "-0"]
    cop.dst.bits[:] = 0
    cop.dst.bits[3, 0] = L.dst16_from_fp16(np.array([(1 << 15) | (16 << 10) | 100]))[0]  # integer "8": -100
    _, data = dst_report(tile, "3:1:raw", "int8")
    assert data["row_values"][0]["values"][0] == -100


def test_fp16_and_all_zero_note():
    tile, cop = fresh()
    text, data = dst_report(tile, "all", "fp16")
    assert data["tiles"] == [] and "(Dst is all zero)" in text
    cop.dst.write16(0, L.dst16_from_fp16(np.full((1, 16), np.float16(0.5)).view(np.uint16)))
    _, data = dst_report(tile, "0:64", "fp16")
    assert data["tiles"][0]["values"][0][0] == 0.5


@pytest.mark.parametrize("spec", ["", "1:2:3", "a:b", "-1:4", "1000:100", "0:0"])
def test_bad_rows(spec):
    tile, cop = fresh()
    if spec == "":
        assert parse_rows(spec, 1024) == (0, 1024, False, True)
        return
    with pytest.raises(UsageError):
        dst_report(tile, spec, "bf16")


def test_bad_format():
    tile, cop = fresh()
    with pytest.raises(UsageError):
        dst_report(tile, "all", "fp64")


def test_src_report():
    tile, cop = fresh()
    put_src(cop, "A", 16, src_bf16(np.arange(16, dtype=np.float32).reshape(1, 16) - 8))
    cop.src.data["B"][1][63, 15] = 0x7FFFF
    text, data = src_report(tile, "bf16")
    a0 = data["SrcA"]["banks"][0]
    assert a0["allowed"] == "math" and a0["zero_blocks"] == [0, 32, 48]
    assert a0["blocks"][0]["first_row"] == 16
    assert a0["blocks"][0]["values"][0][:3] == [-8.0, -7.0, -6.0]
    assert data["SrcB"]["banks"][1]["allowed"] == "unpack"
    assert "SrcA bank 0: given to the Matrix Unit" in text
    assert "SrcB bank 1: given to the unpackers" in text
    strict_json(data)
    text, data = src_report(tile, "hex")
    assert data["SrcB"]["banks"][1]["blocks"][0]["values"][15][15] == "0x7ffff"
    assert src_report(tile, "hex")[0] == text
