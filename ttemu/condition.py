"""Memory conditions: "the byte, halfword or word at ADDR, masked, equals VALUE".

A run's done condition (``--until``, a manifest's ``[[until]]``) and the moment a
host write waits for (a manifest ``[[write]]``'s ``when``) are lists of these; the run
loop (:mod:`ttemu.run`) and the ttsim plan (ttemu.cmd.oracle) test them the same way.

    Condition(0x4A3, 0, width=1)             # the byte at 0x4A3 is 0
    Condition(0x20000, 0x8000, mask=0x8000)  # bit 15 of the word at 0x20000 is set
"""

from __future__ import annotations

from .record import Record

WIDTHS = {"u8": 1, "u16": 2, "u32": 4}
TYPE_OF_WIDTH = {w: t for t, w in WIDTHS.items()}


class Condition(Record, frozen=True):
    addr: int
    value: int
    core: str | None = None  # for a core-local address
    width: int = 4  # bytes: 1, 2 or 4
    mask: int | None = None  # None: every bit of the width

    @property
    def bits(self) -> int:
        """The mask actually applied (the width's bits when none was given)."""
        full = (1 << (8 * self.width)) - 1
        return full if self.mask is None else self.mask & full

    @property
    def expected(self) -> int:
        return self.value & self.bits

    def read(self, tile) -> int:
        """The current value at the address (the whole width, unmasked)."""
        addr, width = self.addr, self.width
        if width == 4:
            return tile.read_u32(addr, self.core)
        if addr + width <= tile.arch.l1_size:
            return int.from_bytes(tile.l1[addr:addr + width], "little")
        base = addr & ~3  # core-local memory or a register: read the word holding it
        return (tile.read_u32(base, self.core) >> (8 * (addr - base))) & ((1 << (8 * width)) - 1)

    def holds(self, tile) -> bool:
        return self.read(tile) & self.bits == self.expected

    def text(self, symbol: str | None = None) -> str:
        """``[CORE:]ADDR[:TYPE]=VALUE[/MASK]``, as ``--until`` spells it."""
        addr = self.addr if isinstance(self.addr, str) else f"0x{self.addr:x}"
        where = (f"{self.core}:" if self.core else "") + (symbol or addr)
        if self.width != 4:
            where += f":{TYPE_OF_WIDTH[self.width]}"
        text = f"{where}=0x{self.expected:x}"
        return text + (f"/0x{self.bits:x}" if self.mask is not None else "")

    def as_plan(self) -> tuple:
        """(addr, value, width, mask) with the mask resolved, for the ttsim plan."""
        return (self.addr, self.expected, self.width, self.bits)


def as_condition(u) -> Condition:
    """A :class:`Condition`, or an (addr, value[, core]) tuple of a 32-bit word."""
    if isinstance(u, Condition):
        return u
    u = tuple(u)
    return Condition(u[0], u[1] & 0xFFFFFFFF, u[2] if len(u) > 2 else None)


def check(cond: Condition) -> str | None:
    """Why a condition can never hold or is malformed, or None (``addr`` may still be
    a symbol name: its alignment is checked once resolved)."""
    if cond.width not in TYPE_OF_WIDTH:
        return f"width {cond.width}: one of 1, 2, 4 bytes"
    if cond.width == 2 and isinstance(cond.addr, int) and cond.addr & 1:
        return f"a halfword at the odd address 0x{cond.addr:x}"
    full = (1 << (8 * cond.width)) - 1
    if cond.mask is not None and not 0 < cond.mask <= full:
        return f"mask 0x{cond.mask:x} does not fit {TYPE_OF_WIDTH[cond.width]} (0x1..0x{full:x})"
    if not -(1 << (8 * cond.width - 1)) <= cond.value <= full:
        return f"value {cond.value:#x} does not fit {TYPE_OF_WIDTH[cond.width]}"
    if (cond.value & full) & ~cond.bits:
        return f"value 0x{cond.value & full:x} has bits outside the mask 0x{cond.bits:x}: it can never hold"
    return None
