"""Per-arch facts as data. Nothing outside this package tests the arch name:
code asks an :class:`ArchSpec` for sizes, addresses and reset values.

Sources: tenstorrent/tt-isa-documentation WormholeB0/TensixTile/BabyRISCV/README.md
(memory map), WormholeB0/TensixTile/SoftReset.md (reset bits, reset PCs), and the
address map derived from ttsim's tile_regs.json (see ``ttemu/arch/tables``).
"""

from __future__ import annotations

from .spec import ArchSpec, CoreSpec, NocSpec, Region, ResetPC

CORE_NAMES = ("brisc", "trisc0", "trisc1", "trisc2", "ncrisc")
#: Trace ids: "core   N:" in the Spike-shaped trace.
CORE_IDS = {name: i for i, name in enumerate(CORE_NAMES)}

__all__ = ["ArchSpec", "CoreSpec", "NocSpec", "Region", "ResetPC", "CORE_NAMES", "CORE_IDS", "ARCH_NAMES", "get_arch"]


def get_arch(name: str) -> ArchSpec:
    if name in ("wormhole_b0", "wormhole", "wh"):
        from .wormhole_b0 import ARCH
    elif name in ("blackhole", "bh"):
        from .blackhole import ARCH
    else:
        raise KeyError(name)
    return ARCH


ARCH_NAMES = ("wormhole_b0", "blackhole")
