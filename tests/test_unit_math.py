"""Matrix Unit (FPU) matrix multiplication: MVMUL.md, DOTPV.md, GAPOOL.md, with the
fidelity phases of SrcASrcB.md ("Fidelity phases (floating-point)" / "(integer)"),
the ``SrcAFidelityBits`` / ``SrcBFidelityBits`` of ELWMUL.md, RWCs.md, Dst.md and
FloatBitPatterns.md. References are numpy computations written here; the fidelity
reference applies the pages' float32 bit masks literally (tests/test_unit_math_helpers.py).

Seed disagreements (shared/seeds/004: "Bits of the MatMul", older prose; the docs win):
* The seed calls the multiplier "7b x 5b" and says the four invocations cover "(almost)
  the full range" of an 11b x 11b multiply. The docs make this exact: SrcA gives 5 + 5
  bits (the TF32/FP16 LSB is never used) and SrcB 7 + 4 bits, so SrcB is always fully
  used and SrcA loses its last bit for TF32/FP16 (test_fidelity_tf32_*).
* The seed only guesses at the adder ("may" use a multi-term adder aligned to the
  largest exponent, round toward zero or ties-away). The docs give a float32 "rough
  guide" and allow other orders and precisions without naming a rounding mode; we sum
  exactly (float64) and round once to nearest even (ttemu/tensix/units/math.py module
  docstring), pinned by test_bf16_dst_rounds_to_nearest_even and
  test_fp32_dst_rounds_once_to_nearest_even.
* The seed suggests denormals may be flushed; the docs say they are (input exponent 0
  reads as zero, tiny results become +0): test_flush_and_overflow.
"""


import numpy as np
import pytest

from test_unit_math_helpers import (
    FMT_BF16,
    FMT_FP16,
    FMT_TF32,
    dst_bf16,
    dst_fp16,
    dst_fp32,
    dst_fp32_bits,
    dst_int32,
    give,
    mvmul_reference,
    put_dst_bf16,
    put_dst_fp32,
    put_dst_int32,
    put_src,
    setup,
    src_bf16,
    src_fp16,
    src_int8,
    src_tf32,
    tset,
)
from tensix_harness import warned
from ttemu import UndefinedBehaviour, Unimplemented

RNG = np.random.default_rng(1234)


def mvmul(issue, thread=0, **kw):
    fields = dict(clear_dvalid=0, instr_mod19=0, addr_mode=0, dst=0)
    fields.update(kw)
    return issue(thread, "MVMUL", **fields)


def rand_bf16(shape, lo=1.0, hi=2.0):
    """Random BF16-representable values in [lo, hi) with random signs."""
    v = RNG.uniform(lo, hi, size=shape).astype(np.float32)
    v = (v.view(np.uint32) & 0xFFFF0000).view(np.float32)
    return v * RNG.choice([-1.0, 1.0], size=shape).astype(np.float32)


def rand_tf32(shape):
    v = RNG.uniform(1.0, 2.0, size=shape).astype(np.float32)
    v = (v.view(np.uint32) & 0xFFFFE000).view(np.float32)
    return v * RNG.choice([-1.0, 1.0], size=shape).astype(np.float32)


def rand_fp16(shape):
    return (RNG.uniform(1.0, 2.0, size=shape) * RNG.choice([-1.0, 1.0], size=shape)).astype(np.float16)


# ---------------------------------------------------------------------------------------
# Basic products
# ---------------------------------------------------------------------------------------

