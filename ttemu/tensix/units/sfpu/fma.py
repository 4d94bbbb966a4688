"""The Vector Unit's FP32 multiply-add on raw bit patterns (numpy, one value per lane), both
arches: SFPMAD and every instruction documented "as per SFPMAD" (SFPADD, SFPMUL,
SFPADDI, SFPMULI, SFPLUT, SFPLUTFP32).

Pages (tt-isa-documentation): WormholeB0 and BlackholeA0 TensixTile/TensixCoprocessor/
SFPMAD.md ("IEEE754 conformance / divergence"), which link the bit-perfect models of
Miscellaneous/FMA/README.md, ``fma_model_wh`` and ``fma_model_bh``; ttsim runs the same
two models. Each arch's step-by-step form here (:func:`fma_wh_plain`, :func:`fma_bh_plain`)
follows its model on the integer fields; the float64 forms (:func:`fma`, :func:`fma_rows`,
:func:`fma_rows_into`, given an arch's :class:`Rules`) give the same bits in far fewer
array operations.

Both arches (the README's differences from an IEEE 754 fused multiply-add):

* denormal inputs are read as zero;
* the 48-bit product is cut to 26 fraction bits with a sticky bit for the 23 it drops
  (three bits more than FP32 below, one above) before the add, and is not rounded;
* a product that overflows on its own is infinite; one that underflows on its own
  (biased exponent below 0) counts as exactly zero (the result is the addend);
* the addend and the product are aligned with a "semi-sticky" shift (the sticky bit is
  only kept when some bits survive), added, normalised, rounded once to nearest even.

Blackhole: a NaN result is always 0x7fc00000; a result that is denormal after rounding is
flushed to zero keeping its sign; an exactly-zero sum is ``-0`` only when both the
product and the addend are negative.

Wormhole (the README's differences between ``fma_model_wh`` and ``fma_model_bh``):

* every zero result is ``+0``;
* a NaN result has at least 0x7f800001 set, with the product's sign (the addend's when
  the addend is the NaN), and the computation goes on with the NaN or infinite
  operand's fields as if they were a number: the bits it gives are OR-ed in;
* a product that overflows on its own plus an infinity of the other sign is NaN;
* normalising a sum of ``2**28`` or more (a shift right by two) drops the higher of the
  two bits shifted out instead of folding it into the sticky bit (a hardware bug);
* a sum whose normalised exponent is below 0 is flushed to ``+0`` before rounding;
  exponent 0 is rounded as if it were normal and flushed unless it rounds up to
  ``2**-126``.
"""

from __future__ import annotations

import numpy as np

from .fp import _FP_QUIET, _FP_STATE, _count_nonzero, clz32

U32 = np.uint32
I64 = np.int64
U64 = np.uint64
SIGN = 0x80000000
NAN_BH = 0x7FC00000
_M32 = 0xFFFFFFFF


# -- the models, step by step on the integer fields (reference forms) --------------------

def _operands(x, y, z):
    """The three operands' fields as int64 arrays (broadcast together): (biased exponents
    [3, ...], the mantissas of x and y with the implicit bit (0 for exponent 0), z's with
    three more bits, z's bits, z's sign, the product's sign, the product's mantissa with
    three extra bits cut to 26 fraction bits (a sticky bit for the 23 dropped: < 2**28),
    its biased exponent)."""
    v = np.stack(np.broadcast_arrays(np.asarray(x, dtype=U32), np.asarray(y, dtype=U32),
                                     np.asarray(z, dtype=U32))).astype(I64)
    e = (v >> 23) & 255
    x_m, y_m, z_m = np.where(e == 0, 0, (v & 0x7FFFFF) | 0x800000)
    x, y, z = v
    p_m = (x_m * y_m) << 3  # < 2**51
    p_m = (p_m >> 23) | ((p_m & 0x7FFFFF) != 0)
    return e, x_m, y_m, z_m << 3, z, z & SIGN, (x ^ y) & SIGN, p_m, e[0] + e[1] - 127


def _semi_sticky_shift(v, s):
    """``v >> s``, OR-ing in a sticky 1 when bits were lost, but only if the result is
    non-zero (``s`` may exceed 63: then 0). ``v`` < 2**32, int64 arrays."""
    s = np.minimum(s, 40)
    r = v >> s
    lost = (r << s) != v
    return np.where(r != 0, r | lost.astype(I64), r)


