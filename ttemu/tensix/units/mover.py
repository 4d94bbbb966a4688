"""Mover: XMOV (L1 to L1 and L1 to/from the TDMA-RISC window).

Instructions are methods named after their mnemonics (see ttemu.tensix.units).
"""

from __future__ import annotations

from . import Unit


#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset({
    'XMOV'
})

class Mover(Unit):
    name = "mover"

    def __init__(self, cop):
        self.cop = cop