def test_mvmul_small_integers_exact_fp32_dst():
    """Integers of <= 5 significant bits are consumed whole by phase 0 (1 + 4 mantissa
    bits of SrcA, 1 + 6 of SrcB), so one MVMUL gives the exact product."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = RNG.integers(-16, 17, size=(16, 16)).astype(np.float32)
    b = RNG.integers(-16, 17, size=(8, 16)).astype(np.float32)
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    t = mvmul(issue)
    assert t.held is None
    np.testing.assert_array_equal(dst_fp32(cop, 0, 8), (b.astype(np.float64) @ a).astype(np.float32))
    # Rows 8.. untouched
    assert not cop.dst.bits[16:].any()


def test_mvmul_accumulates_onto_dst():
    """Dst += SrcB @ SrcA; ZEROACC first gives Dst = SrcB @ SrcA (MVMUL.md summary)."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = RNG.integers(-8, 9, size=(16, 16)).astype(np.float32)
    b = RNG.integers(-8, 9, size=(8, 16)).astype(np.float32)
    d0 = RNG.integers(-100, 100, size=(8, 16)).astype(np.float32)
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    put_dst_fp32(cop, 0, d0)
    mvmul(issue)
    np.testing.assert_array_equal(dst_fp32(cop, 0, 8), d0 + b @ a)
    mvmul(issue)
    np.testing.assert_array_equal(dst_fp32(cop, 0, 8), d0 + 2 * (b @ a))
    issue(0, "ZEROACC", clear_mode=3, AddrMode=0, dst=0)  # all of Dst undefined
    mvmul(issue)
    np.testing.assert_array_equal(dst_fp32(cop, 0, 8), b @ a)


def test_mvmul_bf16_dst_16bit():
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    a = RNG.integers(-4, 5, size=(16, 16)).astype(np.float32)
    b = RNG.integers(-4, 5, size=(8, 16)).astype(np.float32)
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    mvmul(issue, dst=16)
    np.testing.assert_array_equal(dst_bf16(cop, 16, 8), b @ a)
    assert not cop.dst.bits[:16].any() and not cop.dst.bits[24:].any()


def test_bf16_dst_rounds_half_up():
    """RoundToBF16 is not spelt out by the pages; the datapath rounds to nearest, ties
    away from zero (fpu_datapath.py, bit-identical to ttsim on tt-llk's kernels)."""
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    a = np.zeros((16, 16), np.float32)
    a[0, :] = 2.0 ** -8
    a[1, :] = 2.0 ** -9
    b = np.zeros((8, 16), np.float32)
    b[:, 0] = 1.0
    b[4:, 1] = 1.0  # rows 4..7: 2**-8 + 2**-9
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    d0 = np.array([1.0, 1.0 + 2 ** -7, 1.0 + 2 ** -6, 1.0 + 3 * 2 ** -7,
                   1.0, 1.0 + 2 ** -7, 1.0, 1.0], np.float32)[:, None] * np.ones((1, 16), np.float32)
    put_dst_bf16(cop, 0, d0)
    mvmul(issue)
    got = dst_bf16(cop, 0, 8)[:, 0]
    ulp = 2.0 ** -7  # BF16 in [1, 2)
    expect = [1.0 + ulp,       # 1 + 0.5 ulp: tie -> up (1)
              1.0 + 2 * ulp,   # 1 + 1.5 ulp: tie -> up (2)
              1.0 + 3 * ulp,   # 1 + 2.5 ulp: tie -> up (3)
              1.0 + 4 * ulp,   # 1 + 3.5 ulp: tie -> up (4)
              1.0 + ulp,       # 1 + 0.75 ulp: nearest (1)
              1.0 + 2 * ulp,   # 1 + 1.75 ulp: nearest (2)
              1.0 + ulp, 1.0 + ulp]
    np.testing.assert_array_equal(got, np.array(expect, np.float32))


