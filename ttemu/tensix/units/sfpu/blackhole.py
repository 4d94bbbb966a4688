"""Blackhole Vector Unit instructions whose BlackholeA0 page differs from Wormhole's.

tt-isa-documentation (jasondavies fork) BlackholeA0/TensixTile/TensixCoprocessor/: one
``bh_<MNEMONIC>`` method per page, run instead of ``x_<MNEMONIC>`` on an arch that names
it in ``ArchSpec.sfpu_variants``. Where the Blackhole page is the Wormhole page plus a
change, the method runs the Wormhole implementation with the change as a parameter (the
multiply-add :func:`.fma.fma_bh`, a rounding mode, a fixed hardware bug).
"""

from __future__ import annotations

import numpy as np

from ...formats import layout as FL
from .fma import BLACKHOLE, fma_bh, fma_rows
from .fp_bh import approx_exp, approx_recip, mul24
from .loadstore import FP32_BY_TABLE, MOD0_FMT_INT32_ALL, MOD0_FMT_SRCB, LSArch
from .rounding import ROR1_SRC
from .simple import SIGN, _vb
from .state import LANES, STACK_DEPTH, U32

ONE = U32(0x3F800000)
#: SFPLOAD / SFPSTORE Mod0 values (SFPLOAD.md)
MOD0_FMT_FP32, MOD0_FMT_INT8, MOD0_FMT_INT32_SM, MOD0_FMT_INT8_COMP = 3, 5, 12, 13


def sfpload_convert_bh(raw, mod0: int, old, fp16a_inf) -> np.ndarray:
    """SFPLOAD.md (BlackholeA0) data type conversions: MOD0_FMT_INT8 keeps eight magnitude
    bits (``SignMag9ToSignMag32``); the deprecated INT8_COMP / INT32_SM no longer convert to
    two's complement; the rest are Wormhole's."""
    raw = np.asarray(raw, dtype=U32)
    if mod0 == MOD0_FMT_INT8:
        return (((raw >> 15) << 31) | ((raw >> 5) & 0xFF)).astype(U32)
    if mod0 == MOD0_FMT_INT8_COMP:
        return (((raw >> 15) << 31) | ((raw >> 5) & 0x3FF)).astype(U32)
    if mod0 == MOD0_FMT_INT32_SM:
        return FL.dst32_to_fp32(raw)
    return FL.sfpload_convert(raw, mod0, old_lreg=old, enable_fp16a_inf=fp16a_inf)


#: SFPLOAD modes whose Blackhole conversion is a function of the 16-bit Dst datum alone
BH_LOAD_BY_TABLE = frozenset({FL.MOD0_FMT_BF16, FL.MOD0_FMT_UINT16, FL.MOD0_FMT_HI16, FL.MOD0_FMT_INT16,
                              FL.MOD0_FMT_LO16, MOD0_FMT_INT8, MOD0_FMT_INT8_COMP})
_TABLES: dict = {}  # Mod0 -> sfpload_convert_bh of every 16-bit pattern
#: modes whose Blackhole conversion is loadstore.py's FP32 table one (:func:`.loadstore.load_fp32`;
#: :func:`.loadstore.store_fp32`, with the flush for MOD0_FMT_FP32)
BH_FP32_LOAD_BY_TABLE = FP32_BY_TABLE | {MOD0_FMT_INT32_SM}
BH_FP32_STORE_BY_TABLE = FP32_BY_TABLE | {MOD0_FMT_INT32_SM}


def bh_load_table(mod0: int) -> np.ndarray:
    """:func:`sfpload_convert_bh` of every 16-bit Dst datum for a :data:`BH_LOAD_BY_TABLE` mode."""
    t = _TABLES.get(mod0)
    if t is None:
        t = _TABLES[mod0] = sfpload_convert_bh(np.arange(1 << 16, dtype=U32), mod0, None, False).astype(U32)
        t.setflags(write=False)
    return t


def sfpstore_convert_bh(x, mod0: int) -> np.ndarray:
    """SFPSTORE.md (BlackholeA0) data type conversions: MOD0_FMT_FP32 flushes denormals to
    signed zero (``ToFP32``); the deprecated INT32_SM / INT8_COMP no longer convert from
    two's complement; the rest are Wormhole's."""
    x = np.asarray(x, dtype=U32)
    if mod0 == MOD0_FMT_FP32:
        return FL.dst32_from_fp32(np.where((x & U32(0x7F800000)) == 0, x & SIGN, x).astype(U32))
    if mod0 == MOD0_FMT_INT32_SM:
        return FL.dst32_from_fp32(x)
    if mod0 == MOD0_FMT_INT8_COMP:
        return FL.sign_mag11_to_dst16_int8(x)
    return FL.sfpstore_convert(x, mod0)


