"""``ttemu disasm ELF``: an objdump-style listing of the executable sections, one
line per 32-bit word: ``addr:<TAB>word<TAB>mnemonic<TAB>operands``. RISC-V words are
disassembled by :class:`ttemu.riscv.disasm.RiscvDisassembler` (capstone, and the
arch's extensions by name; branch and jump targets as ``addr <symbol+0xoff>``), Tensix
(``.ttinsn``) words by the arch's instruction table."""

from __future__ import annotations

from ..elf import read_elf
from ..errors import ElfError
from ..arch import get_arch
from ..isa.table import get_table, rotr2
from ..riscv.disasm import RiscvDisassembler


def _split(text):
    parts = text.split(None, 1)
    return (parts[0], parts[1].strip() if len(parts) > 1 else "")


def listing(path, arch=None):
    from elftools.elf.constants import SH_FLAGS
    from elftools.elf.elffile import ELFFile

    from .session import detect_arch

    img = read_elf(path)
    arch = arch or detect_arch([path])
    table = get_table(arch)
    rv = RiscvDisassembler(get_arch(arch).riscv_extensions)
    labels = {}
    for name, addr in img.symbols.items():
        labels.setdefault(addr, []).append(name)
    lines = [f"{path}:     file format elf32-littleriscv", ""]
    try:
        with open(path, "rb") as f:
            ef = ELFFile(f)
            sections = [(s.name, s["sh_addr"], s.data()) for s in ef.iter_sections()
                        if s["sh_flags"] & SH_FLAGS.SHF_EXECINSTR and s["sh_type"] != "SHT_NOBITS"]
    except Exception as e:  # a file read_elf accepted but whose sections are broken
        raise ElfError(f"{path}: cannot read sections ({type(e).__name__})") from None
    for name, base, data in sections:
        lines += ["", f"Disassembly of section {name}:"]
        for off in range(0, len(data) - 3, 4):
            addr = base + off
            for label in sorted(labels.get(addr, ())):
                lines += ["", f"{addr:08x} <{label}>:"]
            word = int.from_bytes(data[off:off + 4], "little")
            if word & 3 != 3:
                mn, ops = _split(table.disasm(rotr2(word)))
            else:
                mn, ops = rv.parts_at(word, addr, img.symbolize)
            lines.append(f"{addr:8x}:\t{word:08x}\t{mn}\t{ops}".rstrip("\t"))
    return lines
