"""Vector Unit (SFPU): registers, integer / bitwise / FP32-field instructions, moves,
SFPCAST, SFPSWAP, SFPTRANSP. tt-isa-documentation WormholeB0/TensixTile/
TensixCoprocessor/VectorUnit.md, LReg.md, ../SoftReset.md and the instruction pages
named in each test. Each test compares with a small numpy (or plain Python) reference
written here from the page's functional model.

This module also holds the helpers the other test_unit_sfpu_*.py modules import.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tensix_harness import make, make_strict, warned
from ttemu import UndefinedBehaviour

U32 = np.uint32
LANES = np.arange(32)
RNG = np.random.default_rng(20240611)


# ---------------------------------------------------------------------------- helpers
def setup():
    tile, issue = make()
    return tile, issue, tile.tensix.sfpu


def f2b(values) -> np.ndarray:
    """Floats -> FP32 bit patterns."""
    return np.asarray(values, dtype=np.float32).view(U32)


def b2f(bits) -> np.ndarray:
    return np.asarray(bits, dtype=U32).view(np.float32)


def fbits(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


def put(u, reg, values):
    """Set LReg[reg] directly (test setup), broadcasting a scalar."""
    u.lreg[reg] = np.broadcast_to(np.asarray(values, dtype=np.uint64).astype(U32), (32,))


def mod1(issue, mnemonic, vd=0, vc=0, mod=0, imm=0, thread=0):
    """Issue one of the Mod1-family instructions (instr_mod1, lreg_dest, lreg_c, imm12_math)."""
    return issue(thread, mnemonic, instr_mod1=mod, lreg_dest=vd, lreg_c=vc, imm12_math=imm)


def is_nan(bits) -> np.ndarray:
    b = np.asarray(bits, dtype=U32)
    return ((b & 0x7F800000) == 0x7F800000) & ((b & 0x7FFFFF) != 0)


def random_bits(n=32, special=True) -> np.ndarray:
    """Random FP32 patterns, salted with zeros, denormals, infinities, NaNs, powers of two."""
    x = RNG.integers(0, 1 << 32, n, dtype=np.uint64).astype(U32)
    if special:
        pool = np.array([0, 0x80000000, 1, 0x807FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFF800001,
                         0x3F800000, 0xBF800000, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x33800000], dtype=U32)
        pick = RNG.random(n) < 0.3
        x[pick] = RNG.choice(pool, pick.sum())
    return x


# ------------------------------------------------------------------- state and constants
def test_reset_values_and_constants():
    """LReg.md: LReg[8] 0.8373, [9] 0, [10] 1.0, [15] lane*2; SoftReset.md: LReg[0..7] and
    [16] zero, LReg[11..14] = -1.0, 1/65536, -0.67487759, -0.34484843; unconditional."""
    _, _, u = setup()
    assert np.all(u.lreg[0:8] == 0) and np.all(u.lreg[16] == 0)
    assert np.all(u.lreg[8] == fbits(0.8373))
    assert np.all(u.lreg[9] == 0)
    assert np.all(u.lreg[10] == fbits(1.0))
    assert np.array_equal(u.lreg[15], LANES * 2)
    for i, v in ((11, -1.0), (12, 1 / 65536), (13, -0.67487759), (14, -0.34484843)):
        assert np.all(u.lreg[i] == fbits(v)), i
    assert not u.use_flags.any() and np.all(u.stack_size == 0)
    assert u.lane_enabled().all()


def test_constants_are_read_only():
    """LReg.md: 8-10 and 15 are read-only; instructions write only VD < 8 (e.g. SFPMOV.md)."""
    _, issue, u = setup()
    put(u, 0, 0x12345678)
    for vd in (8, 9, 10, 11, 15):
        mod1(issue, "SFPMOV", vd=vd, vc=0)
    assert np.all(u.lreg[9] == 0) and np.all(u.lreg[10] == fbits(1.0))
    assert np.array_equal(u.lreg[15], LANES * 2) and np.all(u.lreg[11] == fbits(-1.0))


# --------------------------------------------------------------------------- bitwise
@pytest.mark.parametrize("name,fn", [("SFPAND", np.bitwise_and), ("SFPOR", np.bitwise_or),
                                     ("SFPXOR", np.bitwise_xor)])
def test_bitwise_two_operand(name, fn):
    """SFPAND.md / SFPOR.md / SFPXOR.md: VD = VD op VC (VB = VD)."""
    _, issue, u = setup()
    a, b = random_bits(special=False), random_bits(special=False)
    put(u, 2, a)
    put(u, 5, b)
    mod1(issue, name, vd=2, vc=5)
    assert np.array_equal(u.lreg[2], fn(a, b))
    assert np.array_equal(u.lreg[5], b)


def test_not():
    """SFPNOT.md: VD = ~VC."""
    _, issue, u = setup()
    a = random_bits(special=False)
    put(u, 1, a)
    mod1(issue, "SFPNOT", vd=3, vc=1)
    assert np.array_equal(u.lreg[3], ~a)


def test_not_of_lane_constant():
    _, issue, u = setup()
    mod1(issue, "SFPNOT", vd=0, vc=15)
    assert np.array_equal(u.lreg[0], ~(LANES * 2).astype(U32))


def ref_shift(v, amount):
    v = v.astype(np.uint64)
    out = np.where(amount >= 0, (v << (amount & 31).astype(np.uint64)) & 0xFFFFFFFF,
                   v >> ((-amount) & 31).astype(np.uint64))
    return out.astype(U32)


def test_shft_by_register_both_directions():
    """SFPSHFT.md: VD = VD << (VC % 32), or >> (-VC % 32) when VC < 0 (logical)."""
    _, issue, u = setup()
    v = random_bits(special=False)
    amount = RNG.integers(-40, 40, 32).astype(np.int32)
    put(u, 4, v)
    u.lreg[1] = amount.view(U32)
    mod1(issue, "SFPSHFT", vd=4, vc=1)
    assert np.array_equal(u.lreg[4], ref_shift(v, amount.astype(np.int64)))


@pytest.mark.parametrize("imm", [0, 1, 5, 31, 32, 33, -1, -5, -31, -32, -2048, 2047])
def test_shft_by_signed_immediate(imm):
    """SFPSHFT.md: Mod1 & ARG_IMM shifts by the signed 12-bit immediate; right shifts are
    logical (VectorUnit.md: no arithmetic shift)."""
    _, issue, u = setup()
    v = random_bits(special=False)
    v[0] = 0x80000001
    put(u, 0, v)
    mod1(issue, "SFPSHFT", vd=0, vc=7, mod=1, imm=imm & 0xFFF)
    assert np.array_equal(u.lreg[0], ref_shift(v, np.full(32, imm)))


# ---------------------------------------------------------------------- integer ops
def test_iadd_register_forms_and_flags():
    """SFPIADD.md: VD = VC + VD (mod 0) / VC - VD (ARG_2SCOMP_LREG_DST), flags = result < 0
    (CC_LT0) in enabled lanes; CC_GTE0 inverts; CC_NONE leaves flags alone."""
    _, issue, u = setup()
    c = RNG.integers(-2**31, 2**31, 32).astype(np.int32)
    d = RNG.integers(-2**31, 2**31, 32).astype(np.int32)
    put(u, 1, c.view(U32))
    put(u, 2, d.view(U32))
    mod1(issue, "SFPIADD", vd=2, vc=1, mod=0)
    want = (c.astype(np.int64) + d) & 0xFFFFFFFF
    assert np.array_equal(u.lreg[2], want.astype(U32))
    assert np.array_equal(u.flags, want.astype(U32).view(np.int32) < 0)
    put(u, 2, d.view(U32))
    mod1(issue, "SFPIADD", vd=2, vc=1, mod=2 | 8)
    want = ((c.astype(np.int64) - d) & 0xFFFFFFFF).astype(U32)
    assert np.array_equal(u.lreg[2], want)
    assert np.array_equal(u.flags, want.view(np.int32) >= 0)
    before = u.flags.copy()
    mod1(issue, "SFPIADD", vd=2, vc=1, mod=4)
    assert np.array_equal(u.flags, before)


@pytest.mark.parametrize("imm", [0, 1, -1, 2047, -2048, 100])
def test_iadd_immediate(imm):
    """SFPIADD.md: ARG_IMM adds SignExtend(Imm12) to VC."""
    _, issue, u = setup()
    c = RNG.integers(0, 1 << 32, 32, dtype=np.uint64)
    put(u, 3, c)
    mod1(issue, "SFPIADD", vd=0, vc=3, mod=1 | 4, imm=imm & 0xFFF)
    assert np.array_equal(u.lreg[0], ((c.astype(np.int64) + imm) & 0xFFFFFFFF).astype(U32))


def test_iadd_flags_only_for_vd_below_8_and_in_enabled_lanes():
    """SFPIADD.md: flags are updated only when LaneEnabled (and VD < 8)."""
    _, issue, u = setup()
    u.use_flags[:] = True
    u.flags[:] = LANES % 2 == 0  # odd lanes disabled
    put(u, 1, 0xFFFFFFFF)  # -1
    put(u, 2, 0)
    mod1(issue, "SFPIADD", vd=2, vc=1)
    assert np.array_equal(u.lreg[2], np.where(LANES % 2 == 0, 0xFFFFFFFF, 0))
    assert np.array_equal(u.flags, LANES % 2 == 0)  # enabled lanes: -1 < 0 -> true; others stay false


def test_abs_integer_and_float():
    """SFPABS.md: two's complement |x| keeps -2**31; FP32 mode clears the sign unless -NaN."""
    _, issue, u = setup()
    v = np.array([5, (-5) & 0xFFFFFFFF, 0x80000000, 0xFF800001, 0xFF800000, 0xBF800000, 0x7FC00000, 0]
                 * 4, dtype=U32)
    put(u, 1, v)
    mod1(issue, "SFPABS", vd=2, vc=1, mod=0)
    want_int = np.where(v >= 0x80000000, (U32(0) - v), v).astype(U32)
    assert np.array_equal(u.lreg[2], want_int)
    assert u.lreg[2][2] == 0x80000000
    mod1(issue, "SFPABS", vd=2, vc=1, mod=1)
    want_f = np.where((v >= 0x80000000) & (v < 0xFF800000), v & 0x7FFFFFFF, v)
    assert np.array_equal(u.lreg[2], want_f)
    # The functional model's test is x >= 0xff800000, so -Inf is left as -Inf too (the
    # summary only mentions -NaN); the model is followed.
    assert u.lreg[2][3] == 0xFF800001 and u.lreg[2][4] == 0xFF800000


