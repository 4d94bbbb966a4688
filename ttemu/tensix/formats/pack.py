"""The packers' early format conversion (Dst -> intermediate).

Implements the early-conversion table and the "Configuring the conversions"
recipes of Packers/FormatConversion.md.  Intermediate values travel as
np.uint32 arrays in the layouts documented on
:class:`~ttemu.tensix.formats.codes.Intermediate`.  Rounding: see
:mod:`~ttemu.tensix.formats.rounding`.
"""

from __future__ import annotations

import enum

import numpy as np

from ...errors import UndefinedBehaviour
from .codes import DataFormat, Intermediate, Repr
from .layout import U32, dst16_to_bf16, dst16_to_fp16, dst32_to_fp32, u32
from .rounding import round_fp16_mantissa, round_fp32_mantissa, round_up_mask

__all__ = ["EarlyMode", "EARLY_TABLE", "packer_early", "early_from_config", "to_fp16_round10", "round10_tf32",
           "tf32_to_fp16"]

_I = Intermediate


class EarlyMode(enum.Enum):
    """How the early conversion gets from the Dst type to the intermediate type
    (the cell entries of the early-conversion table)."""

    IDENTITY = "identity"
    BITCAST = "bitcast"
    ROUND = "round"  # nearest (ties away), or stochastic when random is given
    TRUNCATE = "truncate"
    RAW = "raw"  # the INT8/UINT8 "sign bit and low bits" / "sign bit only" cells


_M = EarlyMode
#: (Dst type, intermediate) -> allowed modes, from the early-conversion table.
EARLY_TABLE: dict[tuple[str, Intermediate], frozenset[EarlyMode]] = {
    ("fp32", _I.FP32): frozenset({_M.IDENTITY}),
    ("int32", _I.FP32): frozenset({_M.BITCAST}),
    ("fp32", _I.TF32): frozenset({_M.ROUND}),
    ("bf16", _I.TF32): frozenset({_M.ROUND}),
    ("int32", _I.TF32): frozenset({_M.ROUND}),  # bitcast to FP32, then rounding
    ("fp32", _I.BF16): frozenset({_M.ROUND, _M.TRUNCATE}),
    ("bf16", _I.BF16): frozenset({_M.ROUND, _M.IDENTITY}),
    ("int32", _I.BF16): frozenset({_M.BITCAST}),  # top 16 bits
    ("fp32", _I.E8M6): frozenset({_M.ROUND}),
    ("bf16", _I.E8M6): frozenset({_M.ROUND}),
    ("fp16", _I.FP16): frozenset({_M.ROUND, _M.IDENTITY}),
    ("fp16", _I.E5M7): frozenset({_M.TRUNCATE}),
    ("fp16", _I.E5M6): frozenset({_M.ROUND}),
    ("fp16", _I.FP8): frozenset({_M.TRUNCATE}),
    ("fp32", _I.INT32): frozenset({_M.BITCAST}),
    ("int32", _I.INT32): frozenset({_M.IDENTITY}),
    ("int16", _I.INT16): frozenset({_M.IDENTITY}),
    # The table says "No", but tt-llk's configure_pack asks for it (a UInt16 pack_src
    # with a 32-bit Dst: Read_32b_data); ttsim takes the high 16 bits of the Dst32
    # storage, which is where a 16-bit datum moved into a 32-bit Dst sits.
    ("int32", _I.INT16): frozenset({_M.BITCAST}),
    ("fp32", _I.INT8): frozenset({_M.RAW}),  # sign bit and low 7 bits of mantissa
    ("bf16", _I.INT8): frozenset({_M.RAW}),  # sign bit only
    ("fp16", _I.INT8): frozenset({_M.RAW}),  # sign bit only
    ("int32", _I.INT8): frozenset({_M.ROUND, _M.RAW}),
    ("fp32", _I.UINT8): frozenset({_M.RAW}),  # low 8 bits of mantissa
    ("int32", _I.UINT8): frozenset({_M.ROUND, _M.RAW}),
}

