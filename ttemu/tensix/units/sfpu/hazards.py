"""Vector Unit scheduling rules that software must obey, checked as instructions run.

ttemu completes every instruction as it issues, so a result is always visible to the
next instruction. On hardware some are not: the "Instruction scheduling" sections of
the pages (tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/) make
software responsible. Breaking one of these rules leaves behaviour undefined: the model
reports it as undefined behaviour (a warning once per site naming both instructions and
the rule; an error with ``--strict``) and carries on. A read too soon after a producer
(the "read" rules) sees the stale value, the LReg from before the producer's write,
which then lands (:meth:`HazardOps._hz_run_stale`); every other broken rule gets the
results of a correctly scheduled program (a Dst read too soon sees the rows as written).

Rules checked here
------------------
* SFPMAD.md, SFPADD.md, SFPMUL.md, SFPADDI.md, SFPMULI.md, SFPLUT.md, SFPLUTFP32.md:
  on the next cycle the Vector Unit must not execute an instruction which reads a
  location (LReg) the instruction writes.
* SFPSHFT2.md, Mod1 2 (SUBVEC_SHFLROR1_AND_COPY4): on the next cycle no instruction may
  read LReg[0..3], nor write LReg[1..3]. Mod1 3 / 4 (SUBVEC_SHFLROR1 / SHFLSHR1) with
  VD < 8: no instruction may read LReg[VD]. Mod1 2, 3, 4: no instruction from the
  page's list (SFPABS ... SFPXOR, SFPSTOCHRND, SFPSHFT2 with Mod1 0, 1, 5 or 6).
* SFPCONFIG.md: after an SFPCONFIG that changes LaneConfig.DISABLE_BACKDOOR_LOAD, the
  next instruction may see the old or the new value; if that matters (a regular
  instruction with VD >= 12 other than SFPCONFIG / SFPNOP / SFPLOADMACRO) software
  should have put an SFPNOP between. Either value is possible, so this is undefined.
* SFPLOAD.md, SFPLOADMACRO.md: at least three unrelated Tensix instructions must
  execute between a Matrix Unit (FPU) instruction that writes Dst and an SFPLOAD /
  SFPLOADMACRO reading the same Dst rows, unless a STALLWAIT with block bit B8 and
  condition C7 sits between them (:meth:`HazardOps.hz_dst_read`; the Matrix Unit logs
  its Dst writes, with the issuing thread the frontend names in
  ``Coprocessor.issuing``, in ``MatrixUnit.dst_log``; the thread notes such a
  STALLWAIT in ``TensixThread.fpu_fence``). "Region" is taken as DstBits rows (the
  storage both 16- and 32-bit views map to). Only pairs from the same thread are
  checked: C7 ("the current thread has an instruction in the FPU pipeline") is per
  thread, and instructions of different threads have no documented timing relation.
  ZEROACC counts as an FPU write of the rows it marks.

Rules that are hardware interlocks need no check: SFPSWAP.md (the next non-SFPNOP
instruction is stalled one cycle; :mod:`.macro` models the stall cycle, and it moves
the next instruction's cycle here), MOVD2A.md, MOVD2B.md, SHIFTXB.md, Dst.md, and the
listed instructions of MOVA2D.md / MOVB2D.md (whose remaining readers, SFPLOAD /
SFPLOADMACRO, are covered by the SFPLOAD.md rule). Not checked: a regular instruction
sent to a sub-unit a scheduled instruction uses in the same cycle (SFPLOADMACRO.md
defines the outcome, the regular one is discarded; :mod:`.macro` warns).

What "the next cycle" means here
--------------------------------
The Vector Unit accepts one instruction per cycle from all threads together
(VectorUnit.md "Sub-units"), and a thread's frontend passes at most one instruction per
cycle through its wait gate. So, for two Vector Unit instructions X then Y issued with
no other Vector Unit instruction between them (in ttemu's deterministic issue order):

* same thread: Y is ``1 + g`` cycles after X, where ``g`` is the number of other
  instructions (of any unit: each takes the thread at least a cycle) the thread issued
  between them. That is the earliest cycle hardware can run Y, which is what happens
  when nothing stalls, so it is the one checked. ``g = 0`` is "the next cycle".
* different threads: Y runs on the next cycle only if neither thread issued anything
  else in between (ttemu issued them back to back). Instructions of other threads that
  go to other units do not occupy the Vector Unit; any instruction of X's or Y's own
  thread in between means the two are not tied in time (on hardware the order of
  independent threads is not defined), and no rule is applied.
* after an SFPSWAP a non-SFPNOP instruction runs at least two cycles later (the stall).

Instructions SFPLOADMACRO schedules run in the cycle after the Vector Unit event they
follow (:mod:`.macro`: the cycle after the instruction just issued, or after an
elapsed cycle), and count as instructions the Vector Unit executes, as producers and as
consumers. Regular and scheduled instructions of the same cycle are not checked against
each other (that is SFPLOADMACRO.md's own (†) / (‡), checked in :mod:`.macro`).

Which LRegs an instruction reads and writes
-------------------------------------------
:data:`LREG_ACCESS` lists it for every Vector Unit instruction, from the functional
model on its page, by mode where the model says so (e.g. SFPLOAD reads VD in
MOD0_FMT_LO16_ONLY / HI16_ONLY, SFPLOADI in its UPPER / LOWER modes). Conventions:

* A read counts whenever the model performs it for some lane; lane enables
  (``LaneEnabled``, ``UseLaneFlagsForLaneEnable``) are not consulted (a read in a
  disabled lane does no harm, but the check does not try to prove no lane is enabled).
* Guards that do depend on the instruction are honoured: ``VD < 8 || VD == 16``
  (nothing happens otherwise), ``VD < 8`` (SFPLOAD, SFPLOADI), and
  ``VD < 12 || DISABLE_BACKDOOR_LOAD`` (evaluated against LaneConfig for VD 12..15;
  always true for instructions SFPLOADMACRO scheduled).
* Indirect operands (``LReg[LReg[7] & 15]``) are resolved from LReg[7] when checked.
* LReg[8..15] are included as read (constants); only SFPCONFIG writes 11..14.
"""

