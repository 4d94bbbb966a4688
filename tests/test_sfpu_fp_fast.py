"""The Vector Unit's stacked multiply-add (sfpu/fp.py ``_fma_stacked``, what ``fma``
runs for whole-lane operands) against its plain form and the reference ``_fma``, on
random bit patterns mixed with NaN, Inf, denormals, signed zeros, cancellations and
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
@given(seed=st.integers(0, 2**32 - 1), kind=st.integers(0, 5))
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
    elif kind == 4:  # results near the smallest normal (flushed, or rounded up to it)
        a = U32(0x00800000) | rng.integers(0, 1 << 23, 32).astype(U32) | (rng.integers(0, 2, 32).astype(U32) << 31)
        b = U32(0x3F000000) | rng.integers(0, 1 << 23, 32).astype(U32)
        c = rng.choice(SPECIAL[:2], 32)
    pick = rng.random(32) < 0.25
    for v in (a, b, c):
        v[pick & (rng.random(32) < 0.5)] = rng.choice(SPECIAL, 1)
    x = np.stack((a, b, c))
    got = fp._fma_stacked(x)
    np.testing.assert_array_equal(got, fp._fma_stacked_plain(x))
    np.testing.assert_array_equal(fp.fma(a, b, c), fp._fma(a, b, c))
    assert got.dtype == U32
