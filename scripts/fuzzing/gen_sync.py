"""Semaphores, the mutex and STALLWAIT across the three threads.

The threads take turns: a turn word in L1 says whose step it is, each TRISC's
interpreter waits for its turns (POLL) and hands the turn on (STORE), so the program
is one total order of steps and its results do not depend on timing. A step is one
droppable group:

- a Sync Unit instruction (SEMINIT, SEMPOST, SEMGET) or a RISC-V semaphore access
  (PC_BUF_BASE + 0x20 + 4k: read the value, write 0 to post / 1 to get; PCBufs.md),
  keeping to what SEMPOST.md / SEMGET.md define and ttsim accepts (no post at the
  maximum, no get at zero, one-hot masks);
- a snapshot: the thread drains (TTSync) and copies every semaphore's value to L1;
- a blocking pair: thread A latches a wait (SEMWAIT on a semaphore whose condition
  holds, block mask B1 | B7; or ATGETM of the mutex another thread holds) and queues a
  Configuration Unit marker (RMWCIB of a scratch Config byte) behind it; a later step
  of another thread writes the same byte, then releases A (SEMPOST / SEMGET / ATRELM).
  The byte ends as A's marker over B's value only if A waited (SEMWAIT.md, ATGETM.md);
  A takes no turns while it waits;
- STALLWAIT with conditions that hold at once (nothing in flight) and a marker.

Results: the snapshots, the final semaphore values (with their maxima where known) and
the scratch Config word.
"""

from __future__ import annotations

import numpy as np

from .program import OUTPUT_BASE, SEMAPHORE, Builder

TURN = 0x1100
WH = "wormhole_b0"
B1, B7 = 1 << 1, 1 << 7
SNAP_BASE = OUTPUT_BASE + 0x100


