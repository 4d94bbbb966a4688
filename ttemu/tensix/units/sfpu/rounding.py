"""Round sub-unit instructions: SFP_STOCH_RND (SFPSTOCHRND.md and its three pages)
and SFPSHFT2 (SFPSHFT2.md)."""

from __future__ import annotations

import numpy as np

from .insn import sext
from .simple import shift
from .state import LANES, U32

SIGN = U32(0x80000000)
#: Lane that each lane of a "rotate lanes right by one within each group of eight" reads.
ROR1_SRC = np.where(LANES & 7, LANES - 1, LANES + 7)


class RoundOps:
    def _prng_bits(self, ins, en):
        """``StochasticRounding ? AdvancePRNG() & 0x7fffff : 0x400000`` (lanes in ``en``)."""
        if ins.rnd:
            return (self.advance_prng(en) & U32(0x7FFFFF)).astype(np.uint64)
        return np.full(32, 0x400000, dtype=np.uint64)

    def x_SFP_STOCH_RND(self, ins):
        """SFPSTOCHRND.md: Mod1 (low three bits) selects the flavour:
        0, 1 SFPSTOCHRND_FloatFloat.md; 2, 3, 6, 7 SFPSTOCHRND_FloatInt.md;
        4, 5 SFPSTOCHRND_IntInt.md (whose Mod1 bit 3 is UseImm5). Rounding compares the
        discarded bits, as a 23-bit fraction, ``>=`` PRNG bits (stochastic) or 0x400000
        (nearest, ties away from zero)."""
        en = self.enabled(ins)
        self.stoch_rnd(ins, en, self._prng_bits(ins, en))

    def stoch_mod_check(self, ins) -> None:
        """Mod1 bit 3 (UseImm5) outside the IntInt modes is undefined: a warning."""
        if ins.mod & 8 and (ins.mod & 7) not in (4, 5):
            self.cop.undefined(f"SFPSTOCHRND Mod1={ins.mod}",
                               f"Mod1={ins.mod}: bit 3 (UseImm5) is only documented for the INT32_TO_(U)INT8 modes "
                               "(SFPSTOCHRND_FloatFloat.md / _FloatInt.md: undefined, their Mod1 is a u3); ttemu "
                               "ignores bit 3")

    def stoch_rnd(self, ins, en, rnd):
        """The three flavours of SFP_STOCH_RND (by Mod1) in the lanes of ``en``, rounding
        with the 23-bit ``rnd`` per lane (PRNG bits, or the rounding mode's constant)."""
        self.stoch_mod_check(ins)
        mode = ins.mod & 7
        use_imm5 = bool(ins.mod & 8) and mode in (4, 5)
        c = self.lreg[ins.vc]
        if mode in (0, 1):  # FloatFloat
            exp = (c >> 23) & 0xFF
            drop = 13 if mode == 0 else 16
            low = (c & U32((1 << drop) - 1)).astype(np.uint64)
            up = low >= (rnd >> np.uint64(23 - drop))  # DiscardedBits >= (PRNGBits >> 10 or 7)
            x = (c - low.astype(U32) + (up.astype(U32) << drop)).astype(U32)
            x = np.where(exp == 0, U32(0), np.where(exp == 255, c & U32(0xFF800000), x)).astype(U32)
        elif mode in (2, 3, 6, 7):  # FloatInt
            keep_sign = mode in (3, 7)
            max_mag = {2: 255, 3: 127, 6: 65535, 7: 32767}[mode]
            sign = c & SIGN if keep_sign else np.zeros(32, dtype=U32)
            exp = ((c >> 23) & 0xFF).astype(np.int64) - 127
            mag = (U32(0x800000) | (c & U32(0x7FFFFF))).astype(np.uint64)
            e = np.clip(exp, -1, 15)
            mag = np.where(e >= 0, mag << np.maximum(e, 0).astype(np.uint64),
                           mag >> np.maximum(-e, 0).astype(np.uint64))
            mag = (mag >> np.uint64(23)) + ((mag & np.uint64(0x7FFFFF)) >= rnd)
            mag = np.minimum(mag, max_mag)
            mag = np.where(exp < -1, 0, np.where(exp >= 16, max_mag, mag)).astype(U32)
            sign = np.where(mag == 0, U32(0), sign)
            x = (sign + mag).astype(U32)
        elif mode in (4, 5):  # IntInt
            sign = c & SIGN
            amount = np.full(32, ins.imm & 31, dtype=np.uint64) if use_imm5 else \
                (self.lreg[ins.vb] & 31).astype(np.uint64)
            mag = ((c & U32(0x7FFFFFFF)).astype(np.uint64) << np.uint64(23)) >> amount
            mag = (mag >> np.uint64(23)) + ((mag & np.uint64(0x7FFFFF)) >= rnd)
            if mode == 4:  # INT32_TO_UINT8
                mag = np.minimum(mag, 255)
                sign = np.zeros(32, dtype=U32)
            else:  # INT32_TO_INT8
                mag = np.minimum(mag, 127)
                sign = np.where(mag == 0, U32(0), sign)
            x = (sign + mag.astype(U32)).astype(U32)
        self.write(ins.vd, x, en)

    def x_SFPSHFT2(self, ins):
        """SFPSHFT2.md: Mod1 0 COPY4, 1 SUBVEC_CHAINED_COPY4, 2 SUBVEC_SHFLROR1_AND_COPY4,
        3 SUBVEC_SHFLROR1, 4 SUBVEC_SHFLSHR1 (lane 0 of each group of eight gets
        ``vc0[Lane + 7]``, the VC value last seen by mode 2 or 3, the documented hardware
        bug), 5 SHFT_LREG (VB shifted by VC), 6 SHFT_IMM (VB = Imm12 & 15 shifted by the
        signed Imm12). Other Mod1 values match no case of the page's switch: no effect."""
        mod = ins.mod
        L = self.lreg
        vd = ins.vd
        if mod == 0:
            en = self.enabled(ins)
            for i in range(3):
                L[i][en] = L[i + 1][en]
            L[3][en] = 0
        elif mod == 1:
            en = self.enabled(ins)
            v0 = L[0].copy()
            shifted = np.where(LANES < 24, v0[np.minimum(LANES + 8, 31)], U32(0)).astype(U32)
            for i in range(3):
                L[i][en] = L[i + 1][en]
            L[3][en] = shifted[en]
        elif mod in (2, 3):
            g = self.gate(ins)
            vc = L[ins.vc].copy()
            self.shfl_vc0 = np.where(g, vc, self.shfl_vc0).astype(U32)
            en = g & self.lane_enabled()
            rot = vc[ROR1_SRC]
            if mod == 2:
                for i in range(3):
                    L[i][en] = L[i + 1][en]
                L[3][en] = rot[en]
            elif vd < 8 or vd == 16:
                L[vd][en] = rot[en]
        elif mod == 4:
            if vd < 8 or vd == 16:
                en = self.lane_enabled()
                vc = L[ins.vc].copy()
                val = np.where(LANES & 7, vc[ROR1_SRC], self.shfl_vc0[ROR1_SRC]).astype(U32)
                L[vd][en] = val[en]
        elif mod == 5:
            if vd < 8 or vd == 16:
                amount = L[ins.vc].view(np.int32).astype(np.int64)
                self.write(vd, shift(L[ins.vb], amount), self.lane_enabled())
        elif mod == 6:
            if vd < 8 or vd == 16:
                imm = sext(ins.imm, 12)
                self.write(vd, shift(L[ins.vb], np.full(32, imm, dtype=np.int64)), self.lane_enabled())
