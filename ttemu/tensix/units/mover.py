"""Mover: XMOV, the mover itself, and the TDMA-RISC register window (command queue for
the mover, the packers' PACR_SETREG configuration, packer sideband metadata).

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/XMOV.md, ../Mover.md,
../TDMA-RISC.md. Instructions are methods named after their mnemonics (see
ttemu.tensix.units).

Model notes and decisions:

* The mover finishes a transfer as it starts, so it is never busy (STALLWAIT C12 and
  the TDMA-RISC ``mover_busy`` bit never wait) and XMOV never waits to start.
* ``XMOV``'s syntax is ``TT_XMOV(0, 0)``: a non-zero ``Mov_block_selection`` or
  ``Last`` is undefined.
* An L1-to-L1 copy whose source and destination ranges overlap is undefined (the page
  says ``memcpy``). A copy reaching past the end of L1 is undefined.
* "_TO_L0" destinations: Tensix backend configuration (``dst <= 0xffff``) is written a
  32-bit word at a time through :class:`~ttemu.tensix.regs.config.ConfigSpace` (the
  ``Config`` banks only; ThreadConfig and beyond are Unimplemented); NCRISC instruction
  RAM (``0x40000 .. 0x4ffff``) is written through the tile (dropping translations);
  bytes past the 16 KiB instruction RAM are undefined; every other destination is
  ``NOWHERE`` (the writes are discarded). The "more than one region" check uses the
  low 16 bits of the destination as given.
* :class:`TdmaRisc` is the MMIO device for the ``riscv_tdma_regs`` region
  (0xFFB11000). Commands run as they are enqueued (the queue is never full, parameter
  credits never run out). ``StatusBits()`` is laid out one bit per boolean from bit 0
  (``mover_busy``, reserved, ``command_queue_full``, ``command_queue_empty``,
  ``parameter_queue_full``, ``parameter_queue_empty``, 2 reserved, the 8-bit remaining
  capacity at bits 15:8, then the two register-write-FIFO bits at 16 and 17); the page
  gives the fields but not their widths. ``SetUnpackRegAddr`` is not defined by the
  page: the raw value is stored and read back only. ``reg_wr_msg_count_acc`` is 0.
"""

from __future__ import annotations

import numpy as np

from ...errors import GuestFault, Unimplemented
from ...mmio.router import Device
from . import Unit, op

#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset()

L1_BYTES = 1464 * 1024
TENSIX_CFG_BASE = 0xFFEF0000
MEM_NCRISC_IRAM_BASE = 0xFFC00000
NCRISC_IRAM_BYTES = 16 * 1024
XMOV_L0_TO_L1, XMOV_L1_TO_L0, XMOV_L0_TO_L0, XMOV_L1_TO_L1 = 0, 1, 2, 3


