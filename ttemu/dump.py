"""Readable memory dumps (``--dump-l1``) and raw dumps (``--dump``).

Values are rendered from raw bit patterns with numpy; the same input gives the same
text on every run. Rendering to a terminal (rich tables) is the CLI's business; this
module returns plain data: a list of rows (address, [cell strings]).
"""

from __future__ import annotations

import math
import struct

from .errors import UsageError

# format -> (bytes per value, values per row)
SIMPLE_FORMATS = {
    "hex32": (4, 8), "u32": (4, 8), "i32": (4, 8), "fp32": (4, 8),
    "bf16": (2, 8), "fp16": (2, 8), "hex8": (1, 16), "u8": (1, 16),
}


def _fmt_float(v: float) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.7g}"


def cells(data: bytes, fmt: str) -> list:
    """Format ``data`` as a flat list of strings, one per value."""
    if fmt not in SIMPLE_FORMATS:
        raise UsageError(f"unknown dump format {fmt!r} (one of {', '.join(SIMPLE_FORMATS)})")
    size, _ = SIMPLE_FORMATS[fmt]
    if len(data) % size:
        raise UsageError(f"dump length {len(data)} is not a multiple of {size} bytes for {fmt}")
    if fmt == "hex32":
        return [f"0x{v:08x}" for v in struct.unpack(f"<{len(data) // 4}I", data)]
    if fmt == "u32":
        return [str(v) for v in struct.unpack(f"<{len(data) // 4}I", data)]
    if fmt == "i32":
        return [str(v) for v in struct.unpack(f"<{len(data) // 4}i", data)]
    import numpy as np  # only the float formats need it

    if fmt == "fp32":
        return [_fmt_float(v) for v in np.frombuffer(data, "<f4").astype(np.float64).tolist()]
    if fmt == "fp16":
        return [_fmt_float(v) for v in np.frombuffer(data, "<f2").astype(np.float64).tolist()]
    if fmt == "bf16":
        bits = np.frombuffer(data, "<u2").astype(np.uint32) << 16
        return [_fmt_float(v) for v in bits.view(np.float32).astype(np.float64).tolist()]
    if fmt == "hex8":
        return [f"{v:02x}" for v in data]
    return [str(v) for v in data]


def rows(addr: int, data: bytes, fmt: str) -> list:
    """-> [(row address, [cells])]."""
    size, per_row = SIMPLE_FORMATS.get(fmt, (4, 8))
    flat = cells(data, fmt)
    return [(addr + i * size, flat[i:i + per_row]) for i in range(0, len(flat), per_row)]


def text(addr: int, data: bytes, fmt: str) -> str:
    out = []
    for a, cs in rows(addr, data, fmt):
        width = max((len(c) for c in cs), default=0)
        out.append(f"0x{a:08x}:  " + " ".join(c.rjust(width) for c in cs))
    return "\n".join(out)


def hexdump(addr: int, data: bytes) -> str:
    """Canonical hexdump: address, 16 bytes in hex, ASCII."""
    out = []
    for i in range(0, len(data), 16):
        chunk = data[i:i + 16]
        hx = " ".join(f"{b:02x}" for b in chunk[:8]) + "  " + " ".join(f"{b:02x}" for b in chunk[8:])
        asc = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        out.append(f"{addr + i:08x}  {hx:<48}  |{asc}|")
    return "\n".join(out)


def l1_report(tile, addr, n, core, fmt, what="--dump-l1"):
    """--dump-l1's rendering of ``n`` bytes at ``addr``: -> (text, values)."""
    data = tile.read(addr, n, core)
    if fmt.startswith("tile-"):
        from .tensix.dump_tiles import TILE_FORMATS, tile_report

        if fmt not in TILE_FORMATS:
            raise UsageError(f"{what}: unknown tile format {fmt!r} (one of {', '.join(TILE_FORMATS)})")
        try:
            return tile_report(data, addr, fmt)
        except ValueError as e:
            raise UsageError(f"{what} {fmt}: {e}") from None
    return f"{fmt} dump of 0x{addr:08x} ({n} bytes):\n" + text(addr, data, fmt), cells(data, fmt)
