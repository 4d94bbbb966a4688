"""Instruction traces.

RISC-V lines follow Spike's shape, one per retired instruction:

    core   N: 0x%08x (0x%08x) <disasm>

with N the core id (0 brisc, 1-3 trisc0-2, 4 ncrisc) and the disassembly from
capstone, one word at a time; a jump or branch whose target has a symbol gets
`` <symbol+0xoff>`` appended. Tensix lines (written by the coprocessor) are

    tensix t<N> <stage> 0x%08x <disasm>[ <detail>]

Tracing is a separate run-loop path chosen once per run (one instruction per step),
so a run without ``--trace`` pays nothing for it. Lines carry no step counters:
two runs of the same inputs give byte-identical files.
"""

from __future__ import annotations

from .riscv.disasm import RiscvDisassembler
from .riscv.translate import sext


class Tracer:
    def __init__(self, out, tile, stages=("push", "issue")):
        self.out = out
        self.tile = tile
        self.stages = frozenset(stages)
        self.buf = []
        self.rv = RiscvDisassembler()
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
        text = self.rv.disasm(word)
        target = _static_target(pc, word)
        if target is not None:
            sym = self.tile.symbolize(core, target)
            if sym:
                text += f" <{sym}>"
        return text

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


def _static_target(pc, word):
    op = word & 0x7F
    if op == 0x6F:
        imm = sext(((word >> 31) << 20) | (((word >> 12) & 0xFF) << 12)
                   | (((word >> 20) & 1) << 11) | (((word >> 21) & 0x3FF) << 1), 21)
        return (pc + imm) & 0xFFFFFFFF
    if op == 0x63:
        imm = sext(((word >> 31) << 12) | (((word >> 7) & 1) << 11)
                   | (((word >> 25) & 0x3F) << 5) | (((word >> 8) & 0xF) << 1), 13)
        return (pc + imm) & 0xFFFFFFFF
    return None
