"""Vector Unit MAD sub-unit: SFPMAD / SFPADD / SFPMUL / SFPADDI / SFPMULI / SFPLUT /
SFPLUTFP32. SFPMAD.md's "IEEE754 conformance / divergence" against numpy where the page
pins results (exact small values, ties to even, a multiply by one or an add of zero is a
standalone add / multiply, denormal inputs as zero, denormal and -0 results as +0, NaN
with the mantissa LSB set); the instructions' operands, tables and modes against the
page's bit-perfect model (``fma_wh_plain``, which test_sfpu_fma_ttsim.py checks against
ttsim's own copy of it)."""

from __future__ import annotations

import numpy as np
import pytest

from test_unit_sfpu import LANES, RNG, U32, b2f, f2b, fbits, is_nan, put, random_bits, setup
from ttemu.tensix.units.sfpu.fma import fma_wh_plain


def ref_fma(a: int, b: int, c: int) -> int:
    """The page's model of one lane (Miscellaneous/FMA ``fma_model_wh``)."""
    return int(fma_wh_plain(a, b, c))


def assert_fp_equal(got, want):
    """Bit for bit (NaN payloads included: the model defines them), and every NaN has its
    mantissa LSB set (SFPMAD.md)."""
    got, want = np.asarray(got, dtype=U32), np.asarray(want, dtype=U32)
    assert np.array_equal(got, want), [(hex(g), hex(w)) for g, w in zip(got, want) if g != w]
    assert np.all(got[is_nan(got)] & 1)


def mad(issue, name="SFPMAD", a=0, b=1, c=2, d=3, mod=0):
    issue(0, name, lreg_src_a=a, lreg_src_b=b, lreg_src_c=c, lreg_dest=d, instr_mod1=mod)


@pytest.mark.parametrize("name", ["SFPMAD", "SFPADD", "SFPMUL"])
def test_mad_random_against_reference(name):
    """SFPADD.md / SFPMUL.md: identical to SFPMAD; random patterns incl. specials."""
    _, issue, u = setup()
    for _ in range(25):
        a, b, c = random_bits(), random_bits(), random_bits()
        put(u, 0, a)
        put(u, 1, b)
        put(u, 2, c)
        mad(issue, name)
        assert_fp_equal(u.lreg[3], [ref_fma(int(x), int(y), int(z)) for x, y, z in zip(a, b, c)])


def test_mad_exact_small_values():
    """Exactly representable results are exact: VD = VA * VB + VC."""
    _, issue, u = setup()
    a = RNG.integers(-100, 100, 32).astype(np.float32)
    b = RNG.integers(-100, 100, 32).astype(np.float32) / 4
    c = RNG.integers(-1000, 1000, 32).astype(np.float32) / 8
    put(u, 0, f2b(a))
    put(u, 1, f2b(b))
    put(u, 2, f2b(c))
    mad(issue)
    assert np.array_equal(b2f(u.lreg[3]), a * b + c)


def test_mad_rounding_ties_to_even():
    """One rounding, to nearest with ties to even: 1 + 2**-24 (a tie) -> 1; 1 + 3 * 2**-24 -> 1 + 2**-22."""
    _, issue, u = setup()
    put(u, 0, f2b(1.0))
    put(u, 1, f2b(1.0))
    c = np.array([2.0**-24, 3 * 2.0**-24, 2.0**-24 + 2.0**-40, -(2.0**-25)] * 8)
    put(u, 2, f2b(c))  # exactly representable addends
    mad(issue)  # 1 * 1 + c
    want = np.array([1.0, 1 + 2.0**-22, 1 + 2.0**-23, 1.0] * 8, dtype=np.float32)
    assert np.array_equal(b2f(u.lreg[3]), want)


def test_mad_keeps_the_product_unrounded():
    """SFPMAD.md: the product is kept in more than FP32 precision, single rounding:
    (1 + 2**-12)**2 - (1 + 2**-11) = 2**-24 exactly (an FP32-rounded product would give
    0; the model keeps 26 fraction bits of it)."""
    _, issue, u = setup()
    put(u, 0, f2b(1 + 2.0**-12))
    put(u, 1, f2b(1 + 2.0**-12))
    put(u, 2, f2b(-(1 + 2.0**-11)))
    mad(issue)
    assert np.all(u.lreg[3] == fbits(2.0**-24))


