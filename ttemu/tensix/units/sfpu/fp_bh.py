"""Blackhole Vector Unit numerics on raw 32-bit patterns (numpy, one value per lane).

Pages (tt-isa-documentation, BlackholeA0/TensixTile/TensixCoprocessor/): SFPMAD.md
("IEEE754 conformance / divergence", which links the bit-perfect model
Miscellaneous/FMA/README.md ``fma_model_bh``), SFPMUL24.md (``Mul24ShiftAdd``),
SFPARECIP.md (``ApproxRecip`` / ``ApproxExp``).

Blackhole's multiply-add (:func:`fma_bh`), as the FMA page describes it:

* denormal inputs are read as zero of the same sign;
* NaN / infinity inputs follow IEEE 754; a NaN result is always 0x7fc00000;
* the 48-bit product is cut to 26 bits (a sticky bit for the 23 it drops) before the
  add, so it has three bits more than FP32 below and one above, and is not rounded;
* a product that overflows on its own gives infinity; one that underflows on its own
  (biased exponent below 0 after realignment) counts as exactly zero;
* the sum is aligned with a "semi-sticky" shift (the sticky bit is only kept when some
  bits survive), normalised, rounded once to nearest even;
* a result that is denormal after rounding is flushed to zero keeping its sign; an
  exactly-zero sum is ``-0`` only when both the product and the addend are negative.
"""

from __future__ import annotations

import numpy as np

from ....arch.tables.blackhole_sfparecip import EXP_LUT, RECIP_LUT
from .fp import _FP_QUIET, _FP_STATE, _count_nonzero, clz32

U32 = np.uint32
I64 = np.int64
NAN_BH = 0x7FC00000
_M32 = 0xFFFFFFFF
_RECIP = np.array(RECIP_LUT, dtype=np.int64)
_EXP = np.array(EXP_LUT, dtype=np.int64)


def _semi_sticky_shift(v, s):
    """``v >> s``, OR-ing in a sticky 1 when bits were lost, but only if the result is
    non-zero (``s`` may exceed 63: then 0). ``v`` < 2**32, int64 arrays."""
    s = np.minimum(s, 40)
    r = v >> s
    lost = (r << s) != v
    return np.where(r != 0, r | lost.astype(I64), r)


_EXP_BITS = np.array(0x7F800000, dtype=U32)
_TWO53 = 2.0 ** 53
_MAGIC = 1.5 * 2.0 ** 53  # x + _MAGIC - _MAGIC: the even integer nearest x (|x| < 2**52)
_TWO26 = 2.0 ** 26
_TINY = 2.0 ** -900
_LOW = np.array((np.float64(2.0 ** -126).view(np.uint64) << np.uint64(1)) - np.uint64(2), dtype=np.uint64)
_ONE_U64 = np.array(1, dtype=np.uint64)
_TWO_U64 = np.array(2, dtype=np.uint64)


def fma_bh(x, y, z) -> np.ndarray:
    """:func:`fma_bh_plain` in float64 (the same bits in far fewer array operations).

    With ``G = 2**(max(p_e, z_e) - 127)`` (``p_e`` the product's biased exponent from the
    operands' fields) the model's sum is, in units of ``g = G * 2**-26``,
    ``S = RO(P / g) + RO(C / g)``: ``P`` the exact product, ``C`` the addend, ``RO`` the
    semi-sticky cut (truncate the magnitude; an inexact non-zero result gets its last bit
    set; what truncates to zero is zero). Cutting ``P`` to 26 fraction bits and then to
    ``g`` is one cut to ``g``. ``RO`` of a magnitude ``q``: ``E`` the nearest even integer,
    ``E + sign(q - E)`` (the odd neighbour, or ``q`` itself when exact), with the sign
    capped by ``floor(q)`` (zero below one). ``|S| < 2**29`` is exact in float64, and
    rounding it once to FP32 is the model's normalise-and-round (a sticky shift by at most
    two keeps three bits below FP32's, which preserves round-to-nearest-even). Operands
    that are denormal (exponent field 0) and a product with ``p_e < 0`` are multiplied by
    zero, keeping their signs, so signed zeros come out as the model's (``-0`` only when
    both parts are ``-0``).
    Lanes with NaN / infinity inputs or a product overflowing on its own (``G >= 2**128``),
    and results below ``2**-126`` (the model's denormal path) are computed by
    :func:`fma_bh_plain` when there are any."""
    if not (type(x) is np.ndarray and type(y) is np.ndarray and type(z) is np.ndarray
            and x.ndim == 1 and x.shape == y.shape == z.shape):
        x, y, z = np.broadcast_arrays(np.asarray(x, dtype=U32), np.asarray(y, dtype=U32), np.asarray(z, dtype=U32))
        return fma_bh(x.ravel(), y.ravel(), z.ravel()).reshape(x.shape)
    return fma_bh_rows(np.concatenate((x, y, z)).astype(U32, copy=False).reshape(3, -1))