def test_lz_and_flags():
    """SFPLZ.md: leading zeros (32 for zero), NOSGN_MASK ignores bit 31, CC_NE0 sets flags
    to c != 0, CC_COMP inverts."""
    _, issue, u = setup()
    v = random_bits(special=False) >> RNG.integers(0, 32, 32).astype(U32)
    v[:4] = [0, 0x80000000, 1, 0xFFFFFFFF]
    put(u, 6, v)
    mod1(issue, "SFPLZ", vd=0, vc=6, mod=2)
    want = np.array([32 - int(x).bit_length() for x in v], dtype=U32)
    assert np.array_equal(u.lreg[0], want)
    assert np.array_equal(u.flags, v != 0)
    mod1(issue, "SFPLZ", vd=0, vc=6, mod=4 | 2 | 8)
    masked = v & 0x7FFFFFFF
    assert np.array_equal(u.lreg[0], np.array([32 - int(x).bit_length() for x in masked], dtype=U32))
    assert np.array_equal(u.flags, masked == 0)


# --------------------------------------------------------------------- FP32 fields
def test_exexp():
    """SFPEXEXP.md: exponent - 127 (two's complement), or raw with NODEBIAS; SET_CC_SGN_EXP
    sets flags to result < 0, SET_CC_COMP_EXP inverts."""
    _, issue, u = setup()
    v = random_bits()
    put(u, 2, v)
    mod1(issue, "SFPEXEXP", vd=1, vc=2, mod=2)
    e = ((v >> 23) & 0xFF).astype(np.int64)
    assert np.array_equal(u.lreg[1], ((e - 127) & 0xFFFFFFFF).astype(U32))
    assert np.array_equal(u.flags, e < 127)
    mod1(issue, "SFPEXEXP", vd=1, vc=2, mod=1 | 8)
    assert np.array_equal(u.lreg[1], e.astype(U32))
    assert np.array_equal(u.flags, e >= 127)  # previous flags inverted


