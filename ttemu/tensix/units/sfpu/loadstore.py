"""Load / store sub-unit instructions: SFPLOAD, SFPLOADI, SFPSTORE (SFPLOAD.md,
SFPLOADI.md, SFPSTORE.md). The data type conversions are those of
:mod:`ttemu.tensix.formats.layout` (``sfpload_convert`` / ``sfpstore_convert``,
written from the same pages)."""

from __future__ import annotations

import numpy as np

from ...formats import layout as FL
from ...regs.dst import adj_rows
from .state import (BLOCK_DEST_WR_FROM_SFPU, BLOCK_SFPU_RD_FROM_DEST, CAPTURE_DEFAULT_DEST_INDEX, COL,
                    DEST_RD_COL_EXCHANGE, DEST_WR_COL_EXCHANGE, ENABLE_DEST_INDEX, ENABLE_FP16A_INF, LANES,
                    ROW, U32)

MOD0_FMT_SRCB = FL.MOD0_FMT_SRCB
MOD0_FMT_INT32_ALL = FL.MOD0_FMT_INT32_ALL
#: SrcB formats for which MOD0_FMT_SRCB means BF16 (FP32, TF32, BF16, BFP8, BFP4, BFP2,
#: INT32, INT16 as hardware codes; the BFP ones are the 8-bit-exponent "_b" formats).
SRCB_BF16_FORMATS = frozenset({0, 4, 5, 6, 7, 15, 8, 9})


