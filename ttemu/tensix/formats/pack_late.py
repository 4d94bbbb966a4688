"""The packers' late format conversion (intermediate -> L1 datums), BFP
shared-exponent encoding, exponent thresholding, and FP32 -> L1 encoding
along a documented packer route.

Packers/FormatConversion.md ("Late format conversion", "Final L1 output
format") and Packers/ExponentThresholding.md.  Rounding: see
:mod:`~ttemu.tensix.formats.rounding`.
"""

from __future__ import annotations

import numpy as np

from ...errors import UndefinedBehaviour
from .codes import BFP_GROUP, DataFormat, Intermediate, Repr
from .l1 import encode_l1
from .layout import U32, dst32_from_fp32, u32
from .pack import EarlyMode, packer_early
from .rounding import round_up_mask

__all__ = ["packer_late", "bfp_encode", "exponent_threshold", "DEFAULT_ROUTE", "encode_from_fp32", "late_undefined"]

_I = Intermediate
_F = DataFormat
_M = EarlyMode




def _check_width(v: np.ndarray, src: Intermediate) -> None:
    if src.is_float:
        full_man = 23 if src.exponent_bits == 8 else 10
        unused = (1 << (full_man - src.mantissa_bits)) - 1
        hi = 0 if src.exponent_bits == 8 else 0xFFFF0000
        bad = v & U32(unused | hi)  # (v & unused) | (v & hi)
    else:
        width = {_I.INT32: 32, _I.INT16: 16, _I.INT8: 8, _I.UINT8: 8}[src]
        bad = v >> U32(width) if width < 32 else np.zeros(1, U32)
    if np.any(bad):
        raise ValueError(f"bit patterns have bits set outside the {src.name} layout")


def _to_e8(v, src: Intermediate, keep: int, what: str, undefined=None) -> np.ndarray:
    """Late conversion of a float intermediate to an 8-bit-exponent type with
    ``keep`` mantissa bits; result in FP32 layout."""
    if src.exponent_bits == 8:
        if keep < src.mantissa_bits:  # mantissa narrows: denormals flushed
            v = np.where((v & 0x7F800000) == 0, v & U32(0x80000000), v).astype(U32)
        return v & ~U32((1 << (23 - keep)) - 1)
    # exponent widens 5 -> 8
    sign = (v & 0x8000) << 16
    exp = (v >> 10) & 0x1F
    man = v & 0x3FF
    denormal = (exp == 0) & (man != 0)
    if keep >= src.mantissa_bits and np.any(denormal):
        i = int(np.argmax(denormal))
        text = (f"packer late conversion {src.name} -> {what}: denormal input 0x{int(v[i]):04x} "
                "is mishandled by hardware (exponent widens, mantissa does not narrow)")
        if undefined is None:
            raise UndefinedBehaviour(text)
        undefined(f"packer late {src.name}->{what} denormal",
                  text + "; ttemu widens the mantissa without rebiasing the exponent, as ttsim does")
    out = sign | ((exp + 112) << 23) | (man << 13)
    widened = sign | (man << 13) if keep >= src.mantissa_bits else sign  # a denormal kept: undefined, above
    out = np.where(exp == 0, widened, out).astype(U32)
    return out & ~U32((1 << (23 - keep)) - 1)


