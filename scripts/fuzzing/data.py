"""Operand values: 32-bit patterns mixing ordinary numbers with the cases where
implementations part ways: NaNs (quiet, signalling, negative, payloads), infinities,
denormals, -0, the largest and smallest normals, rounding boundaries (the bits a
BF16 / FP16 / TF32 conversion drops at exactly half, just below and just above), values
near 1 (cancellation), integers (two's complement and sign-magnitude, small, extreme)
and shift amounts."""

from __future__ import annotations

import numpy as np

U32 = np.uint32

SPECIALS = np.array([
    0x00000000, 0x80000000,  # +-0
    0x7F800000, 0xFF800000,  # +-Inf
    0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FC00123, 0x7FA00000,  # NaNs
    0x00000001, 0x807FFFFF, 0x00400000, 0x80000001,  # denormals
    0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF,  # smallest / largest normals
    0x3F800000, 0xBF800000, 0x3F7FFFFF, 0x3F800001, 0x40000000, 0x3F000000,  # around 1
    0x47800000, 0x477FE000, 0x38800000, 0x387FC000, 0x33800000,  # FP16 range edges
], dtype=U32)

#: low mantissa bits at, below and above the halfway points of BF16 (16 bits dropped),
#: FP16 / TF32 (13 bits dropped) and integer conversions
ROUNDING_LOW = np.array([0x8000, 0x7FFF, 0x8001, 0x18000, 0x10000, 0xFFFF, 0x1000, 0x0FFF, 0x1001, 0x3000, 0x2000,
                         0x400000, 0x3FFFFF, 0x400001, 0x7FFFFF, 0x0], dtype=U32)


def floats(rng, n: int, *, special=0.15, denormal=0.05, boundary=0.2, wide=0.15) -> np.ndarray:
    """``n`` FP32 patterns: ordinary values (exponents 120..134, both signs) mixed
    with the edge cases above in the given proportions."""
    sign = rng.integers(0, 2, n).astype(U32) << 31
    exp = rng.integers(120, 135, n).astype(U32)
    man = rng.integers(0, 1 << 23, n).astype(U32)
    kind = rng.random(n)
    lo = special
    out = sign | (exp << 23) | man
    pick = kind < lo
    out[pick] = rng.choice(SPECIALS, pick.sum())
    m = (kind >= lo) & (kind < lo + denormal)
    out[m] = sign[m] | rng.integers(0, 1 << 23, m.sum()).astype(U32)
    lo += denormal
    m = (kind >= lo) & (kind < lo + boundary)
    out[m] = sign[m] | (exp[m] << 23) | (((man[m] & U32(0x7F0000)) | rng.choice(ROUNDING_LOW, m.sum())) & U32(0x7FFFFF))
    lo += boundary
    m = (kind >= lo) & (kind < lo + wide)
    out[m] = sign[m] | (rng.integers(1, 255, m.sum()).astype(U32) << 23) | man[m]
    return out


def integers(rng, n: int) -> np.ndarray:
    """``n`` 32-bit integer patterns: small two's complement and sign-magnitude values,
    powers of two, the extremes, random words."""
    kind = rng.integers(0, 6, n)
    small = rng.integers(-40, 41, n).astype(np.int64)
    out = np.where(kind == 0, small & 0xFFFFFFFF, 0)
    out = np.where(kind == 1, (np.abs(small) | (np.where(small < 0, 1, 0) << 31)) & 0xFFFFFFFF, out)
    out = np.where(kind == 2, 1 << rng.integers(0, 32, n), out)
    ext = np.array([0x80000000, 0x7FFFFFFF, 0xFFFFFFFF, 0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x10000])
    out = np.where(kind == 3, rng.choice(ext, n), out)
    out = np.where(kind >= 4, rng.integers(0, 1 << 32, n, dtype=np.uint64), out)
    return out.astype(np.uint64).astype(U32)


def mixed(rng, n: int) -> np.ndarray:
    """Mostly floats, some integers, lane by lane."""
    f, i = floats(rng, n), integers(rng, n)
    return np.where(rng.random(n) < 0.75, f, i).astype(U32)


def uniform_value(rng) -> int:
    """One value for a whole register (SFPLOADI, SFPCONFIG's LReg[0])."""
    return int(mixed(rng, 1)[0])
