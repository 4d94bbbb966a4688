"""A fuzz program: what each TRISC does, as data, and the RISC-V interpreter that does it.

Each Tensix thread t that has work gets TRISC t running :func:`interpreter_code` from
its reset PC. The interpreter walks a list of (address, value) pairs in L1
(:data:`LIST_BASE`); the address's low two bits say what to do with the pair:

    0 STORE  sw value -> address       (a Tensix word to the push window, a Config word...)
    1 POLL   spin until the word at address == value   (a handshake between threads)
    2 COPY   sw (lw address) -> value  (a register or semaphore read into L1)
    3 LOAD   lw address, discard it    (TTSync: waits until the thread has drained)

Address 0 ends the list: the interpreter waits for its thread to drain (TTSync, BabyRISCV
TTSync.md; ttsim stalls the load the same way), writes 1 to the thread's flag word and
parks. The run is done when every used thread's flag is 1, on ttemu and on ttsim.
So a program is data: generators append operations through :class:`Builder`, grouped
into units the minimiser may drop (``Builder.unit``); the scaffolding around them (data
in, results out) is never dropped.
"""

from __future__ import annotations

import contextlib
import dataclasses
import struct
from dataclasses import dataclass, field

from ttemu.isa.table import get_table
from ttemu.tensix.regs.config import field_tables

import rv32asm as rv  # tests/rv32asm.py (the package puts tests/ on sys.path)

STORE, POLL, COPY, LOAD = range(4)
KIND_NAMES = ("store", "poll", "copy", "load")
LIST_BASE = {0: 0x10000, 1: 0x18000, 2: 0x20000}  # 32 KiB each
LIST_BYTES = 0x8000
FLAG = 0x1000  # thread t's done flag at FLAG + 4 * t
INPUT_BASE = 0x30000
OUTPUT_BASE = 0x80000
CFG_BASE = 0xFFEF0000
PUSH = 0xFFE40000  # a TRISC's own thread (through its MOP expander)
TTSYNC = 0xFFE80004
SEMAPHORE = 0xFFE80020  # + 4 * k: semaphore k (read value; write 0 = post, 1 = get)
REGFILE = 0xFFE00000  # the thread's GPRs (4 bytes each)
RESET_PC = {0: 0x6000, 1: 0xA000, 2: 0xE000}
SCAFFOLD = -1
MAX_STEPS = 3_000_000


def interpreter_code(thread: int) -> bytes:
    """TRISC ``thread``'s interpreter (see the module docstring), assembled at its reset PC."""
    from rv32asm import t0, t1, t2, t3, s0  # noqa: F401

    p = rv.Program(base=RESET_PC[thread])
    p.li(s0, LIST_BASE[thread])
    p.label("loop")
    p.lw(t0, 0, s0)
    p.lw(t1, 4, s0)
    p.addi(s0, s0, 8)
    p.andi(t2, t0, 3)
    p.sub(t0, t0, t2)
    p.beq(t0, 0, "end")
    p.bne(t2, 0, "other")
    p.sw(t1, 0, t0)
    p.j("loop")
    p.label("other")
    p.addi(t3, t2, -POLL)
    p.bne(t3, 0, "other2")
    p.label("poll")
    p.lw(t3, 0, t0)
    p.bne(t3, t1, "poll")
    p.j("loop")
    p.label("other2")
    p.addi(t3, t2, -COPY)
    p.bne(t3, 0, "load")
    p.lw(t3, 0, t0)
    p.sw(t3, 0, t1)
    p.j("loop")
    p.label("load")
    p.lw(t3, 0, t0)
    p.j("loop")
    p.label("end")
    p.li(t0, TTSYNC)
    p.lw(t3, 0, t0)
    p.li(t0, FLAG + 4 * thread)
    p.li(t1, 1)
    p.sw(t1, 0, t0)
    p.halt()
    return p.assemble()


@dataclass
class Op:
    thread: int
    addr: int  # with the kind in its low two bits
    value: int
    text: str
    group: int


@dataclass
class Region:
    """An L1 region holding results. ``width``: bytes per element in reports;
    ``label(i)``: what element i is (e.g. "slot 3 lane 17"), for reports."""

    name: str
    addr: int
    nbytes: int
    width: int = 4
    label: object = None

    def describe(self, i: int) -> str:
        return self.label(i) if self.label else f"{self.name}[{i}]"


@dataclass
class Program:
    arch: str
    family: str
    seed: int
    ops: list = field(default_factory=list)
    inputs: list = field(default_factory=list)  # [(addr, bytes)]
    outputs: list = field(default_factory=list)  # [Region]
    groups: dict = field(default_factory=dict)  # group id -> what it is
    dropped: frozenset = frozenset()
    tags: set = field(default_factory=set)  # program-wide features (known classes it may show)
    group_features: dict = field(default_factory=dict)  # group id -> features (known classes)
    explain: object = None  # (Region, index) -> the inputs behind that element, for reports

    @property
    def name(self) -> str:
        return f"{self.arch}:{self.family}:{self.seed}"

    def without(self, groups) -> "Program":
        """The same program with ``groups`` dropped as well."""
        return dataclasses.replace(self, dropped=self.dropped | frozenset(groups))

    def features(self) -> set:
        """What the kept part of the program does that a known class names."""
        out = set(self.tags)
        for g in self.kept_groups:
            out |= self.group_features.get(g, set())
        return out

    @property
    def kept_groups(self) -> list:
        return [g for g in self.groups if g not in self.dropped]

    def active(self) -> list:
        return [op for op in self.ops if op.group not in self.dropped]

    def threads(self) -> list:
        return sorted({op.thread for op in self.active()})

    def op_lists(self) -> dict:
        """thread -> the bytes of its operation list (ending in the 0 pair)."""
        out = {}
        for t in self.threads():
            words = []
            for op in self.active():
                if op.thread == t:
                    words += [op.addr, op.value & 0xFFFFFFFF]
            words += [0, 0]
            data = struct.pack(f"<{len(words)}I", *words)
            if len(data) > LIST_BYTES:
                raise ValueError(f"{self.name}: thread {t}'s list is {len(data)} bytes (at most {LIST_BYTES})")
            out[t] = data
        return out

    def listing(self, scaffold: bool = False) -> list:
        """The operations of kept groups, one line each (the scaffolding summarised)."""
        lines = []
        skipped = 0
        for op in self.active():
            if op.group == SCAFFOLD and not scaffold:
                skipped += 1
                continue
            if skipped:
                lines.append(f"  ... {skipped} scaffolding operations")
                skipped = 0
            lines.append(f"  t{op.thread}  {op.text}")
        if skipped:
            lines.append(f"  ... {skipped} scaffolding operations")
        return lines