def _add_aligned(p_m, p_e, p_sign, z_m, z_e, z_sign):
    """Both parts shifted (semi-sticky) to the larger exponent and added: (sign,
    magnitude, exponent) of the sum."""
    d = p_e - z_e
    p_m = _semi_sticky_shift(p_m, np.maximum(-d, 0))
    z_m = _semi_sticky_shift(z_m, np.maximum(d, 0))
    r_sign = np.where(p_m >= z_m, p_sign, z_sign)
    r_m = np.where(p_sign == z_sign, p_m + z_m, np.abs(p_m - z_m))
    return r_sign, r_m, np.maximum(p_e, z_e)


def _assemble(r_e, r_m):
    """The FP32 exponent and mantissa of a normalised sum (a one at bit 26, three bits
    below FP32's), rounded to nearest even."""
    r = (r_e << 23) + ((r_m >> 3) & 0x7FFFFF)
    return r + (((r_m & 7) + (r & 1)) > 4)


def fma_wh_plain(x, y, z) -> np.ndarray:
    """``x * y + z`` on FP32 bit patterns as Wormhole's SFPMAD computes it (module doc),
    step by step on the integer fields (the reference form of :data:`WORMHOLE`'s float64
    forms)."""
    e, x_m, y_m, z_m, z, z_sign, p_sign, p_m, p_e = _operands(x, y, z)
    z_e = e[2]

    # NaN / infinity inputs, a product overflowing on its own: the NaN's bits (0: none)
    x_inf, y_inf, z_inf = e == 255
    p_inf = p_e >= 255
    z_is_inf = z_inf & (z_m == 0x4000000)
    nan_p = ((x_inf & ((x_m != 0x800000) | (y_m == 0))) | (y_inf & ((y_m != 0x800000) | (x_m == 0)))
             | (z_is_inf & (x_inf | y_inf | p_inf) & (z_sign != p_sign)))
    nan = np.where(nan_p, p_sign | 0x7F800001, np.where(z_inf & ~z_is_inf, z_sign | 0x7F800001, 0))
    is_nan = nan != 0
    inf_out = (x_inf | y_inf | z_inf | p_inf) & ~is_nan  # an infinite result: the addend's or the product's
    p_e = np.minimum(p_e, 255)

    # a zero product, or one underflowing on its own: the addend (a NaN goes on with zero)
    zero_p = (p_m == 0) | (p_e < 0)
    p_m = np.where(zero_p, 0, p_m)
    p_e = np.where(zero_p, 0, p_e)

    r_sign, r_m, r_e = _add_aligned(p_m, p_e, p_sign, z_m, z_e, z_sign)
    cancel = r_m == 0
    n = 5 - clz32(r_m.astype(U32))  # normalise: five zero bits, a one, 26 fraction bits
    r_e = r_e + n
    right = (r_m >> np.clip(n, 0, 31)) | (r_m & 1)  # (a shift by two loses bit 1)
    r_m = np.where(n <= 0, (r_m << np.clip(-n, 0, 31)) & _M32, right)
    r = _assemble(r_e, r_m)
    out = np.where(is_nan, nan, r_sign) | r
    out = np.where((r_e < 0) | ((r >> 23) == 0), nan, out)  # flushed before or after rounding
    out = np.where(r_e >= 255, np.where(is_nan, nan, r_sign | 0x7F800000), out)
    out = np.where(cancel, nan, out)
    out = np.where(zero_p & ~is_nan, np.where(z_m != 0, z, 0), out)
    out = np.where(inf_out, np.where(z_inf, z, p_sign | 0x7F800000), out)
    return out.astype(U32)


def fma_bh_plain(x, y, z) -> np.ndarray:
    """``x * y + z`` on FP32 bit patterns as Blackhole's SFPMAD computes it (module doc),
    step by step on the integer fields (the reference form of :data:`BLACKHOLE`'s float64
    forms). The rare paths (NaN / infinity, an underflowing product, exact cancellation,
    overflow, denormal results) are only evaluated when some lane takes them."""
    e, x_m, y_m, z_m, z, z_sign, p_sign, p_m, p_e = _operands(x, y, z)
    z_e = e[2]
    zero_p = (p_m == 0) | (p_e < 0)  # the product is zero or underflows on its own

    r_sign, r_m, r_e = _add_aligned(p_m, p_e, p_sign, z_m, z_e, z_sign)
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
    r = _assemble(r_e, r_m)
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