class SyncGen:
    def __init__(self, b: Builder, rng, allow):
        self.b = b
        self.rng = rng
        self.allow = allow
        self.turn = 0
        self.value = [None] * 8  # None: not initialised by the program
        self.max = [None] * 8
        self.blocked = {}  # thread -> (kind, sem or None)
        self.mutex_holder = None
        self.snaps = 0
        self.scratch = self._scratch_word()

    def _scratch_word(self):
        """A Config word whose byte 0 lies in one field ttsim keeps (any value sticks)."""
        fields = self.b.cfg_fields
        from .gen_cfg import FORBIDDEN, RW

        for w in RW[self.b.arch]:
            for name, (index, shift, width) in fields.items():
                if index == w and shift == 0 and width >= 8 and name not in FORBIDDEN:
                    return w
        raise RuntimeError("no scratch Config word")

    # -- turns -------------------------------------------------------------------------
    def step(self, thread):
        """Begin ``thread``'s next step: wait for the turn (scaffolding)."""
        b = self.b
        with b.on(thread):
            b.poll(TURN, self.turn, f"wait for turn {self.turn}")

    def end_step(self, thread):
        b = self.b
        with b.on(thread):
            self.turn += 1
            b.store(TURN, self.turn, f"turn = {self.turn}")

    def free_threads(self):
        return [t for t in range(3) if t not in self.blocked]

    # -- steps -----------------------------------------------------------------------
    def random_step(self):
        free = self.free_threads()
        t = int(self.rng.choice(free))
        k = self.rng.random()
        self.step(t)
        with self.b.on(t):
            if k < 0.3:
                self.sem_op(t)
            elif k < 0.45:
                self.riscv_sem(t)
            elif k < 0.6:
                self.snapshot(t)
            elif k < 0.8 and len(free) >= 2:
                self.block(t)
            elif k < 0.9 and self.blocked:
                self.release(t)
            else:
                self.stallwait(t)
        self.end_step(t)

    def sem_op(self, t):
        b = self.b
        s = int(self.rng.integers(0, 8))
        v, m = self.value[s], self.max[s]
        if v is None or self.rng.random() < 0.15:
            mx = int(self.rng.integers(1, 16))
            iv = int(self.rng.integers(0, mx + 1))
            with b.unit("SEMINIT"):
                b.push("SEMINIT", sem_sel=1 << s, init_value=iv, max_value=mx)
            self.value[s], self.max[s] = iv, mx
        elif v < m and (v == 0 or self.rng.random() < 0.5):
            with b.unit("SEMPOST"):
                b.push("SEMPOST", sem_sel=1 << s)
            self.value[s] += 1
        elif v > 0:
            with b.unit("SEMGET"):
                b.push("SEMGET", sem_sel=1 << s)
            self.value[s] -= 1
        else:
            return
        self._waiters_changed(s)

    def riscv_sem(self, t):
        b = self.b
        s = int(self.rng.integers(0, 8))
        v, m = self.value[s], self.max[s]
        if v is None:
            return self.sem_op(t)
        if v < m and (v == 0 or self.rng.random() < 0.5):
            with b.unit("RISC-V post"):
                b.sync()
                b.store(SEMAPHORE + 4 * s, 0, f"RISC-V post semaphore {s}")
            self.value[s] += 1
        elif v > 0:
            with b.unit("RISC-V get"):
                b.sync()
                b.store(SEMAPHORE + 4 * s, 1, f"RISC-V get semaphore {s}")
            self.value[s] -= 1
        self._waiters_changed(s)

    def snapshot(self, t):
        b = self.b
        with b.unit("snapshot"):
            b.sync()
            for s in range(8):
                b.copy(SEMAPHORE + 4 * s, SNAP_BASE + 32 * self.snaps + 4 * s, f"copy semaphore {s}")
        self.snaps += 1

    def block(self, t):
        """Thread ``t`` waits (SEMWAIT on a semaphore at 0 or at its maximum, or ATGETM of
        the mutex someone else holds) and queues a marker behind the wait."""
        b = self.b
        cands = [s for s in range(8) if self.value[s] is not None and (self.value[s] == 0 or
                                                                      self.value[s] >= self.max[s])]
        mutex_waiter = any(kind == "mutex" for kind, _, _ in self.blocked.values())
        # one waiter for the mutex at most: which of two gets it at its release is not defined
        if self.mutex_holder is not None and self.mutex_holder != t and not mutex_waiter and self.rng.random() < 0.4:
            with b.unit("ATGETM (waits)"):
                b.push("ATGETM", mutex_index=0)
                self.marker(t)
            self.blocked[t] = ("mutex", None, 0)
            return
        if not cands:
            if self.mutex_holder is None:
                with b.unit("ATGETM"):
                    b.push("ATGETM", mutex_index=0)
                self.mutex_holder = t
            return
        s = int(self.rng.choice(cands))
        cond = 1 if self.value[s] == 0 else 2  # C0: wait while 0; C1: wait while >= Max
        # a Sync Unit instruction the block mask lets through (B1 clear): it runs at once
        other = [k for k in range(8) if k != s and self.value[k] is not None and self.value[k] < self.max[k]]
        through = other and self.rng.random() < 0.3 and "semwait-blockmask" in self.allow
        with b.unit("SEMWAIT (waits, B7)" if through else "SEMWAIT (waits)") as g:
            b.push("SEMWAIT", wait_sem_cond=cond, sem_sel=1 << s, stall_res=B7 if through else B1 | B7)
            if through:
                k = int(self.rng.choice(other))
                b.push("SEMPOST", sem_sel=1 << k)
                self.value[k] += 1
                b.prog.group_features[g] = {"semwait-blockmask"}
            self.marker(t)
        self.blocked[t] = ("sem", s, cond)

    def marker(self, t):
        value = 0x11 * (t + 1) + 8 * int(self.rng.integers(0, 2))
        self.b.push("RMWCIB0", CfgRegAddr=self.scratch, Data=value & 0xFF, Mask=0xFF if t == 0 else 0x0F << (4 * (t & 1)))

    def release(self, t):
        """Another thread writes the scratch byte, then lets a waiter go."""
        b = self.b
        waiter = next(iter(self.blocked))
        kind, s, _ = self.blocked[waiter]
        with b.unit(f"release t{waiter}"):
            b.push("RMWCIB0", CfgRegAddr=self.scratch, Data=0xA0 | t, Mask=0xFF)
            if kind == "mutex":
                if self.mutex_holder != t:
                    return
                b.push("ATRELM", mutex_index=0)
                self.mutex_holder = waiter
            elif self.value[s] == 0:
                b.push("SEMPOST", sem_sel=1 << s)
                self.value[s] += 1
            else:
                b.push("SEMGET", sem_sel=1 << s)
                self.value[s] -= 1
        del self.blocked[waiter]
        if kind == "sem":
            self._waiters_changed(s)

    def _waiters_changed(self, s):
        """A semaphore changed: any waiter on it whose condition no longer holds is free
        (the model only lets a different step release, so this is bookkeeping)."""
        for w, (kind, ws, cond) in list(self.blocked.items()):
            if kind == "sem" and ws == s and (self.value[s] > 0 if cond == 1 else self.value[s] < self.max[s]):
                del self.blocked[w]

    def stallwait(self, t):
        b = self.b
        wh = b.arch == WH
        # conditions that hold when nothing is in flight (the units are idle)
        idle = [0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80, 0x2000, 0x4000] if wh else \
            [0x1, 0x2, 0x4, 0x8, 0x10, 0x400, 0x800]
        wait = 0
        for _ in range(int(self.rng.integers(1, 4))):
            wait |= int(self.rng.choice(idle))
        block = int(self.rng.integers(1, 512))
        with b.unit("STALLWAIT"):
            b.push("STALLWAIT", wait_res=wait, stall_res=block)
            self.marker(t)

    # -- end ---------------------------------------------------------------------------
    def finish(self):
        b = self.b
        # release whoever still waits: semaphore waiters first (a free thread), then the
        # mutex waiter (its holder, free by then)
        while self.blocked:
            order = sorted(self.blocked, key=lambda w: self.blocked[w][0] == "mutex")
            waiter = order[0]
            if self.blocked[waiter][0] == "mutex":
                t = self.mutex_holder
            else:
                t = self.free_threads()[0]
            self.blocked = {w: self.blocked[w] for w in order}
            self.step(t)
            with b.on(t):
                self.release(t)
            self.end_step(t)
        if self.mutex_holder is not None:
            t = self.mutex_holder
            self.step(t)
            with b.on(t), b.unit("ATRELM"):
                b.push("ATRELM", mutex_index=0)
            self.mutex_holder = None
            self.end_step(t)
        t = 0
        self.step(t)
        with b.on(t):
            b.sync()
            out = OUTPUT_BASE
            for s in range(8):
                b.copy(SEMAPHORE + 4 * s, out + 4 * s, f"copy semaphore {s}")
            b.copy(0xFFEF0000 + 4 * self.scratch, out + 32, "copy the scratch Config word")
        self.end_step(t)
        labels = [f"semaphore {s}" for s in range(8)] + ["scratch Config word"]
        b.output("final", out, 36, 4, lambda i: labels[i])
        if self.snaps:
            b.output("snapshots", SNAP_BASE, 32 * self.snaps, 4, lambda i: f"snapshot {i // 8} semaphore {i % 8}")


def generate(arch: str, seed: int, allow=frozenset()):
    rng = np.random.default_rng([seed, 11])
    b = Builder(arch, "sync", seed)
    g = SyncGen(b, rng, allow)
    for _ in range(int(rng.integers(6, 30))):
        g.random_step()
    g.finish()
    return b.prog
