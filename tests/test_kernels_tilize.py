"""The tilize / untilize kernels on genuinely row-major data, through the Python API.

Their manifests (firmware/tilize, firmware/untilize) describe the row-major side as a
tile-format matrix of the same bytes and undo the permutation in the numpy reference.
Here the row-major bytes are written (tilize) and read back (untilize) as they are,
and the tile side is compared with ttemu.tiles' host-side encoding, byte for byte,
for a few shapes (bands of 32 rows x tiles of 32 columns). Nothing is built here: the
committed ELFs in firmware/build are used.
"""

import pathlib

import numpy as np
import pytest

from ttemu import Tile, tiles

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / "firmware" / "build"
PARAMS = 0x64000
IN = 0x20000
OUT = 0x50000
MAILBOXES = (0x19FFC, 0x19FF8, 0x19FF4)


def _run(kernel, data: bytes, tiles_per_band: int, bands: int, extra=None) -> Tile:
    tile = Tile("wormhole_b0")
    tile.load_elf(str(BUILD / "boot" / "brisc.elf"), core="brisc")
    for core in ("trisc0", "trisc1", "trisc2"):
        tile.load_elf(str(BUILD / kernel / f"{core}.elf"), core=core)
    tile.write(IN, data)
    for addr, blob in (extra or {}).items():
        tile.write(addr, blob)
    for i, v in enumerate([IN, 0, OUT, tiles_per_band, bands]):  # struct llk_params
        tile.write_u32(PARAMS + 4 * i, v)
    tile.release(["brisc"])
    res = tile.run(max_steps=20_000_000, until=[(a, 1) for a in MAILBOXES])
    assert res.outcome == "until", (res.outcome, res.detail)
    return tile


def _matrix(rows, cols, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-50.0, 50.0, (rows, cols))


@pytest.mark.parametrize("bands, tiles_per_band", [(1, 1), (1, 4), (2, 3), (3, 2)])
def test_tilize_row_major_bf16(bands, tiles_per_band):
    rows, cols = 32 * bands, 32 * tiles_per_band
    m = tiles.quantize(_matrix(rows, cols, rows * 1000 + cols), "bf16")
    row_major = m.astype(np.float32).view(np.uint32) >> 16  # bf16 patterns (exact)
    tile = _run("tilize", row_major.astype("<u2").tobytes(), tiles_per_band, bands)
    want = tiles.encode(m, "bf16")
    got = tile.read(OUT, len(want))
    assert got == want
    np.testing.assert_array_equal(tiles.decode(got, "bf16", (rows, cols)), m)


@pytest.mark.parametrize("bands, tiles_per_band", [(1, 2), (1, 6), (2, 4), (3, 2)])
def test_untilize_row_major_fp32(bands, tiles_per_band):
    # rows must be a multiple of 256 bytes apart: an even number of Float32 tiles
    rows, cols = 32 * bands, 32 * tiles_per_band
    m = _matrix(rows, cols, rows * 1000 + cols + 1).astype(np.float32)
    tile = _run("untilize", tiles.encode(m, "fp32"), tiles_per_band, bands)
    got = np.frombuffer(tile.read(OUT, rows * cols * 4), dtype="<f4").reshape(rows, cols)
    np.testing.assert_array_equal(got, m)


def test_untilize_leaves_bytes_past_the_matrix_alone():
    rows, cols = 32, 64
    m = _matrix(rows, cols, 7).astype(np.float32)
    end = OUT + rows * cols * 4
    tile = _run("untilize", tiles.encode(m, "fp32"), cols // 32, 1, extra={end: b"\xa5" * 64})
    assert tile.read(end, 64) == b"\xa5" * 64
    got = np.frombuffer(tile.read(OUT, rows * cols * 4), dtype="<f4").reshape(rows, cols)
    np.testing.assert_array_equal(got, m)