class LoadStoreOps:
    # -- shared addressing ----------------------------------------------------------------
    def resolve_srcb(self, thread: int, mod0: int) -> int:
        """``MOD0_FMT_SRCB`` -> FP32 (ALU_ACC_CTRL_SFPU_Fp32_enabled), BF16 or FP16 by the
        SrcB format (SFPLOAD.md / SFPSTORE.md)."""
        if mod0 != MOD0_FMT_SRCB:
            return mod0
        return self._cfg_view(thread)[0]

    def _thread_view(self, slot: str, thread: int, compute):
        """``compute(thread)`` (configuration-derived values of ``thread``), kept in
        ``self.<slot>`` and recomputed only after a Config or ThreadConfig write."""
        cfg = self.cop.config
        views = self.__dict__.setdefault(slot, {})
        v = views.get(thread)
        if v is None or v[0] != cfg.version or v[1] != cfg.thread_version:
            v = views[thread] = (cfg.version, cfg.thread_version, compute(thread))
        return v[2]

    def _cfg_view(self, thread: int):
        """(resolved MOD0_FMT_SRCB, DEST_TARGET_REG_CFG_MATH_Offset, DEST_REGW_BASE_Base) of
        ``thread``."""
        return self._thread_view("_cfg_views", thread, self._cfg_fields)

    def _cfg_fields(self, thread: int):
        cfg = self.cop.config
        return (self._resolve_srcb(thread), cfg.thread_get(thread, "DEST_TARGET_REG_CFG_MATH_Offset"),
                cfg.tget(thread, "DEST_REGW_BASE_Base"))

    def _resolve_srcb(self, thread: int) -> int:
        cfg = self.cop.config
        if cfg.tget(thread, "ALU_ACC_CTRL_SFPU_Fp32_enabled"):
            return FL.MOD0_FMT_FP32
        if cfg.tget(thread, "ALU_FORMAT_SPEC_REG_SrcB_override"):
            fmt = cfg.tget(thread, "ALU_FORMAT_SPEC_REG_SrcB_val")
        else:
            fmt = cfg.tget(thread, "ALU_FORMAT_SPEC_REG1_SrcB")
        return FL.MOD0_FMT_BF16 if fmt in SRCB_BF16_FORMATS else FL.MOD0_FMT_FP16

    def dst_addr(self, thread: int, imm10: int, mod0: int) -> int:
        """The 10-bit ``Addr`` of SFPLOAD / SFPSTORE: Imm10 + DEST_TARGET_REG_CFG_MATH_Offset
        + RWC Dst + DEST_REGW_BASE_Base (only the low two bits of the last two for
        MOD0_FMT_INT32_ALL)."""
        _, offset, base = self._cfg_view(thread)
        addr = imm10 + offset
        rel = self.cop.rwcs.rwc[thread].Dst + base
        addr += (rel & 3) if mod0 == MOD0_FMT_INT32_ALL else rel
        return addr & 0x3FF

    def _rows_cols(self, addr: int, exchange: np.ndarray):
        """Dst rows and columns of the 32 lanes for ``addr`` (read-only arrays, kept per
        address and column exchange)."""
        key = (addr, exchange.tobytes())
        cache = self.__dict__.setdefault("_rc_cache", {})
        hit = cache.get(key)
        if hit is None:
            if len(cache) >= 4096:
                cache.clear()
            rows = ((addr & ~3) + ROW) & 0x3FF
            cols = COL * 2 + (((addr & 2) != 0) | exchange).astype(np.int64)
            rows.setflags(write=False)
            cols.setflags(write=False)
            hit = cache[key] = (rows, cols)
        return hit

    # -- instructions ---------------------------------------------------------------------
    def x_SFPLOAD(self, ins, what="SFPLOAD"):
        """SFPLOAD.md: move the even (or odd: Addr bit 1, or DEST_RD_COL_EXCHANGE) columns of
        four rows of Dst to LReg[VD] with Mod0's conversion, in enabled lanes (all lanes
        for MOD0_FMT_INT32_ALL) not blocked by BLOCK_SFPU_RD_FROM_DEST; optionally also the
        Dst index into LReg[VD + 4]; then ApplyPartialAddrMod. Returns (Mod0, Addr) after
        resolution, which SFPLOADMACRO reuses."""
        mod0 = self.resolve_srcb(ins.thread, ins.mod)
        addr = self.dst_addr(ins.thread, ins.imm, mod0)
        if ins.vd < 8:
            if self.cop.math.dst_log:
                self.hz_dst_read(ins, mod0, addr, what)  # hazards.py: FPU Dst write -> SFPLOAD distance
            self.load_lanes(ins.vd, mod0, addr)
        self.cop.rwcs.apply_addr_mod(ins.thread, ins.addr_mod, update_fidelity=False)
        return mod0, addr

    def load_lanes(self, vd: int, mod0: int, addr: int) -> None:
        active = ~self.cfg_bit(BLOCK_SFPU_RD_FROM_DEST) & (self.lane_enabled() | (mod0 == MOD0_FMT_INT32_ALL))
        rows, cols = self._rows_cols(addr, self.cfg_bit(DEST_RD_COL_EXCHANGE, by_column=True))
        bits = self.cop.dst.bits
        if mod0 in FL.SFPLOAD_READS_DST32:
            adj = adj_rows(rows)
            raw = (bits[adj, cols].astype(U32) << 16) | bits[adj + 8, cols].astype(U32)
        else:
            raw = bits[self.cop.dst.map16(rows), cols].astype(U32)
        datum = FL.sfpload_convert(raw, mod0, old_lreg=self.lreg[vd],
                                   enable_fp16a_inf=self.cfg_bit(ENABLE_FP16A_INF))
        self.lreg[vd][active] = datum[active]
        if vd < 4:
            idx = active & self.cfg_bit(ENABLE_DEST_INDEX) & self.cfg_bit(CAPTURE_DEFAULT_DEST_INDEX)
            self.lreg[vd + 4][idx] = ((rows << 4) | cols).astype(U32)[idx]

    def x_SFPLOADI(self, ins):
        """SFPLOADI.md: write a converted Imm16 to LReg[VD] (VD < 8) in enabled lanes: BF16
        (0), FP16-ish (1), zero-extended (2), sign-extended (4), upper half (8, low half
        kept), lower half (10, upper half kept). Other Mod0 values are undefined."""
        if ins.vd >= 8:
            return
        imm = ins.imm & 0xFFFF
        old = self.lreg[ins.vd]
        mod = ins.mod
        if mod == 0:
            value = np.full(32, imm << 16, dtype=U32)
        elif mod == 1:
            value = np.broadcast_to(FL.fp32_from_fp16_sfploadi(imm), (32,))
        elif mod == 2:
            value = np.full(32, imm, dtype=U32)
        elif mod == 4:
            value = np.full(32, (imm - 0x10000 if imm & 0x8000 else imm) & 0xFFFFFFFF, dtype=U32)
        elif mod == 8:
            value = (U32(imm << 16) | (old & U32(0xFFFF))).astype(U32)
        elif mod == 10:
            value = ((old & U32(0xFFFF0000)) | U32(imm)).astype(U32)
        else:
            self.cop.undefined(f"SFPLOADI Mod0={mod}",
                               f"Mod0={mod} is not a documented mode (SFPLOADI.md: undefined); ttemu leaves "
                               "LReg[VD] unchanged (no case of the page's switch assigns it)")
            return
        self.write(ins.vd, value, self.lane_enabled())

    def x_SFPSTORE(self, ins):
        """SFPSTORE.md: move LReg[VD], converted per Mod0, to the even (or odd) columns of four
        rows of Dst in enabled lanes (all for MOD0_FMT_INT32_ALL) not blocked by
        BLOCK_DEST_WR_FROM_SFPU; then ApplyPartialAddrMod. Scheduled by SFPLOADMACRO, the
        Addr is SFPLOADMACRO's and no RWC moves."""
        mod0 = self.resolve_srcb(ins.thread, ins.mod)
        addr = ins.addr if ins.macro else self.dst_addr(ins.thread, ins.imm, mod0)
        active = (~self.cfg_bit(BLOCK_DEST_WR_FROM_SFPU) & self.gate(ins)
                  & (self.lane_enabled() | (mod0 == MOD0_FMT_INT32_ALL)))
        if active.any():
            rows, cols = self._rows_cols(addr, self.cfg_bit(DEST_WR_COL_EXCHANGE, by_column=True))
            vals = FL.sfpstore_convert(self.lreg[ins.vd], mod0)
            bits = self.cop.dst.bits
            r, c, v = rows[active], cols[active], vals[active]
            if mod0 in FL.SFPSTORE_WRITES_DST32:
                adj = adj_rows(r)
                bits[adj, c] = (v >> 16).astype(np.uint16)
                bits[adj + 8, c] = (v & 0xFFFF).astype(np.uint16)
            else:
                bits[self.cop.dst.map16(r, write=True), c] = (v & 0xFFFF).astype(np.uint16)
        if not ins.macro:
            self.cop.rwcs.apply_addr_mod(ins.thread, ins.addr_mod, update_fidelity=False)


__all__ = ["LoadStoreOps", "LANES"]
