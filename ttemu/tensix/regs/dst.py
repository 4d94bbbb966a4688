"""``Dst``: 1024 rows x 16 columns of 16-bit storage, also viewed as 512 x 16 of 32-bit.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/Dst.md: storage is
``DstBits[1024][16]`` (uint16); ``Dst16b[Row][Col]`` is ``DstBits[Row][Col]``;
``Dst32b[Row][Col]`` is ``(DstBits[AdjRow][Col] << 16) | DstBits[AdjRow + 8][Col]``
with ``AdjRow = ((Row & 0x1f8) << 1) | (Row & 0x207)``. (Bit 11 of
RISCV_DEBUG_REG_DBG_FEATURE_DISABLE changes Dst16b; that mode is not modelled.)
"""

from __future__ import annotations

import numpy as np

ROWS = 1024
COLS = 16


def adj_rows(rows):
    """AdjRow for an array of Dst32b row indices (10-bit)."""
    rows = np.asarray(rows, dtype=np.int64) & 0x3FF
    return ((rows & 0x1F8) << 1) | (rows & 0x207)


class Dst:
    def __init__(self):
        self.bits = np.zeros((ROWS, COLS), dtype=np.uint16)

    # 16-bit view ---------------------------------------------------------------------
    def read16(self, row: int, n: int = 1) -> np.ndarray:
        """Rows ``row .. row+n-1`` (mod 1024) as uint16 [n, 16]."""
        idx = (np.arange(row, row + n) & 0x3FF)
        return self.bits[idx]

    def write16(self, row: int, values) -> None:
        values = np.asarray(values, dtype=np.uint16).reshape(-1, COLS)
        idx = np.arange(row, row + values.shape[0]) & 0x3FF
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
