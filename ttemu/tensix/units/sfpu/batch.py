"""Runs of Vector Unit instructions executed together: consecutive SFP* steps of a
compiled MOP or REPLAY expansion (frontend/body.py), with the INCRWCs that walk Dst
between them, which a thread hands over in one call (``run_batch``) where issuing them
one at a time would change nothing else in between (TensixThread.pump, ``Body.batch``).

Issued one at a time, each instruction goes through the issue path of :mod:`.macro`:
its cycle (:meth:`.hazards.HazardOps.hz_cycle`), the check of the rules the previous
cycle started (:mod:`.hazards`), the rule it starts, its executor. In a run of one
thread with no other Vector Unit instruction in between, cycles follow from the issue
counts alone (step ``p`` runs ``p - q`` cycles after step ``q``), so the rules are
resolved when the run is planned (:func:`batch_runs`):

* a MAD-latency producer (``hazards.MAD_LATENCY``) followed on the next cycle by an
  instruction that reads what it writes (Blackhole: a read its interlock does not see,
  ``hazards.undetected_reads``) breaks a rule: the run ends before the producer, and
  both go one at a time (the issue path warns and gives the stale value);
* a run's last Vector Unit instruction is not a MAD-latency producer (the rule it starts
  would be consulted by the instruction after the run: that one goes one at a time,
  recording it, and so do the INCRWCs after it);
* the rules a step before the run started are consulted at run time (:meth:`BatchOps.
  run_batch`): when any is pending for the run's first cycle, the first step goes one
  at a time.

What a run may hold (:func:`eligible`): SFPNOP, INCRWC, and the Vector Unit
instructions whose one-at-a-time issue is "execute" (no SFPLOADMACRO-scheduled work, no
SFPSWAP stall, no backdoor write: VD < 12; not SFPCONFIG, SFPSHFT2, SFPLOADMACRO,
SFPSWAP) whose LRegs read do not depend on state (no indirect operand). At run time
(:meth:`BatchOps.run_batch`) the unit must be as the issue path's direct route needs it
(nothing scheduled, no stall pending), and no SFPLOAD of the run may be near a Matrix
Unit Dst write of its thread (SFPLOAD.md's distance rule, ``hazards.hz_dst_read``).

The run then executes step by step with each instruction's own executor
(:meth:`BatchOps._run_python`: the fast SFPLOAD / SFPSTORE forms, the MAD runners'
computations), without the per-instruction issue path, and leaves the cycle bookkeeping
(``hz_now``, ``hz_last``) as the last step's issue would. tests/test_sfpu_batch.py
compares runs executed together with the same programs issued one at a time.
"""

from __future__ import annotations

import numpy as np

from . import native as NV
from .hazards import MAD_LATENCY, PRODUCERS, lreg_access, undetected_reads
from .state import ALL_LANES

#: Vector Unit instructions never in a run (their issue is more than "execute")
EXCLUDED = frozenset({"SFPLOADMACRO", "SFPSWAP", "SFPCONFIG", "SFPSHFT2", "SFPNOP"}) | (PRODUCERS - MAD_LATENCY)
#: step kinds
SFPU, NOP, RWC = 0, 1, 2
_MAX_PLANS = 64  # programs kept per body


class Program:
    """A run's steps for one thread (see the module docstring): ``first`` / ``last`` the
    offsets of the first and last Vector Unit instruction (SFPNOP included); ``first_load``
    the first SFPLOAD's (None: none); ``calls`` the Python form, [(offset, function,
    argument, word, origin)]; the compiled form (native.py), when every step has one:
    ``ops`` (int32 [n, 8]), ``ls`` [(SFPLOAD / SFPSTORE Insn, store?)] the LS slots it
    refers to, ``binding`` (the thread's fast-form contexts -> the LS slots' tables in each,
    or None where one takes its general path), ``rwc`` (int64 [6]: the counters)."""

    __slots__ = ("first", "last", "first_load", "calls", "ops", "ls", "binding", "rwc")


