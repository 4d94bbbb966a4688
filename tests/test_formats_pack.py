"""ttemu.tensix.formats: packer conversions (Packers/FormatConversion.md),
BFP shared-exponent encoding, exponent thresholding, and L1 round trips for
every format.

References use Python integers and fractions.Fraction, independently of the
module's bit tricks.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ttemu.errors import UndefinedBehaviour
from ttemu.tensix import formats as F
from ttemu.tensix.formats import DataFormat as DF
from ttemu.tensix.formats import EarlyMode as M
from ttemu.tensix.formats import Intermediate as I
from ttemu.tensix.formats import Repr

HALF = Fraction(1, 2)
MANTS = [0, 1, 2, 0xFFF, 0x1000, 0x1FFF, 0x2000, 0x3FFF, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x18000,
         0x1FFFF, 0x20000, 0x400000, 0x7F0000, 0x7FE000, 0x7FFFFF, 0x0AB123, 0x555555, 0x2AAAAA]
#: Every exponent 0..255, both signs, a spread of mantissas (ties included).
SWEEP = np.array([(s << 31) | (e << 23) | m for s in (0, 1) for e in range(256) for m in MANTS], np.uint32)


def f32_bits(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


def f32_val(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def parts32(x: int):
    return x >> 31, (x >> 23) & 0xFF, x & 0x7FFFFF


def mag32(e: int, m: int) -> Fraction:
    return Fraction(0x800000 | m, 1 << 23) * Fraction(2) ** (e - 127)


def encode32(sign: int, val: Fraction) -> int:
    """A magnitude representable as a normal FP32 (or >= 2**128 -> inf)."""
    if val >= 2**128:
        return (sign << 31) | 0x7F800000
    return (sign << 31) | f32_bits(float(val))


def ref_round8(x: int, keep: int, r: int | None = None) -> int:
    """Early-conversion rounding to an 8-bit exponent, ``keep`` mantissa bits."""
    s, e, m = parts32(x)
    if e == 255:
        return (s << 31) | 0x7F800000  # NaN -> Inf, Inf stays
    val = mag32(e, m) if e else Fraction(m, 1 << 23) * Fraction(2) ** -126
    ulp = Fraction(2) ** (max(e, 1) - 127 - keep)
    q = val / ulp
    n = math.floor(q)
    frac = q - n
    if r is None:
        up = frac >= HALF  # ties away from zero
    else:
        up = math.floor(frac * 2**23) >= (r & 0x7FFFFF)
    if (n + up) * ulp < Fraction(2) ** -126:
        return 0  # denormal results and -0 -> +0, judged after rounding (ttsim's packer)
    return encode32(s, (n + up) * ulp)


def ref_rne8(x: int, keep: int) -> int:
    """Round-half-even, the IEEE / numpy default (for contrast only)."""
    s, e, m = parts32(x)
    val = mag32(e, m)
    ulp = Fraction(2) ** (e - 127 - keep)
    q = val / ulp
    n = math.floor(q)
    if q - n > HALF or (q - n == HALF and n % 2):
        n += 1
    return encode32(s, n * ulp)


# ---------------------------------------------------------------------------
# Early conversion: rounding
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("keep,inter", [(10, I.TF32), (7, I.BF16), (6, I.E8M6)])
def test_early_round_every_exponent(keep, inter):
    got = F.packer_early(F.dst32_from_fp32(SWEEP), Repr.DST32_FP32, inter, M.ROUND)
    ref = [ref_round8(int(x), keep) for x in SWEEP]
    assert got.tolist() == ref


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.uint32, st.integers(1, 64), elements=st.integers(0, 2**32 - 1)),
       st.sampled_from([(10, I.TF32), (7, I.BF16), (6, I.E8M6)]))
def test_early_round_random(x, ki):
    keep, inter = ki
    got = F.packer_early(F.dst32_from_fp32(x), Repr.DST32_FP32, inter, M.ROUND)
    assert got.tolist() == [ref_round8(int(v), keep) for v in x]


def test_ties_round_away_not_even():
    # Docs vs common practice: the packer rounds ties away from zero, while
    # IEEE/numpy (and several host converters) round ties to even.
    ties = np.array([0x3F808000, 0xBF808000, 0x3F818000, 0x3F800000 | 0x1000], np.uint32)
    bf = F.packer_early(F.dst32_from_fp32(ties), Repr.DST32_FP32, I.BF16, M.ROUND)
    assert bf.tolist() == [0x3F810000, 0xBF810000, 0x3F820000, 0x3F800000]
    assert [ref_rne8(int(t), 7) for t in ties[:2]] == [0x3F800000, 0xBF800000]  # what RNE would give
    tf = F.packer_early(F.dst32_from_fp32([0x3F801000]), Repr.DST32_FP32, I.TF32, M.ROUND)
    assert tf.tolist() == [0x3F802000]


def test_early_round_special_values():
    x = np.array([0x80000000, 0x00000001, 0x807FFFFF, 0x7FC00000, 0xFFC00001, 0x7F800000,
                  0x7F7FFFFF, 0x3FFFFFFF], np.uint32)
    got = F.packer_early(F.dst32_from_fp32(x), Repr.DST32_FP32, I.BF16, M.ROUND)
    # 0x807fffff rounds to the smallest normal before the flush (ttsim's packer)
    assert got.tolist() == [0, 0, 0x80800000, 0x7F800000, 0xFF800000, 0x7F800000, 0x7F800000, 0x40000000]


def test_early_bf16_identity_keeps_denormals_and_nan_rounding_does_not():
    b = np.array([0x0001, 0x8001, 0x7FC1, 0x8000], np.uint32)
    d = F.dst16_from_bf16(b)
    ident = F.packer_early(d, Repr.DST16_BF16, I.BF16, M.IDENTITY)
    assert (ident >> 16).tolist() == b.tolist()
    rnd = F.packer_early(d, Repr.DST16_BF16, I.BF16, M.ROUND)
    assert (rnd >> 16).tolist() == [0, 0, 0x7F80, 0]


def test_early_fp32_bf16_truncation():
    got = F.packer_early(F.dst32_from_fp32(SWEEP), Repr.DST32_FP32, I.BF16, M.TRUNCATE)
    assert np.array_equal(got, SWEEP & np.uint32(0xFFFF0000))  # denormal/NaN bits just truncate


@settings(deadline=None)
@given(hnp.arrays(np.uint32, st.integers(1, 40), elements=st.integers(0, 2**32 - 1)),
       hnp.arrays(np.uint32, 40, elements=st.integers(0, 2**32 - 1)))
def test_early_stochastic_matches_comparator(x, r):
    r = r[: x.size]
    got = F.packer_early(F.dst32_from_fp32(x), Repr.DST32_FP32, I.BF16, M.ROUND, random=r)
    assert got.tolist() == [ref_round8(int(a), 7, int(b)) for a, b in zip(x, r)]


def test_stochastic_threshold_semantics():
    x = F.dst32_from_fp32(np.full(3, 0x3F800000, np.uint32))  # 1.0, nothing to round
    # half threshold == deterministic; zero random rounds even exact values up
    # (the documented bias: "can even sometimes increase the magnitude of
    # values which do not require rounding").
    got = F.packer_early(x, Repr.DST32_FP32, I.BF16, M.ROUND, random=[0x400000, 0, 0x80000000])
    assert got.tolist() == [0x3F800000, 0x3F810000, 0x3F810000]
    x = F.dst32_from_fp32(np.full(2, 0x3F80FFFF, np.uint32))
    got = F.packer_early(x, Repr.DST32_FP32, I.BF16, M.ROUND, random=[0x7FFF80, 0x7FFF81])
    assert got.tolist() == [0x3F810000, 0x3F800000]


def test_stochastic_is_roughly_unbiased():
    n = 20000
    x = F.dst32_from_fp32(np.full(n, f32_bits(1.0 + 2**-9), np.uint32))  # 1/4 of a BF16 ulp
    r = np.random.default_rng(7).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    got = F.packer_early(x, Repr.DST32_FP32, I.BF16, M.ROUND, random=r)
    frac_up = np.mean(got == 0x3F810000)
    assert 0.23 < frac_up < 0.27


def test_early_fp16_paths():
    h = np.arange(1 << 16, dtype=np.uint32)
    d = F.dst16_from_fp16(h)
    assert np.array_equal(F.packer_early(d, Repr.DST16_FP16, I.FP16, M.IDENTITY), h)
    rnd = F.packer_early(d, Repr.DST16_FP16, I.FP16, M.ROUND)
    exp0 = ((h >> 10) & 0x1F) == 0
    assert np.array_equal(rnd, np.where(exp0, 0, h))  # denormals and -0 -> +0
    assert np.array_equal(F.packer_early(d, Repr.DST16_FP16, I.E5M7, M.TRUNCATE), h & 0xFFF8)
    assert np.array_equal(F.packer_early(d, Repr.DST16_FP16, I.FP8, M.TRUNCATE), h & 0xFF00)


def test_early_fp16_to_e5m6_rounding():
    h = np.arange(1 << 16, dtype=np.uint32)
    ok = (h & 0x7FFF) < 0x7FF8  # below the values that would carry past exponent 31
    d = F.dst16_from_fp16(h[ok])
    got = F.packer_early(d, Repr.DST16_FP16, I.E5M6, M.ROUND)
    for hi, g in zip(h[ok].tolist()[::7], got.tolist()[::7]):
        s, e, m = hi >> 15, (hi >> 10) & 0x1F, hi & 0x3FF
        if e == 0:  # the flush judges the rounded value (ttsim): 0x3f8..0x3ff reach 2**-14
            assert g == ((s << 15) | 0x400 if m >= 0x3F8 else 0), hex(hi)
            continue
        q = Fraction(0x400 | m, 16)
        n = math.floor(q) + (q - math.floor(q) >= HALF)
        ee = e + (n >> 7)
        n = n >> 1 if n >> 7 else n
        assert g == (s << 15) | (ee << 10) | ((n & 0x3F) << 4)


def test_early_fp16_rounding_edges_follow_ttsim():
    """Not described by Packers/FormatConversion.md (ttsim's packer is the reference):
    a carry past exponent 31 saturates to the largest E5M6 magnitude, sign kept; a
    denormal within half a unit of 2**-14 rounds up to it instead of flushing."""
    h = [0x7FF7, 0x7FF8, 0x7FFF, 0xFFF8, 0xFFFF, 0x03F7, 0x03F8, 0x83FF, 0x8000]
    got = F.packer_early(F.dst16_from_fp16(h), Repr.DST16_FP16, I.E5M6, M.ROUND)
    assert got.tolist() == [0x7FF0, 0x7FF0, 0x7FF0, 0xFFF0, 0xFFF0, 0, 0x0400, 0x8400, 0]


def test_early_fp32_denormal_rounding_to_min_normal_follows_ttsim():
    """Packers/FormatConversion.md "Rounding: Denormals flushed to zero" does not say
    whether before or after rounding; ttsim flushes the rounded result, so the largest
    denormals round up to the smallest normal (sign kept) and the rest become +0."""
    x = F.dst32_from_fp32(np.array([0x807FFFFF, 0x007F8000, 0x007F7FFF, 0x80000001, 0x80000000], np.uint32))
    assert F.packer_early(x, Repr.DST32_FP32, I.BF16, M.ROUND).tolist() == [0x80800000, 0x00800000, 0, 0, 0]
    assert F.packer_early(x, Repr.DST32_FP32, I.TF32, M.ROUND).tolist() == [0x80800000, 0, 0, 0, 0]


def ref_int8(v: int, shift: int, limit: int, unsigned: bool) -> int:
    s, mag = v >> 31, v & 0x7FFFFFFF
    q = Fraction(mag, 2**shift)
    n = math.floor(q) + (q - math.floor(q) >= HALF)
    n = min(n, limit)
    if unsigned:
        return 0 if s else n
    return (s << 7) | n


@settings(deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=30), st.integers(0, 31))
def test_early_int32_to_int8_shift_round_saturate(vals, shift):
    x = np.array(vals, np.uint32)
    d = F.dst32_from_fp32(x)
    got = F.packer_early(d, Repr.DST32_INT32, I.INT8, M.ROUND, shift=shift)
    assert got.tolist() == [ref_int8(v, shift, 127, False) for v in vals]
    got = F.packer_early(d, Repr.DST32_INT32, I.UINT8, M.ROUND, shift=shift + 32)  # low five bits only
    assert got.tolist() == [ref_int8(v, shift, 255, True) for v in vals]


def test_early_int8_saturation_examples():
    x = np.array([300, 0x80000000 | 300, 127, 0x80000005, 383, 0x80000000], np.uint32)
    d = F.dst32_from_fp32(x)
    assert F.packer_early(d, Repr.DST32_INT32, I.INT8, M.ROUND).tolist() == [127, 0xFF, 127, 0x85, 127, 0x80]
    assert F.packer_early(d, Repr.DST32_INT32, I.INT8, M.ROUND, shift=1).tolist() == [127, 0xFF, 64, 0x83, 127, 0x80]
    assert F.packer_early(d, Repr.DST32_INT32, I.UINT8, M.ROUND).tolist() == [255, 0, 127, 0, 255, 0]
    # raw: sign and low seven bits of magnitude / low eight bits
    assert F.packer_early(d, Repr.DST32_INT32, I.INT8, M.RAW).tolist() == [44, 0x80 | 44, 127, 0x85, 127, 0x80]
    assert F.packer_early(d, Repr.DST32_INT32, I.UINT8, M.RAW).tolist() == [44, 44, 127, 5, 127, 0]


def test_early_raw_int8_from_floats():
    x = F.dst32_from_fp32([0xBF8000FF])
    assert F.packer_early(x, Repr.DST32_FP32, I.INT8, M.RAW).tolist() == [0xFF]  # sign + low 7 mantissa bits
    assert F.packer_early(x, Repr.DST32_FP32, I.UINT8, M.RAW).tolist() == [0xFF]  # low 8 mantissa bits
    assert F.packer_early(F.dst16_from_bf16([0xBF85]), Repr.DST16_BF16, I.INT8, M.RAW).tolist() == [0x80]
    assert F.packer_early(F.dst16_from_fp16([0x3C05]), Repr.DST16_FP16, I.INT8, M.RAW).tolist() == [0x00]


def test_early_bitcasts():
    x = np.array([0x80001234, 0x7FFFFFFF], np.uint32)
    d = F.dst32_from_fp32(x)
    assert np.array_equal(F.packer_early(d, Repr.DST32_INT32, I.FP32, M.BITCAST), x)
    assert np.array_equal(F.packer_early(d, Repr.DST32_FP32, I.INT32, M.BITCAST), x)
    assert np.array_equal(F.packer_early(d, Repr.DST32_INT32, I.BF16, M.BITCAST), x & np.uint32(0xFFFF0000))
    i16 = np.array([0xFFFF, 0x1234], np.uint32)
    assert np.array_equal(F.packer_early(i16, Repr.DST16_INT16, I.INT16, M.IDENTITY), i16)


@pytest.mark.parametrize("src,inter,mode", [
    (Repr.DST16_FP16, I.FP32, M.IDENTITY),
    (Repr.DST16_BF16, I.FP16, M.ROUND),
    (Repr.DST32_FP32, I.FP16, M.ROUND),
    (Repr.DST32_FP32, I.TF32, M.TRUNCATE),
    (Repr.DST16_INT16, I.INT32, M.IDENTITY),
    (Repr.DST32_FP32, I.E5M7, M.TRUNCATE),
    (Repr.DST16_BF16, I.UINT8, M.RAW),
])
def test_early_unsupported_raise(src, inter, mode):
    with pytest.raises(UndefinedBehaviour, match="not supported"):
        F.packer_early(np.zeros(1, np.uint32), src, inter, mode)


# ---------------------------------------------------------------------------
# Late conversion
# ---------------------------------------------------------------------------


def ref_late_8_to_5(x: int, keep: int):
    """FP32-layout value -> FP16 layout: saturate, flush, then truncate.
    Returns None for the 'mishandled' range."""
    s, e, m = parts32(x)
    mask = (0xFFFF >> (10 - keep)) << (10 - keep) & 0x7FFF
    if e == 255 or (e != 0 and mag32(e, m) >= 2**17):
        return (s << 15) | (0x7FFF & mask)
    if e == 0 or mag32(e, m) <= Fraction(1, 2**15):
        return s << 15
    if mag32(e, m) < Fraction(1, 2**14):
        return None
    val = mag32(e, m)
    ex = e - 127
    n = math.floor(val / Fraction(2) ** (ex - keep))
    return (s << 15) | ((ex + 15) << 10) | (((n - (1 << keep)) << (10 - keep)) & 0x3FF)


@pytest.mark.parametrize("fmt,keep,shift", [(DF.Float16, 10, 0), (DF.Fp8, 2, 8)])
def test_late_fp32_to_fp16_fp8_every_exponent(fmt, keep, shift):
    refs = [ref_late_8_to_5(int(x), keep) for x in SWEEP]
    ok = np.array([r is not None for r in refs])
    got, exps = F.packer_late(SWEEP[ok], I.FP32, fmt)
    assert exps is None
    assert got.tolist() == [r >> shift for r in refs if r is not None]
    for x in SWEEP[~ok][:8]:
        with pytest.raises(UndefinedBehaviour, match="mishandle"):
            F.packer_late(np.array([x]), I.FP32, fmt)


def test_late_fp16_thresholds_pinned():
    # |x| <= 2**-15 flushed (sign kept); 2**-15 < |x| < 2**-14 "mishandled";
    # 2**-14 exact; exponent 143 is FP16 exponent 31 (finite), 144 saturates.
    cases = {f32_bits(2.0**-15): 0, f32_bits(-(2.0**-15)): 0x8000, f32_bits(2.0**-14): 0x0400,
             f32_bits(65536.0 * 1.5): 0x7E00, f32_bits(131072.0): 0x7FFF, 0xFF800000: 0xFFFF,
             0x7FC00000: 0x7FFF}
    got, _ = F.packer_late(np.array(list(cases), np.uint32), I.FP32, DF.Float16)
    assert got.tolist() == list(cases.values())
    with pytest.raises(UndefinedBehaviour):
        F.packer_late(np.array([f32_bits(1.5 * 2.0**-15)], np.uint32), I.FP32, DF.Float16)


def test_late_to_bf16_and_fp32():
    got, _ = F.packer_late(SWEEP, I.FP32, DF.Float16_b)
    ref = [(x >> 16) if (x >> 23) & 0xFF else (x >> 31) << 15 for x in SWEEP.tolist()]
    assert got.tolist() == ref  # truncation, denormals flushed (mantissa narrows)
    # NaN whose mantissa is only in the low bits truncates to infinity
    assert F.packer_late(np.array([0x7F800001], np.uint32), I.FP32, DF.Float16_b)[0].tolist() == [0x7F80]
    assert np.array_equal(F.packer_late(SWEEP, I.FP32, DF.Float32)[0], SWEEP)
    # same width keeps BF16 denormals
    b = np.array([0x00010000, 0x7FC10000], np.uint32)
    assert F.packer_late(b, I.BF16, DF.Float16_b)[0].tolist() == [0x0001, 0x7FC1]
    assert F.packer_late(b, I.BF16, DF.Float32)[0].tolist() == b.tolist()


def test_late_tf32():
    t = SWEEP & np.uint32(0xFFFFE000)
    assert np.array_equal(F.packer_late(t, I.TF32, DF.Tf32)[0], t)
    with pytest.raises(UndefinedBehaviour, match="early"):
        F.packer_late(t, I.FP32, DF.Tf32)


def test_late_fp16_family_widening():
    h = np.arange(1 << 16, dtype=np.uint32)
    exp = (h >> 10) & 0x1F
    normal = exp != 0
    got, _ = F.packer_late(h[normal], I.FP16, DF.Float32)
    vals = F.to_float64(h[normal], DF.Float16)  # Tensix meaning: exponent 31 finite
    assert np.array_equal(got.view(np.float32).astype(np.float64), vals)
    # zero is fine, denormals are "mishandled" when the mantissa does not narrow
    assert F.packer_late(np.array([0x8000], np.uint32), I.FP16, DF.Float32)[0].tolist() == [0x80000000]
    with pytest.raises(UndefinedBehaviour, match="denormal"):
        F.packer_late(np.array([0x0001], np.uint32), I.FP16, DF.Tf32)
    with pytest.raises(UndefinedBehaviour, match="denormal"):
        F.packer_late(np.array([0x0008], np.uint32), I.E5M7, DF.Float16_b)
    # FP16 -> BF16: mantissa narrows, so denormals are flushed
    got, _ = F.packer_late(np.array([0x0001, 0x83FF, 0x3C01, 0x7FFF], np.uint32), I.FP16, DF.Float16_b)
    assert got.tolist() == [0, 0x8000, 0x3F80, 0x47FF]


def test_late_fp16_to_fp8():
    h = np.arange(1 << 16, dtype=np.uint32)
    got, _ = F.packer_late(h, I.FP16, DF.Fp8)
    exp0 = ((h >> 10) & 0x1F) == 0
    assert np.array_equal(got, np.where(exp0, (h >> 15) << 7, h >> 8))
    assert np.array_equal(F.packer_late(h & 0xFF00, I.FP8, DF.Fp8)[0], h >> 8)  # same width: denormals kept
    assert np.array_equal(F.packer_late(h, I.FP16, DF.Float16)[0], h)


def test_late_integer_formats():
    x = np.array([0x80000005, 7], np.uint32)
    assert np.array_equal(F.packer_late(x, I.INT32, DF.Int32)[0], x)
    assert F.packer_late(np.array([0x85]), I.INT8, DF.UInt8)[0].tolist() == [0x85]  # bitcast
    assert F.packer_late(np.array([0xFFFF]), I.INT16, DF.UInt16)[0].tolist() == [0xFFFF]
    for src, dst in [(I.FP32, DF.Int32), (I.INT32, DF.Float32), (I.INT16, DF.Int8), (I.INT32, DF.Int8)]:
        with pytest.raises(UndefinedBehaviour):
            F.packer_late(np.zeros(1, np.uint32), src, dst)
    with pytest.raises(ValueError):
        F.packer_late(np.array([0x3F801000], np.uint32), I.BF16, DF.Float16_b)  # not a BF16 pattern


# ---------------------------------------------------------------------------
# BFP encoding
# ---------------------------------------------------------------------------


def ref_bfp_group(sign, exp, man, nbits=8):
    """One group of 16 (sign, exponent, 7-bit mantissa) -> (bytes, shared exponent),
    rounding ties away; None when a magnitude would need 8 bits."""
    shared = max(exp)
    out = []
    for s, e, m in zip(sign, exp, man):
        if e == 0:
            out.append(0)
            continue
        q = Fraction(128 | m, 2 ** (shared - e + 1))
        n = math.floor(q) + (q - math.floor(q) >= HALF)
        if n > 127:
            return None
        if nbits < 8:
            n >>= 8 - nbits
        out.append(((s if n else 0) << (nbits - 1)) | n)
    return out, shared


bf16_words = st.integers(0, 0xFFFF).filter(lambda b: (b >> 7) & 0xFF not in (0,)) | st.sampled_from([0, 0x8000])


@settings(max_examples=200, deadline=None)
@given(st.lists(bf16_words, min_size=16, max_size=16), st.sampled_from([(DF.Bfp8_b, 8), (DF.Bfp4_b, 4), (DF.Bfp2_b, 2)]))
def test_bfp8_b_encode_from_bf16(words, fb):
    fmt, nbits = fb
    b = np.array(words, np.uint32)
    ref = ref_bfp_group([w >> 15 for w in words], [(w >> 7) & 0xFF for w in words], [w & 0x7F for w in words], nbits)
    if ref is None:
        with pytest.raises(UndefinedBehaviour, match="128"):
            F.packer_late(b << 16, I.BF16, fmt)
        d, e = F.packer_late(b << 16, I.BF16, fmt, bfp_overflow="saturate")
        assert (d & ((1 << (nbits - 1)) - 1)).max() <= (1 << (nbits - 1)) - 1
        return
    d, e = F.packer_late(b << 16, I.BF16, fmt)
    assert d.tolist() == ref[0]
    assert e.tolist() == [ref[1]]


@settings(max_examples=100, deadline=None)
@given(hnp.arrays(np.uint32, 64, elements=st.integers(0, 2**32 - 1)))
def test_bfp_error_bound_and_shared_exponent(x):
    # From FP32 via BF16 truncation: every value within half a step of its
    # group's grid, shared exponent = max BF16 exponent of the group.
    x = x[((x >> 23) & 0xFF) < 255]
    x = x[: (x.size // 16) * 16]
    b = (x >> 16).astype(np.uint32)
    b = np.where(((b >> 7) & 0xFF) == 0, b & 0x8000, b)  # denormals flushed
    try:
        d, e = F.packer_late(x & np.uint32(0xFFFF0000), I.FP32, DF.Bfp8_b)
    except UndefinedBehaviour:
        return
    g = ((b >> 7) & 0xFF).reshape(-1, 16)
    assert e.tolist() == g.max(axis=1).tolist()
    vals = F.to_float64(b, DF.Float16_b)
    got = F.to_float64(d, DF.Bfp8_b, exps=e, mode="fpu")
    step = np.ldexp(1.0, np.repeat(e.astype(np.int64), 16) - 127 - 6)
    assert np.all(np.abs(got - vals) <= step / 2)


def test_bfp_overflow_raises_or_saturates():
    b = np.array([0x3FFF] + [0] * 15, np.uint32) << 16  # 1.9921875: 0xff >> 1 rounds up to 128
    with pytest.raises(UndefinedBehaviour, match="magnitude 128"):
        F.packer_late(b, I.BF16, DF.Bfp8_b)
    d, e = F.packer_late(b, I.BF16, DF.Bfp8_b, bfp_overflow="saturate")
    assert d.tolist()[0] == 127 and e.tolist() == [127]
    # The default E8M6 route cannot overflow: the early rounding already
    # carried into the exponent.
    buf = F.encode_from_fp32(b, DF.Bfp8_b)
    assert buf[0] == 128 and buf[16] == 0x40


def test_bfp_tiny_negative_gets_plus_zero():
    # sign 1 + magnitude 0 would decode as -Infinity (FloatBitPatterns.md),
    # so an underflowed negative datum is written as 0x00.
    b = np.array([f32_bits(1.0), f32_bits(-(2.0**-20)), f32_bits(-0.0), f32_bits(-0.2)] + [0] * 12, np.uint32)
    d, e = F.packer_late(b & np.uint32(0xFFFF0000), I.FP32, DF.Bfp8_b)
    assert d.tolist()[:4] == [0x40, 0x00, 0x00, 0x80 | 13]
    d4, _ = F.packer_late(b & np.uint32(0xFFFF0000), I.FP32, DF.Bfp4_b)
    assert d4.tolist()[:4] == [0x4, 0, 0, 0]  # -0.2 truncates to magnitude 0 in BFP4


def test_bfp4_truncates_after_bfp8_rounding():
    # Docs: BFP4/BFP2 are BFP8 then truncation, not direct rounding.
    b = np.array([f32_bits(1.0), f32_bits(0.9375), f32_bits(0.49609375)] + [0] * 13, np.uint32)
    d, e = F.packer_late(b, I.BF16, DF.Bfp4_b)
    # 0.9375 -> BFP8 mag 60 -> BFP4 3 (0.75), although 0.9375 is nearer 1.0.
    # 0.49609375 -> BFP8 mag 31.75 rounds up to 32 -> BFP4 2 (0.5).
    assert d.tolist()[:3] == [4, 3, 2]


def test_default_bfp8_b_route_double_rounds():
    # Default route rounds to E8M6 first, then to the shared exponent.
    x = np.array([f32_bits(1.0), f32_bits(0.50390625)] + [0] * 14, np.uint32)  # 0.5 * (1 + 2**-7)
    double = F.encode_from_fp32(x, DF.Bfp8_b)
    single = F.encode_from_fp32(x, DF.Bfp8_b, intermediate=I.FP32)
    assert double[16 + 1] == 33 and single[16 + 1] == 32


def test_bfp8a_encoding():
    x = np.array([f32_bits(v) for v in [1.0, -0.5, 3.0, 2.0**-14, 70000.0, 0.0] + [0.0] * 10], np.uint32)
    d, e = F.packer_late(x, I.FP32, DF.Bfp8)
    # 70000 has FP16 exponent 31 (finite in Tensix FP16); E5M7 truncation
    # gives 1.0625 * 2**16, i.e. magnitude 68 at shared exponent 31.
    assert e.tolist() == [31]
    assert d.tolist()[:6] == [0, 0, 0, 0, 68, 0]
    # 200000 saturates to 131008 (mantissa all ones), which then rounds to 128.
    big = np.array([f32_bits(200000.0)] + [0] * 15, np.uint32)
    with pytest.raises(UndefinedBehaviour, match="128"):
        F.packer_late(big, I.FP32, DF.Bfp8)
    assert F.packer_late(big, I.FP32, DF.Bfp8, bfp_overflow="saturate")[0].tolist()[0] == 127
    d, e = F.packer_late(x[:4].repeat(4), I.FP32, DF.Bfp8)
    assert e.tolist() == [16]
    assert d.tolist()[::4] == [32, 0x80 | 16, 96, 0]


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_bfp_stochastic_threshold(data):
    words = data.draw(st.lists(bf16_words, min_size=16, max_size=16))
    r = data.draw(hnp.arrays(np.uint32, 16))
    b = np.array(words, np.uint32) << 16
    e8 = np.array([(w >> 7) & 0xFF for w in words])
    shared = e8.max()
    try:
        d, _ = F.packer_late(b, I.BF16, DF.Bfp8_b, random=r, bfp_overflow="saturate")
    except UndefinedBehaviour:
        return
    for w, ri, di in zip(words, r.tolist(), d.tolist()):
        e = (w >> 7) & 0xFF
        if e == 0:
            assert di == 0
            continue
        q = Fraction(128 | (w & 0x7F), 2 ** (int(shared) - e + 1))
        n = math.floor(q) + (math.floor((q - math.floor(q)) * 2**23) >= (ri & 0x7FFFFF))
        assert di & 0x7F == min(n, 127)


# ---------------------------------------------------------------------------
# Exponent thresholding
# ---------------------------------------------------------------------------


def test_exponent_threshold():
    x = np.array([f32_bits(1.0), f32_bits(2.0**-10), f32_bits(-(2.0**-3))], np.uint32)
    assert F.exponent_threshold(x, DF.Float32, 120).tolist() == [x[0], 0, x[2]]
    h = np.array([0x3C00, 0x0400, 0x8800], np.uint32)
    assert F.exponent_threshold(h, DF.Float16, 2).tolist() == [0x3C00, 0, 0x8800]
    assert F.exponent_threshold(h, DF.Int32, 200).tolist() == h.tolist()
    with pytest.raises(UndefinedBehaviour, match="BFP2a"):
        F.exponent_threshold(h, DF.Bfp2, 1)


# ---------------------------------------------------------------------------
# Round trips through L1 for every format (exactly representable values)
# ---------------------------------------------------------------------------


def _round_trip_fp32(x: np.ndarray, fmt: DF) -> np.ndarray:
    buf = F.encode_from_fp32(x, fmt)
    assert buf.size == F.tile_bytes(fmt, x.size)
    return F.l1_to_float64(bytes(buf), fmt, x.size)


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.uint32, 64, elements=st.integers(0, 2**32 - 1)))
def test_round_trip_float32_tf32_bf16(x):
    buf = F.encode_from_fp32(x, DF.Float32)
    assert np.array_equal(F.decode_l1(buf, DF.Float32, 64)[0], x)  # NaN payloads too
    e = (x >> 23) & 0xFF
    ok = (e != 0) & (e != 255)
    for fmt, mask in [(DF.Tf32, 0xFFFFE000), (DF.Float16_b, 0xFFFF0000)]:
        y = np.where(ok, x, 0x3F800000).astype(np.uint32) & np.uint32(mask)
        got = F.decode_l1(F.encode_from_fp32(y, fmt), fmt, 64)[0]
        assert np.array_equal(got, y if fmt is DF.Tf32 else y >> 16)


def test_round_trip_fp16_fp8_every_normal_pattern():
    h = np.arange(1 << 16, dtype=np.uint32)
    h = h[((h >> 10) & 0x1F) != 0]
    x = F.fp32_from_dst16_fp16(F.dst16_from_fp16(h))  # exact FP32 value (exponent 31 finite)
    assert np.array_equal(F.decode_l1(F.encode_from_fp32(x, DF.Float16), DF.Float16, x.size)[0], h)
    q = h[(h & 0xFF) == 0] >> 8
    xq = F.fp32_from_dst16_fp16(F.dst16_from_fp16(q << 8))
    assert np.array_equal(F.decode_l1(F.encode_from_fp32(xq, DF.Fp8), DF.Fp8, xq.size)[0], q)


def _representable_bfp(rng, fmt: DF, groups: int):
    nbits = F.datum_bits(fmt)
    top = 1 << (nbits - 1)
    d = rng.integers(0, 1 << nbits, groups * 16).astype(np.uint32)
    d[::16] = top | rng.integers(top // 2, top, groups)  # each group has a normalised datum
    mag0 = (d & (top - 1)) == 0
    d = np.where(mag0, 0, d).astype(np.uint32)  # no sign-only datums
    lo, hi = (7, 255) if F.bfp_exponent_bits(fmt) == 8 else (7, 32)
    e = rng.integers(lo, hi, groups).astype(np.uint8)
    return d, e


@pytest.mark.parametrize("fmt", [DF.Bfp8_b, DF.Bfp4_b, DF.Bfp2_b, DF.Bfp8, DF.Bfp4, DF.Bfp2])
def test_round_trip_bfp_tiles(fmt):
    rng = np.random.default_rng(int(fmt))
    d, e = _representable_bfp(rng, fmt, 64)
    buf = F.encode_l1(d, fmt, e)
    vals = F.l1_to_float64(buf, fmt)
    x = vals.astype(np.float32).view(np.uint32)
    assert np.array_equal(x.view(np.float32).astype(np.float64), vals)
    again = F.encode_from_fp32(x, fmt)
    assert np.array_equal(again, buf)


def test_round_trip_bfp8_b_through_registers():
    # L1 -> unpacker -> Dst16 BF16 -> packer (identity) -> L1, bit for bit.
    rng = np.random.default_rng(3)
    d, e = _representable_bfp(rng, DF.Bfp8_b, 64)
    buf = F.encode_l1(d, DF.Bfp8_b, e)
    datums, exps = F.decode_l1(buf, DF.Bfp8_b)
    dst = F.unpack_convert(datums, DF.Bfp8_b, DF.Bfp8_b, to_dst=True, exps=exps)
    inter = F.packer_early(dst, Repr.DST16_BF16, I.BF16, M.IDENTITY)
    d2, e2 = F.packer_late(inter, I.BF16, DF.Bfp8_b)
    assert np.array_equal(F.encode_l1(d2, DF.Bfp8_b, e2), buf)


def test_bfp8_b_tile_from_fp32():
    rng = np.random.default_rng(11)
    m = rng.standard_normal((32, 32)).astype(np.float32)
    x = F.tile_to_faces(m).view(np.uint32)
    buf = F.encode_from_fp32(x, DF.Bfp8_b)
    assert buf.size == 1088
    bf = F.packer_early(F.dst32_from_fp32(x), Repr.DST32_FP32, I.E8M6, M.ROUND)
    assert buf[:64].tolist() == ((bf >> 23) & 0xFF).reshape(64, 16).max(axis=1).tolist()
    back = F.faces_to_tile(F.l1_to_float64(buf, DF.Bfp8_b))
    assert np.max(np.abs(back - m) / np.max(np.abs(m))) < 2**-5


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-127, 127), min_size=1, max_size=40),
       st.lists(st.integers(-(2**31) + 1, 2**31 - 1), min_size=1, max_size=40))
def test_round_trip_integers(small, big):
    s = F.int_to_sign_mag(small, 32)
    inter = F.packer_early(F.dst32_from_fp32(s), Repr.DST32_INT32, I.INT8, M.ROUND)
    d, _ = F.packer_late(inter, I.INT8, DF.Int8)
    assert F.to_float64(F.decode_l1(F.encode_l1(d, DF.Int8), DF.Int8, len(small))[0], DF.Int8).tolist() == small
    b = F.int_to_sign_mag(big, 32)
    inter = F.packer_early(F.dst32_from_fp32(b), Repr.DST32_INT32, I.INT32, M.IDENTITY)
    d, _ = F.packer_late(inter, I.INT32, DF.Int32)
    buf = F.encode_l1(d, DF.Int32)
    assert F.sign_mag_to_int(F.decode_l1(buf, DF.Int32, len(big))[0], 32).tolist() == big
    # and back into Dst through the unpacker
    dst = F.unpack_convert(F.decode_l1(buf, DF.Int32, len(big))[0], DF.Int32, DF.Int32, to_dst=True)
    assert F.to_float64(dst, Repr.DST32_INT32).tolist() == [float(v) for v in big]
    u = np.array([v & 0xFF for v in big], np.uint32)
    dst = F.unpack_convert(u, DF.UInt8, DF.UInt8, to_dst=True)
    assert F.to_float64(dst, Repr.DST16_INT8).tolist() == u.astype(float).tolist()
    w = np.array([v & 0xFFFF for v in big], np.uint32)
    dst = F.unpack_convert(F.decode_l1(F.encode_l1(w, DF.UInt16), DF.UInt16, len(big))[0], DF.UInt16, DF.UInt16,
                           to_dst=True)
    d, _ = F.packer_late(F.packer_early(dst, Repr.DST16_INT16, I.INT16, M.IDENTITY), I.INT16, DF.UInt16)
    assert np.array_equal(d, w)


# ---------------------------------------------------------------------------
# Configuration recipes -> early conversion
# ---------------------------------------------------------------------------


def _cfg(r32, raw, r10, uns, code, late_from=None, late_to=None):
    return F.early_from_config(read_32b_data=r32, read_raw=raw, round_10b_mant=r10, read_unsigned=uns,
                               intermediate_code=int(code), late_from=late_from, late_to=late_to)


def test_early_from_config_recipes():
    # One line per recipe of Packers/FormatConversion.md "Configuring the conversions".
    D32, I32, B16, H16 = Repr.DST32_FP32, Repr.DST32_INT32, Repr.DST16_BF16, Repr.DST16_FP16
    assert _cfg(1, 0, 0, 0, DF.Int32) == (I32, I.INT32, M.IDENTITY)
    assert _cfg(1, 0, 0, 0, DF.Float32) == (D32, I.FP32, M.IDENTITY)
    assert _cfg(1, 1, 1, 0, DF.Float32) == (D32, I.FP32, M.IDENTITY)
    assert _cfg(1, 1, 0, 0, DF.Tf32) == (D32, I.FP32, M.IDENTITY)
    assert _cfg(1, 0, 0, 0, DF.Tf32) == (D32, I.TF32, M.ROUND)
    assert _cfg(1, 0, 1, 0, DF.Float32) == (D32, I.TF32, M.ROUND)
    assert _cfg(1, 0, 1, 0, DF.Float16_b, DF.Tf32, DF.Float16) == (D32, I.TF32, M.ROUND)
    assert _cfg(1, 0, 0, 0, DF.Float16_b) == (D32, I.BF16, M.ROUND)
    assert _cfg(1, 1, 0, 0, DF.Bfp8_b) == (D32, I.BF16, M.TRUNCATE)
    assert _cfg(1, 1, 0, 0, DF.Float16_b) == (D32, I.BF16, M.TRUNCATE)
    assert _cfg(1, 0, 0, 0, DF.Bfp8_b) == (D32, I.E8M6, M.ROUND)
    assert _cfg(1, 1, 0, 0, DF.Int8) == (I32, I.INT8, M.RAW)
    assert _cfg(1, 0, 0, 0, DF.Int8) == (I32, I.INT8, M.ROUND)
    assert _cfg(1, 1, 0, 1, DF.Int8) == (I32, I.UINT8, M.RAW)
    assert _cfg(1, 0, 0, 1, DF.Int8) == (I32, I.UINT8, M.ROUND)
    assert _cfg(0, 0, 0, 0, DF.Tf32) == (B16, I.TF32, M.ROUND)
    assert _cfg(0, 0, 1, 0, DF.Float32) == (B16, I.TF32, M.ROUND)
    assert _cfg(0, 0, 1, 0, DF.Float16_b, DF.Tf32, DF.Float16) == (B16, I.TF32, M.ROUND)
    assert _cfg(0, 0, 0, 0, DF.Float16_b, DF.Float16_b, DF.Float16) == (B16, I.BF16, M.ROUND)
    assert _cfg(0, 1, 0, 0, DF.Float16_b) == (B16, I.BF16, M.IDENTITY)
    assert _cfg(0, 1, 0, 0, DF.Bfp8_b) == (B16, I.BF16, M.IDENTITY)
    assert _cfg(0, 0, 0, 0, DF.Bfp8_b) == (B16, I.E8M6, M.ROUND)
    assert _cfg(0, 1, 0, 0, DF.Int8)[1:] == (I.INT8, M.RAW)
    assert _cfg(0, 0, 0, 0, DF.Float16) == (H16, I.FP16, M.ROUND)
    assert _cfg(0, 1, 0, 0, DF.Float16) == (H16, I.FP16, M.IDENTITY)
    assert _cfg(0, 1, 0, 0, DF.Bfp8) == (H16, I.E5M7, M.TRUNCATE)
    assert _cfg(0, 0, 0, 0, DF.Bfp8) == (H16, I.E5M6, M.ROUND)
    assert _cfg(0, 1, 0, 0, DF.Fp8) == (H16, I.FP8, M.TRUNCATE)
    assert _cfg(0, 0, 0, 0, DF.UInt16) == (Repr.DST16_INT16, I.INT16, M.IDENTITY)
    # every recipe is a supported cell of the early table
    for r in [_cfg(1, 0, 0, 0, DF.Bfp8_b), _cfg(0, 1, 0, 0, DF.Fp8), _cfg(1, 0, 0, 1, DF.Int8)]:
        F.packer_early(np.zeros(1, np.uint32), *r)


@pytest.mark.parametrize("args", [
    (1, 0, 0, 0, DF.Float16),  # FP32 -> FP16 early: "No"
    (0, 0, 0, 0, DF.Float32),  # BF16 -> FP32: "No"
    (0, 1, 0, 0, DF.Tf32),
    (0, 0, 0, 0, DF.Fp8),
    (0, 1, 0, 1, DF.Int8),
    (1, 0, 0, 0, DF.Bfp4_b),
    (1, 0, 1, 0, DF.Float16_b, DF.Float16_b, DF.Float16),
    (1, 0, 0, 0, 12),
])
def test_early_from_config_undocumented(args):
    with pytest.raises(UndefinedBehaviour, match="no documented recipe"):
        _cfg(*args)


def test_early_uint16_from_32bit_dst_takes_the_high_half():
    """FormatConversion.md marks INT32 -> INT16 "No", but tt-llk's configure_pack sets
    Read_32b_data for a UInt16 pack_src with a 32-bit Dst; ttsim's packer (and ttemu)
    take the high 16 bits of the Dst32 storage, undecoded."""
    r = F.early_from_config(read_32b_data=True, read_raw=False, round_10b_mant=False, read_unsigned=False,
                            intermediate_code=DF.UInt16)
    assert r == (Repr.DST32_INT32, I.INT16, M.BITCAST)
    got = F.packer_early(np.array([0xABCD1234, 0x00018000, 0xFFFF0000], np.uint32), *r)
    assert got.tolist() == [0xABCD, 0x0001, 0xFFFF]
