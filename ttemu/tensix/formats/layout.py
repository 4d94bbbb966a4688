"""Register bit layouts and the pure bit-moving conversions between them.

Everything here is a fixed rearrangement of bit fields (plus the few
conversions SFPLOAD / SFPSTORE / SFPLOADI / MOV* perform on the way), taken
from the functional models of the pages cited in each docstring.  All
functions accept array-likes and return ``np.uint32`` arrays (values that fit
in 16 or 19 bits are still returned as uint32).
"""

from __future__ import annotations

import numpy as np

from ...errors import UndefinedBehaviour
from .codes import Repr

U32 = np.uint32


def u32(x) -> np.ndarray:
    """Raw bit patterns as uint32 (signed inputs wrap modulo 2**32). Helper, no doc page."""
    a = np.asarray(x)
    if a.dtype == np.uint32:
        return a
    if a.dtype.kind == "f":
        raise TypeError("expected integer bit patterns, got floats")
    if a.dtype == object:
        a = a.astype(np.int64)
    return a.astype(np.int64).astype(np.uint32) if a.dtype.kind == "i" else a.astype(np.uint32)


# ---------------------------------------------------------------------------
# Dst layouts
# ---------------------------------------------------------------------------


def dst16_from_bf16(bf16) -> np.ndarray:
    """IEEE-layout BF16 (sign, exp8, man7) -> Dst16 BF16 (sign, man7, exp8).

    ``WriteDstBF16`` (UNPACR_Regular.md) / ``BF16Shuffle`` (SFPSTORE.md).
    """
    x = u32(bf16)
    return (x & 0x8000) | ((x & 0x7F) << 8) | ((x & 0x7F80) >> 7)


def dst16_to_bf16(dst16) -> np.ndarray:
    """Dst16 BF16 -> IEEE-layout BF16. ``UnshuffleBF16`` (SFPLOAD.md)."""
    x = u32(dst16)
    return (x & 0x8000) | ((x & 0xFF) << 7) | ((x & 0x7F00) >> 8)


def dst16_from_fp16(fp16) -> np.ndarray:
    """IEEE-layout FP16 (sign, exp5, man10) -> Dst16 FP16 (sign, man10, exp5).

    ``WriteDstFP16`` (UNPACR_Regular.md) / ``FP16Shuffle`` (SFPSTORE.md).
    """
    x = u32(fp16)
    return (x & 0x8000) | ((x & 0x3FF) << 5) | ((x & 0x7C00) >> 10)


def dst16_to_fp16(dst16) -> np.ndarray:
    """Dst16 FP16 -> IEEE-layout FP16; the inverse field move (Dst.md layout)."""
    x = u32(dst16)
    return (x & 0x8000) | ((x & 0x1F) << 10) | ((x >> 5) & 0x3FF)


def dst32_from_fp32(fp32) -> np.ndarray:
    """IEEE FP32 (or sign-magnitude INT32) -> Dst32 storage layout.

    High half gets the BF16 shuffle, low half unchanged: ``WriteDstFP32``
    (UNPACR_Regular.md) / ``FP32Shuffle`` (SFPSTORE.md).  The same move is
    applied to INT32, giving Dst.md's magnitude (middle/high/low) layout.
    """
    x = u32(fp32)
    return (dst16_from_bf16(x >> 16) << 16) | (x & 0xFFFF)


def dst32_to_fp32(dst32) -> np.ndarray:
    """Dst32 storage -> IEEE FP32 / sign-magnitude INT32. ``UnshuffleFP32`` (SFPLOAD.md)."""
    x = u32(dst32)
    return (dst16_to_bf16(x >> 16) << 16) | (x & 0xFFFF)


def dst32_split(dst32) -> tuple[np.ndarray, np.ndarray]:
    """Dst32 value -> (high DstBits half, low DstBits half), per Dst.md.

    ``Dst32b[Row]`` is ``DstBits[AdjRow] << 16 | DstBits[AdjRow + 8]``; the
    row mapping is the Dst model's business, this only splits the bits.
    """
    x = u32(dst32)
    return x >> 16, x & 0xFFFF


def dst32_join(hi, lo) -> np.ndarray:
    """Inverse of :func:`dst32_split` (Dst.md)."""
    return ((u32(hi) & 0xFFFF) << 16) | (u32(lo) & 0xFFFF)


# ---------------------------------------------------------------------------
# Src layouts (19-bit)
# ---------------------------------------------------------------------------


