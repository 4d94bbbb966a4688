"""Run control for a debugger (the gdb server in ``ttemu.cmd.gdb`` builds on it).

A :class:`DebugControl` installed as ``tile.debug`` takes over every core's turn in
the scheduler (``ttemu.run``): it runs exactly the instructions the normal turn would
run, in the same blocks, with the same step counts, so a debugged run follows the
same schedule and gives the same results and trace as an undebugged one. Where a
breakpoint lies inside a translated block, a single step is pending for the core,
or watchpoints are set, the block's instructions run one at a time (the
one-instruction translations tracing uses) and the turn's accounting still counts
whole blocks; elsewhere the cached block runs as is.

The debugger stops the tile by calling :meth:`stopped` from inside a turn: while it
has not returned, no core and no Tensix thread moves (everything runs inside the
scheduler's thread). Stops happen

* before an instruction at a breakpoint address (``.ttinsn`` words included),
* before a RISC-V load or store that touches a watched range (as RISC-V debug
  triggers do: the access has not happened yet; a debugger steps over it), and
  before the next instruction once a watched range changed by any other means
  (a Tensix packer, the NoC),
* after the core asked to step retired one instruction,
* at the start of a turn once an interrupt was requested (:meth:`poll`),
* at a guest fault or ``ebreak``, before the error ends the run.

The fast path (no ``tile.debug``) does not change; this module costs nothing there.
"""

from __future__ import annotations

from .errors import GuestAssertion, TtemuError, Unimplemented
from .record import Record
from .riscv.hart import HALTED
from .riscv.translate import EXIT_HALT, EXIT_RESUME, EXIT_STALL, EXIT_SYNC, MAX_BLOCK

SIGILL, SIGTRAP, SIGSEGV, SIGINT, SIGSTOP = 4, 5, 11, 2, 17  # gdb's numbers
MOVED = -100  # _one: the debugger moved the pc


class Watch(Record):
    kind: str  # "write", "read" or "access"
    addr: int
    length: int
    core: str | None = None  # core-local addresses: whose local memory

    def hits(self, addr, width, core):
        if self.core is not None and core is not None and self.core != core:
            return False
        return addr < self.addr + self.length and self.addr < addr + width


class Stop(Record):
    hart: object  # the core the stop is reported for (None: the debugger chooses)
    reason: str  # start, breakpoint, step, watch, interrupt, fault
    signal: int = SIGTRAP
    watch: Watch | None = None
    watch_addr: int | None = None
    error: TtemuError | None = None


class Interrupted(TtemuError):
    """The debugger ended the run (gdb's ``kill``)."""

    category = "interrupted"
    exit_code = 130


def fault_signal(err) -> int:
    if isinstance(err, GuestAssertion):
        return SIGTRAP
    if isinstance(err, Unimplemented) or "illegal instruction" in str(err):
        return SIGILL
    return SIGSEGV


def _access(word, x):
    """(address, width, what) of a RISC-V load ("load"), store ("store") or atomic
    read-modify-write ("amo") word, from the registers before it executes; None for
    anything else."""
    op = word & 0x7F
    rs1 = (word >> 15) & 31
    if op == 0x2F:
        return x[rs1], 4, "amo"
    if op == 0x03:
        imm = word >> 20
        what = "load"
    elif op == 0x23:
        imm = ((word >> 25) << 5) | ((word >> 7) & 31)
        what = "store"
    else:
        return None
    imm -= (imm & 0x800) << 1
    return (x[rs1] + imm) & 0xFFFFFFFF, 1 << ((word >> 12) & 3), what


def _matches(kind, what):
    """Does a watchpoint of ``kind`` fire on an access of ``what``?"""
    return kind == "access" or what == "amo" or (kind == "write") == (what == "store")


