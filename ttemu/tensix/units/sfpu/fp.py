"""Vector Unit numerics on raw 32-bit patterns (numpy uint32, one value per lane).

Pages: SFPMAD.md ("IEEE754 conformance / divergence"), FloatBitPatterns.md (FP32),
SFPLUT.md (``Lut8ToFp32``), SFPLUTFP32.md (``Lut16ToFp32``), SFPSWAP.md
(``SignMagIsSmaller``), VectorUnit.md (PRNG).

FP32 multiply-add model (SFPMAD and every instruction documented "as per SFPMAD"):

* inputs with exponent 0 (denormals, either zero) are read as zero of the same sign;
* NaN / infinity inputs follow IEEE 754 (``inf * 0``, ``inf - inf`` give NaN);
* the page says the product is kept "in higher precision than FP32, but not in the
  infinite precision required to be completely fused", then one round-to-nearest-even
  step. How much precision is kept is not documented, so this model keeps all of it:
  the exact ``a * b + c`` is rounded once (a true fused multiply-add). That is exact
  for everything the page pins down (``a * 1 + c`` and ``a * b + 0`` equal a standalone
  add / multiply), and can differ from hardware only in the last bit of results whose
  rounding depends on product bits below hardware's (unknown) intermediate width;
* a denormal result (after rounding) or a negative zero is written as +0;
* a NaN result is written as :data:`NAN_OUT` (the page only promises the mantissa LSB
  is set; this model always emits the same pattern).

The fused result is computed in float64: the 48-bit product of two FP32 values is
exact in float64, the sum is done with TwoSum and corrected to round-to-odd, and a
round-to-odd 53-bit value rounds to FP32 (24 bits, or fewer for denormals) exactly as
the infinitely precise value would.
"""

from __future__ import annotations

import numpy as np

U32 = np.uint32
#: The NaN the model writes for a NaN result of an arithmetic instruction (quiet NaN,
#: mantissa LSB set as SFPMAD.md promises).
NAN_OUT = 0x7FC00001
ONE = 0x3F800000


def daz(x: np.ndarray) -> np.ndarray:
    """Exponent-0 patterns (denormals, zeros) -> zero of the same sign (SFPMAD.md)."""
    return np.where((x & U32(0x7F800000)) == 0, x & U32(0x80000000), x).astype(U32)


def _f64(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=U32).view(np.float32).astype(np.float64)


_EXP = U32(0x7F800000)
_SIGN = U32(0x80000000)
_MAN = U32(0x7FFFFF)
_INF = np.inf


def fma(a, b, c) -> np.ndarray:
    """``a * b + c`` on FP32 bit patterns with the Vector Unit's conventions (module doc).
    Operands of one shape go through :func:`fma_rows` (the same numbers in fewer array
    operations), others through :func:`_fma`."""
    if (type(a) is np.ndarray and type(b) is np.ndarray and type(c) is np.ndarray
            and a.shape == b.shape == c.shape and a.ndim == 1):
        return fma_rows(np.concatenate((a, b, c)).astype(U32, copy=False).reshape(3, -1))
    return _fma(a, b, c)


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

#: the tie between the largest FP32 denormal and 2**-126 (FP32 ties further down round to
#: denormals either way, which are written as +0)
_DENORMAL_TIE = 2.0 ** -126 - 2.0 ** -150
_CONSTS: dict = {}  # lane count n -> fma_rows' constant arrays (exponent mask, ones, low bits)


