"""ELF loading (pyelftools): validation with one-line reasons, segments, symbols.

Accepts ELF32 little-endian EM_RISCV executables. Placement rules (which segment
may go where) are the tile's business (:meth:`ttemu.tile.Tile.load_elf`); this module
only reads and validates the file itself.
"""

from __future__ import annotations

import bisect
import io
import os

from .errors import ElfError
from .record import Factory, Record

EM_RISCV = 243


class Segment(Record):
    """A PT_LOAD segment: ``data`` holds its file bytes only; ``memsz`` may be larger
    (the rest is NOBITS: .bss, tt-llk's .loader_init / .runtime_args / .stack holes)."""

    vaddr: int
    data: bytes
    memsz: int


class ElfImage(Record):
    path: str
    entry: int
    segments: list
    symbols: dict  # name -> address
    arch_attr: str | None  # Tag_RISCV_arch, e.g. "rv32i2p0_m2p0_xttwh1p0"
    flags: int = 0  # e_flags (bit 0: EF_RISCV_RVC, compressed instructions)
    _sorted: list = Factory(list, repr=False)

    def symbolize(self, addr: int) -> str | None:
        """``name`` or ``name+0xoff`` for the nearest function/label at or below addr."""
        if not self._sorted:
            return None
        i = bisect.bisect_right(self._sorted, (addr, "\xff")) - 1
        if i < 0:
            return None
        base, name = self._sorted[i]
        off = addr - base
        if off > 0x10000:
            return None
        return name if off == 0 else f"{name}+0x{off:x}"


def _riscv_arch_attribute(data: bytes) -> str | None:
    """Pull Tag_RISCV_arch (an NUL-terminated string starting "rv") out of a
    .riscv.attributes section without interpreting the rest."""
    i = data.find(b"rv32")
    if i < 0:
        i = data.find(b"rv64")
    if i < 0:
        return None
    j = data.find(b"\0", i)
    return data[i:j if j >= 0 else len(data)].decode("ascii", "replace")