class BlackholeOps:
    """Mixin of VectorUnit: the BlackholeA0 pages (module docstring)."""

    #: SFPLOAD / SFPSTORE's Blackhole data (loadstore.LSArch: the lane bodies, the fast
    #: forms): its conversions and tables, FP32 stores flushing denormals, the remap /
    #: swizzle row mapping of :meth:`_bh_view`, the fast forms' (Sp + DEST_SP_BASE_Base) & 3
    bh_ls_arch = LSArch(BH_LOAD_BY_TABLE, bh_load_table, BH_FP32_LOAD_BY_TABLE, BH_FP32_STORE_BY_TABLE,
                        {MOD0_FMT_FP32}, sfpload_convert_bh, sfpstore_convert_bh,
                        lambda unit, thread: unit._bh_view(thread), sp=True)

    # -- load / store -------------------------------------------------------------------
    def _bh_view(self, thread: int):
        """(DEST_SP_BASE_Base, DEST_ACCESS_CFG_remap_addrs, DEST_ACCESS_CFG_swizzle_32b) of
        ``thread``."""
        return self._thread_view("_bh_views", thread, self._bh_fields)

    def _bh_fields(self, thread: int):
        cfg = self.cop.config
        return (cfg.tget(thread, "DEST_SP_BASE_Base"), bool(cfg.tget(thread, "DEST_ACCESS_CFG_remap_addrs")),
                bool(cfg.tget(thread, "DEST_ACCESS_CFG_swizzle_32b")))

    def _bh_addr(self, ins, mod0: int, store: bool, views=None) -> int:
        """SFPLOAD.md / SFPSTORE.md (BlackholeA0): ``Addr = Imm10 +
        DEST_TARGET_REG_CFG_MATH_Offset + DstOffset + (SpOffset & 3)``, or, for
        MOD0_FMT_INT32_ALL, ``+ SpOffset + (DstOffset & 3)`` where SFPLOAD first steps the
        RWC Sp down by ThreadConfig.SFPU_STACK_Incr (when Sp != 0) and SFPSTORE steps it up
        after. DstOffset = RWC Dst + DEST_REGW_BASE_Base, SpOffset = RWC Sp +
        DEST_SP_BASE_Base. ``views``: the thread's (:meth:`_cfg_view`, :meth:`_bh_view`)
        when the caller has them."""
        t = ins.thread
        rwc = self.cop.rwcs.rwc[t]
        cfg_view, bh_view = views or (self._cfg_view(t), self._bh_view(t))
        _, offset, base = cfg_view
        sp_base = bh_view[0]
        dst_off = rwc.Dst + base
        addr = ins.imm + offset
        if mod0 == MOD0_FMT_INT32_ALL:
            incr = self.cop.config.thread_get(t, "SFPU_STACK_Incr")
            if not store and rwc.Sp != 0:
                rwc.Sp = (rwc.Sp - incr) & 0x3FF
            addr += rwc.Sp + sp_base + (dst_off & 3)
            if store:
                rwc.Sp = (rwc.Sp + incr) & 0x3FF
        else:
            addr += dst_off + ((rwc.Sp + sp_base) & 3)
        return addr & 0x3FF

    def bh_SFPLOAD(self, ins, what="SFPLOAD"):
        """SFPLOAD.md (BlackholeA0): as Wormhole's (MOD0_FMT_SRCB resolution, even / odd
        columns of four Dst rows, lane enables, BLOCK_SFPU_RD_FROM_DEST, the Dst index
        capture, ApplyPartialAddrMod with the three-bit AddrMod), with Blackhole's
        addressing (:meth:`_bh_addr`), conversions (:func:`sfpload_convert_bh`) and the
        Dst.md row mapping (``Adj16`` / ``Adj32``). Returns (Mod0, Addr)."""
        views = self._cfg_view(ins.thread), self._bh_view(ins.thread)
        mod0 = views[0][0] if ins.mod == MOD0_FMT_SRCB else ins.mod  # (resolve_srcb)
        addr = self._bh_addr(ins, mod0, False, views)
        if ins.vd < 8:
            if self.cop.math.dst_log:
                self.hz_dst_read(ins, mod0, addr, what)
            self.load_lanes(ins.thread, ins.vd, mod0, addr)  # (loadstore.py, with bh_ls_arch)
        self.cop.rwcs.apply_addr_mod(ins.thread, ins.addr_mod, update_fidelity=False)
        return mod0, addr

    def bh_SFPSTORE(self, ins):
        """SFPSTORE.md (BlackholeA0): LReg[VD] converted per Mod0
        (:func:`sfpstore_convert_bh`) to the even / odd columns of four Dst rows, in
        enabled lanes (all for MOD0_FMT_INT32_ALL) not blocked by BLOCK_DEST_WR_FROM_SFPU,
        Blackhole addressing and row mapping; then ApplyPartialAddrMod. Scheduled by
        SFPLOADMACRO, the Addr is SFPLOADMACRO's and no RWC moves."""
        views = self._cfg_view(ins.thread), self._bh_view(ins.thread)
        mod0 = views[0][0] if ins.mod == MOD0_FMT_SRCB else ins.mod  # (resolve_srcb)
        addr = ins.addr if ins.macro else self._bh_addr(ins, mod0, True, views)
        self.store_lanes(ins, mod0, addr)  # (loadstore.py, with bh_ls_arch)
        if not ins.macro:
            self.cop.rwcs.apply_addr_mod(ins.thread, ins.addr_mod, update_fidelity=False)

    # -- MAD sub-unit -------------------------------------------------------------------
    def bh_SFPMAD(self, ins):
        """SFPMAD.md (BlackholeA0): ``VD = ±(VA * VB) ± VC`` with Blackhole's multiply-add
        (:func:`.fma.fma_bh`): NEGATE_VB (Mod1 & 1), NEGATE_VC (Mod1 & 2), INDIRECT_VA
        (Mod1 & 4: VA from ``LReg[7] & 15``), INDIRECT_VD (Mod1 & 8)."""
        mask = self.enabled(ins)
        mod = ins.mod
        if mod & 4:
            w = self.lreg.take((0, ins.vb, ins.vc), axis=0)
            w[0] = self.lreg[self.lreg[7] & 15, LANES]
        else:
            w = self.lreg.take((ins.va, ins.vb, ins.vc), axis=0)
        if mod & 1:
            w[1] ^= SIGN
        if mod & 2:
            w[2] ^= SIGN
        self._mad_write(ins, fma_rows(w, BLACKHOLE), mask, bool(mod & 8))

    def bh_SFPADD(self, ins):
        """SFPADD.md (BlackholeA0): as SFPMAD (preferred when VA is LReg[10] = 1.0)."""
        self.bh_SFPMAD(ins)

    def bh_SFPMUL(self, ins):
        """SFPMUL.md (BlackholeA0): as SFPMAD (preferred when VC is LReg[9] = 0)."""
        self.bh_SFPMAD(ins)

    def _bh_imm_mad(self, ins, multiply: bool):
        mask = self.enabled(ins)
        vc = ins.vd if ins.vc is None else ins.vc
        c = self.lreg[vc] ^ SIGN if ins.mod & 2 else self.lreg[vc]
        imm = np.full(32, (ins.imm & 0xFFFF) << 16, dtype=U32)
        d = fma_bh(imm, c, np.zeros(32, dtype=U32)) if multiply else fma_bh(imm, np.full(32, ONE), c)
        self._mad_write(ins, d, mask, bool(ins.mod & 8))

    def bh_SFPADDI(self, ins):
        """SFPADDI.md (BlackholeA0): ``VD = BF16ToFP32(Imm16) * 1.0 ± VD`` (NEGATE_VC,
        Mod1 & 2), INDIRECT_VD (Mod1 & 8)."""
        self._bh_imm_mad(ins, multiply=False)

    def bh_SFPMULI(self, ins):
        """SFPMULI.md (BlackholeA0): ``VD = BF16ToFP32(Imm16) * ±VD + 0.0`` (NEGATE_VC,
        Mod1 & 2; the ``+ 0`` makes -0 +0), INDIRECT_VD (Mod1 & 8)."""
        self._bh_imm_mad(ins, multiply=True)

    def bh_SFPLUT(self, ins):
        """SFPLUT.md (BlackholeA0): Wormhole's model with Blackhole's multiply-add."""
        self.x_SFPLUT(ins, fma_fn=fma_bh)

    def bh_SFPLUTFP32(self, ins):
        """SFPLUTFP32.md (BlackholeA0): Wormhole's model with Blackhole's multiply-add (the
        encoding's Mod1Mirror, bits 19:16, only steers the scheduling logic)."""
        self.x_SFPLUTFP32(ins, fma_fn=fma_bh)

    def bh_SFPMUL24(self, ins):
        """SFPMUL24.md (BlackholeA0): 23-bit integer multiply of the low mantissa bits of VA
        (INDIRECT_VA, Mod1 & 4) and VB, low 23 bits of the product (or UPPER, Mod1 & 1:
        bits 45:23), then ``Mul24ShiftAdd`` with VC; INDIRECT_VD (Mod1 & 8)."""
        mask = self.enabled(ins)
        mod = ins.mod
        a = self.lreg[self.lreg[7] & 15, LANES] if mod & 4 else self.lreg[ins.va]
        d = mul24(a, self.lreg[ins.vb], self.lreg[ins.vc], bool(mod & 1))
        self._mad_write(ins, d, mask, bool(mod & 8))

    # -- simple sub-unit ------------------------------------------------------------------
    def bh_SFPARECIP(self, ins):
        """SFPARECIP.md (BlackholeA0): approximate reciprocal (Mod1 0, sign kept), reciprocal
        of |VC| where ``LReg[VB] < 0`` (Mod1 1, otherwise VC unchanged), or approximate
        ``exp`` of |VC| with VC's sign (Mod1 2 and anything else). VB is Imm12's low four
        bits (the encoding's bits 15:12)."""
        if not (ins.vd < 8 or ins.vd == 16):
            return
        x = self.lreg[ins.vc]
        sign = x & SIGN
        mag = x & U32(0x7FFFFFFF)
        if ins.mod == 0:
            d = sign | approx_recip(mag)
        elif ins.mod == 1:
            vb = ins.imm & 15 if ins.vb is None else ins.vb
            d = np.where(self.lreg[vb].view(np.int32) < 0, approx_recip(mag), x)
        else:
            d = sign | approx_exp(mag)
        self.write(ins.vd, d.astype(U32), self.lane_enabled())

    def bh_SFPCAST(self, ins):
        """SFPCAST.md (BlackholeA0), by ``Mod1 & 3``: 0 / 1 SFPCAST_IntFloat.md (Wormhole's
        sign-magnitude -> FP32), 2 SFPCAST_IntAbs.md (two's complement |x|, -2**31 stays),
        3 SFPCAST_IntInt.md (two's complement -> sign-magnitude)."""
        mode = ins.mod & 3
        if mode < 2:
            self.x_SFPCAST(ins)
            return
        if not (ins.vd < 8 or ins.vd == 16):
            return
        c = self.lreg[ins.vc]
        neg = c >= SIGN
        if mode == 2:
            d = np.where(neg, U32(0) - c, c)
        else:
            d = np.where(neg, SIGN | (U32(0) - c), c)
        self.write(ins.vd, d.astype(U32), self.lane_enabled())

    def _bh_bitwise(self, ins, fn):
        if ins.vd < 8 or ins.vd == 16:
            if ins.mod & 1:  # USE_VB: VB is the encoding's bits 15:12
                vb = ins.imm & 15 if ins.vb is None else ins.vb
            else:
                vb = _vb(ins)
            self.write(ins.vd, fn(self.lreg[vb], self.lreg[ins.vc]), self.lane_enabled())

    def bh_SFPAND(self, ins):
        """SFPAND.md (BlackholeA0): ``VD = vb & VC`` with ``vb = USE_VB (Mod1 & 1) ? VB : VD``."""
        self._bh_bitwise(ins, np.bitwise_and)

    def bh_SFPOR(self, ins):
        """SFPOR.md (BlackholeA0): ``VD = vb | VC`` with ``vb = USE_VB (Mod1 & 1) ? VB : VD``."""
        self._bh_bitwise(ins, np.bitwise_or)

    def bh_SFPSHFT(self, ins):
        """SFPSHFT.md (BlackholeA0): shift ``x = LReg[VB = VD]`` by ``LReg[VC]`` (or by
        Imm12, ARG_IMM, Mod1 & 1, when ARG_IMM_USE_VC, Mod1 & 4, also shifting
        ``x = LReg[VC]``): left when the amount is >= 0, else right, arithmetic with
        ARITHMETIC (Mod1 & 2), by ``amount & 31``."""
        if not (ins.vd < 8 or ins.vd == 16):
            return
        mod = ins.mod
        x = self.lreg[_vb(ins)]
        amount = self.lreg[ins.vc].view(np.int32).astype(np.int64)
        if mod & 1:
            if mod & 4:
                x = self.lreg[ins.vc]
            imm = ins.imm & 0xFFF
            amount = np.full(32, imm - 0x1000 if imm & 0x800 else imm, dtype=np.int64)
        left = (x << (amount & 31).astype(U32)).astype(U32)
        by = ((-amount) & 31).astype(U32)
        if mod & 2:
            right = (x.view(np.int32) >> by.astype(np.int32)).view(U32)
        else:
            right = x >> by
        self.write(ins.vd, np.where(amount >= 0, left, right).astype(U32), self.lane_enabled())

    # -- round sub-unit --------------------------------------------------------------------
    def bh_SFPSHFT2(self, ins):
        """SFPSHFT2.md (BlackholeA0): Wormhole's modes, with SUBVEC_SHFLSHR1 (Mod1 4) fixed:
        lane 0 of each group of eight receives 0."""
        if ins.mod != 4:
            self.x_SFPSHFT2(ins)
            return
        if ins.vd < 8 or ins.vd == 16:
            vc = self.lreg[ins.vc]
            val = np.where(LANES & 7, vc[ROR1_SRC], U32(0)).astype(U32)
            self.write(ins.vd, val, self.lane_enabled())

    def bh_SFP_STOCH_RND(self, ins):
        """SFPSTOCHRND.md (BlackholeA0; _FloatFloat, _FloatInt, _IntInt): Wormhole's modes
        with the two-bit RoundingMode: 0 nearest (PRNG bits 0x400000), 2 toward zero
        (0x7fffff, with the documented ``>=`` bug), 1 (and 3, which no case of the page's
        switch names) stochastic. The PRNG advances in every enabled lane whatever the
        mode (``AdvancePRNG()`` runs before the switch)."""
        en = self.enabled(ins)
        prng = (self.advance_prng(en) & U32(0x7FFFFF)).astype(np.uint64)
        fixed = {0: 0x400000, 2: 0x7FFFFF}.get(ins.rnd & 3)
        rnd = prng if fixed is None else np.full(32, fixed, dtype=np.uint64)
        self.stoch_rnd(ins, en, rnd)

    # -- conditional execution --------------------------------------------------------------
    def bh_SFPPUSHC(self, ins):
        """SFPPUSHC.md (BlackholeA0): Mod1 0 pushes (Wormhole's); otherwise the top entry is
        replaced: 1..12 UseLaneFlagsForLaneEnable from the current state and LaneFlags =
        ``BooleanOp(Mod1, Top.LaneFlags, LaneFlags)``, 13 inverts LaneFlags and stores the
        state, 14 / 15 store {true, true} / {false, true}. Undefined on an empty stack."""
        mod = ins.mod
        if mod == 0:
            self.x_SFPPUSHC(ins)
            return
        g = self.gate(ins)
        n = self.stack_size
        if np.any(g & (n == 0)):
            self.cop.undefined("SFPPUSHC Mod1!=0 empty",
                               f"Mod1={mod} with an empty flag stack (SFPPUSHC.md: undefined); ttemu changes "
                               "nothing in those lanes")
        live = g & (n != 0)
        idx = (n - 1) & (STACK_DEPTH - 1)
        a, b = self.stack_flags[idx, LANES], self.flags
        if mod <= 12:
            new_f = boolean_op(mod, a, b)
            new_u = self.use_flags
        elif mod == 13:
            self.flags = np.where(g, ~self.flags, self.flags)
            new_f, new_u = self.flags, self.use_flags
        else:
            new_f, new_u = np.full(32, mod == 14), np.ones(32, dtype=bool)
        self.stack_flags[idx[live], LANES[live]] = new_f[live]
        self.stack_use[idx[live], LANES[live]] = np.broadcast_to(new_u, (32,))[live]

    def bh_SFPPOPC(self, ins):
        """SFPPOPC.md (BlackholeA0): Wormhole's model without the full-stack bug of Mod1 != 0."""
        self.x_SFPPOPC(ins, full_stack_bug=False)


def boolean_op(mod: int, a, b):
    """``BooleanOp`` (SFPPUSHC.md / SFPPOPC.md)."""
    return {1: b, 2: ~b, 3: a & b, 4: a | b, 5: a & ~b, 6: a | ~b, 7: ~a & b, 8: ~a | b,
            9: ~a & ~b, 10: ~a | ~b, 11: a != b, 12: a == b}[mod]
