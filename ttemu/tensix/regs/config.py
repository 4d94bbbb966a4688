"""Tensix backend configuration: ``Config[2][CFG_STATE_SIZE*4]`` (thread-agnostic,
two banks) and ``ThreadConfig[3][THD_STATE_SIZE]`` (16-bit, per thread).

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/BackendConfiguration.md.
RISC-V sees both at TENSIX_CFG_BASE: Config bank 0, Config bank 1, then ThreadConfig
entries of 16 bytes each (a 16-bit value and padding). Blackhole
(BlackholeA0/TensixTile/TensixCoprocessor/BackendConfiguration.md, ``ArchSpec.cfg_dual_write``)
has ``ConfigDualWrite`` between them: a write there lands in both banks, a read
returns bank 0. RISC-V may read with any load
width but write only ``Config`` and only with ``sw``. Writes to words at or above
GLOBAL_CFGREG_BASE_ADDR32 land in both banks.

Field names, word indices, shifts and widths come from the arch's generated table
(``ttemu/arch/tables/<arch>_cfg.py``, from ttsim's tensix_regs.json).
"""

from __future__ import annotations

import importlib

import numpy as np

from ...errors import GuestFault
from ...mmio.router import Device


def field_tables(arch_name: str):
    mod = importlib.import_module(f"ttemu.arch.tables.{arch_name}_cfg")
    return mod.CFG, mod.THREAD_CFG


class _Fields(dict):
    """A field table whose missing names stop the run as unimplemented (an instruction
    implemented after the Wormhole layout, on an arch that lacks the field)."""

    def __init__(self, table, arch, what):
        super().__init__(table)
        self.arch = arch
        self.what = what

    def __missing__(self, name):
        from ...errors import Unimplemented

        raise Unimplemented(f"{self.what} field {name} does not exist on {self.arch}: what reads it is not "
                            f"modelled for {self.arch} yet")


_NONE = object()


class _FieldValues(dict):
    """``name -> value`` of one Config bank (or one thread's ThreadConfig), filled as
    fields are read and forgotten word by word as words are written (see
    :meth:`ConfigSpace.get`): a read that hits is one dict lookup."""

    __slots__ = ("words", "row", "fields", "by_word", "derived_by_word")

    def __init__(self, words, row, fields):
        super().__init__()
        self.words = words  # the numpy array of words
        self.row = row  # bank (Config) or thread (ThreadConfig)
        self.fields = fields
        self.by_word = {}  # word index -> names cached from it
        self.derived_by_word = {}  # word index -> keys of derived values read from it

    def derived(self, key: tuple, names, fn):
        """``fn()``, a value computed from the fields ``names`` (all it reads), kept under
        ``key`` until a word holding one of them is written."""
        value = self.get(key, _NONE)
        if value is _NONE:
            value = fn()
            self.keep(key, value, names)
        return value

    def keep(self, key: tuple, value, names=(), words=()) -> None:
        """Keep a derived ``value`` under ``key`` (``self.get(key)`` returns it) until a
        word holding one of the fields ``names``, or one of the word indices ``words``,
        is written."""
        self[key] = value
        fields = self.fields
        by_word = self.derived_by_word
        indices = set(words)
        for name in names:
            entry = fields.get(name)  # (a field the arch lacks is never written)
            if entry is not None:
                indices.add(entry[0])
        for index in indices:
            keys = by_word.get(index)
            if keys is None:
                by_word[index] = {key}
            else:
                keys.add(key)

    def __missing__(self, name):
        index, shift, width = self.fields[name]
        value = (int(self.words[self.row, index]) >> shift) & ((1 << width) - 1)
        self[name] = value
        names = self.by_word.get(index)
        if names is None:
            self.by_word[index] = [name]
        else:
            names.append(name)
        return value

    def forget(self, index) -> None:
        names = self.by_word.pop(index, None)
        if names:
            for name in names:
                self.pop(name, None)
        if self.derived_by_word:
            keys = self.derived_by_word.pop(index, None)
            if keys:
                for key in keys:
                    self.pop(key, None)

    def forget_all(self) -> None:
        self.clear()
        self.by_word.clear()
        self.derived_by_word.clear()