def _read_plain(raw: bytes):
    """The common case without pyelftools (start-up cost): a well-formed little-endian
    ELF32 RISC-V executable. -> (entry, segments, symbols, sortable, arch attribute), or
    None for anything unusual, which :func:`read_elf` then reads with pyelftools (and
    its one-line errors). Gives exactly what the pyelftools path gives
    (tests/test_elf_loading.py compares them on every shipped and corpus ELF)."""
    import struct

    n = len(raw)
    e_type, machine, _, entry, phoff, shoff, _, _, phentsize, phnum, shentsize, shnum, shstrndx = \
        struct.unpack_from("<HHIIIIIHHHHHH", raw, 16)
    if e_type != 2 or machine != EM_RISCV or (phnum and phentsize != 32) or shentsize != 40 or not shnum:
        return None
    if shstrndx >= shnum or shoff + 40 * shnum > n or phoff + 32 * phnum > n:
        return None
    segments = []
    for i in range(phnum):
        p_type, off, vaddr, _, filesz, memsz = struct.unpack_from("<6I", raw, phoff + 32 * i)
        if p_type != 1 or memsz == 0:
            continue
        if off + filesz > n or filesz > memsz:
            return None
        segments.append(Segment(vaddr, raw[off:off + filesz], memsz))
    secs = [struct.unpack_from("<10I", raw, shoff + 40 * i) for i in range(shnum)]
    str_off, str_size = secs[shstrndx][4], secs[shstrndx][5]
    if str_off + str_size > n:
        return None

    def cstr(base, end, off):
        if base + off >= end:
            raise ValueError
        j = raw.find(b"\0", base + off, end)
        if j < 0:
            raise ValueError
        return raw[base + off:j]

    try:
        names = [cstr(str_off, str_off + str_size, sec[0]) for sec in secs]
    except ValueError:
        return None
    found = {}
    for i, nm in enumerate(names):
        if nm in (b".symtab", b".riscv.attributes"):
            if nm in found:
                return None
            found[nm] = secs[i]
    symbols, sortable = {}, []
    sec = found.get(b".symtab")
    if sec is not None:
        _, sh_type, _, _, off, size, link, _, _, entsize = sec
        if sh_type != 2 or entsize != 16 or size % 16 or off + size > n or link >= shnum:
            return None
        s_off, s_size = secs[link][4], secs[link][5]
        if s_off + s_size > n:
            return None
        for k in range(size // 16):
            st_name, value, _, info, _, shndx = struct.unpack_from("<IIIBBH", raw, off + 16 * k)
            if st_name == 0:
                continue
            try:
                sym = cstr(s_off, s_off + s_size, st_name)
            except ValueError:
                return None
            if not sym:
                continue
            st = info & 0xF
            if st in (3, 4) or shndx == 0:  # STT_SECTION, STT_FILE; SHN_UNDEF
                continue
            sym = sym.decode("utf-8", errors="replace")
            if sym.startswith("$") or sym.startswith(".L"):
                continue
            if sym not in symbols or info >> 4 == 1:  # STB_GLOBAL
                symbols[sym] = value
            if st in (0, 2) and shndx != 0xFFF1:  # STT_NOTYPE, STT_FUNC; not SHN_ABS
                sortable.append((value, sym))
    attr = None
    sec = found.get(b".riscv.attributes")
    if sec is not None:
        _, sh_type, flags, _, off, size = sec[:6]
        if sh_type == 8 or flags & 0x800 or off + size > n:  # NOBITS, SHF_COMPRESSED
            return None
        attr = _riscv_arch_attribute(raw[off:off + size])
    return entry, segments, symbols, sortable, attr


def read_elf(path: str) -> ElfImage:
    """Read and validate; raises :class:`ElfError` with a one-line reason."""
    name = os.path.basename(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise ElfError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ElfError(f"{path}: is a directory") from None
    except OSError as e:
        raise ElfError(f"{path}: {e.strerror}") from None
    if raw[:4] != b"\x7fELF":
        raise ElfError(f"{name}: not an ELF file")
    if len(raw) < 52:
        raise ElfError(f"{name}: truncated ELF header ({len(raw)} bytes)")
    if raw[4] != 1:
        raise ElfError(f"{name}: 64-bit ELF; expected ELF32 for an RV32 core")
    if raw[5] != 1:
        raise ElfError(f"{name}: big-endian ELF; expected little-endian")
    import struct

    phoff, shoff = struct.unpack_from("<II", raw, 28)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", raw, 42)
    for what, off, count, size in (("program headers", phoff, phnum, phentsize),
                                   ("section headers", shoff, shnum, shentsize)):
        if count and off + count * size > len(raw):
            raise ElfError(f"{name}: truncated: {what} end at byte {off + count * size}, "
                           f"the file has {len(raw)}")
    plain = _read_plain(raw)
    if plain is not None and plain[1]:
        entry, segments, symbols, sortable, attr = plain
        img = ElfImage(path=path, entry=entry, segments=segments, symbols=symbols, arch_attr=attr)
        img._sorted = sorted(set(sortable))
    else:
        img = _read_pyelftools(raw, path, name)
    img.flags = struct.unpack_from("<I", raw, 36)[0]
    return img


def _read_pyelftools(raw: bytes, path: str, name: str) -> ElfImage:
    from elftools.common.exceptions import ELFError as _PyElfError
    from elftools.elf.elffile import ELFFile

    try:
        ef = ELFFile(io.BytesIO(raw))
        machine = ef.header["e_machine"]
        if machine not in ("EM_RISCV", EM_RISCV):
            raise ElfError(f"{name}: machine is {machine}, expected EM_RISCV")
        if ef.header["e_type"] != "ET_EXEC":
            raise ElfError(f"{name}: type {ef.header['e_type']}, expected an executable (ET_EXEC)")
        segments = []
        for seg in ef.iter_segments():
            if seg["p_type"] != "PT_LOAD" or seg["p_memsz"] == 0:
                continue
            off, filesz, memsz = seg["p_offset"], seg["p_filesz"], seg["p_memsz"]
            if off + filesz > len(raw):
                raise ElfError(f"{name}: truncated: segment at 0x{seg['p_vaddr']:08x} needs bytes "
                               f"up to {off + filesz}, file has {len(raw)}")
            if filesz > memsz:
                raise ElfError(f"{name}: segment at 0x{seg['p_vaddr']:08x} has filesz > memsz")
            segments.append(Segment(seg["p_vaddr"], raw[off:off + filesz], memsz))
        symbols = {}
        sortable = []
        symtab = ef.get_section_by_name(".symtab")
        if symtab is not None:
            for sym in symtab.iter_symbols():
                st = sym["st_info"]["type"]
                if not sym.name or st in ("STT_SECTION", "STT_FILE") or sym["st_shndx"] == "SHN_UNDEF":
                    continue
                if sym.name.startswith("$") or sym.name.startswith(".L"):
                    continue
                value = sym["st_value"]
                if sym.name not in symbols or sym["st_info"]["bind"] == "STB_GLOBAL":
                    symbols[sym.name] = value
                if st in ("STT_FUNC", "STT_NOTYPE") and sym["st_shndx"] != "SHN_ABS":
                    sortable.append((value, sym.name))
        attr = None
        sec = ef.get_section_by_name(".riscv.attributes")
        if sec is not None:
            attr = _riscv_arch_attribute(sec.data())
        entry = ef.header["e_entry"]
    except ElfError:
        raise
    except (_PyElfError, ValueError, KeyError, IndexError, AssertionError, UnicodeDecodeError) as e:
        raise ElfError(f"{name}: malformed ELF ({e})") from None
    except Exception as e:  # construct.core errors on truncated tables
        raise ElfError(f"{name}: malformed or truncated ELF ({type(e).__name__})") from None
    if not segments:
        raise ElfError(f"{name}: no loadable segments")
    img = ElfImage(path=path, entry=entry, segments=segments, symbols=symbols, arch_attr=attr)
    img._sorted = sorted(set(sortable))
    return img