def src_from_tf32(tf32_19) -> np.ndarray:
    """19-bit IEEE-order TF32 (sign, exp8, man10) -> Src layout (sign, man10, exp8).

    ``WriteSrcTF32`` (UNPACR_Regular.md).
    """
    x = u32(tf32_19)
    return (x & 0x40000) | ((x & 0x3FF) << 8) | ((x & 0x3FC00) >> 10)


def src_to_tf32(src) -> np.ndarray:
    """Src layout -> 19-bit IEEE-order TF32; inverse of :func:`src_from_tf32`
    (SrcASrcB.md TF32 layout)."""
    x = u32(src)
    return (x & 0x40000) | ((x & 0xFF) << 10) | ((x >> 8) & 0x3FF)


def src_from_bf16(bf16) -> np.ndarray:
    """IEEE-layout BF16 -> Src BF16 (TF32 with low 3 mantissa bits zero).

    ``WriteSrcBF16`` (UNPACR_Regular.md).
    """
    return src_from_tf32(u32(bf16) << 3)


def src_from_fp16(fp16) -> np.ndarray:
    """IEEE-layout FP16 -> Src FP16 (sign, man10, 000, exp5). ``WriteSrcFP16`` (UNPACR_Regular.md)."""
    x = u32(fp16)
    return src_from_tf32(((x & 0x8000) << 3) | (x & 0x7FFF))


def src_to_fp16(src) -> np.ndarray:
    """Src FP16 -> IEEE-layout FP16 (takes the low five exponent bits; SrcASrcB.md FP16 layout)."""
    x = u32(src)
    return ((x >> 3) & 0x8000) | ((x & 0x1F) << 10) | ((x >> 8) & 0x3FF)


def src_to_bf16(src) -> np.ndarray:
    """Src BF16/TF32 -> IEEE-layout BF16 (drops the low three mantissa bits; SrcASrcB.md BF16 layout)."""
    return src_to_tf32(src) >> 3


def src_from_int16(x16) -> np.ndarray:
    """16 opaque bits -> Src INT16 layout; the unpacker's INT16 move (UNPACR_Regular.md)."""
    x = u32(x16)
    return ((x & 0xFF00) << 3) | (x & 0xFF)


def src_to_int16(src) -> np.ndarray:
    """Src INT16 layout -> the 16 opaque bits (SrcASrcB.md layout)."""
    x = u32(src)
    return ((x >> 3) & 0xFF00) | (x & 0xFF)


def src_from_dst16_bf16(dst16) -> np.ndarray:
    """MOVD2A/MOVD2B ``ShuffleBF16``: Dst16 BF16 -> Src BF16 (MOVD2A.md)."""
    x = u32(dst16)
    return ((x & 0xFF00) << 3) | (x & 0xFF)


def src_from_dst16_fp16(dst16) -> np.ndarray:
    """MOVD2A/MOVD2B ``ShuffleFP16``: Dst16 FP16 (or integer "8") -> Src (MOVD2A.md)."""
    x = u32(dst16)
    return ((x & 0xFFE0) << 3) | (x & 0x1F)


def src_from_dst32_tf32(dst32) -> np.ndarray:
    """MOVD2A/MOVD2B TF32 path: Dst32 FP32 -> Src TF32, truncating 13 mantissa bits.

    MOVD2A.md computes ``ShuffleTF32(DstVal >> 13)``.  Docs disagreement: its
    ``ShuffleTF32`` masks the sign+high-mantissa field with ``0x3fc000``, which
    does not fit a 19-bit value and contradicts the comment beside it ("Dst
    holds TF32 as Sign,HiMan(7b),Exp(8b),LoMan(3b)") and the Src layout in
    SrcASrcB.md.  We follow the layouts: sign+high mantissa are bits 18..11 of
    ``DstVal >> 13`` (mask 0x7f800), i.e. the result is plain TF32 truncation
    of the FP32 value.  Pinned by a test.
    """
    x = u32(dst32) >> 13
    sign_hi_man = x & 0x7F800
    exp = x & 0x7F8
    lo_man = x & 0x7
    return sign_hi_man | (lo_man << 8) | (exp >> 3)


def dst16_bf16_from_src(src) -> np.ndarray:
    """MOVA2D/MOVB2D ``RemoveLowMantissa``: Src BF16/TF32 -> Dst16 BF16 (MOVB2D.md)."""
    x = u32(src)
    return ((x & (1 << 18)) >> 3) | ((x & (0x7F << 11)) >> 3) | (x & 0xFF)


