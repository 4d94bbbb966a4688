"""SFPCONFIG, SFPLOADMACRO and its scheduled-instruction machinery, and the
"backdoor" writes of LoadMacroConfig.InstructionTemplate (SFPCONFIG.md,
SFPLOADMACRO.md).

Time model
----------
ttemu runs instructions synchronously and has no cycle clock. SFPLOADMACRO schedules
instructions a number of cycles (``WaitForElapsedCycles``) or of Vector Unit
instructions (``WaitForElapsedInstructions``) ahead. The model counts one cycle per
Vector Unit instruction issued by any thread, i.e. it assumes Vector Unit instructions
arrive on consecutive cycles, which is how SFPLOADMACRO sequences are written (MOP /
REPLAY / back-to-back pushes). Under that assumption both delay kinds count alike, and
the result is exact. Specifically, for a Vector Unit instruction issued at cycle k:

1. if a scheduled instruction runs on the same sub-unit in cycle k, the issued one is
   discarded (SFPLOADMACRO.md: "the scheduled instruction takes priority"; the model
   also records a warning on the tile);
2. every scheduled instruction's delay counter counts down by one;
3. the issued instruction executes (SFPLOADMACRO adds its scheduled instructions now);
4. the scheduled instructions due in cycle k + 1 (counter 0) execute, in sub-unit order
   simple, MAD, round, store. They run *before* the next instruction rather than with
   it, which is what a reader of the state sees either way, and makes a delay-0
   instruction's effect visible to other units (packers) as soon as the SFPLOADMACRO
   has issued.

When no Vector Unit instruction follows, instructions with the cycle delay kind still
execute on hardware (within eight cycles): :meth:`MacroOps.elapse_cycles` lets cycles
pass without a Vector Unit instruction, and :meth:`MacroOps.settle` (used by ``busy``,
i.e. by anything that waits for the Vector Unit to be idle) runs them to completion.
Instructions waiting for elapsed *instructions* stay until enough Vector Unit
instructions issue; while any exists, all outstanding instructions count instructions
(SFPLOADMACRO.md), so they keep the unit busy.

An SFPSWAP stalls a following non-SFPNOP instruction by one cycle (SFPSWAP.md
"Instruction scheduling"); the model lets that cycle elapse.

Every instruction (regular or scheduled) runs through :meth:`HazardOps.hz_run`, which
checks the "on the next cycle" rules of the pages (:mod:`.hazards`). For that, a regular
instruction runs in the cycle :meth:`HazardOps.hz_cycle` gives it, scheduled
instructions run in the cycle after the latest event (``hz_now``: the instruction just
issued, or an elapsed cycle).

Not modelled (raise Unimplemented): LoadMacroConfig that differs between lanes in the
parts an SFPLOADMACRO uses (the page allows it, "though this is not encouraged").
"""

from __future__ import annotations

import numpy as np

from ....errors import Unimplemented
from ....record import Record
from .hazards import MAD_LATENCY, PRODUCERS
from .insn import CAN_EXECUTE, MACRO_SUBUNITS, NO_BACKDOOR, REGULAR_SUBUNIT, SIMPLE, STORE, Insn
from .state import COL, DISABLE_BACKDOOR_LOAD, LANE_CONFIG_MASK, PROG_CONST_DEFAULTS, U32

# SFPCONFIG Mod1 bits
IMM16_IS_VALUE = 1
IMM16_IS_LANE_MASK = 8


class Scheduled(Record):
    subunit: str
    insn: Insn
    delay: int  # counts down; runs the cycle after it reaches 0
    counts_instructions: bool  # WaitForElapsedInstructions
    thread: int

    def __init__(self, subunit, insn, delay, counts_instructions, thread):
        self.subunit, self.insn, self.delay, self.thread = subunit, insn, delay, thread
        self.counts_instructions = counts_instructions


