"""The debug daisychain: 128-bit groups of internal signals, selected by
RISCV_DEBUG_REG_DBG_BUS_CNTL_REG, read 32 bits at a time from DBG_RD_DATA or written
to L1 through DBG_L1_MEM_REG0-2 (tt-isa-documentation WormholeB0/TensixTile/
DebugDaisychain.md).

Modelled groups (what tt-exalens reads: a core's ``pc``, and ``get_tensix_state``'s
RWC and ADC groups):

* DaisySel 7: each RISC-V core's execution state, groups A and B: the ``pc`` of the
  instruction that retires next (the model's pc: nothing is in flight), marked valid;
  the pc the frontend fetches next; the pc entering decode, marked valid. The other
  bits of those groups (load/store addresses, the fetched word) read 0.
* DaisySel 1, SignalSel 12 / 8 / 4: Tensix thread 0 / 1 / 2's frontend (the word held
  at the wait gate, FIFO empty / full) (``ttemu.tensix.debug_signals``).
* DaisySel 3, SignalSel 2-4: the RWCs and fidelity phases; DaisySel 6, SignalSel 0-5:
  the ADCs (``ttemu.tensix.debug_signals``, positions from the arch's ``debug_hw``).
* SignalSel 255 of any DaisySel: the self-test pattern.

Any other selection stops the run as unimplemented when read, naming it. Samples are
taken at the read (or the L1 write trigger): nothing is "five cycles stale".
"""

from __future__ import annotations

from ..errors import Unimplemented

# DaisySel 7 SignalSel of groups A, B (DebugDaisychain.md "RISCV execution state")
_RISCV_GROUPS = {"brisc": (10, 11), "trisc0": (12, 13), "trisc1": (14, 15), "trisc2": (16, 17), "ncrisc": (24, 25)}


class Daisychain:
    def __init__(self, tile):
        self.tile = tile
        self.ctrl = 0  # DBG_BUS_CNTL_REG
        self.mem = [0, 0, 0]  # DBG_L1_MEM_REG0 (address >> 4), REG1 (end for sampling), REG2
        self.next_addr = None  # where the next triggered write goes (address >> 4); None: REG0's
        self.groups = {}
        for core, (a, b) in _RISCV_GROUPS.items():
            if core in tile.harts:
                self.groups[(7, a)] = (self._group_a, core)
                self.groups[(7, b)] = (self._group_b, core)

    # -- registers -------------------------------------------------------------------------
    def write_ctrl(self, value: int) -> None:
        self.ctrl = value & 0xFFFFFFFF

    def read_data(self) -> int:
        """DBG_RD_DATA: the 32 bits ``Read32Sel`` picks of the selected group."""
        return (self.sample() >> (32 * ((self.ctrl >> 25) & 3))) & 0xFFFFFFFF

    def write_mem(self, index: int, value: int) -> None:
        """DBG_L1_MEM_REG0/1/2. REG2: ``WriteMode`` 0xf prepares (the next write goes to
        REG0's address), ``WriteTrigger`` (bit 12) going from false to true writes the
        selected 128 bits to L1: at the same address again in mode 0, 16 bytes further
        each time in mode 1. Mode 4 (periodic sampling) is not modelled."""
        old = self.mem[index]
        self.mem[index] = value & 0xFFFFFFFF
        if index != 2:
            return
        mode = value & 0xF
        if mode == 0xF:
            self.next_addr = None  # the next write goes to REG0's address (written after this)
            return
        if not value >> 12 & 1 or old >> 12 & 1:
            return
        if mode == 4:
            raise Unimplemented("debug daisychain periodic sampling to L1 (DBG_L1_MEM_REG2 WriteMode 4) is not "
                                "modelled; single writes (WriteMode 0 or 1) are")
        if mode not in (0, 1):
            raise Unimplemented(f"debug daisychain write to L1 with WriteMode {mode} (DebugDaisychain.md "
                                "describes 0, 1, 4 and 0xf)")
        line = self.mem[0] if self.next_addr is None else self.next_addr
        addr = (line << 4) & 0xFFFFFFFF
        if addr + 16 > min(self.tile.arch.l1_size, 1 << 20):
            raise Unimplemented(f"debug daisychain write to L1 address 0x{addr:x}: the daisychain writes only "
                                "the low 1 MiB of L1")
        self.tile.write(addr, self.sample().to_bytes(16, "little"))
        self.tile.activity[0] = 1
        self.next_addr = line + 1 if mode == 1 else line

    # -- the selected group ----------------------------------------------------------------------
    def sample(self) -> int:
        """The 128 bits ``DaisySel`` / ``SignalSel`` select now."""
        ctrl = self.ctrl
        sig, daisy = ctrl & 0xFFFF, (ctrl >> 16) & 0xFF
        if not ctrl >> 29 & 1:
            self.tile.undefined("daisychain read while disabled",
                                f"debug daisychain read with DBG_BUS_CNTL_REG.Enabled clear (0x{ctrl:08x}; "
                                "DebugDaisychain.md: it must be set to use the daisychain); ttemu samples anyway")
        if sig == 255:
            return daisy | 0xA5A5A5A5 << 32 | 0x5A5A5A5A << 64 | 0xA5A5A5A5 << 96
        entry = self.groups.get((daisy, sig))
        if entry is not None:
            return entry[0](entry[1])
        from ..tensix.debug_signals import tensix_group  # the coprocessor's groups

        value = tensix_group(self.tile, daisy, sig)
        if value is None:
            raise Unimplemented(f"debug daisychain DaisySel {daisy} SignalSel {sig} is not modelled "
                                "(docs/debug-hardware.md lists the groups that are)")
        return value

    def _group_a(self, core):
        """Group A: bits 0-30 the pc of the instruction that retires next, bit 31 set
        when it can leave the Load/Store Unit (not waiting on an access), bits 64-93
        the pc the frontend fetches next."""
        hart = self.tile.harts[core]
        pc = hart.pc
        ready = hart.state != "reset" and not hart.stall
        return (pc & 0x7FFFFFFF) | (ready << 31) | ((pc & 0x3FFFFFFF) << 64)

    def _group_b(self, core):
        """Group B: bits 32-61 the pc entering decode, bits 63 and 103 set (an
        instruction is there) unless the core is in reset."""
        hart = self.tile.harts[core]
        live = hart.state != "reset"
        return ((hart.pc & 0x3FFFFFFF) << 32) | (live << 63) | (live << 103)