def fma_bh_rows(w) -> np.ndarray:
    """:func:`fma_bh` of ``w[0] * w[1] + w[2]`` (uint32 [3, n], not modified)."""
    if _FP_STATE is None:  # pragma: no cover
        with np.errstate(all="ignore"):
            r = _fma_bh_direct(w)
            return _fma_bh_rows(w) if r is None else r
    token = _FP_STATE.set(_FP_QUIET)
    try:
        r = _fma_bh_direct(w)
        return _fma_bh_rows(w) if r is None else r
    finally:
        _FP_STATE.reset(token)


def _consts(n: int) -> tuple:
    """:func:`_fma_bh_rows`' constants as arrays of its shapes (a ufunc with an array
    operand of the same shape skips the conversion a Python scalar costs)."""
    k = _CONSTS.get(n)
    if k is None:
        k = _CONSTS[n] = (np.full(n, 2.0 ** 128), np.full(n, _TINY), np.full(n, _TWO26),
                          np.array([[2.0 ** 127] * n, [2.0 ** 126] * n]), np.full((2, n), _TWO53),
                          np.full(n, 1, dtype=np.uint64), np.full(n, 2, dtype=np.uint64), np.full(n, _LOW),
                          np.full((3, n), 0x7F800000, dtype=U32), np.full((3, n), 0x7FFFFFFF, dtype=U32),
                          np.full(n, 2.0 ** -127), np.full(n, 0x7F000000, dtype=U32), np.full((2, n), _MAGIC),
                          np.ones((2, n)))
    return k


_CONSTS: dict = {}  # lane count n -> _consts(n)


def _fma_bh_direct(w):
    """:func:`_fma_bh_rows` in fewer array operations where its special steps change
    nothing, else None: no operand is a denormal, NaN or infinity, no product overflows
    on its own (``ok`` in every lane), every product whose ``2**(p_e - 127)`` is below
    ``2**-127`` is zero (the flush step multiplies by 1, or a signed zero by 0), and every
    result has an exponent field of 2 or more (``|S|`` is at least 2**-126, no lane for
    :func:`fma_bh_plain`, and the signs of zero parts do not show). Then ``RO`` is taken
    on the signed parts ``v`` (``P / g``, ``C / g``): ``E`` the even integer nearest ``v``
    (``v + 1.5 * 2**53 - 1.5 * 2**53``, exact for ``|v| < 2**29``), ``RO(v) = E + sign(v -
    E)``, which is the odd neighbour of ``v`` or ``v`` itself, the same as on the magnitude
    with the sign put back; and 0 where ``0 < |v| < 1`` (then ``E`` is 0 and the sign is
    multiplied by ``min(|trunc(v)|, 1)`` = 0, the semi-sticky cut), when there is such a
    lane."""
    n = w.shape[1]
    huge, tiny, two26, _, _, _, _, _, exp3, abs3, p_low, hi7, magic, one2 = _CONSTS.get(n) or _consts(n)
    ex = w & exp3
    good = _count_nonzero(ex)
    if good != 3 * n and _count_nonzero(w & abs3) != good:  # a denormal operand
        return None
    f = w.view(np.float32).astype(np.float64)
    g = ex.view(np.float32).astype(np.float64)  # 2**(e - 127); 0 for e = 0
    f[1] *= f[0]  # P (exact)
    g[1] *= g[0]  # 2**(p_e - 127)
    big = np.maximum(g[1], g[2])
    if _count_nonzero(big < huge) != n:  # NaN / infinity, a product overflowing on its own
        return None
    under = _count_nonzero(g[1] < p_low)  # p_e < 0, or a zero factor
    if under and under != _count_nonzero(f[1] == 0):
        return None
    inv = two26 / np.maximum(big, tiny)  # 1 / g
    v = f[1:] * inv  # P / g, C / g
    t = np.trunc(v)
    e = v + magic
    e -= magic
    s = np.sign(v - e)
    if _count_nonzero(t) != _count_nonzero(v):  # 0 < |v| < 1 somewhere: RO(v) = 0 there
        s *= np.minimum(np.abs(t), one2)
    e += s
    total = e[0] + e[1]
    total /= inv
    r = total.astype(np.float32).view(U32)
    if _count_nonzero(r & hi7) != n:  # exponent field 0 or 1
        return None
    return r