def _to_e5(v, src: Intermediate, keep: int, what: str, undefined=None) -> np.ndarray:
    """Late conversion of a float intermediate to a 5-bit-exponent type with
    ``keep`` mantissa bits; result in FP16 layout."""
    mask = ~U32((1 << (10 - keep)) - 1) & U32(0xFFFF)
    if src.exponent_bits == 5:
        if keep < src.mantissa_bits:  # mantissa narrows: denormals flushed
            v = np.where((v & 0x7C00) == 0, v & U32(0x8000), v).astype(U32)
        return v & mask
    # exponent narrows 8 -> 5: saturate, then truncate
    sign = (v >> 16) & 0x8000
    exp = ((v >> 23) & 0xFF).astype(np.int32)
    man = v & 0x7FFFFF
    mishandled = (exp == 112) & (man != 0)
    if np.any(mishandled):
        i = int(np.argmax(mishandled))
        text = (f"packer late conversion {src.name} -> {what}: input 0x{int(v[i]):08x} lies in "
                "2**-15 < |x| < 2**-14, which hardware mishandles")
        if undefined is None:
            raise UndefinedBehaviour(text)
        undefined(f"packer late {src.name}->{what} 2**-15..2**-14",
                  text + "; ttemu writes the FP16 denormal with the top ten mantissa bits, as ttsim does")
    flush = exp <= 112
    sat = exp > 143  # FP16 exponent above 31; includes infinity and NaN ("NaN becomes infinity")
    e5 = np.clip(exp - 112, 0, 31).astype(U32)
    m10 = (man >> 13).astype(U32)
    out = sign | (e5 << 10) | m10
    out = np.where(sat, sign | U32(0x7FFF), out)
    out = np.where(flush, sign, out)
    out = np.where(mishandled, sign | m10, out).astype(U32)  # undefined, above: ttsim's value
    return out & mask


def bfp_encode(sign, exp, man7, exp_bits: int, *, random=None, overflow: str = "raise") -> tuple[np.ndarray, np.ndarray]:
    """Round (sign, exponent, 7-bit mantissa) datums to BFP8 / BFP8a.

    Each group of 16 consecutive datums shares the largest exponent of the
    group (datums with exponent 0 are zeros and do not take part); each
    datum's ``1.mmmmmmm`` is shifted right by ``1 + (shared - own)`` places
    and rounded (nearest ties away, or stochastic with ``random``) to a 7-bit
    magnitude - "round to BFP8 with one shared 8b exponent per 16 datums",
    Packers/FormatConversion.md.  Returns (datum bytes, shared exponents).

    Not defined by the docs, so decided here:
      * choosing the group maximum as the shared exponent (the only choice
        that keeps every magnitude in range);
      * a magnitude that rounds up to 128 (only possible for a datum at the
        shared exponent whose mantissa is all ones): ``overflow="raise"``
        raises UndefinedBehaviour, ``"saturate"`` clamps to 127 (what the
        tt-metal host converter and ttsim's packer do; the packer uses it);
      * a datum whose magnitude becomes 0 is written with its sign bit clear:
        sign 1 + magnitude 0 means -2**128 / -Infinity (FloatBitPatterns.md),
        so keeping the sign would turn tiny negative values into -Infinity;
      * a zero datum stays zero under stochastic rounding (as SFPSTOCHRND
        treats exponent 0).
    """
    sign = u32(sign).reshape(-1)
    exp = u32(exp).reshape(-1)
    man7 = u32(man7).reshape(-1)
    n = exp.size
    if n % BFP_GROUP:
        raise ValueError(f"BFP encoding needs a multiple of {BFP_GROUP} datums, got {n}")
    shared = exp.reshape(-1, BFP_GROUP).max(axis=1)
    shift = (np.repeat(shared, BFP_GROUP) - exp).astype(np.uint64) + np.uint64(1)
    shift = np.minimum(shift, np.uint64(40))
    full = np.where(exp != 0, man7 | U32(0x80), U32(0)).astype(np.uint64)
    low = full & ((np.uint64(1) << shift) - np.uint64(1))
    mag = (full >> shift) + round_up_mask(low, shift, random).astype(np.uint64)
    mag = np.where(exp != 0, mag, np.uint64(0))
    over = mag > 127
    if np.any(over):
        if overflow == "raise":
            i = int(np.argmax(over))
            raise UndefinedBehaviour(
                f"BFP{'8' if exp_bits == 8 else '8a'} rounding: datum {i} (exponent {int(exp[i])}, "
                f"mantissa 0x{int(man7[i]):02x}) rounds to magnitude 128, which does not fit 7 bits"
            )
        if overflow != "saturate":
            raise ValueError(f"overflow must be 'raise' or 'saturate', not {overflow!r}")
        mag = np.minimum(mag, np.uint64(127))
    mag = mag.astype(U32)
    sign = np.where(mag == 0, U32(0), sign & 1).astype(U32)
    return (sign << 7) | mag, shared.astype(np.uint8)


