"""The unpacker's format conversion (L1 datum -> SrcA/SrcB/Dst bits).

Implements ``FormatConversion`` from UNPACR_Regular.md, vectorised over a
datum array.  Addressing, strides, upsampling etc. stay with the unpacker
model; this takes datums already read from L1 (see
:func:`~ttemu.tensix.formats.l1.read_datums`) plus, for BFP formats, each
datum's shared exponent.
"""

from __future__ import annotations

import numpy as np

from ...errors import UndefinedBehaviour
from .codes import DataFormat, datum_bits
from .l1 import _CLZ8, bfp_to_fp16, expand_exponents
from .layout import (
    U32,
    _by_table,
    dst16_from_bf16,
    dst16_from_fp16,
    dst32_from_fp32,
    fp32_to_bf16_flush_trunc,
    src_from_bf16,
    src_from_fp16,
    src_from_int16,
    src_from_tf32,
    u32,
)

__all__ = ["unpack_convert", "unpack_writes_dst32", "int8_to_fp16_overlay", "fp8_to_fp16", "fp32_to_fp16_ttsim",
           "bfp_b_unpack"]

_F = DataFormat


def unpack_writes_dst32(out_fmt: DataFormat) -> bool:
    """True when an unpack to Dst writes ``Dst32b`` (OutDataFormat FP32/TF32/INT32),
    else ``Dst16b``; UNPACR_Regular.md, the Dst write in the main loop."""
    return DataFormat(out_fmt) in (_F.Float32, _F.Tf32, _F.Int32)


_BFP_B_PARTS: dict = {}  # constant tables of _bfp_b_parts, by layout


def _bfp_b_parts(to_dst: bool):
    """Per datum byte ``d8`` (a datum widened to 8 bits as ``bfp_to_bf16`` widens it):
    (its :func:`~.l1.bfp_to_bf16` value written in the Dst16b (``to_dst``) or Src layout
    with a zero exponent field; its normalising shift; 0xFF, or 0 for a zero magnitude,
    whose value is fixed). Both layouts keep the exponent in bits 7:0."""
    parts = _BFP_B_PARTS.get(to_dst)
    if parts is None:
        d8 = np.arange(256, dtype=U32)
        sign, mag = d8 >> 7, (d8 << 1) & 0xFF
        lz = _CLZ8[mag]
        b = np.where(mag == 0, np.where(sign == 1, U32(0xFF80), U32(0)), (sign << 15) | (((mag << lz) & 0xFF) & 0x7E))
        base = (dst16_from_bf16(b) if to_dst else src_from_bf16(b)).astype(U32)
        parts = _BFP_B_PARTS[to_dst] = (base, np.where(mag == 0, U32(0), lz).astype(U32),
                                        np.where(mag == 0, U32(0), U32(0xFF)))
    return parts


def bfp_b_unpack(datums, exps, fmt: DataFormat, to_dst: bool) -> np.ndarray:
    """BFP8 / BFP4 / BFP2 (the ``*_b`` formats) datums with their shared exponents (per
    datum or per 16) -> Dst16b (``to_dst``) or Src values: what :func:`unpack_convert`
    writes, ``BFP8ToBF16`` (:func:`~.l1.bfp_to_bf16`) then ``WriteDstBF16`` /
    ``WriteSrcBF16``, by three 256-entry tables of the datum byte and one subtraction
    (the exponent minus the shift, wrapping as an uint8)."""
    d = u32(datums).reshape(-1)
    nbits = datum_bits(fmt)
    d8 = (d << U32(8 - nbits)) & 0xFF if nbits < 8 else d & 0xFF
    e = expand_exponents(exps, d.size)
    base, lz, emask = _bfp_b_parts(bool(to_dst))
    return base[d8] | ((e - lz[d8]) & emask[d8])


def int8_to_fp16_overlay(datums, unsigned: bool) -> np.ndarray:
    """L1 INT8 (sign-magnitude, or uint8 when ``unsigned``) -> integer "8"
    overlaid on IEEE-layout FP16: magnitude in the mantissa field, exponent
    16 when the magnitude is nonzero (0 otherwise), sign in bit 15
    (UNPACR_Regular.md, ``case INT8``).  With ``unsigned`` the top bit is part
    of the magnitude."""
    d = u32(datums) & 0xFF
    sign = np.zeros_like(d) if unsigned else (d & 0x80)
    mag = d - sign
    out = np.where(mag != 0, mag | U32(16 << 10), mag)
    return (out | (sign << 8)).astype(U32)


