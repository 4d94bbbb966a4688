"""Configuration Unit: SETC16, WRCFG, RDCFG, RMWCIB.

Instructions are methods named after their mnemonics (see ttemu.tensix.units).
"""

from __future__ import annotations

from . import Unit


#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset({
    'RDCFG', 'RMWCIB0', 'RMWCIB1', 'RMWCIB2', 'RMWCIB3', 'SETC16', 'WRCFG'
})
#: Blackhole-only instructions of this unit, not implemented.
PENDING_BLACKHOLE = frozenset({
    'CFGSHIFTMASK', 'STREAMWRCFG'
})

class ConfigUnit(Unit):
    name = "cfg"

    def __init__(self, cop):
        self.cop = cop
