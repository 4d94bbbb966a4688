"""Simple sub-unit instructions: integer and bitwise arithmetic, FP32 field
manipulation, moves, SFPSWAP, SFPTRANSP, SFPCAST, and the conditional-execution
instructions (lane flags and the flag stack).

Each ``x_<MNEMONIC>`` executes one instruction (an :class:`~.insn.Insn`) as the
functional model of the page its docstring names, vectorised over the 32 lanes.
"""

from __future__ import annotations

import numpy as np

from .fp import clz32, sign_mag_key
from .insn import sext
from .state import (ALL_LANES, COL, DISABLE_BACKDOOR_LOAD, ENABLE_DEST_INDEX, EXCHANGE_SRCB_SRCC, LANES, STACK_DEPTH,
                    U32)

SIGN = U32(0x80000000)
_TRUE = np.ones(32, dtype=bool)  # (copied, never handed out)
_TRUE.setflags(write=False)
_FALSE = np.zeros(32, dtype=bool)
_FALSE.setflags(write=False)
#: SFPSETCC's comparisons of VC as int32 with 0, by Mod1 (0: <, 2: !=, 4: >=, 6: ==), made on
#: the uint32 bits (< 0: the sign bit set) with 0-d operands (cheaper than a Python int's)
_SETCC = {0: (np.greater_equal, np.array(0x80000000, dtype=U32)), 2: (np.not_equal, np.array(0, dtype=U32)),
          4: (np.less, np.array(0x80000000, dtype=U32)), 6: (np.equal, np.array(0, dtype=U32))}


def _vb(ins) -> int:
    """``unsigned VB = VD;`` unless SFPLOADMACRO supplied VB."""
    return ins.vd if ins.vb is None else ins.vb