class Builder:
    """Appends operations to a :class:`Program`. Tensix words are encoded with the arch's
    table (ttemu/isa/tables, from assembly.yaml); Config writes go through the RISC-V
    window as whole words, read-modify-written from what the program wrote before."""

    def __init__(self, arch: str, family: str, seed: int):
        self.prog = Program(arch, family, seed)
        self.arch = arch
        self.table = get_table(arch)
        self.cfg_fields, self.thread_fields = field_tables(arch)
        self.cfg_words: dict = {}
        self.group = SCAFFOLD
        self.thread = 0
        self.pushed = set()  # threads with Tensix words pushed since their last TTSync

    # -- grouping ------------------------------------------------------------------
    @contextlib.contextmanager
    def unit(self, text: str):
        """Operations appended inside belong to one droppable group."""
        outer = self.group
        self.group = len(self.prog.groups)
        self.prog.groups[self.group] = text
        try:
            yield self.group
        finally:
            self.group = outer

    @contextlib.contextmanager
    def on(self, thread: int):
        outer = self.thread
        self.thread = thread
        try:
            yield
        finally:
            self.thread = outer

    def _op(self, addr, kind, value, text):
        self.prog.ops.append(Op(self.thread, addr | kind, value, text, self.group))

    # -- operations ------------------------------------------------------------------
    def push(self, mnemonic: str, **fields) -> int:
        word = self.table.encode(mnemonic, **fields)
        args = " ".join(f"{k}={v}" for k, v in fields.items())
        self.push_word(word, f"{mnemonic} {args}".rstrip())
        return word

    def push_word(self, word: int, text: str):
        self.pushed.add(self.thread)
        self._op(PUSH, STORE, word, text)

    def cfg(self, **fields):
        """Write Config fields (bank 0) by name, whole words, from the RISC-V."""
        words = {}
        for name, value in fields.items():
            index, shift, width = self.cfg_fields[name][:3]
            mask = ((1 << width) - 1) << shift
            if value << shift & ~mask:
                raise ValueError(f"{name}={value} does not fit {width} bits")
            old = words.get(index, self.cfg_words.get(index, 0))
            words[index] = (old & ~mask) | (value << shift)
        for index, value in sorted(words.items()):
            self.cfg_word(index, value, ", ".join(f"{n}={v}" for n, v in fields.items()
                                                  if self.cfg_fields[n][0] == index))

    def cfg_word(self, index: int, value: int, what: str = ""):
        """A RISC-V store to Config word ``index``. It is not ordered with Tensix words
        the thread pushed before (llk_cfg.h, BackendConfiguration.md), so the thread
        drains first (TTSync) when it has pushed any."""
        if self.thread in self.pushed:
            self.sync()
        self.cfg_words[index] = value
        self._op(CFG_BASE + 4 * index, STORE, value, f"cfg[{index}] = 0x{value:08x}" + (f"  ({what})" if what else ""))

    def store(self, addr: int, value: int, text: str = ""):
        self._op(addr, STORE, value, text or f"sw 0x{value:x} -> 0x{addr:x}")

    def copy(self, src: int, dst: int, text: str = ""):
        self._op(src, COPY, dst, text or f"copy 0x{src:x} -> L1 0x{dst:x}")

    def poll(self, addr: int, value: int, text: str = ""):
        self._op(addr, POLL, value, text or f"wait for 0x{addr:x} == 0x{value:x}")

    def sync(self):
        self.pushed.discard(self.thread)
        self._op(TTSYNC, LOAD, 0, "TTSync (wait until the thread has drained)")

    def input(self, addr: int, data: bytes):
        self.prog.inputs.append((addr, bytes(data)))

    def output(self, name: str, addr: int, nbytes: int, width: int = 4, label=None) -> Region:
        r = Region(name, addr, nbytes, width, label)
        self.prog.outputs.append(r)
        return r


def op_program(arch, family, seed, salt, thread, gen_class, allow, ops):
    """The usual generator shape: ``gen_class(builder, rng, allow)``'s prologue, a number
    of ``op()`` groups drawn from the range ``ops``, its epilogue, all on ``thread``; the
    random stream is ``(seed, salt)``."""
    import numpy as np

    rng = np.random.default_rng([seed, salt])
    b = Builder(arch, family, seed)
    with b.on(thread):
        g = gen_class(b, rng, allow)
        g.prologue()
        for _ in range(int(rng.integers(*ops))):
            g.op()
        g.epilogue()
    return b.prog
