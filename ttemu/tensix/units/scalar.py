"""Scalar Unit (ThCon): GPR arithmetic, L1/MMIO loads and stores, atomics.

Instructions are methods named after their mnemonics (see ttemu.tensix.units).
"""

from __future__ import annotations

from . import Unit


#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset({
    'ADDDMAREG', 'ATCAS', 'ATINCGET', 'ATINCGETPTR', 'ATSWAP', 'BITWOPDMAREG', 'CMPDMAREG',
    'DMANOP', 'FLUSHDMA', 'LOADIND', 'LOADREG', 'MULDMAREG', 'REG2FLOP', 'RSTDMA', 'SETDMAREG',
    'SHIFTDMAREG', 'STOREIND', 'STOREREG', 'SUBDMAREG'
})

class ScalarUnit(Unit):
    name = "scalar"

    def __init__(self, cop):
        self.cop = cop
