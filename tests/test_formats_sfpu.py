"""ttemu.tensix.formats: SFPLOAD / SFPSTORE / SFPLOADI conversions
(SFPLOAD.md, SFPSTORE.md, SFPLOADI.md, FloatBitPatterns.md)."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ttemu.errors import UndefinedBehaviour
from ttemu.tensix import formats as F

ALL16 = np.arange(1 << 16, dtype=np.uint32)
MANTS = [0, 1, 0x1FFF, 0x2000, 0x3FFF, 0x400000, 0x7FE000, 0x7FFFFF, 0x123456]
SWEEP = np.array([(s << 31) | (e << 23) | m for s in (0, 1) for e in range(256) for m in MANTS], np.uint32)
u32s = hnp.arrays(np.uint32, st.integers(1, 64), elements=st.integers(0, 2**32 - 1))


def f32_bits(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


def f32_val(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def test_sfpload_fp16_exhaustive():
    got = F.sfpload_convert(F.dst16_from_fp16(ALL16), F.MOD0_FMT_FP16)
    h16 = ALL16.astype(np.uint16).view(np.float16)
    for h, g in zip(ALL16.tolist(), got.tolist()):
        s, e, m = h >> 15, (h >> 10) & 0x1F, h & 0x3FF
        sign = -1.0 if s else 1.0
        if 1 <= e <= 30:
            assert g == f32_bits(float(h16[h]))  # numpy's exact FP16 -> FP32
        elif e == 31:
            assert f32_val(g) == sign * (1 + m / 1024) * 2.0**16  # no Inf/NaN in Tensix FP16
        else:
            # FloatBitPatterns.md: SFPLOAD gives (0 + Mant/2**10) * 2**-126
            assert g == (s << 31) | (m << 13)
            assert f32_val(g) == sign * m / 1024 * 2.0**-126


def test_sfpload_fp16_optional_infinity():
    d = F.dst16_from_fp16(np.array([0x7FFF, 0xFFFF, 0x7FFE], np.uint32))
    assert F.fp32_from_dst16_fp16(d, True).tolist() == [0x7F800000, 0xFF800000, f32_bits(131008.0 - 64)]
    assert F.fp32_from_dst16_fp16(d, [False, True, True]).tolist()[:2] == [f32_bits(131008.0), 0xFF800000]


def test_sfpload_bf16_and_fp32():
    assert np.array_equal(F.sfpload_convert(F.dst16_from_bf16(ALL16), F.MOD0_FMT_BF16), ALL16 << 16)
    x = SWEEP
    for mode in (F.MOD0_FMT_FP32, F.MOD0_FMT_INT32, F.MOD0_FMT_INT32_ALL):
        assert np.array_equal(F.sfpload_convert(F.dst32_from_fp32(x), mode), x)
        assert mode in F.SFPLOAD_READS_DST32


def ref_to_fp16(x: int) -> int:
    """SFPSTORE ToFP16, from the value: flush below 2**-14's exponent, saturate
    above FP16 exponent 31, truncate toward zero."""
    s, e = x >> 31, (x >> 23) & 0xFF
    if e <= 112:
        return s << 15
    if e > 143:
        return (s << 15) | 0x7FFF
    v = abs(f32_val(x))
    ex = e - 127
    m = int(v / 2.0**ex * 1024) - 1024  # exact: v has 24 significant bits
    return (s << 15) | ((ex + 15) << 10) | m


def test_sfpstore_fp16_every_exponent():
    got = F.sfpstore_convert(SWEEP, F.MOD0_FMT_FP16)
    assert F.dst16_to_fp16(got).tolist() == [ref_to_fp16(x) for x in SWEEP.tolist()]


def test_sfpstore_fp16_vs_packer_pinned():
    # SFPSTORE flushes 2**-15 < |x| < 2**-14 to zero, whereas the packer's late
    # conversion "mishandles" that range (UndefinedBehaviour there).
    x = np.array([f32_bits(1.5 * 2.0**-15)], np.uint32)
    assert F.dst16_to_fp16(F.sfpstore_convert(x, F.MOD0_FMT_FP16)).tolist() == [0]
    with pytest.raises(UndefinedBehaviour):
        F.packer_late(x, F.Intermediate.FP32, F.DataFormat.Float16)
    # NaN and infinity saturate (no NaN in Dst FP16)
    x = np.array([0x7FC00000, 0xFF800000, f32_bits(65504.0)], np.uint32)
    assert F.dst16_to_fp16(F.sfpstore_convert(x, F.MOD0_FMT_FP16)).tolist() == [0x7FFF, 0xFFFF, 0x7BFF]


def test_sfpstore_bf16_every_exponent():
    got = F.dst16_to_bf16(F.sfpstore_convert(SWEEP, F.MOD0_FMT_BF16))
    ref = [(x >> 16) if (x >> 23) & 0xFF else (x >> 31) << 15 for x in SWEEP.tolist()]
    assert got.tolist() == ref


@settings(deadline=None)
@given(u32s)
def test_sfpstore_sfpload_round_trips(x):
    for mode in (F.MOD0_FMT_FP32, F.MOD0_FMT_INT32, F.MOD0_FMT_INT32_ALL):
        d = F.sfpstore_convert(x, mode)
        assert mode in F.SFPSTORE_WRITES_DST32
        assert np.array_equal(F.sfpload_convert(d, mode), x)
    # BF16 keeps the top half of normal numbers
    e = (x >> 23) & 0xFF
    y = np.where(e != 0, x & np.uint32(0xFFFF0000), x & np.uint32(0x80000000))
    assert np.array_equal(F.sfpload_convert(F.sfpstore_convert(x, F.MOD0_FMT_BF16), F.MOD0_FMT_BF16), y)
    # two's complement through Dst INT32 (except -2**31)
    z = x[x != 0x80000000]
    d = F.sfpstore_convert(z, F.MOD0_FMT_INT32_SM)
    assert np.array_equal(F.sfpload_convert(d, F.MOD0_FMT_INT32_SM), z)
    assert F.to_float64(d, F.Repr.DST32_INT32).tolist() == z.view(np.int32).astype(float).tolist()
    # opaque 16-bit halves
    lo = F.sfpstore_convert(x, F.MOD0_FMT_LO16_ONLY)
    hi = F.sfpstore_convert(x, F.MOD0_FMT_HI16_ONLY)
    back = F.sfpload_convert(hi, F.MOD0_FMT_HI16_ONLY, old_lreg=F.sfpload_convert(lo, F.MOD0_FMT_LO16))
    assert np.array_equal(back, x)
    assert np.array_equal(F.sfpload_convert(lo, F.MOD0_FMT_UINT16), x & 0xFFFF)
    # LO16 / HI16 store 32 opaque bits (LO16 rotated by 16)
    assert np.array_equal(F.sfpstore_convert(x, F.MOD0_FMT_HI16), x)
    assert np.array_equal(F.sfpstore_convert(x, F.MOD0_FMT_LO16), (x << 16) | (x >> 16))


def test_sfpstore_int32_sm_minimum_pinned():
    # SFPSTORE's table excludes -2**31; the functional model gives sign 1,
    # magnitude 0 (minus zero), which SFPLOAD INT32_SM turns into 0.
    d = F.sfpstore_convert(np.array([0x80000000], np.uint32), F.MOD0_FMT_INT32_SM)
    assert F.dst32_to_fp32(d).tolist() == [0x80000000]
    assert F.sfpload_convert(d, F.MOD0_FMT_INT32_SM).tolist() == [0]


def test_int8_modes():
    vals = [0, 5, -5, 127, -127, 200, -1023, 1023]
    sm = F.int_to_sign_mag(vals, 32)
    d = F.sfpstore_convert(sm, F.MOD0_FMT_INT8)
    assert F.to_float64(d, F.Repr.DST16_INT8).tolist() == [float(v) for v in vals]
    lo5 = (d & 0x1F).tolist()
    assert lo5 == [16] * len(vals)  # SFPSTORE always writes exponent 16 (the unpacker writes 0 for zero)
    assert np.array_equal(F.sfpstore_convert(np.array(vals).astype(np.int32).view(np.uint32), F.MOD0_FMT_INT8_COMP), d)
    # SFPLOAD INT8 keeps seven magnitude bits (input expected within +-127) ...
    got = F.sfpload_convert(d, F.MOD0_FMT_INT8)
    assert F.sign_mag_to_int(got, 32).tolist() == [0, 5, -5, 127, -127, 200 & 0x7F, -(1023 & 0x7F), 1023 & 0x7F]
    # ... INT8_COMP keeps all ten and returns two's complement
    got = F.sfpload_convert(d, F.MOD0_FMT_INT8_COMP)
    assert got.view(np.int32).tolist() == vals
    # magnitudes above 1023 wrap (only ten bits are stored)
    w = F.sfpstore_convert(F.int_to_sign_mag([1025], 32), F.MOD0_FMT_INT8)
    assert F.to_float64(w, F.Repr.DST16_INT8).tolist() == [1.0]


def test_int16_modes():
    vals = [0, 1, -1, 32767, -32767]
    sm = F.int_to_sign_mag(vals, 32)
    d = F.sfpstore_convert(sm, F.MOD0_FMT_INT16)
    assert F.to_float64(d, F.Repr.DST16_INT16).tolist() == [float(v) for v in vals]
    assert np.array_equal(F.sfpload_convert(d, F.MOD0_FMT_INT16), sm)
    assert F.sfpload_convert(np.array([0xABCD]), F.MOD0_FMT_HI16).tolist() == [0xABCD0000]
    assert F.sfpload_convert(np.array([0xABCD]), F.MOD0_FMT_ZERO).tolist() == [0]


def test_sign_mag_twos_helpers():
    x = np.array([0, 1, 0x7FFFFFFF, 0x80000001, 0x80000000], np.uint32)
    assert F.sign_mag_to_twos(x).view(np.int32).tolist() == [0, 1, 2**31 - 1, -1, 0]
    t = np.array([0, 1, -1, -(2**31 - 1)], np.int64)
    assert F.twos_to_sign_mag(t).tolist() == [0, 1, 0x80000001, 0xFFFFFFFF]


def test_sfploadi_fp16_rebias_without_special_cases():
    # FloatBitPatterns.md: SFPLOADI reads exponent 0 as (1 + Mant/2**10) * 2**-15.
    got = F.fp32_from_fp16_sfploadi(ALL16)
    h = ALL16
    e = (h >> 10) & 0x1F
    vals = np.where(h >> 15, -1.0, 1.0) * np.ldexp(1 + (h & 0x3FF) / 1024.0, e.astype(np.int64) - 15)
    assert np.array_equal(got.view(np.float32).astype(np.float64), vals)


def test_undocumented_modes():
    with pytest.raises(ValueError):
        F.sfpload_convert(np.zeros(1, np.uint32), F.MOD0_FMT_SRCB)
    with pytest.raises(UndefinedBehaviour):
        F.sfpstore_convert(np.zeros(1, np.uint32), 16)
