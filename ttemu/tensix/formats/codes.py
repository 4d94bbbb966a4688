"""Format codes, datum sizes and tile helpers.

The 4-bit data format codes are the encoding used by every configuration
field that names a format (``IntermediateFormat``, ``In_data_format``,
``Out_data_format``, ``InDataFormat`` ...): see the encoding table at the end
of ``Packers/FormatConversion.md`` ("Configuring the conversions"), and the
``DatumSizeBytes`` switch in ``UNPACR_Regular.md``.
"""

from __future__ import annotations

import enum

import numpy as np

from ...errors import UndefinedBehaviour

__all__ = [
    "DataFormat",
    "Intermediate",
    "Repr",
    "from_hw_code",
    "is_bfp",
    "datum_bits",
    "bfp_exponent_bits",
    "exponent_section_bytes",
    "tile_bytes",
    "tile_to_faces",
    "faces_to_tile",
    "TILE_DATUMS",
    "FACE_DATUMS",
    "BFP_GROUP",
]

TILE_DATUMS = 1024
FACE_DATUMS = 256
BFP_GROUP = 16  # datums sharing one exponent


class DataFormat(enum.IntEnum):
    """L1 data formats, valued with their hardware 4-bit codes.

    Names follow the software stack (tt-metal); the ISA documentation's name
    for each is given by :attr:`doc_name`.  Beware the BFP naming swap: the
    stack's ``Bfp8`` (code 2) is the docs' ``BFP8a`` (5-bit shared exponent),
    and the stack's ``Bfp8_b`` (code 6) is the docs' ``BFP8`` (8-bit shared
    exponent).  Codes 12 and 13 are unassigned.

    ``UInt8`` is not a hardware code: hardware uses code 14 (INT8) plus an
    "unsigned" configuration bit (``ALU_FORMAT_SPEC_REG0_Src[AB]Unsigned`` for
    unpackers, ``PCK_DEST_RD_CTRL_Read_unsigned`` for packers).  It is given
    the value 30 (the stack's number) so it never collides with a 4-bit
    field; :attr:`hw_code` maps it back to 14.
    """

    Float32 = 0
    Float16 = 1
    Bfp8 = 2
    Bfp4 = 3
    Tf32 = 4
    Float16_b = 5
    Bfp8_b = 6
    Bfp4_b = 7
    Int32 = 8
    UInt16 = 9
    Fp8 = 10
    Bfp2 = 11
    Int8 = 14
    Bfp2_b = 15
    UInt8 = 30
    # Aliases (same members):
    Lf8 = 10
    Int16 = 9

    @property
    def hw_code(self) -> int:
        """The 4-bit code written to configuration registers."""
        return 14 if self is DataFormat.UInt8 else int(self)

    @property
    def doc_name(self) -> str:
        """The name the ISA documentation uses for this format."""
        return _DOC_NAMES[self]

    @property
    def is_bfp(self) -> bool:
        return self in _BFP

    @property
    def exponent_bits(self) -> int | None:
        """Width of the (per-datum or shared) exponent, ``None`` for integers."""
        return _EXP_BITS.get(self)

    @property
    def mantissa_bits(self) -> int | None:
        """Stored mantissa (float) or magnitude (BFP) bits; ``None`` for integers."""
        return _MAN_BITS.get(self)


_DOC_NAMES = {
    DataFormat.Float32: "FP32",
    DataFormat.Float16: "FP16",
    DataFormat.Bfp8: "BFP8a",
    DataFormat.Bfp4: "BFP4a",
    DataFormat.Tf32: "TF32",
    DataFormat.Float16_b: "BF16",
    DataFormat.Bfp8_b: "BFP8",
    DataFormat.Bfp4_b: "BFP4",
    DataFormat.Int32: "INT32",
    DataFormat.UInt16: "INT16",
    DataFormat.Fp8: "FP8",
    DataFormat.Bfp2: "BFP2a",
    DataFormat.Int8: "INT8",
    DataFormat.Bfp2_b: "BFP2",
    DataFormat.UInt8: "UINT8",
}

_BFP = frozenset(
    {
        DataFormat.Bfp8,
        DataFormat.Bfp4,
        DataFormat.Bfp2,
        DataFormat.Bfp8_b,
        DataFormat.Bfp4_b,
        DataFormat.Bfp2_b,
    }
)