def test_fp32_dst_rounds_half_up():
    """FP32 Dst: the sum is aligned to Dst's exponent rounding half up (fpu_datapath.py,
    as ttsim): 2**24 + 1 (a tie) becomes 2**24 + 2; + 3 becomes + 4."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = np.zeros((16, 16), np.float32)
    a[0, 0] = 1.0
    a[1, 0] = 2.0
    b = np.zeros((8, 16), np.float32)
    b[0, 0] = 1.0
    b[1, :2] = 1.0
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    put_dst_fp32(cop, 0, np.full((8, 16), 2.0 ** 24, np.float32))
    mvmul(issue)
    assert dst_fp32(cop, 0, 2)[:, 0].tolist() == [2.0 ** 24 + 2, 2.0 ** 24 + 4]


def test_mvmul_aligns_products_per_group_of_eight():
    """The datapath sums a dot product's 16 products in two groups of 8, each aligned to
    its largest product at product precision (fpu_datapath.py, as ttsim): seven products
    2**-12 below a 1.0 in the same group vanish; in the other group they survive."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = np.zeros((16, 16), np.float32)
    a[0, 0] = 1.0
    a[1:8, 0] = 2.0 ** -12   # column 0: small terms in group 0, with the 1.0
    a[0, 1] = 1.0
    a[8:15, 1] = 2.0 ** -12  # column 1: small terms in group 1
    b = np.zeros((8, 16), np.float32)
    b[0, :] = 1.0
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    put_dst_fp32(cop, 0, np.zeros((8, 16), np.float32))
    mvmul(issue)
    got = dst_fp32(cop, 0, 1)[0, :2].tolist()
    assert got == [1.0, 1.0 + 7 * 2.0 ** -12]


# ---------------------------------------------------------------------------------------
# Fidelity phases (SrcASrcB.md, floating point)
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt,gen,conv", [
    (FMT_BF16, rand_bf16, src_bf16),
    (FMT_TF32, rand_tf32, src_tf32),
    (FMT_FP16, rand_fp16, src_fp16),
])
@pytest.mark.parametrize("nphases", [1, 2, 3, 4])
def test_fidelity_phases_match_doc_masks(fmt, gen, conv, nphases):
    """LoFi / HiFi2 / HiFi3 / HiFi4 = phases {0}, {0,1}, {0,1,2}, {0,1,2,3}, one MVMUL
    each with FidelityIncr=1, against the pages' float32 masks applied literally."""
    tile, issue, cop = setup(fmt, fp32=True)
    a = gen((16, 16))
    b = gen((8, 16))
    put_src(cop, "A", 0, conv(a))
    put_src(cop, "B", 0, conv(b))
    tset(cop, 0, "ADDR_MOD_DST_SEC1_FidelityIncr", 1)
    for _ in range(nphases):
        mvmul(issue, addr_mode=1)
    assert cop.rwcs[0].FidelityPhase == nphases & 3
    ref = mvmul_reference(a.astype(np.float32), b.astype(np.float32), range(nphases))
    np.testing.assert_array_equal(dst_fp32_bits(cop, 0, 8), ref.view(np.uint32))


