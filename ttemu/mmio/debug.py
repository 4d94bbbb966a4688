"""Tile control / debug / status registers (RISCV_DEBUG_REGS, 0xFFB12000).

Soft reset (tt-isa-documentation WormholeB0/TensixTile/SoftReset.md) and the wall
clock are modelled; the other registers of the arch's generated table are plain
storage where the table says they are readable/writable, unimplemented otherwise.
"""

from __future__ import annotations

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
        for off, (rname, _, _) in self.regs.items():
            if rname == "dbg_feature_disable":
                self.hooks[off] = (self._read_feature_disable, self._write_feature_disable)
                self.feature_disable_offset = off

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
        from ..errors import GuestFault

        raise GuestFault(f"write to read-only wall clock register 0x{addr:08x}")
