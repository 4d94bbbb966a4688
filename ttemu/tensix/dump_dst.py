"""Readable dumps of ``Dst`` (``--dump-dst [ROWS]`` with ``--dst-format``) and of
``SrcA`` / ``SrcB`` (``--dump-src``).

Each report returns ``(text, data)``: deterministic plain text for a terminal and a
JSON-able object for ``--json`` (numbers as floats or ints; non-finite values and hex
as strings).

``Dst`` (tt-isa-documentation Dst.md) is shown as 32x32 tiles: a tile is 64 rows of
the view in use, four 16x16 faces of 16 rows each, laid out top-left, top-right,
bottom-left, bottom-right. The view depends on the format:

* ``fp32`` / ``int32``: the ``Dst32b`` view (512 rows, ``AdjRow`` mapping; 8 tiles),
* ``bf16`` / ``fp16`` / ``int8`` / ``hex``: the ``Dst16b`` view (1024 rows; 16 tiles);
  ``hex`` prints the raw 16-bit ``DstBits``.

``ROWS`` is ``all`` or ``START:COUNT`` (rows of that view, decimal or 0x-hex), either
optionally followed by ``:raw`` (or just ``raw``). In tile mode every tile that
intersects the range is shown in full; with ``all`` the all-zero tiles are skipped and
listed in a note. In raw mode exactly the rows of the range are printed, one line each.

Values are read as the rest of the coprocessor sees them when dumped (formats.display
"tensix" mode): FP32/BF16 exponent 255 prints as inf/nan, FP16 exponent 31 is an
ordinary number, integers are sign-magnitude (integer "8": sign + 10-bit magnitude).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import UsageError
from .formats.codes import Repr
from .formats.display import to_float64

FORMATS = ("fp32", "bf16", "fp16", "int32", "int8", "hex")
_DST_REPR = {"fp32": Repr.DST32_FP32, "int32": Repr.DST32_INT32, "bf16": Repr.DST16_BF16,
             "fp16": Repr.DST16_FP16, "int8": Repr.DST16_INT8}
_SRC_REPR = {"fp32": Repr.SRC_TF32, "bf16": Repr.SRC_BF16, "fp16": Repr.SRC_FP16,
             "int32": Repr.SRC_INT8, "int8": Repr.SRC_INT8}
_SRC_NAME = {"fp32": "TF32", "bf16": "BF16", "fp16": "FP16", "int32": 'integer "8"',
             "int8": 'integer "8"', "hex": "raw 19-bit"}
_INT_FORMATS = ("int32", "int8")

TILE_ROWS = 64
FACE_ROWS = 16


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------

def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise UsageError(f"--dst-format {fmt!r}: expected one of {', '.join(FORMATS)}")
    return fmt


def parse_rows(spec: str, total: int) -> tuple[int, int, bool, bool]:
    """``all`` / ``START:COUNT`` [``:raw``] / ``raw`` -> (start, count, raw, is_all)."""
    text = (spec or "all").strip()
    parts = [p.strip() for p in text.split(":")]
    raw = False
    if parts and parts[-1].lower() == "raw":
        raw = True
        parts = parts[:-1]
    if not parts or parts == ["all"] or parts == [""]:
        return 0, total, raw, True
    if len(parts) != 2:
        raise UsageError(f"--dump-dst {spec!r}: expected 'all' or START:COUNT, optionally with ':raw'")
    try:
        start, count = int(parts[0], 0), int(parts[1], 0)
    except ValueError:
        raise UsageError(f"--dump-dst {spec!r}: START and COUNT must be integers") from None
    if start < 0 or count <= 0 or start + count > total:
        raise UsageError(f"--dump-dst {spec!r}: rows {start}..{start + count - 1} are outside "
                         f"0..{total - 1} (this format shows {total} Dst rows)")
    return start, count, raw, False


def _cell(v, fmt: str):
    """One value -> (text, JSON value)."""
    if fmt == "hex":
        s = f"0x{int(v):04x}"
        return s, s
    if fmt in _INT_FORMATS:
        if v == 0 and math.copysign(1.0, v) < 0:
            return "-0", 0
        i = int(v)
        return str(i), i
    f = float(v)
    if math.isnan(f):
        return "nan", "nan"
    if math.isinf(f):
        return ("inf" if f > 0 else "-inf"), ("inf" if f > 0 else "-inf")
    s = f"{f:.6g}"
    return s, f


def _cells(values: np.ndarray, fmt: str):
    """2-D array -> (texts, json) nested lists."""
    texts, js = [], []
    for row in values:
        tr, jr = [], []
        for v in row:
            t, j = _cell(v, fmt)
            tr.append(t)
            jr.append(j)
        texts.append(tr)
        js.append(jr)
    return texts, js


def _grid(texts, split_col=None, split_row=None, indent="  ", row_labels=None):
    """Aligned text lines for a 2-D list of strings, with a gap after column
    ``split_col`` and a blank line after row ``split_row``."""
    width = max((len(t) for r in texts for t in r), default=1)
    label_w = max((len(s) for s in row_labels), default=0) if row_labels else 0
    lines = []
    for i, row in enumerate(texts):
        cols = []
        for j, t in enumerate(row):
            if split_col is not None and j == split_col:
                cols.append(" |")
            cols.append(t.rjust(width))
        label = (row_labels[i].rjust(label_w) + " ") if row_labels else ""
        lines.append(indent + label + " ".join(cols))
        if split_row is not None and i == split_row - 1 and i != len(texts) - 1:
            lines.append(indent + (" " * (label_w + 1) if row_labels else "")
                         + "-" * len(" ".join(cols)))
    return lines


# ---------------------------------------------------------------------------------------
# Dst
# ---------------------------------------------------------------------------------------

def view_rows(fmt: str) -> int:
    """Rows of Dst as ``--dst-format`` shows it: 512 32-bit rows, else 1024 16-bit ones."""
    return 512 if _check_format(fmt) in ("fp32", "int32") else 1024


def _dst_view(dst, fmt: str):
    """(values as float64 or raw ints [rows, 16], view name, rows)."""
    if fmt in ("fp32", "int32"):
        bits = dst.read32(0, 512)
        return to_float64(bits, _DST_REPR[fmt]).reshape(512, 16), "Dst32b", 512
    bits = dst.bits.astype(np.uint32)
    if fmt == "hex":
        return bits.copy(), "Dst16b", 1024
    return to_float64(bits, _DST_REPR[fmt]).reshape(1024, 16), "Dst16b", 1024


def _zero_bits(dst, fmt: str) -> np.ndarray:
    """bool [rows]: the row's bits are all zero (in the view of ``fmt``)."""
    if fmt in ("fp32", "int32"):
        return ~dst.read32(0, 512).any(axis=1)
    return ~dst.bits.any(axis=1)


