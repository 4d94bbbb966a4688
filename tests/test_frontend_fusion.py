"""Compiled expansions (ttemu/tensix/frontend/body.py) and the runs a unit executes
together (the Matrix Unit's, ttemu/tensix/units/math_batch.py) against the reference
form, the MOP and replay generators issuing one instruction at a time
(``TensixThread.compile_expansions = False``, and a held instruction asked again on every
pass, whatever its ``Wait.src_key``): random Matrix Unit programs recorded into
the replay buffer and played back by MOPs (both templates, MopCfg and masks random) and
by REPLAYs, with counters moving, Src banks flipping, FP16 / INT8 styles, remapped Dst
(Blackhole) and SrcA rows past 63 taking the one-at-a-time paths inside runs; other
ADDR_MOD slots and the Dst offset rewritten in between (SETC16); other threads idle,
holding at a SEMWAIT, or given work in between (which stops runs); on
Wormhole and Blackhole, with the compiled datapath and with the pure-Python one. Both
forms must leave the same state: Dst, ZEROACC marks, the Dst write log (with issue
counts), counters, Src ownership, warnings, every thread's statistics, held
instructions and expander state. With a tracer attached no expansion is compiled (the
trace comes from the reference form)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import math_streams as MS
from ttemu import Tile
from ttemu.errors import TtemuError
from ttemu.isa.table import get_table
from ttemu.tensix.frontend.thread import TensixThread
from ttemu.tensix.units import fpu_native
from ttemu.trace import Tracer

NATIVE = fpu_native.load()


def _frontend(t):
    rep = t.replay
    return (t.mop.active is None, tuple(t.mop.cfg), t.mop.mask_hi, rep.record_left, rep.play_left,
            rep.play_index % 32 if rep.play_left else None, tuple(w for w, _ in rep.buffer),
            [w for w, _ in t.fifo], [w for w, _ in t.mid], t.held, t.held_reason, t.pushed, t.issued,
            t.held_steps, t.fed, t.gate.opcode)


def semwait_holder(t):
    """Actions that leave thread 2 held at a SEMWAIT (semaphore 1 at zero) until thread 0
    posts it."""
    return [("push", 2, t.encode("SEMINIT", sem_sel=2, init_value=0, max_value=2), False),
            ("push", 2, t.encode("SEMWAIT", wait_sem_cond=1, sem_sel=2, stall_res=0x1FF), False),
            ("push", 2, t.encode("NOP"), False)]


def mop_template0(t, arch, rng, rp, pick):
    """A MOP of template 0 over the REPLAY ``rp`` and words ``pick()`` chooses: (its MopCfg
    words, the MOP word)."""
    cfg = [0, int(rng.integers(0, 4)), pick(), rp, pick(), pick(), pick(), pick(), pick()]
    mop = t.encode("MOP", mop_type=0, loop_count=int(rng.integers(0, 6)), **{_lo(arch): int(rng.integers(0, 1 << 6))})
    return cfg, mop


def _script(arch, rng, n_ops=12):
    """A list of actions: ("push", thread, word, before_mop), ("cfg", thread, cfg),
    ("kick",)."""
    t = get_table(arch)
    nop = t.encode("NOP")
    acts = []
    # record a body into the replay buffer (load only, or load and execute)
    length = int(rng.integers(4, 25))
    start = int(rng.integers(0, 32 - length + 1))
    acts.append(("push", 1, t.encode("REPLAY", start_idx=start, len=length, load_mode=1,
                                     execute_while_loading=int(rng.random() < 0.2)), True))
    for w in MS.program(arch, rng, length, flips=True):
        acts.append(("push", 1, w, True))
    others = rng.random()
    if others < 0.3:
        acts += semwait_holder(t)
    for _ in range(n_ops):
        r = rng.random()
        if r < 0.45:  # a MOP over the replayed body
            s0 = start + int(rng.integers(0, length))
            ln = int(rng.integers(1, start + length - s0 + 1))
            rp = t.encode("REPLAY", start_idx=s0, len=ln, load_mode=0, execute_while_loading=0)
            direct = MS.program(arch, rng, 3, kinds=("MVMUL", "ELWADD", "ELWMUL"), flips=False)
            pick = lambda: rp if rng.random() < 0.7 else (direct[int(rng.integers(0, 3))] if rng.random() < 0.8 else nop)
            if rng.random() < 0.6:  # template 1
                cfg = [int(rng.integers(1, 5)), int(rng.integers(0, 4)), pick(), pick(), pick(), rp,
                       nop if rng.random() < 0.6 else pick(), pick(), pick()]
                mop = t.encode("MOP", mop_type=1, loop_count=0, **{_lo(arch): 0})
            else:
                cfg, mop = mop_template0(t, arch, rng, rp, pick)
            acts.append(("cfg", 1, cfg))
            if rng.random() < 0.2:
                acts.append(("push", 1, t.encode("MOP_CFG", zmask_hi16=int(rng.integers(0, 4))), False))
            acts.append(("push", 1, mop, False))
        elif r < 0.65:  # a plain REPLAY playback
            s0 = start + int(rng.integers(0, length))
            ln = int(rng.integers(1, start + length - s0 + 1))
            acts.append(("push", 1, t.encode("REPLAY", start_idx=s0, len=ln, load_mode=0, execute_while_loading=0),
                         bool(rng.random() < 0.5)))
        elif r < 0.8:  # single instructions
            for w in MS.program(arch, rng, int(rng.integers(1, 4)), kinds=("SETRWC", "INCRWC", "MVMUL")):
                acts.append(("push", 1, w, bool(rng.random() < 0.5)))
        elif r < 0.85:  # work for thread 0 in between (stops runs while it has some)
            for _ in range(int(rng.integers(1, 4))):
                acts.append(("push", 0, nop, True))
        elif r < 0.9:  # thread 2's own MVMUL (held while the Src banks are not the Matrix Unit's) or
            # thread 0 handing the unpackers' banks to the Matrix Unit (SETDVALID)
            if rng.random() < 0.5:
                acts.append(("push", 2, MS.program(arch, rng, 1, kinds=("MVMUL",), flips=False)[0], True))
            else:
                acts.append(("push", 0, t.encode("SETDVALID", setvalid=int(rng.integers(1, 4))), True))
        elif r < 0.95:  # a ThreadConfig word of an ADDR_MOD slot, or the Dst offset, rewritten (SETC16)
            acts.append(("setc16", 1, str(rng.choice(["ADDR_MOD_AB_SEC1_SrcAIncr", "ADDR_MOD_DST_SEC2_DestIncr",
                                                      "ADDR_MOD_AB_SEC3_SrcBIncr",
                                                      "DEST_TARGET_REG_CFG_MATH_Offset"])),
                         int(rng.integers(0, 1 << 16))))
        else:
            acts.append(("kick",))
        if others < 0.3 and rng.random() < 0.15:  # release thread 2 now and then
            acts.append(("push", 0, t.encode("SEMPOST", sem_sel=2), True))
        if rng.random() < 0.5:
            acts.append(("kick",))
    return acts


def _lo(arch):
    return "zmask_lo16_or_loop_count" if arch == "blackhole" else "zmask_lo16"


def play_acts(cop, arch, acts):
    """Play a script's actions on ``cop`` (``("kick",)``, ``("cfg", thread, MopCfg)``,
    ``("setc16", thread, field, value)``, ``("push", thread, word, after_mop)``), then
    kick it. -> the error that stopped it (the same stop in every form), or None."""
    try:
        for act in acts:
            if act[0] == "kick":
                cop.kick()
            elif act[0] == "cfg":
                cop.threads[act[1]].mop.cfg[:] = act[2]
            elif act[0] == "setc16":
                index = cop.config.thread_fields[act[2]][0]
                w = get_table(arch).encode("SETC16", setc16_reg=index, setc16_value=act[3])
                cop.threads[act[1]].push(w, "test", after_mop=False)
                cop.kick()
            else:
                _, ti, w, after = act
                th = cop.threads[ti]
                for _ in range(3):
                    if th.push(w, "test", after_mop=after):
                        break
                    cop.kick()
                else:
                    break  # (stuck: every form stops at the same place)
                if ti != 1 or w >> 24 not in (0x01, 0x04, 0x03):  # (a MOP, a REPLAY: sometimes queued a while)
                    cop.kick()
        cop.kick()
    except TtemuError as e:
        return f"{type(e).__name__}: {e}"
    return None


def _play(arch, seed, compiled, native, script_seed=None, tracer=False):
    rng = np.random.default_rng(seed)
    tile = Tile(arch)
    MS.prepare(tile, rng)
    cop = tile.tensix
    cop.math.native = native
    for th in cop.threads:
        th.compile_expansions = compiled
    if not compiled:  # the reference also asks a held instruction again whatever changed (Wait.src_key)
        cop.src.ownership = object
    if tracer:
        tile.tracer = Tracer(io.StringIO(), tile, ("issue",))
    error = play_acts(cop, arch, _script(arch, np.random.default_rng(seed + 1 if script_seed is None else script_seed)))
    out = MS.state(tile)
    out["error"] = error
    out["frontend"] = [_frontend(th) for th in cop.threads]
    out["sems"] = [(s.value, s.max) for s in cop.sync.semaphores]
    out["epoch"] = cop.epoch
    return out, tile


@settings(max_examples=80, deadline=None)
@given(arch=st.sampled_from(["wormhole_b0", "blackhole"]), seed=st.integers(0, 2**31),
       native=st.booleans())
def test_compiled_expansions_match_one_at_a_time(arch, seed, native):
    if native and NATIVE is None:
        native = False
    nat = NATIVE if native else None
    got, _ = _play(arch, seed, True, nat)
    want, _ = _play(arch, seed, False, nat)
    MS.assert_same(got, want)
    assert got["frontend"] == want["frontend"]
    assert got["sems"] == want["sems"]
    assert got["epoch"] == want["epoch"]
    assert got["error"] == want["error"]


def test_runs_are_executed_together():
    """The matmul kernel's shape (a MOP over a replayed body of 16 MVMULs, four fidelity
    phases): the Matrix Unit takes the MVMULs in runs, and the result is the reference's."""
    arch = "wormhole_b0"
    t = get_table(arch)
    calls = []
    for compiled in (True, False):
        rng = np.random.default_rng(3)
        tile = Tile(arch)
        MS.prepare(tile, rng, fmt=MS.FMT_BF16, fp32=True)
        cop = tile.tensix
        th = cop.threads[1]
        th.compile_expansions = compiled
        real = cop.math.run_batch
        n = [0]

        def counted(*a, real=real, n=n):
            k = real(*a)
            n[0] += k
            return k

        cop.math.run_batch = counted
        th.push(t.encode("REPLAY", start_idx=16, len=16, load_mode=1), "test", after_mop=True)
        for q in range(16):
            th.push(t.encode("MVMUL", dst=8 * (q % 8), addr_mode=0, instr_mod19=0, clear_dvalid=0), "test",
                    after_mop=True)
            cop.kick()
        body = t.encode("REPLAY", start_idx=16, len=16, load_mode=0)
        nop = t.encode("NOP")
        th.mop.cfg[:] = [4, 1, nop, nop, nop, body, nop, body, body]
        for _ in range(3):
            th.push(t.encode("MOP", mop_type=1), "test", after_mop=False)
            cop.kick()
        calls.append((n[0], cop.dst.bits.copy(), th.issued))
    (n_fused, dst_fused, issued_fused), (n_ref, dst_ref, issued_ref) = calls
    assert n_ref == 0 and issued_fused == issued_ref == 3 * 64  # (the recording only records)
    assert n_fused == 3 * 64  # every MVMUL of the three MOPs in runs
    np.testing.assert_array_equal(dst_fused, dst_ref)