def unpack_convert(
    datums,
    in_fmt: DataFormat,
    out_fmt: DataFormat,
    *,
    to_dst: bool,
    exps=None,
    int8_unsigned: bool = False,
    fp8_e4m3: bool = False,
    fp8_max_to_ones: bool = False,
) -> np.ndarray:
    """Convert raw L1 datums as the unpacker does; returns uint32 register bits.

    ``to_dst=False``: 19-bit SrcA/SrcB values.  ``to_dst=True``: Dst32b
    values when :func:`unpack_writes_dst32` (``out_fmt``) else Dst16b values.
    ``exps``: per-datum or per-16 shared exponents for BFP ``in_fmt``
    (already chosen by the caller, e.g. ``FORCE_SHARED_EXP``).
    ``int8_unsigned``: ``ALU_FORMAT_SPEC_REG0_Src[AB]Unsigned``; also implied
    by ``in_fmt=UInt8``.  ``fp8_e4m3`` / ``fp8_max_to_ones``: Blackhole's FP8
    variants (:func:`fp8_to_fp16`; ``ArchSpec.unpacker``).

    Follows UNPACR_Regular.md ``FormatConversion``:

    * FP32 in: out FP32 (Dst only), TF32 (Dst: all 32 bits kept - "TF32 means
      FP32"; Src: truncated to TF32), BF16 (exponent-0 flushed to signed zero,
      then truncated), FP16 (the page calls ``FP32ToFP16`` without defining it:
      ttsim's conversion, :func:`fp32_to_fp16_ttsim`).
    * Any other in: ``out_fmt`` must equal ``in_fmt``.  FP8 is the high byte
      of an FP16; BFP* expand to BF16/FP16 (FloatBitPatterns.md); INT8 becomes
      integer "8"; TF32 in is Dst only; INT32 and FP32 cannot go to Src.
    Every undefined combination raises :class:`UndefinedBehaviour`.
    """
    in_fmt = DataFormat(in_fmt)
    out_fmt = DataFormat(out_fmt)
    if in_fmt is _F.UInt8:
        in_fmt, int8_unsigned = _F.Int8, True
    if out_fmt is _F.UInt8:
        out_fmt = _F.Int8
    x = u32(datums).reshape(-1)
    where = "Dst" if to_dst else "Src"

    def ub(what: str) -> UndefinedBehaviour:
        return UndefinedBehaviour(f"UNPACR {in_fmt.doc_name} -> {out_fmt.doc_name} ({where}): {what}")

    kind: str  # one of "fp32", "bf16", "fp16", "int16", "int32"
    if in_fmt is _F.Float32:
        if out_fmt is _F.Float32:
            kind = "fp32"
        elif out_fmt is _F.Tf32:
            return dst32_from_fp32(x) if to_dst else src_from_tf32(x >> 13)
        elif out_fmt is _F.Float16_b:
            x, kind = fp32_to_bf16_flush_trunc(x), "bf16"
        elif out_fmt is _F.Float16:
            x, kind = fp32_to_fp16_ttsim(x), "fp16"
        else:
            raise ub("not a supported conversion")
    else:
        if in_fmt is not out_fmt:
            raise ub("input and output formats must be equal unless the input is FP32")
        if in_fmt is _F.Fp8:
            x, kind = fp8_to_fp16(x, e4m3=fp8_e4m3, max_to_ones=fp8_max_to_ones), "fp16"
        elif in_fmt in (_F.Bfp8_b, _F.Bfp4_b, _F.Bfp2_b):
            if exps is None:
                raise ValueError("BFP unpack needs exponents")
            return bfp_b_unpack(x, exps, in_fmt, to_dst)  # bfp_to_bf16, then the Dst16b / Src layout
        elif in_fmt in (_F.Bfp8, _F.Bfp4, _F.Bfp2):
            if exps is None:
                raise ValueError("BFP unpack needs exponents")
            x, kind = bfp_to_fp16(x, exps, in_fmt), "fp16"
        elif in_fmt is _F.Int8:
            x, kind = int8_to_fp16_overlay(x, int8_unsigned), "fp16"
        elif in_fmt is _F.Tf32:
            if not to_dst:
                raise ub("TF32 is not valid as InDataFormat (use FP32 -> TF32)")
            return dst32_from_fp32(x)
        elif in_fmt is _F.Float16_b:
            x, kind = x & 0xFFFF, "bf16"
        elif in_fmt is _F.Float16:
            x, kind = x & 0xFFFF, "fp16"
        elif in_fmt is _F.UInt16:
            x, kind = x & 0xFFFF, "int16"
        elif in_fmt is _F.Int32:
            kind = "int32"
        else:  # pragma: no cover - every format is listed above
            raise ub("unknown format")

    if kind == "int16":
        return x.copy() if to_dst else src_from_int16(x)
    if kind in ("int32", "fp32"):
        if not to_dst:
            raise ub("32-bit data cannot be written to SrcA/SrcB")
        # dst32_from_fp32, the high half's BF16 shuffle by table once used enough
        return (_layout16(dst16_from_bf16, x >> 16) << 16) | (x & 0xFFFF)
    return _layout16(_LAYOUTS_16[kind == "bf16"][to_dst], x)  # (x holds 16 bits here)