def dst16_fp16_from_src(src) -> np.ndarray:
    """MOVA2D/MOVB2D ``RemoveHighExponent``: Src FP16/INT8 -> Dst16 FP16 (MOVB2D.md)."""
    x = u32(src)
    return ((x & (1 << 18)) >> 3) | ((x & (0x3FF << 8)) >> 3) | (x & 0x1F)


def dst32_from_src_tf32(src) -> np.ndarray:
    """MOVA2D/MOVB2D with SrcA format TF32: Src TF32 -> Dst32 FP32 (low 13 bits 0).

    ``(RemoveLowMantissa(x) << 16) | (((x >> 8) & 7) << 13)`` (MOVA2D.md,
    without ``UseDst32bLo``).
    """
    x = u32(src)
    return (dst16_bf16_from_src(x) << 16) | (((x >> 8) & 7) << 13)


# ---------------------------------------------------------------------------
# FP32 <-> Src
# ---------------------------------------------------------------------------


def fp32_to_src_tf32(fp32) -> np.ndarray:
    """FP32 -> Src TF32 by truncation: ``WriteSrcTF32(x >> 13)`` (UNPACR_Regular.md).

    Denormals, NaN and infinity move through as bits (no special handling).
    """
    return src_from_tf32(u32(fp32) >> 13)


def fp32_to_bf16_flush_trunc(fp32) -> np.ndarray:
    """FP32 -> IEEE-layout BF16 as the unpacker does it (UNPACR_Regular.md):
    an exponent of zero flushes to signed zero, then the low 16 bits are
    dropped."""
    x = u32(fp32)
    x = np.where((x & 0x7F800000) == 0, x & 0x80000000, x).astype(U32)
    return x >> 16


def fp32_to_src_bf16(fp32) -> np.ndarray:
    """FP32 -> Src BF16 as the unpacker does it: flush, truncate, ``WriteSrcBF16``."""
    return src_from_bf16(fp32_to_bf16_flush_trunc(fp32))


_SRC_FLOAT = (Repr.SRC_TF32, Repr.SRC_BF16, Repr.SRC_FP16)


def src_to_fp32(src, style: Repr) -> np.ndarray:
    """Src value -> FP32 bits with the Matrix Unit's (FPU) reading.

    FloatBitPatterns.md, "Matrix Unit (FPU)" columns: an exponent of zero
    reads as signed zero (denormals included); TF32/BF16 exponent 255 is an
    ordinary (huge) number (1 + m) * 2**128 that FP32 cannot hold, so it is
    returned with exponent field 255 and the caller must treat it as finite;
    FP16 exponents are rebiased by +112, exponent 31 included (2**16 range).
    ``style`` is SRC_TF32, SRC_BF16 (low 3 mantissa bits ignored) or SRC_FP16.
    """
    x = u32(src)
    if style is Repr.SRC_FP16:
        f16 = src_to_fp16(x)
        exp = (f16 >> 10) & 0x1F
        sign = (f16 & 0x8000) << 16
        out = sign | ((exp + 112) << 23) | ((f16 & 0x3FF) << 13)
        return np.where(exp == 0, sign, out).astype(U32)
    if style is Repr.SRC_TF32:
        t = src_to_tf32(x)
    elif style is Repr.SRC_BF16:
        t = src_to_tf32(x) & ~U32(7)
    else:
        raise ValueError(f"src_to_fp32: style must be one of {_SRC_FLOAT}, got {style}")
    out = t << 13
    return np.where((t & 0x3FC00) == 0, out & 0x80000000, out).astype(U32)


def src_int8_value(src) -> np.ndarray:
    """Src integer "8" -> int32 value (sign, 10-bit magnitude): ``ReadSrcInt8`` (ELWMUL.md)."""
    x = u32(src)
    mag = ((x >> 8) & 0x3FF).astype(np.int32)
    return np.where((x >> 18) & 1 == 1, -mag, mag).astype(np.int32)


# ---------------------------------------------------------------------------
# Integer helpers
# ---------------------------------------------------------------------------


def sign_mag_to_twos(x) -> np.ndarray:
    """Sign + 31-bit magnitude -> two's complement bits. ``SignMagToTwosComp`` (SFPLOAD.md).

    -0 becomes 0.
    """
    x = u32(x)
    mag = x & 0x7FFFFFFF
    return np.where(x & 0x80000000, (U32(0) - mag), mag).astype(U32)


