"""Vector Unit numerics on raw 32-bit patterns (numpy uint32, one value per lane), other
than the multiply-add (:mod:`.fma`).

Pages: FloatBitPatterns.md (FP32), SFPLUT.md (``Lut8ToFp32``), SFPLUTFP32.md
(``Lut16ToFp32``), SFPSWAP.md (``SignMagIsSmaller``), VectorUnit.md (PRNG).
"""

from __future__ import annotations

import numpy as np

U32 = np.uint32
ONE = 0x3F800000

try:  # numpy's floating-point error state, set without np.errstate's per-use object
    from numpy._core.umath import _extobj_contextvar as _FP_STATE
    from numpy._core.umath import _make_extobj
    _FP_QUIET = _make_extobj(all="ignore")
except ImportError:  # pragma: no cover - another numpy layout: the public (slower) way
    _FP_STATE = _FP_QUIET = None
try:  # np.count_nonzero without its Python wrapper
    from numpy._core.multiarray import count_nonzero as _count_nonzero
except ImportError:  # pragma: no cover
    _count_nonzero = np.count_nonzero


def lut8_to_fp32(x) -> np.ndarray:
    """``Lut8ToFp32`` (SFPLUT.md): sign, 3-bit negated exponent, 4-bit mantissa; 0xff is 0."""
    x = np.asarray(x, dtype=U32) & U32(0xFF)
    out = ((x >> 7) << 31) | ((U32(127) - ((x >> 4) & 7)) << 23) | ((x & 0xF) << 19)
    return np.where(x == 0xFF, U32(0), out).astype(U32)


def lut16_to_fp32(x) -> np.ndarray:
    """``Lut16ToFp32`` (SFPLUTFP32.md): FP16 fields, exponent 31 reads as exponent 0
    (a denormal, hence zero for the multiply-add) and exponent 0 as a normal number."""
    x = np.asarray(x, dtype=U32) & U32(0xFFFF)
    exp = (x >> 10) & 0x1F
    exp8 = np.where(exp == 0x1F, U32(0), exp + U32(112))
    return (((x >> 15) << 31) | (exp8 << 23) | ((x & 0x3FF) << 13)).astype(U32)


def clz32(x) -> np.ndarray:
    """Count of leading zero bits of uint32 values (32 for zero)."""
    x = np.asarray(x, dtype=U32)
    _, e = np.frexp(x.astype(np.float64))  # exact for 32-bit integers; e = bit length
    return (32 - e).astype(np.int64)


def sign_mag_key(x) -> np.ndarray:
    """Signed sort key for ``SignMagIsSmaller`` (SFPSWAP.md): sign-magnitude -0 .. -(2**31-1)
    map to two's complement -1 .. -2**31, so FP32 compares in the total order
    -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN."""
    x = np.asarray(x, dtype=U32)
    return (x ^ np.where(x >> 31 != 0, U32(0x7FFFFFFF), U32(0))).astype(U32).view(np.int32)


def prng_step(state) -> np.ndarray:
    """One step of the per-lane LFSR of VectorUnit.md ``AdvancePRNG``: the new top bit
    is the inverted parity of the bits selected by 0x80200003."""
    state = np.asarray(state, dtype=U32)
    taps = np.bitwise_count(state & U32(0x80200003)).astype(U32)
    return ((((~taps) & 1) << 31) | (state >> 1)).astype(U32)