def fma_rows(x) -> np.ndarray:
    """:func:`_fma` of ``x[0] * x[1] + x[2]`` (uint32 [3, n], not modified) in float64:
    DAZ (an operand with exponent 0 multiplied by 0: the sign of a flushed operand cannot
    reach the result, a zero result is written as +0), the exact product, the sum ``s``
    rounded to float64. Rounding ``s`` to FP32 gives the single rounding of the exact
    value ``v`` unless ``s`` is an FP32 tie and ``s != v`` (``s`` is the float64 nearest
    ``v``: it cannot be on the other side of a tie, which float64 represents), so
    only ties matter: between two normal FP32 values (low 29 fraction bits 0x10000000),
    or :data:`_DENORMAL_TIE` (a tie between two denormals is flushed to +0 either way).
    TwoSum's error term tells whether a tie is exact. A NaN ``s`` (from a NaN or
    infinity input) needs the careful form. Ties need the low 28 fraction bits zero, and
    are not FP32 values, so a lane with such bits or an ``s`` that FP32 represents needs
    no more checks; when no lane needs the careful form, ``s`` is rounded to FP32
    directly and a denormal or zero result written as +0; otherwise
    :func:`_fma_stacked` computes all lanes."""
    n = x.shape[1]
    k = _CONSTS.get(n)
    if k is None:
        k = _consts(n)
    if _FP_STATE is None:  # pragma: no cover
        with np.errstate(all="ignore"):
            return _fma_rows(x, n, k)
    token = _FP_STATE.set(_FP_QUIET)  # (signalling NaN inputs, overflow to infinity)
    try:
        return _fma_rows(x, n, k)
    finally:
        _FP_STATE.reset(token)


def _consts(n: int) -> tuple:
    """fma_rows' constant arrays for ``n`` lanes (a ufunc with an array operand of the
    same shape skips the conversion a Python scalar costs)."""
    exp3, ones3 = np.full((3, n), _EXP, dtype=U32), np.ones((3, n), dtype=U32)
    half = np.full(n, 0x10000000, dtype=np.uint64)
    k = _CONSTS[n] = (exp3, ones3, exp3[0], ones3[0], np.full(n, 0x0FFFFFFF, dtype=np.uint64),
                      np.full(n, 0x1FFFFFFF, dtype=np.uint64), half,
                      np.full((3, n), 0x00800000, dtype=U32), np.full((3, n), 0x7F000000, dtype=U32),
                      np.full((3, n), 0x7FFFFFFF, dtype=U32), np.full(n, 0x7F000000, dtype=U32))
    return k


_F32 = np.float32
_F64 = np.float64
_U64 = np.uint64


def _fma_rows(x, n, k):
    """:func:`fma_rows`' arithmetic, first the direct form: every operand is zero or has
    an exponent field of 1..254 (no denormal to flush, no NaN or infinity), the float64
    sum ``s`` is not an FP32 tie (its low 28 fraction bits are not all 0, or its low 29
    not 0x10000000: then the one rounding of ``s`` to FP32 is the rounding of the exact
    value, see :func:`fma_rows`), and the result's exponent field is at least 2 (no
    denormal or zero result to write as +0, and not 2**-126, which ``s`` may reach from
    below at :data:`_DENORMAL_TIE`; an overflow to infinity is the rounding's own). When
    one of these does not hold in some lane, :func:`_fma_rows_checked` computes all lanes."""
    ok3 = x + k[7]
    ok3 &= k[8]  # 0 for exponent field 0 (zero, denormal) or 255 (NaN, infinity)
    good = _count_nonzero(ok3)
    if good != 3 * n and _count_nonzero(x & k[9]) != good:  # not only (signed) zeros
        return _fma_rows_checked(x, n, k)
    f = x.view(_F32).astype(_F64)
    s = f[0] * f[1]
    s += f[2]
    bits = s.view(_U64)
    if _count_nonzero(bits & k[4]) != n:  # low 28 fraction bits 0 in some lane: exact, or a tie
        t = bits + k[6]
        t &= k[5]  # 0 where the low 29 fraction bits are 0x10000000 (a tie)
        if _count_nonzero(t) != n:
            return _fma_rows_checked(x, n, k)
    r = s.astype(_F32).view(U32)
    if _count_nonzero(r & k[10]) != n:  # exponent field 0 or 1
        return _fma_rows_checked(x, n, k)
    return r