def test_mad_is_partially_fused():
    """SFPMAD.md: the product "is not kept in the infinite precision required to be a
    completely fused operation": 0x3f479e84 ** 2 + 0xb3484880 is 0x3f1ba7d2 (the page's
    model, and ttsim's value), where rounding the exact value (numpy, float64) once gives
    0x3f1ba7d3."""
    _, issue, u = setup()
    put(u, 0, 0x3F479E84)
    put(u, 2, 0xB3484880)
    mad(issue, a=0, b=0, c=2)
    exact = np.float32(np.float64(b2f(0x3F479E84)) ** 2 + np.float64(b2f(0xB3484880)))
    assert exact.view(U32) == 0x3F1BA7D3
    assert np.all(u.lreg[3] == 0x3F1BA7D2)


def _daz(bits):
    return np.where((bits & 0x7F800000) == 0, 0, bits).astype(U32).view(np.float32)


@pytest.mark.parametrize("name", ["SFPADD", "SFPMUL"])
def test_add_and_multiply_are_standalone_operations(name):
    """SFPMAD.md: "If multiplying by one or adding zero, then the partially fused
    operation is equivalent to a standalone add or standalone multiply (handling of
    denormals and negative zero notwithstanding)": SFPADD (VA = LReg[10] = 1.0) and
    SFPMUL (VC = LReg[9] = 0) against numpy's float32 add / multiply of the operands with
    denormals read as zero, where numpy's result is a normal number or infinity; where it
    is zero or denormal, +0 (and where it is +-2**-126, possibly rounded up from below,
    +0 or that); where it is NaN, a NaN with the mantissa LSB set."""
    _, issue, u = setup()
    for _ in range(40):
        a, b = random_bits(), random_bits()
        put(u, 0, a)
        put(u, 1, b)
        with np.errstate(all="ignore"):
            want = (_daz(a) + _daz(b) if name == "SFPADD" else _daz(a) * _daz(b)).view(U32)
        if name == "SFPADD":
            mad(issue, name, a=10, b=0, c=1)
        else:
            mad(issue, name, a=0, b=1, c=9)
        got = u.lreg[3]
        nan = is_nan(want)
        tiny = (want & 0x7F800000) == 0
        edge = (want & 0x7FFFFFFF) == 0x00800000
        normal = ~nan & ~tiny & ~edge
        assert np.array_equal(got[normal], want[normal])
        assert np.all(got[tiny] == 0) and np.all((got[edge] == 0) | (got[edge] == want[edge]))
        assert np.all(is_nan(got[nan]) & (got[nan] & 1 == 1))


def test_mad_denormals_and_negative_zero():
    """Denormal inputs act as zero; denormal results and -0 are written as +0."""
    _, issue, u = setup()
    put(u, 0, 0x00400000)  # denormal * 2**100 would be a normal number
    put(u, 1, f2b(2.0**100))
    put(u, 2, 0x80000000)
    mad(issue)
    assert np.all(u.lreg[3] == 0)
    put(u, 0, f2b(2.0**-70))
    put(u, 1, f2b(2.0**-70))  # 2**-140: denormal result
    put(u, 2, 0)
    mad(issue)
    assert np.all(u.lreg[3] == 0)
    put(u, 0, f2b(-1.0))
    put(u, 1, 0)
    put(u, 2, 0x80000000)  # -0 + -0
    mad(issue)
    assert np.all(u.lreg[3] == 0)
    put(u, 0, f2b(2.0**-63))
    put(u, 1, f2b(2.0**-63))  # exactly 2**-126: the smallest normal survives
    mad(issue)
    assert np.all(u.lreg[3] == 0x00800000)


def test_mad_specials():
    """NaN / Inf follow IEEE: inf*0 and inf-inf are NaN (LSB set), overflow is +-Inf."""
    _, issue, u = setup()
    cases = [(0x7F800000, 0, 0), (0x7F800000, 0x3F800000, 0xFF800000), (0x7F7FFFFF, f2b(2.0), 0),
             (0xFF7FFFFF, f2b(2.0), 0), (0x7F800000, 0xBF800000, 0x3F800000), (0x7FC00000, 0, 0),
             (0x3F800000, 0x3F800000, 0xFFC00001), (0x7F800000, 0x00000001, 0)]
    a, b, c = (np.array([int(x[i]) for x in cases] * 4, dtype=U32) for i in range(3))
    put(u, 0, a)
    put(u, 1, b)
    put(u, 2, c)
    mad(issue)
    got = u.lreg[3]
    assert list(is_nan(got[:8])) == [True, True, False, False, False, True, True, True]
    assert got[2] == 0x7F800000 and got[3] == 0xFF800000 and got[4] == 0xFF800000
    assert np.all(got[is_nan(got)] & 1)