class DebugControl:
    """Breakpoints, watchpoints, stepping and interrupts for one tile. Subclasses
    implement :meth:`stopped` (and :meth:`poll`)."""

    def __init__(self, tile):
        self.tile = tile
        self.breakpoints: set[int] = set()
        self.watches: list[Watch] = []
        self.step_hart = None  # stop once this core retired one instruction
        self.interrupt = False
        self._snap: list = []
        self._begun = False
        self._skip = {}  # core -> pc of its load/store reported before the access (not again)

    # -- what a debugger implements -------------------------------------------------
    def stopped(self, stop: Stop) -> None:
        """The tile is held until this returns. Raise to end the run."""

    def poll(self) -> None:
        """Called once per turn while running: look for an interrupt request."""

    # -- state the debugger changes --------------------------------------------------
    def resume(self, step_hart=None) -> None:
        """Before returning from :meth:`stopped`: what to do next."""
        self.step_hart = step_hart
        self.interrupt = False
        self.snapshot()

    def snapshot(self) -> None:
        """Remember the watched bytes (a later difference is a write by someone)."""
        self._snap = [self._read(w) for w in self.watches]

    def _read(self, w):
        tile = self.tile
        a = tile.arch
        if w.addr + w.length <= a.l1_size:
            return bytes(tile.l1[w.addr:w.addr + w.length])
        local = tile.harts[w.core].local if w.core else b""
        off = w.addr - a.local_base
        return bytes(local[off:off + w.length])

    def _changed(self):
        for w, old in zip(self.watches, self._snap):
            if w.kind != "read" and self._read(w) != old:
                return w
        return None

    # -- the scheduler's entry points ---------------------------------------------------
    def begin(self) -> None:
        """Before the first instruction (once: a manifest's phases run the tile more than once)."""
        if not self._begun:
            self._begun = True
            self._stop(self.first_stop())

    def first_stop(self) -> Stop:
        return Stop(None, "start")

    def _stop(self, stop):
        self.stopped(stop)
        self.snapshot()

    def turn(self, hart, budget, exact) -> int:
        """One scheduler turn of ``hart``: what ``run._run_blocks`` (or
        ``run._run_single`` when tracing) would do, with the stops above."""
        self.poll()
        tile = self.tile
        if self.interrupt:
            self._stop(Stop(hart, "interrupt", SIGINT))
        if tile.tracer is not None:
            return self._singles(hart, budget, tile.tracer)
        blocks = hart.blocks
        translate = tile.translators[hart.name].translate
        pc = hart.pc
        n = 0
        hart.stall = None
        lim = budget - MAX_BLOCK if exact else budget
        bps = self.breakpoints  # the same set object while the debugger changes it
        try:
            while n < lim:
                entry = blocks.get(pc)
                if entry is None:
                    entry = blocks[pc] = translate(pc)
                f, c = entry
                end = pc + 4 * c
                if (self.step_hart is hart or self.watches or self.interrupt
                        or (bps and any(pc <= b < end for b in bps))):
                    hart.pc = pc
                    if self._has_store(hart, pc, c):
                        tile.activity[0] = 1  # as the block sets it on entry
                    done, kind, pc = self._emulate(hart, pc, c)
                    n += done
                    if kind is None or kind == EXIT_RESUME:
                        continue
                    if kind == EXIT_HALT:
                        hart.state = HALTED
                    if kind == EXIT_SYNC:
                        hart.steps += n
                        tile.steps += n
                        budget -= n
                        lim -= n
                        n = 0
                        continue
                    hart.pc = pc
                    return n
                try:
                    r = f()
                except TtemuError as e:
                    self._fault(hart, e)
                    raise
                if r >= 0:
                    n += c
                    pc = r
                    continue
                n += c + hart.exit_delta
                pc = hart.exit_pc
                if r == EXIT_RESUME:
                    continue
                if r == EXIT_SYNC:
                    hart.steps += n
                    tile.steps += n
                    budget -= n
                    lim -= n
                    n = 0
                    hart.synced = pc
                    continue
                if r == EXIT_HALT:
                    hart.state = HALTED
                hart.pc = pc
                return n
            hart.pc = pc
        finally:
            hart.steps += n
            tile.steps += n
        if exact and n < budget:
            return n + self._singles(hart, budget - n, None)
        return n

    def _has_store(self, hart, pc, c):
        """Does the block store (so its code marks activity on entry)? As the translator says."""
        tr = self.tile.translators[hart.name]
        return any(tr.decode(pc + 4 * k, tr.fetch(pc + 4 * k), k, c).kind == "store" for k in range(c))

    def _emulate(self, hart, pc, c):
        """Run the ``c`` instructions of the block at ``pc`` one at a time.
        -> (retired, exit kind or None, next pc); kind EXIT_SYNC means "bring the
        counts up to date, then carry on at next pc" (nothing retired), EXIT_RESUME
        "carry on at next pc" (the debugger moved the pc, or a store hit code)."""
        done = 0
        hart.pc = pc
        while done < c:
            kind, npc, retired = self._one(hart, hart.pc, None)
            done += retired
            if kind is None:
                hart.pc = npc
                continue
            if kind == MOVED:
                kind = EXIT_RESUME
            return done, kind, npc
        return done, None, hart.pc

    def _one(self, hart, pc, tracer):
        """Check the stops, run one instruction at ``pc`` (= ``hart.pc``).
        -> (exit kind or None, next pc, retired). Kind MOVED: the debugger moved the
        pc while the core was stopped; carry on there."""
        if pc in self.breakpoints:
            self._stop(Stop(hart, "breakpoint"))
        elif self.interrupt:
            self._stop(Stop(hart, "interrupt", SIGINT))
        skip = self._skip.pop(hart.name, None) == pc
        reported = False
        if self.watches and hart.pc == pc:
            w = self._changed()
            if w is not None:
                self._stop(Stop(hart, "watch", watch=w, watch_addr=w.addr))
            access = _access(self.tile.translators[hart.name].fetch(pc), hart.x)
            if access is not None and not skip and hart.pc == pc:
                addr, width, what = access
                for w in self.watches:
                    if _matches(w.kind, what) and w.hits(addr, width, hart.name):
                        self._stop(Stop(hart, "watch", watch=w, watch_addr=max(w.addr, addr)))
                        self._skip[hart.name] = pc  # the access has not happened: not twice if it stalls
                        reported = True
                        break
        if hart.pc != pc:
            return MOVED, hart.pc, 0
        single = hart.single
        entry = single.get(pc)
        if entry is None:
            entry = single[pc] = self.tile.translators[hart.name].translate(pc, 1)
        mark = tracer.mark() if tracer else 0
        try:
            npc = entry[0]()
        except TtemuError as e:
            self._fault(hart, e)
            raise
        if (skip or reported) and self.watches:
            self.snapshot()  # the change this reported access makes is not another stop
        if npc >= 0:
            if tracer:
                tracer.riscv(mark, hart, pc)
            kind, retired = None, 1
        else:
            kind = npc
            npc = hart.exit_pc
            if kind == EXIT_SYNC:
                hart.synced = npc
                return kind, npc, 0
            retired = hart.exit_delta + 1
            if retired and tracer:
                tracer.riscv(mark, hart, pc)
        if kind == EXIT_HALT and pc in self.breakpoints and self.step_hart is not hart:
            # `j .` at a breakpoint: hardware would come back to it at once; the model parks the core
            hart.state = HALTED
            hart.pc = pc
            self._stop(Stop(hart, "breakpoint"))
            if hart.pc != pc:
                return MOVED, hart.pc, retired
        elif retired and self.step_hart is hart and kind != EXIT_STALL:
            at = hart.pc = pc if kind == EXIT_HALT else npc
            if kind == EXIT_HALT:
                hart.state = HALTED
            self._stop(Stop(hart, "step"))
            if hart.pc != at:
                return MOVED, hart.pc, retired
        return kind, npc, retired

    def _singles(self, hart, budget, tracer):
        """``run._run_single`` with the stops."""
        tile = self.tile
        n = 0
        try:
            while n < budget:
                pc = hart.pc
                kind, npc, retired = self._one(hart, pc, tracer)
                if kind == EXIT_SYNC:
                    hart.steps += n
                    tile.steps += n
                    budget -= n
                    n = 0
                    continue
                n += retired
                hart.pc = npc
                if kind in (None, EXIT_RESUME, MOVED):
                    continue
                if kind == EXIT_HALT:
                    hart.state = HALTED
                return n
            return n
        finally:
            hart.steps += n
            tile.steps += n

    def _fault(self, hart, err):
        if getattr(err, "pc", None) is not None and getattr(err, "core", None) == hart.name:
            hart.pc = err.pc
        self.stopped(Stop(hart, "fault", fault_signal(err), error=err))