class SimpleOps:
    def _set_flags(self, en, new) -> None:
        """LaneFlags = ``new`` (a fresh array) in the lanes of ``en``."""
        if en is ALL_LANES:
            self.flags = new
        else:  # (np.where(en, new, flags), in fewer steps)
            flags = self.flags.copy()
            np.copyto(flags, new, where=en)
            self.flags = flags

    # -- bitwise ------------------------------------------------------------------------
    def _bitwise(self, ins, fn):
        if ins.vd < 8 or ins.vd == 16:
            self.write(ins.vd, fn(self.lreg[_vb(ins)], self.lreg[ins.vc]), self.lane_enabled())

    def x_SFPAND(self, ins):
        """SFPAND.md: ``VD = VB & VC`` with ``VB = VD``."""
        self._bitwise(ins, np.bitwise_and)

    def x_SFPOR(self, ins):
        """SFPOR.md: ``VD = VB | VC`` with ``VB = VD``."""
        self._bitwise(ins, np.bitwise_or)

    def x_SFPXOR(self, ins):
        """SFPXOR.md: ``VD = VB ^ VC`` with ``VB = VD``."""
        self._bitwise(ins, np.bitwise_xor)

    def x_SFPNOT(self, ins):
        """SFPNOT.md: ``VD = ~VC``."""
        if ins.vd < 8 or ins.vd == 16:
            self.write(ins.vd, ~self.lreg[ins.vc], self.lane_enabled())

    def x_SFPSHFT(self, ins):
        """SFPSHFT.md: logical shift of VB (= VD) left by VC or Imm12 (signed), right when negative."""
        if not (ins.vd < 8 or ins.vd == 16):
            return
        if ins.mod & 1:  # SFPSHFT_MOD1_ARG_IMM
            amount = np.full(32, sext(ins.imm, 12), dtype=np.int64)
        else:
            amount = self.lreg[ins.vc].view(np.int32).astype(np.int64)
        self.write(ins.vd, shift(self.lreg[_vb(ins)], amount), self.lane_enabled())

    # -- integer arithmetic ---------------------------------------------------------------
    def x_SFPIADD(self, ins):
        """SFPIADD.md: ``VD = VC + VB``, ``VC - VB`` or ``VC + SignExtend(Imm12)`` (VB = VD),
        then LaneFlags from the sign of the result (unless CC_NONE), inverted by CC_GTE0."""
        if not (ins.vd < 8 or ins.vd == 16):
            return
        en = self.lane_enabled()
        c = self.lreg[ins.vc]
        if ins.mod & 1:  # ARG_IMM
            d = c + U32(sext(ins.imm, 12) & 0xFFFFFFFF)
        elif ins.mod & 2:  # ARG_2SCOMP_LREG_DST
            d = c - self.lreg[_vb(ins)]
        else:
            d = c + self.lreg[_vb(ins)]
        d = d.astype(U32)
        self.write(ins.vd, d, en)
        if ins.vd < 8:
            flags = self.flags.copy()
            if not ins.mod & 4:  # not CC_NONE
                flags = (d & SIGN) != 0
            if ins.mod & 8:  # CC_GTE0
                flags = ~flags
            self._set_flags(en, flags)

    def x_SFPABS(self, ins):
        """SFPABS.md: two's complement |x| (-2**31 stays), or FP32 |x| keeping -NaN (Mod1 & 1)."""
        if not (ins.vd < 8 or ins.vd == 16):
            return
        x = self.lreg[ins.vc]
        neg = x >= SIGN
        if ins.mod & 1:  # SFPABS_MOD1_FLOAT
            y = np.where(neg & (x < U32(0xFF800000)), x & U32(0x7FFFFFFF), x)
        else:
            y = np.where(neg, U32(0) - x, x)
        self.write(ins.vd, y, self.lane_enabled())

    def x_SFPLZ(self, ins):
        """SFPLZ.md: count leading zeros of VC (sign masked off with NOSGN_MASK), optionally
        LaneFlags = VC != 0 (CC_NE0), inverted by CC_COMP. (VC is read before VD is
        written: with VC == VD the flags come from the input.)"""
        if not (ins.vd < 8 or ins.vd == 16):
            return
        en = self.lane_enabled()
        c = self.lreg[ins.vc]
        if ins.mod & 4:  # NOSGN_MASK
            c = c & U32(0x7FFFFFFF)
        nonzero = c != 0
        self.write(ins.vd, clz32(c).astype(U32), en)
        if ins.vd < 8:
            flags = self.flags.copy()
            if ins.mod & 2:  # CC_NE0
                flags = nonzero
            if ins.mod & 8:  # CC_COMP
                flags = ~flags
            self._set_flags(en, flags)

    # -- FP32 fields ----------------------------------------------------------------------
    def x_SFPEXEXP(self, ins):
        """SFPEXEXP.md: ``VD = VC.Exp - 127`` (or ``VC.Exp`` with NODEBIAS); LaneFlags from
        its sign (SET_CC_SGN_EXP), inverted by SET_CC_COMP_EXP."""
        if not (ins.vd < 8 or ins.vd == 16):
            return
        en = self.lane_enabled()
        bias = 0 if ins.mod & 1 else 127
        d = (((self.lreg[ins.vc] >> 23) & 0xFF).astype(np.int64) - bias).astype(np.int32)
        self.write(ins.vd, d.view(U32), en)
        if ins.vd < 8:
            flags = self.flags.copy()
            if ins.mod & 2:
                flags = d < 0
            if ins.mod & 8:
                flags = ~flags
            self._set_flags(en, flags)

    def x_SFPEXMAN(self, ins):
        """SFPEXMAN.md: ``VD = {0, !PAD9, VC.Mant}``."""
        if ins.vd < 8 or ins.vd == 16:
            hidden = U32(0) if ins.mod & 1 else U32(1 << 23)
            self.write(ins.vd, (self.lreg[ins.vc] & U32(0x7FFFFF)) + hidden, self.lane_enabled())

    def x_SFPSETEXP(self, ins):
        """SFPSETEXP.md: ``VD = {VC.Sign, E, VC.Mant}`` with E = Imm8 (ARG_IMM), VB.Exp
        (ARG_EXPONENT) or VB & 255, VB = VD."""
        if not (ins.vd < 8 or ins.vd == 16):
            return
        c = self.lreg[ins.vc]
        if ins.mod & 1:
            exp = U32(ins.imm & 0xFF)
        else:
            b = self.lreg[_vb(ins)]
            exp = (b >> 23) & 0xFF if ins.mod & 2 else b & 0xFF
        self.write(ins.vd, (c & U32(0x807FFFFF)) | (exp << 23), self.lane_enabled())

    def x_SFPSETMAN(self, ins):
        """SFPSETMAN.md: ``VD = {VC.Sign, VC.Exp, M}`` with M = Imm12 << 11 (ARG_IMM) or the
        low 23 bits of VB, VB = VD."""
        if not (ins.vd < 8 or ins.vd == 16):
            return
        c = self.lreg[ins.vc]
        if ins.mod & 1:
            man = U32((ins.imm & 0xFFF) << 11)
        else:
            man = self.lreg[_vb(ins)] & U32(0x7FFFFF)
        self.write(ins.vd, (c & U32(0xFF800000)) | man, self.lane_enabled())

    def x_SFPSETSGN(self, ins):
        """SFPSETSGN.md: ``VD = {S, VC.Exp, VC.Mant}`` with S = Imm1 (ARG_IMM) or VB's sign, VB = VD."""
        if not (ins.vd < 8 or ins.vd == 16):
            return
        c = self.lreg[ins.vc]
        sign = U32((ins.imm & 1) << 31) if ins.mod & 1 else self.lreg[_vb(ins)] & SIGN
        self.write(ins.vd, (c & U32(0x7FFFFFFF)) | sign, self.lane_enabled())

    def x_SFPDIVP2(self, ins):
        """SFPDIVP2.md: exponent := Imm8, or (Mod1 & ADD) exponent += Imm8 wrapping mod 256,
        leaving Inf/NaN unchanged."""
        if not (ins.vd < 8 or ins.vd == 16):
            return
        c = self.lreg[ins.vc]
        exp = (c >> 23) & 0xFF
        imm = U32(ins.imm & 0xFF)
        if ins.mod & 1:
            exp = np.where(exp == 255, exp, (exp + imm) & 0xFF)
        else:
            exp = np.full(32, imm, dtype=U32)
        self.write(ins.vd, (c & U32(0x807FFFFF)) | (exp.astype(U32) << 23), self.lane_enabled())

    # -- moves ----------------------------------------------------------------------------
    def x_SFPMOV(self, ins):
        """SFPMOV.md: ``VD = VC`` (sign-inverted with NEGATE), or (FROM_SPECIAL) a
        configuration register / PRNG output selected by VC; Mod1 == ALL_LANES_ENABLED
        ignores the lane enables."""
        en = self.gate(ins) & (self.lane_enabled() | (ins.mod == 2))
        if ins.mod & 8:  # FROM_SPECIAL
            vc = ins.vc
            if vc < 4:
                x = self.lm_template[vc].copy()
            elif vc < 8:
                x = self.lm_sequence[vc - 4].copy()
            elif vc == 8:
                x = self.lm_misc.copy()
            elif vc == 9:
                x = self.advance_prng(en)
            elif vc == 15:
                x = self.lane_config.copy()
            else:
                x = np.zeros(32, dtype=U32)
        else:
            x = self.lreg[ins.vc].copy()
            if ins.mod & 1:
                x ^= SIGN
        self.write(ins.vd, x, en)

    def x_SFPCAST(self, ins):
        """SFPCAST.md: sign-magnitude integer -> FP32, round to nearest even or (Mod1 & 1)
        stochastically with seven PRNG bits."""
        en = self.enabled(ins)
        c = self.lreg[ins.vc]
        sign = c & SIGN
        mag = c & U32(0x7FFFFFFF)
        lz = np.where(mag != 0, clz32(mag), 157).astype(U32)
        norm = (mag << (lz & 31)).astype(U32)
        d = (sign + ((U32(157) - lz) << 23) + (norm >> 8)).astype(U32)
        if ins.mod & 1:  # SFPCAST_MOD1_RND_STOCH
            rnd = self.advance_prng(en)
            up = (norm & 0xFE) > ((rnd >> 9) & 0xFE)
        else:
            up = ((norm & 0x80) != 0) & ((norm & 0x17F) != 0)
        d = (d + up.astype(U32)).astype(U32)
        self.write(ins.vd, d, en)

    def x_SFPSWAP(self, ins):
        """SFPSWAP.md: swap VD and VC, or lanewise min/max (VD gets the minimum in the lanes
        the mode selects, the maximum elsewhere) in the sign-magnitude total order; with
        LaneConfig.ENABLE_DEST_INDEX, argmin/argmax (LReg[4 + (V & 3)] follow the swap)."""
        mod = ins.mod
        gets_min = {1: 0xFFFFFFFF, 2: 0x0000FFFF, 3: 0x00FF00FF, 4: 0xFF0000FF, 5: 0x000000FF,
                    6: 0x0000FF00, 7: 0x00FF0000, 8: 0xFF000000}
        if mod != 0 and mod not in gets_min:
            self.cop.undefined(f"SFPSWAP Mod1={mod}",
                               f"Mod1={mod} is not a documented mode (SFPSWAP.md: VDGetsMin undefined); ttemu "
                               "uses VDGetsMin = 0, VD gets the maximum in every lane (ttsim's Mod1 9)")
            gets_min[mod] = 0
        vc, vd = ins.vc, ins.vd
        en = self.enabled(ins)
        cval = self.lreg[vc].copy()
        dval = self.lreg[vd].copy()
        if mod == 0:
            swap = np.ones(32, dtype=bool)
        else:
            want_min = ((gets_min[mod] >> LANES) & 1) != 0
            c_smaller = sign_mag_key(cval) < sign_mag_key(dval)
            swap = np.where(want_min, c_smaller, ~c_smaller)
            swap ^= self.cfg_bit(EXCHANGE_SRCB_SRCC)
        swap &= en
        index = swap & self.cfg_bit(ENABLE_DEST_INDEX)
        plain = swap & ~index
        if vc < 8:
            self.lreg[vc][plain] = dval[plain]
        if vd < 8:
            self.lreg[vd][plain] = cval[plain]
        if index.any():
            if vc < 4:
                self.lreg[vc][index] = dval[index]
            if vd < 4:
                self.lreg[vd][index] = cval[index]
            vca, vda = 4 + (vc & 3), 4 + (vd & 3)
            ca, da = self.lreg[vca].copy(), self.lreg[vda].copy()
            self.lreg[vca][index] = da[index]
            self.lreg[vda][index] = ca[index]

    def x_SFPTRANSP(self, ins):
        """SFPTRANSP.md: within each lane column, transpose the 4x4 block formed by the rows
        of LReg[0..3] (and of LReg[4..7]); a lane only receives a value when enabled."""
        en = (self.enabled(ins)).reshape(4, 8)
        for base in (0, 4):
            block = self.lreg[base:base + 4].reshape(4, 4, 8)  # [register, row, column]
            new = block.transpose(1, 0, 2)  # new[i][j] = old[j][i]
            out = np.where(en[None, :, :], new, block)
            self.lreg[base:base + 4] = out.reshape(4, 32)

    # -- conditional execution ------------------------------------------------------------
    def _top(self, empty_flags: bool, empty_use: bool):
        """(Top.LaneFlags, Top.UseLaneFlagsForLaneEnable) per lane, given the values the
        page uses for an empty stack."""
        n = self.stack_size
        idx = (n - 1) & (STACK_DEPTH - 1)  # the counter is four bits, the slots eight (seed 004)
        empty = n == 0
        top_f = np.where(empty, empty_flags, self.stack_flags[idx, LANES])
        top_u = np.where(empty, empty_use, self.stack_use[idx, LANES])
        return top_f, top_u

    def x_SFPENCC(self, ins):
        """SFPENCC.md: set UseLaneFlagsForLaneEnable (EI: from the immediate's bit 0; EC:
        invert) and LaneFlags (RI: from the immediate's bit 1; otherwise true), in every
        lane regardless of the lane enables.

        The page's model reads ``Mod1 & SFPENCC_IMM12_E`` / ``Mod1 & SFPENCC_IMM12_R``,
        which would leave the Imm2 operand unused and make "enable from immediate"
        (Mod1 = EI) always disable; the constants are named IMM12_* and the syntax has an
        Imm2 operand, so the model here reads the immediate."""
        g = self.gate(ins)
        if ins.mod & 2:  # EI
            use = (_TRUE if ins.imm & 1 else _FALSE).copy()
        elif ins.mod & 1:  # EC
            use = ~self.use_flags
        else:
            use = self.use_flags
        flags = (_TRUE if not ins.mod & 8 or ins.imm & 2 else _FALSE).copy()
        if g is ALL_LANES:
            self.use_flags = use
            self.flags = flags
        else:
            self.use_flags = np.where(g, use, self.use_flags)
            self.flags = np.where(g, flags, self.flags)

    def x_SFPSETCC(self, ins):
        """SFPSETCC.md: in enabled lanes, LaneFlags = VC < 0 / != 0 / >= 0 / == 0 (as int32),
        or Imm1 (IMM_BIT0), or false (CLEAR, or conditional execution off)."""
        en = self.enabled(ins)
        mod = ins.mod
        use = self.use_flags
        if mod & 8 or (mod & 1 and not ins.imm & 1):  # (false in every lane)
            self._set_flags(en, _FALSE.copy())
            return
        if mod & 1:
            new = use.copy()
        else:
            compare, bound = _SETCC[mod]
            new = compare(self.lreg[ins.vc], bound)
            np.bitwise_and(new, use, out=new)
        self._set_flags(en, new)

    def _sign_mag_compare(self, ins, greater: bool):
        """SFPGT.md / SFPLE.md (BlackholeA0): ``VD > VC`` (``VD <= VC``) on sign-magnitude
        integers (FP32 in its total order), with ``VB = VD``; Mod1 SET_CC (1) sets
        LaneFlags, SET_VD (8) writes -1 / 0 to VD (enabled lanes), MUTATE_STACK (2) ANDs
        (MUTATE_OR, 4: ORs) the result into the flag stack's top entry when not empty."""
        g = self.gate(ins)
        smaller = sign_mag_key(self.lreg[ins.vc]) < sign_mag_key(self.lreg[ins.vd])
        res = smaller if greater else ~smaller
        mod = ins.mod
        en = g & self.lane_enabled()
        if mod & 8:
            self.write(ins.vd, np.where(res, U32(0xFFFFFFFF), U32(0)).astype(U32), en)
        if mod & 1:
            self.flags = np.where(en, res, self.flags)
        if mod & 2:
            n = self.stack_size
            live = g & (n != 0)
            idx = (n - 1) & (STACK_DEPTH - 1)
            top = self.stack_flags[idx, LANES]
            top = (top | res) if mod & 4 else (top & res)
            self.stack_flags[idx[live], LANES[live]] = top[live]

    def x_SFPGT(self, ins):
        """SFPGT.md (BlackholeA0): lanewise ``VD > VC``, sign-magnitude / FP32 total order."""
        self._sign_mag_compare(ins, True)

    def x_SFPLE(self, ins):
        """SFPLE.md (BlackholeA0): lanewise ``VD <= VC``, sign-magnitude / FP32 total order."""
        self._sign_mag_compare(ins, False)

    def x_SFPPUSHC(self, ins):
        """SFPPUSHC.md: push {LaneFlags, UseLaneFlagsForLaneEnable}; pushing onto a full
        (8-entry) stack is undefined."""
        g = self.gate(ins)
        if np.any(g & (self.stack_size >= STACK_DEPTH)):
            self.cop.undefined("SFPPUSHC full",
                               "the flag stack already holds 8 entries (SFPPUSHC.md: undefined); ttemu does what "
                               "seed 004 describes: the push overwrites an earlier entry (slot size & 7) and the "
                               "4-bit size counter counts on, wrapping at 16")
        if g is ALL_LANES:
            pos = self.stack_size & (STACK_DEPTH - 1)
            self.stack_flags[pos, LANES] = self.flags
            self.stack_use[pos, LANES] = self.use_flags
            self.stack_size = (self.stack_size + 1) & 15
            return
        lanes = LANES[g]
        pos = self.stack_size[g] & (STACK_DEPTH - 1)
        self.stack_flags[pos, lanes] = self.flags[g]
        self.stack_use[pos, lanes] = self.use_flags[g]
        self.stack_size[g] = (self.stack_size[g] + 1) & 15

    def x_SFPPOPC(self, ins, full_stack_bug=True):
        """SFPPOPC.md: Mod1 0 pops into LaneFlags / UseLaneFlagsForLaneEnable (undefined on
        an empty stack); 1..12 combine LaneFlags with the top (``BooleanOp``) without
        popping; 13 inverts LaneFlags; 14 / 15 set both to constants. With Mod1 != 0 on a
        full stack, the bottom entry is overwritten with the top (documented hardware bug,
        ``full_stack_bug``; Blackhole fixes it)."""
        g = self.gate(ins)
        mod = ins.mod
        top_f, top_u = self._top(False, False)
        n = self.stack_size
        if mod == 0:
            empty = g & (n == 0)
            if np.any(empty):
                self.cop.undefined("SFPPOPC empty",
                                   "Mod1=0 with an empty flag stack (SFPPOPC.md: undefined); ttemu does what seed "
                                   "004 describes: the 4-bit size counter underflows to 15 and all lanes are "
                                   "active (LaneFlags and UseLaneFlagsForLaneEnable true)")
                top_f = top_f | empty
                top_u = top_u | empty
            self.stack_size = np.where(g, (n - 1) & 15, n)
            self.use_flags = np.where(g, top_u, self.use_flags)
            self.flags = np.where(g, top_f, self.flags)
            return
        if full_stack_bug:
            full = g & (n == STACK_DEPTH)
            self.stack_flags[0][full] = top_f[full]
            self.stack_use[0][full] = top_u[full]
        a, b = self.flags, top_f
        if mod <= 12:
            new = {1: b, 2: ~b, 3: a & b, 4: a | b, 5: a & ~b, 6: a | ~b, 7: ~a & b, 8: ~a | b,
                   9: ~a & ~b, 10: ~a | ~b, 11: a != b, 12: a == b}[mod]
            use = top_u
        elif mod == 13:
            new, use = ~a, self.use_flags
        else:
            new, use = np.full(32, mod == 14), np.ones(32, dtype=bool)
        self.use_flags = np.where(g, use, self.use_flags)
        self.flags = np.where(g, new, self.flags)

    def x_SFPCOMPC(self, ins):
        """SFPCOMPC.md: LaneFlags = Top.LaneFlags && !LaneFlags where both the top entry (an
        empty stack reads as all-enabled) and the current state use lane flags; else false."""
        g = self.gate(ins)
        top_f, top_u = self._top(True, True)
        new = np.where(top_u & self.use_flags, top_f & ~self.flags, False)
        self.flags = np.where(g, new, self.flags)


def shift(value: np.ndarray, amount: np.ndarray) -> np.ndarray:
    """``amount >= 0 ? value << (amount & 31) : value >> (-amount & 31)`` (logical)."""
    amount = np.asarray(amount, dtype=np.int64)
    left = (value << (amount & 31).astype(U32)).astype(U32)
    right = (value >> ((-amount) & 31).astype(U32)).astype(U32)
    return np.where(amount >= 0, left, right).astype(U32)


# Re-exported for tests that want the raw column / backdoor constants.
__all__ = ["SimpleOps", "shift", "COL", "DISABLE_BACKDOOR_LOAD"]