from __future__ import annotations

import numpy as np

from ....record import Record
from ...formats import layout as FL
from ...regs.dst import adj_rows
from .insn import NO_BACKDOOR
from .state import ALL_LANES, CAPTURE_DEFAULT_DEST_INDEX, DISABLE_BACKDOOR_LOAD, ENABLE_DEST_INDEX

#: what ttemu does after reporting a broken rule (docs/undefined-behaviour.md)
NEW = ("; ttemu completes every instruction as it issues, so the reader sees the result as if the software had "
       "obeyed the rule")
STALE = ("; ttemu gives the reader the value from before the producer's write (its result is not written yet), "
         "then the producer's result lands")

# -- the access table ----------------------------------------------------------------------
#: Guards: the whole instruction does nothing to LRegs unless it holds.
VD8 = "VD < 8 || VD == 16"
VD_LT8 = "VD < 8"
BACKDOOR = "VD < 12 || LaneConfig.DISABLE_BACKDOOR_LOAD"


class When(Record, frozen=True):
    """Operands that are accessed only when ``(Mod & mask) == value`` (or, with
    ``negate``, when it is not)."""

    mask: int
    value: int
    terms: tuple
    negate: bool = False


def when(mask: int, value: int, *terms) -> When:
    return When(mask, value, terms)


def unless(mask: int, value: int, *terms) -> When:
    return When(mask, value, terms, negate=True)


class Access(Record, frozen=True):
    """LRegs one instruction reads and writes. Terms: an int (that LReg), or a role:

    ``VA`` / ``VB`` / ``VC`` / ``VD`` the operand (``VD`` as a write only if
    ``VD < 8 || VD == 16``, as every page's model guards it; SFPLOADMACRO's VD is the
    one its SFPLOAD part uses); ``VB=VD`` / ``VC=VD`` the operand, defaulting to VD
    (the pages' ``unsigned VB = VD;``, skipped when SFPLOADMACRO supplied it);
    ``VD<8`` / ``VC<8`` written only if below 8; ``VD!`` written whatever its value;
    ``IND_VA`` / ``IND_VD`` ``LReg[LReg[7] & 15]`` (``IND_VD`` is VD itself when VD is
    16); ``DEST_INDEX`` SFPLOAD's second write to ``LReg[VD + 4]`` (VD < 4 and
    ENABLE_DEST_INDEX and CAPTURE_DEFAULT_DEST_INDEX in some lane); ``SWAP_INDEX``
    SFPSWAP's ``LReg[4 + (VC & 3)]`` and ``LReg[4 + (VD & 3)]`` (ENABLE_DEST_INDEX in
    some lane)."""

    guard: str | None = None
    reads: tuple = ()
    writes: tuple = ()


class ByMod(dict):
    """Access by the exact value of Mod1 (anything else: ``default``)."""

    def __init__(self, cases, default=Access()):
        super().__init__(cases)
        self.default = default


class ByVD(dict):
    """Access by the value of VD (SFPCONFIG's VD selects what it writes)."""


_MAD_WRITES = (unless(8, 8, "VD"), when(8, 8, "IND_VD"))  # Mod1 & SFPMAD_MOD1_INDIRECT_VD
_MAD = Access(BACKDOOR, reads=(unless(4, 4, "VA"), when(4, 4, 7, "IND_VA"), "VB", "VC", when(8, 8, 7)),
              writes=_MAD_WRITES)
_VC_TO_VD = Access(VD8, reads=("VC",), writes=("VD",))
_BITWISE = Access(VD8, reads=("VB=VD", "VC"), writes=("VD",))
_FIELD_SET = Access(VD8, reads=("VC", when(1, 0, "VB=VD")), writes=("VD",))  # Mod1 & ARG_IMM
_FLAGS_ONLY = Access(BACKDOOR)
_LOAD = Access(VD_LT8, reads=(when(0xE, 0xE, "VD"),), writes=("VD", "DEST_INDEX"))  # Mod0 14, 15: *_ONLY
_CONFIG_FROM_L0 = Access(reads=(when(1, 0, 0),))  # unless MOD1_IMM16_IS_VALUE

