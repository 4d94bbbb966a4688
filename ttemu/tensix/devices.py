"""MMIO windows into the Tensix coprocessor for the RISC-V cores.

* Instruction push (INSTRN_BUF_BASE and friends): WormholeB0/TensixTile/BabyRISCV/PushTensixInstruction.md
* MOP expander configuration (TENSIX_MOP_CFG_BASE): TensixCoprocessor/MOPExpander.md, "Configuration"
* PC_BUF_BASE and friends: BabyRISCV/PCBufs.md, BabyRISCV/TTSync.md, and the Tensix
  semaphores (TensixCoprocessor/SyncUnit.md, "RISCV access to semaphores")
"""

from __future__ import annotations

import functools

from ..errors import GuestFault, Unimplemented
from ..mmio.router import Device

PCBUF_DEPTH = 16
SEMAPHORE_OFFSET = 0x20


def _need_word(what, addr, width):
    if width != 4:
        raise GuestFault(f"{width}-byte access to {what} at 0x{addr:08x}: 32-bit accesses only")


class PushPort(Device):
    """A 32-bit store pushes the value as a Tensix instruction."""

    def __init__(self, cop, name):
        self.cop = cop
        self.name = name
        self._origins = {}  # addr -> f"mmio 0x{addr:08x}"

    def read(self, core, addr, width):
        raise GuestFault(f"load from the Tensix instruction push address 0x{addr:08x}")

    def write(self, core, addr, width, value):
        if width != 4:
            _need_word("the Tensix instruction push address", addr, width)
        origin = self._origins.get(addr)
        if origin is None:
            origin = self._origins[addr] = f"mmio 0x{addr:08x}"
        return self.cop.push_from_core(core, addr, value, origin=origin)

    def pusher(self, core, addr):
        """-> ``(push, origin)``: ``push(value, origin)`` is what a 4-byte store by ``core`` to
        ``addr`` does once one went through (every check of an access depends on the core,
        the address and the width alone; which thread the push reaches, Coprocessor.route)."""
        return functools.partial(self.cop.push_from_core, core, addr), f"mmio 0x{addr:08x}"


class MopCfgPort(Device):
    """MopCfg[0..8] of the writing TRISC's thread; write-only (a read is undefined)."""

    name = "tensix_mop_cfg"

    def __init__(self, cop):
        self.cop = cop

    def _thread(self, core, addr, verb):
        spec = self.cop.tile.specs.get(core) if core else None
        if spec is None or core == "brisc" or spec.tensix_thread is None:
            raise GuestFault(f"{verb} MOP configuration at 0x{addr:08x}: TENSIX_MOP_CFG_BASE is mapped "
                             "only for TRISC0/1/2 (each sees its own thread's)")
        index = (addr - 0xFFB80000) >> 2
        if index > 8:
            raise GuestFault(f"{verb} 0x{addr:08x}: MopCfg has 9 words (0xFFB80000-0xFFB80020)")
        return self.cop.threads[spec.tensix_thread], index

    def read(self, core, addr, width):
        self._thread(core, addr, "read of")
        raise GuestFault(f"read of MOP configuration 0x{addr:08x}: MopCfg is write-only "
                         "(reading it is undefined behaviour)")

    def write(self, core, addr, width, value):
        _need_word("MOP configuration", addr, width)
        thread, index = self._thread(core, addr, "write to")
        if thread.mop.active is not None:
            self.cop.tile.warn(f"{core} wrote MopCfg[{index}] while T{thread.index}'s MOP expansion is "
                               "in progress (the expansion keeps the values sampled when it started)")
        thread.mop.cfg[index] = value
        return True


