"""Matrix Unit (FPU) element-wise and pooling instructions: ELWADD.md, ELWSUB.md,
ELWMUL.md, GMPOOL.md. GMPOOL is checked against a literal, per-element Python
transcription of the page's functional model written here."""

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
    put_dst_bf16,
    put_dst_fp32,
    put_dst_int32,
    put_src,
    setup,
    src_bf16,
    src_fp16,
    src_int8,
    src_tf32,
    srca_fidelity,
    srcb_fidelity,
    tset,
)

RNG = np.random.default_rng(99)


def elw(issue, mnemonic, thread=0, **kw):
    fields = dict(clear_dvalid=0, dest_accum_en=0, instr_mod19=0, addr_mode=0, dst=0)
    fields.update(kw)
    return issue(thread, mnemonic, **fields)


def ints(shape, lo=-64, hi=64):
    return RNG.integers(lo, hi + 1, size=shape).astype(np.float32)


# ---------------------------------------------------------------------------------------
# ELWADD / ELWSUB
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("mnemonic,sign", [("ELWADD", 1), ("ELWSUB", -1)])
def test_elwadd_elwsub_assign_and_accumulate(mnemonic, sign):
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a, b, d0 = ints((8, 16)), ints((8, 16)), ints((8, 16))
    put_src(cop, "A", 8, src_bf16(a))
    put_src(cop, "B", 16, src_bf16(b))
    put_dst_fp32(cop, 24, d0)
    cop.rwcs[0].SrcA, cop.rwcs[0].SrcB = 8 + 3, 16 + 5  # aligned down to 8
    elw(issue, mnemonic, dst=24 + 7)  # & 0x3f8
    np.testing.assert_array_equal(dst_fp32(cop, 24, 8), a + sign * b)
    put_dst_fp32(cop, 24, d0)
    elw(issue, mnemonic, dest_accum_en=1, dst=24)
    np.testing.assert_array_equal(dst_fp32(cop, 24, 8), d0 + a + sign * b)


def test_elwadd_broadcasts():
    """instr_mod19 = BroadcastSrcBRow<<1 | BroadcastSrcBCol0 (ELWADD.md syntax)."""
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    a = ints((8, 16))
    b = ints((64, 16))
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    cop.rwcs[0].SrcB = 13  # with BroadcastSrcBRow any row (no alignment)
    elw(issue, "ELWADD", instr_mod19=2, dst=0)
    np.testing.assert_array_equal(dst_bf16(cop, 0, 8), a + b[13][None, :])
    elw(issue, "ELWADD", instr_mod19=3, dst=8)
    np.testing.assert_array_equal(dst_bf16(cop, 8, 8), a + b[13, 0])
    elw(issue, "ELWADD", instr_mod19=1, dst=16)  # column 0 of rows 8..15
    np.testing.assert_array_equal(dst_bf16(cop, 16, 8), a + b[8:16, :1])


