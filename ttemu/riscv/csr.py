"""Zicsr: the CSRs a baby core exposes, as listed per arch (``ArchSpec.csrs``, one
:class:`ttemu.arch.spec.Csr` per number).

Counters read the core's retired-instruction count (``instret``) and the tile clock
(``cycle``/``time``), both deterministic. Where the arch makes them writable
(Blackhole's CSRs.md: ``mcycle``/``minstret`` and their ``cycle``/``instret`` aliases
are read/write), a write sets the counter's current value and it counts on from there.
An unlisted CSR stops the run as unimplemented, naming it; a write to a read-only CSR
is a guest fault.
"""

from __future__ import annotations

from ..errors import GuestFault, Unimplemented

RW, RS, RC = 1, 2, 3
M32 = 0xFFFFFFFF
_COUNTER = {"cycle": ("cycle", 0), "cycleh": ("cycle", 32), "instret": ("instret", 0),
            "instreth": ("instret", 32)}


class CsrFile:
    def __init__(self, tile, hart):
        self.tile = tile
        self.hart = hart
        self.scratch = {}
        self.offset = {"cycle": 0, "instret": 0}  # written value minus the count at the write

    def _spec(self, num):
        spec = self.tile.arch.csrs.get(num)
        if spec is not None and spec.cores is not None and self.hart.name not in spec.cores:
            spec = spec.other
        if spec is None:
            raise Unimplemented(f"CSR 0x{num:03x} is not modelled")
        return spec

    def _count(self, counter):
        raw = self.tile.clock() if counter == "cycle" else self.hart.steps
        return (raw + self.offset[counter]) & 0xFFFFFFFFFFFFFFFF

    def read(self, num, spec):
        kind = spec.kind
        if kind in _COUNTER:
            counter, shift = _COUNTER[kind]
            return (self._count(counter) >> shift) & M32
        if kind == "hartid":
            return self.hart.index
        if kind == "const":
            return spec.value
        if kind == "scratch":
            return self.scratch.get(num, spec.value)
        raise Unimplemented(f"CSR 0x{num:03x} ({spec.name}) is not modelled"
                            + (f": {spec.note}" if spec.note else ""))

    def access(self, op, num, src, wr):
        """csrrw/csrrs/csrrc (op 1/2/3); ``wr`` is false for csrrs/csrrc with rs1 = x0."""
        spec = self._spec(num)
        old = self.read(num, spec)
        if wr:
            new = src if op == RW else (old | src) if op == RS else (old & ~src & M32)
            if spec.kind == "scratch":
                self.scratch[num] = (old & ~spec.mask) | (new & spec.mask)
            elif spec.kind in _COUNTER and spec.writable:
                counter, shift = _COUNTER[spec.kind]
                value = self._count(counter)
                value = (value & ~(M32 << shift)) | ((new & M32) << shift)
                # minstret: the writing instruction's own retirement does not count (the
                # next instruction reads the value written; RISC-V privileged ISA, "Hardware
                # Performance Monitor"); the clock simply runs on from the value written.
                raw = self.tile.clock() if counter == "cycle" else self.hart.steps + 1
                self.offset[counter] = value - raw
            else:
                raise GuestFault(f"write of 0x{new:x} to read-only CSR {spec.name} (0x{num:03x})")
        return old
