"""Replay expander: tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/REPLAY.md
(and seed 000): record with and without Exec, playback, wrap-around mod 32, Count 0
meaning 64, composition with the MOP expander, and a replayed MOP being refused."""

import pytest

from tensix_harness import make, push_word
from test_frontend_mop import NOP, post, program_cfg, run_trisc0
from progs import tt, word
from ttemu import GuestFault
from ttemu.tensix.frontend.replay import ReplayExpander


def replay(index, count, exec_, load):
    return word("REPLAY", start_idx=index, len=count, execute_while_loading=exec_, load_mode=load)


def sems(tile):
    return [s.value for s in tile.tensix.sync.semaphores]


def test_record_with_exec_then_playback():
    def build(p):
        tt(p, "REPLAY", start_idx=0, len=2, execute_while_loading=1, load_mode=1)
        tt(p, "SEMPOST", sem_sel=1)
        tt(p, "SEMPOST", sem_sel=2)
        tt(p, "REPLAY", start_idx=0, len=2, execute_while_loading=0, load_mode=0)
        tt(p, "REPLAY", start_idx=1, len=1, execute_while_loading=0, load_mode=0)

    tile, res, words = run_trisc0(build)
    assert words == [post(1), post(2), post(1), post(2), post(2)]
    assert sems(tile)[:2] == [2, 3]


def test_record_without_exec_executes_nothing():
    def build(p):
        tt(p, "REPLAY", start_idx=5, len=2, execute_while_loading=0, load_mode=1)
        tt(p, "SEMPOST", sem_sel=1)
        tt(p, "SEMPOST", sem_sel=2)

    tile, res, words = run_trisc0(build)
    assert words == []
    assert tile.tensix.threads[0].replay.buffer[5][0] == post(1)
    assert tile.tensix.threads[0].replay.buffer[6][0] == post(2)


def test_index_wraps_mod_32():
    r = ReplayExpander()
    assert r.take((replay(30, 4, 0, 1), "t")) is None
    for k in range(4):
        assert r.take((post(k + 1), "t")) is None
    assert [r.buffer[i][0] for i in (30, 31, 0, 1)] == [post(1), post(2), post(3), post(4)]
    assert r.take((replay(30, 4, 0, 0), "t")) is None
    assert [r.playback()[0] for _ in range(4)] == [post(1), post(2), post(3), post(4)]
    assert r.playback() is None


def test_count_zero_means_64():
    r = ReplayExpander()
    for i in range(32):
        r.buffer[i] = (post(i % 8 + 1), "t")
    r.take((replay(0, 0, 0, 0), "t"))
    out = []
    while (item := r.playback()) is not None:
        out.append(item[0])
    assert len(out) == 64
    assert out[:32] == out[32:]


def test_mop_loop_body_is_a_replay():
    """Seed 000's matmul pattern: record a body, then MOP template 1 whose LoopOp is
    REPLAY, so one MOP expands twice (MOP, then replay)."""
    body = [post(1), post(2), post(4)]
    cfg = [1, 4, NOP, NOP, NOP, replay(16, 3, 0, 0), NOP, post(8), NOP]

    def build(p):
        tt(p, "REPLAY", start_idx=16, len=3, execute_while_loading=0, load_mode=1)
        for w in body:
            p.word(((w << 2) | (w >> 30)) & 0xFFFFFFFF)
        program_cfg(p, cfg)
        tt(p, "MOP", mop_type=1, loop_count=0, zmask_lo16=0)

    tile, res, words = run_trisc0(build, stages=("issue", "mop", "replay"))
    assert words == body * 3 + [post(8)]
    t0 = tile.tensix.threads[0]
    assert t0.pushed == 5 and t0.issued == 10  # amplification: 1 MOP -> 10 instructions


def test_replayed_mop_reaches_the_gate_and_is_refused():
    tile, issue = make()
    push_word(tile, 0, replay(0, 1, 0, 1))
    push_word(tile, 0, word("MOP", mop_type=1, loop_count=0, zmask_lo16=0))
    with pytest.raises(GuestFault, match="must pass the MOP expander"):
        push_word(tile, 0, replay(0, 1, 0, 0))