_DST_KIND = {
    Repr.DST32_FP32: "fp32",
    Repr.DST32_INT32: "int32",
    Repr.DST16_BF16: "bf16",
    Repr.DST16_FP16: "fp16",
    Repr.DST16_INT16: "int16",
}


def _int_shift_round(v, shift, random, limit: int, unsigned: bool) -> np.ndarray:
    sign = v >> 31
    mag = (v & 0x7FFFFFFF).astype(np.uint64)
    s = np.broadcast_to(np.asarray(shift, dtype=np.int64) & 31, mag.shape).astype(np.uint64)
    low = mag & ((np.uint64(1) << s) - np.uint64(1))
    q = (mag >> s) + round_up_mask(low, s, random).astype(np.uint64)
    q = np.minimum(q, np.uint64(limit)).astype(U32)
    if unsigned:
        # "saturate (0 to 255)": negative values saturate to 0.
        return np.where(sign == 1, U32(0), q).astype(U32)
    return ((sign << 7) | q).astype(U32)


def packer_early(dst_bits, src: Repr, dst: Intermediate, mode: EarlyMode, *, shift=0, random=None) -> np.ndarray:
    """Early format conversion of raw Dst values (Packers/FormatConversion.md).

    ``dst_bits``: Dst storage bits as read (``Dst32b`` values for
    DST32_FP32 / DST32_INT32, ``Dst16b`` values for DST16_BF16 / DST16_FP16
    / DST16_INT16).  ``src`` names how they are interpreted, ``dst`` the
    intermediate type, ``mode`` the table cell.  ``shift``: the INT8/UINT8
    ``ShiftAmount`` (low five bits; scalar or per datum).  ``random``: uint32
    array for stochastic rounding (one per datum), else deterministic.
    Combinations the table marks "No" raise UndefinedBehaviour.
    """
    kind = _DST_KIND.get(src)
    if kind is None:
        raise ValueError(f"packer_early: {src} is not a Dst type")
    allowed = EARLY_TABLE.get((kind, dst), frozenset())
    if mode not in allowed:
        raise UndefinedBehaviour(
            f"packer early conversion {kind.upper()} -> {dst.name} by {mode.value} is not supported"
            + (f" (supported: {', '.join(sorted(m.value for m in allowed))})" if allowed else "")
        )
    x = u32(dst_bits).reshape(-1)
    if dst is _I.INT16 and kind == "int32":
        return (x >> 16).astype(U32)  # the high half of the storage, undecoded
    if kind in ("fp32", "int32"):
        v = dst32_to_fp32(x)
    elif kind == "bf16":
        v = dst16_to_bf16(x) << 16
    elif kind == "fp16":
        v = dst16_to_fp16(x)
    else:
        v = x & 0xFFFF

    if dst in (_I.FP32, _I.INT32, _I.INT16):
        return v.copy()
    if dst in (_I.TF32, _I.BF16, _I.E8M6):
        if mode is _M.ROUND:
            return round_fp32_mantissa(v, dst.mantissa_bits, random)
        if mode is _M.TRUNCATE or mode is _M.BITCAST:
            return v & U32(0xFFFF0000)
        return v.copy()  # BF16 identity
    if dst in (_I.FP16, _I.E5M6):
        if mode is _M.ROUND:
            return round_fp16_mantissa(v, dst.mantissa_bits, random)
        return v.copy()
    if dst is _I.E5M7:
        return v & U32(0xFFF8)
    if dst is _I.FP8:
        return v & U32(0xFF00)
    if dst is _I.INT8:
        if mode is _M.ROUND:
            return _int_shift_round(v, shift, random, 127, unsigned=False)
        if kind in ("fp32", "int32"):
            return ((v >> 31) << 7) | (v & 0x7F)
        sign_bit = 31 if kind == "bf16" else 15
        return ((v >> sign_bit) & 1) << 7
    # UINT8
    if mode is _M.ROUND:
        return _int_shift_round(v, shift, random, 255, unsigned=True)
    return v & U32(0xFF)


