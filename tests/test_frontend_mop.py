"""MOP expander: the functional model of tt-isa-documentation
WormholeB0/TensixTile/TensixCoprocessor/MOPExpander.md (and seed 000), driven end to
end: a TRISC programs MopCfg through 0xFFB80000, pushes MOP_CFG / MOP as .ttinsn, and
the instructions that reach the backend are read from the issue trace."""

import io

import pytest

from progs import Program, t0, t1, tile_with, tt, word
from ttemu import GuestFault
from ttemu.tensix.frontend.mop import expand_template0, expand_template1, is_nop, template1_counts
from ttemu.trace import Tracer

NOP = word("NOP")
DMANOP = word("DMANOP")
SFPNOP = word("SFPNOP")


def post(k):
    """A distinguishable instruction: SEMPOST of semaphore mask k (k in 1..255)."""
    return word("SEMPOST", sem_sel=k)


def run_trisc0(build, stages=("issue",)):
    """Run a TRISC0 program built by build(p); return (tile, issued Tensix words)."""
    p = Program(0x6000)
    build(p)
    p.halt()
    tile = tile_with({"trisc0": p})
    out = io.StringIO()
    tile.tracer = Tracer(out, tile, stages)
    res = tile.run(max_steps=100_000)
    tile.tracer.close()
    words = [int(ln.split()[3], 16) for ln in out.getvalue().splitlines() if ln.startswith("tensix t0 issue")]
    return tile, res, words


def program_cfg(p, cfg):
    p.li(t0, 0xFFB80000)
    for i, v in enumerate(cfg):
        p.li(t1, v)
        p.sw(t1, 4 * i, t0)


def test_is_nop_only_plain_nop():
    assert is_nop(NOP)
    assert not is_nop(DMANOP) and not is_nop(SFPNOP)


def test_template0_mask_selects_a_or_skip():
    # Flags = HasB | HasA123; mask 0b0110 over 4 iterations -> A,skip,skip,A
    cfg = [0, 3, post(1), post(2), post(3), post(4), post(5), post(6), post(7)]
    b, a0, a1, a2, a3, sa, sb = (post(k) for k in (1, 2, 3, 4, 5, 6, 7))
    got = list(expand_template0(0b0110, 3, cfg))
    assert got == [a0, a1, a2, a3, b, sa, sb, sa, sb, a0, a1, a2, a3, b]


def test_template0_end_to_end_with_mop_cfg_high_mask():
    # 18 iterations; bit 17 of the 32-bit mask comes from MOP_CFG's MaskHi (bit 1).
    cfg = [0, 0, NOP, post(2), NOP, NOP, NOP, post(6), NOP]

    def build(p):
        program_cfg(p, cfg)
        tt(p, "MOP_CFG", zmask_hi16=0b10)
        tt(p, "MOP", mop_type=0, loop_count=17, zmask_lo16=0b1)

    _, res, words = run_trisc0(build)
    assert res.outcome == "halted"
    expected = [post(6)] + [post(2)] * 16 + [post(6)]
    assert words == expected


def test_template1_double_loop():
    start, end0, end1, loop, l0last, l1last = (post(k) for k in (1, 2, 3, 4, 5, 6))
    cfg = [2, 3, start, end0, end1, loop, NOP, l0last, l1last]
    got = list(expand_template1(cfg))
    assert got == [start, loop, loop, l1last, end0, end1, start, loop, loop, l0last, end0, end1]


def test_template1_loopop1_alternates_and_doubles_inner_count():
    a, b, last0, last1 = post(0x11), post(0x22), post(0x40), post(0x80)
    cfg = [1, 2, NOP, NOP, NOP, a, b, last0, last1]
    assert list(expand_template1(cfg)) == [a, b, a, last0]
    cfg = [2, 1, NOP, NOP, NOP, a, b, last0, last1]
    assert list(expand_template1(cfg)) == [a, last1, a, last0]


def test_template1_end_op1_skipped_when_end_op0_is_nop():
    cfg = [1, 1, NOP, NOP, post(3), post(4), NOP, post(5), post(6)]
    assert list(expand_template1(cfg)) == [post(5)]


def test_template1_hardware_bug_outer_plus_128():
    # OuterCount == 1, StartOp NOP, InnerCount == 0, EndOp0 not NOP -> 129 outer iterations
    cfg = [1, 0, NOP, post(2), post(3), post(4), NOP, post(5), post(6)]
    assert template1_counts(cfg)[0] == 129
    got = list(expand_template1(cfg))
    assert got == [post(2), post(3)] * 129


def test_template1_counts_use_low_seven_bits():
    cfg = [0x181, 0x102, NOP, NOP, NOP, post(1), NOP, post(2), post(3)]
    assert template1_counts(cfg)[:2] == (1, 2)


def test_dmanop_and_sfpnop_are_not_skipped_as_start_op():
    cfg = [1, 1, DMANOP, SFPNOP, NOP, post(1), NOP, post(2), post(3)]
    assert list(expand_template1(cfg)) == [DMANOP, post(2), SFPNOP]


def test_template1_end_to_end_and_mop_stage_trace():
    cfg = [2, 2, NOP, post(8), NOP, post(1), NOP, post(2), post(4)]

    def build(p):
        program_cfg(p, cfg)
        tt(p, "MOP", mop_type=1, loop_count=0, zmask_lo16=0)

    tile, res, words = run_trisc0(build)
    assert words == [post(1), post(4), post(8), post(1), post(2), post(8)]
    # semaphores 0..3 each saturate-count their posts
    assert [s.value for s in tile.tensix.sync.semaphores[:4]] == [2, 1, 1, 2]
    assert tile.tensix.threads[0].pushed == 1 and tile.tensix.threads[0].issued == 6


def test_mopcfg_sampled_at_expansion_start_and_write_during_expansion_warns():
    # Hold the expansion at the gate (SEMWAIT on sem 7, zero), rewrite MopCfg, then release.
    cfg = [1, 3, NOP, NOP, NOP, post(1), NOP, post(1), post(1)]

    def build(p):
        program_cfg(p, cfg)
        tt(p, "SEMWAIT", stall_res=2, sem_sel=0x80, wait_sem_cond=1)  # blocks sync instructions
        tt(p, "MOP", mop_type=1, loop_count=0, zmask_lo16=0)
        p.li(t0, 0xFFB80000)
        p.li(t1, 9)
        p.sw(t1, 4, t0)  # InnerCount := 9 while the expansion waits
        p.li(t0, 0xFFE80020 + 4 * 7)
        p.sw(0, 0, t0)  # RISC-V SEMPOST of semaphore 7 releases the gate

    tile, res, words = run_trisc0(build)
    assert words.count(post(1)) == 3  # the expansion kept InnerCount = 3
    assert any("MopCfg[1]" in w for w in tile.warnings)


def test_mopcfg_read_is_a_guest_fault():
    p = Program(0x6000)
    p.li(t0, 0xFFB80000)
    p.lw(t1, 0, t0)
    p.halt()
    tile = tile_with({"trisc0": p})
    with pytest.raises(GuestFault, match="write-only"):
        tile.run(max_steps=100)


def test_brisc_cannot_reach_mop_cfg():
    p = Program(0x0)
    p.li(t0, 0xFFB80000)
    p.sw(0, 0, t0)
    p.halt()
    tile = tile_with({"brisc": p})
    with pytest.raises(GuestFault, match="only for TRISC"):
        tile.run(max_steps=100)
