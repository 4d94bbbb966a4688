"""Tensix backend configuration as the RISC-V cores see it at TENSIX_CFG_BASE.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/BackendConfiguration.md:
``uint32_t Config[2][CFG_STATE_SIZE*4]`` followed by
``struct {uint16_t Value, Padding[7];} ThreadConfig[3][THD_STATE_SIZE]``. RISC-V may
read both with any load width but write only ``Config`` and only with ``sw``; writes
to words at or above GLOBAL_CFGREG_BASE_ADDR32 land in both banks.
"""

from __future__ import annotations

import numpy as np

from ..errors import GuestFault
from ..mmio.router import Device


class ConfigSpace(Device):
    name = "tensix_cfg"

    def __init__(self, base, bank_words, thread_words, global_base):
        self.base = base
        self.bank_words = bank_words
        self.thread_words = thread_words
        self.global_base = global_base
        self.cfg = np.zeros((2, bank_words), dtype=np.uint32)
        self.thread_cfg = np.zeros((3, thread_words), dtype=np.uint16)
        self.thread_base = base + 8 * bank_words
        self.end = self.thread_base + 3 * thread_words * 16
        self.listeners = []  # callables(bank, index, value) run after a write

    def word(self, index: int) -> int:
        """Config[0][index] (the bank RISC-V sees first)."""
        return int(self.cfg[0, index])

    def write_word(self, bank: int, index: int, value: int) -> None:
        value &= 0xFFFFFFFF
        if index >= self.global_base:
            self.cfg[:, index] = value
        else:
            self.cfg[bank, index] = value
        for fn in self.listeners:
            fn(bank, index, value)

    def read(self, core, addr, width):
        if addr < self.thread_base:
            off = addr - self.base
            word = int(self.cfg.reshape(-1)[off >> 2])
            shift = (off & 3) * 8
            return (word >> shift) & ((1 << (8 * width)) - 1)
        if addr < self.end:
            off = addr - self.thread_base
            entry, within = divmod(off, 16)
            t, idx = divmod(entry, self.thread_words)
            if within >= 2:
                return 0  # padding
            value = int(self.thread_cfg[t, idx]) >> (8 * within)
            return value & ((1 << (8 * width)) - 1)
        raise GuestFault(f"read of {width} bytes at 0x{addr:08x}: beyond the Tensix configuration space")

    def write(self, core, addr, width, value):
        if width != 4:
            raise GuestFault(f"{width}-byte store to Tensix configuration at 0x{addr:08x}: only sw may write Config")
        if addr >= self.thread_base:
            raise GuestFault(f"store to ThreadConfig at 0x{addr:08x}: RISC-V cannot write ThreadConfig (use SETC16)")
        off = (addr - self.base) >> 2
        self.write_word(off // self.bank_words, off % self.bank_words, value)
        return True
