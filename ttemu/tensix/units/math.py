"""Matrix Unit (FPU): MVMUL, element-wise ops, pooling, moves between Src and Dst.

Instructions are methods named after their mnemonics (see ttemu.tensix.units).
"""

from __future__ import annotations

from . import Unit


#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset({
    'APOOL3S1', 'APOOL3S2', 'CLEARDVALID', 'CLREXPHIST', 'CONV3S1', 'CONV3S2', 'DOTPV', 'ELWADD',
    'ELWMUL', 'ELWSUB', 'GAPOOL', 'GATESRCRST', 'GMPOOL', 'INCRWC', 'MFCONV3S1', 'MOVA2D', 'MOVB2A',
    'MOVB2D', 'MOVD2A', 'MOVD2B', 'MOVDBGA2D', 'MPOOL3S1', 'MPOOL3S2', 'MVMUL', 'RAREB',
    'SETASHRMH', 'SETASHRMH0', 'SETASHRMH1', 'SETASHRMV', 'SETIBRWC', 'SETPKEDGOF', 'SETRWC',
    'SHIFTXA', 'SHIFTXB', 'TRNSPSRCA', 'TRNSPSRCB', 'ZEROACC', 'ZEROSRC'
})
#: Blackhole-only instructions of this unit, not implemented.
PENDING_BLACKHOLE = frozenset({
    'MOVDBGB2D'
})

class MatrixUnit(Unit):
    name = "math"

    def __init__(self, cop):
        self.cop = cop