_BITS = {
    DataFormat.Float32: 32,
    DataFormat.Tf32: 32,
    DataFormat.Int32: 32,
    DataFormat.Float16: 16,
    DataFormat.Float16_b: 16,
    DataFormat.UInt16: 16,
    DataFormat.Fp8: 8,
    DataFormat.Int8: 8,
    DataFormat.UInt8: 8,
    DataFormat.Bfp8: 8,
    DataFormat.Bfp8_b: 8,
    DataFormat.Bfp4: 4,
    DataFormat.Bfp4_b: 4,
    DataFormat.Bfp2: 2,
    DataFormat.Bfp2_b: 2,
}

_EXP_BITS = {
    DataFormat.Float32: 8,
    DataFormat.Tf32: 8,
    DataFormat.Float16_b: 8,
    DataFormat.Bfp8_b: 8,
    DataFormat.Bfp4_b: 8,
    DataFormat.Bfp2_b: 8,
    DataFormat.Float16: 5,
    DataFormat.Fp8: 5,
    DataFormat.Bfp8: 5,
    DataFormat.Bfp4: 5,
    DataFormat.Bfp2: 5,
}

_MAN_BITS = {
    DataFormat.Float32: 23,
    DataFormat.Tf32: 10,
    DataFormat.Float16_b: 7,
    DataFormat.Float16: 10,
    DataFormat.Fp8: 2,
    DataFormat.Bfp8_b: 7,
    DataFormat.Bfp8: 7,
    DataFormat.Bfp4_b: 3,
    DataFormat.Bfp4: 3,
    DataFormat.Bfp2_b: 1,
    DataFormat.Bfp2: 1,
}


def from_hw_code(code: int, *, unsigned: bool = False) -> DataFormat:
    """Decode a 4-bit configuration field into a :class:`DataFormat`.

    ``unsigned`` selects ``UInt8`` for code 14.  Codes 12 and 13 are not
    assigned by the encoding table in Packers/FormatConversion.md, so they
    raise :class:`UndefinedBehaviour`.
    """
    code = int(code) & 0xF
    if code in (12, 13):
        raise UndefinedBehaviour(f"data format code {code} is not assigned to any format")
    fmt = DataFormat(code)
    if fmt is DataFormat.Int8 and unsigned:
        return DataFormat.UInt8
    return fmt


def is_bfp(fmt: DataFormat) -> bool:
    return DataFormat(fmt) in _BFP


def datum_bits(fmt: DataFormat) -> int:
    """Bits per datum in L1 (BFP: sign+magnitude bits only, exponents excluded).

    Per the ``DatumSizeBytes`` switch of UNPACR_Regular.md.
    """
    return _BITS[DataFormat(fmt)]


def bfp_exponent_bits(fmt: DataFormat) -> int:
    """8 for BFP8/4/2 (``*_b``), 5 for BFP8a/4a/2a; FloatBitPatterns.md#bfp."""
    fmt = DataFormat(fmt)
    if fmt not in _BFP:
        raise ValueError(f"{fmt.name} is not a BFP format")
    return _EXP_BITS[fmt]


class Intermediate(enum.Enum):
    """Packer intermediate formats (output of the early format conversion).

    From the early-conversion table of Packers/FormatConversion.md.  The bit
    patterns that carry these through :mod:`~ttemu.tensix.formats.pack` are
    np.uint32 arrays laid out as:

    * 8-bit-exponent floats (FP32, TF32, BF16, E8M6): IEEE FP32 layout, the
      mantissa bits below the type's width are zero.
    * 5-bit-exponent floats (FP16, E5M7, E5M6, FP8): IEEE FP16 layout in the
      low 16 bits, the mantissa bits below the type's width are zero.
    * INT32: sign + 31-bit magnitude.  INT16: the 16 opaque bits.
      INT8: sign + 7-bit magnitude.  UINT8: 8-bit unsigned.
    """

    FP32 = ("FP32", 8, 23)
    TF32 = ("TF32", 8, 10)
    BF16 = ("BF16", 8, 7)
    E8M6 = ("E8M6", 8, 6)
    FP16 = ("FP16", 5, 10)
    E5M7 = ("E5M7", 5, 7)
    E5M6 = ("E5M6", 5, 6)
    FP8 = ("FP8", 5, 2)
    INT32 = ("INT32", None, None)
    INT16 = ("INT16", None, None)
    INT8 = ("INT8", None, None)
    UINT8 = ("UINT8", None, None)

    # (``_value_`` is ``value`` without the enum descriptor's cost: read per PACR)
    @property
    def exponent_bits(self) -> int | None:
        return self._value_[1]

    @property
    def mantissa_bits(self) -> int | None:
        return self._value_[2]

    @property
    def is_float(self) -> bool:
        return self._value_[1] is not None


