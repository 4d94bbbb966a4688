"""Tensix GPRs: 64 32-bit registers per thread (tt-isa-documentation
WormholeB0/TensixTile/TensixCoprocessor/ScalarUnit.md, "GPRs").

RISC-V view at REGFILE_BASE (0xFFE00000 + 4*i): RISCV T_i sees thread i's GPRs;
RISCV B sees T0's, T1's and T2's one after another (BabyRISCV/README.md memory map).
"""

from __future__ import annotations

from ...errors import GuestFault
from ...mmio.router import Device

NUM_GPRS = 64


class GPRs(Device):
    name = "tensix_regfile"

    def __init__(self, tile, base=0xFFE00000):
        self.tile = tile
        self.base = base
        self.regs = [[0] * NUM_GPRS for _ in range(3)]

    def __getitem__(self, thread):
        return self.regs[thread]

    def _locate(self, core, addr, width, verb):
        index = (addr - self.base) >> 2
        spec = self.tile.specs.get(core) if core else None
        if core is None or core == "brisc":
            thread, index = divmod(index, NUM_GPRS)
            if thread > 2:
                raise GuestFault(f"{verb} 0x{addr:08x}: beyond the three threads' GPRs")
        elif spec is None or spec.tensix_thread is None:
            raise GuestFault(f"{verb} 0x{addr:08x}: Tensix GPRs are not mapped for {core}")
        else:
            thread = spec.tensix_thread
            if index >= NUM_GPRS:
                raise GuestFault(f"{verb} 0x{addr:08x}: {core} sees only its thread's 64 GPRs")
        return thread, index

    def read(self, core, addr, width):
        thread, index = self._locate(core, addr, width, "read of")
        off = addr & 3
        return (self.regs[thread][index] >> (8 * off)) & ((1 << (8 * width)) - 1)

    def peek(self, core, addr):
        """A debugger's read (reading a GPR has no side effect)."""
        return self.read(core, addr & ~3, 4)

    def write(self, core, addr, width, value):
        thread, index = self._locate(core, addr, width, "write to")
        off = addr & 3
        mask = ((1 << (8 * width)) - 1) << (8 * off)
        old = self.regs[thread][index]
        self.regs[thread][index] = (old & ~mask) | ((value << (8 * off)) & mask)
        return True