def test_mad_indirect_va_and_vd():
    """SFPMAD.md: INDIRECT_VA reads VA from LReg[LReg[7] & 15] per lane; INDIRECT_VD writes
    to LReg[LReg[7] & 15] (only 0..7 are written)."""
    _, issue, u = setup()
    for r in range(7):
        put(u, r, f2b(float(r + 1)))
    sel = np.array([0, 1, 2, 8, 10, 15, 4, 5] * 4, dtype=U32)
    u.lreg[7] = sel
    regs_before = u.lreg.copy()
    mad(issue, a=0, b=10, c=9, d=6, mod=4)  # VD = LReg[sel] * 1 + 0
    want = [ref_fma(int(regs_before[s, i]), 0x3F800000, 0) for i, s in enumerate(sel)]
    assert np.array_equal(u.lreg[6], want)  # LReg[15]'s integers are denormals: read as 0
    u.lreg[7] = np.array([0, 1, 2, 3, 8, 9, 15, 4] * 4, dtype=U32)
    before = u.lreg.copy()
    put(u, 5, f2b(7.5))
    mad(issue, a=5, b=10, c=9, d=0, mod=8)  # LReg[LReg[7] & 15] = 7.5
    for lane in range(32):
        t = int(u.lreg[7][lane])
        if t < 8:
            assert u.lreg[t][lane] == fbits(7.5) or t == 7
        for r in range(8):
            if r != t:
                assert u.lreg[r][lane] == (before[r][lane] if r != 5 else fbits(7.5))


@pytest.mark.parametrize("imm", [0x3F80, 0x4049, 0xC000, 0x0001, 0x7F80, 0x0000])
def test_addi_muli(imm):
    """SFPADDI.md: VD = BF16(Imm16) * 1.0 + VD; SFPMULI.md: VD = BF16(Imm16) * VD + 0.0."""
    _, issue, u = setup()
    v = random_bits()
    put(u, 4, v)
    issue(0, "SFPADDI", instr_mod1=0, lreg_dest=4, imm16_math=imm)
    assert_fp_equal(u.lreg[4], [ref_fma(imm << 16, 0x3F800000, int(x)) for x in v])
    issue(0, "SFPNOP")  # SFPADDI.md: its result may not be read on the next cycle
    put(u, 4, v)
    issue(0, "SFPMULI", instr_mod1=0, lreg_dest=4, imm16_math=imm)
    assert_fp_equal(u.lreg[4], [ref_fma(imm << 16, int(x), 0) for x in v])


def test_addi_lane_enables():
    _, issue, u = setup()
    put(u, 1, f2b(1.0))
    u.use_flags[:] = True
    u.flags[:] = LANES < 5
    issue(0, "SFPADDI", instr_mod1=0, lreg_dest=1, imm16_math=0x4000)  # += 2
    assert np.array_equal(b2f(u.lreg[1]), np.where(LANES < 5, 3.0, 1.0))


# --------------------------------------------------------------------------- SFPLUT
def lut8_ref(x: int) -> float:
    """SFPLUT.md table of Lut8ToFp32 values: rows by exponent bits, +-(1 + m/16) * 2**-e."""
    if x == 0xFF:
        return 0.0
    s, e, m = x >> 7, (x >> 4) & 7, x & 15
    return (-1.0 if s else 1.0) * (1 + m / 16) * 2.0**-e


def test_lut8_table_from_the_page():
    """SFPLUT.md's table: e.g. exponent bits 0b000 give 1..1.9375, 0b111 0.0078125..0.0151367,
    0xff is zero."""
    from ttemu.tensix.units.sfpu.fp import lut8_to_fp32
    got = b2f(lut8_to_fp32(np.arange(256)))
    assert np.array_equal(got, np.array([lut8_ref(x) for x in range(256)], dtype=np.float32))
    assert got[0x0F] == 1.9375 and got[0x1F] == 0.96875 and got[0x70] == 0.0078125
    assert abs(got[0x7F] - 0.0151367) < 1e-7 and got[0x80] == -1.0 and got[0xFF] == 0