def test_fidelity_bf16_hifi4_is_exact_and_precision_improves():
    """BF16: all four phases consume every mantissa bit (SrcASrcB.md table), so HiFi4 is
    the exact product; LoFi uses SrcA 1+4 bits and SrcB 1+6 bits."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = rand_bf16((16, 16))
    b = rand_bf16((8, 16))
    a[:, 0] = 1.0 + 127 / 128  # all seven mantissa bits set
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    exact = b.astype(np.float64) @ a.astype(np.float64)
    errors = []
    for p in range(4):
        tset(cop, 0, "FIDELITY_BASE_Phase", p)
        mvmul(issue)
        errors.append(np.abs(dst_fp32(cop, 0, 8).astype(np.float64) - exact).max())
        if p == 0:  # LoFi == truncated operands
            at = (a.view(np.uint32) & 0xFFF80000).view(np.float32).astype(np.float64)
            bt = (b.view(np.uint32) & 0xFFFE0000).view(np.float32).astype(np.float64)
            np.testing.assert_array_equal(dst_fp32(cop, 0, 8), (bt @ at).astype(np.float32))
    # exact up to the single FP32 rounding per phase
    assert errors[3] <= 4 * 2.0 ** -23 * np.abs(exact).max() + 1e-30
    assert errors[0] > errors[1] > errors[3]


def test_fidelity_tf32_srca_lsb_never_consumed():
    """TF32/FP16: "For SrcA, the least significant bit of the mantissa is ignored"."""
    tile, issue, cop = setup(FMT_TF32, fp32=True)
    a = np.zeros((16, 16), np.float32)
    a[0, 0] = 1.0 + 2.0 ** -10  # only the LSB set besides the implicit 1
    a[1, 0] = 1.0 + 2.0 ** -9
    b = np.zeros((8, 16), np.float32)
    b[0, 0] = 1.0 + 2.0 ** -10  # SrcB's LSB is consumed (phase 2/3)
    b[1, 1] = 1.0
    put_src(cop, "A", 0, src_tf32(a))
    put_src(cop, "B", 0, src_tf32(b))
    tset(cop, 0, "ADDR_MOD_DST_SEC0_FidelityIncr", 1)
    for _ in range(4):
        mvmul(issue)
    got = dst_fp32(cop, 0, 2)[:, 0]
    assert got[0] == np.float32(1.0 + 2.0 ** -10)  # (1) * (1 + 2^-10): A's LSB dropped
    assert got[1] == np.float32(1.0 + 2.0 ** -9)


def test_fp16_style_with_fp16_dst():
    """SrcA FP16 and 16-bit Dst: Dst is FP16 (RoundToFP16), exponent 31 is a number."""
    tile, issue, cop = setup(FMT_FP16, fp32=False)
    a = RNG.integers(-8, 9, size=(16, 16)).astype(np.float16)
    b = RNG.integers(-8, 9, size=(8, 16)).astype(np.float16)
    put_src(cop, "A", 0, src_fp16(a))
    put_src(cop, "B", 0, src_fp16(b))
    mvmul(issue)
    np.testing.assert_array_equal(dst_fp16(cop, 0, 8), (b.astype(np.float64) @ a).astype(np.float16))
    # 256 * 256 * 2 = 131072 > 131040 (exp 31, mantissa 1023): saturates to that pattern.
    put_src(cop, "A", 0, src_fp16(np.full((16, 16), 256.0)))
    put_src(cop, "B", 0, src_fp16(np.full((8, 16), 256.0)))
    cop.dst.bits[:] = 0
    mvmul(issue)
    assert np.all(cop.dst.read16(0, 8) == 0x7FFF)  # Dst FP16: sign 0, man 1023, exp 31


def test_fp16a_force_enable():
    """ThreadConfig FP16A_FORCE_Enable: FP16 style and 16-bit Dst even with Fp32_enabled."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    tset(cop, 0, "FP16A_FORCE_Enable", 1)
    a = np.eye(16, dtype=np.float16) * 3
    b = RNG.integers(-8, 9, size=(8, 16)).astype(np.float16)
    put_src(cop, "A", 0, src_fp16(a))
    put_src(cop, "B", 0, src_fp16(b))
    mvmul(issue)
    np.testing.assert_array_equal(dst_fp16(cop, 0, 8), b * 3)


def test_flush_and_overflow():
    """FloatBitPatterns.md: exponent 0 reads as zero; results too large give
    sign|exp 255|0; tiny results become +0 (the FPU never writes -0)."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = np.zeros((16, 16), np.float32)
    b = np.zeros((8, 16), np.float32)
    a[0, 0], b[0, 0] = 2.0 ** 127, 2.0          # 2^128: too large
    a[0, 1], b[1, 0] = -(2.0 ** -70), 2.0 ** -70  # -2^-140: below the smallest normal
    a[0, 2], b[2, 0] = -(2.0 ** 127), 4.0       # -2^129
    b[3, 0] = 1.0                               # row 3 reads A[0, 3]
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    # A denormal in SrcA (exponent 0, mantissa != 0) reads as zero.
    cop.src.data["A"][0][0, 3] = (0x55 << 11)  # sign 0, man 0x55<<3, exp 0
    mvmul(issue)
    bits = dst_fp32_bits(cop, 0, 4)
    assert bits[0, 0] == 0x7F800000
    assert bits[1, 1] == 0x00000000
    assert bits[2, 2] == 0xFF800000
    assert bits[3, 3] == 0


def test_exponent_255_is_an_ordinary_number():
    """BF16 exponent 255 is (1 + m/128) * 2**128 to the FPU (FloatBitPatterns.md)."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = np.zeros((16, 16), np.uint32)
    a[0, 0] = (0x40 << 11) | 0xFF  # 1.5 * 2^128 in Src BF16 layout (man 0x40 << 3)
    b = np.zeros((8, 16), np.float32)
    b[0, 0] = 2.0 ** -100
    put_src(cop, "A", 0, a)
    put_src(cop, "B", 0, src_bf16(b))
    mvmul(issue)
    assert dst_fp32(cop, 0)[0, 0] == np.float32(1.5 * 2.0 ** 28)


