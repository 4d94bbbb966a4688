"""Write minimal ELF32 little-endian RISC-V executables for tests (no toolchain)."""

from __future__ import annotations

import struct


def elf_bytes(segments, entry=0, symbols=None, machine=243, ei_class=1, ei_data=1, arch_attr=None, flags=0):
    """segments: [(vaddr, data bytes, memsz or None)]; symbols: {name: addr};
    arch_attr: a Tag_RISCV_arch string for a .riscv.attributes section; flags: e_flags."""
    symbols = symbols or {}
    n = len(segments)
    ehsize, phsize, shsize = 52, 32, 40
    data_off = ehsize + phsize * n
    blobs = []
    phdrs = b""
    off = data_off
    for vaddr, data, *rest in segments:
        memsz = rest[0] if rest and rest[0] is not None else len(data)
        phdrs += struct.pack("<IIIIIIII", 1, off, vaddr, vaddr, len(data), memsz, 7, 4)
        blobs.append(data)
        off += len(data)
    body = b"".join(blobs)
    # .symtab + .strtab + .shstrtab
    strtab = b"\0"
    syms = struct.pack("<IIIBBH", 0, 0, 0, 0, 0, 0)
    for name, addr in symbols.items():
        syms += struct.pack("<IIIBBH", len(strtab), addr, 0, 0x10, 0, 1)  # GLOBAL NOTYPE, shndx 1
        strtab += name.encode() + b"\0"
    shstr = b"\0.text\0.symtab\0.strtab\0.shstrtab\0.riscv.attributes\0"
    attrs = b""
    if arch_attr:
        sub = b"riscv\0" + bytes([1]) + struct.pack("<I", 4 + 1 + 1 + len(arch_attr) + 1) + bytes([5]) + \
            arch_attr.encode() + b"\0"
        attrs = b"A" + struct.pack("<I", 4 + len(sub)) + sub
    sec_off = off
    symtab_off = sec_off
    strtab_off = symtab_off + len(syms)
    shstr_off = strtab_off + len(strtab)
    attr_off = shstr_off + len(shstr)
    sh_off = attr_off + len(attrs)
    sh_off += (-sh_off) % 4
    pad = b"\0" * (sh_off - (attr_off + len(attrs)))
    text_addr, text_data_off = (segments[0][0], data_off) if segments else (0, data_off)
    text_size = len(segments[0][1]) if segments else 0
    shdrs = bytes(shsize)
    shdrs += struct.pack("<IIIIIIIIII", 1, 1, 6, text_addr, text_data_off, text_size, 0, 0, 4, 0)
    shdrs += struct.pack("<IIIIIIIIII", 7, 2, 0, 0, symtab_off, len(syms), 3, 1, 4, 16)
    shdrs += struct.pack("<IIIIIIIIII", 15, 3, 0, 0, strtab_off, len(strtab), 0, 0, 1, 0)
    shdrs += struct.pack("<IIIIIIIIII", 23, 3, 0, 0, shstr_off, len(shstr), 0, 0, 1, 0)
    nsec = 5
    if attrs:
        shdrs += struct.pack("<IIIIIIIIII", 33, 0x70000003, 0, 0, attr_off, len(attrs), 0, 0, 1, 0)
        nsec = 6
    ident = b"\x7fELF" + bytes([ei_class, ei_data, 1, 0]) + bytes(8)
    hdr = ident + struct.pack("<HHIIIIIHHHHHH", 2, machine, 1, entry, ehsize, sh_off, flags, ehsize, phsize, n,
                              shsize, nsec, 4)
    return hdr + phdrs + body + syms + strtab + shstr + attrs + pad + shdrs


def write_elf(path, segments, entry=0, symbols=None, **kw):
    with open(path, "wb") as f:
        f.write(elf_bytes(segments, entry, symbols, **kw))
    return str(path)