def fma_rows_into(n: int):
    """A function ``fma(x)`` giving :func:`fma_rows` of ``x`` (uint32 [3, n], not
    modified) in fewer array operations, in arrays of its own: the result is only valid
    until its next call (copy it, or write it somewhere, at once).

    The direct form of :func:`_fma_rows`, with these differences. An operand with
    exponent field 255 (NaN, infinity) is not excluded up front: it makes the float64 sum
    ``s`` NaN or infinite, whose low 28 fraction bits are 0 (an FP32 NaN's payload lands
    above them), so the tie test's slow branch sees it. A lane on an FP32 tie is fine
    when ``s`` is exact there (TwoSum's error term 0: then ``s`` is the exact value, and
    rounding it is rounding that). A zero ``s`` (exact: float64 cannot underflow here) is
    written as +0. Any other lane failing a test hands all lanes to :func:`fma_rows`."""
    k = _CONSTS.get(n) or _consts(n)
    exp3, abs3, low28, low29, half, hi7 = k[0], k[9], k[4], k[5], k[6], k[10]
    n3 = 3 * n
    f = np.empty((3, n))
    fa, fb, fc = f
    p = np.empty(n)
    s = np.empty(n)
    bits = s.view(_U64)
    r = np.empty(n, dtype=_F32)
    rbits = r.view(U32)
    multiply, add, isfinite, band = np.multiply, np.add, np.isfinite, np.bitwise_and
    ex = np.empty((3, n), dtype=U32)
    low = np.empty(n, dtype=_U64)
    top = np.empty(n, dtype=U32)
    state, quiet = _FP_STATE, _FP_QUIET

    def fma(x):
        good = _count_nonzero(band(x, exp3, ex))
        if good != n3 and _count_nonzero(x & abs3) != good:  # a denormal operand (not only zeros)
            return fma_rows(x)
        token = state.set(quiet)  # (invalid operations on NaN / infinity, overflow to infinity)
        try:
            f[...] = x.view(_F32)
            multiply(fa, fb, p)
            add(p, fc, s)
            if _count_nonzero(band(bits, low28, low)) != n:  # exact, a tie, or not finite in some lane
                if _count_nonzero(isfinite(s)) != n:
                    return fma_rows(x)
                t = bits + half
                t &= low29
                if _count_nonzero(t) != n:  # a tie: the float64 sum must be exact there
                    bp = s - p
                    e = p - (s - bp)
                    e += fc - bp
                    if _count_nonzero(e[t == 0]):
                        return fma_rows(x)
            r[...] = s
        finally:
            state.reset(token)
        if _count_nonzero(band(rbits, hi7, top)) != n:  # exponent field 0 or 1
            zero = s == 0
            if _count_nonzero(rbits & hi7) + _count_nonzero(zero) != n:
                return fma_rows(x)
            rbits[zero] = 0  # (-0 as +0)
        return rbits

    if state is None:  # pragma: no cover - another numpy layout
        return fma_rows
    return fma


def _fma_rows_checked(x, n, k):
    """:func:`fma_rows`' arithmetic with the checks its docstring describes (the form
    :func:`_fma_rows` falls back to)."""
    exp3, ones3, exp1, ones1, low28, low29, half = k[:7]
    nz = x & exp3
    if _count_nonzero(nz) != 3 * n:  # some operand has exponent 0
        np.minimum(nz, ones3, out=nz)  # 0 for exponent 0, else 1
        nz *= x  # DAZ
        x_daz = nz
    else:
        x_daz = x
    f = x_daz.view(np.float32).astype(np.float64)
    p, c = f[0] * f[1], f[2]
    s = p + c
    bits = s.view(np.uint64)
    cut = bits & low28
    r = s.astype(np.float32)
    if _count_nonzero(cut) != n:  # some lane may be a tie (or exact, or not finite)
        fine = r.astype(np.float64) == s  # exact FP32 values (and infinities) round to themselves
        if _count_nonzero(fine) != n:
            fine |= cut != 0
            if _count_nonzero(fine) != n:
                mag = np.abs(s)
                if _count_nonzero(mag < _INF) != n:  # NaN or infinity
                    return _fma_stacked(x)
                tie = (bits & low29) == half  # a tie between two normal FP32 values
                tie |= mag == _DENORMAL_TIE
                if _count_nonzero(tie):
                    bp = s - p
                    e = (p - (s - bp)) + (c - bp)  # TwoSum: s + e is the exact sum
                    e *= tie
                    if _count_nonzero(e):
                        return _fma_stacked(x)
    r = r.view(U32)
    nz = r & exp1
    if _count_nonzero(nz) == n:
        return r
    np.minimum(nz, ones1, out=nz)
    nz *= r  # a denormal or -0 result -> +0
    return nz


