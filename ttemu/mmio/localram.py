"""A core's local data RAM seen through its second mapping (Blackhole: the "slow
access path" windows 0xFFB14000-0xFFB1DFFF that any core, and the host, can reach;
tt-isa-documentation BlackholeA0/TensixTile/BabyRISCV/README.md, "Memory map" and
"Local Data RAM"). A window larger than the RAM repeats it (RISCV T0's 4 KiB RAM
appears at 0xFFB18000 and again at 0xFFB19000).
"""

from __future__ import annotations

from ..errors import GuestFault
from .router import Device


class LocalRamWindow(Device):
    def __init__(self, tile, region, core):
        self.tile = tile
        self.name = region.name
        self.base = region.base
        self.core = core
        self.ram = tile.harts[core].local

    def _offset(self, addr, width, what):
        if addr & (width - 1):
            raise GuestFault(f"misaligned {width}-byte {what} at 0x{addr:08x} ({self.name})")
        return (addr - self.base) % len(self.ram)

    def read(self, core, addr, width):
        off = self._offset(addr, width, "load")
        return int.from_bytes(self.ram[off:off + width], "little")

    def write(self, core, addr, width, value):
        off = self._offset(addr, width, "store")
        self.ram[off:off + width] = (value & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
        return True
