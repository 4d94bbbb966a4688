"""A tt-umd client of a ttsim-ABI library (ttsim's, or ttemu's from ``ttemu simlib``),
run as its own process (one library instance per process):

    python tests/simlib_umd_client.py LIB X Y N [ROUNDS]

on the Tensix tile at NoC 0 (X, Y): an L1 round trip (words and a 64-byte block),
another tile and a DRAM node, the soft-reset register through assert/deassert, then
a BRISC program (``program(n)``: the sum of i*i for i < n, from an input word the
host writes) run by polling its done flag, each poll a read (and a clock) as tt-umd
does. Prints one JSON object: what was read back, the program's result, the number of
polls and the seconds each phase took; with ROUNDS, also the mean time of a
32-bit write-and-read-back over ROUNDS more (``roundtrip_us``, wall and CPU).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rv32asm import Program, a0, a1, a2, t0, t1  # noqa: E402

INPUT, RESULT, DONE = 0x1000, 0x1004, 0x1008


def program(base: int = 0) -> bytes:
    """BRISC code at its reset PC: result = sum(i * i for i < input); done = 1."""
    p = Program(base)
    p.la(t0, INPUT)
    p.lw(a0, 0, t0)  # n
    p.addi(a1, 0, 0)  # i
    p.addi(a2, 0, 0)  # sum
    p.label("loop")
    p.bge(a1, a0, "end")
    p.mul(t1, a1, a1)
    p.add(a2, a2, t1)
    p.addi(a1, a1, 1)
    p.j("loop")
    p.label("end")
    p.sw(a2, 4, t0)
    p.addi(t1, 0, 1)
    p.sw(t1, 8, t0)
    p.halt()
    return p.assemble()


def expected(n: int) -> int:
    return sum(i * i for i in range(n)) & 0xFFFFFFFF


def main(lib: str, x: int, y: int, n: int, rounds: int = 0) -> dict:
    import tt_umd

    out = {}
    t = time.perf_counter()
    dev = tt_umd.create_simulation_tt_device(lib)
    soc = dev.get_soc_descriptor()
    out["arch"] = str(dev.get_arch())
    out["open_s"] = time.perf_counter() - t

    t = time.perf_counter()
    dev.noc_write32(x, y, 0x100, 0xCAFE)
    out["word"] = dev.noc_read32(x, y, 0x100)
    block = bytes((7 * i + 3) & 0xFF for i in range(64))
    dev.noc_write(x, y, 0x4000, block)
    out["block_ok"] = dev.noc_read(x, y, 0x4000, 64) == block
    out["roundtrip_s"] = time.perf_counter() - t

    far = soc.get_cores(tt_umd.CoreType.TENSIX)[-1]
    dev.noc_write32(far.x, far.y, 0x200, 0x5EED)
    out["far_tile"] = [far.x, far.y, dev.noc_read32(far.x, far.y, 0x200)]
    dram = soc.get_cores(tt_umd.CoreType.DRAM)[0]
    dev.noc_write32(dram.x, dram.y, 0x10000, 0xD7A3)
    out["dram"] = [dram.x, dram.y, dev.noc_read32(dram.x, dram.y, 0x10000)]

    core = tt_umd.CoreCoord(x, y, tt_umd.CoreType.TENSIX, tt_umd.CoordSystem.NOC0)
    out["reset_initial"] = dev.get_risc_reset_state(x, y)
    dev.assert_risc_reset(core, tt_umd.RiscType.ALL)
    out["reset_asserted"] = dev.get_risc_reset_state(x, y)
    dev.noc_write(x, y, 0, program())
    dev.noc_write32(x, y, INPUT, n)
    dev.noc_write32(x, y, DONE, 0)
    t, c = time.perf_counter(), time.process_time()
    dev.deassert_risc_reset(core, tt_umd.RiscType.BRISC)
    out["reset_released"] = dev.get_risc_reset_state(x, y)
    polls = 0
    while dev.noc_read32(x, y, DONE) != 1:
        polls += 1
        if polls > 10 * n + 1000:
            break
    out["program_s"] = time.perf_counter() - t
    out["program_cpu_s"] = time.process_time() - c
    out["polls"] = polls
    out["result"] = dev.noc_read32(x, y, RESULT)
    out["expected"] = expected(n)
    if rounds:
        t, c = time.perf_counter(), time.process_time()
        for i in range(rounds):
            dev.noc_write32(x, y, 0x6000, i)
            assert dev.noc_read32(x, y, 0x6000) == i
        out["roundtrip_us"] = (time.perf_counter() - t) / rounds * 1e6
        out["roundtrip_cpu_us"] = (time.process_time() - c) / rounds * 1e6
    return out


if __name__ == "__main__":
    lib, x, y, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    print(json.dumps(main(lib, x, y, n, rounds)), flush=True)
