"""SrcA / SrcB bank ownership (the data-valid handshake between the unpackers and
the Matrix Unit). tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/SrcASrcB.md.

Two banks each of SrcA and SrcB; each bank's ``AllowedClient`` is the unpackers or
the Matrix Unit. ``Unpackers[0].SrcBank`` / ``Unpackers[1].SrcBank`` select the bank
the unpackers write (A / B), ``MatrixUnit.SrcABank`` / ``SrcBBank`` the bank the
Matrix Unit reads. Reset state (SoftReset.md): every bank index 0, every bank
allowed to the unpackers.
"""

from __future__ import annotations

UNPACK = "unpack"
MATH = "math"


class SrcState:
    def __init__(self):
        self.allowed = {"A": [UNPACK, UNPACK], "B": [UNPACK, UNPACK]}
        self.unpack_bank = {"A": 0, "B": 0}
        self.math_bank = {"A": 0, "B": 0}

    def owned_by(self, which: str, client: str) -> bool:
        """Does the bank ``client`` currently uses for Src``which`` allow ``client``?"""
        bank = self.unpack_bank[which] if client == UNPACK else self.math_bank[which]
        return self.allowed[which][bank] == client