def _tile_matrix(rows16: np.ndarray) -> np.ndarray:
    """64 view rows x 16 -> 32x32 tile (faces TL, TR, BL, BR)."""
    f = rows16.reshape(4, FACE_ROWS, 16)
    return np.block([[f[0], f[1]], [f[2], f[3]]])


def dst_report(tile, rows="all", fmt="fp32"):
    """``--dump-dst [ROWS]`` with ``--dst-format FMT``: -> (text, data)."""
    fmt = _check_format(fmt)
    dst = tile.tensix.dst
    values, view, total = _dst_view(dst, fmt)
    start, count, raw, all_mode = parse_rows(rows, total)
    header = f"Dst ({view}, {'raw DstBits in hex' if fmt == 'hex' else fmt}"
    data = {"format": fmt, "view": view, "rows": [start, count],
            "mode": "raw" if raw else "tiles"}
    if raw:
        lines = [f"{header}) rows {start}..{start + count - 1}:"]
        texts, js = _cells(values[start:start + count], fmt)
        labels = [f"row {r}:" for r in range(start, start + count)]
        lines += _grid(texts, row_labels=labels)
        data["row_values"] = [{"row": start + i, "values": j} for i, j in enumerate(js)]
        return "\n".join(lines), data

    first_tile = start // TILE_ROWS
    last_tile = (start + count - 1) // TILE_ROWS
    zero_rows = _zero_bits(dst, fmt)
    lines = [f"{header}) as 32x32 tiles of four 16x16 faces (TL TR / BL BR), "
             f"{TILE_ROWS} rows per tile:"]
    tiles, skipped = [], []
    for k in range(first_tile, last_tile + 1):
        r0 = k * TILE_ROWS
        if all_mode and zero_rows[r0:r0 + TILE_ROWS].all():
            skipped.append(k)
            continue
        texts, js = _cells(_tile_matrix(values[r0:r0 + TILE_ROWS]), fmt)
        lines.append(f"tile {k}: {view} rows {r0}..{r0 + TILE_ROWS - 1} "
                     f"(faces at rows {r0}, {r0 + 16}, {r0 + 32}, {r0 + 48})")
        lines += _grid(texts, split_col=16, split_row=16)
        tiles.append({"index": k, "first_row": r0, "last_row": r0 + TILE_ROWS - 1, "values": js})
    if skipped:
        lines.append(f"(all-zero tiles not shown: {', '.join(str(k) for k in skipped)})")
    if not tiles:
        lines.append("(Dst is all zero)" if all_mode else "(no tiles)")
    data["tiles"] = tiles
    data["skipped_zero_tiles"] = skipped
    return "\n".join(lines), data