# -- the float64 forms -------------------------------------------------------------------

class Rules:
    """What an arch's multiply-add does where the float64 forms below cannot follow it
    with one rounding of a float64 sum: its step-by-step form (``plain``, for the lanes
    they hand over), whether normalising by two drops bit 1 (``drop_bit1``, Wormhole),
    whether every zero result is ``+0`` (``plus_zero``, Wormhole; Blackhole's zero sums
    take their signs from the parts, as float64's do)."""

    __slots__ = ("name", "plain", "drop_bit1", "plus_zero")

    def __init__(self, name, plain, drop_bit1: bool, plus_zero: bool):
        self.name, self.plain, self.drop_bit1, self.plus_zero = name, plain, drop_bit1, plus_zero

    def __repr__(self):
        return f"Rules({self.name})"


WORMHOLE = Rules("wormhole_b0", fma_wh_plain, True, True)
BLACKHOLE = Rules("blackhole", fma_bh_plain, False, False)

_TWO53 = 2.0 ** 53
_MAGIC = 1.5 * 2.0 ** 53  # x + _MAGIC - _MAGIC: the even integer nearest x (|x| < 2**52)
_TWO26 = 2.0 ** 26
_TINY = 2.0 ** -900
_LOW = np.array((np.float64(2.0 ** -126).view(U64) << U64(1)) - U64(2), dtype=U64)
#: a float64 integer S with 2**28 <= |S| < 2**29 and S mod 64 == 18: its exponent field and
#: the fraction bits holding S's bits 5..0 (fraction bits 29..24), and their values then
_BIT1_MASK = np.array((0x7FF << 52) | (0x3F << 24), dtype=U64)
_BIT1_HIT = np.array(((1023 + 28) << 52) | (18 << 24), dtype=U64)


def _drop_bit1(total) -> None:
    """Wormhole's normalisation of a sum ``S`` (integers, in units of ``g``, in place):
    where ``|S| >= 2**28`` the shift right by two drops bit 1, keeping only bit 0 as the
    sticky bit. Rounding then goes otherwise than for ``S`` only where bits 4..0 of
    ``|S|`` are 10010 and bit 5 (the last kept) is 0: ``S`` is above the tie, the model
    sees the tie and keeps the even value. There ``|S|`` is lowered by 2 (onto the tie,
    which rounds to even as the model does)."""
    hit = (total.view(U64) & _BIT1_MASK) == _BIT1_HIT
    if _count_nonzero(hit):
        total[hit] -= np.copysign(2.0, total[hit])


def fma(x, y, z, rules) -> np.ndarray:
    """``x * y + z`` on FP32 bit patterns as ``rules``' arch computes it (module doc):
    operands of any shapes (broadcast), through :func:`fma_rows`.

    With ``G = 2**(max(p_e, z_e) - 127)`` (``p_e`` the product's biased exponent from the
    operands' fields) the model's sum is, in units of ``g = G * 2**-26``,
    ``S = RO(P / g) + RO(C / g)``: ``P`` the exact product, ``C`` the addend, ``RO`` the
    semi-sticky cut (truncate the magnitude; an inexact non-zero result gets its last bit
    set; what truncates to zero is zero). Cutting ``P`` to 26 fraction bits and then to
    ``g`` is one cut to ``g``. ``RO`` of a magnitude ``q``: ``E`` the nearest even integer,
    ``E + sign(q - E)`` (the odd neighbour, or ``q`` itself when exact), with the sign
    capped by ``floor(q)`` (zero below one). ``|S| < 2**29`` is exact in float64, and
    rounding it once to FP32 is the model's normalise-and-round (a sticky shift by at most
    two keeps three bits below FP32's, which preserves round-to-nearest-even), but for
    Wormhole's shift by two (:func:`_drop_bit1`). Operands that are denormal (exponent
    field 0) and a product with ``p_e < 0`` are multiplied by zero, keeping their signs,
    so signed zeros come out as Blackhole's model gives them (``-0`` only when both parts
    are ``-0``; Wormhole's are all ``+0``).
    Lanes with NaN / infinity inputs or a product overflowing on its own (``G >= 2**128``),
    and results below ``2**-126`` (the models' denormal paths) are computed by the arch's
    step-by-step form when there are any."""
    if not (type(x) is np.ndarray and type(y) is np.ndarray and type(z) is np.ndarray
            and x.ndim == 1 and x.shape == y.shape == z.shape):
        x, y, z = np.broadcast_arrays(np.asarray(x, dtype=U32), np.asarray(y, dtype=U32), np.asarray(z, dtype=U32))
        return fma(x.ravel(), y.ravel(), z.ravel(), rules).reshape(x.shape)
    return fma_rows(np.concatenate((x, y, z)).astype(U32, copy=False).reshape(3, -1), rules)


