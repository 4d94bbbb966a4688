"""Packers: PACR / PACR_SETREG from Dst to L1.

Instructions are methods named after their mnemonics (see ttemu.tensix.units).
"""

from __future__ import annotations

from . import Unit


#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset({
    'PACR', 'PACR_SETREG', 'TBUFCMD'
})

class Packers(Unit):
    name = "pack"

    def __init__(self, cop):
        self.cop = cop
