"""Blackhole Vector Unit numerics on raw 32-bit patterns (numpy, one value per lane), other
than the multiply-add (Blackhole's is :mod:`.fma`'s :data:`~.fma.BLACKHOLE` rules).

Pages (tt-isa-documentation, BlackholeA0/TensixTile/TensixCoprocessor/): SFPMUL24.md
(``Mul24ShiftAdd``), SFPARECIP.md (``ApproxRecip`` / ``ApproxExp``).
"""

from __future__ import annotations

import numpy as np

from ....arch.tables.blackhole_sfparecip import EXP_LUT, RECIP_LUT

U32 = np.uint32
I64 = np.int64
_M32 = 0xFFFFFFFF
_RECIP = np.array(RECIP_LUT, dtype=np.int64)
_EXP = np.array(EXP_LUT, dtype=np.int64)


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