class PcBufPort(Device):
    """PC_BUF_BASE (index 0), PC1_BUF_BASE (1), PC2_BUF_BASE (2).

    From RISCV B, region i is the B side of PCBuf[i]: a write pushes (stalls when 16
    values are queued); a read returns 0 once the buffer is empty, TRISC i is waiting
    on it, and Tensix thread i is idle. From RISCV T_i, PC_BUF_BASE is the T side of
    PCBuf[i] (+0: read pops, stalling while empty; writes are discarded), +4 TTSync
    CoprocessorDoneCheck, +8 MOPExpanderDoneCheck (loads stall until done; stores are
    discarded), and +0x20+4*k Tensix semaphore k (read: value; write: an odd value
    decrements like SEMGET, an even one increments like SEMPOST). The override bits in
    RISCV_DEBUG_REG_TRISC_PC_BUF_OVERRIDE are not modelled (reset value: disabled).
    """

    def __init__(self, cop, name, index):
        self.cop = cop
        self.name = name
        self.index = index
        self.fifos = cop.pcbufs

    def _side(self, core, addr):
        if core is None or core == "brisc":
            return "B"
        spec = self.cop.tile.specs.get(core)
        if spec is None or spec.tensix_thread is None or core == "ncrisc" or self.index != 0:
            raise GuestFault(f"access to 0x{addr:08x}: PC buffers are mapped only for RISCV B and T0-T2 "
                             f"(and {self.name} only for RISCV B)")
        return spec.tensix_thread

    def read(self, core, addr, width):
        _need_word("the PC buffer window", addr, width)
        side = self._side(core, addr)
        cop = self.cop
        tile = cop.tile
        if side == "B":
            i = self.index
            if not self.fifos[i] and cop.pcbuf_waiting[i] and cop.threads[i].idle():
                return 0
            tile.last_stall = (f"blocked reading PCBuf[{i}] at pc {{pc}}: waiting for TRISC{i} to drain it "
                               f"and wait on it with Tensix T{i} idle")
            return None
        off = addr - 0xFFE80000
        t = side
        if off < 4:
            if self.fifos[t]:
                cop.pcbuf_waiting[t] = False
                tile.activity[0] = 1
                return self.fifos[t].popleft()
            cop.pcbuf_waiting[t] = True
            tile.last_stall = f"blocked reading PCBuf[{t}] at pc {{pc}}: empty"
            return None
        if off < 8:
            if cop.threads[t].idle():
                return 0
            tile.last_stall = f"blocked in TTSync at pc {{pc}}: waiting for Tensix T{t} to drain"
            return None
        if off < 12:
            if cop.threads[t].mop_done():
                return 0
            tile.last_stall = f"blocked in TTSync at pc {{pc}}: waiting for T{t}'s MOP expander"
            return None
        k = (off - SEMAPHORE_OFFSET) >> 2
        if off >= SEMAPHORE_OFFSET and k < 8:
            return cop.sync.semaphores[k].value
        raise GuestFault(f"read of 0x{addr:08x}: nothing is mapped at PC_BUF_BASE+0x{off:x} "
                         "(semaphores are at +0x20..+0x3c)")

    def write(self, core, addr, width, value):
        _need_word("the PC buffer window", addr, width)
        side = self._side(core, addr)
        cop = self.cop
        if side == "B":
            q = self.fifos[self.index]
            if len(q) >= PCBUF_DEPTH:
                cop.tile.last_stall = f"stalled writing PCBuf[{self.index}] at pc {{pc}}: full ({PCBUF_DEPTH})"
                return False
            q.append(value)
            return True
        off = addr - 0xFFE80000
        if off < 12:
            return True  # stores to PCBuf / TTSync words are discarded (they only order memory)
        k = (off - SEMAPHORE_OFFSET) >> 2
        if off >= SEMAPHORE_OFFSET and k < 8:
            if value & 1:
                cop.sync.get(1 << k)
            else:
                cop.sync.post(1 << k)
            cop.state_changed()
            return True
        raise Unimplemented(f"write to 0x{addr:08x}: nothing is modelled at PC_BUF_BASE+0x{off:x}")
