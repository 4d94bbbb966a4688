"""Vector Unit (SFPU): 8 LRegs x 32 lanes (plus constants and LReg[16]), lane flags
and the conditional-execution stack, the SFP* instructions, SFPLOADMACRO scheduling.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/VectorUnit.md, LReg.md,
FloatBitPatterns.md and one page per instruction (cited by each ``x_<MNEMONIC>``
method, which executes the instruction's functional model vectorised over the lanes).

Modules: :mod:`.state` (registers, lane enables, PRNG), :mod:`.fma` (both arches' FP32
multiply-add), :mod:`.fp` (other numerics), :mod:`.insn` (operand roles, sub-units),
:mod:`.simple`, :mod:`.mad`, :mod:`.rounding`, :mod:`.loadstore` (the sub-units' instructions),
:mod:`.macro` (issue path, SFPCONFIG, SFPLOADMACRO and its time model), :mod:`.hazards`
(the pages' "on the next cycle" scheduling rules and the LReg access table they use),
:mod:`.batch` (runs of a compiled MOP / REPLAY expansion executed together).

The ``@op`` methods below are what threads issue: each hands its decoded field values
(in the order :attr:`VectorUnit.issue_fields` names them) to :meth:`MacroOps.issue`,
which builds the :class:`~.insn.Insn` once per distinct instruction, handles
SFPLOADMACRO-scheduled work, the InstructionTemplate backdoor, and then runs
``x_<MNEMONIC>``.

Blackhole's Vector Unit differs (other encodings and instructions): on a Blackhole tile
the instructions whose BlackholeA0 page is the Wormhole page (``ArchSpec.sfpu_shared``)
run the Wormhole implementations; the others run the method ``ArchSpec.sfpu_variants``
names (:mod:`.blackhole`, ``bh_<MNEMONIC>``, with :mod:`.fp_bh`'s numerics and
:mod:`.fma`'s Blackhole rules).
"""

from __future__ import annotations

import functools

from .. import Unit, op
from .batch import BatchOps
from .hazards import HazardOps
from .loadstore import WORMHOLE, LoadStoreOps
from .lsfast import FastLoadStoreOps
from .macro import MacroOps
from .mad import MadOps
from .rounding import RoundOps
from .simple import SimpleOps
from .state import VectorState

#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset()
#: Blackhole instructions of this unit, not implemented (their pages differ from Wormhole's).
PENDING_BLACKHOLE = frozenset()


