"""Blackhole Vector Unit MAD sub-unit (BlackholeA0 SFPMAD.md and the pages "as per
SFPMAD"): the multiply-add against numpy where the page pins the result (a multiply by
one or an add of zero is a standalone add / multiply, denormals flushed), and the
instructions' operand modes against a Python model written from the pages (the
multiply-add itself against ttsim's own Blackhole model: test_sfpu_fma_ttsim.py)."""

import numpy as np
import pytest

from tensix_harness import make
from ttemu.tensix.units.sfpu.fma import fma_bh
from ttemu.tensix.units.sfpu.fp_bh import mul24

SPECIALS = np.array([0, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001,
                     0x00000001, 0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x00800000, 0x80800000, 0x00FFFFFF,
                     0x3F800001, 0x33800000, 0x4B000000], dtype=np.uint32)


def _operands(rng, n):
    """FP32 patterns: random ones, specials, and exponents near each other (cancellation)
    or tiny (underflow)."""
    r = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    pick = rng.random(n) < 0.2
    r[pick] = rng.choice(SPECIALS, int(pick.sum()))
    near = rng.random(n) < 0.5
    r[near] = (r[near] & 0x807FFFFF) | (rng.integers(110, 145, int(near.sum())).astype(np.uint32) << 23)
    tiny = rng.random(n) < 0.1
    r[tiny] = (r[tiny] & 0x807FFFFF) | (rng.integers(1, 40, int(tiny.sum())).astype(np.uint32) << 23)
    return r


def _ftz(v):
    """numpy float32 -> bits with denormals flushed to signed zero."""
    b = np.asarray(v, dtype=np.float32).view(np.uint32)
    return np.where((b & 0x7F800000) == 0, b & 0x80000000, b).astype(np.uint32)


def _daz(b):
    return np.where((b & 0x7F800000) == 0, b & 0x80000000, b).astype(np.uint32).view(np.float32)


def test_add_and_multiply_are_standalone_ieee_operations():
    """SFPMAD.md (BlackholeA0): "If multiplying by one or adding zero, then the partially
    fused operation is equivalent to a standalone add or standalone multiply (handling of
    denormals notwithstanding)"; NaN results are 0x7fc00000; denormal results flush to
    signed zero. Checked against numpy's float32 add / multiply (DAZ inputs, FTZ output).
    The multiply adds -0 (the identity SFPMUL.md recommends) so that -0 products stay."""
    rng = np.random.default_rng(7)
    a, b = _operands(rng, 4000), _operands(rng, 4000)
    one = np.full(a.shape, 0x3F800000, dtype=np.uint32)
    with np.errstate(all="ignore"):
        add = _ftz(_daz(a) + _daz(b))
        mul = _ftz(_daz(a) * _daz(b))
    nan_add, nan_mul = np.isnan(add.view(np.float32)), np.isnan(mul.view(np.float32))
    got_add = fma_bh(one, a, b)
    got_mul = fma_bh(a, b, np.full(a.shape, 0x80000000, dtype=np.uint32))
    assert np.array_equal(got_add[~nan_add], add[~nan_add])
    assert np.all(got_add[nan_add] == 0x7FC00000)
    # a product that underflows on its own counts as zero (the FMA page), before rounding:
    # numpy rounds first, so compare where numpy's result is a normal number or Inf/NaN
    ok = ~nan_mul & ((mul & 0x7F800000) != 0)
    assert np.array_equal(got_mul[ok], mul[ok])
    assert np.all(got_mul[nan_mul] == 0x7FC00000)


def test_signed_zero_results():
    """Blackhole keeps -0 where IEEE 754 does (round to nearest): x*y + z is -0 only when
    the product and the addend are both negative zero-ish; -0 + -0 = -0, 1 - 1 = +0."""
    neg0, pos0, one, mone = 0x80000000, 0, 0x3F800000, 0xBF800000
    x = np.array([neg0, neg0, one, one, 0x80000005, neg0], dtype=np.uint32)  # -denormal reads as -0
    y = np.array([one, one, one, mone, one, 0x80000007], dtype=np.uint32)
    z = np.array([neg0, pos0, mone, one, neg0, pos0], dtype=np.uint32)
    assert list(fma_bh(x, y, z)) == [neg0, pos0, pos0, pos0, neg0, pos0]


