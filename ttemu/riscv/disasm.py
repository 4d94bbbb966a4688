"""RISC-V disassembly with capstone, one 32-bit word at a time (capstone stops at
the first word it cannot decode, and Tensix words share the instruction stream)."""

from __future__ import annotations


class RiscvDisassembler:
    def __init__(self):
        import capstone

        self._cs = capstone.Cs(capstone.CS_ARCH_RISCV, capstone.CS_MODE_RISCV32)
        self._cache = {}

    def disasm(self, word: int) -> str:
        """Spike-style text: mnemonic padded to 8 columns, then operands."""
        text = self._cache.get(word)
        if text is None:
            insns = list(self._cs.disasm(word.to_bytes(4, "little"), 0, 1))
            if not insns:
                text = f".word 0x{word:08x}"
            else:
                mn, ops = insns[0].mnemonic, insns[0].op_str
                text = (mn + " " * max(1, 8 - len(mn)) + ops) if ops else mn
            self._cache[word] = text
        return text