@pytest.mark.parametrize("mod0", [0, 4])
def test_lut_ranges_and_sign_retain(mod0):
    """SFPLUT.md: |LReg[3]| < 1 uses LReg[0], < 2 LReg[1], else LReg[2] (A = bits 15:8,
    C = bits 7:0); SGN_RETAIN copies LReg[3]'s sign."""
    _, issue, u = setup()
    x = np.array(([0.25, -0.5, 0.999, 1.0, -1.5, 1.99, 2.0, -3.5, 100.0, 0.0, -0.0] * 3)[:32], dtype=np.float32)
    put(u, 3, f2b(x))
    put(u, 0, 0x1020)  # A=0x10 (0.5... wait: 0x10 -> exp1 -> 0.5), C=0x20 -> 0.25
    put(u, 1, 0x0011)  # A=1.0, C=0.53125
    put(u, 2, 0x8FFF)  # A=-1.9375, C=0
    issue(0, "SFPLUT", lreg_ind=4, instr_mod0=mod0, dest_reg_addr=0)
    ax = np.abs(x)
    coeff = np.where(ax < 1, 0x1020, np.where(ax < 2, 0x0011, 0x8FFF))
    want = [ref_fma(fbits(lut8_ref(int(k) >> 8)), fbits(float(a)), fbits(lut8_ref(int(k) & 0xFF)))
            for k, a in zip(coeff, ax)]
    want = np.array(want, dtype=U32)
    if mod0 & 4:
        want = (want & 0x7FFFFFFF) | (f2b(x) & 0x80000000)
    assert np.array_equal(u.lreg[4], want)


def test_lut_indirect_vd():
    """SFPLUT.md INDIRECT_VD: write LReg[LReg[7] & 15]."""
    _, issue, u = setup()
    put(u, 3, f2b(0.5))
    put(u, 0, 0x0000)  # A = 1, C = 1 -> 1.5
    u.lreg[7] = np.array([4, 5, 6, 12] * 8, dtype=U32)
    issue(0, "SFPLUT", lreg_ind=2, instr_mod0=8, dest_reg_addr=0)
    for lane in range(32):
        t = [4, 5, 6, 12][lane % 4]
        if t < 8:
            assert u.lreg[t][lane] == fbits(1.5)
    assert np.all(u.lreg[2] == 0)


# ------------------------------------------------------------------------ SFPLUTFP32
def lut16_ref(x: int) -> float:
    """SFPLUTFP32.md table: exponent 31 reads as +-0, exponent 0 as (1 + m/1024) * 2**-15."""
    s, e, m = x >> 15, (x >> 10) & 31, x & 1023
    if e == 31:
        return -0.0 if s else 0.0
    return (-1.0 if s else 1.0) * (1 + m / 1024) * 2.0 ** (e - 15)


def test_lut16_interpretation_table():
    from ttemu.tensix.units.sfpu.fp import lut16_to_fp32
    xs = np.arange(0, 1 << 16, 7)
    got = lut16_to_fp32(xs)
    # exponent 31 gives a denormal pattern, which the multiply-add reads as zero
    e31 = ((xs >> 10) & 31) == 31
    assert np.all((got[e31] & 0x7F800000) == 0)
    assert np.array_equal(b2f(got[~e31]), np.array([lut16_ref(int(x)) for x in xs[~e31]], dtype=np.float32))


def lutfp32_setup(u):
    x = np.array([0.1, 0.6, 1.2, 1.7, 2.5, 3.5, 5.0, -0.3, -1.6, -3.9, 0.0, 4.0, 3.0, 1.5, 0.5, 1.0] * 2,
                 dtype=np.float32)
    put(u, 3, f2b(x))
    for i in range(3):
        put(u, i, RNG.integers(0, 1 << 32, dtype=np.uint64))
        put(u, 4 + i, RNG.integers(0, 1 << 32, dtype=np.uint64))
    return x


