"""Unpackers: UNPACR (and its NOP/context/flush forms) from L1 into SrcA/SrcB/Dst.

Instructions are methods named after their mnemonics (see ttemu.tensix.units).
"""

from __future__ import annotations

from . import Unit


#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset({
    'UNPACR', 'UNPACR_NOP'
})

class Unpackers(Unit):
    name = "unpack"

    def __init__(self, cop):
        self.cop = cop