def _bfp_truncate(bytes8: np.ndarray, bits: int) -> np.ndarray:
    """BFP8 datum -> BFP4 (bits=4) / BFP2 (bits=2) by truncating the magnitude
    ("then truncate to BFP4 or BFP2"); the sign is dropped when the magnitude
    truncates to zero (see :func:`bfp_encode`)."""
    mag = (bytes8 & 0x7F) >> U32(8 - bits)
    sign = np.where(mag == 0, U32(0), bytes8 >> 7)
    return ((sign << U32(bits - 1)) | mag).astype(U32)


_LATE_INT = {
    _F.Int32: {_I.INT32},
    _F.UInt16: {_I.INT16},
    _F.Int8: {_I.INT8, _I.UINT8},
    _F.UInt8: {_I.INT8, _I.UINT8},
}


def packer_late(bits, src: Intermediate, dst: DataFormat, *, random=None, bfp_overflow: str = "raise",
                undefined=None):
    """Late format conversion (Packers/FormatConversion.md, "Late format conversion").

    ``bits``: intermediate values (layouts on :class:`Intermediate`).
    ``dst``: L1 format (``Out_data_format``).  Returns ``(datums, exps)``:
    raw L1 datums (uint32; for BFP the sign+magnitude fields) and, for BFP
    formats, one shared exponent per 16 datums (uint8), else ``None``.
    ``random``: uint32 per datum for stochastic BFP rounding. ``undefined``: a
    callable ``(site, text)`` (the packer passes its tile's diagnostics): the
    data-dependent undefined cases below are then reported through it and the
    conversion goes on with ttsim's values instead of raising
    (docs/undefined-behaviour.md).

    Rules implemented (from the page's three tables):
      * to FP32/BF16: truncate the mantissa; to TF32: only from narrower
        types, bits preserved; to FP16/FP8: saturate the exponent (to
        exponent 31, mantissa all ones - the Tensix FP16 "infinity"), then
        truncate; BFP8: via BF16 then shared-exponent rounding; BFP4/BFP2:
        via BFP8 then truncation; BFP8a: via E5M7 then rounding; BFP4a/BFP2a:
        via BFP8a then truncation; integer formats: identity only.
      * Denormals: kept when the exponent and mantissa do not narrow,
        flushed (to signed zero) when the mantissa narrows; FP16-family
        denormals widened to an 8-bit exponent without mantissa narrowing
        are "mishandled": UndefinedBehaviour.  Narrowing 8 -> 5 exponent
        bits flushes |x| <= 2**-15 and raises UndefinedBehaviour for
        2**-15 < |x| < 2**-14 ("mishandled").
      * NaN: kept where exponent and mantissa keep their width; truncation
        may make it infinity; narrowing to a 5-bit exponent saturates it.
    """
    dst = DataFormat(dst)
    v = u32(bits).reshape(-1)
    _check_width(v, src)
    name = f"{src.name} -> {dst.doc_name}"
    if dst in _LATE_INT:
        if src not in _LATE_INT[dst]:
            raise UndefinedBehaviour(f"packer late conversion {name} is not supported")
        return v.copy(), None
    if not src.is_float:
        raise UndefinedBehaviour(f"packer late conversion {name} is not supported")

    if dst is _F.Float32:
        return _to_e8(v, src, 23, dst.doc_name, undefined), None
    if dst is _F.Tf32:
        if src is _I.FP32:
            raise UndefinedBehaviour(f"packer late conversion {name} is not supported (use the early conversion)")
        return _to_e8(v, src, 10, dst.doc_name, undefined), None
    if dst is _F.Float16_b:
        return _to_e8(v, src, 7, dst.doc_name, undefined) >> 16, None
    if dst is _F.Float16:
        return _to_e5(v, src, 10, dst.doc_name, undefined), None
    if dst is _F.Fp8:
        return _to_e5(v, src, 2, dst.doc_name, undefined) >> 8, None
    if dst in (_F.Bfp8_b, _F.Bfp4_b, _F.Bfp2_b):
        b = _to_e8(v, src, 7, dst.doc_name, undefined)
        datums, exps = bfp_encode(b >> 31, (b >> 23) & 0xFF, (b >> 16) & 0x7F, 8, random=random, overflow=bfp_overflow)
    else:  # Bfp8 / Bfp4 / Bfp2 (the 'a' formats)
        h = _to_e5(v, src, 7, dst.doc_name, undefined)
        datums, exps = bfp_encode(h >> 15, (h >> 10) & 0x1F, (h >> 3) & 0x7F, 5, random=random, overflow=bfp_overflow)
    if dst in (_F.Bfp4_b, _F.Bfp4):
        datums = _bfp_truncate(datums, 4)
    elif dst in (_F.Bfp2_b, _F.Bfp2):
        datums = _bfp_truncate(datums, 2)
    return datums, exps