def test_lutfp32_fp32_3entry():
    """SFPLUTFP32.md FP32_3ENTRY_TABLE: VD = LReg[i] * |x| + LReg[4 + i]."""
    _, issue, u = setup()
    x = lutfp32_setup(u)
    for i in range(3):
        put(u, i, f2b(float(i + 1) / 4))
        put(u, 4 + i, f2b(float(i) - 0.5))
    issue(0, "SFPLUTFP32", instr_mod1=0, lreg_dest=7)
    ax = np.abs(x)
    i = np.where(ax < 1, 0, np.where(ax < 2, 1, 2))
    want = [ref_fma(int(u.lreg[k][j]), fbits(float(a)), int(u.lreg[4 + k][j])) for j, (k, a) in enumerate(zip(i, ax))]
    assert_fp_equal(u.lreg[7], want)


@pytest.mark.parametrize("mod,cut", [(2, 3.0), (3, 4.0), (2 | 4, 3.0)])
def test_lutfp32_6entry(mod, cut):
    """SFPLUTFP32.md FP16_6ENTRY_TABLE1 / TABLE2: the low (high) halves for the lower (upper)
    half of each range; the last split is at 3.0 or 4.0; Mod1 & 4 keeps x's sign.
    (The page's ``Mod1 & FP16_3ENTRY_TABLE`` test is read as ``(Mod1 & 10) == 10``, see
    the implementation.)"""
    _, issue, u = setup()
    x = lutfp32_setup(u)
    regs = u.lreg.copy()
    issue(0, "SFPLUTFP32", instr_mod1=mod, lreg_dest=5)
    ax = np.abs(x)
    want = []
    for lane, a in enumerate(ax):
        i = 0 if a < 1 else 1 if a < 2 else 2
        j = 0 if a < 0.5 else 16 if a < 1 else 0 if a < 1.5 else 16 if a < 2 else 0 if a < cut else 16
        av = fbits(lut16_ref((int(regs[i][lane]) >> j) & 0xFFFF))
        cv = fbits(lut16_ref((int(regs[4 + i][lane]) >> j) & 0xFFFF))
        r = ref_fma(av, fbits(float(a)), cv)
        if mod & 4:
            r = (r & 0x7FFFFFFF) | (fbits(float(x[lane])) & 0x80000000)
        want.append(r)
    assert_fp_equal(u.lreg[5], want)


def test_lutfp32_fp16_3entry_writes_indirect():
    """SFPLUTFP32.md FP16_3ENTRY_TABLE (Mod1 = 10): A / C are the high / low halves of
    LReg[i], and (hardware bug) the result goes to LReg[LReg[7] & 15]. The seed text calls
    the halves plain "Fp16ToFp32" and does not mention the indirect write; the page's
    Lut16ToFp32 (exponent 31 -> 0, exponent 0 -> normal) and bug are followed."""
    _, issue, u = setup()
    x = np.array([0.5, 1.5, 2.5, 9.0] * 8, dtype=np.float32)
    put(u, 3, f2b(x))
    put(u, 0, (0x3C00 << 16) | 0x3800)  # A = 1.0, C = 0.5
    put(u, 1, (0x4000 << 16) | 0x0000)  # A = 2.0, C = exponent 0 -> 2**-15
    put(u, 2, (0xBC00 << 16) | 0x7C00)  # A = -1.0, C = exponent 31 -> 0
    put(u, 7, 2)
    issue(0, "SFPLUTFP32", instr_mod1=10, lreg_dest=6)
    assert np.all(u.lreg[6] == 0)
    want = np.array([1.0, 3.0 + 2.0**-15, -2.5, -9.0] * 8, dtype=np.float32)
    assert np.array_equal(b2f(u.lreg[2]), want)


def test_mad_respects_lane_enable_and_vd_range():
    """SFPMAD.md: only enabled lanes, only VD < 8 (or 16 via SFPLOADMACRO) written."""
    _, issue, u = setup()
    put(u, 0, f2b(2.0))
    u.use_flags[:] = True
    u.flags[:] = LANES >= 20
    mad(issue, a=0, b=0, c=9, d=1)
    assert np.array_equal(b2f(u.lreg[1]), np.where(LANES >= 20, 4.0, 0.0))
    mad(issue, a=0, b=0, c=9, d=10)
    assert np.all(u.lreg[10] == fbits(1.0))