#: LRegs each Vector Unit instruction reads and writes, from the functional model of
#: its page (see the module docstring for the conventions).
LREG_ACCESS = {
    # load / store sub-units (SFPLOAD.md, SFPLOADI.md, SFPSTORE.md, SFPLOADMACRO.md, SFPNOP.md)
    "SFPLOAD": _LOAD,
    "SFPLOADMACRO": _LOAD,  # its SFPLOAD part; the instructions it schedules are checked as they run
    "SFPLOADI": Access(VD_LT8, reads=(when(0xD, 8, "VD"),), writes=("VD",)),  # Mod0 8 UPPER, 10 LOWER
    "SFPSTORE": Access(BACKDOOR, reads=("VD",)),
    "SFPNOP": Access(),
    # MAD sub-unit (SFPMAD.md; SFPADD.md and SFPMUL.md "as per SFPMAD"; SFPADDI.md, SFPMULI.md,
    # SFPLUT.md, SFPLUTFP32.md)
    "SFPMAD": _MAD,
    "SFPADD": _MAD,
    "SFPMUL": _MAD,
    "SFPADDI": Access(BACKDOOR, reads=("VC=VD", when(8, 8, 7)), writes=_MAD_WRITES),
    "SFPMULI": Access(BACKDOOR, reads=("VC=VD", when(8, 8, 7)), writes=_MAD_WRITES),
    "SFPLUT": Access(BACKDOOR, reads=(0, 1, 2, 3, when(8, 8, 7)), writes=_MAD_WRITES),
    # FP32 tables read LReg[0..2] and LReg[4..6]; FP16_3ENTRY_TABLE (Mod1 & 10 == 10) only LReg[0..2]
    "SFPLUTFP32": Access(BACKDOOR, reads=(0, 1, 2, 3, unless(10, 10, 4, 5, 6), when(8, 8, 7)),
                         writes=_MAD_WRITES),
    # simple sub-unit
    "SFPABS": _VC_TO_VD,
    "SFPAND": _BITWISE,
    "SFPOR": _BITWISE,
    "SFPXOR": _BITWISE,
    "SFPNOT": _VC_TO_VD,
    "SFPCAST": Access(BACKDOOR, reads=("VC",), writes=("VD",)),
    "SFPCOMPC": _FLAGS_ONLY,
    "SFPENCC": _FLAGS_ONLY,
    "SFPPUSHC": _FLAGS_ONLY,
    "SFPPOPC": _FLAGS_ONLY,
    "SFPSETCC": Access(BACKDOOR, reads=(when(9, 0, "VC"),)),
    "SFPGT": Access(BACKDOOR, reads=("VC", "VB=VD"), writes=(when(8, 8, "VD"),)),  # Blackhole: SET_VD (8)
    "SFPLE": Access(BACKDOOR, reads=("VC", "VB=VD"), writes=(when(8, 8, "VD"),)),  # not CLEAR (8), not IMM_BIT0 (1)
    # Blackhole only: SFPMUL24.md (as SFPMAD), SFPARECIP.md (VB in COND_RECIP, Mod1 1)
    "SFPMUL24": _MAD,
    "SFPARECIP": Access(VD8, reads=("VC", when(0xF, 1, "VB")), writes=("VD",)),
    "SFPCONFIG": ByVD({0: Access(reads=(0,)), 1: Access(reads=(0,)), 2: Access(reads=(0,)),
                       3: Access(reads=(0,)), 4: _CONFIG_FROM_L0, 5: _CONFIG_FROM_L0, 6: _CONFIG_FROM_L0,
                       7: _CONFIG_FROM_L0, 8: _CONFIG_FROM_L0, 9: Access(), 10: Access(),
                       11: Access(reads=(when(1, 0, 0),), writes=("VD!",)),
                       12: Access(reads=(when(1, 0, 0),), writes=("VD!",)),
                       13: Access(reads=(when(1, 0, 0),), writes=("VD!",)),
                       14: Access(reads=(when(1, 0, 0),), writes=("VD!",)), 15: _CONFIG_FROM_L0}),
    "SFPDIVP2": _VC_TO_VD,
    "SFPEXEXP": _VC_TO_VD,
    "SFPEXMAN": _VC_TO_VD,
    "SFPLZ": _VC_TO_VD,
    "SFPIADD": _FIELD_SET,  # VC + VB / VC - VB, or VC + Imm12 (ARG_IMM)
    "SFPSETEXP": _FIELD_SET,
    "SFPSETMAN": _FIELD_SET,
    "SFPSETSGN": _FIELD_SET,
    "SFPSHFT": Access(VD8, reads=("VB=VD", when(1, 0, "VC")), writes=("VD",)),  # ARG_IMM: no VC
    "SFPMOV": Access(BACKDOOR, reads=(when(8, 0, "VC"),), writes=("VD",)),  # FROM_SPECIAL: no LReg
    "SFPSWAP": Access(BACKDOOR, reads=("VC", "VD", "SWAP_INDEX"), writes=("VC<8", "VD<8", "SWAP_INDEX")),
    "SFPTRANSP": Access(BACKDOOR, reads=tuple(range(8)), writes=tuple(range(8))),
    # round sub-unit (SFPSTOCHRND_*.md: VB only in the IntInt modes 4 / 5 without UseImm5)
    "SFP_STOCH_RND": Access(BACKDOOR, reads=("VC", when(0xE, 4, "VB")), writes=("VD",)),
    "SFPSHFT2": ByMod({
        0: Access(BACKDOOR, reads=(1, 2, 3), writes=(0, 1, 2, 3)),  # COPY4
        1: Access(BACKDOOR, reads=(0, 1, 2, 3), writes=(0, 1, 2, 3)),  # SUBVEC_CHAINED_COPY4
        2: Access(BACKDOOR, reads=(1, 2, 3, "VC"), writes=(0, 1, 2, 3)),  # SUBVEC_SHFLROR1_AND_COPY4
        3: Access(BACKDOOR, reads=("VC",), writes=("VD",)),  # SUBVEC_SHFLROR1
        4: Access(VD8, reads=("VC",), writes=("VD",)),  # SUBVEC_SHFLSHR1
        5: Access(VD8, reads=("VB", "VC"), writes=("VD",)),  # SHFT_LREG
        6: Access(VD8, reads=("VB",), writes=("VD",)),  # SHFT_IMM (VB = Imm12 & 15)
    }),
}