def test_elwadd_nonzero_fidelity_phase_divides():
    """ELWADD.md: FidelityPhase bit 0 divides by 32, bit 1 by 128."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a, b = ints((8, 16)), ints((8, 16))
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    for phase, div in ((1, 32.0), (2, 128.0), (3, 4096.0)):
        tset(cop, 0, "FIDELITY_BASE_Phase", phase)
        elw(issue, "ELWADD", dst=0)
        np.testing.assert_array_equal(dst_fp32(cop, 0, 8), (a + b) / np.float32(div))


def test_elwadd_rounds_and_flushes():
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    a = np.full((8, 16), 1.0, np.float32)
    b = np.full((8, 16), 2.0 ** -8, np.float32)
    b[1] = 3 * 2.0 ** -8
    b[2] = -1.0  # exactly zero -> +0 bits
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    elw(issue, "ELWADD", dst=0)
    got = dst_bf16(cop, 0, 3)
    # ties round half up (the datapath of fpu_datapath.py, as ttsim): 1 + 0.5 ulp -> 1 + 1 ulp
    assert got[0, 0] == 1.0 + 2.0 ** -7 and got[1, 0] == 1.0 + 2.0 ** -6
    assert np.all(cop.dst.read16(2) == 0)


def test_elwadd_fp16_and_tf32():
    tile, issue, cop = setup(FMT_FP16, fp32=False)
    a = RNG.integers(-500, 500, size=(8, 16)).astype(np.float16)
    b = RNG.integers(-500, 500, size=(8, 16)).astype(np.float16)
    put_src(cop, "A", 0, src_fp16(a))
    put_src(cop, "B", 0, src_fp16(b))
    elw(issue, "ELWSUB", dst=0)
    np.testing.assert_array_equal(dst_fp16(cop, 0, 8), (a.astype(np.float64) - b).astype(np.float16))
    tile, issue, cop = setup(FMT_TF32, fp32=True)
    a = (1 + RNG.integers(0, 1024, size=(8, 16)) / 1024).astype(np.float32)
    b = (RNG.integers(0, 256, size=(8, 16)) / 256).astype(np.float32) + 4
    put_src(cop, "A", 0, src_tf32(a))
    put_src(cop, "B", 0, src_tf32(b))
    elw(issue, "ELWADD", dst=0)
    # the smaller operand is aligned to the larger one's 11-bit mantissa, rounding half up
    # (fpu_datapath.py, as ttsim): a in [1, 2) loses its two low bits against b in [4, 5]
    np.testing.assert_array_equal(dst_fp32(cop, 0, 8), b + np.floor(a * 256 + 0.5) / 256)


def test_elwadd_int8_saturates():
    """"Dst = Saturate(Dst + SrcA + SrcB)", clamping at +-(2**31-1)."""
    tile, issue, cop = setup(FMT_BF16, int8=True)
    a = RNG.integers(-1023, 1024, size=(8, 16))
    b = RNG.integers(-1023, 1024, size=(8, 16))
    put_src(cop, "A", 0, src_int8(a))
    put_src(cop, "B", 0, src_int8(b))
    d0 = np.zeros((8, 16), np.int64)
    d0[0] = 2 ** 31 - 1
    d0[1] = -(2 ** 31 - 1)
    put_dst_int32(cop, 0, d0)
    elw(issue, "ELWADD", dest_accum_en=1, dst=0)
    expect = np.clip(d0 + a + b, -(2 ** 31 - 1), 2 ** 31 - 1)
    np.testing.assert_array_equal(dst_int32(cop, 0, 8), expect)
    elw(issue, "ELWSUB", dst=0)  # AddDst = 0: assignment
    np.testing.assert_array_equal(dst_int32(cop, 0, 8), a - b)


# ---------------------------------------------------------------------------------------
# ELWMUL
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("nphases", [1, 2, 4])
def test_elwmul_fidelity_phases(nphases):
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = RNG.uniform(1, 2, size=(8, 16)).astype(np.float32)
    b = RNG.uniform(-2, -1, size=(8, 16)).astype(np.float32)
    a = (a.view(np.uint32) & 0xFFFF0000).view(np.float32)
    b = (b.view(np.uint32) & 0xFFFF0000).view(np.float32)
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    tset(cop, 0, "ADDR_MOD_DST_SEC3_FidelityIncr", 1)
    for _ in range(nphases):
        elw(issue, "ELWMUL", addr_mode=3, dest_accum_en=1)
    ref = np.zeros((8, 16), np.float32)
    for p in range(nphases):
        ref = (ref.astype(np.float64)
               + srca_fidelity(a, p).astype(np.float64) * srcb_fidelity(b, p)).astype(np.float32)
    np.testing.assert_array_equal(dst_fp32_bits(cop, 0, 8), ref.view(np.uint32))
    if nphases == 4:
        np.testing.assert_array_equal(dst_fp32(cop, 0, 8), a * b)


def test_elwmul_always_accumulates_and_broadcasts():
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    a, b, d0 = ints((8, 16), -8, 8), ints((8, 16), -8, 8), ints((8, 16))
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(b))
    put_dst_bf16(cop, 0, d0)
    elw(issue, "ELWMUL", dest_accum_en=0, instr_mod19=1)  # the model ignores AddDst
    np.testing.assert_array_equal(dst_bf16(cop, 0, 8), d0 + a * b[:, :1])


def test_elwmul_int8_phases():
    tile, issue, cop = setup(FMT_BF16, int8=True)
    a = RNG.integers(-255, 256, size=(8, 16))
    b = RNG.integers(-1023, 1024, size=(8, 16))
    put_src(cop, "A", 0, src_int8(a))
    put_src(cop, "B", 0, src_int8(b))
    for p in range(4):
        tset(cop, 0, "FIDELITY_BASE_Phase", p)
        elw(issue, "ELWMUL")
    np.testing.assert_array_equal(dst_int32(cop, 0, 8), a * b)


# ---------------------------------------------------------------------------------------
# GMPOOL: literal reference of the page's functional model
# ---------------------------------------------------------------------------------------

def ref_read_dst(v, style):
    sign = v >> 31
    if style == "INT32":
        return sign, ((v >> 10) & 0x3F) + (((v >> 24) & 7) << 6), v & 0x3FF
    if style == "FP16":
        return sign, ((v >> 16) & 0x1F) + 15, (v >> 21) & 0x3FF
    man = ((v >> 24) & 0x7F) << 3
    if style == "TF32":
        man += (v >> 13) & 7
    return sign, ((v >> 16) & 0xFF) + 127, man


def ref_write_dst(d, style):
    sign, exp, man = d
    if style == "INT32":
        return (sign << 31) | ((exp & 7) << 10) | man
    if style == "FP16":
        if exp & 0x3F == 0:
            return 0
        return (sign << 31) | (man << 21) | (((exp - 15) & 0x1F) << 16)
    if exp == 0:
        return 0
    x = (sign << 31) | ((man & 0x3F8) << 21) | (((exp - 127) & 0xFF) << 16)
    if style == "TF32":
        x += (man & 7) << 13
    return x


def ref_scale(a, astyle, b):
    ae, be = a & 0xFF, b & 0xFF
    if be == 0:
        return 1, 0x1FF, 0x3FF
    if ae == 0:
        return 0, 0, 0
    man = (a >> 8) & 0x3FF
    sign = a >> 18
    if astyle == "INT8":
        return sign, 0, man
    if astyle == "FP16":
        return sign, (ae & 0x1F) + (be & 0x1F), man
    if astyle == "TF32":
        return sign, ae + be, man
    return sign, ae + be, man & 0x3F8


def comparable(d):
    return (-1 if d[0] else 1) * ((d[1] << 10) + d[2])


def ref_gmpool(A, Brow, dst_vals, astyle, dstyle, argmax):
    """A: 16x16 SrcA ints, Brow: 16 SrcB ints, dst_vals: 16 DstVal (32-bit) ints."""
    out = []
    for j in range(16):
        dv = int(dst_vals[j])
        mx = ref_read_dst(dv, dstyle)
        idx = dv & 0xFF
        phase = (dv + 0x100) & 0xF00
        for i_ in range(16):
            i = i_ ^ 4 if i_ < 8 else i_
            x = ref_scale(int(A[i][j]), astyle, int(Brow[i]))
            if comparable(x) >= comparable(mx):
                mx = x
                if i < 8:
                    idx = ((phase >> 4) + [0, 3, 6, 1, 4, 7, 2, 5][i]) & 0xFF
        if argmax:
            res = phase | idx
            out.append(res if dstyle == "INT32" else (ref_write_dst(mx, dstyle) | res) & 0xFFFFFFFF)
        else:
            out.append(ref_write_dst(mx, dstyle) & 0xFFFFFFFF)
    return out


def gmpool(issue, **kw):
    fields = dict(clear_dvalid=0, instr_mod19=1, addr_mode=0, max_pool_index_en=0, dst=0)
    fields.update(kw)
    return issue(0, "GMPOOL", **fields)


def test_gmpool_column_max_after_zeroacc():
    """GMPOOL.md: ZEROACC first avoids the max with Dst (undefined reads as minus
    infinity); a SrcB row of 1.0 means no scaling; the other three rows of the aligned
    4-row block become zero."""
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    a = ints((16, 16), -100, -1)  # all negative: a defined zero Dst would win
    put_src(cop, "A", 16, src_bf16(a))
    put_src(cop, "B", 8, src_bf16(np.ones((1, 16), np.float32)))
    cop.rwcs[0].SrcA, cop.rwcs[0].SrcB = 16 + 9, 8 + 3  # & 0x30, & 0x38
    cop.dst.bits[40:44] = 0x1234
    issue(0, "ZEROACC", clear_mode=3, AddrMode=0, dst=0)
    gmpool(issue, dst=40 + 3)  # & 0x3fc
    np.testing.assert_array_equal(dst_bf16(cop, 40)[0], a.max(axis=0))
    assert not cop.dst.bits[41:44].any()
    # Dst holds -5 everywhere: max(-5, column max)
    put_dst_bf16(cop, 48, np.full((1, 16), -5.0, np.float32))
    gmpool(issue, dst=48)
    np.testing.assert_array_equal(dst_bf16(cop, 48)[0], np.maximum(a.max(axis=0), -5.0))


def test_gmpool_defined_zero_takes_part():
    """Without ZEROACC, a zero Dst reads as a tiny positive value (exponent 0 + 127)
    and beats negative SrcA values; the result written back is zero."""
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    put_src(cop, "A", 0, src_bf16(ints((16, 16), -100, -1)))
    put_src(cop, "B", 0, src_bf16(np.ones((1, 16), np.float32)))
    cop.dst.bits[0:4] = 0
    gmpool(issue)
    assert not cop.dst.bits[0:4].any()


def test_gmpool_srcb_exponent_scaling():
    """Row i of SrcA is scaled by exp2(floor(log2(SrcB[row][i]))); a SrcB exponent of 0
    drops the row (the model makes it minus infinity; the page's (‡) note about integer
    data calls that "scaling by zero")."""
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    a = ints((16, 16), 1, 50)
    a[3] = 1000.0  # would win, but SrcB[3] = 0
    scale = np.ones(16, np.float32)
    scale[5] = 3.5  # exponent of 2
    scale[3] = 0.0
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(scale[None, :]))
    issue(0, "ZEROACC", clear_mode=3, AddrMode=0, dst=0)
    gmpool(issue)
    scaled = a * np.where(scale == 3.5, 2.0, 1.0)[:, None]
    scaled[3] = -np.inf
    np.testing.assert_array_equal(dst_bf16(cop, 0)[0], scaled.max(axis=0))


@pytest.mark.parametrize("fmt,fp32,int8,argmax", [
    (FMT_BF16, False, False, False),
    (FMT_BF16, True, False, False),
    (FMT_BF16, True, False, True),
    (FMT_TF32, True, False, False),
    (FMT_TF32, True, False, True),
    (FMT_TF32, False, False, True),
    (FMT_FP16, False, False, False),
    (FMT_FP16, True, False, True),
    (FMT_BF16, False, True, False),
    (FMT_BF16, False, True, True),
])
def test_gmpool_matches_literal_model(fmt, fp32, int8, argmax):
    tile, issue, cop = setup(fmt, fp32=fp32, int8=int8)
    # Random raw Src bits, small value range so ties and index updates happen.
    # Raw Src bits from a small set of values so that ties and index updates happen.
    sign = RNG.integers(0, 2, size=(16, 16)) << 18
    man = RNG.integers(0, 4, size=(16, 16)) << 16
    exp = RNG.integers(14, 17, size=(16, 16)) + (0 if fmt == FMT_FP16 else 112)
    exp[RNG.random((16, 16)) < 0.1] = 0  # some zero exponents
    A = (sign | man | exp).astype(np.uint32)
    B = RNG.integers(0, 1 << 19, size=16).astype(np.uint32)
    B[B & 0xFF == 0] |= 1
    B[2] &= ~np.uint32(0xFF)  # one dropped row
    put_src(cop, "A", 32, A)
    put_src(cop, "B", 0, B)
    cop.rwcs[0].SrcA = 32
    use32 = fp32 or int8
    d = RNG.integers(0, 1 << 32, size=(4, 16), dtype=np.uint64).astype(np.uint32)
    if use32:
        cop.dst.write32(8, d)
        dvals = cop.dst.read32(8, 4)
    else:
        cop.dst.write16(8, (d >> 16).astype(np.uint16))
        dvals = cop.dst.read16(8, 4).astype(np.uint32) << 16
    if int8:
        astyle, dstyle = "INT8", "INT32"
    else:
        astyle = {FMT_BF16: "BF16", FMT_TF32: "TF32", FMT_FP16: "FP16"}[fmt]
        if astyle == "TF32":
            dstyle = "INT32" if argmax else ("TF32" if use32 else "BF16")
        elif argmax and use32:
            dstyle = astyle
        else:
            dstyle = "TF32" if use32 else astyle
    expect = ref_gmpool(A, B, dvals[0], astyle, dstyle, argmax)
    gmpool(issue, max_pool_index_en=int(argmax), dst=8)
    if use32:
        got = cop.dst.read32(8, 4)
        np.testing.assert_array_equal(got[0], np.array(expect, np.uint32))
        rest = ((dvals[1:].astype(np.int64) + 0x100) & 0xF00) if argmax else np.zeros((3, 16))
        np.testing.assert_array_equal(got[1:], rest)
    else:
        got = cop.dst.read16(8, 4)
        np.testing.assert_array_equal(got[0], (np.array(expect, np.uint32) >> 16).astype(np.uint16))
        assert not got[1:].any()


def test_gmpool_argmax_index_and_ties():
    """ArgMax with FP32 Dst and BF16 data: value in the high 16 bits, the transformed
    index of the largest of the first eight rows in the low bits; ties go to the row
    visited later (i_ ^ 4 order: 4,5,6,7,0,1,2,3)."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = np.zeros((16, 16), np.float32) + 1.0
    a[6, 0] = 9.0   # column 0: row 6 -> index transform 2
    a[1, 1] = 9.0   # column 1: tie between rows 5 and 1; row 1 is visited later
    a[5, 1] = 9.0
    a[12, 2] = 9.0  # column 2: the max is in rows 8..15: value yes, index no
    a[2, 2] = 5.0   # ... the index is the last update among rows < 8
    put_src(cop, "A", 0, src_bf16(a))
    put_src(cop, "B", 0, src_bf16(np.ones((1, 16), np.float32)))
    put_dst_fp32(cop, 0, np.zeros((1, 16), np.float32))  # DstVal 0: IndexPhase 0x100
    gmpool(issue, max_pool_index_en=1)
    got = cop.dst.read32(0)[0]
    hi = (got >> 16).astype(np.uint16)
    assert hi[0] == 0x0082 | (0x10 << 8)  # 9.0 = 0x4110 BF16 -> Dst16 man 0x10, exp 0x82
    assert got[0] & 0xFFF == 0x100 | (0x10 + 2)
    assert got[1] & 0xFFF == 0x100 | (0x10 + 3)  # row 1 -> transform 3
    assert got[2] & 0xFFF == 0x100 | (0x10 + 6)  # row 2 -> transform 6
