"""RISC-V disassembly, one 32-bit word at a time (capstone stops at the first word it
cannot decode, and Tensix words share the instruction stream): capstone for RV32IM,
Zicsr and A, the arch's bit-manipulation extensions from their table
(:mod:`ttemu.riscv.ext`, the translator's own), and branch and jump targets as
objdump shows them: the absolute address in hex, then ``<symbol+0xoff>``."""

from __future__ import annotations

from . import ext as _ext
from .translate import sext


def static_target(pc, word):
    """The target of a ``jal`` or conditional branch at ``pc``, or None."""
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


class RiscvDisassembler:
    """``extensions``: the arch's (``ArchSpec.riscv_extensions``): their encodings get
    their names; without them they stay ``.word``, as the cores would refuse them."""

    def __init__(self, extensions=frozenset()):
        import capstone

        self._cs = capstone.Cs(capstone.CS_ARCH_RISCV, capstone.CS_MODE_RISCV32)
        self.ext = frozenset(extensions)
        self._cache = {}

    def parts(self, word: int):
        """-> (mnemonic, operands); ``.word`` for what no table names."""
        got = self._cache.get(word)
        if got is None:
            insns = list(self._cs.disasm(word.to_bytes(4, "little"), 0, 1))
            if insns:
                got = insns[0].mnemonic, insns[0].op_str
            else:
                got = _ext.disasm(self.ext, word) or (".word", f"0x{word:08x}")
            self._cache[word] = got
        return got

    def disasm(self, word: int) -> str:
        """Spike-style text: mnemonic padded to 8 columns, then operands (a branch's
        offset relative to its pc; :meth:`disasm_at` gives the target)."""
        mn, ops = self.parts(word)
        return (mn + " " * max(1, 8 - len(mn)) + ops) if ops else mn

    def parts_at(self, word: int, pc: int, symbolize=None):
        """(mnemonic, operands) with a branch or jump target as objdump shows it:
        ``6008 <_start+0x8>`` (``symbolize(addr)`` -> ``name[+0xoff]`` or None)."""
        mn, ops = self.parts(word)
        target = static_target(pc, word)
        if target is None or mn == ".word":
            return mn, ops
        head = ops.rsplit(", ", 1)[0] + ", " if ", " in ops else ""
        ops = f"{head}{target:x}"
        sym = symbolize(target) if symbolize else None
        return mn, (f"{ops} <{sym}>" if sym else ops)

    def disasm_at(self, word: int, pc: int, symbolize=None) -> str:
        mn, ops = self.parts_at(word, pc, symbolize)
        return (mn + " " * max(1, 8 - len(mn)) + ops) if ops else mn
