"""Wait gate (one per thread): the latched STALLWAIT / SEMWAIT (Blackhole: STREAMWAIT).

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/STALLWAIT.md and
SEMWAIT.md: the latched wait holds every instruction its block mask selects (as the
instruction table says, ``InstrSpec.blocked_by``); once the first held instruction
reaches the gate nothing behind it passes; the latch is forgotten as soon as every
selected condition is met. The coprocessor re-evaluates latches after every issued
instruction and every RISC-V semaphore access, which is how "re-evaluated every cycle"
looks in a synchronous model.

Blackhole's STREAMWAIT (BlackholeA0 STREAMWAIT.md) latches one NoC overlay stream
condition: keep waiting while the selected stream's register (C0: current phase, C1:
messages received; ``ArchSpec.streamwait_regs`` gives their register indices) is below
the target value.

The condition bits are per-arch data (``ArchSpec.stallwait_conditions``): each bit
names a kind and an argument that the coprocessor answers through its busy/ownership
interface (:meth:`ttemu.tensix.coprocessor.Coprocessor.condition`).
"""

from __future__ import annotations

import functools

STALL_ON_ZERO = 1
STALL_ON_MAX = 2


@functools.lru_cache(maxsize=256)
def _bits(mask: int) -> tuple:
    """The indices of the set bits of ``mask``, ascending."""
    return tuple(i for i in range(mask.bit_length()) if (mask >> i) & 1)


