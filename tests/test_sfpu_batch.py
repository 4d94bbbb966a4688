"""Runs of Vector Unit instructions executed together (ttemu/tensix/units/sfpu/batch.py)
against the reference form, the MOP and replay generators issuing one instruction at a
time (``TensixThread.compile_expansions = False``): random Vector Unit programs
(tests/sfpu_streams.py: every instruction with random fields, the scheduling hazards
that follow, INCRWC walking Dst, SFPNOP) and kernel-shaped bodies recorded into the
replay buffer and played back by MOPs (both templates) and by REPLAYs, from random
Vector Unit state and configuration (special values, LaneConfig row masks and block
bits, lane flags, Dst offsets, AddrMods moving the counters, Blackhole's stack pointer,
remap and swizzle), with other threads idle, holding at a SEMWAIT or given work in
between (which stops runs), on Wormhole and Blackhole. Both forms must leave the same
state: Dst, LRegs, lane flags and stack, LaneConfig, LoadMacroConfig, the PRNG, the
counters, the cycle bookkeeping and the rules a later instruction may consult,
warnings, every thread's statistics, held instructions and expander state. Runs here
take the Python form; tests/test_sfpu_native.py compares the compiled form."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sfpu_streams as SS
from test_frontend_fusion import _frontend, _lo, mop_template0, play_acts, semwait_holder
from ttemu import Tile
from ttemu.isa.table import get_table
from ttemu.tensix.units.sfpu import VectorUnit

ARCHES = ("wormhole_b0", "blackhole")


def _script(arch, rng, n_ops=8, body=None):
    """Actions: ("push", thread, word, after_mop), ("cfg", thread, MopCfg), ("kick",)."""
    t = get_table(arch)
    nop = t.encode("NOP")
    if body is None:
        body = SS.program(arch, rng, int(rng.integers(3, 31)))
    length = len(body)
    start = int(rng.integers(0, 32 - length + 1))
    acts = [("push", 1, t.encode("REPLAY", start_idx=start, len=length, load_mode=1,
                                 execute_while_loading=int(rng.random() < 0.2)), True)]
    acts += [("push", 1, w, True) for w in body]
    others = rng.random()
    if others < 0.3:
        acts += semwait_holder(t)
    for _ in range(n_ops):
        r = rng.random()
        if r < 0.55:  # a MOP over the replayed body
            s0 = start + (int(rng.integers(0, length)) if rng.random() < 0.3 else 0)
            ln = start + length - s0 if rng.random() < 0.7 else int(rng.integers(1, start + length - s0 + 1))
            rp = t.encode("REPLAY", start_idx=s0, len=ln, load_mode=0, execute_while_loading=0)
            direct = SS.program(arch, rng, 3)
            pick = lambda: rp if rng.random() < 0.7 else (direct[int(rng.integers(0, 3))] if rng.random() < 0.8 else nop)
            if rng.random() < 0.7:  # template 1 (the kernels' form: inner loop of REPLAYs)
                cfg = [int(rng.integers(1, 3)), int(rng.integers(1, 9)), nop, nop, nop, rp,
                       nop if rng.random() < 0.6 else pick(), pick(), pick()]
                mop = t.encode("MOP", mop_type=1, loop_count=0, **{_lo(arch): 0})
            else:
                cfg, mop = mop_template0(t, arch, rng, rp, pick)
            acts.append(("cfg", 1, cfg))
            acts.append(("push", 1, mop, False))
        elif r < 0.7:  # a plain REPLAY playback
            acts.append(("push", 1, t.encode("REPLAY", start_idx=start, len=length, load_mode=0,
                                             execute_while_loading=0), bool(rng.random() < 0.5)))
        elif r < 0.8:  # single instructions
            for w in SS.program(arch, rng, int(rng.integers(1, 4))):
                acts.append(("push", 1, w, bool(rng.random() < 0.5)))
        elif r < 0.85:  # work for thread 0 in between (stops runs while it has some)
            for _ in range(int(rng.integers(1, 4))):
                acts.append(("push", 0, nop, True))
        elif r < 0.9:  # a SETRWC resetting Dst (as kernels do per tile)
            acts.append(("push", 1, t.encode("SETRWC", clear_ab_vld=0, rwc_cr=0, rwc_d=0, rwc_b=0, rwc_a=0,
                                             BitMask=4), False))
        else:
            acts.append(("kick",))
        if others < 0.3 and rng.random() < 0.15:  # release thread 2 now and then
            acts.append(("push", 0, t.encode("SEMPOST", sem_sel=2), True))
        if rng.random() < 0.5:
            acts.append(("kick",))
    return acts


def play(arch, seed, form, body=None, lanes=True, native=None):
    """Run seed's script in ``form``: "reference" (generators, one at a time), "single"
    (compiled expansions, no runs), "batch" (runs executed together, by ``native``: the
    compiled form, or None: the Python form). -> (state, tile, instructions executed in
    runs)."""
    rng = np.random.default_rng(seed)
    tile = Tile(arch)
    SS.prepare(tile, rng, lanes=lanes)
    cop = tile.tensix
    u = cop.sfpu
    u.batching = form == "batch"
    u.native = native
    for th in cop.threads:
        th.compile_expansions = form != "reference"
    counted = [0]
    real = u.run_batch

    def run_batch(*a):
        n = real(*a)
        counted[0] += n
        return n

    u.run_batch = run_batch
    error = play_acts(cop, arch, _script(arch, np.random.default_rng(seed + 1), body=body(arch, rng) if body else None))
    out = SS.state(tile)
    out["error"] = error
    out["frontend"] = [_frontend(th) for th in cop.threads]
    out["sems"] = [(s.value, s.max) for s in cop.sync.semaphores]
    out["epoch"] = cop.epoch
    return out, tile, counted[0]


def _compare(arch, seed, body=None, lanes=True):
    got, _, n = play(arch, seed, "batch", body, lanes)
    want, _, _ = play(arch, seed, "reference", body, lanes)
    SS.assert_same(got, want)
    return n


@settings(max_examples=120, deadline=None)
@given(arch=st.sampled_from(ARCHES), seed=st.integers(0, 2**31))
def test_runs_match_one_at_a_time(arch, seed):
    _compare(arch, seed)


@settings(max_examples=40, deadline=None)
@given(arch=st.sampled_from(ARCHES), seed=st.integers(0, 2**31), fmt=st.sampled_from([3, 2, 0]),
       lanes=st.booleans())
def test_kernel_bodies_match_one_at_a_time(arch, seed, fmt, lanes):
    _compare(arch, seed, body=lambda a, rng: SS.kernel_body(a, rng, fmt), lanes=lanes)


@pytest.mark.parametrize("arch", ARCHES)
def test_kernel_body_runs_together(arch):
    """A kernel's body (no hazard broken) played by MOPs goes to the unit in runs."""
    total = 0
    for seed in range(6):
        total += _compare(arch, seed, body=lambda a, rng: SS.kernel_body(a, rng, 3), lanes=False)
    assert total > 0