def test_exman():
    """SFPEXMAN.md: {0, !PAD9, mantissa}."""
    _, issue, u = setup()
    v = random_bits()
    put(u, 2, v)
    mod1(issue, "SFPEXMAN", vd=3, vc=2, mod=0)
    assert np.array_equal(u.lreg[3], (v & 0x7FFFFF) | 0x800000)
    mod1(issue, "SFPEXMAN", vd=3, vc=2, mod=1)
    assert np.array_equal(u.lreg[3], v & 0x7FFFFF)


def test_setexp_modes():
    """SFPSETEXP.md: exponent from Imm8, from VD's exponent, or from VD's low 8 bits."""
    _, issue, u = setup()
    c, d = random_bits(), random_bits()
    put(u, 2, c)
    put(u, 4, d)
    mod1(issue, "SFPSETEXP", vd=4, vc=2, mod=1, imm=0x85)
    assert np.array_equal(u.lreg[4], (c & 0x807FFFFF) | (0x85 << 23))
    put(u, 4, d)
    mod1(issue, "SFPSETEXP", vd=4, vc=2, mod=2)
    assert np.array_equal(u.lreg[4], (c & 0x807FFFFF) | (d & 0x7F800000))
    put(u, 4, d)
    mod1(issue, "SFPSETEXP", vd=4, vc=2, mod=0)
    assert np.array_equal(u.lreg[4], (c & 0x807FFFFF) | ((d & 0xFF) << 23))