def fma_rows(w, rules) -> np.ndarray:
    """:func:`fma` of ``w[0] * w[1] + w[2]`` (uint32 [3, n], not modified)."""
    if _FP_STATE is None:  # pragma: no cover
        with np.errstate(all="ignore"):
            r = _direct(w, rules)
            return _full(w, rules) if r is None else r
    token = _FP_STATE.set(_FP_QUIET)
    try:
        r = _direct(w, rules)
        return _full(w, rules) if r is None else r
    finally:
        _FP_STATE.reset(token)


def _consts(n: int) -> tuple:
    """The float64 forms' constants as arrays of their shapes (a ufunc with an array
    operand of the same shape skips the conversion a Python scalar costs)."""
    k = _CONSTS.get(n)
    if k is None:
        k = _CONSTS[n] = (np.full(n, 2.0 ** 128), np.full(n, _TINY), np.full(n, _TWO26),
                          np.array([[2.0 ** 127] * n, [2.0 ** 126] * n]), np.full((2, n), _TWO53),
                          np.full(n, 1, dtype=U64), np.full(n, 2, dtype=U64), np.full(n, _LOW),
                          np.full((3, n), 0x7F800000, dtype=U32), np.full((3, n), 0x7FFFFFFF, dtype=U32),
                          np.full(n, 2.0 ** -127), np.full(n, 0x7F000000, dtype=U32), np.full((2, n), _MAGIC),
                          np.ones((2, n)))
    return k


_CONSTS: dict = {}  # lane count n -> _consts(n)


def _direct(w, rules):
    """:func:`_full` in fewer array operations where its special steps change nothing,
    else None: no operand is a denormal, NaN or infinity, no product overflows on its own
    (``ok`` in every lane), every product whose ``2**(p_e - 127)`` is below ``2**-127`` is
    zero (the flush step multiplies by 1, or a signed zero by 0), and every result has an
    exponent field of 2 or more (``|S|`` is at least 2**-126, no lane for the step-by-step
    form, and the signs of zero parts do not show). Then ``RO`` is taken on the signed
    parts ``v`` (``P / g``, ``C / g``): ``E`` the even integer nearest ``v`` (``v + 1.5 *
    2**53 - 1.5 * 2**53``, exact for ``|v| < 2**29``), ``RO(v) = E + sign(v - E)``, which is
    the odd neighbour of ``v`` or ``v`` itself, the same as on the magnitude with the sign
    put back; and 0 where ``0 < |v| < 1`` (then ``E`` is 0 and the sign is multiplied by
    ``min(|trunc(v)|, 1)`` = 0, the semi-sticky cut), when there is such a lane."""
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
    if rules.drop_bit1:
        _drop_bit1(total)
    total /= inv
    r = total.astype(np.float32).view(U32)
    if _count_nonzero(r & hi7) != n:  # exponent field 0 or 1
        return None
    return r