# ---------------------------------------------------------------------------------------
# Integer "8" x integer "8" -> integer "32" (SrcASrcB.md "Fidelity phases (integer)")
# ---------------------------------------------------------------------------------------

def run_int8(a, b, phases, d0=None):
    tile, issue, cop = setup(FMT_BF16, int8=True)
    put_src(cop, "A", 0, src_int8(a))
    put_src(cop, "B", 0, src_int8(b))
    if d0 is not None:
        put_dst_int32(cop, 0, d0)
    for p in phases:
        tset(cop, 0, "FIDELITY_BASE_Phase", p)
        mvmul(issue)
    return dst_int32(cop, 0, 8)


def test_int8_all_four_phases_exact():
    a = RNG.integers(-255, 256, size=(16, 16))
    b = RNG.integers(-1023, 1024, size=(8, 16))
    np.testing.assert_array_equal(run_int8(a, b, range(4)), b @ a)


@pytest.mark.parametrize("amax,bmax,phases", [
    (31, 15, [3]),          # "Just phase 3"
    (31, 1023, [1, 3]),     # "Phases 1 and 3"
    (255, 15, [2, 3]),      # "Phases 2 and 3"
])
def test_int8_phase_table(amax, bmax, phases):
    a = RNG.integers(-amax, amax + 1, size=(16, 16))
    b = RNG.integers(-bmax, bmax + 1, size=(8, 16))
    np.testing.assert_array_equal(run_int8(a, b, phases), b @ a)
    # and fewer phases are not enough for such data in general
    a[0, 0], b[0, 0] = amax, bmax
    assert not np.array_equal(run_int8(a, b, phases[1:] or []), b @ a)


def test_int8_srca_top_two_magnitude_bits_ignored():
    """SrcASrcB.md (‡): SrcA magnitudes use only their low 8 bits (usable -255..255)."""
    a = np.zeros((16, 16), np.int64)
    a[0, 0] = 256 + 5
    a[1, 1] = -(512 + 7)
    b = np.zeros((8, 16), np.int64)
    b[0, 0] = 1000
    b[0, 1] = 3
    got = run_int8(a, b, range(4))
    assert got[0, 0] == 5000 and got[0, 1] == -21


def test_int8_saturates():
    d0 = np.full((8, 16), 2 ** 31 - 100, np.int64)
    d0[1] = -(2 ** 31 - 100)
    a = np.full((16, 16), 255)
    b = np.ones((8, 16), np.int64)
    b[1] = -1
    got = run_int8(a, b, range(4), d0)
    assert np.all(got[0] == 2 ** 31 - 1)
    assert np.all(got[1] == -(2 ** 31 - 1))


# ---------------------------------------------------------------------------------------
# Waiting, flipping, RWCs, rows
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("mnemonic", ["MVMUL", "DOTPV", "GAPOOL", "ELWADD", "ELWSUB", "ELWMUL", "GMPOOL"])
def test_waits_until_both_banks_owned(mnemonic):
    tile, issue, cop = setup(FMT_BF16, fp32=True, own=False)
    put_src(cop, "A", 0, src_bf16(np.eye(16, dtype=np.float32)))
    put_src(cop, "B", 0, src_bf16(np.ones((8, 16), np.float32)))
    cop.rwcs[0].Dst = 0
    t = issue(0, mnemonic, addr_mode=1)
    tset(cop, 0, "ADDR_MOD_DST_SEC1_DestIncr", 8)
    assert t.held is not None and "SrcA" in t.held_reason
    give(cop, "A")
    cop.kick()
    assert t.held is not None and "SrcB" in t.held_reason
    assert not cop.dst.bits.any() and cop.rwcs[0].Dst == 0  # nothing happened yet
    give(cop, "B")
    cop.state_changed()
    assert t.held is None
    assert cop.rwcs[0].Dst == 8