def test_setman_modes():
    """SFPSETMAN.md: mantissa = Imm12 << 11, or VD's low 23 bits."""
    _, issue, u = setup()
    c, d = random_bits(), random_bits()
    put(u, 2, c)
    put(u, 4, d)
    mod1(issue, "SFPSETMAN", vd=4, vc=2, mod=1, imm=0xABC)
    assert np.array_equal(u.lreg[4], (c & 0xFF800000) | (0xABC << 11))
    put(u, 4, d)
    mod1(issue, "SFPSETMAN", vd=4, vc=2, mod=0)
    assert np.array_equal(u.lreg[4], (c & 0xFF800000) | (d & 0x7FFFFF))


def test_setsgn_modes():
    """SFPSETSGN.md: sign from Imm1 (abs / -abs) or from VD."""
    _, issue, u = setup()
    c, d = random_bits(), random_bits()
    put(u, 2, c)
    put(u, 4, d)
    mod1(issue, "SFPSETSGN", vd=4, vc=2, mod=1, imm=1)
    assert np.array_equal(u.lreg[4], c | 0x80000000)
    mod1(issue, "SFPSETSGN", vd=4, vc=2, mod=1, imm=0)
    assert np.array_equal(u.lreg[4], c & 0x7FFFFFFF)
    put(u, 4, d)
    mod1(issue, "SFPSETSGN", vd=4, vc=2, mod=0)
    assert np.array_equal(u.lreg[4], (c & 0x7FFFFFFF) | (d & 0x80000000))


