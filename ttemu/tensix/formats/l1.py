"""L1 byte layouts and the BFP -> BF16 / FP16 expansion.

L1 is byte-addressed little-endian; the unpacker reads a datum's bits
least-significant first from increasing addresses (``ReadL1Bytes`` in
UNPACR_Regular.md), so two BFP4 datums share a byte with the first one in the
low nibble, and four BFP2 datums share a byte with the first in bits 1:0.
A BFP tile is its exponent section (one byte per 16 datums, padded to 16
bytes) followed by its datum section (UNPACR_Regular.md ``InAddr_Exponents``;
Packers/FormatConversion.md "Final L1 output format";
Packers/OutputAddressGenerator.md).
"""

from __future__ import annotations

import numpy as np

from ...errors import UndefinedBehaviour
from .codes import BFP_GROUP, DataFormat, datum_bits, exponent_section_bytes, is_bfp
from .layout import U32, u32

__all__ = [
    "as_bytes",
    "read_datums",
    "write_datums",
    "decode_l1",
    "encode_l1",
    "expand_exponents",
    "exponents_for",
    "bfp_to_bf16",
    "bfp_to_fp16",
]

# Leading zeros of an 8-bit value (index 0 unused).  Tiny constant table.
_CLZ8 = np.array([8] + [7 - int(i).bit_length() + 1 for i in range(1, 256)], dtype=np.uint32)


def as_bytes(buf) -> np.ndarray:
    """bytes / bytearray / memoryview / uint8 array -> 1-D uint8 array (no copy when possible)."""
    if isinstance(buf, np.ndarray):
        if buf.dtype != np.uint8:
            raise TypeError(f"expected a uint8 array, got {buf.dtype}")
        return buf.reshape(-1)
    return np.frombuffer(memoryview(buf).cast("B"), dtype=np.uint8)


def read_datums(buf, fmt: DataFormat, count: int, first: int = 0) -> np.ndarray:
    """Extract ``count`` raw datums of ``fmt`` from a datum section, bits read
    least-significant first as ``ReadL1Bytes`` does (UNPACR_Regular.md).

    Datum ``first`` is the first one returned.  For BFP formats ``buf`` is the
    datum section only (see :func:`decode_l1` for whole tiles); the results
    are the sign+magnitude fields (8, 4 or 2 bits).  Returns uint32.
    """
    b = as_bytes(buf)
    nbits = datum_bits(fmt)
    count = int(count)
    first = int(first)
    if nbits >= 8:
        nb = nbits // 8
        raw = b[first * nb : (first + count) * nb]
        if raw.size != count * nb:
            raise ValueError("buffer too short")
        return raw.view("<u%d" % nb).astype(U32) if nb > 1 else raw.astype(U32)
    per = 8 // nbits
    idx = np.arange(first, first + count)
    byte_idx = idx // per
    if count and byte_idx[-1] >= b.size:
        raise ValueError("buffer too short")
    shift = ((idx % per) * nbits).astype(U32)
    return (b[byte_idx].astype(U32) >> shift) & U32((1 << nbits) - 1)