def test_flip_banks_and_clr_dvalid_disable():
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    mvmul(issue, clear_dvalid=3)
    assert cop.src.math_bank == {"A": 1, "B": 1}
    assert cop.src.allowed["A"] == ["unpack", "unpack"] and cop.src.allowed["B"] == ["unpack", "unpack"]
    # CLR_DVALID_SrcA_Disable: the bank flips but stays with the Matrix Unit
    tset(cop, 0, "CLR_DVALID_SrcA_Disable", 1)
    give(cop)
    mvmul(issue, clear_dvalid=1)
    assert cop.src.math_bank["A"] == 0 and cop.src.allowed["A"][1] == "math"
    # now bank 0 of A belongs to the unpackers: the next MVMUL waits
    t = mvmul(issue)
    assert t.held is not None


def test_rwc_addr_mod_walks_blocks():
    """RWCs.md ApplyAddrMod: SrcA += 16, SrcB += 8, Dst += 8 per MVMUL walks a 32x32
    tile product the way the seed's diagram does (8 chunks of Dst)."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = RNG.integers(-4, 5, size=(32, 16)).astype(np.float32)
    b = RNG.integers(-4, 5, size=(16, 16)).astype(np.float32)
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    tset(cop, 0, "ADDR_MOD_AB_SEC2_SrcAIncr", 16)
    tset(cop, 0, "ADDR_MOD_AB_SEC2_SrcBIncr", 8)
    tset(cop, 0, "ADDR_MOD_DST_SEC2_DestIncr", 8)
    mvmul(issue, addr_mode=2)
    mvmul(issue, addr_mode=2)
    r = cop.rwcs[0]
    assert (r.SrcA, r.SrcB, r.Dst) == (32, 16, 16)
    np.testing.assert_array_equal(dst_fp32(cop, 0, 8), b[:8] @ a[:16])
    np.testing.assert_array_equal(dst_fp32(cop, 8, 8), b[8:] @ a[16:])


def test_dst_row_sources_and_alignment():
    """DstRow = (field + DEST_TARGET_REG_CFG_MATH_Offset + RWC.Dst + DEST_REGW_BASE_Base)
    & 0x3f8; RWC.SrcA/SrcB are aligned down to 8 rows."""
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    a = np.eye(16, dtype=np.float32)
    b = np.arange(128, dtype=np.float32).reshape(8, 16)
    put_src(cop, "A", 8, src_bf16(a))
    put_src(cop, "B", 16, src_bf16(b))
    tset(cop, 0, "DEST_TARGET_REG_CFG_MATH_Offset", 0x100)
    cop.config.set("DEST_REGW_BASE_Base", 0x40, 0)
    cop.rwcs[0].Dst = 0x20
    cop.rwcs[0].SrcA = 8 + 5   # -> 8
    cop.rwcs[0].SrcB = 16 + 7  # -> 16
    mvmul(issue, dst=3)        # 3 + 0x100 + 0x20 + 0x40 = 0x163 -> 0x160
    np.testing.assert_array_equal(dst_bf16(cop, 0x160, 8), b)
    assert cop.dst.bits[:0x160].sum() == 0


def test_dst32_rows_use_adjrow_mapping():
    """Dst32b[Row] lives in DstBits[AdjRow] / [AdjRow + 8] (Dst.md)."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    put_src(cop, "A", 0, src_bf16(np.eye(16, dtype=np.float32)))
    put_src(cop, "B", 0, src_bf16(np.full((8, 16), 3.0, np.float32)))
    mvmul(issue, dst=8)  # Dst32b rows 8..15 -> DstBits 16..23 (high) and 24..31 (low)
    assert np.all(cop.dst.bits[16:24] == 0x4080)  # 3.0 = 0x4040 BF16: man 0x40 << 8 | exp 0x80
    assert not cop.dst.bits[24:32].any() and not cop.dst.bits[:16].any()