def eligible(unit, mnemonic: str, ins) -> bool:
    """May ``ins`` (a thread-issued ``mnemonic``) be part of a run (module docstring)?"""
    if mnemonic in EXCLUDED:
        return False
    vd = ins.vd
    if vd is not None and vd >= 12:
        return False  # a backdoor write follows its execution (MacroOps.backdoor)
    reads, writes = lreg_access(unit, ins)
    if mnemonic in MAD_LATENCY:
        # the producers' writes must be known when the run is planned (no indirect VD), and
        # their reads (no indirect VA)
        return ins.access is not None
    # reads of the other eligible instructions never depend on state (only SFPLOAD's
    # Dst index capture, a write, does: hazards.lreg_access)
    return True


def _kind(unit, entry):
    """(kind, the issue slot / INCRWC arguments) of a dispatch entry, or None: not in runs."""
    spec, handler, args, kwargs = entry[0], entry[1], entry[2], entry[3]
    if spec is None or handler is None or kwargs is not None:
        return None
    owner = getattr(handler, "__self__", None)
    fn = getattr(handler, "__func__", None)
    if owner is unit:
        if fn is type(unit).issue_word:
            return SFPU, args[0]
        if fn is type(unit).issue_nop:
            return NOP, None
        return None
    if spec.mnemonic == "INCRWC" and owner is unit.cop.math and fn is type(owner).INCRWC:
        return RWC, tuple(args)
    return None


def batch_runs(unit, words, entries):
    """The runs of ``entries`` (a body's dispatch entries) the Vector Unit ``unit`` may take
    together: maximal stretches of eligible steps with at least one Vector Unit
    instruction (SFPNOP included), cut before any MAD-latency producer whose result the next step reads too
    soon, and not ending with a MAD-latency producer (module docstring)."""
    interlocked = unit.hz_interlocked
    runs = []
    start = None
    prev = None  # the previous step's Insn when it is a MAD-latency producer
    n = len(entries)

    def close(end):
        # the last Vector Unit instruction must not be a MAD-latency producer: drop it and
        # the INCRWCs after it (they go one at a time; the issue path records its rule)
        q = end - 1
        while q >= start:
            k = _kind(unit, entries[q])
            if k[0] != RWC:
                if k[0] != SFPU or k[1][3] not in MAD_LATENCY:
                    break
                end = q
            q -= 1
        if end - start >= 2 and any(_kind(unit, e)[0] != RWC for e in entries[start:end]):
            runs.append((start, end))

    for p in range(n + 1):
        k = _kind(unit, entries[p]) if p < n else None
        ins = None
        if k is not None and k[0] == SFPU:
            ins = _probe(unit, k[1])
            if ins is None:
                k = None
        if k is not None and prev is not None and ins is not None:
            reads, _ = lreg_access(unit, ins)
            regs = prev.access[1]
            if prev.mnemonic in interlocked:
                hit = regs & undetected_reads(ins, reads)
            else:
                hit = regs & reads
            if hit:  # a broken rule: end the run before the producer; both go one at a time
                if start is not None:
                    close(p - 1)
                start = None
                prev = None
                continue
        if k is None:
            if start is not None:
                close(p)
            start = None
            prev = None
            continue
        if start is None:
            start = p
        prev = ins if ins is not None and ins.mnemonic in MAD_LATENCY else None
    return runs


def _probe(unit, slot):
    """A thread-independent Insn of an issue slot (``[..., mnemonic, values]``) for
    planning, or None when it may not be part of a run."""
    mnemonic, values = slot[3], slot[4]
    ins = unit.make_insn(0, mnemonic, values, None)
    return ins if eligible(unit, mnemonic, ins) else None