#: The instructions whose pages forbid reading their results on the next cycle.
MAD_LATENCY = frozenset({"SFPMAD", "SFPADD", "SFPMUL", "SFPADDI", "SFPMULI", "SFPLUT", "SFPLUTFP32",
                         "SFPMUL24"})  # SFPMUL24: Blackhole only
MAD_PAGES = {m: f"{m}.md" for m in MAD_LATENCY}
#: SFPSHFT2.md: what may not execute the cycle after SFPSHFT2 Mod1 2, 3 or 4.
SHFT2_NEXT_FORBIDDEN = frozenset({
    "SFPABS", "SFPAND", "SFPCAST", "SFPDIVP2", "SFPEXEXP", "SFPEXMAN", "SFPIADD", "SFPLZ", "SFPMOV",
    "SFPNOT", "SFPOR", "SFPSETEXP", "SFPSETMAN", "SFPSETSGN", "SFPSHFT", "SFP_STOCH_RND", "SFPXOR"})
SHFT2_NEXT_FORBIDDEN_MODES = frozenset({0, 1, 5, 6})  # SFPSHFT2 itself with these Mod1
#: Instructions that may start a next-cycle rule (everything else skips the bookkeeping).
PRODUCERS = MAD_LATENCY | {"SFPSHFT2", "SFPCONFIG"}

#: A Vector Unit instruction unrelated in time to the one before it is placed this many
#: cycles later (far beyond any rule's window).
UNRELATED = 1 << 20


def load_vd(ins) -> int:
    """VD as the instruction's model uses it (SFPLOADMACRO: ``(VDHi << 2) | VDLo``)."""
    if ins.mnemonic == "SFPLOADMACRO":
        return ((ins.imm & 1) << 2) | (ins.vd & 3)
    return ins.vd


def entry_for(ins) -> Access:
    spec = LREG_ACCESS[ins.mnemonic]
    if isinstance(spec, ByMod):
        return spec.get(ins.mod, spec.default)
    if isinstance(spec, ByVD):
        return spec.get(ins.vd, Access())
    return spec


_EMPTY = frozenset()
_CACHE: dict = {}  # instruction signature -> (reads, writes) when they do not depend on state


def lreg_access(unit, ins) -> tuple[frozenset, frozenset]:
    """(LRegs read, LRegs written) by ``ins`` executed now on ``unit`` (a VectorUnit),
    per :data:`LREG_ACCESS`. Call before executing it (indirect operands read LReg[7]).
    Results that do not depend on LReg / LaneConfig contents are cached per instruction
    signature (and on the Insn itself: Insns are not changed once they run)."""
    hit = ins.access
    if hit is not None:
        return hit
    key = (ins.mnemonic, ins.mod, ins.vd, ins.vc, ins.vb, ins.va, ins.macro,
           ins.imm & 1 if ins.mnemonic == "SFPLOADMACRO" else 0)
    hit = _CACHE.get(key)
    if hit is not None:
        ins.access = hit
        return hit
    spec = entry_for(ins)
    vd = load_vd(ins)
    guard = spec.guard
    dynamic = [False]
    result = None
    if guard is not None:
        if guard is VD8:
            if not (vd < 8 or vd == 16):
                result = (_EMPTY, _EMPTY)
        elif guard is VD_LT8:
            if not vd < 8:
                result = (_EMPTY, _EMPTY)
        elif not (ins.macro or vd < 12 or vd == 16):
            dynamic[0] = True
            if not unit.cfg_bit(DISABLE_BACKDOOR_LOAD).any():
                result = (_EMPTY, _EMPTY)
    if result is None:
        reads, writes = set(), set()
        _resolve(unit, ins, vd, spec.reads, reads, False, dynamic)
        _resolve(unit, ins, vd, spec.writes, writes, True, dynamic)
        result = (frozenset(reads), frozenset(writes))
    if not dynamic[0]:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        _CACHE[key] = ins.access = result
    return result


