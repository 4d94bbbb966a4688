"""The push fast lane (``Coprocessor._issue_pushed``: a word pushed to a thread with
nothing else to do issues at once while kick's passes would skip the other threads)
against the general path (``Coprocessor.fast_push = False``: the word is queued and
``kick`` pumps it): random instruction streams pushed by the TRISCs and BRISC into three
threads, with semaphores (SEMINIT / SEMPOST / SEMGET / SEMWAIT, RISC-V semaphore writes),
STALLWAITs on conditions that can and cannot hold, mutexes (ATGETM / ATRELM, which
change kick's pass order), Src hand-overs and Matrix Unit instructions held until the
banks change hands, Scalar and Vector Unit instructions, MOPs, plain kicks and full
FIFOs, on Wormhole and Blackhole. Both forms must issue the same instructions in the
same order (thread, word, origin) and leave the same state: every thread's frontend
and statistics, held instructions and their reasons, semaphores, mutexes, GPRs, Src
ownership, the epoch and kick's pass order."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import math_streams as MS
from ttemu import Tile
from ttemu.arch import get_arch
from ttemu.errors import TtemuError
from ttemu.isa.table import get_table
from ttemu.tensix.coprocessor import Coprocessor

PUSH = 0xFFE40000
SEM_WINDOW = 0xFFE80020  # PC_BUF_BASE + 0x20: Tensix semaphore 0 as the TRISCs see it


def _script(arch, rng, n=60):
    t = get_table(arch)
    nop = t.encode("NOP")
    stall_bits = [c[0] for c in get_arch(arch).stallwait_conditions]

    def word(thread):
        r = rng.random()
        sem = 1 << int(rng.integers(0, 3))
        if r < 0.12:
            return nop
        if r < 0.22:
            return t.encode("SEMPOST", sem_sel=sem)
        if r < 0.3:
            return t.encode("SEMGET", sem_sel=sem)
        if r < 0.4:
            return t.encode("SEMWAIT", wait_sem_cond=int(rng.integers(1, 4)), sem_sel=sem,
                            stall_res=int(rng.integers(0, 0x200)))
        if r < 0.5:
            cond = 0
            for _ in range(int(rng.integers(1, 4))):
                cond |= 1 << int(rng.choice(stall_bits))
            return t.encode("STALLWAIT", wait_res=cond, stall_res=int(rng.integers(0, 0x200)))
        if r < 0.56:
            return t.encode("ATGETM" if rng.random() < 0.5 else "ATRELM", mutex_index=int(rng.choice([0, 2, 3])))
        if r < 0.64:
            return t.encode("SETDMAREG", RegIndex16b=int(rng.integers(0, 64)), SetSignalsMode=0,
                            Payload_SigSel=int(rng.integers(0, 1 << 14)), Payload_SigSelSize=int(rng.integers(0, 4)))
        if r < 0.68:
            return t.encode("ADDDMAREG", OpARegIndex=int(rng.integers(0, 64)), OpBRegIndex=int(rng.integers(0, 64)),
                            ResultRegIndex=int(rng.integers(0, 64)), OpBisConst=int(rng.integers(0, 2)))
        if r < 0.76:
            return t.encode("SETDVALID", setvalid=int(rng.integers(1, 4)))
        if r < 0.86:
            return MS.program(arch, rng, 1, kinds=("MVMUL", "SETRWC", "ELWADD"), flips=bool(rng.random() < 0.3))[0]
        if r < 0.93:
            return t.encode("SFPLOADI", imm16=int(rng.integers(0, 1 << 16)), instr_mod0=int(rng.choice([0, 2, 8])),
                            lreg_ind=int(rng.integers(0, 4)))
        return t.encode("SEMINIT", sem_sel=sem, init_value=int(rng.integers(0, 3)), max_value=int(rng.integers(1, 4)))

    acts = [("push", th, t.encode("SEMINIT", sem_sel=1 << k, init_value=int(rng.integers(0, 2)), max_value=2))
            for th, k in ((0, 0), (1, 1), (2, 2))]
    for _ in range(n):
        r = rng.random()
        thread = int(rng.integers(0, 3))
        if r < 0.75:
            acts.append(("push", thread, word(thread)))
        elif r < 0.82:  # BRISC pushes after the MOP expander
            acts.append(("brisc", thread, word(thread)))
        elif r < 0.87:  # a MOP of a few of the above (MopCfg as the thread's TRISC wrote it)
            cfg = [int(rng.integers(1, 3)), int(rng.integers(0, 3))] + [word(thread) for _ in range(7)]
            acts.append(("cfg", thread, cfg))
            acts.append(("push", thread, t.encode("MOP", mop_type=1, loop_count=0, **{_lo(arch): 0})))
        elif r < 0.93:  # a RISC-V write to a Tensix semaphore (odd: get, even: post)
            acts.append(("sem", thread, int(rng.integers(0, 3)), int(rng.integers(0, 2))))
        else:
            acts.append(("kick",))
    return acts


def _lo(arch):
    return "zmask_lo16_or_loop_count" if arch == "blackhole" else "zmask_lo16"


def _play(arch, seed, fast):
    rng = np.random.default_rng(seed)
    tile = Tile(arch)
    MS.prepare(tile, rng)
    cop = tile.tensix
    cop.fast_push = fast
    issued = []
    orig = cop.dispatch_entry

    def entry(word):
        spec, handler, args, kwargs, fence = orig(word)
        if handler is not None:
            def logged(t, *a, __h=handler, **k):
                issued.append((t.index, t.word, t.origin, cop.pass_start))
                return __h(t, *a, **k)
            cop.dispatch[word] = (spec, logged, args, kwargs, fence)
        return cop.dispatch[word]

    cop.dispatch_entry = entry
    error = None
    fast_lane = [0]
    lane = cop._issue_pushed

    def counted(t, item):
        fast_lane[0] += 1
        return lane(t, item)

    cop._issue_pushed = counted
    try:
        for act in _script(arch, np.random.default_rng(seed + 1)):
            if act[0] == "kick":
                cop.kick()
            elif act[0] == "cfg":
                cop.threads[act[1]].mop.cfg[:] = act[2]
            elif act[0] == "sem":
                _, core, k, odd = act
                addr = SEM_WINDOW + 4 * k
                tile.router.lookup(addr)[1].write(f"trisc{core}", addr, 4, odd)
            else:
                kind, thread, word = act
                core, addr = (f"trisc{thread}", PUSH) if kind == "push" else ("brisc", PUSH + 0x10000 * thread)
                for _ in range(4):
                    if cop.push_from_core(core, addr, word, f"mmio 0x{addr:08x}"):
                        break
                    cop.kick()  # (a full FIFO: the core retries after a round)
        cop.kick()
    except TtemuError as e:
        error = f"{type(e).__name__}: {e}"
    threads = [(t.held, t.held_reason, t.pushed, t.issued, t.held_steps, t.fed, [w for w, _ in t.fifo],
                [w for w, _ in t.mid], t.mop.active is None, t.replay.play_left, t.gate.opcode, t.gate.block_mask,
                t.gate.cond_mask, t.fpu_fence, t.word, t.origin) for t in cop.threads]
    state = dict(issued=issued, error=error, threads=threads, epoch=cop.epoch, pass_start=cop.pass_start,
                 prefer=cop.prefer_after_release, sems=[(s.value, s.max) for s in cop.sync.semaphores],
                 mutex=dict(cop.sync.mutex_holder), gprs=[list(cop.gprs[i]) for i in range(3)],
                 src=cop.src.ownership(), unfinished=cop.unfinished(), warnings=list(tile.warnings))
    return state, fast_lane[0], tile


@settings(max_examples=120, deadline=None)
@given(arch=st.sampled_from(["wormhole_b0", "blackhole"]), seed=st.integers(0, 2**31))
def test_fast_lane_matches_the_general_path(arch, seed):
    got, lane, tile = _play(arch, seed, True)
    want, none, _ = _play(arch, seed, False)
    assert none == 0
    for key in want:
        assert got[key] == want[key], key
    MS.assert_same(MS.state(tile), MS.state(_play(arch, seed, False)[2]))


@pytest.mark.parametrize("arch", ["wormhole_b0", "blackhole"])
def test_fast_lane_is_taken_and_streams_interleave(arch):
    """The random streams exercise the fast lane and the general path both (so the
    comparison above compares something): most pushes take the lane, some find another
    thread with work or a word held, and some instructions are held."""
    lanes = pushes = holds = 0
    for seed in range(12):
        state, lane, _ = _play(arch, seed, True)
        lanes += lane
        pushes += sum(t[2] for t in state["threads"])
        holds += sum(1 for t in state["threads"] if t[0] is not None)
    assert 0.2 * pushes < lanes < pushes
    assert holds > 0


def test_fast_push_is_the_class_default_switch():
    assert Coprocessor.fast_push is True
    cop = Tile("wormhole_b0").tensix
    cop.fast_push = False
    nop = get_table("wormhole_b0").encode("NOP")
    called = []
    cop._issue_pushed = lambda t, item: called.append(item)
    assert cop.push_from_core("trisc0", PUSH, nop, "test")
    assert not called and cop.threads[0].issued == 1