def test_broadcast_srcb_row():
    """BroadcastSrcBRow: any SrcB row times SrcA added to Dst rows +0, +2, +4, +6 of
    DstRow & 0x3f9; the odd rows are not written."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = RNG.integers(-4, 5, size=(16, 16)).astype(np.float32)
    b = RNG.integers(-4, 5, size=(1, 16)).astype(np.float32)
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 5, src_bf16(b))
    put_dst_fp32(cop, 16, np.full((8, 16), 7.0, np.float32))
    cop.rwcs[0].SrcB = 5
    mvmul(issue, instr_mod19=1, dst=16 + 6 + 1)  # 23 & 0x3f9 = 17
    got = dst_fp32(cop, 16, 8)
    prod = (b @ a)[0]
    for r in range(8):
        expect = 7.0 + prod if r in (1, 3, 5, 7) else np.full(16, 7.0)
        np.testing.assert_array_equal(got[r], expect.astype(np.float32))


def test_gapool_four_rows():
    """GAPOOL.md: NumRows = 4; SrcB is the top half of the aligned 8-row block, Dst is
    aligned to 4 rows."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = RNG.integers(-4, 5, size=(16, 16)).astype(np.float32)
    b = RNG.integers(-4, 5, size=(8, 16)).astype(np.float32)
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 8, src_bf16(b))
    cop.rwcs[0].SrcB = 8 + 4  # still the block at 8
    issue(0, "GAPOOL", clear_dvalid=0, instr_mod19=0, addr_mode=0, max_pool_index_en=0, dst=4 + 3)
    np.testing.assert_array_equal(dst_fp32(cop, 4, 4), b[:4] @ a)
    assert not dst_fp32(cop, 0, 4).any() and not dst_fp32(cop, 8, 4).any()


def test_dotpv_is_mvmul():
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = RNG.integers(-4, 5, size=(16, 16)).astype(np.float32)
    b = RNG.integers(-4, 5, size=(8, 16)).astype(np.float32)
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    issue(0, "DOTPV", clear_dvalid=0, dest_accum_en=1, instr_mod19=0, addr_mode=0, dst=0)
    np.testing.assert_array_equal(dst_fp32(cop, 0, 8), b @ a)


def test_srca_rows_past_63_warn_and_wrap():
    """MVMUL.md indexes SrcA[SrcARow + i] past row 63 when RWC SrcA is 56: undefined; a
    warning, and the rows wrap to the 64-row bank (56..63, then 0..7)."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = RNG.integers(-4, 5, size=(16, 16)).astype(np.float32)
    b = RNG.integers(-4, 5, size=(8, 16)).astype(np.float32)
    put_src(cop, "A", 56, src_bf16(a[:8]))
    put_src(cop, "A", 0, src_bf16(a[8:]))
    put_src(cop, "B", 0, src_bf16(b))
    cop.rwcs[0].SrcA = 56
    mvmul(issue)
    assert "MVMUL" in warned(tile, "MVMUL SrcA rows past 63")
    np.testing.assert_array_equal(dst_fp32(cop, 0, 8), b @ a)
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    tile.diagnostics.strict = True
    cop.rwcs[0].SrcA = 56
    with pytest.raises(UndefinedBehaviour, match="MVMUL"):
        mvmul(issue)


def test_unassigned_format_code_is_unimplemented():
    tile, issue, cop = setup(12, fp32=True)
    with pytest.raises(Unimplemented, match="format code 12"):
        mvmul(issue)


def test_config_bank_follows_state_id():
    """The thread's CFG_STATE_ID_StateID selects the Config bank (MVMUL.md ConfigState)."""
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    cop.config.set("ALU_ACC_CTRL_Fp32_enabled", 1, 1)  # bank 1: FP32 Dst
    tset(cop, 0, "CFG_STATE_ID_StateID", 1)
    put_src(cop, "A", 0, src_bf16(np.eye(16, dtype=np.float32)))
    put_src(cop, "B", 0, src_bf16(np.full((8, 16), 1.5, np.float32)))
    mvmul(issue)
    np.testing.assert_array_equal(dst_fp32(cop, 0, 8), np.full((8, 16), 1.5, np.float32))


