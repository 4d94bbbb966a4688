"""RISC-V access to ``Dst`` (Blackhole: RISCV T0 / T1 / T2 see it at 0xFFBD8000).

tt-isa-documentation BlackholeA0/TensixTile/TensixCoprocessor/Dst.md, "RISCV access to
Dst": the shape of the mapping and the conversions come from the accessing thread's
``Config[StateID].RISC_DEST_ACCESS_CTRL_SEC[thread].{fmt, no_swizzle, unsigned_int}``:
``fmt`` 0 / 1 a 512 x 16 array of 32-bit values (FP32 / sign-magnitude integers), 2 /
3 / 4 a 1024 x 16 array of 16-bit values (FP16, BF16, Integer "16"), 5 of 8-bit values
(Integer "8"); Load32 / Load16 / Load8 and Store32 / Store16 / Store8 convert between
the Dst bit layouts and the CPU's. An access whose width does not match ``fmt`` is
undefined behaviour (a warning; ttemu reads 0 and drops the write). tt-exalens reads
Dst this way on Blackhole (``TensixDebug.direct_dest_read``, through TRISC0's debug
interface).
"""

from __future__ import annotations

import numpy as np

from ...errors import GuestFault
from ...mmio.router import Device

_WIDTH_OF_FMT = {0: 4, 1: 4, 2: 2, 3: 2, 4: 2, 5: 1}


class DstWindow(Device):
    name = "tensix_dst"

    def __init__(self, cop, region):
        self.cop = cop
        self.base = region.base
        self.size = region.size

    def _setup(self, core, addr, width, verb):
        tile = self.cop.tile
        spec = tile.specs.get(core) if core else None
        if spec is None or core == "brisc" or spec.tensix_thread is None:
            raise GuestFault(f"{verb} 0x{addr:08x}: Dst (0xFFBD8000) is mapped only for RISCV T0 / T1 / T2")
        if addr & (width - 1):
            raise GuestFault(f"misaligned {width}-byte {verb} Dst at 0x{addr:08x}")
        t = spec.tensix_thread
        cfg = self.cop.config
        bank = cfg.bank_of(t)
        sec = f"RISC_DEST_ACCESS_CTRL_SEC{t}_"
        fmt = cfg.get(sec + "fmt", bank)
        if _WIDTH_OF_FMT.get(fmt) != width:
            self.cop.tile.undefined(f"{core} Dst window fmt {fmt} width {width}",
                                    f"{core}: {width}-byte {verb} Dst at 0x{addr:08x} while {sec}fmt is {fmt} "
                                    "(Dst.md: UndefinedBehavior); ttemu reads 0 / drops the write")
            return None
        return fmt, cfg.get(sec + "no_swizzle", bank), cfg.get(sec + "unsigned_int", bank)

    def _storage(self, addr, width):
        """DstBits rows (and column) holding the element at ``addr``: one row for a 16-bit
        or 8-bit element (Adj16), the high-half row for a 32-bit one (Adj32; +8 the low)."""
        math = self.cop.math
        index = (addr - self.base) // width
        if width == 4:
            return int(math._rows32(index // 16, 1)[0]), index % 16
        return int(math._rows16(index // 16, 1)[0]), index % 16

    def read(self, core, addr, width):
        mode = self._setup(core, addr, width, "load from")
        if mode is None:
            return 0
        fmt, no_swizzle, unsigned_int = mode
        bits = self.cop.dst.bits
        row, col = self._storage(addr, width)
        if width == 4:  # Load32
            v = (int(bits[row, col]) << 16) | int(bits[row + 8, col])
            if not no_swizzle:
                v = (v & 0x8000FFFF) | ((v & 0x7F000000) >> 8) | ((v & 0x00FF0000) << 7)
            if fmt == 1 and not no_swizzle and v >= 0x80000000:
                v = -(v & 0x7FFFFFFF) & 0xFFFFFFFF
            return v
        v = int(bits[row, col])
        if width == 2:  # Load16
            if fmt == 2 and not no_swizzle:
                v = (v & 0x8000) | ((v & 0x7FE0) >> 5) | ((v & 0x001F) << 10)
            elif fmt == 3 and not no_swizzle:
                v = (v & 0x8000) | ((v & 0x7F00) >> 8) | ((v & 0x00FF) << 7)
            elif fmt == 4 and not (no_swizzle or unsigned_int) and v >= 0x8000:
                v = -(v & 0x7FFF) & 0xFFFF
            return v
        # Load8 (fmt 5)
        if no_swizzle or unsigned_int:
            return (v >> 5) & 0xFF
        mag = (v >> 5) & 0x7F
        return (-mag & 0xFF) if v & 0x8000 else mag

    def peek(self, core, addr):
        return None  # what a read returns depends on the reader's configuration

    def write(self, core, addr, width, value):
        mode = self._setup(core, addr, width, "store to")
        if mode is None:
            return True
        fmt, no_swizzle, unsigned_int = mode
        math = self.cop.math
        bits = self.cop.dst.bits
        row, col = self._storage(addr, width)
        index = (addr - self.base) // width
        if width == 4:  # Store32
            v = value & 0xFFFFFFFF
            if fmt == 1 and not no_swizzle and v >= 0x80000000:
                v = 0x80000000 | (-(v + (v == 0x80000000)) & 0xFFFFFFFF)
            if not no_swizzle:
                v = (v & 0x8000FFFF) | ((v & 0x7F800000) >> 7) | ((v & 0x007F0000) << 8)
            bits[row, col] = np.uint16(v >> 16)
            bits[row + 8, col] = np.uint16(v & 0xFFFF)
            math._forget32(index // 16, 1)
        else:
            if width == 2:  # Store16
                v = value & 0xFFFF
                if fmt == 2 and not no_swizzle:
                    v = (v & 0x8000) | ((v & 0x7C00) >> 10) | ((v & 0x03FF) << 5)
                elif fmt == 3 and not no_swizzle:
                    v = (v & 0x8000) | ((v & 0x7F80) >> 7) | ((v & 0x007F) << 8)
                elif fmt == 4 and not (no_swizzle or unsigned_int) and v >= 0x8000:
                    v = 0x8000 | (-(v + (v == 0x8000)) & 0xFFFF)
            else:  # Store8 (fmt 5)
                v8 = value & 0xFF
                if no_swizzle or unsigned_int or v8 < 0x80:
                    v = (v8 << 5) | (16 if v8 else 0)
                else:  # "meant to be conversion from two's complement to sign-magnitude, but isn't"
                    mag = 0x180 - v8 - (v8 == 0x80)
                    v = (0x8000 | (mag << 5) | 16) & 0xFFFF
            bits[row, col] = np.uint16(v)
            math._forget16(index // 16, 1)
        self.cop.tile.activity[0] = 1
        return True