def test_a_broken_rule_ends_the_run_before_its_producer():
    """SFPMAD then a reader of its result on the next cycle (SFPMAD.md): the pair goes one
    at a time (the warning, the stale value), the steps around it in runs."""
    arch = "wormhole_b0"
    t = get_table(arch)
    mad = t.encode("SFPMAD", lreg_src_a=0, lreg_src_b=1, lreg_src_c=2, lreg_dest=3, instr_mod1=0)
    read = t.encode("SFPMAD", lreg_src_a=3, lreg_src_b=1, lreg_src_c=2, lreg_dest=4, instr_mod1=0)
    nop = t.encode("SFPNOP")
    inc = t.encode("INCRWC", rwc_a=0, rwc_b=0, rwc_d=2, rwc_cr=0)
    tile = Tile(arch)
    u = tile.tensix.sfpu
    entries = [tile.tensix.dispatch_entry(w) for w in (nop, nop, mad, read, nop, nop, inc)]
    assert u.batch_runs(None, entries) == [(0, 2), (4, 7)]
    entries = [tile.tensix.dispatch_entry(w) for w in (nop, inc, mad, nop, mad)]
    assert u.batch_runs(None, entries) == [(0, 4)]  # (a trailing producer goes one at a time)


def test_batching_is_the_class_default_switch():
    assert VectorUnit.batching is True
