"""The Tensix coprocessor as the rest of the tile sees it.

Instruction push routing follows tt-isa-documentation
WormholeB0/TensixTile/BabyRISCV/PushTensixInstruction.md.
"""

from __future__ import annotations

from ..errors import GuestFault
from ..mmio.router import Device


class PushPort(Device):
    """INSTRN_BUF_BASE / INSTRN1_BUF_BASE / INSTRN2_BUF_BASE: a 32-bit store pushes."""

    def __init__(self, cop, name, index):
        self.cop = cop
        self.name = name
        self.index = index  # 0, 1, 2 for inst, inst1, inst2

    def read(self, core, addr, width):
        raise GuestFault(f"load from the Tensix instruction push address 0x{addr:08x}")

    def write(self, core, addr, width, value):
        if width != 4:
            raise GuestFault(f"{width}-byte store to the Tensix instruction push address 0x{addr:08x}")
        return self.cop.push_from_core(core, addr, value, origin=f"mmio 0x{addr:08x}")


class Coprocessor:
    """Routes pushes to the three threads. Until the frontend lands, a thread records
    and counts what it receives."""

    def __init__(self, tile):
        self.tile = tile
        self.pushed = [[], [], []]  # per thread: (word, origin, after_mop)
        self.push_bases = {}

    def attach(self, router):
        for i, region in enumerate(("tensix_inst", "tensix_inst1", "tensix_inst2")):
            router.attach(region, PushPort(self, region, i))
            self.push_bases[i] = self.tile.arch.region(region).base

    def route(self, core, addr):
        """-> (thread, after_mop) for a push by ``core`` to ``addr``."""
        index = (addr >> 16) & 0xF  # 0xFFE4xxxx -> 4, 0xFFE5xxxx -> 5, 0xFFE6xxxx -> 6
        port = {4: 0, 5: 1, 6: 2}.get(index)
        spec = self.tile.specs.get(core) if core else None
        if core is None or core == "brisc":
            return port, True  # BRISC (and the host) push after the MOP expander
        if spec is None or not spec.can_push:
            raise GuestFault(f"{core} cannot push Tensix instructions (store to 0x{addr:08x})")
        if port != 0:
            raise GuestFault(f"{core} stored to 0x{addr:08x}: only RISCV B may use INSTRN{port}_BUF_BASE; "
                             "on hardware this hangs the core")
        return spec.tensix_thread, False

    def push_from_core(self, core, addr, word, origin):
        thread, after_mop = self.route(core, addr)
        self.pushed[thread].append((word, origin, after_mop))
        self.tile.activity[0] = 1
        return True

    def core_reset(self, core):
        pass

    def step(self):
        return False

    def blocked(self):
        return []

    def disasm_ttinsn(self, word):
        """Text for a .ttinsn word in the RISC-V trace (until the decoder lands)."""
        tw = ((word >> 2) | (word << 30)) & 0xFFFFFFFF
        return f".ttinsn 0x{tw:08x}"
