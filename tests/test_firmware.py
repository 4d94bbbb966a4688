"""The committed firmware (firmware/build) runs on the emulator, and rebuilding it
gives the same bytes (scripts/build_firmware.py --check)."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

from ttemu import Tile

ROOT = pathlib.Path(__file__).resolve().parent.parent
HELLO = ROOT / "firmware" / "build" / "hello"
TRISCS = ("trisc0", "trisc1", "trisc2")

# firmware/hello/hello.h
HELLO_RESULTS = 0x20000
HELLO_VALUES = [0xB215C0DE, 0x7215C000, 0x7215C001, 0x7215C002]


def load_hello():
    tile = Tile("wormhole_b0")
    for core in ("brisc",) + TRISCS:
        assert tile.load_elf(str(HELLO / f"{core}.elf"), core=core) == core
    return tile


def test_hello_runs_on_all_four_cores():
    tile = load_hello()
    tile.release(["brisc"])  # brisc releases the TRISCs itself
    res = tile.run(max_steps=100_000)
    assert res.outcome == "halted"
    words = [tile.read_u32(HELLO_RESULTS + 4 * i) for i in range(4)]
    assert [hex(w) for w in words] == [hex(v) for v in HELLO_VALUES]
    for core in ("brisc",) + TRISCS:
        r = res.cores[core]
        assert r.state == "halted", (core, r)
        assert r.pc == tile.images[core].symbols["_park"] and r.symbol == "_park"
    assert res.cores["ncrisc"].state == "reset"
    assert tile.read_u32(0xFFB121B0) == 0x47800 & ~(1 << 11) & ~(0b111 << 12)


def test_hello_cores_infer_from_file_names():
    tile = Tile("wormhole_b0")
    assert [tile.load_elf(str(HELLO / f"{c}.elf")) for c in ("brisc",) + TRISCS] == ["brisc", *TRISCS]
    assert tile.default_release() == ["brisc"]


def test_trisc_released_alone():
    tile = load_hello()
    tile.release(["trisc1"])
    res = tile.run(max_steps=10_000)
    assert res.outcome == "halted"
    assert [tile.read_u32(HELLO_RESULTS + 4 * i) for i in range(4)] == [0, 0, HELLO_VALUES[2], 0]
    assert res.cores["brisc"].state == "reset"


def test_sp_is_top_of_local_ram():
    tile = load_hello()
    tile.release(["brisc"])
    tile.run(max_steps=100_000)
    assert tile.harts["brisc"].x[2] == 0xFFB00000 + 4096
    for core in TRISCS:
        assert tile.harts[core].x[2] == 0xFFB00000 + 2048


@pytest.mark.skipif(shutil.which("riscv64-unknown-elf-gcc") is None, reason="riscv64-unknown-elf-gcc not installed")
def test_firmware_rebuilds_identically():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_firmware.py"), "--check"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