class Repr(enum.Enum):
    """In-register representations (bit layouts) used by the emulator.

    Src (19-bit, SrcASrcB.md "Data type bit layout"):
      SRC_TF32  sign[18] man[17:8] exp[7:0]
      SRC_BF16  sign[18] man[17:11] 0[10:8] exp[7:0]
      SRC_FP16  sign[18] man[17:8] 0[7:5] exp[4:0]
      SRC_INT8  sign[18] mag[17:8] 0[7:5] (16 or 0)[4:0]
      SRC_INT16 sign[18] maghi[17:11] 0[10:8] maglo[7:0]
    Dst16 (Dst.md):
      DST16_BF16  sign[15] man[14:8] exp[7:0]
      DST16_FP16  sign[15] man[14:5] exp[4:0]
      DST16_INT8  sign[15] mag[14:5] (16 or 0)[4:0]
      DST16_INT16 sign[15] mag[14:0]
    Dst32 (Dst.md):
      DST32_FP32  sign[31] manhi[30:24] exp[23:16] manlo[15:0]
      DST32_INT32 sign[31] magmid[30:24] maghi[23:16] maglo[15:0]
    LReg (LReg.md):
      FP32 (IEEE layout), INT32_SM (sign + 31-bit magnitude), INT32 (two's
      complement), UINT32.
    """

    SRC_TF32 = "src_tf32"
    SRC_BF16 = "src_bf16"
    SRC_FP16 = "src_fp16"
    SRC_INT8 = "src_int8"
    SRC_INT16 = "src_int16"
    DST16_BF16 = "dst16_bf16"
    DST16_FP16 = "dst16_fp16"
    DST16_INT8 = "dst16_int8"
    DST16_INT16 = "dst16_int16"
    DST32_FP32 = "dst32_fp32"
    DST32_INT32 = "dst32_int32"
    FP32 = "fp32"
    INT32_SM = "int32_sm"
    INT32 = "int32"
    UINT32 = "uint32"


def exponent_section_bytes(num_datums: int) -> int:
    """Size of a BFP exponent section for ``num_datums`` datums.

    One byte per 16 datums, padded to a multiple of 16 bytes: the unpacker
    skips ``ceil(ceil(n / 16) / 16) * 16`` bytes (UNPACR_Regular.md, the
    ``InAddr_Exponents`` computation), and packers write L1 in aligned 16-byte
    units (Packers/OutputAddressGenerator.md, "Output alignment").
    """
    n_exp = -(-int(num_datums) // BFP_GROUP)
    return -(-n_exp // 16) * 16


def tile_bytes(fmt: DataFormat, num_datums: int = TILE_DATUMS) -> int:
    """Bytes a tile of ``num_datums`` (default 32x32) occupies in L1.

    Excludes any tile header (the unpacker's ``(1 + DigestSize) * 16`` bytes,
    UNPACR_Regular.md).  BFP: exponent section then data section.  E.g.
    Bfp8_b: 64 + 1024 = 1088, Bfp4_b: 64 + 512 = 576, Bfp2_b: 64 + 256 = 320.
    """
    fmt = DataFormat(fmt)
    data = (int(num_datums) * _BITS[fmt] + 7) // 8
    if fmt in _BFP:
        return exponent_section_bytes(num_datums) + data
    return data


def tile_to_faces(matrix: np.ndarray) -> np.ndarray:
    """32x32 row-major matrix -> 1024 datums in face order.

    Faces: top-left, top-right, bottom-left, bottom-right; each face 16x16
    row-major.  Leading dimensions are kept: (..., 32, 32) -> (..., 1024).
    (The face order is the software stack's tile layout; the ISA pages do not
    define tiles.)
    """
    m = np.asarray(matrix)
    if m.shape[-2:] != (32, 32):
        raise ValueError(f"expected (..., 32, 32), got {m.shape}")
    lead = m.shape[:-2]
    m = m.reshape(lead + (2, 16, 2, 16))
    m = np.moveaxis(m, -3, -2)  # (..., fr, fc, r, c)
    return m.reshape(lead + (TILE_DATUMS,))


def faces_to_tile(datums: np.ndarray) -> np.ndarray:
    """Inverse of :func:`tile_to_faces`: (..., 1024) -> (..., 32, 32)."""
    d = np.asarray(datums)
    if d.shape[-1] != TILE_DATUMS:
        raise ValueError(f"expected (..., 1024), got {d.shape}")
    lead = d.shape[:-1]
    d = d.reshape(lead + (2, 2, 16, 16))  # fr, fc, r, c
    d = np.moveaxis(d, -3, -2)  # fr, r, fc, c
    return d.reshape(lead + (32, 32))
