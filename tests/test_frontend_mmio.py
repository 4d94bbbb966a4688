"""RISC-V windows into the frontend: instruction push routing
(BabyRISCV/PushTensixInstruction.md), semaphores through PC_BUF_BASE (SyncUnit.md),
TTSync (TTSync.md), mailboxes (Mailboxes.md)."""

import pytest

from progs import Program, a0, t0, t1, tile_with, tt, word
from ttemu import GuestFault


def test_trisc_store_to_instrn1_hangs_hardware_so_faults():
    p = Program(0x6000)
    p.li(t0, 0xFFE50000)
    p.sw(0, 0, t0)
    p.halt()
    with pytest.raises(GuestFault, match="only RISCV B may push.*hangs trisc0"):
        tile_with({"trisc0": p}).run(max_steps=100)


def test_ncrisc_cannot_push():
    p = Program(0x12000)
    tt(p, "NOP")
    p.halt()
    with pytest.raises(GuestFault, match="ncrisc cannot push"):
        tile_with({"ncrisc": p}).run(max_steps=100)


def test_brisc_pushes_enter_after_the_mop_expander():
    """A MOP pushed by RISCV B is never expanded: it reaches the wait gate."""
    p = Program(0)
    p.li(t0, 0xFFE60000)  # INSTRN2_BUF_BASE: thread T2
    p.li(t1, word("SEMINIT", max_value=3, init_value=2, sem_sel=0x10))
    p.sw(t1, 0, t0)
    p.li(t1, word("MOP", mop_type=1, loop_count=0, zmask_lo16=0))
    p.sw(t1, 0, t0)
    p.halt()
    tile = tile_with({"brisc": p})
    with pytest.raises(GuestFault, match="t2: MOP"):
        tile.run(max_steps=100)
    assert tile.tensix.sync.semaphores[4].value == 2


def test_semaphore_window_read_post_get():
    p = Program(0xA000)
    tt(p, "SEMINIT", max_value=9, init_value=5, sem_sel=1 << 6)
    p.li(t0, 0xFFE80020 + 4 * 6)
    p.lw(a0, 0, t0)  # 5
    p.li(t1, 2)
    p.sw(t1, 0, t0)  # even: post -> 6
    p.sw(t1, 0, t0)  # -> 7
    p.li(t1, 1)
    p.sw(t1, 0, t0)  # odd: get -> 6
    p.lw(t1, 0, t0)
    p.li(t0, 0x30000)
    p.sw(a0, 0, t0)
    p.sw(t1, 4, t0)
    p.halt()
    tile = tile_with({"trisc1": p})
    tile.run(max_steps=1000)
    assert (tile.read_u32(0x30000), tile.read_u32(0x30004)) == (5, 6)


def test_risc_semaphore_write_releases_a_held_thread():
    p = Program(0x6000)
    tt(p, "SEMWAIT", stall_res=2, sem_sel=1, wait_sem_cond=1)
    tt(p, "SEMPOST", sem_sel=4)  # held until sem0 > 0
    p.li(t0, 0xFFE80020)
    p.sw(0, 0, t0)  # RISC-V post of sem0
    p.halt()
    tile = tile_with({"trisc0": p})
    res = tile.run(max_steps=1000)
    assert res.outcome == "halted"
    assert tile.tensix.sync.semaphores[2].value == 1


def test_ttsync_mop_done_does_not_wait_for_execution():
    """MOPExpanderDoneCheck (0xFFE80008) returns once expansion is over, even though
    the expanded instructions still wait at the gate; CoprocessorDoneCheck (+4) would
    block."""
    p = Program(0x6000)
    p.li(t0, 0xFFB80000)
    for i, v in enumerate([1, 2, word("NOP"), word("NOP"), word("NOP"), word("SEMPOST", sem_sel=2),
                           word("NOP"), word("SEMPOST", sem_sel=2), word("SEMPOST", sem_sel=2)]):
        p.li(t1, v)
        p.sw(t1, 4 * i, t0)
    tt(p, "SEMWAIT", stall_res=2, sem_sel=1, wait_sem_cond=1)
    tt(p, "MOP", mop_type=1, loop_count=0, zmask_lo16=0)
    p.li(t0, 0xFFE80008)
    p.sw(0, 0, t0)
    p.lw(t1, 0, t0)
    p.li(t0, 0x30000)
    p.li(t1, 1)
    p.sw(t1, 0, t0)
    p.halt()
    tile = tile_with({"trisc0": p})
    res = tile.run(max_steps=1000)
    # the MOP is expanding (its first instruction is held), so MOP-done blocks too
    assert res.outcome == "hang"
    assert any("waiting for T0's MOP expander" in b for b in res.blocked)


def test_mailbox_blocking_read_and_query():
    b = Program(0)
    b.li(t0, 0xFFEC1000)  # brisc writes region 1: the mailbox to TRISC0
    b.li(t1, 41)
    b.sw(t1, 0, t0)
    b.li(t1, 42)
    b.sw(t1, 0, t0)
    b.halt()
    t = Program(0x6000)
    t.li(t0, 0xFFEC0000)  # trisc0 reads region 0: the mailbox from BRISC
    t.lw(a0, 4, t0)  # query: 1 (data present)
    t.lw(t1, 0, t0)  # 41
    t.li(t0, 0x30000)
    t.sw(a0, 0, t0)
    t.sw(t1, 4, t0)
    t.li(t0, 0xFFEC0000)
    t.lw(t1, 0, t0)  # 42
    t.lw(a0, 4, t0)  # query: 0 (empty)
    t.li(t0, 0x30000)
    t.sw(t1, 8, t0)
    t.sw(a0, 12, t0)
    t.li(t0, 0xFFEC0000)
    t.lw(t1, 0, t0)  # empty: blocks forever
    t.halt()
    tile = tile_with({"brisc": b, "trisc0": t})
    res = tile.run(max_steps=10_000)
    assert [tile.read_u32(0x30000 + 4 * i) for i in range(4)] == [1, 41, 42, 0]
    assert res.outcome == "hang"
    assert "trisc0 blocked reading mailbox 0xffec0000 at pc" in " ".join(res.blocked)


def test_trisc_soft_reset_discards_its_fifo():
    tile = tile_with({"trisc0": Program(0x6000).halt()})
    t = tile.tensix.threads[0]
    tile.tensix.sync.SEMWAIT(t, stall_res=2, sem_sel=1, wait_sem_cond=1)
    t.push(word("SEMPOST", sem_sel=1), "test", after_mop=False)
    t.push(word("SEMPOST", sem_sel=1), "test", after_mop=False)
    tile.tensix.kick()
    assert t.held is not None and len(t.fifo) == 1
    tile.set_soft_reset(tile.soft_reset | (1 << 12))
    assert len(t.fifo) == 0
