"""Tile control / debug / status registers (RISCV_DEBUG_REGS, 0xFFB12000;
tt-isa-documentation WormholeB0/TensixTile/TileControlDebugStatus.md).

Modelled: soft reset (SoftReset.md), the wall clock, DBG_FEATURE_DISABLE bit 11 (Dst.md),
and what external debuggers use (docs/debug-hardware.md):

* RISC_DBG_CNTL_0/1, RISC_DBG_STATUS_0/1: the RISC-V cores' debug interface
  (``riscv_debug.py``; BabyRISCV/DebugInterface.md);
* DBG_BUS_CNTL_REG, DBG_RD_DATA, DBG_L1_MEM_REG0-2: the debug daisychain
  (``daisychain.py``; DebugDaisychain.md);
* CFGREG_RD_CNTL / CFGREG_RDDATA, DBG_ARRAY_RD_EN / CMD / DATA, INSTRN_BUF_CTRL0 / CTRL1
  / STATUS: the Tensix coprocessor's debug paths (``ttemu.tensix.debug_port``).

The other registers of the arch's generated table are plain storage where the table
says they are readable/writable, unimplemented otherwise. Registers are found by their
name in that table (both arches name them alike).
"""

from __future__ import annotations

from ..errors import GuestFault
from .daisychain import Daisychain
from .router import RegisterBank


class DebugRegs(RegisterBank):
    def __init__(self, tile, region, regs):
        super().__init__(region.name, region.base, regs)
        arch = tile.arch
        self.tile = tile
        self.hooks[arch.soft_reset_addr - region.base] = (self._read_reset, self._write_reset)
        lo = arch.wall_clock_lo - region.base
        self.hooks[lo] = (self._read_clock_lo, self._ro)
        self.hooks[lo + 4] = (self._read_clock_hi, self._ro)
        self.hooks[arch.wall_clock_hi - region.base] = (self._read_clock_latched, self._ro)
        self.latched_hi = 0
        self.daisychain = Daisychain(tile)
        dbg = tile.riscv_debug
        chain = self.daisychain
        port = self._port
        hooks = {
            "dbg_feature_disable": (self._read_feature_disable, self._write_feature_disable),
            # the RISC-V debug interface
            "risc_dbg_cntl_0": (lambda: dbg.cntl0, dbg.write_cntl0),
            "risc_dbg_cntl_1": (lambda: dbg.cntl1, lambda v: setattr(dbg, "cntl1", v)),
            "risc_dbg_status_0": (dbg.read_status0, None),
            "risc_dbg_status_1": (lambda: dbg.status1, None),
            # the debug daisychain
            "dbg_bus_ctrl": (lambda: chain.ctrl, chain.write_ctrl),
            "dbg_rd_data": (chain.read_data, GuestFault),
            "dbg_l1_mem_reg0": (lambda: chain.mem[0], lambda v: chain.write_mem(0, v)),
            "dbg_l1_mem_reg1": (lambda: chain.mem[1], lambda v: chain.write_mem(1, v)),
            "dbg_l1_mem_reg2": (lambda: chain.mem[2], lambda v: chain.write_mem(2, v)),
            # the Tensix coprocessor's
            "tensix_creg_read": (lambda: port().cfg_index, lambda v: port().write_cfg_index(v)),
            "tensix_creg_rddata": (lambda: port().cfg_data, GuestFault),
            "dbg_array_rd_en": (lambda: port().array_en, lambda v: setattr(port(), "array_en", v)),
            "dbg_array_rd_cmd": (lambda: port().array_cmd, lambda v: setattr(port(), "array_cmd", v)),
            "dbg_array_rd_data": (lambda: port().read_array(), GuestFault),
            "dbg_instrn_buf_ctrl0": (lambda: port().buf_ctrl0, lambda v: port().write_buf_ctrl0(v)),
            "dbg_instrn_buf_ctrl1": (lambda: port().buf_ctrl1, lambda v: setattr(port(), "buf_ctrl1", v)),
            "dbg_instrn_buf_status": (lambda: port().buf_status(), GuestFault),
        }
        for off, (rname, _, _) in self.regs.items():
            hook = hooks.get(rname)
            if hook is None:
                continue
            if rname == "dbg_feature_disable":
                self.feature_disable_offset = off
                self.hooks[off] = hook
                continue
            self.hooks[off] = (self._reader(hook[0]), self._writer(rname, hook[1]))

    def _port(self):
        return self.tile.tensix.debug_port  # (builds the coprocessor on first use)

    @staticmethod
    def _reader(fn):
        return lambda core, addr: fn() & 0xFFFFFFFF

    @staticmethod
    def _writer(rname, fn):
        if fn is None:  # read-only, "writes discarded" (DebugInterface.md)
            return lambda core, addr, value: True
        if fn is GuestFault:
            def refuse(core, addr, value):
                raise GuestFault(f"write to read-only register {rname} at 0x{addr:08x}")
            return refuse

        def write(core, addr, value):
            fn(value & 0xFFFFFFFF)
            return True
        return write

    def _read_feature_disable(self, core, addr):
        return self.values[self.feature_disable_offset]

    def _write_feature_disable(self, core, addr, value):
        """RISCV_DEBUG_REG_DBG_FEATURE_DISABLE: bit 11 switches Dst16b to aliasing the
        high halves of Dst32b (Dst.md); the other bits only tune hardware."""
        self.values[self.feature_disable_offset] = value
        aliased = bool(value >> 11 & 1)
        cop = self.tile._tensix
        if aliased or (cop is not None and cop.dst.aliased16):
            self.tile.tensix.dst.aliased16 = aliased
        return True

    def peek(self, core, addr):
        off = addr - self.base
        a = self.tile.arch
        if addr == a.soft_reset_addr:
            return self.tile.soft_reset
        if addr == a.wall_clock_lo:
            return self.tile.clock() & 0xFFFFFFFF  # without latching the high half
        if addr == a.wall_clock_lo + 4:
            return self.tile.clock() >> 32
        if addr == a.wall_clock_hi:
            return self.latched_hi
        if off == getattr(self, "feature_disable_offset", None):
            return self.values[off]
        return super().peek(core, addr)

    def _read_reset(self, core, addr):
        return self.tile.soft_reset

    def _write_reset(self, core, addr, value):
        self.tile.set_soft_reset(value & 0xFFFFFFFF)
        return True

    def _read_clock_lo(self, core, addr):
        t = self.tile.clock()
        self.latched_hi = t >> 32
        return t & 0xFFFFFFFF

    def _read_clock_hi(self, core, addr):
        return self.tile.clock() >> 32

    def _read_clock_latched(self, core, addr):
        return self.latched_hi

    def _ro(self, core, addr, value):
        raise GuestFault(f"write to read-only wall clock register 0x{addr:08x}")
