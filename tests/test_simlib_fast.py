"""The fast paths behind ``ttemu simlib``'s library (docs/simlib.md, "Speed"), each pinned
against the slow path it replaces.

* Step blocks (``ttemu.run._run_steps``, ``Translator.translate_steps``): a host clock
  retires one instruction (or a few) per core through one translation per block; the
  slow path translates one block per pc (``_run_single``). Two tiles run the same
  programs clock by clock, one each way: after every clock every core's pc, registers,
  state, wait, step count and all of L1 are the same.
* L1 in the C shim (``simlib.c``: TLB-window reads and writes of a Tensix tile's L1
  served without Python): a ctypes host (simlib_fast_client.py) drives two tiles through
  re-aimed windows of two sizes, register reads, a rewrite of code that the owed clocks
  translate, polls and round trips; every value it reads, the programs' results and the
  clock count of the final error line are the same with the fast path off
  (``TTEMU_SIMLIB_FAST=0``: every access through Python), and the results are the ones
  computed here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from oracle_lib import CORPUS, ROOT
from simlib_umd_client import expected
from ttemu import run
from ttemu.cmd import manifest as manifest_mod
from ttemu.tile import Tile

ARCHS = ("wormhole_b0", "blackhole")


def _tile(path, arch):
    """A tile prepared as ``ttemu run`` prepares one (ELFs, inputs, writes, release),
    with ebreaks that pause, as the chip builds its tiles."""
    man = manifest_mod.load(str(ROOT / path), arch=arch)
    tile = Tile(arch, ebreak_pauses=True)
    manifest_mod.load_into(man, tile)
    tile.release(man.release if man.release is not None else tile.default_release())
    return tile


def _state(tile):
    return ({n: (h.pc, h.state, h.stall, h.steps, tuple(h.x)) for n, h in tile.harts.items()}, tile.steps,
            tile.activity[0])


def _slow_steps(tile, hart, budget):
    return run._run_single(tile, hart, budget, None)


def _lockstep(path, arch, budgets):
    """Clock a tile with step blocks and one with one-instruction blocks through
    ``budgets`` (instructions per core and clock); -> clocks run. Asserts equality after
    every clock."""
    fast, slow = _tile(path, arch), _tile(path, arch)
    fast_steps = run._run_steps
    for i, steps in enumerate(budgets):
        busy = run.advance(fast, steps)
        run._run_steps = _slow_steps
        try:
            assert run.advance(slow, steps) == busy
        finally:
            run._run_steps = fast_steps
        assert _state(fast) == _state(slow), f"clock {i} ({steps} steps)"
        assert fast.l1 == slow.l1, f"clock {i} ({steps} steps)"
        if not busy:
            return i + 1
    return len(budgets)


def _budgets(n, seed):
    """Mostly single instructions (the library's default clock), some short runs, and
    a few longer than a block (whole blocks, then a step tail)."""
    import random

    rng = random.Random(seed)
    return [rng.choice([1] * 40 + [2, 3, 5, 16, 63, 64, 65, 200]) for _ in range(n)]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("manifest", ["firmware/eltwise_add/eltwise_add.toml", "firmware/matmul_block/matmul_block.toml"])
def test_step_blocks_retire_what_single_steps_retire(manifest, arch):
    """Kernel sets: BRISC's boot code, three TRISCs pushing Tensix instructions, stalls on
    full FIFOs and semaphores, mailboxes."""
    assert _lockstep(manifest, arch, _budgets(3000, 7)) > 100


@pytest.mark.skipif(not CORPUS.exists(), reason=f"no corpus at {CORPUS}")
@pytest.mark.parametrize("name", ["metal_fw_wormhole_b0_a", "metal_fw_blackhole_a"])
def test_step_blocks_on_tt_metal_firmware(name):
    """tt-metal's firmware: five cores, CSR reads of the cycle counters (their own
    blocks, synced counts), NCRISC code in its instruction RAM, copy loops."""
    arch = "blackhole" if "blackhole" in name else "wormhole_b0"
    os.chdir(ROOT)
    assert _lockstep(f"corpus/{name}.toml", arch, _budgets(2500, 11)) == 2500


# -- L1 served by the library's C shim ----------------------------------------------------------
@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    if not (os.environ.get("CC") or shutil.which("gcc")):
        pytest.skip("no C compiler (gcc): ttemu simlib compiles its library with one")
    out = {}
    for arch in ARCHS:
        d = tmp_path_factory.mktemp(arch)
        proc = subprocess.run([sys.executable, "-m", "ttemu", "simlib", "--arch", arch, str(d)], cwd=ROOT,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        out[arch] = proc.stdout.strip()
    return out


def _client(lib, arch, seed, fast):
    env = dict(os.environ, TTEMU_SIMLIB_FAST="1" if fast else "0")
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "simlib_fast_client.py"), lib, arch, str(seed)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 5, proc.stdout + proc.stderr  # the off-grid read at the end (HostFault)
    lines = proc.stdout.splitlines()
    return json.loads(lines[0]), lines[1:]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("arch", ARCHS)
def test_l1_in_the_shim_is_the_python_path(arch, seed, libs):
    fast, fast_end = _client(libs[arch], arch, seed, True)
    slow, slow_end = _client(libs[arch], arch, seed, False)
    # tile A runs with the rewritten increment from its first iteration (i = 0, 2, ...)
    assert fast["results"] == [sum(i * i for i in range(0, 40, 2)), expected(25)]
    assert fast == slow
    assert fast_end == slow_end and len(fast_end) == 1 and "ERROR: HostFault" in fast_end[0], fast_end
    assert [1, 1] in fast["log"] and len(fast["log"]) > 20