def _indirect(unit) -> set:
    return {int(x) for x in np.unique(unit.lreg[7] & 15)}


def _resolve(unit, ins, vd, terms, out: set, write: bool, dynamic: list) -> None:
    for term in terms:
        if type(term) is int:
            out.add(term)
        elif isinstance(term, When):
            if ((ins.mod & term.mask) == term.value) != term.negate:
                _resolve(unit, ins, vd, term.terms, out, write, dynamic)
        elif term == "VD":
            if not write or vd < 8 or vd == 16:
                out.add(vd)
        elif term == "VC":
            out.add(ins.vc)
        elif term == "VB":
            out.add(ins.vb)
        elif term == "VA":
            out.add(ins.va)
        elif term == "VB=VD":
            out.add(vd if ins.vb is None else ins.vb)
        elif term == "VC=VD":
            out.add(vd if ins.vc is None else ins.vc)
        elif term == "VD<8":
            if vd < 8:
                out.add(vd)
        elif term == "VC<8":
            if ins.vc < 8:
                out.add(ins.vc)
        elif term == "VD!":
            out.add(vd)
        elif term == "IND_VA":
            dynamic[0] = True
            out |= _indirect(unit)
        elif term == "IND_VD":
            if vd == 16:
                out.add(16)
            else:
                dynamic[0] = True
                out |= {r for r in _indirect(unit) if r < 8}
        elif term == "DEST_INDEX":
            if vd < 4:
                dynamic[0] = True
                if (unit.cfg_bit(ENABLE_DEST_INDEX) & unit.cfg_bit(CAPTURE_DEFAULT_DEST_INDEX)).any():
                    out.add(vd + 4)
        elif term == "SWAP_INDEX":
            dynamic[0] = True
            if unit.cfg_bit(ENABLE_DEST_INDEX).any():
                out.update((4 + (ins.vc & 3), 4 + (vd & 3)))
        else:
            raise ValueError(f"LREG_ACCESS: unknown term {term!r} ({ins.mnemonic})")


# -- bookkeeping -----------------------------------------------------------------------------
class Rule(Record):
    """What one instruction forbids on the next cycle."""

    kind: str  # "read" / "write": of ``regs``; "insn": SFPSHFT2.md's list; "backdoor": SFPCONFIG.md;
    # "unseen": a read of ``regs`` the automatic stalling logic misses (Blackhole, undetected_reads)
    producer: object  # the Insn
    regs: frozenset
    page: str
    old: dict | None = None  # "read": LReg -> its lanes before the producer wrote (the stale value)

    def __init__(self, kind, producer, regs, page, old=None):  # (made for most Vector Unit instructions)
        self.kind, self.producer, self.regs, self.page, self.old = kind, producer, regs, page, old


def undetected_reads(ins, reads: frozenset) -> frozenset:
    """The reads of ``ins`` (``reads``: all of them, from LREG_ACCESS) that Blackhole's
    automatic stalling logic misses (SFPMAD.md, BlackholeA0, "Due to hardware bugs"):
    SFPAND / SFPOR with USE_VB read VB (it assumes VD); SFPIADD and SFPSHFT read VD;
    SFPCONFIG reads LReg[0]; SFPSWAP other than plain swap compares VC and VD a cycle
    early; SFPSHFT2 Mod1 2, 3, 4 read unnoticed, Mod1 5, 6 read VB (it assumes VD)."""
    m, mod, vd, vc = ins.mnemonic, ins.mod, ins.vd, ins.vc
    if ins.macro:
        return _EMPTY
    if m in ("SFPAND", "SFPOR"):
        return frozenset({ins.imm & 15} - {vc, vd}) if mod & 1 else _EMPTY
    if m == "SFPIADD" or (m == "SFPSHFT" and (mod & 5) != 5):
        return frozenset((reads & {vd}) - {vc})
    if m == "SFPCONFIG" or (m == "SFPSWAP" and mod != 0) or (m == "SFPSHFT2" and mod in (2, 3, 4)):
        return reads
    if m == "SFPSHFT2" and mod in (5, 6):
        return frozenset({ins.vb} - {vd, vc if mod == 5 else None})
    return _EMPTY


def describe(ins) -> str:
    return f"t{ins.thread} {ins.mnemonic}" + (" [scheduled by SFPLOADMACRO]" if ins.macro else "")


def regs_text(regs) -> str:
    return "/".join(f"L{r}" for r in sorted(regs))


