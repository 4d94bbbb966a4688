"""Miscellaneous Unit (tt-isa-documentation
WormholeB0/TensixTile/TensixCoprocessor/MiscellaneousUnit.md). NOP lives here."""

from __future__ import annotations

from . import Unit, op


#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset({
    'ADDRCRXY', 'ADDRCRZW', 'INCADCXY', 'INCADCZW', 'SETADC', 'SETADCXX', 'SETADCXY', 'SETADCZW',
    'SETDVALID'
})

class MiscUnit(Unit):
    name = "misc"

    def __init__(self, cop):
        self.cop = cop

    @op
    def NOP(self, t):
        return None
