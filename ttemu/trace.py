"""Instruction traces.

RISC-V lines follow Spike's shape, one per retired instruction:

    core   N: 0x%08x (0x%08x) <disasm>

with N the core id (0 brisc, 1-3 trisc0-2, 4 ncrisc) and the disassembly
(:mod:`ttemu.riscv.disasm`: capstone, and the arch's extensions by name), one word at
a time; a jump or branch shows its target as objdump does, the absolute address in hex
and, when a symbol covers it, `` <symbol+0xoff>``. Tensix lines (written by the
coprocessor) are

    tensix t<N> <stage> 0x%08x <disasm>[ <detail>]

Tracing is a separate run-loop path chosen once per run (one instruction per step),
so a run without ``--trace`` pays nothing for it. Lines carry no step counters:
two runs of the same inputs give byte-identical files.
"""

from __future__ import annotations

from .riscv.disasm import RiscvDisassembler


class Tracer:
    def __init__(self, out, tile, stages=("push", "issue")):
        self.out = out
        self.tile = tile
        self.stages = frozenset(stages)
        self.buf = []
        self.rv = RiscvDisassembler(tile.arch.riscv_extensions)
        self._lines = {}  # (core, pc, word) -> text after the pc

    # -- RISC-V ------------------------------------------------------------------
    def mark(self) -> int:
        return len(self.buf)

    def riscv(self, mark: int, hart, pc: int) -> None:
        """Record a retired instruction; lines emitted while it executed (Tensix
        events) stay after it."""
        tile = self.tile
        word = tile.translators[hart.name].fetch(pc)
        key = (hart.index, pc, word)
        line = self._lines.get(key)
        if line is None:
            line = f"core {hart.index:3d}: 0x{pc:08x} (0x{word:08x}) {self.disasm(hart.name, pc, word)}"
            self._lines[key] = line
        self.buf.insert(mark, line)
        if len(self.buf) > 4096:
            self.flush()

    def disasm(self, core: str, pc: int, word: int) -> str:
        if word & 3 != 3:
            return self.tile.tensix.disasm_ttinsn(word)
        return self.rv.disasm_at(word, pc, lambda addr: self.tile.symbolize(core, addr))

    # -- Tensix ------------------------------------------------------------------
    def tensix(self, thread: int, stage: str, word: int, text: str, detail: str = "") -> None:
        if stage in self.stages:
            line = f"tensix t{thread} {stage} 0x{word:08x} {text}"
            self.buf.append(line + (f" {detail}" if detail else ""))

    def note(self, text: str) -> None:
        self.buf.append(text)

    def flush(self) -> None:
        if self.buf:
            self.out.write("\n".join(self.buf) + "\n")
            self.buf.clear()

    def close(self) -> None:
        self.flush()
        self.out.flush()

