"""Wait gate and Sync Unit: tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/
STALLWAIT.md, SEMWAIT.md, SyncUnit.md, SEMINIT/SEMPOST/SEMGET/ATGETM/ATRELM.md, and
the LLK patterns of seed 002."""

from tensix_harness import make
from ttemu.isa.table import get_table

WH = get_table("wormhole_b0")


def test_seminit_post_get_saturate():
    tile, issue = make()
    issue(0, "SEMINIT", max_value=3, init_value=14, sem_sel=0b101)
    sems = tile.tensix.sync.semaphores
    assert (sems[0].value, sems[0].max, sems[2].value, sems[1].value) == (14, 3, 14, 0)
    issue(0, "SEMPOST", sem_sel=0b101)
    issue(0, "SEMPOST", sem_sel=0b001)
    assert (sems[0].value, sems[2].value) == (15, 15)  # saturates at 15
    for _ in range(20):
        issue(1, "SEMGET", sem_sel=0b100)
    assert sems[2].value == 0  # stops at 0


def test_stallwait_defaults_wormhole():
    """STALLWAIT.md: a zero block mask means B6, a zero condition mask means 0x7F
    (seed 002 gives 0x0F: that is Blackhole's, see test_stallwait_defaults_blackhole)."""
    tile, issue = make()
    t = issue(0, "STALLWAIT", stall_res=0, wait_res=0)
    # conditions are met at once in a synchronous model, so the latch is gone...
    assert t.gate.opcode is None
    # ...but the values it latched are the documented defaults
    t.gate.latch_stallwait(0, 0)
    tile.tensix.sync.STALLWAIT(t, stall_res=0, wait_res=0)
    assert (t.gate.block_mask, t.gate.cond_mask) == (0x40, 0x7F)


def test_stallwait_defaults_blackhole():
    tile, issue = make("blackhole")
    t = tile.tensix.threads[0]
    tile.tensix.sync.STALLWAIT(t, stall_res=0, wait_res=0)
    assert (t.gate.block_mask, t.gate.cond_mask) == (0x40, 0x0F)


def test_semwait_zero_condition_latches_stallwait_default():
    tile, issue = make()
    t = tile.tensix.threads[0]
    tile.tensix.sync.SEMWAIT(t, stall_res=0, sem_sel=1, wait_sem_cond=0)
    assert (t.gate.opcode, t.gate.cond_mask, t.gate.block_mask) == ("STALLWAIT", 0x7F, 0x40)


def test_semwait_holds_only_selected_classes_until_posted():
    tile, issue = make()
    sems = tile.tensix.sync.semaphores
    issue(1, "SEMINIT", max_value=2, init_value=0, sem_sel=0b10)
    # block Sync Unit instructions (B1) until sem1 > 0
    t1 = issue(1, "SEMWAIT", stall_res=0x2, sem_sel=0b10, wait_sem_cond=1)
    assert t1.gate.opcode == "SEMWAIT"
    issue(1, "NOP")  # not selected (NOP needs all nine bits): passes
    assert t1.held is None and t1.issued == 3
    t1 = issue(1, "SEMPOST", sem_sel=0b1000)  # selected: held
    assert t1.held is not None and "sem1 STALL_ON_ZERO (value 0, max 2)" in t1.held_reason
    issue(1, "NOP")  # behind the held instruction: nothing passes
    assert t1.issued == 3 and sems[3].value == 0
    # another thread posts sem1: the latch is released, both instructions run
    issue(2, "SEMPOST", sem_sel=0b10)
    assert t1.held is None and t1.gate.opcode is None
    assert sems[3].value == 1 and t1.issued == 5


def test_nop_blocked_only_when_all_block_bits_set():
    tile, issue = make()
    t = issue(0, "SEMWAIT", stall_res=0x1FE, sem_sel=1, wait_sem_cond=1)
    t = issue(0, "NOP")
    assert t.held is None
    t = issue(0, "SEMWAIT", stall_res=0x1FF, sem_sel=1, wait_sem_cond=1)
    t = issue(0, "NOP")
    assert t.held is not None


def test_latch_released_when_condition_met_even_without_a_blocked_instruction():
    """The gate re-evaluates every cycle: a SEMWAIT whose condition is met at once is
    forgotten, so a later change of the semaphore does not re-arm it."""
    tile, issue = make()
    issue(0, "SEMINIT", max_value=1, init_value=1, sem_sel=1)
    t0 = issue(0, "SEMWAIT", stall_res=2, sem_sel=1, wait_sem_cond=1)  # sem0 is 1: met
    issue(1, "SEMGET", sem_sel=1)  # sem0 -> 0
    t0 = issue(0, "SEMPOST", sem_sel=2)  # a sync instruction, would be blocked by B1
    assert t0.held is None