def twos_to_sign_mag(x) -> np.ndarray:
    """Two's complement -> sign + 31-bit magnitude. ``ToSignMag`` (SFPSTORE.md).

    The SFPSTORE table says the input must not be -2**31; the functional
    model maps it to sign 1, magnitude 0 (i.e. -0), which is what we do.
    """
    x = u32(x)
    sign = x & 0x80000000
    mag = np.where(sign != 0, U32(0) - x, x).astype(U32)
    return sign | (mag & 0x7FFFFFFF)


def int_to_sign_mag(values, bits: int) -> np.ndarray:
    """Python/numpy integers -> ``bits``-wide sign-magnitude patterns.

    Raises ValueError if a magnitude does not fit (this is a host-side
    helper, not a hardware conversion).
    """
    v = np.asarray(values, dtype=np.int64)
    lim = (1 << (bits - 1)) - 1
    if np.any(np.abs(v) > lim):
        raise ValueError(f"value out of range for {bits}-bit sign-magnitude")
    return (np.where(v < 0, 1 << (bits - 1), 0) | np.abs(v)).astype(U32)


def sign_mag_to_int(bits_, nbits: int) -> np.ndarray:
    """``nbits``-wide sign-magnitude patterns -> int64 values (-0 -> 0)."""
    x = u32(bits_).astype(np.int64)
    mag = x & ((1 << (nbits - 1)) - 1)
    return np.where((x >> (nbits - 1)) & 1, -mag, mag)


# ---------------------------------------------------------------------------
# SFPLOAD / SFPSTORE / SFPLOADI conversions
# ---------------------------------------------------------------------------

MOD0_FMT_SRCB = 0
MOD0_FMT_FP16 = 1
MOD0_FMT_BF16 = 2
MOD0_FMT_FP32 = 3
MOD0_FMT_INT32 = 4
MOD0_FMT_INT8 = 5
MOD0_FMT_UINT16 = 6
MOD0_FMT_HI16 = 7
MOD0_FMT_INT16 = 8
MOD0_FMT_LO16 = 9
MOD0_FMT_INT32_ALL = 10
MOD0_FMT_ZERO = 11
MOD0_FMT_INT32_SM = 12
MOD0_FMT_INT8_COMP = 13
MOD0_FMT_LO16_ONLY = 14
MOD0_FMT_HI16_ONLY = 15

#: SFPLOAD modes that read ``Dst32b`` (the others read ``Dst16b``).
SFPLOAD_READS_DST32 = frozenset({MOD0_FMT_FP32, MOD0_FMT_INT32, MOD0_FMT_INT32_ALL, MOD0_FMT_INT32_SM})
#: SFPSTORE modes that write ``Dst32b`` (the others write ``Dst16b``).
SFPSTORE_WRITES_DST32 = frozenset(
    {MOD0_FMT_FP32, MOD0_FMT_INT32, MOD0_FMT_INT32_ALL, MOD0_FMT_INT32_SM, MOD0_FMT_LO16, MOD0_FMT_HI16}
)


def fp32_from_dst16_fp16(dst16, enable_fp16a_inf=False) -> np.ndarray:
    """SFPLOAD ``MOD0_FMT_FP16``: ``ReadFP16`` (SFPLOAD.md).

    Nonzero exponents are rebiased (+112); an exponent of zero stays zero, so
    FP16 denormals become FP32 denormals.  With ``enable_fp16a_inf`` (per lane
    ``ENABLE_FP16A_INF``; may be a boolean array), exponent 31 with mantissa
    1023 becomes IEEE infinity.
    """
    x = u32(dst16)
    sign = (x >> 15) & 1
    man = (x >> 5) & 0x3FF
    exp = x & 0x1F
    inf = np.asarray(enable_fp16a_inf, dtype=bool) & (exp == 0x1F) & (man == 0x3FF)
    exp8 = np.where(exp != 0, exp + 112, 0)
    exp8 = np.where(inf, 255, exp8)
    man = np.where(inf, 0, man)
    return ((sign << 31) | (exp8.astype(U32) << 23) | (man.astype(U32) << 13)).astype(U32)


