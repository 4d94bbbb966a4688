"""A Vector Unit instruction with its operands in the roles the ISA pages use
(VA, VB, VC, VD, Mod, Imm), for both issue paths: a thread issuing it, and
SFPLOADMACRO scheduling it from an instruction template (SFPLOADMACRO.md,
``ParseInsn`` and the operand overrides).

Operand roles come from the instruction table's field names: ``lreg_dest`` /
``lreg_ind`` / ``config_dest`` are VD, ``lreg_c`` / ``lreg_src_c`` are VC,
``lreg_src_b`` is VB, ``lreg_src_a`` is VA. SFPSHFT2 has VB in the low four bits of
its 12-bit immediate (SFPSHFT2.md syntax). An instruction without a VB (or VC) field
has ``vb`` (``vc``) None: that is SFPLOADMACRO's ``Insn.VB is None``, and the pages'
``unsigned VB = VD;`` / ``unsigned VC = VD;`` apply to it.
"""

from __future__ import annotations

#: Sub-units (VectorUnit.md "Sub-units"; SFPLOADMACRO.md table).
LOAD, SIMPLE, MAD, ROUND, STORE = "load", "simple", "mad", "round", "store"
#: Sub-units SFPLOADMACRO schedules to, in its ``enumerate`` order.
MACRO_SUBUNITS = (SIMPLE, MAD, ROUND, STORE)

#: What each sub-unit can execute when scheduled by SFPLOADMACRO (SFPLOADMACRO.md table).
CAN_EXECUTE = {
    SIMPLE: frozenset({
        "SFPABS", "SFPAND", "SFPCAST", "SFPCOMPC", "SFPCONFIG", "SFPDIVP2", "SFPENCC", "SFPEXEXP",
        "SFPEXMAN", "SFPIADD", "SFPLZ", "SFPMOV", "SFPNOP", "SFPNOT", "SFPOR", "SFPPOPC", "SFPPUSHC",
        "SFPSETCC", "SFPSETEXP", "SFPSETMAN", "SFPSETSGN", "SFPSHFT", "SFPSWAP", "SFPTRANSP", "SFPXOR",
        "SFPARECIP", "SFPGT", "SFPLE"}),  # the last three: Blackhole only (its SFPLOADMACRO.md table)
    MAD: frozenset({"SFPADD", "SFPADDI", "SFPLUT", "SFPLUTFP32", "SFPMAD", "SFPMUL", "SFPMULI", "SFPNOP",
                    "SFPMUL24"}),  # SFPMUL24: Blackhole only
    ROUND: frozenset({"SFPNOP", "SFPSHFT2", "SFP_STOCH_RND"}),
    STORE: frozenset({"SFPSTORE"}),
}

#: Sub-unit a thread-issued instruction occupies (the "Backend execution unit" line of
#: each page; SFPNOP, SFPLOAD, SFPLOADI and SFPLOADMACRO are load sub-unit instructions;
#: SFPSWAP and SFPCONFIG, whose pages only say "Vector Unit", are taken as simple, as
#: SFPLOADMACRO's table lists them there).
REGULAR_SUBUNIT = {m: SIMPLE for m in CAN_EXECUTE[SIMPLE]}
REGULAR_SUBUNIT.update({m: MAD for m in CAN_EXECUTE[MAD]})
REGULAR_SUBUNIT.update({m: ROUND for m in CAN_EXECUTE[ROUND]})
REGULAR_SUBUNIT.update({"SFPSTORE": STORE, "SFPNOP": LOAD, "SFPLOAD": LOAD, "SFPLOADI": LOAD,
                        "SFPLOADMACRO": LOAD})

#: Instructions whose VD >= 12 is not a backdoor write of LoadMacroConfig's
#: InstructionTemplate (SFPCONFIG.md ``DISABLE_BACKDOOR_LOAD``): SFPCONFIG's VD selects
#: configuration, SFPNOP has no VD, SFPLOADMACRO's VD is at most 7.
NO_BACKDOOR = frozenset({"SFPCONFIG", "SFPNOP", "SFPLOADMACRO"})

_VD = ("lreg_dest", "lreg_ind", "config_dest")
_VC = ("lreg_c", "lreg_src_c")
_MOD = ("instr_mod1", "instr_mod0")
_IMM = ("imm16", "imm16_math", "imm12_math", "imm8_math", "dest_reg_addr")
#: field names (in order) -> the field names giving VD, VC, Mod, Imm (None: absent); a memo
_ROLES: dict = {}


class Insn:
    """One instruction, operands by role. ``macro`` marks an instruction scheduled by
    SFPLOADMACRO (then ``addr`` / ``mod`` of an SFPSTORE are the overridden ones)."""

    __slots__ = ("mnemonic", "fields", "thread", "vd", "vc", "vb", "va", "mod", "imm", "addr_mod",
                 "rnd", "macro", "addr", "word", "access", "fast")

    def __init__(self, mnemonic: str, fields, thread: int, own: bool = False):
        self.mnemonic = mnemonic
        self.fields = f = fields if own else dict(fields)  # own: the caller hands over a fresh dict
        self.thread = thread
        keys = tuple(f)
        roles = _ROLES.get(keys)
        if roles is None:
            roles = _ROLES[keys] = tuple(next((k for k in names if k in f), None) for names in (_VD, _VC, _MOD, _IMM))
        vd, vc, mod, imm = roles
        self.vd = None if vd is None else f[vd]
        self.vc = None if vc is None else f[vc]
        self.vb = f.get("lreg_src_b")
        self.va = f.get("lreg_src_a")
        self.mod = 0 if mod is None else f[mod]
        self.imm = 0 if imm is None else f[imm]
        self.addr_mod = f.get("sfpu_addr_mode", 0)
        self.rnd = f.get("rnd_mode", 0)
        if mnemonic == "SFPSHFT2" or mnemonic == "SFPARECIP":  # VB in Imm12's low bits (SFPARECIP: Blackhole)
            self.vb = self.imm & 15
        self.macro = False
        self.addr = None
        self.word = None  # the instruction's 32-bit word, when known
        self.access = None  # (LRegs read, written) when they do not depend on state (hazards.py)
        # what a fast form prepared for it: SFPLOAD / SFPSTORE, with what it depends on (lsfast.py);
        # a MAD-latency instruction, its runner (hazards.py HazardOps._hz_mad_runner)
        self.fast = None

    def __repr__(self):
        ops = ", ".join(f"{k}={getattr(self, k)}" for k in ("vd", "vc", "vb", "va", "mod", "imm")
                        if getattr(self, k) is not None)
        return f"{self.mnemonic}({ops}{', macro' if self.macro else ''})"


def sext(value: int, bits: int) -> int:
    """Two's complement sign extension of a ``bits``-wide field."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value