def write_datums(datums, fmt: DataFormat) -> np.ndarray:
    """Raw datums -> datum-section bytes (inverse of :func:`read_datums`; the
    bit order of ``ReadL1Bytes``, UNPACR_Regular.md).

    Sub-byte formats are packed least-significant first; a partial last byte
    is zero-padded.  Bits above the datum width raise ValueError.
    """
    d = u32(datums).reshape(-1)
    nbits = datum_bits(fmt)
    if np.any(d >> nbits if nbits < 32 else np.zeros(1, U32)):
        raise ValueError(f"datum wider than {nbits} bits for {DataFormat(fmt).name}")
    if nbits >= 8:
        return d.astype("<u%d" % (nbits // 8)).view(np.uint8).copy() if nbits > 8 else d.astype(np.uint8)
    per = 8 // nbits
    pad = (-d.size) % per
    d = np.concatenate([d, np.zeros(pad, U32)]).reshape(-1, per)
    shifts = (np.arange(per) * nbits).astype(U32)
    return np.bitwise_or.reduce(d << shifts, axis=1).astype(np.uint8)


def decode_l1(buf, fmt: DataFormat, count: int = 1024) -> tuple[np.ndarray, np.ndarray | None]:
    """L1 bytes of ``count`` datums -> (raw datums uint32, exponents uint8 or None).

    Layout per UNPACR_Regular.md (exponent section, then datums).

    For BFP formats, the buffer starts with the exponent section
    (:func:`~ttemu.tensix.formats.codes.exponent_section_bytes`) and the
    exponents returned are one per group of 16 datums.
    """
    b = as_bytes(buf)
    if not is_bfp(fmt):
        return read_datums(b, fmt, count), None
    n_exp = -(-count // BFP_GROUP)
    exps = b[:n_exp].copy()
    if exps.size != n_exp:
        raise ValueError("buffer too short")
    return read_datums(b[exponent_section_bytes(count) :], fmt, count), exps


def encode_l1(datums, fmt: DataFormat, exps=None) -> np.ndarray:
    """Raw datums (+ group exponents for BFP) -> L1 bytes; inverse of :func:`decode_l1`
    (Packers/FormatConversion.md "Final L1 output format": a separate exponent
    stream, one byte per 16 datums, ahead of the datums).

    The exponent section is zero-padded to a multiple of 16 bytes.
    """
    d = u32(datums).reshape(-1)
    data = write_datums(d, fmt)
    if not is_bfp(fmt):
        if exps is not None:
            raise ValueError(f"{DataFormat(fmt).name} has no exponent section")
        return data
    if exps is None:
        raise ValueError(f"{DataFormat(fmt).name} needs exponents")
    e = u32(exps).reshape(-1)
    n_exp = -(-d.size // BFP_GROUP)
    if e.size != n_exp:
        raise ValueError(f"expected {n_exp} exponents, got {e.size}")
    if np.any(e > 0xFF):
        raise ValueError("exponent wider than 8 bits")
    sec = np.zeros(exponent_section_bytes(d.size), np.uint8)
    sec[:n_exp] = e
    return np.concatenate([sec, data])


def expand_exponents(exps, count: int) -> np.ndarray:
    """Per-group (or already per-datum) exponents -> one exponent per datum (uint32);
    16 datums share an exponent (FloatBitPatterns.md#bfp)."""
    e = u32(exps).reshape(-1)
    if e.size == count:
        return e
    if e.size == -(-count // BFP_GROUP):
        return np.repeat(e, BFP_GROUP)[:count]
    raise ValueError(f"{e.size} exponents do not fit {count} datums")


def exponents_for(exp_section, first: int, count: int) -> np.ndarray:
    """Shared exponent of each of datums ``first .. first+count-1`` (uint32).

    The unpacker advances its exponent address by 1/16 byte per datum from
    ``FirstDatum / 16`` (UNPACR_Regular.md), so datum ``i`` of the tile uses
    exponent byte ``i // 16`` wherever the read starts.
    """
    e = as_bytes(exp_section) if not isinstance(exp_section, np.ndarray) else np.asarray(exp_section).reshape(-1)
    idx = (int(first) + np.arange(int(count))) // BFP_GROUP
    if count and idx[-1] >= e.size:
        raise ValueError("exponent section too short")
    return e[idx].astype(U32)


def _bfp_normalise(datums, exps, fmt: DataFormat):
    d = u32(datums).reshape(-1)
    nbits = datum_bits(fmt)
    if not is_bfp(fmt):
        raise ValueError(f"{DataFormat(fmt).name} is not a BFP format")
    d8 = (d << (8 - nbits)) & 0xFF  # BFP4/BFP2 are widened as DatumBits << 4 / << 6
    e = expand_exponents(exps, d.size) & 0xFF
    sign = d8 >> 7
    mag = (d8 << 1) & 0xFF
    lz = _CLZ8[mag]
    norm = (mag << lz) & 0xFF
    exp = (e - lz) & 0xFF  # uint8 arithmetic in the reference: wraps below zero
    return sign, mag, norm, exp


def bfp_to_bf16(datums, exps, fmt: DataFormat) -> np.ndarray:
    """BFP8/BFP4/BFP2 (the ``*_b`` formats) -> IEEE-layout BF16 bits.

    ``BFP8ToBF16`` of FloatBitPatterns.md ("Conversion routines"), which the
    unpacker uses (UNPACR_Regular.md): magnitude 0 gives +0, or -Infinity
    (0xff80) when the sign is set; otherwise the magnitude is normalised and
    the shared exponent reduced by the shift.

    Docs disagreement: the BFP8 value table says a datum means
    ``Mag/2**6 * 2**(Exp-127)`` for any exponent, but the conversion routine
    computes the exponent in ``uint8_t``, so when the shift exceeds the shared
    exponent it wraps to a huge exponent, and when it equals it the result has
    a zero exponent field (read as zero by the FPU).  We follow the
    conversion routine (it is what "hardware will" do); pinned by a test.
    ``exps`` may be per group of 16 or per datum.
    """
    fmt = DataFormat(fmt)
    if fmt not in (DataFormat.Bfp8_b, DataFormat.Bfp4_b, DataFormat.Bfp2_b):
        raise ValueError(f"bfp_to_bf16 takes Bfp8_b/Bfp4_b/Bfp2_b, not {fmt.name}")
    sign, mag, norm, exp = _bfp_normalise(datums, exps, fmt)
    out = (sign << 15) | (exp << 7) | (norm & 0x7E)
    zero = np.where(sign == 1, U32(0xFF80), U32(0))
    return np.where(mag == 0, zero, out).astype(U32)


def bfp_to_fp16(datums, exps, fmt: DataFormat) -> np.ndarray:
    """BFP8a/BFP4a/BFP2a (stack names Bfp8/Bfp4/Bfp2) -> IEEE-layout FP16 bits.

    ``BFP8aToFP16`` of FloatBitPatterns.md: magnitude 0 gives +0, or 0xfc00
    (-2**16 in Tensix FP16) when the sign is set.  The routine declares
    undefined behaviour when the adjusted exponent has any of bits 7:5 set
    (a shared exponent above 31, or a wrap below zero); we raise
    :class:`UndefinedBehaviour` naming the first such datum.
    """
    fmt = DataFormat(fmt)
    if fmt not in (DataFormat.Bfp8, DataFormat.Bfp4, DataFormat.Bfp2):
        raise ValueError(f"bfp_to_fp16 takes Bfp8/Bfp4/Bfp2, not {fmt.name}")
    sign, mag, norm, exp = _bfp_normalise(datums, exps, fmt)
    bad = (mag != 0) & ((exp & 0xE0) != 0)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise UndefinedBehaviour(
            f"{fmt.doc_name} -> FP16: datum {i} gives exponent {int(exp[i])} "
            "(bits 7:5 set; shared exponent too large or shift wraps below zero)"
        )
    out = (sign << 15) | ((exp & 0x1F) << 10) | ((norm & 0x7E) << 3)
    zero = np.where(sign == 1, U32(0xFC00), U32(0))
    return np.where(mag == 0, zero, out).astype(U32)