# ---------------------------------------------------------------------------
# Exponent thresholding
# ---------------------------------------------------------------------------


def exponent_threshold(bits, late_from: DataFormat, threshold: int) -> np.ndarray:
    """Packers/ExponentThresholding.md: datums whose exponent is below
    ``threshold`` become 0.

    ``bits`` are intermediate values (FP32 layout for 8-bit exponents, FP16
    layout for 5-bit ones); ``late_from`` is ``In_data_format``.  FP32, TF32,
    BF16, BFP8, BFP4 compare the 8-bit exponent; FP16, FP8, BFP8a, BFP4a the
    5-bit one; BFP2a is a hardware bug (UndefinedBehaviour); every other
    format passes through.
    """
    v = u32(bits).reshape(-1)
    f = DataFormat(late_from)
    t = int(threshold) & 0xFF
    if f in (_F.Float32, _F.Tf32, _F.Float16_b, _F.Bfp8_b, _F.Bfp4_b):
        e = (v >> 23) & 0xFF
    elif f in (_F.Float16, _F.Fp8, _F.Bfp8, _F.Bfp4):
        e = (v >> 10) & 0x1F
    elif f is _F.Bfp2:
        raise UndefinedBehaviour("exponent thresholding with In_data_format BFP2a (hardware bug)")
    else:
        return v.copy()
    return np.where(e < t, U32(0), v).astype(U32)


# ---------------------------------------------------------------------------
# Convenience: FP32 values -> L1 bytes along a documented packer route
# ---------------------------------------------------------------------------

#: Default intermediate type for packing FP32 Dst data to each L1 format.
DEFAULT_ROUTE = {
    _F.Float32: _I.FP32,
    _F.Tf32: _I.TF32,
    _F.Float16_b: _I.BF16,
    _F.Float16: _I.TF32,
    _F.Fp8: _I.FP32,
    _F.Bfp8_b: _I.E8M6,
    _F.Bfp4_b: _I.E8M6,
    _F.Bfp2_b: _I.E8M6,
    _F.Bfp8: _I.FP32,
    _F.Bfp4: _I.FP32,
    _F.Bfp2: _I.FP32,
}


