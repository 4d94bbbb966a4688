"""Rounding shared by the packer conversions.

The packer page (Packers/FormatConversion.md) states round-to-nearest with
ties *away from zero* (not ties-to-even, which is the IEEE/numpy default and
what several host-side libraries do), or stochastic rounding with a hardware
bias it does not specify exactly.  We model both with the comparator
SFPSTOCHRND.md spells out: the discarded bits, scaled to a 23-bit fraction,
are compared ``>=`` with a threshold, which is ``0x400000`` (one half) for
deterministic rounding and ``random & 0x7fffff`` for stochastic rounding.
The ``>=`` makes ties go away from zero and reproduces the documented
stochastic bias (including rounding up a value with no discarded bits when
the random value is zero).  That the packer uses this exact comparator is an
assumption.
"""

from __future__ import annotations

import numpy as np

from .layout import U32, u32

__all__ = ["round_up_mask", "round_fp32_mantissa", "round_fp16_mantissa"]




def _random23(random, n: int):
    if random is None:
        return np.uint64(0x400000)
    r = u32(random).reshape(-1)
    if r.size != n:
        raise ValueError(f"random array has {r.size} values, need {n}")
    return (r & 0x7FFFFF).astype(np.uint64)


def round_up_mask(discarded, nbits, random=None) -> np.ndarray:
    """Whether to add one unit after dropping ``nbits`` low bits whose value was
    ``discarded`` (< 2**nbits, nbits <= 41 or the value fits in 8 bits).

    Deterministic (``random is None``): ties away from zero.  Stochastic:
    ``random`` is a uint32 array, one value per element, of which the low 23
    bits are used.  See the module docstring for the model (SFPSTOCHRND.md).
    """
    d = np.asarray(discarded).astype(np.uint64).reshape(-1)
    nb = np.minimum(np.asarray(nbits, dtype=np.int64), 63).astype(np.uint64)
    frac23 = (d << np.uint64(23)) >> nb
    return frac23 >= _random23(random, d.size)


def round_fp32_mantissa(fp32, keep: int, random=None) -> np.ndarray:
    """Early-conversion rounding to an 8-bit-exponent type with ``keep``
    mantissa bits (10: TF32, 7: BF16, 6: E8M6), result in FP32 layout.

    Packers/FormatConversion.md, "Rounding": denormals flush to zero, minus
    zero becomes plus zero, NaN becomes infinity (sign kept, as SFPSTOCHRND
    does), infinity stays; a mantissa carry propagates into the exponent
    (so the largest finite values may round to infinity). The page does not
    say whether the flush looks at the value before or after rounding; ttemu
    follows ttsim's packer, which rounds first and flushes a result with
    exponent 0, so a denormal within half a unit of the smallest normal
    rounds up to it (0x807fffff -> BF16 0x8080).
    """
    x = u32(fp32).reshape(-1)
    drop = 23 - keep
    exp = (x >> 23) & 0xFF
    low = x & U32((1 << drop) - 1)
    up = round_up_mask(low, drop, random).astype(U32)
    out = (x - low) + (up << U32(drop))
    out = np.where(((out >> 23) & 0xFF) == 0, U32(0), out)
    out = np.where(exp == 255, x & U32(0xFF800000), out)
    return out.astype(U32)


def round_fp16_mantissa(fp16, keep: int, random=None) -> np.ndarray:
    """Early-conversion rounding of Tensix FP16 (IEEE FP16 layout, no
    NaN/Inf) to ``keep`` mantissa bits (10: FP16, 6: E5M6).

    A result with exponent zero (denormals, either zero) becomes +0; as in
    ``round_fp32_mantissa`` the flush looks at the rounded value (ttsim's
    packer: a denormal rounding up to the smallest normal keeps it). A carry
    out of exponent 31, which the docs do not describe, saturates to the
    largest magnitude with ``keep`` mantissa bits, sign kept (ttsim's packer:
    FP16 0x7fff -> E5M6 0x7ff0).
    """
    x = u32(fp16).reshape(-1) & 0xFFFF
    drop = 10 - keep
    low = x & U32((1 << drop) - 1)
    up = round_up_mask(low, drop, random).astype(U32)
    mag = (x & 0x7FFF) - low + (up << U32(drop))
    mag = np.minimum(mag, U32(0x7FFF & ~((1 << drop) - 1)))
    return np.where(mag < 0x400, U32(0), (x & 0x8000) | mag).astype(U32)
