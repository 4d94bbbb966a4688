"""What gdb sees of a core: the target description, registers, memory.

Registers: RV32 x0-x31 and pc (gdb numbers 0-32), in the ``org.gnu.gdb.riscv.cpu``
feature. Memory, in the context of the selected core: L1, the core's local data
RAM (0xFFB00000 + its size), NCRISC's instruction RAM, and MMIO registers whose
read has no side effect (``Device.peek``: plain register banks, Tensix Config and
GPRs, the soft reset and wall clock registers). Everything else answers an error.
Writes reach L1, the local data RAM and the instruction RAM (translated code that a
write hits is dropped, as for a store).
"""

from __future__ import annotations

from ...errors import TtemuError

ABI = ("zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
       "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6")
PC_REGNUM = 32
NUM_REGS = 33


def target_xml() -> str:
    regs = []
    for i, name in enumerate(ABI):
        kind = "code_ptr" if i == 1 else "data_ptr" if i in (2, 8) else "int"
        regs.append(f'  <reg name="{name}" bitsize="32" type="{kind}" regnum="{i}"/>')
    regs.append(f'  <reg name="pc" bitsize="32" type="code_ptr" regnum="{PC_REGNUM}"/>')
    return ('<?xml version="1.0"?>\n<!DOCTYPE target SYSTEM "gdb-target.dtd">\n<target version="1.0">\n'
            '<architecture>riscv:rv32</architecture>\n<feature name="org.gnu.gdb.riscv.cpu">\n'
            + "\n".join(regs) + "\n</feature>\n</target>\n")


def get_reg(hart, n: int) -> int | None:
    return hart.reg(n)  # gdb's numbering is the hart's (PC_REGNUM is 32)


def set_reg(hart, n: int, value: int) -> bool:
    return hart.set_reg(n, value)  # x0 stays zero


def le32(v: int) -> str:
    return (v & 0xFFFFFFFF).to_bytes(4, "little").hex()


class MemoryError_(Exception):
    """Not readable/writable by the debugger (the server answers E14)."""


def _span(tile, addr, n, core):
    """-> (buffer, offset, usable length) for L1, the core's local RAM or an IRAM, or None."""
    a = tile.arch
    if addr < a.l1_size:
        return tile.l1, addr, min(n, a.l1_size - addr)
    if a.local_base <= addr < a.local_base + 0x1000:
        local = tile.harts[core].local
        off = addr - a.local_base
        if off >= len(local):
            raise MemoryError_(f"0x{addr:08x} is beyond {core}'s {len(local)}-byte local data RAM")
        return local, off, min(n, len(local) - off)
    for name, ram in tile.iram.items():
        base = tile.specs[name].iram[0]
        if base <= addr < base + len(ram):
            return ram, addr - base, min(n, base + len(ram) - addr)
    return None


def read_memory(tile, addr: int, n: int, core: str) -> bytes:
    """Up to ``n`` bytes at ``addr`` (fewer at the end of a region); raises MemoryError_."""
    span = _span(tile, addr, n, core)
    if span is not None:
        buf, off, m = span
        return bytes(buf[off:off + m])
    out = bytearray()
    a0 = addr & ~3
    while a0 < addr + n:
        entry = tile.router.lookup(a0)
        dev = entry[1] if entry else None
        peek = getattr(dev, "peek", None)
        try:
            v = peek(core, a0) if peek is not None else None
        except TtemuError:
            v = None
        if v is None:
            if out:
                break
            what = f"{entry[0].name} register" if entry else "unmapped address"
            raise MemoryError_(f"0x{a0:08x} ({what}) cannot be read without side effects")
        out += (v & 0xFFFFFFFF).to_bytes(4, "little")
        a0 += 4
    skip = addr & 3
    return bytes(out[skip:skip + n])


def write_memory(tile, addr: int, data: bytes, core: str) -> None:
    span = _span(tile, addr, len(data), core)
    if span is None or span[2] < len(data):
        raise MemoryError_(f"0x{addr:08x}+{len(data)}: gdb writes only L1 and core-local memory")
    tile.write(addr, data, core)
