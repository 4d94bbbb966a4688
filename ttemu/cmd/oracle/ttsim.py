"""Running a :class:`~.plan.Plan` on ttsim through its C API (ctypes).

Facts used (ttsim v1.10 ``docs/libttsim_api.md`` and ``src/libttsim.cpp``, as summarised
in the project's shared oracle notes): the library exports ``libttsim_init``,
``libttsim_clock(n)`` and ``libttsim_pci_mem_{rd,wr}_bytes(addr, buf, n)``; BAR0 sits at
0x1_0000_0000 and a tile's memory is reached through a TLB window configured at
BAR0 + 0x1FC00000 (per-arch layout in :data:`TLB`); each clock steps every released
RISC-V core one instruction. ttsim refuses what it does not model by printing
``ERROR: <Category>: <where>: <detail>`` and exiting with status 1, so a plan runs in a
child process (:func:`run_ttsim`); the library also keeps global state.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from ...condition import Condition
from ...errors import BadInput, OracleUnable
from .plan import Plan

BAR0 = 0x1_0000_0000
TLB_CFG = 0x1FC00000
SOFT_RESET = 0xFFB121B0


def _wh_tlb(addr, x, y):
    """Wormhole: one 64-bit write ``(addr >> 20) | (x | y << 6) << 16``; 1 MiB windows.
    -> ([config writes as bytes], offset in the window, window size)"""
    return [struct.pack("<Q", (addr >> 20) | ((x | (y << 6)) << 16))], addr & 0xFFFFF, 1 << 20


def _bh_tlb(addr, x, y):
    """Blackhole: three 32-bit writes (ttsim takes them one word at a time); 2 MiB windows."""
    hi = addr >> 21
    words = (hi & 0xFFFFFFFF, ((hi >> 32) & 0x7FF) | ((x | (y << 6)) << 11), 0)
    return [struct.pack("<I", w) for w in words], addr & 0x1FFFFF, 1 << 21


#: arch -> (TLB encoder, worker tile x, y): the tile ttsim's chip model exposes first.
TLB = {"wormhole_b0": (_wh_tlb, 1, 1), "blackhole": (_bh_tlb, 1, 2)}
#: PCI device id (config space offset 0, bits 31:16; vendor 0x1E52) -> the chip simulated
DEVICE_ARCH = {0x401E: "wormhole_b0", 0xB140: "blackhole"}
ARCH_LIBRARY = {"wormhole_b0": "Wormhole B0 (libttsim_wh.so)", "blackhole": "Blackhole (libttsim_bh.so)"}


class OracleProbe:
    """``--oracle LIB`` checked before the run: the file exists (a bare relative name
    is a file here, not a library search), and a child process loads it and reads its
    PCI device id, while ttemu loads the ELFs; :meth:`check` then refuses a library of
    the other chip, or one that does not load, with a one-line :class:`BadInput`."""

    def __init__(self, path: str):
        if not os.path.isfile(path):
            raise BadInput(f"--oracle {path}: no such file")
        self.given = path
        self.path = os.path.abspath(path)
        self.proc = subprocess.Popen([sys.executable, "-m", "ttemu.cmd.oracle.child", "--probe", self.path],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env=_child_env())

    def check(self, arch: str) -> None:
        out, _ = self.proc.communicate(timeout=120)
        device = next((int(ln.split()[1], 16) >> 16 for ln in out.splitlines() if ln.startswith("device 0x")),
                      None)
        if self.proc.returncode != 0 or device is None:
            raise BadInput(f"--oracle {self.given}: not a loadable ttsim library ({_last_line(out)})")
        lib_arch = DEVICE_ARCH.get(device)
        if lib_arch is None:
            raise BadInput(f"--oracle {self.given}: simulates PCI device 0x{device:04x}, neither "
                           f"{' nor '.join(ARCH_LIBRARY.values())}")
        if lib_arch != arch:
            raise BadInput(f"--oracle {self.given}: this library simulates {ARCH_LIBRARY[lib_arch]}, the run is "
                           f"for {ARCH_LIBRARY[arch]}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

#: arch -> the NoC (x, y) of every Tensix worker tile of ttsim's chip, in its tile order
#: (ttsim tile.cpp tile_to_coord: Wormhole 8 x 10 tiles, columns 1-4 and 6-9, rows 1-5 and
#: 7-11; Blackhole 14 x 10, columns 1-7 and 10-16, rows 2-11). Each has its own state.
WORKERS = {
    "wormhole_b0": [(x + (1 if x < 4 else 2), y + (1 if y < 5 else 2)) for y in range(10) for x in range(8)],
    "blackhole": [(x + (1 if x < 7 else 3), y + 2) for y in range(10) for x in range(14)],
}


@dataclass
class TtsimResult:
    completed: bool  # the done condition held (or the fixed clock count ran)
    clocks: int
    regions: list = field(default_factory=list)  # bytes per plan read, in order
    seconds: float = 0.0


class Chip:
    """One ttsim library instance (use once per process)."""

    def __init__(self, lib_path: str, arch: str):
        import ctypes

        self.ct = ctypes
        self.lib = ctypes.CDLL(lib_path)
        self.lib.libttsim_pci_mem_wr_bytes.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint32]
        self.lib.libttsim_pci_mem_rd_bytes.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint32]
        self.lib.libttsim_clock.argtypes = [ctypes.c_uint32]
        self.tlb, self.x, self.y = TLB[arch]
        self.window = None
        self.lib.libttsim_init()

    def select(self, x: int, y: int) -> None:
        """Reach the worker tile at NoC (x, y) from now on (:data:`WORKERS`)."""
        if (x, y) != (self.x, self.y):
            self.x, self.y = x, y
            self.window = None

    def _aim(self, addr):
        writes, off, size = self.tlb(addr, self.x, self.y)
        base = addr - off
        if self.window != base:
            pos = 0
            for cfg in writes:
                buf = self.ct.create_string_buffer(cfg, len(cfg))
                self.lib.libttsim_pci_mem_wr_bytes(BAR0 + TLB_CFG + pos, buf, len(cfg))
                pos += len(cfg)
            self.window = base
        return off, size

    def write(self, addr: int, data: bytes):
        pos = 0
        while pos < len(data):
            off, size = self._aim(addr + pos)
            n = min(len(data) - pos, size - off, 4096)
            buf = self.ct.create_string_buffer(data[pos:pos + n], n)
            self.lib.libttsim_pci_mem_wr_bytes(BAR0 + off, buf, n)
            pos += n

    def read(self, addr: int, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            off, size = self._aim(addr + len(out))
            k = min(n - len(out), size - off, 4096)
            buf = self.ct.create_string_buffer(k)
            self.lib.libttsim_pci_mem_rd_bytes(BAR0 + off, buf, k)
            out += buf.raw
        return bytes(out)

    def read_u32(self, addr: int) -> int:
        return struct.unpack("<I", self.read(addr, 4))[0]

    def write_u32(self, addr: int, value: int):
        self.write(addr, struct.pack("<I", value & 0xFFFFFFFF))

    def clock(self, n: int):
        self.lib.libttsim_clock(n)


def execute(lib_path: str, plan: Plan) -> TtsimResult:
    """Run ``plan`` in this process (the library's state is global: once per process)."""
    t0 = time.perf_counter()
    chip = Chip(lib_path, plan.arch)
    chip.write_u32(SOFT_RESET, plan.initial_soft_reset)
    for addr, data in plan.writes:
        chip.write(addr, data)
    chip.write_u32(SOFT_RESET, plan.release_soft_reset)
    clocks = 0

    def holds(conds):
        return all(int.from_bytes(chip.read(a, w), "little") & m == v for a, v, w, m in conds)

    def done():
        return holds(plan.until)

    for cond, writes in plan.phases:
        while not holds(cond) and clocks < plan.clock_limit:
            chip.clock(plan.poll_clocks)
            clocks += plan.poll_clocks
        if not holds(cond):
            return TtsimResult(False, clocks, [], time.perf_counter() - t0)
        for addr, data in writes:
            chip.write(addr, data)

    if plan.until:
        while not done() and clocks < plan.clock_limit:
            chip.clock(plan.poll_clocks)
            clocks += plan.poll_clocks
        completed = done()
    else:
        chip.clock(plan.clocks_when_no_until)
        clocks = plan.clocks_when_no_until
        completed = True
    regions = [chip.read(a, n) for a, n in plan.reads]
    return TtsimResult(completed, clocks, regions, time.perf_counter() - t0)


def run_ttsim(lib_path: str, plan: Plan, *, timeout: float | None = None) -> TtsimResult:
    """Run ``plan`` on the ttsim library at ``lib_path`` in a child process.

    Raises :class:`BadInput` when the library cannot be loaded and
    :class:`OracleUnable` when ttsim refuses the run (its ERROR line is quoted) or does
    not reach the done condition within the plan's clock limit."""
    if not os.path.isfile(lib_path):
        raise BadInput(f"--oracle {lib_path}: no such file")
    lib_path = os.path.abspath(lib_path)  # a bare name is this file, not a search of the library path
    with tempfile.TemporaryDirectory(prefix="ttemu-oracle-") as tmp:
        plan_path = os.path.join(tmp, "plan.json")
        out_path = os.path.join(tmp, "result.json")
        with open(plan_path, "w") as f:
            json.dump(plan.to_json(), f)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "ttemu.cmd.oracle.child", lib_path, plan_path, out_path],
                              capture_output=True, text=True, timeout=timeout,
                              env=_child_env())
        seconds = time.perf_counter() - t0
        text = proc.stdout + proc.stderr
        error = next((ln.strip() for ln in text.splitlines() if "ERROR:" in ln), None)
        if proc.returncode != 0 or not os.path.exists(out_path):
            if error:
                raise OracleUnable(f"ttsim refused the run: {error}")
            if "OSError" in text or "cannot open shared object" in text:
                raise BadInput(f"--oracle {lib_path}: not a loadable ttsim library "
                               f"({_last_line(text)})")
            raise OracleUnable(f"ttsim stopped with status {proc.returncode}: {_last_line(text)}")
        with open(out_path) as f:
            d = json.load(f)
    res = TtsimResult(d["completed"], d["clocks"], [bytes.fromhex(r) for r in d["regions"]], seconds)
    if not res.completed:
        conds = ", ".join(Condition(a, v, None, w, m).text() for a, v, w, m in plan.until)
        raise OracleUnable(f"ttsim did not reach the done condition ({conds}) in {res.clocks} clocks")
    return res


def _child_env():
    return {**os.environ, "PYTHONPATH": _package_root() + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _package_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _last_line(text):
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "no output"