def fma_bh_rows_into(n: int):
    """A function ``fma(w)`` giving :func:`fma_bh_rows` of ``w`` (uint32 [3, n], not
    modified): :func:`_fma_bh_direct`'s steps on arrays of its own, made once (no views,
    rows or results to allocate per call), else :func:`_fma_bh_rows`. The result may be
    one of those arrays: it is only valid until the next call.

    Beyond :func:`_fma_bh_direct`: the two parts are scaled row by row (a ufunc
    broadcasting ``1 / g`` over both rows costs three times a row's), and a result of
    exactly zero is kept where the product is not zero. Then both parts are non-zero
    (the dominant one is at least ``2**26`` in units of ``g``), ``S`` is 0 only when
    their ``RO`` values cancel, and the model's exact cancellation gives ``+0`` (the
    sign of a zero sum is the AND of the parts' signs, which differ), as float64's
    ``a + -a`` does. Any other result with an exponent field of 0 or 1 (a zero sum of
    zero parts, whose sign the model takes from them; a denormal) still falls back. A
    part with ``0 < |v| < 1`` is looked for where ``E`` is 0 and ``v`` is not (``|v| <=
    1``; ``trunc`` only then), not by truncating every time. The range tests on ``g``
    (below ``2**128``) and on the product's scale (``p_e >= 0``) are one ufunc call on two
    rows (``lo < hi``)."""
    _, tiny, two26, _, _, _, _, _, exp3, abs3, _, hi7, magic, one2 = _CONSTS.get(n) or _consts(n)
    n3 = 3 * n
    f32 = np.dtype(np.float32)
    ex = np.empty((3, n), dtype=U32)
    exf = ex.view(np.float32)
    f = np.empty((3, n))
    g = np.empty((3, n))
    f0, f1, f2 = f
    g0, g1, g2 = g
    lo = np.array([[0.0] * n, [1.5 * 2.0 ** -128] * n])  # big, and below the smallest product scale
    hi = np.array([[2.0 ** 128] * n, [0.0] * n])  # above the largest scale, and the product's
    big, gp = lo[0], hi[1]
    inside = np.empty((2, n), dtype=bool)
    inv = np.empty(n)
    flag = np.empty(n, dtype=bool)
    zero = np.empty(n, dtype=bool)
    v = np.empty((2, n))
    v0, v1 = v
    t = np.empty((2, n))
    e = np.empty((2, n))
    sg = np.empty((2, n))
    e0, e1 = e
    total = np.empty(n)
    r = np.empty(n, dtype=np.float32)
    rbits = r.view(U32)
    low = np.empty(n, dtype=U32)
    band, mul, maximum, less, equal, not_equal, divide = (np.bitwise_and, np.multiply, np.maximum, np.less,
                                                          np.equal, np.not_equal, np.divide)
    trunc, add, subtract, sign, cnt = np.trunc, np.add, np.subtract, np.sign, _count_nonzero
    state, quiet = _FP_STATE, _FP_QUIET  # (ufuncs below take their out argument positionally, but maximum)

    def fma(w):
        token = state.set(quiet)
        try:
            band(w, exp3, ex)
            good = cnt(ex)
            if good != n3 and cnt(w & abs3) != good:  # a denormal operand
                return _fma_bh_rows(w)
            f[...] = w.view(f32)
            g[...] = exf  # 2**(e - 127); 0 for e = 0
            mul(f0, f1, f1)  # P (exact)
            mul(g0, g1, gp)  # 2**(p_e - 127)
            maximum(gp, g2, out=big)
            if cnt(less(lo, hi, inside)) != 2 * n:  # big < 2**128 and p_e >= 0 in every lane, else:
                if cnt(inside[0]) != n:  # NaN / infinity, a product overflowing alone
                    return _fma_bh_rows(w)
                if n - cnt(inside[1]) != cnt(equal(f1, 0.0, flag)):  # p_e < 0 (or NaN) but P != 0
                    return _fma_bh_rows(w)
                maximum(big, tiny, out=big)  # (zero factors: g = 0 where the addend is zero too)
            divide(two26, big, inv)  # 1 / g
            mul(f1, inv, v0)  # P / g
            mul(f2, inv, v1)  # C / g
            add(v, magic, e)
            subtract(e, magic, e)  # the even integer nearest v
            subtract(v, e, sg)
            sign(sg, sg)
            if cnt(e) != cnt(v):  # 0 < |v| <= 1 somewhere (E = 0 there): RO(v) = 0 where |v| < 1
                mul(sg, np.minimum(np.abs(trunc(v, t)), one2), sg)
            add(e, sg, e)
            add(e0, e1, total)
            divide(total, inv, total)
            r[...] = total
            if cnt(band(rbits, hi7, low)) != n:  # exponent field 0 or 1: only exact cancellations of P != 0
                equal(total, 0.0, zero)
                if cnt(low) + cnt(zero) != n or cnt(zero) != cnt(not_equal(f1, 0.0, flag) & zero):
                    return _fma_bh_rows(w)
            return rbits
        finally:
            state.reset(token)

    if state is None:  # pragma: no cover - another numpy layout
        return fma_bh_rows
    return fma