class HazardOps:
    """Mixin of VectorUnit: the cycle bookkeeping and the checks (module docstring)."""

    def hz_reset(self) -> None:
        self.hz_rules = {}  # cycle -> [Rule] started by instructions run in that cycle
        self.hz_now = 0  # cycle of the latest Vector Unit event (instruction issued / cycle elapsed)
        self.hz_last = None  # (cycle, thread index, issued counts of the threads) of the latest issue
        self.hz_runners = {}  # Insn -> its _hz_mad_runner (False: none; 0: run once, none yet)

    # -- when does an issued instruction run --------------------------------------------------
    def hz_cycle(self, t, stalled: bool) -> int:
        """Cycle of the Vector Unit instruction thread ``t`` issues now (module docstring);
        ``stalled``: it follows an SFPSWAP and is not an SFPNOP (SFPSWAP.md: it runs no
        earlier than two cycles after the SFPSWAP)."""
        threads = self.cop.threads
        counts = (threads[0].issued, threads[1].issued, threads[2].issued)
        cycle = self.hz_cycle_of(t.index, counts, stalled)
        self.hz_last = (cycle, t.index, counts)
        return cycle

    def hz_cycle_of(self, u: int, counts: tuple, stalled: bool) -> int:
        """:meth:`hz_cycle` of thread ``u`` with the threads' issue counts ``counts``,
        without recording it."""
        last = self.hz_last
        cycle = None
        if last is not None:
            c, x, seen = last
            if u == x:
                cycle = c + 1 + (counts[u] - seen[u] - 1)
            elif counts[x] == seen[x] + 1 and counts[u] == seen[u]:
                cycle = c + 1
            if stalled and cycle is not None:
                cycle = max(cycle, c + 2)
        if cycle is None:
            cycle = max(self.hz_now, last[0] if last else 0) + UNRELATED
        return cycle

    # -- running one instruction ------------------------------------------------------------
    def hz_run(self, ins, cycle: int) -> None:
        """Execute ``ins`` in ``cycle``, checking the rules the previous cycle started and
        recording the ones it starts."""
        rules = self.hz_rules.get(cycle - 1)
        if rules:
            stale = self._hz_check(ins, rules)
            if stale:
                self._hz_run_stale(ins, cycle, stale)
                return
        self._hz_run(ins, cycle)

    def _hz_run_stale(self, ins, cycle: int, stale: dict) -> None:
        """Run ``ins`` reading LRegs a producer of the previous cycle writes (a broken
        "read" rule, reported): it sees their values from before that write (the
        producer's result is not written yet), and the producer's result then lands in
        each of them ``ins`` does not write itself."""
        _, writes = lreg_access(self, ins)
        lreg = self.lreg
        new = {r: lreg[r].copy() for r in stale}
        for r, old in stale.items():
            lreg[r] = old
        self._hz_run(ins, cycle)
        for r in stale:
            if r not in writes:
                lreg[r] = new[r]

    def _hz_run(self, ins, cycle: int) -> None:
        mnemonic = ins.mnemonic
        if mnemonic not in PRODUCERS:
            self.execute(ins)
            return
        if mnemonic in MAD_LATENCY:  # (the common producers, first)
            self._hz_run_mad(ins, cycle)
            return
        if mnemonic in self.hz_interlocked and not ins.macro:  # the hardware stalls a reader
            self.execute(ins)
            return
        if mnemonic == "SFPCONFIG":
            before = self.lane_config & DISABLE_BACKDOOR_LOAD if ins.vd == 15 else None
            self.execute(ins)
            if before is not None and np.any((self.lane_config & DISABLE_BACKDOOR_LOAD) != before):
                self._hz_add(cycle, Rule("backdoor", ins, frozenset(), "SFPCONFIG.md"))
            return
        if mnemonic == "SFPSHFT2":
            mod = ins.mod
            if mod in (2, 3, 4):
                reads, writes = lreg_access(self, ins)
                if mod == 2 and writes:
                    self._hz_add(cycle, Rule("read", ins, frozenset({0, 1, 2, 3}), "SFPSHFT2.md",
                                             {r: self.lreg[r].copy() for r in range(4)}))
                    self._hz_add(cycle, Rule("write", ins, frozenset({1, 2, 3}), "SFPSHFT2.md"))
                elif mod in (3, 4) and ins.vd < 8 and writes:
                    self._hz_add(cycle, Rule("read", ins, frozenset({ins.vd}), "SFPSHFT2.md",
                                             {ins.vd: self.lreg[ins.vd].copy()}))
                if mod == 4 or reads or writes:  # Mod1 2 / 3 as a pure backdoor write does nothing
                    self._hz_add(cycle, Rule("insn", ins, frozenset(), "SFPSHFT2.md"))
        else:
            _, writes = lreg_access(self, ins)
            if writes:
                self._hz_add(cycle, Rule("read", ins, writes, f"{mnemonic}.md",
                                         {r: self.lreg[r].copy() for r in writes}))
        self.execute(ins)

    def _hz_run_mad(self, ins, cycle: int) -> None:
        """:meth:`_hz_run` of a MAD-latency producer (MAD_LATENCY): the rule it starts (the
        LRegs it writes, with their values from before), then its executor; or the same
        by the instruction's runner (:meth:`_hz_mad_runner`), built once per Insn when it
        runs a second time (not for Insns SFPLOADMACRO schedules: each is run once)."""
        runners = self.hz_runners
        run = runners.get(ins)
        if run:
            if run(cycle):
                return
        elif run is None:  # first run: the general path (an Insn run once needs no runner)
            if len(runners) >= 4096:
                runners.clear()
            runners[ins] = 0 if not ins.macro else False  # (SFPLOADMACRO schedules a new Insn each time)
        elif run is not False:  # 0, the second run: build its runner
            run = runners[ins] = self._hz_mad_runner(ins) or False
            if run:
                ins.fast = run  # (MacroOps.issue_word calls it without this method)
                if run(cycle):
                    return
        access = ins.access or lreg_access(self, ins)
        writes = access[1]
        mnemonic = ins.mnemonic
        if writes:
            lreg = self.lreg
            if len(writes) == 1:
                for r in writes:
                    old = {r: lreg[r].copy()}
            else:
                old = {r: lreg[r].copy() for r in writes}
            if mnemonic in self.hz_interlocked and not ins.macro:
                # ArchSpec.sfpu_interlocked: the hardware stalls a reader, except for the
                # reads its stalling logic does not see (undetected_reads)
                rule = Rule("unseen", ins, writes, "SFPMAD.md (Blackhole)", old)
            else:
                rule = Rule("read", ins, writes, MAD_PAGES[mnemonic], old)
            self._hz_add(cycle, rule)
        fn = self.executors.get(mnemonic)  # (execute(ins))
        if fn is None:
            fn = self._executor(mnemonic)
        fn(ins)

    def _hz_mad_runner(self, ins):
        """:meth:`_hz_run_mad` of ``ins`` specialised (None where there is no such form): for
        a thread-issued instruction with a fixed VD < 8, the only LReg it writes, and a specialised
        computation (:meth:`.mad.MadOps.mad_compute`) that depends on nothing but its
        operand LRegs. ``run(cycle)`` records the rule (VD's value from before), computes
        and writes VD in the enabled lanes (:meth:`.state.VectorState.lane_enabled`: VD <
        12); it returns False, doing nothing, when ``lreg`` or ``hz_rules`` is no longer
        the object it was built for."""
        vd = ins.vd
        if vd is None or not 0 <= vd < 8 or ins.macro:
            return None
        compute = self.mad_compute(ins)
        if compute is None:
            return None
        lreg_access(self, ins)
        access = ins.access
        if access is None or access[1] != frozenset({vd}):  # (state-dependent, or not VD alone)
            return None
        writes = access[1]
        if ins.mnemonic in self.hz_interlocked:
            kind, page = "unseen", "SFPMAD.md (Blackhole)"
        else:
            kind, page = "read", MAD_PAGES[ins.mnemonic]
        lreg = self.lreg
        row = lreg[vd]
        rules = self.hz_rules
        copyto = np.copyto

        def run(cycle):
            if self.lreg is not lreg or self.hz_rules is not rules:
                return False
            rule = Rule(kind, ins, writes, page, {vd: row.copy()})
            got = rules.get(cycle)  # (_hz_add, inline: the runner is the hottest MAD path)
            if got is None:
                if len(rules) > 4:
                    for c in [c for c in rules if c < cycle - 1]:
                        del rules[c]
                rules[cycle] = [rule]
            else:
                got.append(rule)
            mask = self.lane_enabled()
            d = compute()
            if mask is ALL_LANES:
                row[...] = d
            else:
                copyto(row, d, where=mask)
            return True
        return run

    def _hz_add(self, cycle: int, rule: Rule) -> None:
        rules = self.hz_rules
        got = rules.get(cycle)
        if got is None:
            if len(rules) > 4:  # only the previous cycle's rules are ever consulted
                for c in [c for c in rules if c < cycle - 1]:
                    del rules[c]
            rules[cycle] = [rule]
        else:
            got.append(rule)

    def _hz_warn(self, producer, ins, rule: str, text: str, then: str = None) -> None:
        """A broken scheduling rule: a warning once per site (thread, rule, producer and
        consumer mnemonics), saying what ttemu does next (``then``, default :data:`NEW`)."""
        site = f"t{ins.thread} hazard {rule} {producer.mnemonic}->{ins.mnemonic}"
        if not self.cop.tile.diagnostics.again(site):
            self.cop.tile.undefined(site, text + (then or NEW))

    def _hz_check(self, ins, rules):
        """Report every broken rule; -> {LReg: stale value} for the reads that broke a
        "read" rule (None if none did)."""
        access = None
        stale = None
        for rule in rules:
            kind = rule.kind
            if kind == "insn":
                if ins.mnemonic in SHFT2_NEXT_FORBIDDEN or (ins.mnemonic == "SFPSHFT2"
                                                            and ins.mod in SHFT2_NEXT_FORBIDDEN_MODES):
                    what = f"{ins.mnemonic} Mod1={ins.mod}" if ins.mnemonic == "SFPSHFT2" else ins.mnemonic
                    self._hz_warn(rule.producer, ins, "SFPSHFT2.md next instruction",
                                  f"{describe(rule.producer)} (Mod1={rule.producer.mod}) followed on the next cycle "
                                  f"by {describe(ins)}: {what} may not execute on the cycle after SFPSHFT2 Mod1 2, 3 "
                                  f"or 4 (SFPSHFT2.md: software must insert an SFPNOP)")
                continue
            if kind == "backdoor":
                if (not ins.macro and ins.vd is not None and 12 <= ins.vd < 16
                        and ins.mnemonic not in NO_BACKDOOR):
                    self._hz_warn(rule.producer, ins, "SFPCONFIG.md DISABLE_BACKDOOR_LOAD",
                                  f"{describe(rule.producer)} (changes LaneConfig.DISABLE_BACKDOOR_LOAD) followed on "
                                  f"the next cycle by {describe(ins)} with VD={ins.vd}, which may see the old or the "
                                  f"new value (SFPCONFIG.md: software should insert an SFPNOP)")
                continue
            if access is None:
                access = lreg_access(self, ins)
            reads, writes = access
            if kind == "unseen":
                hit = rule.regs & undetected_reads(ins, reads)
                if hit:
                    p = rule.producer
                    self._hz_warn(p, ins, "SFPMAD.md unseen read",
                                  f"{describe(p)} (writes {regs_text(rule.regs)}) followed on the next cycle by "
                                  f"{describe(ins)} reading {regs_text(hit)}, a read Blackhole's automatic stalling "
                                  "does not detect (SFPMAD.md: software must insert an SFPNOP)", STALE)
                    stale = stale or {}
                    stale.update((r, rule.old[r]) for r in hit if r in rule.old)
                continue
            if kind == "read":
                hit = rule.regs & reads
                if hit:
                    p = rule.producer
                    what = f"writes {regs_text(rule.regs)}" if p.mnemonic != "SFPSHFT2" else f"Mod1={p.mod}"
                    self._hz_warn(p, ins, f"{rule.page} read",
                                  f"{describe(p)} ({what}) followed on the next cycle by {describe(ins)} reading "
                                  f"{regs_text(hit)} ({rule.page}: software must insert an SFPNOP)", STALE)
                    if rule.old is not None:
                        stale = stale or {}
                        stale.update((r, rule.old[r]) for r in hit if r in rule.old)
            elif kind == "write":
                hit = rule.regs & writes
                if hit:
                    self._hz_warn(rule.producer, ins, f"{rule.page} write",
                                  f"{describe(rule.producer)} (Mod1={rule.producer.mod}) followed on the next cycle "
                                  f"by {describe(ins)} writing {regs_text(hit)} ({rule.page}: software must insert "
                                  f"an SFPNOP)")
        return stale

    # -- SFPLOAD.md / SFPLOADMACRO.md: FPU writes to Dst, then SFPLOAD of the same rows --------
    def hz_dst_read(self, ins, mod0: int, addr: int, what: str = "SFPLOAD") -> None:
        """Check an SFPLOAD (or SFPLOADMACRO's SFPLOAD part) of ``ins.thread`` reading the
        four rows at ``addr`` against the Matrix Unit's recent Dst writes by the same
        thread (module docstring)."""
        log = getattr(self.cop.math, "dst_log", None)
        if not log:
            return
        th = self.cop.threads[ins.thread]
        now = th.issued
        fence = getattr(th, "fpu_fence", -1)
        rows = None
        for entry in reversed(log):
            thread, issued, kind, row, n, word = entry
            if thread != ins.thread:
                continue
            between = now - issued - 1
            if between >= 3 or fence > issued + 1:
                break  # this and every older write of the thread are far enough / fenced
            if rows is None:
                rows = set(_load_rows(mod0, addr))
            hit = rows & set(_written_rows(kind, row, n))
            if hit:
                table = self.cop.table
                spec, _ = table.decode(word)
                writer = f"{spec.mnemonic if spec is not None else hex(word)} ({table.disasm(word)})"
                self.cop.tile.undefined(
                    f"t{thread} hazard {what}.md Dst read after {spec.mnemonic if spec is not None else 'FPU'}",
                    f"t{thread} {writer} writes Dst rows that t{thread} {what} reads after only {between} "
                    f"other instruction{'s' if between != 1 else ''} (DstBits rows "
                    f"{min(hit)}..{max(hit)}; {what}.md: at least three unrelated Tensix instructions, or "
                    f"STALLWAIT with block bit B8 and condition C7, must come between)" + NEW)
                return


def _load_rows(mod0: int, addr: int):
    rows = ((addr & ~3) + np.arange(4)) & 0x3FF
    if mod0 in FL.SFPLOAD_READS_DST32:
        adj = adj_rows(rows)
        return [int(r) for r in np.concatenate([adj, adj + 8])]
    return [int(r) for r in rows]


def _written_rows(kind: str, row, n: int):
    """DstBits rows of a Matrix Unit Dst write logged as ``(kind, row, n)``."""
    if kind == "16":
        return [(row + i) & 0x3FF for i in range(n)]
    if kind == "32":
        adj = adj_rows(np.arange(row, row + n))
        return [int(r) for r in np.concatenate([adj, adj + 8])]
    return [int(r) for r in row]  # "rows": an array of DstBits rows


__all__ = ["LREG_ACCESS", "MAD_LATENCY", "PRODUCERS", "HazardOps", "lreg_access"]
