"""The project's firmware built for Blackhole (scripts/build_firmware.py --arch
blackhole -> firmware/build/blackhole/<prog>/): the Blackhole tile.h / linker scripts
(larger local data RAM, reset-PC overrides in the debug registers) run on ttemu's
Blackhole tile and on ttsim's Blackhole library, and a manifest's [cores.blackhole]
table selects those ELFs."""

from __future__ import annotations

import pathlib

import pytest

from oracle_lib import require_ttsim
from ttemu import Tile
from ttemu.cmd import manifest as manifest_mod
from ttemu.cmd.oracle import cross_check
from ttemu.errors import BadInput

ROOT = pathlib.Path(__file__).resolve().parent.parent
BH_BUILD = ROOT / "firmware" / "build" / "blackhole"
TRISCS = ("trisc0", "trisc1", "trisc2")
HELLO_RESULTS = 0x20000  # firmware/hello/hello.h
HELLO_VALUES = [0xB215C0DE, 0x7215C000, 0x7215C001, 0x7215C002]


def load_hello(record=False):
    tile = Tile("blackhole", record=record)
    for core in ("brisc",) + TRISCS:
        assert tile.load_elf(str(BH_BUILD / "hello" / f"{core}.elf"), core=core) == core
    tile.release(["brisc"])
    return tile


def test_hello_blackhole_stacks_at_top_of_blackhole_local_ram():
    tile = load_hello()
    res = tile.run(max_steps=100_000)
    assert res.outcome == "halted"
    assert [tile.read_u32(HELLO_RESULTS + 4 * i) for i in range(4)] == HELLO_VALUES
    assert tile.harts["brisc"].x[2] == 0xFFB00000 + 8192
    for core in TRISCS:
        assert tile.harts[core].x[2] == 0xFFB00000 + 4096


def test_hello_blackhole_matches_ttsim():
    lib = require_ttsim("blackhole")
    tile = load_hello(record=True)
    until = [(HELLO_RESULTS + 12, HELLO_VALUES[3])]
    assert tile.run(max_steps=100_000, until=until).exit_code == 0
    diffs, _ = cross_check(tile, lib, [("hello", HELLO_RESULTS, 16)], until=until)
    assert all(d.ok for d in diffs), "\n".join(d.text() for d in diffs)


def test_manifest_cores_table_per_arch(tmp_path):
    negate = ROOT / "firmware" / "negate" / "negate.toml"
    wh = manifest_mod.load(str(negate))
    bh = manifest_mod.load(str(negate), arch="blackhole")
    assert wh.cores == [("brisc", str(ROOT / "firmware" / "build" / "negate" / "brisc.elf"))]
    assert bh.cores == [("brisc", str(BH_BUILD / "negate" / "brisc.elf"))]
    bad = tmp_path / "bad.toml"
    bad.write_text('[cores]\nbrisc = "a.elf"\n[cores.quasar]\nbrisc = "b.elf"\n')
    with pytest.raises(BadInput, match=r"\[cores.quasar\]: unknown arch"):
        manifest_mod.load(str(bad))
    only = tmp_path / "only.toml"
    only.write_text('[cores.blackhole]\nbrisc = "b.elf"\n')
    assert manifest_mod.load(str(only), arch="blackhole").cores == [("brisc", str(tmp_path / "b.elf"))]
    with pytest.raises(BadInput, match="no ELFs for"):
        manifest_mod.load(str(only))
