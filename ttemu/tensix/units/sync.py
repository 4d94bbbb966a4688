"""Sync Unit: semaphores, mutexes, and the latching of STALLWAIT / SEMWAIT.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/SyncUnit.md, SEMINIT.md,
SEMPOST.md, SEMGET.md, SEMWAIT.md, STALLWAIT.md, ATGETM.md, ATRELM.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import Unit, Wait, op

#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset()
#: Blackhole-only instructions of this unit, not implemented.
PENDING_BLACKHOLE = frozenset({
    'STREAMWAIT'
})


#: Mutex indices that exist (SyncUnit.md: index 0 and 2..7; 1 and >7 wait forever).
MUTEXES = (0, 2, 3, 4, 5, 6, 7)


@dataclass
class Semaphore:
    value: int = 0  # uint4
    max: int = 0  # uint4


class SyncUnit(Unit):
    name = "sync"

    def __init__(self, cop):
        self.cop = cop
        self.semaphores = [Semaphore() for _ in range(8)]
        self.mutex_holder = {i: None for i in MUTEXES}

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

    # -- mutexes --------------------------------------------------------------------
    def _bad_index(self, mnemonic, index):
        """ATGETM.md / ATRELM.md: an invalid index (1, or > 7) waits forever."""
        if index not in self.mutex_holder:
            return Wait(f"mutex {index}, which does not exist (indices 0 and 2-7; {mnemonic}.md: an invalid "
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