def _bh():
    tile, issue = make("blackhole")
    return tile, issue, tile.tensix.sfpu


def test_sfpmad_negate_and_indirect_modes():
    """SFPMAD.md (BlackholeA0): NEGATE_VB (1) and NEGATE_VC (2) flip the operands' signs,
    INDIRECT_VA (4) reads VA from LReg[LReg[7] & 15], INDIRECT_VD (8) writes to
    LReg[LReg[7] & 15] (only 0..7 land); disabled lanes keep VD."""
    rng = np.random.default_rng(3)
    tile, issue, u = _bh()
    for r in range(1, 4):
        u.lreg[r] = rng.integers(0x3E000000, 0x41000000, 32).astype(np.uint32)
    a, b, c = u.lreg[1].copy(), u.lreg[2].copy(), u.lreg[3].copy()
    sign = np.uint32(0x80000000)
    for mod, want in ((0, fma_bh(a, b, c)), (1, fma_bh(a, b ^ sign, c)), (2, fma_bh(a, b, c ^ sign)),
                      (3, fma_bh(a, b ^ sign, c ^ sign))):
        issue(0, "SFPMAD", lreg_src_a=1, lreg_src_b=2, lreg_src_c=3, lreg_dest=4, instr_mod1=mod)
        assert np.array_equal(u.lreg[4], want), mod
    u.lreg[7] = np.where(np.arange(32) % 2, 2, 3).astype(np.uint32)  # VA per lane
    issue(0, "SFPMAD", lreg_src_a=0, lreg_src_b=2, lreg_src_c=3, lreg_dest=5, instr_mod1=4)
    va = np.where(np.arange(32) % 2, b, c)
    assert np.array_equal(u.lreg[5], fma_bh(va, b, c))
    u.lreg[7] = np.where(np.arange(32) < 16, 6, 12).astype(np.uint32)  # lanes 16.. target LReg[12]: dropped
    u.lreg[6][:] = 0x12345678
    before12 = u.lreg[12].copy()
    issue(0, "SFPMAD", lreg_src_a=1, lreg_src_b=2, lreg_src_c=3, lreg_dest=0, instr_mod1=8)
    lo = np.arange(32) < 16
    assert np.array_equal(u.lreg[6][lo], fma_bh(a, b, c)[lo]) and np.all(u.lreg[6][~lo] == 0x12345678)
    assert np.array_equal(u.lreg[12], before12)
    # lane enables: flags off in odd lanes
    u.use_flags[:] = True
    u.flags[:] = np.arange(32) % 2 == 0
    u.lreg[4][:] = 7
    issue(0, "SFPMAD", lreg_src_a=1, lreg_src_b=2, lreg_src_c=3, lreg_dest=4, instr_mod1=0)
    even = np.arange(32) % 2 == 0
    assert np.array_equal(u.lreg[4][even], fma_bh(a, b, c)[even]) and np.all(u.lreg[4][~even] == 7)