def test_divp2_set_and_add_wrapping():
    """SFPDIVP2.md: exponent := Imm8, or += Imm8 mod 256 except Inf/NaN unchanged.
    (The seed text writes the add mode as "VC.Exponent +- Imm7"; the page's model adds the
    8-bit immediate with 8-bit wrap-around, which is the same thing for |Imm7| < 128 and is
    what is modelled.)"""
    _, issue, u = setup()
    c = random_bits()
    put(u, 1, c)
    mod1(issue, "SFPDIVP2", vd=0, vc=1, mod=0, imm=0x7F)
    assert np.array_equal(u.lreg[0], (c & 0x807FFFFF) | (0x7F << 23))
    imm = 0xFE  # i.e. -2: divide by 4
    mod1(issue, "SFPDIVP2", vd=0, vc=1, mod=1, imm=imm)
    e = (c >> 23) & 0xFF
    want = np.where(e == 255, c, (c & 0x807FFFFF) | (((e + imm) & 0xFF) << 23))
    assert np.array_equal(u.lreg[0], want)
    put(u, 1, f2b([3.0] * 32))
    mod1(issue, "SFPDIVP2", vd=0, vc=1, mod=1, imm=0xFE)
    assert np.all(b2f(u.lreg[0]) == 0.75)


# --------------------------------------------------------------------------- moves
def test_mov_negate_and_all_lanes():
    """SFPMOV.md: VD = VC, NEGATE flips the sign bit; ALL_LANES_ENABLED (Mod1 == 2 exactly)
    ignores the lane enables, other modes respect them."""
    _, issue, u = setup()
    v = random_bits()
    put(u, 1, v)
    mod1(issue, "SFPMOV", vd=2, vc=1, mod=1)
    assert np.array_equal(u.lreg[2], v ^ 0x80000000)
    u.use_flags[:] = True
    u.flags[:] = False
    put(u, 3, 0)
    mod1(issue, "SFPMOV", vd=3, vc=1, mod=0)
    assert np.all(u.lreg[3] == 0)
    mod1(issue, "SFPMOV", vd=3, vc=1, mod=2)
    assert np.array_equal(u.lreg[3], v)


def test_mov_from_special():
    """SFPMOV.md FROM_SPECIAL: VC 0-3 InstructionTemplate, 4-7 Sequence, 8 Misc, 15
    LaneConfig, 10-14 zero (9 is the PRNG: test_unit_sfpu_round)."""
    _, issue, u = setup()
    u.lm_template[2] = 0x11223344
    u.lm_sequence[1] = 0x55667788
    u.lm_misc[:] = 0xABC
    u.lane_config[:] = 0x30001
    for vc, want in ((2, 0x11223344), (5, 0x55667788), (8, 0xABC), (15, 0x30001), (12, 0)):
        mod1(issue, "SFPMOV", vd=0, vc=vc, mod=8)
        assert np.all(u.lreg[0] == want), vc


def test_cast_exact_and_rne():
    """SFPCAST.md: sign-magnitude int -> FP32, exact up to 2**24, RNE beyond (ties to even);
    -0 stays -0 (the functional model keeps the sign)."""
    _, issue, u = setup()
    mags = np.array([0, 1, 2, 3, 255, 1 << 24, (1 << 24) + 1, (1 << 24) + 3, (1 << 25) + 2, (1 << 25) + 6,
                     0x7FFFFFFF, 0x7FFFFFC0, 0x7FFFFF80, 12345678, 0x40000040, 0x40000041] * 2, dtype=np.int64)
    sign = (LANES >= 16).astype(np.int64)
    put(u, 1, (sign << 31) | mags)
    issue(0, "SFPCAST", instr_mod1=0, lreg_dest=2, lreg_src_c=1)
    want = [fbits(float(np.float32(np.float64(m)))) | (s << 31) for m, s in zip(mags, sign)]
    assert [hex(x) for x in u.lreg[2]] == [hex(w) for w in want]


# --------------------------------------------------------------------------- SFPSWAP
def ref_sm_less(c, d):
    def key(x):
        return -(int(x) & 0x7FFFFFFF) - 1 if x >> 31 else int(x)
    return np.array([key(a) < key(b) for a, b in zip(c, d)])


@pytest.mark.parametrize("mod,gets_min", [(1, 0xFFFFFFFF), (2, 0x0000FFFF), (3, 0x00FF00FF), (4, 0xFF0000FF),
                                          (5, 0xFF), (6, 0xFF00), (7, 0xFF0000), (8, 0xFF000000)])
