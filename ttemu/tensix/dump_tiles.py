"""``--dump-l1 ADDR:LEN:FMT`` with a tile format: decode whole 32x32 tiles from L1.

A tile is 1024 datums in face order (top-left, top-right, bottom-left, bottom-right
16x16 faces, each row-major; :func:`ttemu.tensix.formats.faces_to_tile`), laid out as
:func:`ttemu.tensix.formats.tile_bytes` describes (BFP: exponent section, then datums;
no tile header). Values are read as the unpacker reads them
(:func:`ttemu.tensix.formats.l1_to_float64`, "tensix" mode: FP16-family exponent 31 is
an ordinary number). A BFP8a/4a/2a block whose exponent the unpacker leaves undefined
is shown with the value-table formula ``Mag / 2**6 * 2**(Exp - 15)`` instead.

    text, values = tile_report(data, addr, "tile-bf16")

``text`` is one block per tile: a header line with the tile's index, address, format
and size, then 32 lines of 32 right-aligned numbers. ``values`` is a JSON-able list
with one ``{"addr": int, "format": str, "rows": [[...] * 32] * 32}`` per tile; numbers
are ints for integer formats, floats otherwise, and the strings "nan", "inf", "-inf"
for those values.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import UndefinedBehaviour
from .formats import DataFormat, decode_l1, faces_to_tile, l1_to_float64, tile_bytes

#: ``--dump-l1`` tile format names -> L1 data format (software-stack names: ``bfp8``
#: is the docs' BFP8a, 5-bit shared exponent; ``bfp8_b`` the docs' BFP8).
TILE_FORMATS = {
    "tile-fp32": DataFormat.Float32,
    "tile-tf32": DataFormat.Tf32,
    "tile-bf16": DataFormat.Float16_b,
    "tile-fp16": DataFormat.Float16,
    "tile-fp8": DataFormat.Fp8,
    "tile-bfp8_b": DataFormat.Bfp8_b,
    "tile-bfp4_b": DataFormat.Bfp4_b,
    "tile-bfp2_b": DataFormat.Bfp2_b,
    "tile-bfp8": DataFormat.Bfp8,
    "tile-bfp4": DataFormat.Bfp4,
    "tile-bfp2": DataFormat.Bfp2,
    "tile-int32": DataFormat.Int32,
    "tile-int8": DataFormat.Int8,
    "tile-uint8": DataFormat.UInt8,
    "tile-uint16": DataFormat.UInt16,
}

_INTEGER = (DataFormat.Int32, DataFormat.Int8, DataFormat.UInt8, DataFormat.UInt16)


def _bfp_a_values(buf, fmt) -> np.ndarray:
    datums, exps = decode_l1(buf, fmt, 1024)
    bits = {DataFormat.Bfp8: 8, DataFormat.Bfp4: 4, DataFormat.Bfp2: 2}[fmt]
    d8 = (datums << (8 - bits)) & 0xFF
    mag = (d8 & 0x7F).astype(np.float64)
    e = np.repeat(exps.astype(np.int64), 16)
    val = np.ldexp(mag / 64.0, e - 15)
    return np.where(d8 & 0x80, -val, val)


def tile_values(buf, fmt: DataFormat) -> np.ndarray:
    """One tile's L1 bytes -> float64 [32, 32] matrix."""
    try:
        v = l1_to_float64(buf, fmt, 1024, mode="tensix")
    except UndefinedBehaviour:
        v = _bfp_a_values(buf, fmt)
    return faces_to_tile(v)


def _fmt_number(x: float, integer: bool) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if integer:
        return str(int(x)) if not (x == 0 and math.copysign(1.0, x) < 0) else "-0"
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    return f"{x:.7g}"


def _json_number(x: float, integer: bool):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return int(x) if integer else float(x)


def tile_report(data: bytes, addr: int, fmt: str):
    """Decode ``data`` (read from L1 at ``addr``) as whole 32x32 tiles of tile format
    ``fmt`` (a key of :data:`TILE_FORMATS`) -> (text, values). Trailing bytes that do
    not fill a tile are reported, not decoded. Raises ValueError for an unknown
    format or fewer bytes than one tile."""
    if fmt not in TILE_FORMATS:
        raise ValueError(f"unknown tile format {fmt!r} (one of {', '.join(TILE_FORMATS)})")
    f = TILE_FORMATS[fmt]
    size = tile_bytes(f)
    buf = bytes(data)
    count = len(buf) // size
    if count == 0:
        raise ValueError(f"{fmt}: {len(buf)} bytes is less than one tile ({size} bytes)")
    integer = f in _INTEGER
    lines = []
    values = []
    for k in range(count):
        a = addr + k * size
        m = tile_values(buf[k * size:(k + 1) * size], f)
        cells = [[_fmt_number(float(x), integer) for x in row] for row in m]
        width = max(len(c) for row in cells for c in row)
        if lines:
            lines.append("")
        lines.append(f"tile {k} @ 0x{a:08x} ({fmt}, {size} bytes): 32x32, faces TL TR BL BR")
        for row in cells:
            lines.append(" ".join(c.rjust(width) for c in row))
        values.append({"addr": a, "format": fmt,
                       "rows": [[_json_number(float(x), integer) for x in row] for row in m]})
    rest = len(buf) - count * size
    if rest:
        lines.append("")
        lines.append(f"({rest} trailing bytes at 0x{addr + count * size:08x} do not fill a tile; not shown)")
    return "\n".join(lines) + "\n", values
