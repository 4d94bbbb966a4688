"""Zicsr: the CSRs a baby core exposes, as listed per arch (``ArchSpec.csrs``).

Counters read the core's retired-instruction count (``instret``) and the tile clock
(``cycle``/``time``), both deterministic. An unlisted CSR stops the run as
unimplemented, naming it; a write to a read-only counter is a guest fault.
"""

from __future__ import annotations

from ..errors import GuestFault, Unimplemented

RW, RS, RC = 1, 2, 3


class CsrFile:
    def __init__(self, tile, hart):
        self.tile = tile
        self.hart = hart
        self.scratch = {}

    def read(self, num, kind):
        if kind == "cycle":
            return self.tile.clock() & 0xFFFFFFFF
        if kind == "cycleh":
            return (self.tile.clock() >> 32) & 0xFFFFFFFF
        if kind == "instret":
            return self.hart.steps & 0xFFFFFFFF
        if kind == "instreth":
            return (self.hart.steps >> 32) & 0xFFFFFFFF
        if kind == "hartid":
            return self.hart.index
        if kind == "const0":
            return 0
        if kind == "scratch":
            return self.scratch.get(num, 0)
        if callable(kind):
            return kind(self.tile, self.hart)
        raise Unimplemented(f"CSR 0x{num:03x} ({kind}) is not modelled")

    def access(self, op, num, src, wr):
        """csrrw/csrrs/csrrc (op 1/2/3); ``wr`` is false for csrrs/csrrc with rs1 = x0."""
        spec = self.tile.arch.csrs.get(num)
        if spec is None:
            raise Unimplemented(f"CSR 0x{num:03x} is not modelled")
        name, kind = spec
        old = self.read(num, kind)
        if wr:
            new = src if op == RW else (old | src) if op == RS else (old & ~src & 0xFFFFFFFF)
            if kind != "scratch":
                raise GuestFault(f"write of 0x{new:x} to read-only CSR {name} (0x{num:03x})")
            self.scratch[num] = new & 0xFFFFFFFF
        return old
