"""The Vector Unit's fast multiply-adds (sfpu/fp.py ``fma_rows``, what ``fma`` and the
MAD instructions run for whole-lane operands, and ``_fma_stacked``, its careful form)
against the plain form and the reference ``_fma``, on random bit patterns mixed with
NaN, Inf, denormals, signed zeros, cancellations, BF16-like (mostly exact) operands and
half-ulp ties; hypothesis draws the seeds."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ttemu.tensix.units.sfpu import fp

U32 = np.uint32
SPECIAL = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 1, 0x807FFFFF,
                    0x00800000, 0x80800000, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x33800000,
                    0x0C000000, 0x8C000000], dtype=U32)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.integers(0, 7))
def test_fma_stacked_matches_plain_and_reference(seed, kind):
    rng = np.random.default_rng(seed)
    a, b, c = (rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(U32) for _ in range(3))
    if kind == 1:  # BF16-like operands: sums mostly exact (the sticky-bit step skipped)
        a, b, c = (v & U32(0xFFFF0000) for v in (a, b, c))
    elif kind == 2:  # c ~ -(a * b): cancellation
        with np.errstate(all="ignore"):
            prod = a.view(np.float32).astype(np.float64) * b.view(np.float32).astype(np.float64)
            c = (-prod).astype(np.float32).view(U32) ^ rng.integers(0, 4, 32).astype(U32)
    elif kind == 3:  # a * b half an FP32 ulp of c, or a little more or less
        c = U32(0x3F800000) | rng.integers(0, 1 << 23, 32).astype(U32)
        a = np.full(32, 0x33800000, dtype=U32)
        b = U32(0x3F800000) | (rng.integers(0, 3, 32).astype(U32) << 21)
    elif kind == 5:  # a * b = 2**-24 (1 - 2**-46): the float64 sum lands on an FP32 tie, inexactly
        c = (U32(0x3F800000) | rng.integers(0, 1 << 23, 32).astype(U32)) | (rng.integers(0, 2, 32).astype(U32) << 31)
        a = rng.choice(np.array([0x33800001, 0xB3800001], dtype=U32), 32)
        b = rng.choice(np.array([0x3F7FFFFE, 0x3F800001], dtype=U32), 32)
    elif kind == 6:  # BF16-like with far apart exponents: inexact sums equal to FP32 values
        a, b, c = (v & U32(0xFFFF0000) for v in (a, b, c))
        c = (c & U32(0x80FFFFFF)) | U32(0x3F000000)
    elif kind == 7:  # ordinary finite values (no NaN / Inf / denormal): the direct rounding
        a, b, c = ((v & U32(0x81FFFFFF)) | U32(0x3E000000) for v in (a, b, c))
    elif kind == 4:  # results near the smallest normal (flushed, or rounded up to it)
        a = U32(0x00800000) | rng.integers(0, 1 << 23, 32).astype(U32) | (rng.integers(0, 2, 32).astype(U32) << 31)
        b = U32(0x3F000000) | rng.integers(0, 1 << 23, 32).astype(U32)
        c = rng.choice(SPECIAL[:2], 32)
    if kind != 7:
        pick = rng.random(32) < 0.25
        for v in (a, b, c):
            v[pick & (rng.random(32) < 0.5)] = rng.choice(SPECIAL, 1)
    x = np.stack((a, b, c))
    got = fp._fma_stacked(x)
    ref = fp._fma(a, b, c)
    np.testing.assert_array_equal(got, fp._fma_stacked_plain(x))
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(fp.fma_rows(x), ref)
    with np.errstate(all="ignore"):  # (the checked form; fma_rows sets this state for it)
        np.testing.assert_array_equal(fp._fma_rows_checked(x, 32, fp._consts(32)), ref)
    np.testing.assert_array_equal(FMA32(x), ref)
    np.testing.assert_array_equal(x, np.stack((a, b, c)))  # fma_rows leaves its operands alone
    np.testing.assert_array_equal(fp.fma(a, b, c), ref)
    assert got.dtype == fp.fma_rows(x).dtype == U32


FMA32 = fp.fma_rows_into(32)  # (what the MAD instructions' runners use: its result in a buffer of its own)


def test_fma_rows_into_each_test_of_its_direct_form():
    """Lanes that fail one test of ``fma_rows_into``'s direct form (operands zero,
    denormal, NaN, infinity; sums exact, on a tie exactly or not, not finite; results
    +0 / -0, denormal, 2**-126, overflowing) among ordinary lanes, one kind at a time,
    against ``_fma``; and its result buffer is reused (copy it at once)."""
    rng = np.random.default_rng(11)
    base = ((rng.integers(0, 1 << 23, (3, 32)) | (rng.integers(100, 150, (3, 32)) << 23)
             | (rng.integers(0, 2, (3, 32)) << 31)).astype(U32))
    lanes = [  # (a, b, c) put in lanes 3 and 17
        (0, 0x3F800000, 0x3F800001), (0x80000000, 0x40000000, 0), (1, 0x7F000000, 0x3F800000),
        (0x3F800000, 0x3F800000, 0x807FFFFF), (0x7FC00000, 0x3F800000, 0x3F800000), (0x7F800000, 0, 0x3F800000),
        (0x7F800000, 0x3F800000, 0xFF800000), (0x3F800000, 0x3F800000, 0xBF800000),  # inf - inf; 1 - 1 = 0
        (0x3F800000, 0x3F800000, 0x3F800000), (0x00800000, 0x3F000000, 0),  # exact; 2**-127 (flushed)
        (0x00800001, 0xBF800000, 0x01000000), (0x7F7FFFFF, 0x40000000, 0), (0x33800000, 0x3F800000, 0x3F800000),
        (_f32(2.0**-24 * (1 - 2.0**-23)), _f32(1 + 2.0**-23), 0x3F800001),  # a tie reached inexactly
        (0x3F800001, 0x3F800000, 0x33800000), (0x3F800003, 0xBF800000, 0xB3800000),  # exact ties: to even
        (0x80000000, 0x3F800000, 0x80000000), (0x3F800000, 0xBF800000, 0x3F800000)]  # -0 + -0; -1 + 1
    for a, b, c in lanes:
        x = base.copy()
        x[:, 3] = x[:, 17] = (a, b, c)
        ref = fp._fma(*x)
        got = FMA32(x)
        np.testing.assert_array_equal(got, ref)
        np.testing.assert_array_equal(x[:, 3], (a, b, c))
    got = FMA32(base)
    first = got.copy()
    FMA32(base[::-1].copy())
    np.testing.assert_array_equal(first, fp._fma(*base))
    assert got is FMA32(base) and got.dtype == U32


def _f32(v) -> int:
    return int(np.float32(v).view(U32))


def test_fma_rows_ties_reached_inexactly():
    """The float64 sum lands exactly on an FP32 tie while the exact value is off it: the
    tie between 2**-126 and the largest denormal, from below (the exact value rounds to
    a denormal: +0) and from above (2**-126), and a tie between two normal values (1 +
    3 * 2**-24 less a little, and 1 + 2**-24 less a little). Rounding the float64 sum
    directly gets the first and third wrong; the same operands in every lane, and mixed
    with ordinary lanes."""
    m1, m2 = 2**23 + 2896, 2**23 - 2895  # m1 * m2 = 2**46 + 4688
    cases = [  # (a, b, c, expected)
        (_f32(m1 * 2.0**-98), _f32(-m2 * 2.0**-98), _f32(2.0**-126), 0),  # 2**-126 - 2**-150 - tiny
        (_f32((2**23 + 1) * 2.0**-98), _f32(-(2**23 - 1) * 2.0**-98), _f32(2.0**-126), 0x00800000),
        (_f32(2.0**-24 * (1 - 2.0**-23)), _f32(1 + 2.0**-23), 0x3F800001, 0x3F800001),  # 1 + 3 * 2**-24 - 2**-70
        (_f32(2.0**-24 * (1 - 2.0**-23)), _f32(1 + 2.0**-23), 0x3F800000, 0x3F800000),  # 1 + 2**-24 - 2**-70
    ]
    rng = np.random.default_rng(5)
    for i, (a, b, c, want) in enumerate(cases):
        x = np.array([[a] * 32, [b] * 32, [c] * 32], dtype=U32)
        fa, fb, fc = x[:, 0].view(np.float32).astype(np.float64)
        assert (np.float32(fa * fb + fc).view(U32) != want) == (i in (0, 2))  # what the direct rounding would give
        assert fp.fma_rows(x)[0] == want == fp._fma(a, b, c) == FMA32(x)[0]
        x[:, ::3] = (rng.integers(0, 1 << 24, (3, 11)) | 0x3F000000).astype(U32)
        np.testing.assert_array_equal(fp.fma_rows(x), fp._fma(*x))
        np.testing.assert_array_equal(FMA32(x), fp._fma(*x))