def encode_from_fp32(
    fp32,
    fmt: DataFormat,
    *,
    intermediate: Intermediate | None = None,
    early_mode: EarlyMode | None = None,
    early_random=None,
    late_random=None,
    bfp_overflow: str = "raise",
) -> np.ndarray:
    """IEEE FP32 bit patterns -> L1 bytes of ``fmt``, as a packer reading
    FP32 from Dst32 would produce them (early conversion then late
    conversion, then the L1 layout).

    Default routes (:data:`DEFAULT_ROUTE`): Tf32, Float16_b round once in
    the early conversion; Float16 rounds to TF32 then saturates the
    exponent; Fp8 and the BFPa formats only truncate (late conversion);
    Bfp*_b round to E8M6 early and round again to the shared exponent (the
    double rounding the docs warn about).  ``intermediate`` / ``early_mode``
    override the route (e.g. ``intermediate=FP32`` for a single BFP rounding
    after BF16 truncation; ``early_mode=TRUNCATE`` for BF16 truncation).
    The length must be a multiple of 16 for BFP formats.
    """
    fmt = DataFormat(fmt)
    inter = intermediate if intermediate is not None else DEFAULT_ROUTE.get(fmt)
    if inter is None:
        raise ValueError(f"encode_from_fp32: {fmt.name} is not a float format")
    mode = early_mode if early_mode is not None else (_M.IDENTITY if inter is _I.FP32 else _M.ROUND)
    x = u32(fp32).reshape(-1)
    v = packer_early(dst32_from_fp32(x), Repr.DST32_FP32, inter, mode, random=early_random)
    datums, exps = packer_late(v, inter, fmt, random=late_random, bfp_overflow=bfp_overflow)
    return encode_l1(datums, fmt, exps)


def fp16_to_fp8_e4m3(fp16) -> np.ndarray:
    """Blackhole's FP8 E4M3 output (``Out_data_format`` FP8 with ``Pac_LF8_4b_exp``; no
    Wormhole page: tt-llk's Blackhole Fp8_e4m3, the arithmetic ttsim's Blackhole
    packer's) from an FP16 intermediate: exponent rebiased by 8 (at or below 8: a zero
    of the datum's sign; 24 and above: saturated to sign | 0x7f), mantissa truncated to
    3 bits."""
    v = u32(fp16).reshape(-1)
    s, e, m = (v >> 15) & 1, (v >> 10) & 0x1F, v & 0x3FF
    out = np.where(e <= 8, s << 7, np.where(e >= 24, (s << 7) | 0x7F, (s << 7) | ((e - 8) << 3) | (m >> 7)))
    return out.astype(U32)


def late_undefined(bits, src: Intermediate, dst: DataFormat) -> np.ndarray:
    """Which intermediate values ``bits`` (of ``src``) :func:`packer_late` reports as
    undefined on the way to ``dst`` (through its ``undefined`` callback, or by raising
    UndefinedBehaviour): FP16-family denormals widened to an 8-bit exponent without
    narrowing the mantissa, and 8-bit-exponent values in 2**-15 < |x| < 2**-14 narrowed to
    a 5-bit exponent (the two data-dependent cases of ``_to_e8`` / ``_to_e5``). A bool
    array; conversions that raise for every value (unsupported pairs) are not flagged."""
    v = u32(bits).reshape(-1)
    dst = DataFormat(dst)
    none = np.zeros(v.shape, dtype=bool)
    if dst in _LATE_INT or not src.is_float:
        return none
    keep, wide = _LATE_FLOAT_KEEP.get(dst, (7, False))  # (the BFP 'a' formats: via E5M7)
    if wide:
        if src.exponent_bits == 8 or keep < src.mantissa_bits:
            return none
        return (((v >> 10) & 0x1F) == 0) & ((v & 0x3FF) != 0)
    if src.exponent_bits == 5:
        return none
    return (((v >> 23) & 0xFF) == 112) & ((v & 0x7FFFFF) != 0)


#: packer_late's float targets -> (mantissa bits kept, whether the exponent is 8 bits wide)
_LATE_FLOAT_KEEP = {
    _F.Float32: (23, True), _F.Tf32: (10, True), _F.Float16_b: (7, True), _F.Float16: (10, False),
    _F.Fp8: (2, False), _F.Bfp8_b: (7, True), _F.Bfp4_b: (7, True), _F.Bfp2_b: (7, True),
}
