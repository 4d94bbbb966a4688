"""``SrcA`` and ``SrcB``: two banks each of 64 rows x 16 columns of 19-bit data, and
the bank-ownership (data-valid) state between the unpackers and the Matrix Unit.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/SrcASrcB.md. Each
bank's ``AllowedClient`` is the unpackers or the Matrix Unit; ``Unpackers[0].SrcBank``
/ ``Unpackers[1].SrcBank`` select the bank the unpackers write (SrcA / SrcB), and
``MatrixUnit.SrcABank`` / ``SrcBBank`` the bank the Matrix Unit reads. Reset state
(SoftReset.md): every bank index 0, every bank allowed to the unpackers. Data is kept
as uint32 holding the 19-bit pattern in its low bits.
"""

from __future__ import annotations

import numpy as np

UNPACK = "unpack"
MATH = "math"
ROWS = 64
COLS = 16


class SrcState:
    def __init__(self):
        self.data = {"A": np.zeros((2, ROWS, COLS), dtype=np.uint32),
                     "B": np.zeros((2, ROWS, COLS), dtype=np.uint32)}
        self.allowed = {"A": [UNPACK, UNPACK], "B": [UNPACK, UNPACK]}
        self.unpack_bank = {"A": 0, "B": 0}
        self.math_bank = {"A": 0, "B": 0}
        # Unpackers[0].SrcRow[thread] (SrcA) / Unpackers[1].SrcRow[thread] (SrcB)
        self.src_row = {"A": [0, 0, 0], "B": [0, 0, 0]}
        # the OutDataFormat code (4 bits) each bank was last handed to the Matrix Unit
        # with, by UNPACR / UNPACR_NOP (Blackhole's Matrix Unit reads a bank's format here)
        self.fmt = {"A": [0, 0], "B": [0, 0]}

    def ownership(self) -> tuple:
        """Every bank's AllowedClient and the banks each side uses, as one value (equal
        values: the same ownership)."""
        a, b = self.allowed["A"], self.allowed["B"]
        return (a[0], a[1], b[0], b[1], self.math_bank["A"], self.math_bank["B"], self.unpack_bank["A"],
                self.unpack_bank["B"])

    def owned_by(self, which: str, client: str) -> bool:
        """Does the bank ``client`` currently uses for Src``which`` allow ``client``?"""
        bank = self.unpack_bank[which] if client == UNPACK else self.math_bank[which]
        return self.allowed[which][bank] == client

    def math_view(self, which: str) -> np.ndarray:
        """The [64, 16] array of the bank the Matrix Unit uses."""
        return self.data[which][self.math_bank[which]]

    def unpack_view(self, which: str) -> np.ndarray:
        return self.data[which][self.unpack_bank[which]]