def fma_rows_into(n: int, rules):
    """A function ``fma(w)`` giving :func:`fma_rows` of ``w`` (uint32 [3, n], not
    modified): :func:`_direct`'s steps on arrays of its own, made once (no views, rows or
    results to allocate per call), else :func:`_full`. The result may be one of those
    arrays: it is only valid until the next call.

    Beyond :func:`_direct`: the two parts are scaled row by row (a ufunc broadcasting ``1
    / g`` over both rows costs three times a row's), and a result of exactly zero is kept
    where the product is not zero (Wormhole: everywhere, as ``+0``). Then both parts are
    non-zero (the dominant one is at least ``2**26`` in units of ``g``), ``S`` is 0 only
    when their ``RO`` values cancel, and the models' exact cancellation gives ``+0`` (the
    sign of a zero sum is the AND of the parts' signs, which differ), as float64's ``a +
    -a`` does. Any other result with an exponent field of 0 or 1 (a zero sum of zero
    parts on Blackhole, whose sign the model takes from them; a denormal) still falls
    back. A part with ``0 < |v| < 1`` is looked for where ``E`` is 0 and ``v`` is not
    (``|v| <= 1``; ``trunc`` only then), not by truncating every time. The range tests on
    ``g`` (below ``2**128``) and on the product's scale (``p_e >= 0``) are one ufunc call
    on two rows (``lo < hi``)."""
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
    hit = np.empty(n, dtype=U64)
    bit1_mask, bit1_hit = np.full(n, _BIT1_MASK), np.full(n, _BIT1_HIT)
    drop_bit1, plus_zero = rules.drop_bit1, rules.plus_zero
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
                return _full(w, rules)
            f[...] = w.view(f32)
            g[...] = exf  # 2**(e - 127); 0 for e = 0
            mul(f0, f1, f1)  # P (exact)
            mul(g0, g1, gp)  # 2**(p_e - 127)
            maximum(gp, g2, out=big)
            if cnt(less(lo, hi, inside)) != 2 * n:  # big < 2**128 and p_e >= 0 in every lane, else:
                if cnt(inside[0]) != n:  # NaN / infinity, a product overflowing alone
                    return _full(w, rules)
                if n - cnt(inside[1]) != cnt(equal(f1, 0.0, flag)):  # p_e < 0 (or NaN) but P != 0
                    return _full(w, rules)
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
            if drop_bit1 and cnt(equal(band(total.view(U64), bit1_mask, hit), bit1_hit, flag)):
                total[flag] -= np.copysign(2.0, total[flag])  # (_drop_bit1)
            divide(total, inv, total)
            r[...] = total
            if cnt(band(rbits, hi7, low)) != n:  # exponent field 0 or 1: only exact zeros kept
                equal(total, 0.0, zero)
                nz = cnt(zero)
                if cnt(low) + nz != n:
                    return _full(w, rules)
                if plus_zero:
                    rbits[zero] = 0
                elif nz != cnt(not_equal(f1, 0.0, flag) & zero):  # (a zero product: the parts' signs)
                    return _full(w, rules)
            return rbits
        finally:
            state.reset(token)

    if state is None:  # pragma: no cover - another numpy layout
        return lambda w: fma_rows(w, rules)
    return fma


def _full(w, rules) -> np.ndarray:
    """:func:`fma` on rows (the module's formulation; tests keep its previous spellings as
    references, bit for bit).

    Two steps are skipped where they change nothing, tested first: the flush of
    underflowing products and denormal addends (the multiplication by ``sign(floor(..))``
    is by 1, or by 0 where the part is already a signed zero, when no operand is a
    denormal and every product whose ``2**(p_e - 127)`` is below ``2**-127`` is zero);
    and the search for lanes the step-by-step form computes (none when every lane is
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
    if rules.drop_bit1:
        _drop_bit1(total)
    total /= inv
    if rules.plus_zero:
        total += 0.0  # (-0 + +0 is +0)
    r = total.astype(np.float32).view(U32)
    if _count_nonzero(ok) == n and _count_nonzero(r & hi7) == n:
        return r
    key = total.view(U64) << one
    key -= two
    flag = np.less_equal(ok, key < low)  # special, or 0 < |S| < 2**-126
    if _count_nonzero(flag):
        r = np.where(flag, rules.plain(w[0], w[1], w[2]), r)
    return r


def fma_wh(x, y, z) -> np.ndarray:
    """:func:`fma` with Wormhole's rules."""
    return fma(x, y, z, WORMHOLE)


def fma_bh(x, y, z) -> np.ndarray:
    """:func:`fma` with Blackhole's rules."""
    return fma(x, y, z, BLACKHOLE)