def to_fp16_round10(dst_bits, src: Repr) -> np.ndarray:
    """Blackhole's ``Round_10b_mant`` early conversion to FP16 (no Wormhole page: tt-llk's
    Blackhole configure_pack sets it to pack FP16 from an FP32 Dst, and from a BF16 Dst
    for FP8 E4M3; the arithmetic is ttsim's Blackhole packer's): a Dst32 value through
    :func:`round10_tf32` and :func:`tf32_to_fp16`; a BF16 Dst value with its mantissa
    widened, rebiased as :func:`tf32_to_fp16` does."""
    x = u32(dst_bits).reshape(-1)
    if src is Repr.DST16_BF16:
        b = dst16_to_bf16(x)
        return tf32_to_fp16(((b >> 15) << 18) | (((b >> 7) & 0xFF) << 10) | ((b & 0x7F) << 3))
    return tf32_to_fp16(round10_tf32(x))


def round10_tf32(dst32_bits) -> np.ndarray:
    """A Dst32 value rounded to 10 mantissa bits, as 19 bits (sign, 8-bit exponent, 10-bit
    mantissa): a NaN becomes an infinity of its sign, the magnitude rounds half away from
    zero (carrying into the exponent), exponent 0 becomes +0 (see to_fp16_round10)."""
    v = dst32_to_fp32(u32(dst32_bits).reshape(-1))
    v = np.where((v & 0x7FFFFFFF) > 0x7F800000, (v & U32(0x80000000)) | U32(0x7F800000), v).astype(U32)
    v = ((v.astype(np.uint64) + 0x1000) >> 13).astype(U32)
    return np.where((v & 0x3FFFF) < 0x400, U32(0), v).astype(U32)


def tf32_to_fp16(v19) -> np.ndarray:
    """19-bit sign / 8-bit exponent / 10-bit mantissa values to FP16: the exponent
    rebiased by 112; below FP16's range a zero of the datum's sign, above it sign |
    0x7fff (saturated); exponent 31 is an ordinary FP16 exponent (see to_fp16_round10)."""
    v = u32(v19)
    s, e, m = v >> 18, ((v >> 10) & 0xFF).astype(np.int64) - 112, v & 0x3FF
    sign = (s << 15).astype(U32)
    out = np.where(e < 0, sign, np.where(e > 31, sign | U32(0x7FFF), sign | (np.clip(e, 0, 31) << 10).astype(U32) | m))
    return out.astype(U32)