class WaitGate:
    def __init__(self):
        self.opcode = None  # None, "STALLWAIT", "SEMWAIT" or "STREAMWAIT"
        self.block_mask = 0
        self.cond_mask = 0
        self.sem_mask = 0
        self.sem_indices = ()  # the semaphores sem_mask selects
        self.stream = (0, 0)  # STREAMWAIT: (StreamSelect, TargetValue)
        self.pending = 0  # STALLWAIT condition bits that held at the latest holds()
        self.checked = None  # the coprocessor's epoch at the latest refresh (see fresh)

    def latch_stallwait(self, block_mask: int, cond_mask: int) -> None:
        self.opcode = "STALLWAIT"
        self.block_mask = block_mask
        self.cond_mask = cond_mask
        self.sem_mask = 0

    def latch_semwait(self, block_mask: int, sem_mask: int, cond_mask: int) -> None:
        self.opcode = "SEMWAIT"
        self.block_mask = block_mask
        self.cond_mask = cond_mask
        self.sem_mask = sem_mask
        self.sem_indices = _bits(sem_mask)

    def latch_streamwait(self, block_mask: int, cond_index: int, target: int, stream_select: int) -> None:
        self.opcode = "STREAMWAIT"
        self.block_mask = block_mask
        self.cond_mask = 1 << cond_index
        self.sem_mask = 0
        self.stream = (stream_select, target)

    def _stream_value(self, cop, thread) -> int:
        index = cop.arch.streamwait_regs[self.cond_mask >> 1]
        return cop.stream_reg(thread, self.stream[0], index)

    def release(self) -> None:
        self.opcode = None

    def waiting(self, cop, thread) -> list:
        """The selected conditions that still say "keep waiting" (empty: met)."""
        self.holds(cop, thread)
        return _waiting(cop.arch, self.hold_state(cop))

    def hold_state(self, cop) -> tuple:
        """The latched wait as the latest :meth:`holds` found it, captured for
        :func:`describe_state` to word later (a held instruction's reason is only
        formatted when someone reads it): the opcode, the condition mask, and for
        SEMWAIT the selected semaphores' ``(index, value, max)``, for STALLWAIT the mask
        of selected condition bits that still held."""
        if self.opcode == "SEMWAIT":
            sems = cop.sync.semaphores
            n = len(sems)
            return ("SEMWAIT", self.cond_mask, tuple([(i, sems[i].value, sems[i].max) for i in self.sem_indices
                                                      if i < n]))
        if self.opcode == "STREAMWAIT":
            return ("STREAMWAIT", self.cond_mask, (self.stream[0], self.pending, self.stream[1]))
        return (self.opcode, self.cond_mask, self.pending)

    def holds(self, cop, thread) -> bool:
        """``bool(self.waiting(cop, thread))`` without describing the conditions."""
        if self.opcode == "SEMWAIT":
            sems = cop.sync.semaphores
            n = len(sems)
            on_zero = self.cond_mask & STALL_ON_ZERO
            on_max = self.cond_mask & STALL_ON_MAX
            for i in self.sem_indices:
                if i < n:
                    sem = sems[i]
                    if (on_zero and sem.value == 0) or (on_max and sem.value >= sem.max):
                        return True
            return False
        if self.opcode == "STALLWAIT":
            pending = 0
            # every selected one that can hold (a busy query may settle a unit)
            for bit, kind, arg in cop.stall_checks(self.cond_mask):
                if cop.condition(thread, kind, arg):
                    pending |= 1 << bit
            self.pending = pending  # for hold_state
            return pending != 0
        if self.opcode == "STREAMWAIT":
            self.pending = self._stream_value(cop, thread)  # for hold_state
            return self.pending < self.stream[1]
        return False

    def semwait_recheck(self, cop):
        """A latched SEMWAIT: :meth:`refresh` and, while it still holds, :meth:`hold_state`
        in one pass over the selected semaphores (-> the state, or None: released)."""
        sems = cop.sync.semaphores
        n = len(sems)
        self.checked = cop.epoch
        cond = self.cond_mask
        indices = self.sem_indices
        if len(indices) == 1 and indices[0] < n:  # one semaphore (the common case): no loops
            i = indices[0]
            sem = sems[i]
            value = sem.value
            top = sem.max
            if (cond & STALL_ON_ZERO and value == 0) or (cond & STALL_ON_MAX and value >= top):
                return ("SEMWAIT", cond, ((i, value, top),))
            self.opcode = None
            return None
        snap = tuple([(i, sems[i].value, sems[i].max) for i in indices if i < n])
        on_zero = cond & STALL_ON_ZERO
        on_max = cond & STALL_ON_MAX
        for _, value, top in snap:
            if (on_zero and value == 0) or (on_max and value >= top):
                return ("SEMWAIT", cond, snap)
        self.opcode = None
        return None

    def refresh(self, cop, thread, blocked: bool = False) -> None:
        """Forget the latched wait if its conditions are all met now. A latched
        STREAMWAIT is only evaluated while an instruction waits at this gate (``blocked``:
        one just arrived; or the thread holds one): until then nothing observable depends
        on it, and its NoC overlay stream registers are read only when something does."""
        if self.opcode == "STREAMWAIT" and not blocked and cop.threads[thread].held is None:
            return
        if self.opcode is not None:
            if not self.holds(cop, thread):
                self.opcode = None
            self.checked = cop.epoch

    def fresh(self, cop) -> bool:
        """Was the latched wait evaluated since the coprocessor's epoch last moved on
        (evaluating it again would find the same)? A STREAMWAIT never is: its stream
        registers change without the coprocessor seeing it."""
        return self.checked == cop.epoch and self.opcode != "STREAMWAIT"

    def describe(self, cop, thread) -> str:
        return f"{self.opcode} " + ", ".join(self.waiting(cop, thread))


def _waiting(arch, state) -> list:
    opcode, cond_mask, snap = state
    out = []
    if opcode == "SEMWAIT":
        for i, value, top in snap:
            if cond_mask & STALL_ON_ZERO and value == 0:
                out.append(f"sem{i} STALL_ON_ZERO (value {value}, max {top})")
            if cond_mask & STALL_ON_MAX and value >= top:
                out.append(f"sem{i} STALL_ON_MAX (value {value}, max {top})")
    elif opcode == "STREAMWAIT":
        select, value, target = snap
        what = "current phase" if cond_mask == 1 else "messages received"
        if value < target:
            out.append(f"C{cond_mask >> 1} stream select {select} {what} {value} < {target}")
    elif opcode == "STALLWAIT":
        for bit, _, _, label in arch.stallwait_conditions:
            if (snap >> bit) & 1:
                out.append(f"C{bit} {label}")
    return out


def describe_state(arch, state) -> str:
    """:meth:`WaitGate.describe`'s words for a state :meth:`WaitGate.hold_state` captured."""
    return f"{state[0]} " + ", ".join(_waiting(arch, state))