def test_math_pack_handshake_seed002_pattern4():
    """Seed 002 pattern 4: math waits for room (STALL_ON_MAX), posts; pack waits for
    data (STALL_ON_ZERO), gets."""
    tile, issue = make()
    issue(1, "SEMINIT", max_value=2, init_value=0, sem_sel=0b10)
    sem1 = tile.tensix.sync.semaphores[1]
    for _ in range(2):  # math produces two tiles: fills Dst halves
        issue(1, "SEMWAIT", stall_res=0x142, sem_sel=0b10, wait_sem_cond=2)
        issue(1, "SEMPOST", sem_sel=0b10)
    assert sem1.value == 2
    t1 = issue(1, "SEMWAIT", stall_res=0x142, sem_sel=0b10, wait_sem_cond=2)
    t1 = issue(1, "SEMPOST", sem_sel=0b10)  # third tile: no room, held
    assert t1.held is not None and "STALL_ON_MAX (value 2, max 2)" in t1.held_reason
    issue(2, "SEMWAIT", stall_res=0x1, sem_sel=0b10, wait_sem_cond=1)
    issue(2, "SEMGET", sem_sel=0b10)  # pack consumes one
    assert t1.held is None  # math's held SEMPOST went through
    assert sem1.value == 2


def test_mutex_exclusion_and_release_order():
    tile, issue = make()
    issue(0, "ATGETM", mutex_index=3)
    t1 = issue(1, "ATGETM", mutex_index=3)
    t2 = issue(2, "ATGETM", mutex_index=3)
    assert t1.held is not None and t2.held is not None and "held by t0" in t1.held_reason
    issue(0, "ATRELM", mutex_index=3)
    # ATRELM.md: released by t0 with both others waiting -> t1 gets it
    assert tile.tensix.sync.mutex_holder[3] == 1 and t1.held is None and t2.held is not None
    issue(1, "ATRELM", mutex_index=3)
    assert tile.tensix.sync.mutex_holder[3] == 2


def test_atrelm_by_non_holder_changes_nothing():
    tile, issue = make()
    issue(0, "ATGETM", mutex_index=0)
    issue(1, "ATRELM", mutex_index=0)
    assert tile.tensix.sync.mutex_holder[0] == 0


def test_mutex_one_does_not_exist():
    """SyncUnit.md: seven mutexes (0, 2..7); index 1 waits forever on hardware. (The
    issue text says eight: the ISA documentation wins.)"""
    tile, issue = make()
    t = issue(0, "ATGETM", mutex_index=1)
    assert t.held is not None and "mutex 1, which does not exist" in t.held_reason
    tile.tensix.step()
    assert t.held is not None and not tile.diagnostics.sites  # documented: not a warning
    t = issue(1, "ATRELM", mutex_index=9)
    assert t.held is not None and "waits forever" in t.held_reason


def test_semwait_block_mask_bits_follow_stallwait_table():
    """STALLWAIT.md's table: SEMWAIT is held by B1 only, STALLWAIT by every bit (seed
    002 says SEMWAIT is held by any bit: the ISA documentation wins)."""
    assert WH.spec("SEMWAIT").block_mask == 0x002
    assert WH.spec("STALLWAIT").block_mask == 0x1FF


def test_held_reason_words_the_state_at_the_hold():
    """The reason is worded when read, from values captured when the instruction was
    held: a semaphore that changes afterwards (no re-evaluation yet) does not change it."""
    tile, issue = make()
    sems = tile.tensix.sync.semaphores
    issue(1, "SEMINIT", max_value=2, init_value=0, sem_sel=0b10)
    issue(1, "SEMWAIT", stall_res=0x2, sem_sel=0b10, wait_sem_cond=1)
    t1 = issue(1, "SEMPOST", sem_sel=0b1000)
    assert t1.held is not None
    sems[1].value = 1  # changed behind the gate's back: not re-evaluated yet
    assert t1.held_reason == ("held at SEMWAIT sem1 STALL_ON_ZERO (value 0, max 2): "
                              f"{WH.disasm(t1.held[0])} waits")
    assert "ttsempost" in t1.held_reason


def test_busy_conditions_ask_only_units_that_can_be_busy():
    """Coprocessor.condition / any_unit_busy skip units that answer busy as Unit does
    (always False, doing nothing): the answers are those of asking every unit, with the
    Vector Unit busy while an SFPLOADMACRO's scheduled work is outstanding (STALLWAIT C14
    holds) and not after."""
    from test_unit_sfpu_macro import loadmacro, mad_store_setup, nop
    from test_unit_sfpu import setup as sfpu_setup

    tile, issue, u = sfpu_setup()
    cop = tile.tensix
    mad_store_setup(tile, issue, mad_delay=0, store_delay=3, delay_kind=0b1000)
    loadmacro(issue, 0, vd=1)

    def every(thread, name=None):
        return any(v.busy(thread) for v in cop.units if name is None or v.name == name)

    for thread in range(3):
        for name in sorted({v.name for v in cop.units}):
            assert cop.condition(thread, "busy", name) == every(thread, name), (thread, name)
        assert cop.any_unit_busy(thread) == every(thread)
    assert cop.condition(0, "busy", "sfpu") and not cop.condition(1, "busy", "sfpu")
    assert not cop.condition(0, "busy", "math")
    nop(issue, 3)
    assert not cop.condition(0, "busy", "sfpu") and not cop.any_unit_busy(0)
