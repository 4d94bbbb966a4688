"""The Tensix coprocessor's debug registers in the tile control / debug / status
region (``ttemu.mmio.debug`` routes them here): what an external debugger uses to see
into the coprocessor without a RISC-V core's help.

* RISCV_DEBUG_REG_CFGREG_RD_CNTL / CFGREG_RDDATA: writing ``x`` makes CFGREG_RDDATA
  ``((uint32_t *) TENSIX_CFG_BASE)[x & 0x7ff]`` (tt-isa-documentation
  WormholeB0/TensixTile/TensixCoprocessor/BackendConfiguration.md, "Debug registers").
* RISCV_DEBUG_REG_INSTRN_BUF_CTRL0 / CTRL1 / STATUS: the debug bus takes a thread's
  FIFO before its replay expander and pushes instructions into it
  (BabyRISCV/PushTensixInstruction.md, "Debug registers"); tt-exalens's
  ``TensixDebug.inject_instruction``.
* RISCV_DEBUG_REG_DBG_ARRAY_RD_EN / CMD / DATA: reads of Dst rows, 32 bits (two
  16-bit DstBits columns) at a time. No page describes them; the facts: tt-metal's
  ``DBG_RD_CMD_PAYLOAD(thread, array_id, addr)`` (hw/inc/internal/tensix_functions.h:
  thread << 19 | array_id << 16 | addr, Dst is array 2), tt-exalens's
  ``read_regfile_data`` (row in bits 0-11, the 32-bit column pair in bits 12-15, data
  ``DstBits[row][2 * i] | DstBits[row][2 * i + 1] << 16`` as ttsim's model returns it).
"""

from __future__ import annotations

from ..errors import Unimplemented
from .frontend.thread import FIFO_DEPTH

DST_ARRAY = 2
_ARRAYS = {0: "SrcA", 1: "SrcB", 2: "Dst", 3: "the exponent-max array"}


class TensixDebugPort:
    def __init__(self, cop):
        self.cop = cop
        self.cfg_index = 0  # CFGREG_RD_CNTL
        self.cfg_data = 0  # CFGREG_RDDATA
        self.array_en = 0  # DBG_ARRAY_RD_EN
        self.array_cmd = 0  # DBG_ARRAY_RD_CMD
        self.buf_ctrl0 = 0  # INSTRN_BUF_CTRL0
        self.buf_ctrl1 = 0  # INSTRN_BUF_CTRL1

    # -- backend configuration ------------------------------------------------------------------
    def write_cfg_index(self, value: int) -> None:
        self.cfg_index = value & 0xFFFFFFFF
        config = self.cop.config
        addr = config.base + 4 * (value & 0x7FF)
        if addr >= config.end:
            self.cop.tile.undefined("CFGREG_RD_CNTL beyond the configuration",
                                    f"CFGREG_RD_CNTL = 0x{value:x}: word {value & 0x7FF} is beyond Config and "
                                    f"ThreadConfig (they end at word {(config.end - config.base) // 4}); "
                                    "CFGREG_RDDATA reads 0")
            self.cfg_data = 0
        else:
            self.cfg_data = config.read(None, addr, 4)

    # -- instruction injection ------------------------------------------------------------------
    def owns(self, thread: int) -> bool:
        """Does the debug bus hold ``thread``'s FIFO (INSTRN_BUF_CTRL0 bit ``thread``)?"""
        return bool(self.buf_ctrl0 >> thread & 1)

    def write_buf_ctrl0(self, value: int) -> None:
        """Bits 0-2 give the debug bus thread 0-2's FIFO; bit 4 + t going from false to
        true pushes INSTRN_BUF_CTRL1 into thread t's FIFO (when the debug bus holds it)."""
        old, self.buf_ctrl0 = self.buf_ctrl0, value & 0xFFFFFFFF
        cop = self.cop
        if (old ^ value) & 7:
            cop._routes.clear()  # the cores' pushes to a held FIFO are discarded (Coprocessor.push_from_core)
        for t in range(3):
            if not (value >> (4 + t) & 1) or old >> (4 + t) & 1:
                continue
            word = self.buf_ctrl1
            if not value >> t & 1:
                cop.tile.undefined(f"INSTRN_BUF push T{t} without control",
                                   f"INSTRN_BUF_CTRL0 = 0x{value:x} pushes to T{t} without the debug bus holding "
                                   f"its FIFO (bit {t} clear; PushTensixInstruction.md); 0x{word:08x} is dropped")
                continue
            thread = cop.threads[t]
            if len(thread.mid) >= FIFO_DEPTH:
                cop.tile.undefined(f"INSTRN_BUF push T{t} full",
                                   f"debug-bus push of 0x{word:08x} to T{t} while its FIFO is full "
                                   "(PushTensixInstruction.md: software should not); it is dropped")
                continue
            thread.push(word, "debug bus", after_mop=True)
            cop.tile.activity[0] = 1
            cop.kick(False)

    def buf_status(self) -> int:
        """Bit t: thread t's FIFO before the replay expander is not full; bit 4 + t: it is
        empty."""
        v = 0
        for t, thread in enumerate(self.cop.threads):
            if len(thread.mid) < FIFO_DEPTH:
                v |= 1 << t
            if not thread.mid:
                v |= 1 << (4 + t)
        return v

    def discard(self, core: str, thread: int, word: int) -> None:
        """A core's push to a FIFO the debug bus holds: "very likely to be silently
        discarded" (PushTensixInstruction.md)."""
        self.cop.tile.undefined(f"{core} push to T{thread} held by the debug bus",
                                f"{core} pushed 0x{word:08x} to T{thread} while the debug bus holds its FIFO "
                                "(INSTRN_BUF_CTRL0; PushTensixInstruction.md: very likely silently discarded); "
                                "ttemu discards it")

    # -- Dst reads ------------------------------------------------------------------------------
    def read_array(self) -> int:
        cmd = self.array_cmd
        tile = self.cop.tile
        if not self.array_en:
            tile.undefined("DBG_ARRAY_RD_DATA while disabled",
                           "read of DBG_ARRAY_RD_DATA while DBG_ARRAY_RD_EN is 0; ttemu reads 0")
            return 0
        row, pair, array, thread = cmd & 0xFFF, (cmd >> 12) & 0xF, (cmd >> 16) & 7, (cmd >> 19) & 3
        if array != DST_ARRAY or cmd >> 21:
            raise Unimplemented(f"DBG_ARRAY_RD_CMD 0x{cmd:08x}: debug reads of "
                                f"{_ARRAYS.get(array, f'array {array}')} (or thread {thread} with bits above "
                                "20 set) are not modelled; Dst (array 2) is")
        if row >= 1024 or pair >= 8:
            tile.undefined("DBG_ARRAY_RD_CMD beyond Dst",
                           f"DBG_ARRAY_RD_CMD 0x{cmd:08x}: row {row} / column pair {pair} is beyond Dst's 1024 rows "
                           "of 8 pairs; ttemu reads 0")
            return 0
        bits = self.cop.dst.bits
        return int(bits[row, 2 * pair]) | (int(bits[row, 2 * pair + 1]) << 16)