def test_swap_min_max(mod, gets_min):
    """SFPSWAP.md: VD gets min / VC max in the lanes VDGetsMin selects, the opposite
    elsewhere, in the sign-magnitude total order (-NaN < -Inf < ... < -0 < +0 < ...)."""
    _, issue, u = setup()
    c, d = random_bits(), random_bits()
    c[:4] = [0x80000000, 0, 0xFF800001, 0x7F800000]
    d[:4] = [0, 0x80000000, 0xFF800000, 0x7FC00000]
    put(u, 1, c)
    put(u, 2, d)
    issue(0, "SFPSWAP", instr_mod1=mod, lreg_dest=2, lreg_src_c=1, imm12_math=0)
    want_min = ((gets_min >> LANES) & 1) == 1
    c_less = ref_sm_less(c, d)
    lo = np.where(c_less, c, d)
    hi = np.where(c_less, d, c)
    # ties (equal patterns) leave both as they were, which equals lo/hi either way
    assert np.array_equal(u.lreg[2], np.where(want_min, lo, hi))
    assert np.array_equal(u.lreg[1], np.where(want_min, hi, lo))


def test_swap_plain_and_exchange_srcb_srcc():
    """SFPSWAP.md: Mod1 0 swaps; LaneConfig.EXCHANGE_SRCB_SRCC inverts min/max decisions."""
    _, issue, u = setup()
    put(u, 1, f2b(np.arange(32)))
    put(u, 2, f2b(-np.arange(32.0)))
    issue(0, "SFPSWAP", instr_mod1=0, lreg_dest=2, lreg_src_c=1, imm12_math=0)
    assert np.array_equal(b2f(u.lreg[2]), np.arange(32)) and np.array_equal(b2f(u.lreg[1]), -np.arange(32))
    u.lane_config[:] = 1 << 8
    issue(0, "SFPSWAP", instr_mod1=1, lreg_dest=2, lreg_src_c=1, imm12_math=0)
    # VD keeps/gets the max now; lane 0 holds +0 / -0: -0 < +0, so VD = +0
    assert np.array_equal(b2f(u.lreg[2]), np.arange(32))
    assert u.lreg[2][0] == 0 and u.lreg[1][0] == 0x80000000


def test_swap_argmin_argmax():
    """SFPSWAP.md ENABLE_DEST_INDEX: values in LReg[0..3] are min/maxed and LReg[4 + (V & 3)]
    swapped along with them."""
    _, issue, u = setup()
    u.lane_config[:] = 1 << 2
    a, b = f2b(RNG.normal(size=32)), f2b(RNG.normal(size=32))
    put(u, 0, a)
    put(u, 1, b)
    put(u, 4, 100)
    put(u, 5, 200)
    issue(0, "SFPSWAP", instr_mod1=1, lreg_dest=0, lreg_src_c=1, imm12_math=0)
    swapped = b2f(b) < b2f(a)
    assert np.array_equal(u.lreg[0], np.where(swapped, b, a))
    assert np.array_equal(u.lreg[1], np.where(swapped, a, b))
    assert np.array_equal(u.lreg[4], np.where(swapped, 200, 100))
    assert np.array_equal(u.lreg[5], np.where(swapped, 100, 200))


@pytest.mark.parametrize("mod", [9, 15])
def test_swap_undocumented_mode_warns(mod):
    """SFPSWAP.md leaves VDGetsMin undefined for Mod1 9..15: a warning; VD gets the
    maximum in every lane (ttsim's Mod1 9)."""
    tile, issue, u = setup()
    a, b = f2b(RNG.normal(size=32)), f2b(RNG.normal(size=32))
    put(u, 0, a)
    put(u, 1, b)
    issue(0, "SFPSWAP", instr_mod1=mod, lreg_dest=0, lreg_src_c=1, imm12_math=0)
    warned(tile, f"SFPSWAP Mod1={mod}")
    np.testing.assert_array_equal(b2f(u.lreg[0]), np.maximum(b2f(a), b2f(b)))
    np.testing.assert_array_equal(b2f(u.lreg[1]), np.minimum(b2f(a), b2f(b)))
    tile, issue = make_strict()
    with pytest.raises(UndefinedBehaviour, match="SFPSWAP"):
        issue(0, "SFPSWAP", instr_mod1=mod, lreg_dest=0, lreg_src_c=1, imm12_math=0)