def _by_table(name, fn, key_bits=16):
    """``fn`` evaluated on every ``key_bits``-bit pattern (uint32 [2**key_bits]), built on
    first use: a conversion whose result depends on 16 bits becomes one gather."""
    t = _TABLES.get(name)
    if t is None:
        t = _TABLES[name] = np.ascontiguousarray(fn(np.arange(1 << key_bits, dtype=U32)), dtype=U32)
        t.setflags(write=False)
    return t


_TABLES: dict = {}  # constant lookup tables of _by_table


def fp32_from_dst16_bf16(dst16) -> np.ndarray:
    """SFPLOAD ``MOD0_FMT_BF16``: ``UnshuffleBF16(x) << 16`` (SFPLOAD.md); by table
    (:func:`fp32_from_dst16_bf16_plain` on all 16-bit patterns)."""
    return _by_table("fp32_from_dst16_bf16", fp32_from_dst16_bf16_plain)[u32(dst16) & 0xFFFF]


def fp32_from_dst16_bf16_plain(dst16) -> np.ndarray:
    """:func:`fp32_from_dst16_bf16` computed."""
    return dst16_to_bf16(dst16) << 16


def fp32_to_fp16_sfpstore(fp32) -> np.ndarray:
    """SFPSTORE's ``ToFP16`` (SFPSTORE.md): FP32 -> IEEE-layout FP16 bits.

    Rebias by -112; a result exponent <= 0 (underflow, denormals, zero)
    flushes to signed zero; > 31 (overflow, infinity, NaN) saturates to
    exponent 31, mantissa all ones; the mantissa is truncated toward zero.
    """
    x = u32(fp32)
    sign = x >> 31
    exp = ((x >> 23) & 0xFF).astype(np.int32) - 112
    man = x & 0x7FFFFF
    under = exp <= 0
    over = exp > 31
    exp = np.where(under, 0, np.where(over, 31, exp)).astype(U32)
    man = np.where(under, 0, np.where(over, 0x7FFFFF, man)).astype(U32)
    return (sign << 15) | (exp << 10) | (man >> 13)


def fp32_to_bf16_sfpstore(fp32) -> np.ndarray:
    """SFPSTORE's ``ToBF16`` (SFPSTORE.md): flush exponent-0 to signed zero, truncate."""
    return fp32_to_bf16_flush_trunc(fp32)


def fp32_to_dst16_fp16(fp32) -> np.ndarray:
    """SFPSTORE ``MOD0_FMT_FP16``: ``FP16Shuffle(ToFP16(x))``."""
    return dst16_from_fp16(fp32_to_fp16_sfpstore(fp32))


def fp32_to_dst16_bf16(fp32) -> np.ndarray:
    """SFPSTORE ``MOD0_FMT_BF16``: ``BF16Shuffle(ToBF16(x))``. The result depends on the
    high 16 bits only (the flush tests the exponent), so it is one gather
    (:func:`fp32_to_dst16_bf16_plain` on all of them)."""
    return _by_table("fp32_to_dst16_bf16", lambda h: fp32_to_dst16_bf16_plain(h << 16))[u32(fp32) >> 16]


def fp32_to_dst16_bf16_plain(fp32) -> np.ndarray:
    """:func:`fp32_to_dst16_bf16` computed."""
    return dst16_from_bf16(fp32_to_bf16_sfpstore(fp32))


def fp32_from_fp16_sfploadi(imm16) -> np.ndarray:
    """SFPLOADI ``FLOATA``: ``FP16toFP32`` (SFPLOADI.md) - always rebias, no special cases."""
    x = u32(imm16) & 0xFFFF
    return ((x >> 15) << 31) | ((((x >> 10) & 0x1F) + 112) << 23) | ((x & 0x3FF) << 13)


def sign_mag11_to_dst16_int8(sm32) -> np.ndarray:
    """``FP16Shuffle(SignMag11ToFP16(x))`` (SFPSTORE.md): sign + low 10 magnitude
    bits with fixed exponent 16.  Magnitudes above 1023 wrap (only the low ten
    bits are kept), as the functional model does."""
    x = u32(sm32)
    return dst16_from_fp16(((x >> 31) << 15) | (16 << 10) | (x & 0x3FF))


