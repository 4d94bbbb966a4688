"""FP32 operand triples for the Vector Unit's multiply-add tests (sfpu/fma.py): random bit
patterns mixed with NaN (random payloads), Inf, denormals, signed zeros, and kinds aimed
at each path of the pages' models (Miscellaneous/FMA): cancellations, ties, addends
shifted partly or wholly out (the semi-sticky shift), products that underflow or
overflow on their own, results near the smallest normal, sums that Wormhole normalises
by two with the dropped bit deciding the rounding, NaNs whose payload the computation
goes on with."""

import numpy as np

U32 = np.uint32
SPECIAL = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0xFFBFFFFF, 1,
                    0x807FFFFF, 0x00400000, 0x00800000, 0x80800000, 0x00FFFFFF, 0x3F800000, 0xBF800000, 0x3F800001,
                    0x3F7FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0x33800000, 0x4B000000, 0x5F800000, 0x1F800000],
                   dtype=U32)
KINDS = 10


def _with_exponent(rng, v, lo, hi):
    return (v & U32(0x807FFFFF)) | (rng.integers(lo, hi, v.size).astype(U32) << 23)


def _short(rng, n, bits):
    """Mantissas with only their top ``bits`` bits random."""
    return rng.integers(0, 1 << bits, n).astype(U32) << U32(23 - bits)


def operands(rng, kind: int, n: int = 32, special: float = 0.15):
    """Three uint32 arrays of ``n`` FP32 patterns of the given kind (0 .. KINDS - 1), with
    a fraction ``special`` of each replaced by :data:`SPECIAL` values."""
    a, b, c = (rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(U32) for _ in range(3))
    sign = rng.integers(0, 2, (3, n)).astype(U32) << U32(31)
    if kind == 1:  # few mantissa bits: exact products, ties at FP32's last bit
        keep = U32(0xFFFF0000) << rng.integers(0, 9, (3, n)).astype(U32)
        a, b, c = a & keep[0], b & keep[1], c & keep[2]
    elif kind == 2:  # c ~ -(a * b): cancellation, results far below the operands
        a, b = _with_exponent(rng, a, 60, 190), _with_exponent(rng, b, 60, 190)
        with np.errstate(all="ignore"):
            prod = a.view(np.float32).astype(np.float64) * b.view(np.float32).astype(np.float64)
            c = (-prod).astype(np.float32).view(U32) ^ rng.integers(0, 64, n).astype(U32)
    elif kind == 3:  # exponent of c around p_e - 40 .. p_e + 30: alignment shifts of every size
        a, b = _with_exponent(rng, a, 90, 160), _with_exponent(rng, b, 90, 160)
        p_e = ((a >> 23) & 255).astype(np.int64) + ((b >> 23) & 255) - 127
        c = (c & U32(0x807FFFFF)) | ((p_e - rng.integers(-30, 41, n)).clip(1, 254).astype(U32) << 23)
    elif kind == 4:  # tiny products and addends: p_e < 0, results below 2**-126
        a, b = _with_exponent(rng, a, 1, 70), _with_exponent(rng, b, 1, 130)
        c = _with_exponent(rng, c, 0, 30)
    elif kind == 5:  # huge: products overflowing on their own, results rounding to infinity
        a, b = _with_exponent(rng, a, 120, 255), _with_exponent(rng, b, 120, 255)
        c = _with_exponent(rng, c, 200, 256)
    elif kind == 6:  # exact short products plus a full addend 0..6 binades below, same sign:
        # sums of 2**28 or more in the model's units, whose bits 1 and 0 come from the addend
        a = (rng.integers(120, 135, n).astype(U32) << 23) | _short(rng, n, 11) | sign[0]
        b = (rng.integers(120, 135, n).astype(U32) << 23) | _short(rng, n, 11) | sign[1]
        p_e = ((a >> 23) & 255).astype(np.int64) + ((b >> 23) & 255) - 127
        c = (((p_e - rng.integers(0, 7, n)).clip(1, 254).astype(U32) << 23) | (c & U32(0x7FFFFF))
             | ((a ^ b) & U32(1 << 31)))
    elif kind == 7:  # NaN / Inf operands (random payloads) with ordinary or small others
        nan = (U32(0x7F800000) | (rng.integers(0, 1 << 23, (3, n)).astype(U32) * (rng.random((3, n)) < 0.8))) | sign
        a, b, c = _with_exponent(rng, a, 0, 200), _with_exponent(rng, b, 60, 200), _with_exponent(rng, c, 0, 200)
        pick = rng.integers(0, 3, n)
        for i, v in enumerate((a, b, c)):
            v[pick == i] = nan[i][pick == i]
        both = rng.random(n) < 0.2
        c[both] = nan[2][both]
    elif kind == 8:  # results near 2**-126: 2**-127 .. 2**-125 (Wormhole rounds exponent 0 as normal)
        a = (U32(0x00800000) | _with_exponent(rng, a, 1, 3)) | sign[0]
        b = _with_exponent(rng, b, 125, 128)
        c = np.where(rng.random(n) < 0.5, sign[2], _with_exponent(rng, c, 0, 4)).astype(U32)
    elif kind == 9:  # BF16 operands with moderate exponents (what SFPU kernels see)
        a, b, c = (_with_exponent(rng, v, 100, 150) & U32(0xFFFF0000) for v in (a, b, c))
    pick = rng.random((3, n)) < special
    for v, p in zip((a, b, c), pick):
        v[p] = rng.choice(SPECIAL, int(p.sum()))
    return a, b, c