def test_no_expansion_is_compiled_while_tracing():
    got, tile = _play("wormhole_b0", 11, True, NATIVE, tracer=True)
    assert all(not th._bodies and th._run is None for th in tile.tensix.threads)
    want, _ = _play("wormhole_b0", 11, False, NATIVE, tracer=True)
    MS.assert_same(got, want)


def test_reference_form_is_the_class_default_switch():
    assert TensixThread.compile_expansions is True


def test_held_step_starts_a_run():
    """A MOP whose first MVMUL waits for the Src banks (not yet handed to the Matrix
    Unit), released by another thread's SETDVALID: the held MVMUL and the rest of the
    expansion go to the unit in one run, with the reference's result and statistics."""
    arch = "wormhole_b0"
    t = get_table(arch)
    out = []
    for compiled in (True, False):
        rng = np.random.default_rng(4)
        tile = Tile(arch)
        MS.prepare(tile, rng, fmt=MS.FMT_BF16, fp32=True)
        cop = tile.tensix
        if not compiled:
            cop.src.ownership = object
        for w in "AB":  # the Matrix Unit's banks go back to the unpackers
            cop.src.allowed[w] = ["unpack", "unpack"]
        th = cop.threads[1]
        th.compile_expansions = compiled
        n = [0]
        real = cop.math.run_batch

        def counted(*a, real=real, n=n):
            k = real(*a)
            n[0] += k
            return k

        cop.math.run_batch = counted
        mv = [t.encode("MVMUL", dst=8 * (q % 8), addr_mode=0, instr_mod19=0, clear_dvalid=0) for q in range(8)]
        nop = t.encode("NOP")
        th.mop.cfg[:] = [1, 4, nop, nop, nop, mv[0], mv[1], mv[2], mv[3]]
        th.push(t.encode("MOP", mop_type=1), "test", after_mop=False)
        cop.kick()
        assert th.held is not None and th.issued == 0
        tile.steps += 5
        cop.threads[0].push(t.encode("SETDVALID", setvalid=3), "test", after_mop=True)
        cop.kick()
        out.append((n[0], cop.dst.bits.copy(), th.issued, th.held_steps, th.held, MS.state(tile)["log"]))
    (n_c, dst_c, *rest_c), (n_r, dst_r, *rest_r) = out
    assert n_r == 0 and n_c == 8 and rest_c == rest_r
    np.testing.assert_array_equal(dst_c, dst_r)