def sfpload_convert(dst_bits, mod0: int, *, old_lreg=None, enable_fp16a_inf=False) -> np.ndarray:
    """SFPLOAD data type conversion for one ``Mod0`` (SFPLOAD.md, functional model).

    ``dst_bits`` are ``Dst32b`` values for modes in :data:`SFPLOAD_READS_DST32`
    and ``Dst16b`` values otherwise.  ``old_lreg`` is needed by the
    ``*_ONLY`` modes.  ``MOD0_FMT_SRCB`` must be resolved by the caller.
    """
    x = u32(dst_bits)
    if mod0 == MOD0_FMT_FP16:
        return fp32_from_dst16_fp16(x, enable_fp16a_inf)
    if mod0 == MOD0_FMT_BF16:
        return fp32_from_dst16_bf16(x)
    if mod0 in (MOD0_FMT_FP32, MOD0_FMT_INT32, MOD0_FMT_INT32_ALL):
        return dst32_to_fp32(x)
    if mod0 == MOD0_FMT_INT32_SM:
        return sign_mag_to_twos(dst32_to_fp32(x))
    if mod0 == MOD0_FMT_INT8:  # SignMag8ToSignMag32
        return ((x >> 15) << 31) | ((x >> 5) & 0x7F)
    if mod0 == MOD0_FMT_INT8_COMP:  # SignMagToTwosComp(SignMag11ToSignMag32)
        return sign_mag_to_twos(((x >> 15) << 31) | ((x >> 5) & 0x3FF))
    if mod0 == MOD0_FMT_INT16:  # SignMag16ToSignMag32
        return ((x >> 15) << 31) | (x & 0x7FFF)
    if mod0 in (MOD0_FMT_UINT16, MOD0_FMT_LO16):
        return x & 0xFFFF
    if mod0 == MOD0_FMT_HI16:
        return (x & 0xFFFF) << 16
    if mod0 == MOD0_FMT_ZERO:
        return np.zeros_like(x)
    if mod0 in (MOD0_FMT_LO16_ONLY, MOD0_FMT_HI16_ONLY):
        if old_lreg is None:
            raise ValueError("LO16_ONLY / HI16_ONLY need old_lreg")
        old = u32(old_lreg)
        if mod0 == MOD0_FMT_LO16_ONLY:
            return (old & 0xFFFF0000) | (x & 0xFFFF)
        return ((x & 0xFFFF) << 16) | (old & 0xFFFF)
    if mod0 == MOD0_FMT_SRCB:
        raise ValueError("MOD0_FMT_SRCB must be resolved before conversion")
    raise UndefinedBehaviour(f"SFPLOAD Mod0={mod0} is not a documented mode")


def sfpstore_convert(lreg, mod0: int) -> np.ndarray:
    """SFPSTORE data type conversion for one ``Mod0`` (SFPSTORE.md, functional model).

    Returns ``Dst32b`` values for modes in :data:`SFPSTORE_WRITES_DST32`,
    ``Dst16b`` values otherwise.  ``MOD0_FMT_SRCB`` must be resolved by the
    caller.
    """
    x = u32(lreg)
    if mod0 == MOD0_FMT_FP16:
        return fp32_to_dst16_fp16(x)
    if mod0 == MOD0_FMT_BF16:
        return fp32_to_dst16_bf16(x)
    if mod0 in (MOD0_FMT_FP32, MOD0_FMT_INT32, MOD0_FMT_INT32_ALL):
        return dst32_from_fp32(x)
    if mod0 == MOD0_FMT_INT32_SM:
        return dst32_from_fp32(twos_to_sign_mag(x))
    if mod0 == MOD0_FMT_INT8:
        return sign_mag11_to_dst16_int8(x)
    if mod0 == MOD0_FMT_INT8_COMP:
        return sign_mag11_to_dst16_int8(twos_to_sign_mag(x))
    if mod0 in (MOD0_FMT_LO16_ONLY, MOD0_FMT_UINT16):
        return x & 0xFFFF
    if mod0 == MOD0_FMT_HI16_ONLY:
        return x >> 16
    if mod0 == MOD0_FMT_INT16:
        return ((x >> 31) << 15) | (x & 0x7FFF)
    if mod0 == MOD0_FMT_LO16:
        return (x << 16) | (x >> 16)
    if mod0 == MOD0_FMT_HI16:
        return x.copy()
    if mod0 == MOD0_FMT_ZERO:
        return np.zeros_like(x)
    if mod0 == MOD0_FMT_SRCB:
        raise ValueError("MOD0_FMT_SRCB must be resolved before conversion")
    raise UndefinedBehaviour(f"SFPSTORE Mod0={mod0} is not a documented mode")