def _fma_stacked(x) -> np.ndarray:
    """:func:`_fma` of ``x[0] * x[1] + x[2]`` (uint32 [3, n]): DAZ, the exact float64
    product and sum, TwoSum's error term; where it is non-zero and the sum's last bit is
    0 the sum moves one float64 ulp toward the exact value (a sticky bit, so that the
    rounding to FP32 is the single rounding of the exact result; skipped when every sum
    is exact); then flush, and NaN (a NaN float64 sum: the only source of FP32 NaN bits)."""
    x = np.where((x & _EXP) == 0, x & _SIGN, x)
    with np.errstate(all="ignore"):
        fa, fb, fc = x.view(np.float32).astype(np.float64)
        p = fa * fb
        s = p + fc
        bp = s - p
        e = (p - (s - bp)) + (fc - bp)
        fix = e != 0  # (NaN where s is not finite)
        if np.logical_or.reduce(fix):
            fix &= np.isfinite(s) & ((s.view(np.uint64) & np.uint64(1)) == 0)
            s = np.where(fix, np.nextafter(s, np.copysign(_INF, e)), s)
        r = s.astype(np.float32).view(U32)
    r = np.where((r & _EXP) == 0, U32(0), r)  # denormal or -0 -> +0
    return np.where(np.isnan(s), U32(NAN_OUT), r)


def _fma_stacked_plain(x) -> np.ndarray:
    """:func:`_fma_stacked` step by step (tests compare the two)."""
    x = np.where((x & _EXP) == 0, x & _SIGN, x)
    with np.errstate(all="ignore"):
        fa, fb, fc = x.view(np.float32).astype(np.float64)
        p = fa * fb
        s = p + fc
        bp = s - p
        e = (p - (s - bp)) + (fc - bp)
        fix = np.isfinite(s) & (e != 0) & ((s.view(np.uint64) & np.uint64(1)) == 0)
        s = np.where(fix, np.nextafter(s, np.copysign(_INF, e)), s)
        r = s.astype(np.float32).view(U32)
    exp = r & _EXP
    r = np.where(exp == 0, U32(0), r)  # denormal or -0 -> +0
    return np.where((exp == _EXP) & ((r & _MAN) != 0), U32(NAN_OUT), r)


def _fma(a, b, c) -> np.ndarray:
    """``a * b + c`` on FP32 bit patterns (the reference form of :func:`fma`)."""
    a = daz(np.asarray(a, dtype=U32))
    b = daz(np.asarray(b, dtype=U32))
    c = daz(np.asarray(c, dtype=U32))
    with np.errstate(all="ignore"):
        fa, fb, fc = _f64(a), _f64(b), _f64(c)
        p = fa * fb  # exact: 24 x 24 bit significands, exponents within float64 range
        s = p + fc
        # TwoSum: s + e == p + c exactly (finite operands, no overflow possible here).
        bp = s - p
        e = (p - (s - bp)) + (fc - bp)
        sb = s.view(np.uint64)
        fix = np.isfinite(s) & (e != 0) & ((sb & np.uint64(1)) == 0)
        toward_larger = (e > 0) == (s > 0)  # s nonzero whenever e is nonzero
        one = np.uint64(1)
        sb = np.where(fix, np.where(toward_larger, sb + one, sb - one), sb)
        r = sb.view(np.float64).astype(np.float32).view(U32)
    exp = r & U32(0x7F800000)
    r = np.where(exp == 0, U32(0), r)  # denormal or -0 -> +0
    r = np.where((exp == U32(0x7F800000)) & ((r & U32(0x7FFFFF)) != 0), U32(NAN_OUT), r)
    return r.astype(U32)


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
