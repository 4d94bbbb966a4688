"""Host-side tiles: numbers <-> the bytes of 32x32 tiles in L1.

A matrix whose sides are multiples of 32 is stored tile by tile (row-major over
tiles); each tile is four 16x16 faces (top-left, top-right, bottom-left,
bottom-right), each row-major; a block-float tile carries its exponent section (one
byte per 16 datums) before its mantissas. Conversions go through
:mod:`ttemu.tensix.formats` (the packer's default rounding route for float formats).
"""

from __future__ import annotations

import numpy as np

from .errors import UsageError
from .tensix.formats import DataFormat, decode_l1, faces_to_tile, tile_bytes, tile_to_faces, write_datums
from .tensix.formats.display import to_float64
from .tensix.formats.pack_late import encode_from_fp32

#: format names accepted in manifests, --expect and --dump-l1 tile-<name>
FORMATS = {
    "fp32": DataFormat.Float32, "float32": DataFormat.Float32,
    "tf32": DataFormat.Tf32,
    "fp16": DataFormat.Float16, "float16": DataFormat.Float16,
    "bf16": DataFormat.Float16_b, "float16_b": DataFormat.Float16_b,
    "bfp8": DataFormat.Bfp8, "bfp8_b": DataFormat.Bfp8_b,
    "bfp4": DataFormat.Bfp4, "bfp4_b": DataFormat.Bfp4_b,
    "bfp2": DataFormat.Bfp2, "bfp2_b": DataFormat.Bfp2_b,
    "int32": DataFormat.Int32, "int8": DataFormat.Int8, "uint8": DataFormat.UInt8,
    "uint16": DataFormat.UInt16,
}
INT_FORMATS = {DataFormat.Int32, DataFormat.Int8, DataFormat.UInt8, DataFormat.UInt16}


def data_format(name: str) -> DataFormat:
    try:
        return FORMATS[name.lower()]
    except KeyError:
        raise UsageError(f"unknown tile format {name!r} (one of {', '.join(sorted(set(FORMATS)))})") from None


def _check_shape(shape):
    rows, cols = shape
    if rows % 32 or cols % 32 or rows <= 0 or cols <= 0:
        raise UsageError(f"tile data shape {rows}x{cols}: both sides must be positive multiples of 32")
    return rows // 32, cols // 32


def _tiles_of(matrix):
    rows, cols = matrix.shape
    tr, tc = _check_shape(matrix.shape)
    return matrix.reshape(tr, 32, tc, 32).swapaxes(1, 2).reshape(tr * tc, 32, 32)


def _matrix_of(tiles, shape):
    tr, tc = _check_shape(shape)
    return tiles.reshape(tr, tc, 32, 32).swapaxes(1, 2).reshape(shape)


def _int_datums(values, fmt):
    v = np.rint(np.asarray(values, dtype=np.float64)).astype(np.int64)
    if fmt == DataFormat.UInt8:
        return np.clip(v, 0, 255).astype(np.uint32)
    if fmt == DataFormat.UInt16:
        return (v & 0xFFFF).astype(np.uint32)
    bits = 7 if fmt == DataFormat.Int8 else 31
    mag = np.minimum(np.abs(v), (1 << bits) - 1)
    return (((v < 0).astype(np.int64) << bits) | mag).astype(np.uint32)  # sign + magnitude


def encode(matrix, fmt_name: str) -> bytes:
    """A (R, C) array of numbers -> L1 bytes of R/32 x C/32 tiles in ``fmt``."""
    fmt = data_format(fmt_name)
    m = np.asarray(matrix)
    out = []
    for tile in _tiles_of(m):
        datums = tile_to_faces(tile).reshape(-1)
        if fmt in INT_FORMATS:
            out.append(bytes(write_datums(_int_datums(datums, fmt), fmt)))
        else:
            fp32 = np.asarray(datums, dtype=np.float32).view(np.uint32)
            out.append(bytes(encode_from_fp32(fp32, fmt)))
    return b"".join(out)


def decode(data: bytes, fmt_name: str, shape) -> np.ndarray:
    """L1 bytes of tiles in ``fmt`` -> a float64 (R, C) array."""
    fmt = data_format(fmt_name)
    tr, tc = _check_shape(shape)
    size = tile_bytes(fmt)
    need = size * tr * tc
    if len(data) < need:
        raise UsageError(f"{len(data)} bytes hold fewer than {tr * tc} {fmt_name} tiles ({need} bytes)")
    tiles = []
    for k in range(tr * tc):
        buf = np.frombuffer(data[k * size:(k + 1) * size], dtype=np.uint8)
        datums, exps = decode_l1(buf, fmt, 1024)
        vals = to_float64(datums, fmt, exps=exps, mode="ieee") if exps is not None else to_float64(datums, fmt,
                                                                                                 mode="ieee")
        tiles.append(faces_to_tile(np.asarray(vals, dtype=np.float64)))
    return _matrix_of(np.stack(tiles), shape)


def nbytes(fmt_name: str, shape) -> int:
    tr, tc = _check_shape(shape)
    return tile_bytes(data_format(fmt_name)) * tr * tc


def quantize(matrix, fmt_name: str) -> np.ndarray:
    """What ``matrix`` becomes once stored in ``fmt`` (encode, then decode)."""
    m = np.asarray(matrix)
    return decode(encode(m, fmt_name), fmt_name, m.shape)