# -------------------------------------------------------------------------- SFPTRANSP
def test_transp():
    """SFPTRANSP.md (and the seed text's table): within each column, row j of LReg[b + i]
    and row i of LReg[b + j] exchange, for b = 0 and 4."""
    _, issue, u = setup()
    orig = RNG.integers(0, 1 << 32, (8, 32), dtype=np.uint64).astype(U32)
    u.lreg[0:8] = orig
    mod1(issue, "SFPTRANSP")
    for base in (0, 4):
        for i in range(4):
            for row in range(4):
                assert np.array_equal(u.lreg[base + i][row * 8:row * 8 + 8], orig[base + row][i * 8:i * 8 + 8])


def test_transp_respects_lane_enables():
    _, issue, u = setup()
    orig = RNG.integers(0, 1 << 32, (8, 32), dtype=np.uint64).astype(U32)
    u.lreg[0:8] = orig
    u.use_flags[:] = True
    u.flags[:] = LANES < 16  # rows 0 and 1 receive, rows 2 and 3 keep
    mod1(issue, "SFPTRANSP")
    for i in range(4):
        for row in range(4):
            want = orig[row][i * 8:i * 8 + 8] if row < 2 else orig[i][row * 8:row * 8 + 8]
            assert np.array_equal(u.lreg[i][row * 8:row * 8 + 8], want)


def test_lane_row_mask():
    """VectorUnit.md IsLaneEnabled: LaneConfig[Lane & 7].ROW_MASK bit Lane / 8 disables a lane."""
    _, issue, u = setup()
    u.lane_config[:] = 0b0101 << 12  # rows 0 and 2 masked
    put(u, 1, 7)
    mod1(issue, "SFPMOV", vd=0, vc=1)
    assert np.array_equal(u.lreg[0], np.where((LANES // 8) % 2 == 1, 7, 0))


def test_lane_masks_follow_lane_config_writes():
    """Masks derived from LaneConfig are kept between instructions: an in-place write
    to it (or SFPCONFIG's) must be seen by the next instruction, and writing back an
    earlier value must give the earlier masks again."""
    _, issue, u = setup()
    put(u, 1, 7)
    for rows in (0b0101, 0b0010, 0, 0b0101):
        u.lane_config[:] = rows << 12
        put(u, 0, 0)
        mod1(issue, "SFPMOV", vd=0, vc=1)
        masked = ((rows >> (LANES // 8)) & 1) == 1
        assert np.array_equal(u.lreg[0], np.where(masked, 0, 7)), rows


def test_reissued_instruction_keeps_its_thread():
    """The Vector Unit decodes an instruction once per distinct word and issuing thread
    and reuses it: the same two words issued by threads 0, 0 and 1 break SFPMAD.md's
    next-cycle rule each time, reported under the issuing thread, with the stale read."""
    tile, issue, u = setup()
    put(u, 1, fbits(5.0))
    for i, thread in enumerate((0, 0, 1)):
        issue(thread, "SFPMAD", instr_mod1=0, lreg_dest=1, lreg_src_c=9, lreg_src_b=10, lreg_src_a=10)
        mod1(issue, "SFPMOV", vd=2, vc=1, thread=thread)
        assert np.all(b2f(u.lreg[2]) == (5.0 if i == 0 else 7.0))  # L1 before the SFPMAD
        assert np.all(b2f(u.lreg[1]) == 1.0)
        put(u, 1, fbits(7.0))
    assert "t0 SFPMAD" in warned(tile, "t0 hazard SFPMAD.md read", times=2)
    assert "t1 SFPMAD" in warned(tile, "t1 hazard SFPMAD.md read")
