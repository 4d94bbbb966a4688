"""Sync Unit: semaphores, mutexes, and the latching of STALLWAIT / SEMWAIT.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/SyncUnit.md, SEMINIT.md,
SEMPOST.md, SEMGET.md, SEMWAIT.md, STALLWAIT.md, ATGETM.md, ATRELM.md; Blackhole:
BlackholeA0/TensixTile/TensixCoprocessor/ pages of the same names (four mutexes, STALLWAIT's
13 condition bits with default 0x0F, SEMWAIT blocked by every block bit) and STREAMWAIT.md.
Arch differences are data: ``ArchSpec.mutexes``, ``stallwait_conditions``,
``stallwait_default``, ``streamwait_regs`` and the instruction table's block masks.
"""

from __future__ import annotations

from ...record import Record
from . import Unit, Wait, op

#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset()
#: Blackhole-only instructions of this unit, not implemented.
PENDING_BLACKHOLE = frozenset()


class Semaphore(Record):
    value: int = 0  # uint4
    max: int = 0  # uint4


class SyncUnit(Unit):
    name = "sync"

    def __init__(self, cop):
        self.cop = cop
        self.semaphores = [Semaphore() for _ in range(8)]
        # mutex indices that exist (ATGETM.md: Wormhole 0 and 2..7, Blackhole 0 and 2..4;
        # any other index waits forever)
        self.mutex_holder = {i: None for i in cop.arch.mutexes}

    # -- semaphores -----------------------------------------------------------------
    @op
    def SEMINIT(self, t, max_value, init_value, sem_sel):
        for i, sem in enumerate(self.semaphores):
            if (sem_sel >> i) & 1:
                sem.value = init_value
                sem.max = max_value

    @op
    def SEMPOST(self, t, sem_sel):
        self.post(sem_sel)

    @op
    def SEMGET(self, t, sem_sel):
        self.get(sem_sel)

    def post(self, mask: int) -> None:
        for i, sem in enumerate(self.semaphores):
            if (mask >> i) & 1 and sem.value < 15:
                sem.value += 1

    def get(self, mask: int) -> None:
        for i, sem in enumerate(self.semaphores):
            if (mask >> i) & 1 and sem.value > 0:
                sem.value -= 1

    # -- waits ----------------------------------------------------------------------
    @op
    def STALLWAIT(self, t, stall_res, wait_res):
        t.gate.latch_stallwait(stall_res or (1 << 6), wait_res or self.cop.arch.stallwait_default)

    @op
    def SEMWAIT(self, t, stall_res, sem_sel, wait_sem_cond):
        block = stall_res or (1 << 6)
        if wait_sem_cond:
            t.gate.latch_semwait(block, sem_sel, wait_sem_cond)
        else:  # SEMWAIT.md: a zero condition mask latches STALLWAIT's default wait
            t.gate.latch_stallwait(block, self.cop.arch.stallwait_default)

    @op
    def STREAMWAIT(self, t, stall_res, target_value, target_sel, wait_stream_sel):
        """STREAMWAIT.md (BlackholeA0): latch a wait on one NoC overlay stream condition.
        TargetValue = ThreadConfig STREAMWAIT_PHASE_HI_Val (C0) or
        STREAMWAIT_NUM_MSGS_HI_Val (C1) << 10 | TargetValueLo; a zero block mask means
        B6. Fields: stall_res = BlockMask, target_value = TargetValueLo, target_sel =
        ConditionIndex, wait_stream_sel = StreamSelect (assembly.yaml gives it bits 2:0;
        the page's u2: bit 2 is ignored)."""
        hi = self.cop.config.thread_get(t.index, "STREAMWAIT_NUM_MSGS_HI_Val" if target_sel
                                        else "STREAMWAIT_PHASE_HI_Val")
        t.gate.latch_streamwait(stall_res or (1 << 6), target_sel, hi << 10 | target_value & 0x3FF,
                                wait_stream_sel & 3)

    # -- mutexes --------------------------------------------------------------------
    def _bad_index(self, mnemonic, index):
        """ATGETM.md / ATRELM.md: an invalid index (1, or beyond the arch's mutexes)
        waits forever."""
        if index not in self.mutex_holder:
            valid = ", ".join(str(i) for i in self.mutex_holder)
            return Wait(f"mutex {index}, which does not exist (indices {valid}; {mnemonic}.md: an invalid "
                        "index waits forever)")
        return None

    @op
    def ATGETM(self, t, mutex_index):
        bad = self._bad_index("ATGETM", mutex_index)
        if bad is not None:
            return bad
        holder = self.mutex_holder[mutex_index]
        if holder is not None and holder != t.index:
            return Wait(f"mutex {mutex_index} held by t{holder}")
        self.mutex_holder[mutex_index] = t.index
        return None

    @op
    def ATRELM(self, t, mutex_index):
        bad = self._bad_index("ATRELM", mutex_index)
        if bad is not None:
            return bad
        if self.mutex_holder[mutex_index] == t.index:
            self.mutex_holder[mutex_index] = None
            # ATRELM.md: with both other threads waiting, thread (i + 1) % 3 acquires.
            self.cop.prefer_after_release = (t.index + 1) % 3
