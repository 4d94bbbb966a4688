"""Vector Unit (SFPU): 8 LRegs x 32 lanes, the SFP* instructions.

Instructions are methods named after their mnemonics (see ttemu.tensix.units).
"""

from __future__ import annotations

from . import Unit


#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset({
    'SFPABS', 'SFPADD', 'SFPADDI', 'SFPAND', 'SFPCAST', 'SFPCOMPC', 'SFPCONFIG', 'SFPDIVP2',
    'SFPENCC', 'SFPEXEXP', 'SFPEXMAN', 'SFPIADD', 'SFPLOAD', 'SFPLOADI', 'SFPLOADMACRO', 'SFPLUT',
    'SFPLUTFP32', 'SFPLZ', 'SFPMAD', 'SFPMOV', 'SFPMUL', 'SFPMULI', 'SFPNOP', 'SFPNOT', 'SFPOR',
    'SFPPOPC', 'SFPPUSHC', 'SFPSETCC', 'SFPSETEXP', 'SFPSETMAN', 'SFPSETSGN', 'SFPSHFT', 'SFPSHFT2',
    'SFPSTORE', 'SFPSWAP', 'SFPTRANSP', 'SFPXOR', 'SFP_STOCH_RND'
})
#: Blackhole-only instructions of this unit, not implemented.
PENDING_BLACKHOLE = frozenset({
    'SFPARECIP', 'SFPGT', 'SFPLE', 'SFPMUL24'
})

class VectorUnit(Unit):
    name = "sfpu"

    def __init__(self, cop):
        self.cop = cop