class BatchOps:
    """Mixin of VectorUnit: the Vector Unit's side of ``Body.batch`` (module docstring)."""

    #: take runs together (False: every instruction goes one at a time; tests compare)
    batching = True
    #: the compiled form (native.MODULE, or None: the Python form; tests compare)
    native = NV.MODULE

    def batch_runs(self, words, entries):
        """Runs of a compiled expansion's steps this unit executes together."""
        if not self.batching:
            return []
        return batch_runs(self, words, entries)

    def run_batch(self, t, body, start, end) -> int:
        """Execute steps ``start`` .. ``end`` of ``body`` on thread ``t`` as one at a time
        would; -> how many (0: none, they go one at a time)."""
        if self.swap_stall or self.pre_ran or self.scheduled or not self.batching:
            return 0
        ti = t.index
        key = ("sfpu", start, end, ti)
        cache = body.cache
        prog = cache.get(key, False)
        if prog is False:
            if len(cache) >= _MAX_PLANS:
                cache.clear()
            prog = cache[key] = self._plan(t, body, start, end)
        if prog is None:
            return 0
        issued0 = t.issued
        if prog.first is None:  # (INCRWCs only: a run's tail)
            if prog.ops is None or not self._run_native(t, prog):
                self._run_python(t, prog, issued0)
            return end - start
        # the cycle of the run's first Vector Unit instruction, as issue_word would find it
        u = ti
        th = self.cop.threads
        counts = [th[0].issued, th[1].issued, th[2].issued]
        counts[u] = issued0 + prog.first
        cycle = self.hz_cycle_of(u, tuple(counts), False)
        if self.hz_rules.get(cycle - 1):
            return 0  # a rule from before the run concerns its first step: one at a time
        if prog.first_load is not None and self.cop.math.dst_log and not self._dst_quiet(t, issued0 + prog.first_load):
            return 0
        if prog.ops is None or not self._run_native(t, prog):
            self._run_python(t, prog, issued0)
        last = prog.last
        counts[u] = issued0 + last
        self.hz_now = cycle + (last - prog.first)
        self.hz_last = (self.hz_now, u, tuple(counts))
        return end - start

    def _dst_quiet(self, t, now: int) -> bool:
        """Would ``hazards.hz_dst_read`` find nothing for an SFPLOAD of ``t`` issued at
        ``now`` or later? (The newest Matrix Unit Dst write of the thread is three
        instructions back, or fenced by a STALLWAIT B8 / C7 after it.)"""
        fence = t.fpu_fence
        u = t.index
        for entry in reversed(self.cop.math.dst_log):
            if entry[0] == u:
                issued = entry[1]
                return now - issued - 1 >= 3 or fence > issued + 1
        return True

    def _plan(self, t, body, start, end):
        """The Program of steps ``start`` .. ``end`` of ``body`` for thread ``t``."""
        prog = Program()
        calls = []
        ops = [] if self.native is not None else None
        ls = {}  # Insn -> (LS slot, store?)
        first = last = first_load = None
        for off, p in enumerate(range(start, end)):
            kind, what = _kind(self, body.entries[p])
            op = None
            if kind == SFPU:
                hit = what[t.index]
                if hit is None:  # (MacroOps.issue_word builds it the same way)
                    hit = what[t.index] = self._issued_insn(t, what[3], what[4], body.items[p][0])
                ins = hit[0]
                if not eligible(self, ins.mnemonic, ins):
                    return None
                calls.append((off, self._python_step(ins, hit), ins) + body.items[p])
                if ins.mnemonic == "SFPLOAD" and first_load is None:
                    first_load = off
                if ops is not None:
                    op = NV.operation(self, ins, hit[1])
                    if type(op) is tuple:  # an SFPLOAD / SFPSTORE: its LS slot
                        slot = ls.setdefault(ins, (len(ls), op[1]))[0]
                        op = [NV.OP_STORE if op[1] else NV.OP_LOAD, ins.vd, slot, 0, 0, 0, 0, 0]
            elif kind == NOP:
                op = [NV.OP_NOP, 0, 0, 0, 0, 0, 0, 0]
            else:
                calls.append((off, self._rwc_step(t), what) + body.items[p])
                rwc_cr, rwc_d, rwc_b, rwc_a = what
                op = [NV.OP_RWC, 0, rwc_cr, rwc_d, rwc_b, 0, rwc_a, 0]
            if ops is not None:
                if op is None or len(ls) > 16:
                    ops = None
                else:
                    ops.append(op)
            if kind != RWC:
                if first is None:
                    first = off
                last = off
        prog.calls = calls
        prog.first, prog.last, prog.first_load = first, last, first_load
        prog.ops = None if ops is None else np.array(ops, dtype=np.int32)
        prog.ls = [(ins, store) for ins, (_, store) in sorted(ls.items(), key=lambda kv: kv[1][0])]
        prog.binding = {}
        prog.rwc = np.zeros(6, dtype=np.int64)
        return prog

    def _run_native(self, t, prog) -> bool:
        """The run through the compiled form (native.py), when its SFPLOAD / SFPSTOREs take
        their fast forms' table paths now (else False: nothing done)."""
        ti = t.index
        cop = self.cop
        rwc = cop.rwcs.rwc[ti]
        if rwc.ExtraAddrModBit:
            return False  # (SFPLOAD / SFPSTORE would apply their AddrMod)
        if prog.ls:
            ctx = self.ls_context(ti)  # (another when its configuration changed)
            bindings = prog.binding
            slots = bindings.get(ctx, False)
            if slots is False:
                slots = tuple(NV.ls_slot(self, ins, store) for ins, store in prog.ls)
                if len(bindings) >= 8:
                    bindings.clear()
                slots = bindings[ctx] = None if None in slots else slots
            if slots is None:
                return False
            sp = (rwc.Sp + ctx.sp_base) & ctx.sp_mask
        else:
            slots, sp = (), 0
        r = prog.rwc
        r[0], r[1], r[2], r[3], r[4], r[5] = rwc.Dst, rwc.Dst_Cr, rwc.SrcA, rwc.SrcA_Cr, rwc.SrcB, rwc.SrcB_Cr
        flags = np.array(self.flags, dtype=bool)
        use = np.array(self.use_flags, dtype=bool)
        self.native.run(prog.ops, self.lreg, flags, use, cop.dst.flat_bits, r, self.row_unmasked(), slots, sp)
        self.flags, self.use_flags = flags, use
        rwc.Dst, rwc.Dst_Cr, rwc.SrcA, rwc.SrcA_Cr, rwc.SrcB, rwc.SrcB_Cr = (int(r[0]), int(r[1]), int(r[2]),
                                                                             int(r[3]), int(r[4]), int(r[5]))
        return True

    def _python_step(self, ins, hit):
        """How step ``ins`` executes in a run: its issue slot's executor, or for a
        MAD-latency one what its runner computes (without the rule: none is consulted)."""
        if ins.mnemonic not in MAD_LATENCY:
            return hit[1]
        vd = ins.vd
        compute = self.mad_compute(ins) if vd is not None and 0 <= vd < 8 else None
        if compute is None:  # (VD 8..11, 16: the executor's write rules)
            return self._executor(ins.mnemonic)
        copyto = np.copyto

        def step(_ins):
            mask = self.lane_enabled()
            d = compute()
            row = self.lreg[vd]
            if mask is ALL_LANES:
                row[...] = d
            else:
                copyto(row, d, where=mask)
        return step

    def _rwc_step(self, t):
        incrwc = self.cop.math.INCRWC

        def step(args):
            incrwc(t, *args)
        return step

    def _run_python(self, t, prog, issued0: int) -> None:
        """The run's steps with their executors, the thread's issue count and word as each
        would see it (warnings name the instruction)."""
        try:
            for off, fn, arg, word, origin in prog.calls:
                t.issued = issued0 + off
                t.word = word
                t.origin = origin
                fn(arg)
        finally:
            t.issued = issued0


__all__ = ["BatchOps", "batch_runs", "eligible"]
