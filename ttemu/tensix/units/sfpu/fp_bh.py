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
from .fp import clz32

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


def fma_bh(x, y, z) -> np.ndarray:
    """``x * y + z`` on FP32 bit patterns as Blackhole's SFPMAD computes it (module doc).
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