def test_sfpadd_sfpmul_sfpaddi_sfpmuli():
    """SFPADD / SFPMUL (as SFPMAD), SFPADDI ``VD = BF16(Imm16) * 1.0 ± VD`` and SFPMULI
    ``VD = BF16(Imm16) * ±VD + 0`` (its ``+ 0`` turns -0 into +0), NEGATE_VC = 2."""
    tile, issue, u = _bh()
    x = np.linspace(-3, 3, 32).astype(np.float32)
    x[5] = -0.0
    u.lreg[1] = x.view(np.uint32)
    issue(0, "SFPADD", lreg_src_a=10, lreg_src_b=1, lreg_src_c=1, lreg_dest=2, instr_mod1=0)
    assert np.array_equal(u.lreg[2], _ftz(x + x))
    issue(0, "SFPMUL", lreg_src_a=1, lreg_src_b=1, lreg_src_c=9, lreg_dest=3, instr_mod1=1)  # -(x*x) + 0
    assert np.array_equal(u.lreg[3], _ftz(-(x * x) + np.float32(0)))
    u.lreg[4] = u.lreg[1]
    issue(0, "SFPADDI", lreg_dest=4, imm16_math=0x4040, instr_mod1=2)  # 3.0 - x
    assert np.array_equal(u.lreg[4], _ftz(np.float32(3) - x))
    u.lreg[5] = u.lreg[1]
    issue(0, "SFPMULI", lreg_dest=5, imm16_math=0xC000, instr_mod1=0)  # -2 * x + 0
    want = _ftz(np.float32(-2) * x + np.float32(0))
    assert np.array_equal(u.lreg[5], want) and u.lreg[5][5] == 0  # -2 * -0 + 0 = +0


def test_sfplut_uses_blackhole_fma():
    """SFPLUT.md (BlackholeA0, the Wormhole model): Lut8ToFp32 coefficients from LReg[0..2]
    by |LReg[3]|, multiply-add with Blackhole's FMA, SGN_RETAIN."""
    tile, issue, u = _bh()
    u.lreg[3] = np.linspace(-3, 3, 32).astype(np.float32).view(np.uint32)
    u.lreg[0][:], u.lreg[1][:], u.lreg[2][:] = 0x1020, 0x3344, 0x0F70
    issue(0, "SFPLUT", lreg_ind=6, instr_mod0=4, dest_reg_addr=0)

    def lut8(v):
        v = int(v) & 0xFF
        return 0 if v == 0xFF else ((v >> 7) << 31) | ((127 - ((v >> 4) & 7)) << 23) | ((v & 15) << 19)
    b = u.lreg[3] & 0x7FFFFFFF
    bf = b.view(np.float32)
    coef = np.where(bf < 1, 0x1020, np.where(bf < 2, 0x3344, 0x0F70))
    a = np.array([lut8(c >> 8) for c in coef], dtype=np.uint32)
    c = np.array([lut8(c) for c in coef], dtype=np.uint32)
    want = (fma_bh(a, b, c) & 0x7FFFFFFF) | (u.lreg[3] & 0x80000000)
    assert np.array_equal(u.lreg[6], want)


def _mul24_ref(a, b, c, upper):
    """SFPMUL24.md's model, one lane, Python integers."""
    a, b, z = int(a), int(b), int(c)
    p_m = ((a & 0x7FFFFF) * (b & 0x7FFFFF)) >> 23 if upper else (a * b) & 0x7FFFFF
    z_e = (z >> 23) & 0xFF
    if z_e:
        p_e = 129
        r_e = max(p_e, z_e)
        s = (r_e - z_e) & 31
        z_m_grs = ((1 << 23) + (z & 0x7FFFFF)) << 3
        p_m >>= (r_e - p_e) & 31
        z_m = z_m_grs >> s
        if z_m:
            p_m += z_m
            p_m += (((z_m << s) ^ z_m_grs) > 0xFFFF) << 16
            p_m &= 0x7FFFFF
    return p_m & 0xFFFFFFFF


@pytest.mark.parametrize("mod", [0, 1])
def test_sfpmul24(mod):
    """SFPMUL24.md: low (or, UPPER, high) 23 bits of the mantissa product, then
    Mul24ShiftAdd with VC (LReg[9] = 0 leaves the product)."""
    rng = np.random.default_rng(mod)
    tile, issue, u = _bh()
    u.lreg[1] = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    u.lreg[2] = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    u.lreg[3] = _operands(rng, 32)
    for vc in (9, 3):
        issue(0, "SFPMUL24", lreg_src_a=1, lreg_src_b=2, lreg_src_c=vc, lreg_dest=4, instr_mod1=mod)
        want = [_mul24_ref(a, b, c, mod) for a, b, c in zip(u.lreg[1], u.lreg[2], u.lreg[vc])]
        assert list(u.lreg[4]) == want
    assert np.array_equal(mul24(u.lreg[1], u.lreg[2], np.zeros(32, np.uint32), bool(mod)),
                          [_mul24_ref(a, b, 0, mod) for a, b in zip(u.lreg[1], u.lreg[2])])


