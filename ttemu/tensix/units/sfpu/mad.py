"""MAD sub-unit instructions: SFPMAD / SFPADD / SFPMUL, SFPADDI, SFPMULI, SFPLUT,
SFPLUTFP32. All multiply-adds are Wormhole's (:func:`.fma.fma_wh`: SFPMAD.md "IEEE754
conformance / divergence" and its bit-perfect model, see :mod:`.fma`); Blackhole's
methods (:mod:`.blackhole`) use its own rules."""

from __future__ import annotations

import numpy as np

from .fma import BLACKHOLE, WORMHOLE, fma_rows, fma_rows_into, fma_wh
from .fp import ONE, lut8_to_fp32, lut16_to_fp32
from .state import LANES, U32

_MAD_NAMES = frozenset({"SFPMAD", "SFPADD", "SFPMUL"})
_IMM_NAMES = frozenset({"SFPADDI", "SFPMULI"})
ABS = U32(0x7FFFFFFF)
SIGN = U32(0x80000000)


class MadOps:
    def _mad_write(self, ins, d, mask, indirect: bool) -> None:
        """Write ``d`` to VD, or (INDIRECT_VD and VD != 16) to ``LReg[LReg[7] & 15]``."""
        if indirect and ins.vd != 16:
            self.write_indirect(self.lreg[7] & 15, d, mask)
        else:
            self.write(ins.vd, d, mask)

    def _imm_operands(self, imm: int, other: int) -> np.ndarray:
        """A fresh uint32 [3, 32]: ``BF16ToFP32(Imm16)``, then ``other`` in both other rows
        (SFPADDI / SFPMULI fill in their LReg operand)."""
        cache = self.__dict__.setdefault("_imm_rows", {})
        key = (imm & 0xFFFF, other)
        rows = cache.get(key)
        if rows is None:
            if len(cache) >= 1024:
                cache.clear()
            rows = cache[key] = np.array([[(imm & 0xFFFF) << 16] * 32, [other] * 32, [other] * 32], dtype=U32)
        return rows.copy()

    def x_SFPMAD(self, ins):
        """SFPMAD.md: ``VD = VA * VB + VC``; INDIRECT_VA (Mod1 & 4) reads VA from
        ``LReg[7] & 15``, INDIRECT_VD (Mod1 & 8) writes to ``LReg[LReg[7] & 15]``."""
        mask = self.enabled(ins)
        if ins.mod & 4:
            a = self.lreg[self.lreg[7] & 15, LANES]
            d = fma_wh(a, self.lreg[ins.vb], self.lreg[ins.vc])
        else:
            d = fma_rows(self.lreg.take((ins.va, ins.vb, ins.vc), axis=0), WORMHOLE)
        if ins.mod & 8:
            self._mad_write(ins, d, mask, True)
        else:
            self.write(ins.vd, d, mask)

    def mad_compute(self, ins):
        """A specialised form of ``ins`` for :meth:`.hazards.HazardOps._hz_run_mad`: an
        SFPMAD / SFPADD / SFPMUL without INDIRECT_VA or INDIRECT_VD (Mod1 & 12), or an
        SFPADDI / SFPMULI without INDIRECT_VD (Mod1 & 8), on a Wormhole or Blackhole tile,
        executed by the method named here (``x_<MNEMONIC>``, or BlackholeOps'
        ``bh_<MNEMONIC>``, whose operands and negations this follows): a function of no
        arguments giving the value the executor writes to VD where lanes are enabled
        (operands read from the current ``lreg``, which it belongs to; the array is only
        valid until the next call), else None (any other instruction, mode or executor)."""
        m = ins.mnemonic
        imm = m in _IMM_NAMES
        if not (m in _MAD_NAMES or imm) or ins.mod & (8 if imm else 12) or (ins.va is None and not imm):
            return None
        fn = getattr(self._executor(m), "__func__", None)
        lreg = self.lreg
        bh = False
        if fn is getattr(MadOps, "x_" + m):  # Wormhole: Mod1 bits 0, 1 unused
            fma = fma_rows_into(32, WORMHOLE)
        elif fn is getattr(type(self), "bh_" + m, None):
            fma = fma_rows_into(32, BLACKHOLE)
            bh = True
        else:
            return None
        mod = ins.mod
        if imm:  # SFPADDI: Imm * 1.0 + VC; SFPMULI: Imm * VC + 0 (VC = VD); Blackhole: NEGATE_VC (Mod1 & 2)
            x = self._imm_operands(ins.imm, ONE if m == "SFPADDI" else 0)
            dst = x[2 if m == "SFPADDI" else 1]
            src = lreg[ins.vd if ins.vc is None else ins.vc]
            if bh and mod & 2:
                def compute():
                    np.bitwise_xor(src, SIGN, out=dst)
                    return fma(x)
            else:
                def compute():
                    dst[...] = src
                    return fma(x)
            return compute
        take = lreg.take
        idx = np.array((ins.va, ins.vb, ins.vc))
        if not (bh and mod & 3):
            def compute():
                return fma(take(idx, 0))
            return compute
        neg = np.zeros((3, 32), dtype=U32)  # Blackhole: NEGATE_VB (Mod1 & 1), NEGATE_VC (Mod1 & 2)
        neg[1] = SIGN if mod & 1 else 0
        neg[2] = SIGN if mod & 2 else 0

        def compute():
            w = take(idx, 0)
            w ^= neg
            return fma(w)
        return compute

    def x_SFPADD(self, ins):
        """SFPADD.md: as SFPMAD (the preferred opcode when VA is LReg[10] = 1.0)."""
        self.x_SFPMAD(ins)

    def x_SFPMUL(self, ins):
        """SFPMUL.md: as SFPMAD (the preferred opcode when VC is LReg[9] = 0)."""
        self.x_SFPMAD(ins)

    def x_SFPADDI(self, ins):
        """SFPADDI.md: ``VD = BF16ToFP32(Imm16) * 1.0 + VC`` with ``VC = VD``."""
        mask = self.enabled(ins)
        vc = ins.vd if ins.vc is None else ins.vc
        x = self._imm_operands(ins.imm, ONE)
        x[2] = self.lreg[vc]
        d = fma_rows(x, WORMHOLE)
        self._mad_write(ins, d, mask, bool(ins.mod & 8))

    def x_SFPMULI(self, ins):
        """SFPMULI.md: ``VD = BF16ToFP32(Imm16) * VC + 0.0`` with ``VC = VD``."""
        mask = self.enabled(ins)
        vc = ins.vd if ins.vc is None else ins.vc
        x = self._imm_operands(ins.imm, 0)
        x[1] = self.lreg[vc]
        d = fma_rows(x, WORMHOLE)
        self._mad_write(ins, d, mask, bool(ins.mod & 8))

    def _abs_l3(self):
        l3 = self.lreg[3].copy()
        b = l3 & ABS
        bf = b.view(np.float32)  # NaN compares false: selects the last range, as fabsf() < x does
        return l3, b, bf

    def x_SFPLUT(self, ins, fma_fn=fma_wh):
        """SFPLUT.md: ``VD = Lut8ToFp32(C >> 8) * |LReg[3]| + Lut8ToFp32(C)`` with C the low
        16 bits of LReg[0], [1] or [2] for |LReg[3]| < 1, < 2, otherwise; SGN_RETAIN
        (Mod0 & 4) copies LReg[3]'s sign, INDIRECT_VD (Mod0 & 8)."""
        mask = self.enabled(ins)
        l3, b, bf = self._abs_l3()
        coeffs = np.where(bf < 1.0, self.lreg[0], np.where(bf < 2.0, self.lreg[1], self.lreg[2]))
        d = fma_fn(lut8_to_fp32(coeffs >> 8), b, lut8_to_fp32(coeffs))
        if ins.mod & 4:
            d = (d & ABS) | (l3 & SIGN)
        self._mad_write(ins, d, mask, bool(ins.mod & 8))

    def x_SFPLUTFP32(self, ins, fma_fn=fma_wh):
        """SFPLUTFP32.md: piecewise linear ``VD = A * |LReg[3]| + C`` with A, C from
        LReg[0..2] / LReg[4..6] as FP32 (Mod1 & 2 clear), as FP16-ish halves in the
        3-entry table (Mod1 & 10 == 10, which also writes indirectly, the documented bug),
        or the 6-entry tables (Mod1 & 2; last split at 3.0, or 4.0 with Mod1 & 1).

        The page's model tests ``Mod1 & SFPLUTFP32_MOD1_FP16_3ENTRY_TABLE`` (= 10) inside
        the ``Mod1 & 2`` branch, which as written is always true there and would make the
        6-entry tables unreachable; the model here takes it as ``(Mod1 & 10) == 10``."""
        mask = self.enabled(ins)
        mod = ins.mod
        l3, b, bf = self._abs_l3()
        i = np.where(bf < 1.0, 0, np.where(bf < 2.0, 1, 2))
        lo = self.lreg[i, LANES]
        hi = self.lreg[4 + i, LANES]
        if mod & 2:
            if (mod & 10) == 10:
                a = lut16_to_fp32(lo >> 16)
                c = lut16_to_fp32(lo)
            else:
                cut = 4.0 if mod & 1 else 3.0
                upper = np.where(bf < 0.5, False, np.where(bf < 1.0, True, np.where(
                    bf < 1.5, False, np.where(bf < 2.0, True, ~(bf < cut)))))
                j = np.where(upper, 16, 0).astype(U32)
                a = lut16_to_fp32(lo >> j)
                c = lut16_to_fp32(hi >> j)
        else:
            a, c = lo, hi
        d = fma_fn(a, b, c)
        if mod & 4:
            d = (d & ABS) | (l3 & SIGN)
        self._mad_write(ins, d, mask, bool(mod & 8))