class MacroOps:
    # -- the issue path (every thread-issued Vector Unit instruction) --------------------
    def issue(self, t, mnemonic: str, values: tuple) -> None:
        """Thread ``t`` issues ``mnemonic`` with field ``values`` (in the order of
        ``issue_fields[mnemonic]``): :meth:`issue_word` with the slot kept per distinct
        instruction (mnemonic, fields, thread and word)."""
        key = (mnemonic, values, t.index, getattr(t, "word", None))
        insns = self.issued_insns
        slot = insns.get(key)
        if slot is None:
            if len(insns) >= 4096:
                insns.clear()
            slot = insns[key] = [None, None, None, mnemonic, values]
        self.issue_word(t, slot)

    def issue_word(self, t, slot: list) -> None:
        """Thread ``t`` issues the instruction of ``slot``: ``[per thread index: None or
        what _issued_insn built for it, mnemonic, field values]``, one per instruction
        word (the frontend's dispatch table holds it: :meth:`VectorUnit.direct_route`).
        The :class:`Insn` is built once per thread and reused: nothing changes an issued
        Insn."""
        hit = slot[t.index]
        if hit is None:
            hit = slot[t.index] = self._issued_insn(t, slot[3], slot[4], getattr(t, "word", None))
        ins, run, cycle_run, tail = hit
        if self.swap_stall or self.pre_ran or self.scheduled:
            self._issue_timed(t, ins)
            return
        # nothing scheduled by SFPLOADMACRO, no SFPSWAP stall: the instruction just runs in
        # the cycle hz_cycle(t, False) gives, spelled out for the thread that issued last
        last = self.hz_last
        u = t.index
        if last is not None and last[1] == u:
            th = self.cop.threads
            counts = (th[0].issued, th[1].issued, th[2].issued)
            cycle = self.hz_now = last[0] + counts[u] - last[2][u]
            self.hz_last = (cycle, u, counts)
        else:
            cycle = self.hz_now = self.hz_cycle(t, False)
        if run is None:  # SFPNOP: reads and writes nothing, no rule can concern it
            return
        if self.hz_rules.get(cycle - 1):
            self.hz_run(ins, cycle)  # hazards.py: checks, and the rules a producer starts
        elif cycle_run is not None:  # (hz_run without rules to check)
            runner = ins.fast  # a MAD-latency one's runner, once built (HazardOps._hz_run_mad)
            if runner is None or not runner(cycle):
                cycle_run(ins, cycle)
        else:
            run(ins)
        if tail:
            vd = ins.vd
            if vd is not None and vd >= 12:
                self.backdoor(ins)
            if ins.mnemonic == "SFPSWAP":
                self.swap_stall = True
            elif self.scheduled:  # an SFPLOADMACRO
                self.run_due()

    def issue_nop(self, t) -> None:
        """:meth:`issue` of an SFPNOP (the frontend's direct route for it): with nothing
        scheduled and no SFPSWAP stall it only takes its cycle."""
        if self.swap_stall or self.pre_ran or self.scheduled:
            self.issue(t, "SFPNOP", ())
            return
        last = self.hz_last  # (hz_cycle(t, False), as in issue_word)
        u = t.index
        if last is not None and last[1] == u:
            th = self.cop.threads
            counts = (th[0].issued, th[1].issued, th[2].issued)
            self.hz_now = cycle = last[0] + counts[u] - last[2][u]
            self.hz_last = (cycle, u, counts)
        else:
            self.hz_now = self.hz_cycle(t, False)

    def _issued_insn(self, t, mnemonic: str, values: tuple, word):
        """(the Insn, how it runs when no rule of the previous cycle is pending: None for
        SFPNOP, True for an instruction that may start a rule, else the method executing
        it; for one that may start a rule, the method running it in a cycle:
        :meth:`HazardOps._hz_run_mad` for the MAD-latency ones, :meth:`HazardOps._hz_run`
        (hz_run without rules to check) for the others, else None; and whether anything
        follows its run: a backdoor write (VD >= 12), SFPSWAP's stall, or the work an
        SFPLOADMACRO schedules, the only instruction that adds any)."""
        ins = self.make_insn(t.index, mnemonic, values, word)
        tail = (ins.vd is not None and ins.vd >= 12) or mnemonic in ("SFPSWAP", "SFPLOADMACRO")
        if mnemonic == "SFPNOP":
            return ins, None, None, False
        if mnemonic in MAD_LATENCY:
            return ins, True, self._hz_run_mad, tail
        if mnemonic in PRODUCERS:
            return ins, True, self._hz_run, tail
        if self.ls_fast:
            if mnemonic == "SFPLOAD":
                return ins, self.fast_SFPLOAD, None, tail  # lsfast.py
            if mnemonic == "SFPSTORE":
                return ins, self.fast_SFPSTORE, None, tail
        return ins, self._executor(mnemonic), None, tail

    def make_insn(self, thread: int, mnemonic: str, values: tuple, word) -> Insn:
        """The Insn of ``mnemonic`` with field ``values`` (``issue_fields`` order) issued by
        ``thread`` (this arch's field masks applied; ``word`` kept when it is the
        instruction's)."""
        fields = dict(zip(self.issue_fields[mnemonic], values))
        masks = self.field_masks.get(mnemonic)
        if masks:
            for name, mask in masks.items():
                fields[name] &= mask
        ins = Insn(mnemonic, fields, thread, own=True)
        if type(word) is int and word >> 24 == self.cop.table.by_mnemonic[mnemonic].opcode:
            ins.word = word
        return ins

    def _issue_timed(self, t, ins: Insn) -> None:
        """The issue path with SFPLOADMACRO-scheduled work or an SFPSWAP stall (module doc)."""
        mnemonic = ins.mnemonic
        stalled = self.swap_stall and mnemonic != "SFPNOP"
        cycle = self.hz_cycle(t, stalled)  # hazards.py: the cycle this instruction runs in
        if self.swap_stall:
            self.swap_stall = False
            if stalled:
                self.hz_now = cycle - 2
                self.elapse_cycles(1)
        self.hz_now = cycle
        subunit = REGULAR_SUBUNIT[mnemonic]
        discard = False
        if self.pre_ran:
            discard = subunit in self.pre_ran
            self.pre_ran = set()
        for s in self.scheduled:
            s.delay -= 1
        if discard:
            self.cop.tile.warn(f"t{t.index} {mnemonic}: discarded, an instruction scheduled by SFPLOADMACRO "
                               f"used the {subunit} sub-unit in the same cycle (SFPLOADMACRO.md)")
        else:
            self.hz_run(ins, cycle)
            self.backdoor(ins)
            if mnemonic == "SFPSWAP":
                self.swap_stall = True
        self.run_due()

    def execute(self, ins: Insn) -> None:
        fn = self.executors.get(ins.mnemonic)
        if fn is None:
            fn = self._executor(ins.mnemonic)
        fn(ins)

    def _executor(self, mnemonic: str):
        """The method executing ``mnemonic`` on this arch (``variants``, else ``x_<MNEMONIC>``)."""
        fn = self.executors.get(mnemonic)
        if fn is None:
            fn = self.variants.get(mnemonic)
            if fn is None:
                fn = getattr(self, "x_" + mnemonic)
            self.executors[mnemonic] = fn
        return fn

    def x_SFPNOP(self, ins):
        """SFPNOP.md: no effect (it occupies a sub-unit for one cycle)."""

    def backdoor(self, ins: Insn) -> None:
        """SFPCONFIG.md, LaneConfig.DISABLE_BACKDOOR_LOAD: while it is false, an instruction
        with VD >= 12 writes its own bits to LoadMacroConfig.InstructionTemplate[VD - 12]
        (in the lanes where it is false). The word is the one the thread executes (or, if
        unknown, re-encoded from the decoded fields)."""
        if ins.macro or ins.mnemonic in NO_BACKDOOR or ins.vd is None or ins.vd < 12:
            return
        lanes = ~self.cfg_bit(DISABLE_BACKDOOR_LOAD)
        if lanes.any():
            word = ins.word if ins.word is not None else self.cop.table.encode(ins.mnemonic, **ins.fields)
            self.lm_template[ins.vd - 12][lanes] = word

    # -- time -------------------------------------------------------------------------------
    def run_due(self) -> None:
        """Execute the scheduled instructions whose counter is 0 (they run in the coming
        cycle), checking the same-cycle rules of SFPLOADMACRO.md (†) and (‡)."""
        if not self.scheduled:
            return
        due = [s for s in self.scheduled if s.delay <= 0]
        if not due:
            return
        self.scheduled = [s for s in self.scheduled if s.delay > 0]
        due.sort(key=lambda s: MACRO_SUBUNITS.index(s.subunit))
        by_unit = {s.subunit: s.insn for s in due}
        simple, rnd = by_unit.get(SIMPLE), by_unit.get("round")
        if simple is not None and rnd is not None and "SFPNOP" not in (simple.mnemonic, rnd.mnemonic):
            a, b = simple.vd, rnd.vd
            if not ((a == 16) != (b == 16) or (a < 4 and 4 <= b < 8) or (b < 4 and 4 <= a < 8)):
                self.cop.tile.undefined(f"t{simple.thread} SFPLOADMACRO (†) VD conflict",
                                        f"t{simple.thread} SFPLOADMACRO: {simple} and {rnd} run in the same cycle on "
                                        "the simple and round sub-units with conflicting VD (SFPLOADMACRO.md (†): "
                                        "undefined); ttemu runs both, simple then round (the later write wins)")
        if simple is not None and simple.mnemonic == "SFPSWAP":
            mad = by_unit.get("mad")
            if mad is None or mad.mnemonic != "SFPNOP":
                self.cop.tile.undefined(f"t{simple.thread} SFPLOADMACRO (‡) SFPSWAP without SFPNOP",
                                        f"t{simple.thread} SFPLOADMACRO: SFPSWAP scheduled to the simple sub-unit "
                                        "needs SFPNOP scheduled to the MAD sub-unit in the same cycle "
                                        "(SFPLOADMACRO.md (‡): undefined); ttemu runs both as scheduled")
        cycle = self.hz_now + 1
        for s in due:
            self.hz_run(s.insn, cycle)
        self.pre_ran = set(by_unit)

    def elapse_cycles(self, n: int = 1) -> None:
        """Let ``n`` cycles pass with no Vector Unit instruction issued: scheduled
        instructions of the cycle delay kind count down and run when due (nothing counts
        while any outstanding instruction waits for elapsed instructions)."""
        for _ in range(n):
            self.pre_ran = set()
            if not self.scheduled or any(s.counts_instructions for s in self.scheduled):
                return
            for s in self.scheduled:
                s.delay -= 1
            self.hz_now += 1
            self.run_due()

    def settle(self) -> None:
        """Run scheduled instructions of the cycle delay kind to completion (the cycles
        a waiting observer lets pass); instruction-counted ones stay."""
        while self.scheduled and not any(s.counts_instructions for s in self.scheduled):
            self.elapse_cycles(1)
        if not self.scheduled:
            self.pre_ran = set()

    def busy(self, thread: int) -> bool:
        """Busy while an instruction SFPLOADMACRO scheduled for ``thread`` is outstanding.
        Asking lets cycles pass (:meth:`settle`), so only instructions that wait for
        further Vector Unit instructions keep the unit busy."""
        self.settle()
        return any(s.thread == thread for s in self.scheduled)

    # -- SFPLOADMACRO -------------------------------------------------------------------------
    @staticmethod
    def _uniform(values: np.ndarray, what: str) -> int:
        if np.any(values != values[0]):
            raise Unimplemented(f"SFPLOADMACRO: LoadMacroConfig {what} differs between lanes; per-lane "
                                "macro configuration is not modelled")
        return int(values[0])

    def x_SFPLOADMACRO(self, ins):
        """SFPLOADMACRO.md: SFPLOAD with ``VD = (VDHi << 2) | VDLo``, ``Imm10 = (Imm9 << 1) | VDHi``,
        then for each of the simple, MAD, round and store sub-units, schedule the
        instruction LoadMacroConfig.Sequence[MacroIndex] selects (none, SFPNOP, SFPSTORE,
        or InstructionTemplate[0..3]) with its delay, overriding VD and VB or VC (simple,
        MAD, round) or VD, Mod0 and Addr (store)."""
        macro_index = ins.vd >> 2
        vd = ((ins.imm & 1) << 2) | (ins.vd & 3)
        load = Insn("SFPLOAD", {"lreg_ind": vd, "instr_mod0": ins.mod, "sfpu_addr_mode": ins.addr_mod,
                                "dest_reg_addr": ins.imm}, ins.thread)
        mod0, addr = self.variants.get("SFPLOAD", self.x_SFPLOAD)(load, "SFPLOADMACRO")
        sequence = self._uniform(self.lm_sequence[macro_index], f"Sequence[{macro_index}]")
        misc = self._uniform(self.lm_misc, "Misc")
        for i, subunit in enumerate(MACRO_SUBUNITS):
            bits = (sequence >> (8 * i)) & 0xFF
            delay = (bits >> 3) & 7
            if delay != 7:
                self.scheduled = [s for s in self.scheduled if not (s.subunit == subunit and s.delay == delay)]
            kind = bits & 7
            if kind == 0:
                continue
            if kind == 1:
                self.cop.undefined("SFPLOADMACRO Sequence kind 1",
                                   f"Sequence[{macro_index}] byte {i} selects kind 1 (SFPLOADMACRO.md: undefined); "
                                   "ttemu schedules nothing for that sub-unit")
                continue
            if kind == 2:
                sched = Insn("SFPNOP", {}, ins.thread)
            elif kind == 3:
                sched = Insn("SFPSTORE", {"lreg_ind": 0}, ins.thread)
            else:
                word = self._uniform(self.lm_template[kind - 4], f"InstructionTemplate[{kind - 4}]")
                spec, fields = self.cop.table.decode(word)
                name = spec.mnemonic if spec is not None else None
                masks = self.field_masks.get(name)
                if masks:  # decode's fields are read-only (shared)
                    fields = {k: (v & masks[k] if k in masks else v) for k, v in fields.items()}
                sched = Insn(name, fields, ins.thread) if name in CAN_EXECUTE[subunit] else None
            if sched is None or sched.mnemonic not in CAN_EXECUTE[subunit]:
                if subunit == STORE:
                    self.cop.undefined("SFPLOADMACRO store sub-unit not SFPSTORE",
                                       f"the store sub-unit is scheduled "
                                       f"{'a non-SFPSTORE instruction' if sched else 'an unknown word'} "
                                       "(SFPLOADMACRO.md: undefined); ttemu schedules nothing for it")
                    continue
                sched = Insn("SFPNOP", {}, ins.thread)
            sched.macro = True
            if subunit != STORE:
                if bits & 0x80:
                    sched.vb = vd
                    if sched.vc is None:
                        sched.vc = sched.vd
                else:
                    sched.vc = vd
                    if sched.vb is None:
                        sched.vb = sched.vd
                sched.vd = 16 if bits & 0x40 else vd
            else:
                if bits & 0x40:
                    sched.vd = 16
                elif not bits & 0x80:
                    sched.vd = vd
                sched.mod = mod0 if (misc >> (4 + macro_index)) & 1 else misc & 0xF
                sched.imm = ins.imm
                sched.addr = addr
            counts_instructions = bool((misc >> (8 + i)) & 1)
            self.scheduled.append(Scheduled(subunit, sched, delay, counts_instructions, ins.thread))

    # -- SFPCONFIG ---------------------------------------------------------------------------
    def x_SFPCONFIG(self, ins):
        """SFPCONFIG.md: write LoadMacroConfig (VD 0..8), LReg[11..14] (VD 11..14) or
        LaneConfig (VD 15) from LReg[0]'s first eight lanes broadcast to 32 (or from
        Imm16 / default constants with MOD1_IMM16_IS_VALUE), in the lanes whose column is
        selected by the Imm16 lane mask (MOD1_IMM16_IS_LANE_MASK) and enabled by the lane
        flags of lanes 0..7; VD 8 and 15 can OR / AND / XOR instead of assigning."""
        mod, vd, imm = ins.mod, ins.vd, ins.imm & 0xFFFF
        sel = np.ones(32, dtype=bool)
        if mod & IMM16_IS_LANE_MASK:
            sel &= ((imm >> (COL * 2)) & 1) != 0
        sel &= ~self.use_flags[COL] | self.flags[COL]
        src = self.lreg[0][COL]
        value = np.full(32, imm, dtype=U32) if mod & IMM16_IS_VALUE else src

        def combine(old, new):
            op = mod & 6
            if op == 0:
                return new
            return {2: old | new, 4: old & new, 6: old ^ new}[op]

        if vd < 4:
            self.lm_template[vd][sel] = src[sel]
        elif vd < 8:
            self.lm_sequence[vd - 4][sel] = value[sel]
        elif vd == 8:
            new = combine(self.lm_misc, value & U32(0xFFF))
            self.lm_misc[sel] = new[sel]
        elif 11 <= vd <= 14:
            v = np.full(32, PROG_CONST_DEFAULTS[vd], dtype=U32) if mod & IMM16_IS_VALUE else src
            self.lreg[vd][sel] = v[sel]
        elif vd == 15:
            original = self.lane_config
            new = combine(original, value & U32(LANE_CONFIG_MASK))
            if mod & IMM16_IS_VALUE:
                new = new | (original & U32(~0xFFFF & LANE_CONFIG_MASK))
            self.lane_config[:] = np.where(sel, new, original)
