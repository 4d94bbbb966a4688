"""The Matrix Unit's arithmetic is bit-identical to ttsim's on random operands with edge
cases: ELWADD, ELWSUB, ELWMUL (four fidelity phases), MVMUL (1..4 phases) with
Float16_b, Float16 and TF32 Src values, into a BF16 or an FP32 Dst
(ttemu/tensix/units/fpu_datapath.py).

Each case runs the fpu_ops kernel (firmware/fpu_ops: unpack, one Matrix Unit operation
per tile, pack) on ttemu and on ttsim with the same seeded random tiles of raw bit
patterns and compares the packed output bit for bit. The operands mix ordinary values
with exponent gaps, exact cancellations, zeros and denormals (exponent 0), the largest
exponents (products overflow) and small exponents (products underflow). Skipped when
ttsim cannot be built from ../shared (tests/oracle_lib.py).
"""

import pathlib

import numpy as np
import pytest

from oracle_lib import require_ttsim
from ttemu import Tile
from ttemu.cmd.oracle import cross_check

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / "firmware" / "build"
PARAMS, IN0, IN1, OUT = 0x64000, 0x20000, 0x30000, 0x50000
MAILBOXES = [(0x19FFC, 1), (0x19FF8, 1), (0x19FF4, 1)]
ADD, SUB, MUL, MATMUL = 0, 1, 2, 3
BF16, FP16, TF32 = 5, 1, 4  # LLK_FMT_* (TF32: Float32 tiles in L1)
TILES = 2


@pytest.fixture(scope="module")
def lib():
    return require_ttsim("wormhole_b0")


def operands(rng, fmt, n, op):
    """Two arrays of n raw L1 datums (uint16 for Float16_b / Float16, uint32 for Float32)."""
    if fmt == FP16:
        ebits, mbits, bias = 5, 10, 15
    else:
        ebits, mbits, bias = 8, (7 if fmt == BF16 else 23), 127
    emax = (1 << ebits) - 1

    def draw():
        sign = rng.integers(0, 2, n)
        exp = bias + rng.integers(-3, 4, n)                     # ordinary, small gaps
        kind = rng.random(n)
        exp = np.where(kind < 0.25, bias + rng.integers(-14, 15, n), exp)  # larger gaps
        exp = np.where(kind > 0.97, 0, exp)                     # zero / denormal
        exp = np.where((kind > 0.94) & (kind <= 0.97), emax - rng.integers(0, 3, n), exp)  # top
        exp = np.where((kind > 0.91) & (kind <= 0.94), 1 + rng.integers(0, 3, n), exp)     # bottom
        man = rng.integers(0, 1 << mbits, n)
        man = np.where(rng.random(n) < 0.1, 0, man)
        return (sign << (ebits + mbits)) | (exp << mbits) | man

    a, b = draw(), draw()
    same = rng.random(n) < 0.1  # exact cancellation in ELWADD / ELWSUB, squares in ELWMUL
    sign_bit = 1 << (ebits + mbits)
    b = np.where(same, (a ^ sign_bit) if op == ADD else a, b)
    dt = np.uint32 if fmt == TF32 else np.uint16
    return a.astype(dt), b.astype(dt)


def run_case(lib, op, fmt, dst32, phases, seed):
    a, b = operands(np.random.default_rng(seed), fmt, TILES * 1024, op)
    return run_tiles(lib, op, fmt, dst32, phases, a.tobytes(), b.tobytes())


CASES = [
    # (op, Src format, 32-bit Dst, fidelity phases)
    (ADD, BF16, True, 1), (SUB, BF16, True, 1), (ADD, BF16, False, 1), (SUB, BF16, False, 1),
    (ADD, FP16, True, 1), (SUB, TF32, True, 1), (ADD, TF32, False, 1),
    (MUL, BF16, True, 4), (MUL, BF16, False, 4), (MUL, FP16, True, 4), (MUL, TF32, True, 4),
    (MATMUL, BF16, True, 4), (MATMUL, BF16, True, 1), (MATMUL, BF16, False, 1), (MATMUL, BF16, False, 2),
    (MATMUL, FP16, True, 4), (MATMUL, FP16, True, 3), (MATMUL, TF32, True, 4), (MATMUL, TF32, False, 2),
]
NAMES = {ADD: "elwadd", SUB: "elwsub", MUL: "elwmul", MATMUL: "mvmul"}
FMTS = {BF16: "bf16", FP16: "fp16", TF32: "tf32"}


@pytest.mark.parametrize("op,fmt,dst32,phases", CASES,
                         ids=[f"{NAMES[o]}-{FMTS[f]}-dst{32 if d else 16}-{p}ph" for o, f, d, p in CASES])
def test_fpu_bit_identical_to_ttsim(lib, op, fmt, dst32, phases):
    d, out = run_case(lib, op, fmt, dst32, phases, seed=1000 * op + 10 * fmt + 2 * phases + dst32)
    assert d.ok, d.text()
    assert np.frombuffer(out, np.uint8).any()  # the kernel wrote something


def run_tiles(lib, op, fmt, dst32, phases, a, b):
    """run_case with given L1 tiles (bytes)."""
    tile = Tile("wormhole_b0", record=True)
    tile.load_elf(str(BUILD / "boot" / "brisc.elf"), core="brisc")
    for i in range(3):
        tile.load_elf(str(BUILD / "fpu_ops" / f"trisc{i}.elf"), core=f"trisc{i}")
    tile.write(IN0, a)
    tile.write(IN1, b)
    tile.write(PARAMS, np.array([IN0, IN1, OUT, TILES, op, fmt, int(dst32), phases], dtype=np.uint32).tobytes())
    tile.release(tile.default_release())
    assert tile.run(max_steps=5_000_000, until=MAILBOXES).exit_code == 0
    nbytes = TILES * 1024 * (4 if dst32 else 2)
    diffs, _ = cross_check(tile, lib, [("out", OUT, nbytes)], until=MAILBOXES)
    return diffs[0], tile.read(OUT, nbytes)


def test_minus_one_unit_renormalises_wrongly_like_ttsim(lib):
    """A Dst sum of exactly -1 unit (FP32 Dst) comes out as -2**(e + 4 - 127): the
    first MVMUL (k = 0..15) leaves 1 - 2**-23 (1.0 from group 0 plus -2**-23 from group
    1, aligned by 23 places and rounded to one unit), the second (k = 16..31) adds -1.0:
    the aligned sum is -1 unit at exponent 127, and the result is -16.0, not -2**-24."""
    from ttemu import tiles

    a = np.zeros((32, 64))
    b = np.zeros((32, 64))
    a[0, 0], b[0, 0] = 1.0, 1.0
    a[0, 8], b[8, 0] = 2.0 ** -11, -2.0 ** -12
    a[0, 16], b[16, 0] = 1.0, -1.0
    d, out = run_tiles(lib, MATMUL, BF16, True, 1, tiles.encode(a, "bf16"), tiles.encode(b, "bf16"))
    assert d.ok, d.text()
    c = tiles.decode(out, "fp32", (32, 64))
    assert c[0, 0] == -16.0 and np.count_nonzero(c) == 1