class VectorUnit(VectorState, SimpleOps, MadOps, RoundOps, LoadStoreOps, FastLoadStoreOps, MacroOps, HazardOps,
                 BatchOps, Unit):
    name = "sfpu"

    def __new__(cls, cop):
        """An arch whose ``sfpu_variants`` name methods this class lacks (Blackhole's
        ``bh_<MNEMONIC>``) gets it with :class:`.blackhole.BlackholeOps` mixed in; a
        Wormhole tile never imports that module."""
        if any(not hasattr(cls, name) for name in cop.arch.sfpu_variants.values()):
            cls = _with_variants(cls)
        return super().__new__(cls)

    def __init__(self, cop):
        self.cop = cop
        arch = cop.arch
        # mnemonic -> the method implementing this arch's page, where it is not x_<MNEMONIC>
        self.variants = {m: getattr(self, name) for m, name in arch.sfpu_variants.items()}
        self.field_masks = arch.sfpu_field_masks
        self.hz_interlocked = arch.sfpu_interlocked
        self.reset()
        # SFPLOAD / SFPSTORE: this arch's data (loadstore.LSArch); for their fast forms
        # (lsfast.py) the general forms they fall back to, one LSContext per thread;
        # ``ls_fast`` False issues the general forms (tests compare the two)
        self.ls_arch = getattr(self, "bh_ls_arch", WORMHOLE)
        self.general_load = self._executor("SFPLOAD")
        self.general_store = self._executor("SFPSTORE")
        self.ls_contexts = [None, None, None]
        self.ls_known = [{}, {}, {}]  # per thread: the LSContexts made, by what they were made from (lsfast.py)
        self.ls_lregs = (None,)  # FastLoadStoreOps._ls_lregs
        self.ls_fast = True
        # Config.PRNG_SEED_Seed_Val writes reach seed_prng() through the Configuration
        # Unit's config-write hook (ttemu/tensix/units/cfg.py).

    def ops(self):
        shared = self.cop.arch.sfpu_shared
        ops = super().ops()
        if shared is None:
            return ops
        return {m: fn for m, fn in ops.items() if m in shared or m in self.variants}

    def direct_route(self, handler, args: tuple):
        """For the frontend's dispatch table (Coprocessor.dispatch_entry, one entry per
        instruction word): an ``@op`` method below only forwards its fields to
        :meth:`MacroOps.issue`, so ``handler(t, *args)`` is ``issue(t, mnemonic, args)``,
        which is :meth:`MacroOps.issue_word` with this word's slot: -> ``(self.issue_word,
        ([None, None, None, mnemonic, args],))`` (for SFPNOP ``(self.issue_nop, ())``), or
        None for any other handler."""
        fn = getattr(handler, "__func__", None)
        mnemonic = getattr(fn, "tt_mnemonic", None)
        if mnemonic is None or VectorUnit.__dict__.get(mnemonic) is not fn or handler.__self__ is not self:
            return None
        if mnemonic == "SFPNOP":
            return self.issue_nop, ()
        return self.issue_word, ([None, None, None, mnemonic, tuple(args)],)

    # -- instructions as issued by a thread (fields by their table names) ----------------
    @op
    def SFPLOAD(self, t, dest_reg_addr, sfpu_addr_mode, instr_mod0, lreg_ind):
        """SFPLOAD.md"""
        self.issue(t, "SFPLOAD", (dest_reg_addr, sfpu_addr_mode, instr_mod0, lreg_ind))

    @op
    def SFPLOADI(self, t, imm16, instr_mod0, lreg_ind):
        """SFPLOADI.md"""
        self.issue(t, "SFPLOADI", (imm16, instr_mod0, lreg_ind))

    @op
    def SFPSTORE(self, t, dest_reg_addr, sfpu_addr_mode, instr_mod0, lreg_ind):
        """SFPSTORE.md"""
        self.issue(t, "SFPSTORE", (dest_reg_addr, sfpu_addr_mode, instr_mod0, lreg_ind))

    @op
    def SFPLOADMACRO(self, t, dest_reg_addr, sfpu_addr_mode, instr_mod0, lreg_ind):
        """SFPLOADMACRO.md"""
        self.issue(t, "SFPLOADMACRO", (dest_reg_addr, sfpu_addr_mode, instr_mod0, lreg_ind))

    @op
    def SFPLUT(self, t, dest_reg_addr, instr_mod0, lreg_ind):
        """SFPLUT.md"""
        self.issue(t, "SFPLUT", (dest_reg_addr, instr_mod0, lreg_ind))

    @op
    def SFPLUTFP32(self, t, instr_mod1, lreg_dest):
        """SFPLUTFP32.md"""
        self.issue(t, "SFPLUTFP32", (instr_mod1, lreg_dest))

    @op
    def SFPMULI(self, t, instr_mod1, lreg_dest, imm16_math):
        """SFPMULI.md"""
        self.issue(t, "SFPMULI", (instr_mod1, lreg_dest, imm16_math))

    @op
    def SFPADDI(self, t, instr_mod1, lreg_dest, imm16_math):
        """SFPADDI.md"""
        self.issue(t, "SFPADDI", (instr_mod1, lreg_dest, imm16_math))

    @op
    def SFPCONFIG(self, t, instr_mod1, config_dest, imm16_math):
        """SFPCONFIG.md"""
        self.issue(t, "SFPCONFIG", (instr_mod1, config_dest, imm16_math))

    @op
    def SFPMAD(self, t, instr_mod1, lreg_dest, lreg_src_c, lreg_src_b, lreg_src_a):
        """SFPMAD.md"""
        self.issue(t, "SFPMAD", (instr_mod1, lreg_dest, lreg_src_c, lreg_src_b, lreg_src_a))

    @op
    def SFPADD(self, t, instr_mod1, lreg_dest, lreg_src_c, lreg_src_b, lreg_src_a):
        """SFPADD.md"""
        self.issue(t, "SFPADD", (instr_mod1, lreg_dest, lreg_src_c, lreg_src_b, lreg_src_a))

    @op
    def SFPMUL(self, t, instr_mod1, lreg_dest, lreg_src_c, lreg_src_b, lreg_src_a):
        """SFPMUL.md"""
        self.issue(t, "SFPMUL", (instr_mod1, lreg_dest, lreg_src_c, lreg_src_b, lreg_src_a))

    @op
    def SFP_STOCH_RND(self, t, instr_mod1, lreg_dest, lreg_src_c, lreg_src_b, imm8_math, rnd_mode):
        """SFPSTOCHRND.md"""
        self.issue(t, "SFP_STOCH_RND", (instr_mod1, lreg_dest, lreg_src_c, lreg_src_b, imm8_math, rnd_mode))

    @op
    def SFPCAST(self, t, instr_mod1, lreg_dest, lreg_src_c):
        """SFPCAST.md"""
        self.issue(t, "SFPCAST", (instr_mod1, lreg_dest, lreg_src_c))

    @op
    def SFPSWAP(self, t, instr_mod1, lreg_dest, lreg_src_c, imm12_math):
        """SFPSWAP.md"""
        self.issue(t, "SFPSWAP", (instr_mod1, lreg_dest, lreg_src_c, imm12_math))

    @op
    def SFPSHFT2(self, t, instr_mod1, lreg_dest, lreg_src_c, imm12_math):
        """SFPSHFT2.md"""
        self.issue(t, "SFPSHFT2", (instr_mod1, lreg_dest, lreg_src_c, imm12_math))

    @op
    def SFPMUL24(self, t, instr_mod1, lreg_dest, lreg_src_c, lreg_src_b, lreg_src_a):
        """SFPMUL24.md (Blackhole only)"""
        self.issue(t, "SFPMUL24", (instr_mod1, lreg_dest, lreg_src_c, lreg_src_b, lreg_src_a))

    @op
    def SFPNOP(self, t):
        """SFPNOP.md"""
        self.issue(t, "SFPNOP", ())

    # The "Mod1 family" (instr_mod1, lreg_dest, lreg_c, imm12_math).
    def _mod1(mnemonic):  # noqa: N805 - class-body helper
        def fn(self, t, instr_mod1, lreg_dest, lreg_c, imm12_math):
            self.issue(t, mnemonic, (instr_mod1, lreg_dest, lreg_c, imm12_math))
        fn.__name__ = fn.__qualname__ = mnemonic
        fn.__doc__ = f"{mnemonic}.md"
        return op(fn)

    SFPDIVP2 = _mod1("SFPDIVP2")
    SFPEXEXP = _mod1("SFPEXEXP")
    SFPEXMAN = _mod1("SFPEXMAN")
    SFPIADD = _mod1("SFPIADD")
    SFPSHFT = _mod1("SFPSHFT")
    SFPSETCC = _mod1("SFPSETCC")
    SFPMOV = _mod1("SFPMOV")
    SFPABS = _mod1("SFPABS")
    SFPAND = _mod1("SFPAND")
    SFPOR = _mod1("SFPOR")
    SFPNOT = _mod1("SFPNOT")
    SFPLZ = _mod1("SFPLZ")
    SFPSETEXP = _mod1("SFPSETEXP")
    SFPSETMAN = _mod1("SFPSETMAN")
    SFPPUSHC = _mod1("SFPPUSHC")
    SFPPOPC = _mod1("SFPPOPC")
    SFPSETSGN = _mod1("SFPSETSGN")
    SFPENCC = _mod1("SFPENCC")
    SFPCOMPC = _mod1("SFPCOMPC")
    SFPTRANSP = _mod1("SFPTRANSP")
    SFPXOR = _mod1("SFPXOR")
    SFPGT = _mod1("SFPGT")  # Blackhole only
    SFPLE = _mod1("SFPLE")  # Blackhole only
    SFPARECIP = _mod1("SFPARECIP")  # Blackhole only
    del _mod1


#: mnemonic -> the field names its ``@op`` method hands to :meth:`MacroOps.issue` (in order)
VectorUnit.issue_fields = {fn.tt_mnemonic: fn.__code__.co_varnames[2:fn.__code__.co_argcount]
                           for fn in vars(VectorUnit).values() if getattr(fn, "tt_mnemonic", None)}


@functools.cache
def _with_variants(base):
    from .blackhole import BlackholeOps

    names = {"__module__": base.__module__, "__qualname__": base.__qualname__}
    return type(base.__name__, (base, BlackholeOps), names)


__all__ = ["VectorUnit", "PENDING", "PENDING_BLACKHOLE"]
