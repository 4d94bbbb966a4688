"""``Dst``: 1024 rows x 16 columns of 16-bit storage, also viewed as 512 x 16 of 32-bit.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/Dst.md: storage is
``DstBits[1024][16]`` (uint16); ``Dst16b[Row][Col]`` is ``DstBits[Row][Col]``;
``Dst32b[Row][Col]`` is ``(DstBits[AdjRow][Col] << 16) | DstBits[AdjRow + 8][Col]``
with ``AdjRow = ((Row & 0x1f8) << 1) | (Row & 0x207)``.

While bit 11 of RISCV_DEBUG_REG_DBG_FEATURE_DISABLE is set (``aliased16``), Dst16b
row ``Row`` is the high half of Dst32b row ``Row``: reads come from
``DstBits[AdjRow]``, and writes go there too and "also write something, generally
garbage" to the low half, which ttemu leaves unchanged and reports with a warning
(:meth:`map16` gives the storage rows for either mode).
"""

from __future__ import annotations

import numpy as np

ROWS = 1024
COLS = 16


def adj16(rows, remap=False):
    """``Adj16`` (BlackholeA0 Dst.md): the storage row of Dst16b rows; with
    ``Config.DEST_ACCESS_CFG_remap_addrs`` (Blackhole) rows are permuted within each
    group of 64, otherwise (and on Wormhole) the identity."""
    rows = np.asarray(rows, dtype=np.int64) & 0x3FF
    if remap:
        rows = (rows & 0x3C7) ^ ((rows & 0x030) >> 1) ^ ((rows & 0x008) << 2)
    return rows


def adj_rows(rows, remap=False, swizzle=False):
    """AdjRow (``Adj32``) for an array of Dst32b row indices (10-bit): the storage row
    of the high halves (the low halves are 8 rows further). ``remap`` / ``swizzle``:
    Blackhole's ``Config.DEST_ACCESS_CFG_remap_addrs`` / ``swizzle_32b`` (BlackholeA0
    Dst.md), both off on Wormhole."""
    rows = adj16(rows, remap)
    if swizzle:
        rows = (rows & 0x3F3) ^ ((rows & 0x018) >> 1) ^ ((rows & 0x004) << 1)
    return ((rows & 0x1F8) << 1) | (rows & 0x207)


def adj16_row(row: int, remap=False) -> int:
    """:func:`adj16` for one row index (a Python int)."""
    row &= 0x3FF
    if remap:
        row = (row & 0x3C7) ^ ((row & 0x030) >> 1) ^ ((row & 0x008) << 2)
    return row


def adj_row(row: int, remap=False, swizzle=False) -> int:
    """:func:`adj_rows` for one row index (a Python int)."""
    row &= 0x3FF
    if remap:
        row = (row & 0x3C7) ^ ((row & 0x030) >> 1) ^ ((row & 0x008) << 2)
    if swizzle:
        row = (row & 0x3F3) ^ ((row & 0x018) >> 1) ^ ((row & 0x004) << 1)
    return ((row & 0x1F8) << 1) | (row & 0x207)


class Dst:
    """``bits`` is DstBits (uint16 [1024, 16]). The Matrix Unit may defer its writes
    (runs of MVMULs, computed together): it sets ``pending`` to a callable that applies
    them to ``raw``, which every read of ``bits`` runs first, so anyone reading or writing
    Dst through ``bits`` sees it as if each instruction had written it at once."""

    def __init__(self):
        self.raw = np.zeros((ROWS, COLS), dtype=np.uint16)  # (never replaced: flat is a view of it)
        self.flat = self.raw.reshape(-1)
        self.pending = None  # callable() applying deferred writes to raw
        self.aliased16 = False  # RISCV_DEBUG_REG_DBG_FEATURE_DISABLE bit 11
        self.on_aliased_write = None  # callable() run on a Dst16 write while aliased

    @property
    def bits(self):
        if self.pending is not None:
            apply, self.pending = self.pending, None
            apply()
        return self.raw

    @property
    def flat_bits(self):
        """``bits`` flattened (a view: row * 16 + column indexes it)."""
        if self.pending is not None:
            self.bits  # applies them
        return self.flat

    def map16(self, rows, write=False):
        """DstBits rows holding Dst16b ``rows`` (an int array) in the current mode."""
        if not self.aliased16:
            return rows
        if write and self.on_aliased_write is not None:
            self.on_aliased_write()
        return adj_rows(rows)

    # 16-bit view ---------------------------------------------------------------------
    def read16(self, row: int, n: int = 1) -> np.ndarray:
        """Rows ``row .. row+n-1`` (mod 1024) as uint16 [n, 16]."""
        idx = self.map16(np.arange(row, row + n) & 0x3FF)
        return self.bits[idx]

    def write16(self, row: int, values) -> None:
        values = np.asarray(values, dtype=np.uint16).reshape(-1, COLS)
        idx = self.map16(np.arange(row, row + values.shape[0]) & 0x3FF, write=True)
        self.bits[idx] = values

    # 32-bit view ---------------------------------------------------------------------
    def read32(self, row: int, n: int = 1) -> np.ndarray:
        """Dst32b rows ``row .. row+n-1`` as uint32 [n, 16]."""
        adj = adj_rows(np.arange(row, row + n))
        return (self.bits[adj].astype(np.uint32) << 16) | self.bits[adj + 8].astype(np.uint32)

    def write32(self, row: int, values) -> None:
        values = np.asarray(values, dtype=np.uint32).reshape(-1, COLS)
        adj = adj_rows(np.arange(row, row + values.shape[0]))
        self.bits[adj] = (values >> 16).astype(np.uint16)
        self.bits[adj + 8] = (values & 0xFFFF).astype(np.uint16)

    def clear(self) -> None:
        self.bits[:] = 0