# ---------------------------------------------------------------------------------------
# SrcA / SrcB
# ---------------------------------------------------------------------------------------

def src_report(tile, fmt="fp32"):
    """``--dump-src``: both banks of SrcA and SrcB, in blocks of 16 rows; all-zero blocks
    are skipped with a note. ``fmt`` follows ``--dst-format``: fp32 shows TF32, bf16
    BF16, fp16 FP16, int32/int8 integer "8", hex the raw 19-bit values (SrcASrcB.md
    layouts)."""
    fmt = _check_format(fmt)
    src = tile.tensix.src
    cell_fmt = "int8" if fmt in _INT_FORMATS else fmt
    lines = [f"SrcA / SrcB ({_SRC_NAME[fmt]}), 2 banks x 64 rows x 16 columns:"]
    data = {"format": fmt, "SrcA": {}, "SrcB": {}}
    for which in ("A", "B"):
        entry = data[f"Src{which}"]
        entry["matrix_unit_bank"] = int(src.math_bank[which])
        entry["unpacker_bank"] = int(src.unpack_bank[which])
        entry["banks"] = []
        for bank in (0, 1):
            raw = src.data[which][bank]
            owner = src.allowed[which][bank]
            users = [u for u, b in (("Matrix Unit", src.math_bank[which]),
                                    ("unpacker", src.unpack_bank[which])) if b == bank]
            lines.append(f"Src{which} bank {bank}: given to {'the Matrix Unit' if owner == 'math' else 'the unpackers'}"
                         + (f"; current bank of {' and '.join(users)}" if users else ""))
            if fmt == "hex":
                vals = raw.astype(np.uint32)
            else:
                vals = to_float64(raw, _SRC_REPR[fmt]).reshape(64, 16)
            blocks, skipped = [], []
            for b0 in range(0, 64, 16):
                if not raw[b0:b0 + 16].any():
                    skipped.append(b0)
                    continue
                if fmt == "hex":
                    texts = [[f"0x{int(v):05x}" for v in row] for row in vals[b0:b0 + 16]]
                    js = texts
                else:
                    texts, js = _cells(vals[b0:b0 + 16], cell_fmt)
                labels = [f"{r}:" for r in range(b0, b0 + 16)]
                lines.append(f"  rows {b0}..{b0 + 15}:")
                lines += _grid(texts, indent="    ", row_labels=labels)
                blocks.append({"first_row": b0, "values": js})
            if skipped:
                lines.append("  (all-zero rows not shown: "
                             + ", ".join(f"{b}..{b + 15}" for b in skipped) + ")")
            entry["banks"].append({"bank": bank, "allowed": owner, "blocks": blocks,
                                   "zero_blocks": skipped})
    return "\n".join(lines), data