# (FP16 layouts, BF16 layouts) x (to Src, to Dst)
_LAYOUTS_16 = ((src_from_fp16, dst16_from_fp16), (src_from_bf16, dst16_from_bf16))
_LAYOUT_USES: dict = {}  # layout function -> conversions made before its table was built
TABLE_AFTER = 32  # (a short run converts by arithmetic: a table costs ~0.5 ms to build)


def _layout16(fn, x):
    """``fn(x)`` for 16-bit patterns ``x`` (dst16_from_bf16 / src_from_bf16 /
    dst16_from_fp16 / src_from_fp16): one gather from ``fn`` on every 16-bit pattern once
    ``fn`` has converted TABLE_AFTER arrays here."""
    uses = _LAYOUT_USES.get(fn, 0)
    if uses < TABLE_AFTER:
        _LAYOUT_USES[fn] = uses + 1
        return fn(x)
    return _by_table(fn.__name__, fn)[x]


def fp8_to_fp16(x, *, e4m3: bool = False, max_to_ones: bool = False) -> np.ndarray:
    """FP8 L1 datums -> the FP16 bit patterns the unpackers write (before the Src /
    Dst layout).

    E5M2 (UNPACR_Regular.md, ``case FP8``): the datum is the high byte of an FP16.
    ``max_to_ones`` (Blackhole): a datum whose exponent and mantissa are all ones
    (0x7F / 0xFF) instead fills the FP16 mantissa with ones (0x7FFF / 0xFFFF).
    ``e4m3`` (Blackhole's ``Unp_LF8_4b_exp``; tt-llk's Fp8_e4m3): sign, 4-bit
    exponent, 3-bit mantissa; a nonzero exponent is rebiased by 8 (bias 7 -> 15), a
    zero exponent stays zero with the mantissa kept (a denormal bit pattern), and
    exponent 15 with mantissa 7 (E4M3's NaN) also fills the low mantissa bits with
    ones. Facts: tt-llk Blackhole cunpack_common.h (the config bit and the format),
    ttsim's Blackhole unpacker (the bit mapping; there is no BlackholeA0 page)."""
    x = u32(x).reshape(-1) & 0xFF
    if e4m3:
        sign = (x & 0x80) << 8
        e = (x >> 3) & 15
        m = x & 7
        pad = np.where((e == 15) & (m == 7), U32(0x7F), U32(0))
        e = np.where(e != 0, e + 8, 0)
        return (sign | (e << 10) | (m << 7) | pad).astype(U32)
    out = x << 8
    if max_to_ones:
        out = np.where((x & 0x7F) == 0x7F, out | 0xFF, out)
    return out.astype(U32)


def fp32_to_fp16_ttsim(x) -> np.ndarray:
    """FP32 -> FP16 as the unpackers do it (UNPACR_Regular.md calls ``FP32ToFP16``
    without defining it; this is ttsim's conversion, which completes such runs):
    exponent rebiased by 112; below FP16's range -> signed zero; above it -> exponent
    31, mantissa all ones; the mantissa truncated to ten bits."""
    x = u32(x).reshape(-1)
    sign = (x >> 16) & 0x8000
    e = ((x >> 23) & 0xFF).astype(np.int64) - 112
    man = (x >> 13) & 0x3FF
    out = np.where(e < 0, sign, np.where(e > 31, sign | 0x7FFF, sign | (np.clip(e, 0, 31) << 10) | man))
    return out.astype(U32)