class Mover(Unit):
    name = "mover"

    def __init__(self, cop):
        self.cop = cop

    @op
    def XMOV(self, t, Last, Mov_block_selection):
        """XMOV.md: ``Mover(Destination_address << 4, Source_address << 4,
        (Buffer_size & 0xffff) << 4, Transfer_direction)`` from THCON_SEC0_REG6."""
        if Last or Mov_block_selection:
            self.cop.undefined("XMOV fields",
                               f"Mov_block_selection={Mov_block_selection} Last={Last}; the syntax is TT_XMOV(0, 0) "
                               "and the page's model reads neither: ttemu ignores them")
        cfg = self.cop.config
        bank = cfg.bank_of(t.index)
        self.move(cfg.get("THCON_SEC0_REG6_Destination_address", bank) << 4,
                  cfg.get("THCON_SEC0_REG6_Source_address", bank) << 4,
                  (cfg.get("THCON_SEC0_REG6_Buffer_size", bank) & 0xFFFF) << 4,
                  cfg.get("THCON_SEC0_REG6_Transfer_direction", bank), f"t{t.index} XMOV")
        return None

    def _undefined(self, core, what, key, text):
        """A warning (docs/undefined-behaviour.md): by the issuing Tensix thread (XMOV,
        ``core`` None) or by a RISC-V core through TDMA-RISC."""
        if core is None:
            self.cop.undefined(key, text)
        else:
            self.cop.tile.undefined(f"{core} {key}", f"{core}: {what}: {text}")

    def move(self, dst: int, src: int, count: int, mode: int, what: str = "mover", core=None) -> None:
        """Mover.md ``Mover(dst, src, count, mode)``, done at once. ``core``: the RISC-V
        core that enqueued it through TDMA-RISC (None: XMOV)."""
        dst &= 0xFFFFFFFF
        src &= 0xFFFFFFFF
        to_l1 = mode in (XMOV_L1_TO_L1, XMOV_L0_TO_L1)
        from_l1 = mode in (XMOV_L1_TO_L1, XMOV_L1_TO_L0)
        if to_l1:
            if dst >= L1_BYTES or dst + count > L1_BYTES:
                raise GuestFault(f"{what}: destination {dst:#x}+{count:#x} is not inside L1 (Mover.md: undefined; "
                                 "there is no memory there)")
        elif (dst & 0xFFFF) + count > 0x10000:
            keep = 0x10000 - (dst & 0xFFFF)
            self._undefined(core, what, "mover crosses 64 KiB region",
                            f"destination {dst:#x}+{count:#x} crosses a 64 KiB region (Mover.md: undefined); "
                            f"ttemu writes the first {keep:#x} bytes and discards the rest")
            count = keep
        if from_l1 and (src >= L1_BYTES or src + count > L1_BYTES):
            raise GuestFault(f"{what}: source {src:#x}+{count:#x} is not inside L1 (Mover.md: undefined; there is "
                             "no memory there)")
        if count == 0:
            return
        tile = self.cop.tile
        l1 = np.frombuffer(tile.l1, dtype=np.uint8)
        data = l1[src:src + count].copy() if from_l1 else np.zeros(count, dtype=np.uint8)
        if to_l1:
            if from_l1 and src < dst + count and dst < src + count and src != dst:
                self._undefined(core, what, "mover overlapping copy",
                                f"overlapping L1 copy {src:#x} -> {dst:#x} ({count:#x} bytes; Mover.md's memcpy "
                                "leaves overlap undefined); ttemu copies as memmove (the whole source is read "
                                "first)")
            l1[dst:dst + count] = data
            code = np.frombuffer(tile.is_code, dtype=np.uint8)[dst >> 2:(dst + count + 3) >> 2]
            for w in np.nonzero(code)[0]:
                tile.invalidate_code(int((dst >> 2) + w) << 2)
            tile.activity[0] = 1
            return
        if dst <= 0xFFFF:
            cfg = self.cop.config
            addr = TENSIX_CFG_BASE + dst
            if addr + count > cfg.thread_base:
                raise Unimplemented(f"{what}: writes to Tensix configuration beyond the Config banks "
                                    f"({addr:#010x}+{count:#x}) are not modelled")
            words = data.view("<u4")
            for k, w in enumerate(words):
                cfg.write(None, addr + 4 * k, 4, int(w))
        elif 0x40000 <= dst <= 0x4FFFF:
            off = dst - 0x40000
            if off + count > NCRISC_IRAM_BYTES:
                keep = max(0, NCRISC_IRAM_BYTES - off)
                self._undefined(core, what, "mover beyond NCRISC IRAM",
                                f"NCRISC instruction RAM write {off:#x}+{count:#x} beyond its {NCRISC_IRAM_BYTES} "
                                f"bytes (undocumented); ttemu writes the first {keep:#x} bytes and discards the rest")
                data = data[:keep]
            if data.size:
                tile.write(MEM_NCRISC_IRAM_BASE + off, data.tobytes())
        # else: NOWHERE, the writes are discarded
        tile.activity[0] = 1


