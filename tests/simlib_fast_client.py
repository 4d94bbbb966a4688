"""A ctypes host of ``ttemu simlib``'s library that exercises what its C shim serves
itself (L1 through TLB windows) beside what it leaves to Python, run as its own process:

    python tests/simlib_fast_client.py LIB ARCH SEED

Two Tensix tiles run ``simlib_umd_client.program`` on BRISC (tile A with n = 40, tile B
with n = 25), reached through two TLB entries of different sizes, one of them re-aimed
between the tiles and at the soft-reset register (MMIO: Python's path). Right after the
release, with clocks owed, the host rewrites tile A's loop increment (``addi a1, a1, 1``
to ``+2``): the owed clocks translate that word, so the write must drop the translation.
Then a seeded mix of clocks, polls, word and block round trips and register reads runs
until both flags are set. Prints one JSON line (every value read, in order, and the
results), then ends the process with a read at a NoC coordinate off the grid: the
library's error line carries the host clock count.
"""

from __future__ import annotations

import ctypes
import json
import random
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from simlib_umd_client import DONE, INPUT, RESULT, program  # noqa: E402

BAR0 = 0x1_0000_0000
TLB_CFG = 0x1FC00000
SOFT_RESET = 0xFFB121B0
HELD, BRISC_RUNS = 0x47800, 0x47000
PATCH = 8 * 4  # the loop's addi a1, a1, 1 in program()
#: arch -> (tiles A and B (NoC 0), (entry, window offset in BAR0, window bits, field shift) for A and B)
SETUP = {
    "wormhole_b0": (((1, 1), (3, 4)), ((0, 0x0, 20, 16), (166, 0xB000000, 24, 12))),
    "blackhole": (((1, 2), (3, 4)), ((0, 0x0, 21, 43), (5, 5 << 21, 21, 43))),
}


class Host:
    def __init__(self, lib, arch):
        self.lib = ctypes.CDLL(lib)
        for f in (self.lib.libttsim_pci_mem_wr_bytes, self.lib.libttsim_pci_mem_rd_bytes):
            f.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint32]
        self.lib.libttsim_clock.argtypes = [ctypes.c_uint32]
        self.arch = arch
        self.lib.libttsim_init()

    def aim(self, window, addr, xy):
        """Point ``window`` (entry, BAR0 offset, bits, shift) at ``addr`` of node ``xy``;
        -> the physical address of ``addr``."""
        entry, offset, bits, shift = window
        raw = (addr >> bits) | ((xy[0] | xy[1] << 6) << shift)
        if self.arch == "wormhole_b0":
            self._wr(BAR0 + TLB_CFG + 8 * entry, struct.pack("<Q", raw))
        else:  # three 32-bit words, as tt-umd writes them
            for i in range(3):
                self._wr(BAR0 + TLB_CFG + 12 * entry + 4 * i, struct.pack("<I", (raw >> 32 * i) & 0xFFFFFFFF))
        return BAR0 + offset + (addr & ((1 << bits) - 1))

    def _wr(self, paddr, data):
        buf = ctypes.create_string_buffer(bytes(data), len(data))
        self.lib.libttsim_pci_mem_wr_bytes(paddr, buf, len(data))

    def _rd(self, paddr, n):
        buf = ctypes.create_string_buffer(n)
        self.lib.libttsim_pci_mem_rd_bytes(paddr, buf, n)
        self.lib.libttsim_clock(1)  # as tt-umd does after every read
        return buf.raw

    def write(self, window, xy, addr, data):
        self._wr(self.aim(window, addr, xy), data)

    def read(self, window, xy, addr, n):
        return self._rd(self.aim(window, addr, xy), n)

    def w32(self, window, xy, addr, value):
        self.write(window, xy, addr, struct.pack("<I", value))

    def r32(self, window, xy, addr):
        return struct.unpack("<I", self.read(window, xy, addr, 4))[0]


def main(lib, arch, seed):
    (a, b), (wa, wb) = SETUP[arch]
    host = Host(lib, arch)
    rng = random.Random(seed)
    log = []
    for xy, w, n in ((a, wa, 40), (b, wb, 25)):
        host.w32(wa, xy, SOFT_RESET, HELD)
        host.write(w, xy, 0, program())
        host.w32(w, xy, INPUT, n)
        host.w32(w, xy, DONE, 0)
    for xy in (a, b):
        host.w32(wa, xy, SOFT_RESET, BRISC_RUNS)
    host.lib.libttsim_clock(8)  # tile A's core reaches its loop: the owed clocks translate it
    host.w32(wb, a, PATCH, 0x00258593)  # addi a1, a1, 2
    steps = 0
    while steps < 5000:
        steps += 1
        op = rng.randrange(7)
        xy = (a, b)[rng.randrange(2)]
        w = (wa, wb)[rng.randrange(2)]
        if op == 0:
            host.lib.libttsim_clock(rng.randrange(1, 8))
        elif op == 1:
            log.append(host.r32(wa, xy, SOFT_RESET))
        elif op == 2:
            addr = 0x6000 + 4 * rng.randrange(64)
            host.w32(w, xy, addr, rng.getrandbits(32))
            log.append(host.r32(w, xy, addr))
        elif op == 3:
            block = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 200)))
            addr = 0x7000 + rng.randrange(256)
            host.write(w, xy, addr, block)
            log.append(host.read(w, xy, addr, len(block)).hex())
        else:
            flags = [host.r32(w, t, DONE) for t in (a, b)]
            log.append(flags)
            if flags == [1, 1]:
                break
    out = {"log": log, "steps": steps, "results": [host.r32(wa, t, RESULT) for t in (a, b)],
           "code": host.read(wb, a, 0, 64).hex()}
    print(json.dumps(out), flush=True)
    host.r32(wa, (63, 63), 0x100)  # off the grid: the library's error line, with the clock count


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