def test_mad_results_are_interlocked_on_blackhole():
    """SFPMAD.md (BlackholeA0) "Instruction scheduling": hardware stalls a reader of the
    SFPMAD's result, so reading it on the next cycle is no hazard (Wormhole warns)."""
    for arch, warns in (("blackhole", False), ("wormhole_b0", True)):
        tile, issue = make(arch)
        tile.tensix.sfpu.lreg[1][:] = 0x3F800000
        issue(0, "SFPMAD", lreg_src_a=1, lreg_src_b=1, lreg_src_c=1, lreg_dest=2, instr_mod1=0)
        issue(0, "SFPMOV", lreg_c=2, lreg_dest=3, instr_mod1=0, imm12_math=0)
        assert any("hazard" in s for s in tile.diagnostics.sites) == warns, arch
        assert np.all(tile.tensix.sfpu.lreg[3] == 0x40000000) or warns


def test_unmasked_page_bits_of_wide_table_fields():
    """The Blackhole table (assembly.yaml) makes SFPLUTFP32's VD 20 bits and SFPMAD's VA 8:
    the page's encoding gives VD bits 7:4 (bits 19:16 are Mod1Mirror, scheduling only) and VA
    bits 19:16, so the extra bits select nothing."""
    tile, issue, u = _bh()
    u.lreg[3][:] = 0x3F000000  # 0.5: table entry 0
    u.lreg[0][:], u.lreg[4][:] = 0x40000000, 0x3F800000  # 2 * 0.5 + 1
    issue(0, "SFPLUTFP32", lreg_dest=(8 << 12) | 5, instr_mod1=0)
    assert np.all(u.lreg[5] == 0x40000000)
    issue(0, "SFPMAD", lreg_src_a=0x10 | 3, lreg_src_b=10, lreg_src_c=9, lreg_dest=6, instr_mod1=0)
    assert np.all(u.lreg[6] == 0x3F000000)


@pytest.mark.parametrize("consumer,fields,warns", [
    ("SFPMOV", dict(lreg_c=2, lreg_dest=3, instr_mod1=0, imm12_math=0), False),  # detected: stalls
    ("SFPIADD", dict(lreg_c=4, lreg_dest=2, instr_mod1=0, imm12_math=0), True),  # reads VD unseen
    ("SFPIADD", dict(lreg_c=2, lreg_dest=5, instr_mod1=0, imm12_math=0), False),  # VC: seen
    ("SFPAND", dict(lreg_c=4, lreg_dest=5, instr_mod1=1, imm12_math=2), True),  # USE_VB: VB unseen
    ("SFPSWAP", dict(lreg_src_c=2, lreg_dest=5, instr_mod1=1, imm12_math=0), True),  # compare a cycle early
    ("SFPSWAP", dict(lreg_src_c=2, lreg_dest=5, instr_mod1=0, imm12_math=0), False),
    ("SFPSHFT2", dict(lreg_src_c=2, lreg_dest=5, instr_mod1=3, imm12_math=0), True),
])
def test_reads_the_stalling_logic_misses(consumer, fields, warns):
    """SFPMAD.md (BlackholeA0) "Due to hardware bugs": after an SFPMAD writing LReg[2], the
    reads the automatic stalling logic misses are hazards (reported; the reader sees the
    old value), the others are stalled for (no report, the new value)."""
    tile, issue = make("blackhole")
    u = tile.tensix.sfpu
    u.lreg[1][:] = 0x3F800000
    u.lreg[2][:] = 0x11
    issue(0, "SFPMAD", lreg_src_a=1, lreg_src_b=1, lreg_src_c=1, lreg_dest=2, instr_mod1=0)
    issue(0, consumer, **fields)
    assert any("unseen" in site for site in tile.diagnostics.sites) == warns