def _fma_bh_rows(w) -> np.ndarray:
    """:func:`fma_bh` on rows (the module's formulation; tests/test_bh_sfpu_fma_fast.py
    keeps its previous spellings as references, bit for bit).

    Two steps are skipped where they change nothing, tested first: the flush of
    underflowing products and denormal addends (the multiplication by ``sign(floor(..))``
    is by 1, or by 0 where the part is already a signed zero, when no operand is a
    denormal and every product whose ``2**(p_e - 127)`` is below ``2**-127`` is zero);
    and the search for lanes :func:`fma_bh_plain` computes (none when every lane is
    ``ok`` and every result has an exponent field of 2 or more, so ``|S| >= 2**-126``).
    """
    n = w.shape[1]
    huge, tiny, two26, keep_at, two53, one, two, low, exp3, abs3, p_low, hi7 = (_CONSTS.get(n) or _consts(n))[:12]
    ex = w & exp3
    f = w.view(np.float32).astype(np.float64)
    g = ex.view(np.float32).astype(np.float64)  # 2**(e - 127); 0 for e = 0
    f[1] *= f[0]  # P (exact)
    g[1] *= g[0]  # 2**(p_e - 127)
    big = np.maximum(g[1], g[2])
    ok = big < huge  # no NaN / infinity input, no product overflowing on its own
    inv = two26 / np.maximum(big, tiny)  # 1 / g
    v = f[1:]  # P, C
    good = _count_nonzero(ex)
    flush = good != 3 * n and _count_nonzero(w & abs3) != good  # a denormal operand
    if not flush:
        under = _count_nonzero(g[1] < p_low)  # p_e < 0, or a zero factor
        flush = under and under != _count_nonzero(v[0] == 0)
    if flush:  # p_e < 0 (2**p_e < 1) and denormal addends (0 < 2**(e - 126) < 1): signed zeros
        v *= np.sign(np.floor(g[1:] * keep_at))
    q = np.abs(v)
    q *= inv
    e = q + two53
    e -= two53  # nearest even integer
    s = np.minimum(np.sign(q - e), np.floor(q))  # semi-sticky: nothing below one
    e += s
    e = np.copysign(e, v)
    total = e[0] + e[1]
    total /= inv
    r = total.astype(np.float32).view(U32)
    if _count_nonzero(ok) == n and _count_nonzero(r & hi7) == n:
        return r
    key = total.view(np.uint64) << one
    key -= two
    flag = np.less_equal(ok, key < low)  # special, or 0 < |S| < 2**-126
    if _count_nonzero(flag):
        r = np.where(flag, fma_bh_plain(w[0], w[1], w[2]), r)
    return r