def early_from_config(
    *,
    read_32b_data: bool,
    read_raw: bool,
    round_10b_mant: bool,
    read_unsigned: bool,
    intermediate_code: int,
    late_from: DataFormat | None = None,
    late_to: DataFormat | None = None,
) -> tuple[Repr, Intermediate, EarlyMode]:
    """Configuration fields -> (Dst reading, intermediate type, mode) for
    :func:`packer_early`.

    Inverts the recipes of Packers/FormatConversion.md "Configuring the
    conversions": ``read_32b_data`` is ``PCK_DEST_RD_CTRL_Read_32b_data``,
    ``read_raw`` is ``PCK_DEST_RD_CTRL_Read_int8``, ``round_10b_mant`` is
    ``PCK_DEST_RD_CTRL_Round_10b_mant``, ``read_unsigned`` is
    ``PCK_DEST_RD_CTRL_Read_unsigned``, ``intermediate_code`` is the
    (override-resolved) ``Dstacc`` format code.  ``late_from`` / ``late_to``
    (``In_data_format`` / ``Out_data_format``) only matter for the BF16
    intermediate with ``Round_10b_mant`` (which gives TF32 when the late
    conversion is TF32 -> FP16).  A combination that matches no recipe raises
    UndefinedBehaviour.  With 32-bit data, FP32 and INT32 Dst contents give
    the same bits for every recipe, so the reading returned is DST32_INT32 for
    integer intermediates and DST32_FP32 otherwise.
    """
    code = int(intermediate_code) & 0xF
    late_tf32_fp16 = late_from is DataFormat.Tf32 and late_to is DataFormat.Float16
    late_bf16_fp16 = late_from is DataFormat.Float16_b and late_to is DataFormat.Float16
    c = DataFormat
    r: tuple[Repr, Intermediate, EarlyMode] | None = None
    if read_32b_data:
        fp, it = Repr.DST32_FP32, Repr.DST32_INT32
        if code == c.Int32:
            r = (it, _I.INT32, _M.IDENTITY)
        elif code == c.Float32:
            r = (fp, _I.TF32, _M.ROUND) if (round_10b_mant and not read_raw) else (fp, _I.FP32, _M.IDENTITY)
        elif code == c.Tf32:
            r = (fp, _I.FP32, _M.IDENTITY) if read_raw else (fp, _I.TF32, _M.ROUND)
        elif code == c.Float16_b:
            if read_raw:
                if not (late_bf16_fp16 and round_10b_mant):
                    r = (fp, _I.BF16, _M.TRUNCATE)
            elif round_10b_mant and late_tf32_fp16:
                r = (fp, _I.TF32, _M.ROUND)
            elif not (round_10b_mant and late_bf16_fp16):
                r = (fp, _I.BF16, _M.ROUND)
        elif code == c.Bfp8_b:
            r = (fp, _I.BF16, _M.TRUNCATE) if read_raw else (fp, _I.E8M6, _M.ROUND)
        elif code == c.Int8:
            inter = _I.UINT8 if read_unsigned else _I.INT8
            r = (it, inter, _M.RAW if read_raw else _M.ROUND)
        elif code == c.UInt16:
            r = (it, _I.INT16, _M.BITCAST)  # tt-llk's UInt16 with a 32-bit Dst (see EARLY_TABLE)
    else:
        bf, fh = Repr.DST16_BF16, Repr.DST16_FP16
        if code == c.Tf32 and not read_raw:
            r = (bf, _I.TF32, _M.ROUND)
        elif code == c.Float32 and round_10b_mant and not read_raw:
            r = (bf, _I.TF32, _M.ROUND)
        elif code == c.Float16_b:
            if read_raw:
                if not (late_bf16_fp16 and round_10b_mant):
                    r = (bf, _I.BF16, _M.IDENTITY)
            elif round_10b_mant and late_tf32_fp16:
                r = (bf, _I.TF32, _M.ROUND)
            elif not (round_10b_mant and late_bf16_fp16):
                r = (bf, _I.BF16, _M.ROUND)
        elif code == c.Bfp8_b:
            r = (bf, _I.BF16, _M.IDENTITY) if read_raw else (bf, _I.E8M6, _M.ROUND)
        elif code == c.Float16:
            r = (fh, _I.FP16, _M.IDENTITY if read_raw else _M.ROUND)
        elif code == c.Bfp8:
            r = (fh, _I.E5M7, _M.TRUNCATE) if read_raw else (fh, _I.E5M6, _M.ROUND)
        elif code == c.Fp8 and read_raw:
            r = (fh, _I.FP8, _M.TRUNCATE)
        elif code == c.Int8 and read_raw and not read_unsigned:
            r = (bf, _I.INT8, _M.RAW)  # sign bit only; bit 15 in both BF16 and FP16 layouts
        elif code == c.UInt16:
            r = (Repr.DST16_INT16, _I.INT16, _M.IDENTITY)
    if r is None:
        raise UndefinedBehaviour(
            "packer early conversion: no documented recipe for "
            f"Read_32b_data={int(read_32b_data)} Read_int8={int(read_raw)} Round_10b_mant={int(round_10b_mant)} "
            f"Read_unsigned={int(read_unsigned)} IntermediateFormat={code}"
        )
    return r
