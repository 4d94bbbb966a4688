"""Running a shipped kernel manifest (firmware/*/*.toml) on Blackhole: the manifest's
[cores.blackhole] ELFs (firmware/build/blackhole/...), on ttsim's Blackhole library
alone (its result checked against the manifest's numpy reference) or on ttemu and
ttsim side by side. Shared by tests/test_kernels_bh.py."""

from __future__ import annotations

import pathlib

from ttemu import Tile, tiles
from ttemu.cmd import expect as expect_mod
from ttemu.cmd import manifest as manifest_mod
from ttemu.cmd.oracle import plan_from_tile, run_ttsim

ROOT = pathlib.Path(__file__).resolve().parent.parent
MANIFESTS = sorted((ROOT / "firmware").glob("*/*.toml"))
ARCH = "blackhole"


def load(path):
    return manifest_mod.load(str(path), arch=ARCH)


def prepared_tile(man):
    """A recorded Blackhole tile with the manifest's ELFs, inputs and writes, released."""
    tile = Tile(ARCH, record=True)
    manifest_mod.load_into(man, tile)
    tile.release(man.release if man.release is not None else tile.default_release())
    return tile


def regions(man):
    return [(e.name, e.addr, tiles.nbytes(e.format, e.shape), e.format, e.shape) for e in man.expects]


def until(man):
    return list(man.until)  # conditions (ttemu.condition.Condition)


def run_ttsim_only(man, lib):
    """ttsim's bytes of every expected region (raises OracleUnable with ttsim's ERROR
    line when it refuses the run)."""
    tile = prepared_tile(man)
    plan = plan_from_tile(tile, until=until(man),
                          reads=[(a, n, None) for _, a, n, _, _ in regions(man)])
    plan.clock_limit = max(man.max_steps or 0, 2_000_000)
    return run_ttsim(lib, plan).regions


def check_numpy(man, region_bytes):
    """[(expect, ok, text)] for the manifest's numpy references on these bytes."""
    out = []
    for e, data in zip(man.expects, region_bytes):
        got = tiles.decode(data, e.format, e.shape)
        res = expect_mod.compare(got, e.expected, e.atol, e.rtol)
        out.append((e, res.ok, res.text()))
    return out
