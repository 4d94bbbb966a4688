"""--dump-l1 tile formats (ttemu/tensix/dump_tiles.py): whole 32x32 tiles in face
order (TL, TR, BL, BR faces of 16x16, row-major), decoded as the unpacker reads them."""

import json

import numpy as np
import pytest

from ttemu.tensix.dump_tiles import TILE_FORMATS, tile_report
from ttemu.tensix.formats import tile_bytes


def faces(m):
    return m.reshape(2, 16, 2, 16).transpose(0, 2, 1, 3).reshape(-1)


def test_bf16_tile_layout_and_text():
    m = ((np.arange(1024, dtype=np.float32) % 256).reshape(32, 32) - 128) / 4  # exact in BF16
    data = (faces(m).view(np.uint32) >> 16).astype("<u2").tobytes()
    text, values = tile_report(data, 0x1000, "tile-bf16")
    lines = text.splitlines()
    assert lines[0].startswith("tile 0 @ 0x00001000 (tile-bf16, 2048 bytes)")
    assert len(lines) == 33
    assert lines[1].split()[:3] == ["-32", "-31.75", "-31.5"]
    assert len({len(line) for line in lines[1:]}) == 1  # aligned columns
    assert np.array_equal(np.array(values[0]["rows"]), m)
    json.dumps(values)
    assert tile_report(data, 0x1000, "tile-bf16")[0] == text  # deterministic


@pytest.mark.parametrize("fmt", sorted(TILE_FORMATS))
def test_every_tile_format_decodes_two_tiles(fmt):
    size = tile_bytes(TILE_FORMATS[fmt])
    rng = np.random.default_rng(3)
    data = rng.integers(0, 256, 2 * size + 5, dtype=np.uint8)
    if "bfp" in fmt:  # keep shared exponents ordinary
        for k in range(2):
            data[k * size:k * size + 64] = rng.integers(8, 30, 64)
    text, values = tile_report(data.tobytes(), 0x20000, fmt)
    assert [v["addr"] for v in values] == [0x20000, 0x20000 + size]
    assert f"tile 1 @ 0x{0x20000 + size:08x}" in text
    assert "5 trailing bytes" in text
    json.dumps(values)
    for v in values:
        assert len(v["rows"]) == 32 and all(len(r) == 32 for r in v["rows"])


def test_integer_and_special_values():
    m = np.zeros((32, 32), np.uint32)
    m[0, 0], m[0, 1], m[0, 16], m[16, 0] = 5, 0x80000007, 9, 0x7FFFFFFF
    text, values = tile_report(faces(m).astype("<u4").tobytes(), 0, "tile-int32")
    rows = values[0]["rows"]
    assert rows[0][:2] == [5, -7] and rows[0][16] == 9 and rows[16][0] == 0x7FFFFFFF
    f = np.zeros((32, 32), np.float32)
    f[0, 0], f[0, 1], f[0, 2] = np.inf, -np.inf, np.nan
    text, values = tile_report(faces(f).view(np.uint32).astype("<u4").tobytes(), 0, "tile-fp32")
    assert values[0]["rows"][0][:3] == ["inf", "-inf", "nan"]
    assert text.splitlines()[1].split()[:3] == ["inf", "-inf", "nan"]


def test_bfp8_b_tile():
    exps = np.full(64, 127, np.uint8)
    d = np.zeros(1024, np.uint8)
    d[0], d[1], d[16 * 16] = 0x40, 0xC0, 0x20  # 1.0, -1.0 (mag 64 / 2**6), 0.5
    text, values = tile_report(exps.tobytes() + d.tobytes(), 0, "tile-bfp8_b")
    rows = values[0]["rows"]
    assert rows[0][:2] == [1.0, -1.0] and rows[0][16] == 0.5


def test_errors():
    with pytest.raises(ValueError, match="unknown"):
        tile_report(bytes(4096), 0, "tile-xyz")
    with pytest.raises(ValueError, match="less than one tile"):
        tile_report(bytes(100), 0, "tile-fp32")