def fma_bh_plain(x, y, z) -> np.ndarray:
    """``x * y + z`` on FP32 bit patterns as Blackhole's SFPMAD computes it (module doc),
    step by step on the integer fields (the reference form of :func:`fma_bh`).
    The rare paths (NaN / infinity, an underflowing product, exact cancellation, overflow,
    denormal results) are only evaluated when some lane takes them."""
    v = np.stack(np.broadcast_arrays(np.asarray(x, dtype=U32), np.asarray(y, dtype=U32),
                                     np.asarray(z, dtype=U32))).astype(I64)
    e = (v >> 23) & 255
    m = np.where(e == 0, 0, (v & 0x7FFFFF) | 0x800000)
    x, y, z = v
    x_e, y_e, z_e = e
    x_m, y_m, z_m = m
    z_m = z_m << 3
    z_sign = z & 0x80000000
    p_sign = (x ^ y) & 0x80000000
    p_m = (x_m * y_m) << 3  # < 2**51
    p_m = (p_m >> 23) | ((p_m & 0x7FFFFF) != 0)
    p_e = x_e + y_e - 127

    # align (the operand with the smaller exponent shifts right, semi-sticky), add
    d = p_e - z_e
    zero_p = (p_m == 0) | (p_e < 0)  # the product is zero or underflows on its own
    p_m = _semi_sticky_shift(p_m, np.maximum(-d, 0))
    z_m2 = _semi_sticky_shift(z_m, np.maximum(d, 0))
    r_e = np.maximum(p_e, z_e)
    p_big = p_m >= z_m2
    r_sign = np.where(p_big, p_sign, z_sign)
    r_m = np.where(p_sign == z_sign, p_m + z_m2, np.abs(p_m - z_m2))
    cancel = r_m == 0
    # normalise to 5 zero bits, a one, 26 fraction bits; round to nearest even
    n = 5 - clz32(r_m.astype(U32))
    r_e = r_e + n
    low = r_e <= 0
    any_low = low.any()
    if any_low:
        n = np.where(low, n + 1, n)
        r_e = np.where(low, 0, r_e)
    right = (r_m >> np.clip(n, 0, 31)) | ((r_m & (n | 1)) != 0)
    r_m = np.where(n <= 0, (r_m << np.clip(-n, 0, 31)) & _M32, right)
    r = (r_e << 23) + ((r_m >> 3) & 0x7FFFFF)
    r = r + (((r_m & 7) + (r & 1)) > 4)
    if any_low:
        r = np.where((r >> 23) == 0, 0, r)  # denormal after rounding: signed zero
    out = r_sign | r

    over = r_e >= 255
    if over.any():
        out = np.where(over, r_sign | 0x7F800000, out)
    if cancel.any():
        out = np.where(cancel, z_sign & p_sign, out)
    if zero_p.any():  # the addend (or a signed zero)
        out = np.where(zero_p, np.where(z_m != 0, z, z_sign & p_sign), out)
    # NaN / infinity inputs, or a product that overflows on its own
    inf = e == 255
    special = inf.any(axis=0) | (p_e >= 255)
    if special.any():
        x_inf, y_inf, z_inf = inf
        nan = ((x_inf & ((x_m != 0x800000) | (y_m == 0))) | (y_inf & ((y_m != 0x800000) | (x_m == 0)))
               | (z_inf & (z_m != 0x4000000)) | (z_inf & (x_inf | y_inf) & (z_sign != p_sign)))
        out = np.where(special, np.where(nan, NAN_BH, np.where(z_inf, z, p_sign | 0x7F800000)), out)
    return out.astype(U32)


def mul24(a, b, c, upper: bool) -> np.ndarray:
    """SFPMUL24.md: the low 23 bits of the 23-bit mantissa product (``upper``: bits 45:23
    of it), then ``Mul24ShiftAdd`` with the FP32 ``c``."""
    a = np.asarray(a, dtype=U32).astype(I64)
    b = np.asarray(b, dtype=U32).astype(I64)
    z = np.asarray(c, dtype=U32).astype(I64)
    if upper:
        p_m = ((a & 0x7FFFFF) * (b & 0x7FFFFF)) >> 23
    else:
        p_m = ((a * b) & _M32) & 0x7FFFFF
    z_e = (z >> 23) & 0xFF
    p_e = 129
    r_e = np.maximum(p_e, z_e)
    s = (r_e - z_e) & 31
    z_m_grs = ((1 << 23) + (z & 0x7FFFFF)) << 3
    p_sh = p_m >> ((r_e - p_e) & 31)
    z_m = z_m_grs >> s
    added = p_sh + z_m + ((((z_m << s) ^ z_m_grs) > 0xFFFF).astype(I64) << 16)
    added &= 0x7FFFFF
    out = np.where(z_e == 0, p_m, np.where(z_m != 0, added, p_sh))
    return out.astype(U32)


def approx_recip(x) -> np.ndarray:
    """SFPARECIP.md ``ApproxRecip`` of non-negative FP32 patterns."""
    x = np.asarray(x, dtype=U32).astype(I64)
    mid = ((253 - (x >> 23)) << 23) | (_RECIP[(x >> 16) & 0x7F] << 16)
    out = np.where(x < 0x00800000, 0x7F800000, np.where(x < 0x7E800000, mid, 0))
    return out.astype(U32)


def approx_exp(x) -> np.ndarray:
    """SFPARECIP.md ``ApproxExp`` of non-negative FP32 patterns."""
    x = np.asarray(x, dtype=U32).astype(I64)
    low16 = x & 0xFFFF
    idx = np.clip((x >> 16) - 0x3C80, 0, len(_EXP) - 1)
    lut = _EXP[idx] << 16
    out = np.where(x < 0x00800000, 0x3F800000,
                   np.where(x < 0x3C800000, 0x3F810000 | low16,
                            np.where(x < 0x3F320000, 0x3F800000 | lut | low16,
                                     np.where(x < 0x40000000, 0x40000000 | lut | low16, 0x40800000 | low16))))
    return out.astype(U32)
