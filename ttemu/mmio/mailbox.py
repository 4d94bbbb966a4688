"""Mailboxes between RISCV B, T0, T1 and T2 (tt-isa-documentation
WormholeB0/TensixTile/BabyRISCV/Mailboxes.md).

16 FIFOs, one from each of the four cores to each; each holds up to four values, and
the four a core can write hold at most four between them. Region k (0xFFEC0000 +
0x1000*k) means, for core c: write -> the mailbox from c to core k; read -> the mailbox
from core k to c (blocking pop; with address bit 2 set, a non-blocking "has data"
query returning 0 or 1). RISCV NC has no mailboxes.
"""

from __future__ import annotations

from collections import deque

from ..errors import GuestFault
from .router import Device

CORES = ("brisc", "trisc0", "trisc1", "trisc2")
DEPTH = 4


class Mailboxes:
    def __init__(self, tile):
        self.tile = tile
        self.boxes = {(a, b): deque() for a in CORES for b in CORES}  # (from, to) -> values

    def attach(self, router):
        for k in range(4):
            router.attach(f"tensix_mailbox{k}", MailboxPort(self, k))

    def discard_writable(self, core):
        """Entering soft reset discards the contents of the mailboxes a core writes."""
        if core in CORES:
            for b in CORES:
                self.boxes[(core, b)].clear()


class MailboxPort(Device):
    def __init__(self, mb, k):
        self.mb = mb
        self.k = k
        self.name = f"tensix_mailbox{k}"

    def _core(self, core, addr, width):
        if core not in CORES and core is not None:
            raise GuestFault(f"access to mailbox 0x{addr:08x}: {core} has no mailboxes")
        if width != 4:
            raise GuestFault(f"{width}-byte access to mailbox 0x{addr:08x}: 32-bit accesses only")
        return core or "brisc"

    def read(self, core, addr, width):
        me = self._core(core, addr, width)
        box = self.mb.boxes[(CORES[self.k], me)]
        if addr & 4:
            return 1 if box else 0
        if box:
            self.mb.tile.activity[0] = 1
            return box.popleft()
        self.mb.tile.last_stall = f"blocked reading mailbox 0x{addr & ~0xFFF:08x} at pc {{pc}}: empty"
        return None

    def write(self, core, addr, width, value):
        me = self._core(core, addr, width)
        box = self.mb.boxes[(me, CORES[self.k])]
        total = sum(len(self.mb.boxes[(me, b)]) for b in CORES)
        if len(box) >= DEPTH or total >= DEPTH:
            self.mb.tile.last_stall = (f"stalled writing mailbox 0x{addr & ~0xFFF:08x} at pc {{pc}}: "
                                       f"{me}'s mailboxes hold {total} values")
            return False
        box.append(value)
        return True