class ConfigSpace(Device):
    name = "tensix_cfg"

    def __init__(self, arch, base):
        self.base = base
        self.bank_words = arch.cfg_bank_words
        self.thread_words = arch.thread_cfg_words
        self.global_base = arch.cfg_global_base
        self.fields, self.thread_fields = field_tables(arch.name)
        if not arch.cfg_layout_native:
            self.fields = _Fields(self.fields, arch.name, "Config")
            self.thread_fields = _Fields(self.thread_fields, arch.name, "ThreadConfig")
        self.cfg = np.zeros((2, self.bank_words), dtype=np.uint32)
        self.thread_cfg = np.zeros((3, self.thread_words), dtype=np.uint16)
        self.thread_version = 0  # bumped by every ThreadConfig write (for caches of derived values)
        self.version = 0  # bumped by every Config word write (write_word)
        self.dual_base = base + 8 * self.bank_words  # ConfigDualWrite (when the arch has it)
        self.thread_base = self.dual_base + (4 * self.bank_words if arch.cfg_dual_write else 0)
        self.end = self.thread_base + 3 * self.thread_words * 16
        self.listeners = []  # callables(bank, index, value) after a Config word write
        # Field values as read, per bank / per thread (get, thread_get; a write forgets the
        # written word's fields; code writing self.cfg directly calls forget_all)
        self.values = (_FieldValues(self.cfg, 0, self.fields), _FieldValues(self.cfg, 1, self.fields))
        self.thread_values = tuple(_FieldValues(self.thread_cfg, t, self.thread_fields) for t in range(3))

    # -- Config (thread-agnostic) --------------------------------------------------------
    def word(self, index: int, bank: int = 0) -> int:
        return int(self.cfg[bank, index])

    def write_word(self, bank: int, index: int, value: int) -> None:
        """A write from WRCFG / RMWCIB / REG2FLOP / RISC-V ``sw``."""
        value &= 0xFFFFFFFF
        self.version += 1
        if index >= self.global_base:
            self.cfg[:, index] = value
            self.values[0].forget(index)
            self.values[1].forget(index)
        else:
            self.cfg[bank, index] = value
            self.values[bank].forget(index)
        for fn in self.listeners:
            fn(bank, index, value)

    def get(self, name: str, bank: int = 0) -> int:
        """``Config[bank].Field``."""
        return self.values[bank][name]

    def forget_all(self) -> None:
        """Forget every cached field value (after writing ``self.cfg`` directly)."""
        for v in self.values:
            v.forget_all()

    def set(self, name: str, value: int, bank: int = 0) -> None:
        index, shift, width = self.fields[name]
        mask = ((1 << width) - 1) << shift
        old = int(self.cfg[bank, index])
        self.write_word(bank, index, (old & ~mask) | ((value << shift) & mask))

    def bank_of(self, thread: int) -> int:
        """The Config bank a thread uses: ThreadConfig[thread].CFG_STATE_ID_StateID."""
        return self.thread_get(thread, "CFG_STATE_ID_StateID")

    def tget(self, thread: int, name: str) -> int:
        """``Config[bank of thread].Field``: what most instructions read."""
        return self.get(name, self.bank_of(thread))

    # -- ThreadConfig (per thread) -------------------------------------------------------
    def thread_get(self, thread: int, name: str) -> int:
        return self.thread_values[thread][name]

    def thread_set_word(self, thread: int, index: int, value: int) -> None:
        """SETC16."""
        self.thread_cfg[thread, index] = value & 0xFFFF
        self.thread_version += 1
        self.thread_values[thread].forget(index)

    # -- RISC-V view --------------------------------------------------------------------
    def read(self, core, addr, width):
        if addr < self.thread_base:
            off = addr - self.base
            if addr >= self.dual_base:
                off -= self.dual_base - self.base  # ConfigDualWrite reads Config[0]
            word = int(self.cfg.reshape(-1)[off >> 2])
            return (word >> ((off & 3) * 8)) & ((1 << (8 * width)) - 1)
        if addr < self.end:
            entry, within = divmod(addr - self.thread_base, 16)
            t, idx = divmod(entry, self.thread_words)
            if within >= 2:
                return 0  # padding
            return (int(self.thread_cfg[t, idx]) >> (8 * within)) & ((1 << (8 * width)) - 1)
        raise GuestFault(f"read of {width} bytes at 0x{addr:08x}: beyond the Tensix configuration space")

    def peek(self, core, addr):
        """A debugger's read (reading Config has no side effect)."""
        return self.read(core, addr & ~3, 4)

    def write(self, core, addr, width, value):
        if width != 4:
            raise GuestFault(f"{width}-byte store to Tensix configuration at 0x{addr:08x}: "
                             "only sw may write Config")
        if addr >= self.thread_base:
            raise GuestFault(f"store to 0x{addr:08x}: RISC-V cannot write ThreadConfig (push SETC16)")
        off = (addr - self.base) >> 2
        if addr >= self.dual_base:
            index = (addr - self.dual_base) >> 2
            self.write_word(0, index, value)
            if index < self.global_base:
                self.write_word(1, index, value)
            return True
        self.write_word(off // self.bank_words, off % self.bank_words, value)
        return True

    # -- dumps ----------------------------------------------------------------------------
    def nonzero_fields(self):
        """[(space, name, value)] for every non-zero field, in index order:
        space is "cfg0", "cfg1" or "thread0".."thread2"."""
        out = []
        items = sorted(self.fields.items(), key=lambda kv: kv[1])
        for bank in (0, 1):
            for name, (index, shift, width) in items:
                v = (int(self.cfg[bank, index]) >> shift) & ((1 << width) - 1)
                if v:
                    out.append((f"cfg{bank}", name, v))
        titems = sorted(self.thread_fields.items(), key=lambda kv: kv[1])
        for t in range(3):
            for name, (index, shift, width) in titems:
                v = (int(self.thread_cfg[t, index]) >> shift) & ((1 << width) - 1)
                if v:
                    out.append((f"thread{t}", name, v))
        return out