#: TDMA-RISC.md ``CurrentThreadMovCmdBase``: RISCV B, T0, T1, T2 have their own base;
#: everything else (NCRISC, the host) uses RISCV T0's.
_MOV_BASE_INDEX = {"brisc": 0, "trisc0": 1, "trisc1": 2, "trisc2": 3}


class TdmaRisc(Device):
    """TDMA-RISC.md: the ``riscv_tdma_regs`` MMIO region (0xFFB11000, 4 KiB)."""

    name = "riscv_tdma_regs"

    def __init__(self, cop, base=0xFFB11000):
        self.cop = cop
        self.base = base
        self.cmd_params = [0, 0, 0, 0]
        self.mov_cmd_base = [0, 0, 0, 0]
        self.parameter_credits = 2
        self.unpack_reg_addr_raw = 0
        self.scaler2_raw = 0
        self.pack_reg_addr_raw = 0

    @property
    def packers(self):
        return self.cop.pack

    def _off(self, addr, width, verb):
        if width != 4 or addr & 3:
            raise GuestFault(f"{width}-byte {verb} at 0x{addr:08x}: TDMA-RISC registers are 32-bit")
        return addr - self.base

    @staticmethod
    def _sideband(off):
        """-> (kind, packer, thread) for the per-packer metadata addresses, else None."""
        p, low = off >> 8, off & 0xFF
        if p > 3:
            return None
        if low in (0x18, 0x1C, 0x58, 0x5C, 0x98, 0x9C):
            return ("size" if low & 4 == 0 else "acc"), p, (low - 0x18) >> 6
        if low in (0x20, 0x30, 0x34):
            return {0x20: "zero", 0x30: "peek", 0x34: "pop"}[low], p, None
        return None

    def _cur_base_index(self, core):
        return _MOV_BASE_INDEX.get(core, 1)

    # -- reads ------------------------------------------------------------------------
    def read(self, core, addr, width):
        off = self._off(addr, width, "read")
        pk = self.packers
        if off in (0x00, 0x04, 0x08, 0x0C, 0x10):
            return 0
        if off == 0x14:
            return self.status_bits()
        if off == 0x2C:
            return self.mov_cmd_base[self._cur_base_index(core)]
        if off == 0x24:
            return self.unpack_reg_addr_raw
        if off == 0x28:
            return self.scaler2_raw
        if off in (0x3C, 0x13C):
            return self.scalars_and_status(off >> 8)
        if off == 0x38:
            out = (self.pack_reg_addr_raw << 8) & 0xFFFFFFFF
            for i in range(4):
                fifo = pk.metadata_fifo[i]
                if not fifo:
                    out |= 1 << (2 * i)
                if len(fifo) >= 16:
                    out |= 2 << (2 * i)
            return out
        sb = self._sideband(off)
        if sb is None:
            raise Unimplemented(f"read of TDMA-RISC register 0x{addr:08x} is not modelled")
        kind, p, th = sb
        if kind == "size":
            return pk.last_tile_size[p] if pk.last_thread[p] == th else 0
        if kind == "acc":
            return pk.acc_tile_size[p][th] & 0xFFFF  # reg_wr_msg_count_acc (high half) is 0
        if kind == "zero":
            return pk.all_zero_flags[p]
        fifo = pk.metadata_fifo[p]
        if kind == "peek":
            if not fifo:
                self.cop.tile.last_stall = (f"blocked at pc {{pc}}: reading packer {p}'s empty metadata FIFO "
                                           "(TDMA-RISC peek)")
                return None
            return fifo[0][0]
        if not fifo:
            self.cop.tile.undefined(f"{core} TDMA-RISC pop empty metadata FIFO {p}",
                                    f"{core}: read of 0x{addr:08x} pops packer {p}'s empty metadata FIFO (TDMA-RISC.md: "
                                    "returns undefined data); ttemu returns 0")
            return 0
        return fifo.popleft()[1]

    def status_bits(self) -> int:
        cap = 4  # the queue is always empty: commands run as they are enqueued
        return ((1 << 3) | ((self.parameter_credits == 0) << 4) | ((self.parameter_credits == 2) << 5)
                | (cap << 8))

    def scalars_and_status(self, which_unpacker: int) -> int:
        out = 0
        for i in range(3):
            out |= self.packers.set_reg_hi_scaler[i] << (i * 9)
        return out  # packers never busy; reg_wr_msg_count_acc is 0

    # -- writes -----------------------------------------------------------------------
    def write(self, core, addr, width, value):
        off = self._off(addr, width, "write")
        value &= 0xFFFFFFFF
        pk = self.packers
        if off in (0x00, 0x04, 0x08, 0x0C):
            self.cmd_params[off >> 2] = value
        elif off == 0x10:
            self.enqueue(core, value)
        elif off == 0x14:
            pass
        elif off == 0x2C:
            self.mov_cmd_base[self._cur_base_index(core)] = value
        elif off == 0x24:
            self.unpack_reg_addr_raw = value & 0xFFFFFF7F
        elif off == 0x28:
            self.scaler2_raw = value & 0x01FF007F
            pk.set_scaler(3, value)
        elif off in (0x3C, 0x13C):
            pk.set_scaler(0, value)
        elif off == 0x38:
            self.pack_reg_addr_raw = value
            pk.set_pack_reg_addr(value)
        else:
            sb = self._sideband(off)
            if sb is None:
                raise Unimplemented(f"write of 0x{value:x} to TDMA-RISC register 0x{addr:08x} is not modelled")
            kind, p, _ = sb
            if kind == "acc":
                pk.reset_acc_tile_size_mmio(value)
            elif kind == "pop" and pk.metadata_fifo[p]:
                pk.metadata_fifo[p].popleft()
        self.cop.tile.activity[0] = 1
        return True

    def enqueue(self, core, cmd: int) -> None:
        """``EnqueueCmd`` followed at once by the command processor (TDMA-RISC.md)."""
        params = (0, 0, 0, 0) if cmd >> 31 else tuple(self.cmd_params)
        opcode = cmd & 0xFF
        mover = self.cop.mover
        what = f"TDMA-RISC command {cmd:#010x}"
        if opcode == 0x40:
            if cmd >> 31:
                src = self.mov_cmd_base[self._cur_base_index(core)] + ((cmd >> 8) & 0xFF)
                dst = (cmd >> 16) & 0xFF
                count = (cmd >> 24) & 0x3F
                mode = XMOV_L1_TO_L1 if (cmd >> 30) & 1 else XMOV_L1_TO_L0
            else:
                src, dst, count, mode = params[0], params[1], params[2] & 0xFFFF, params[3] & 3
            mover.move(dst << 4, src << 4, count << 4, mode, what, core=core or "host")
        elif opcode in (0x46, 0x89):
            pass  # mover wait (never busy) / NOP
        elif opcode == 0x66:
            if cmd >> 31 or (cmd & 0x600) != 0x600:
                who = core or "host"
                self.cop.tile.undefined(f"{who} TDMA-RISC L1 write form",
                                        f"{who}: {what}: an L1 write command must carry parameters and have bits "
                                        "10:9 set (TDMA-RISC.md: undefined); ttemu writes nothing")
                return
            dst = params[0]
            size = 8 if cmd & 0x100 else 4
            if dst >= L1_BYTES or dst + size > L1_BYTES:
                raise GuestFault(f"{what}: L1 write at {dst:#x} is outside L1 (TDMA-RISC.md: undefined; there is no "
                                 "memory there)")
            value = ((params[3] << 32) | params[2]) if size == 8 else params[2]
            self.cop.tile.write(dst, value.to_bytes(size, "little"))
        else:
            raise Unimplemented(f"{what}: opcode {opcode:#04x} is not a documented command (TDMA-RISC.md "
                                "documents 0x40, 0x46, 0x66, 0x89)")
