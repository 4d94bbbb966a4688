"""Load / store sub-unit instructions: SFPLOAD, SFPLOADI, SFPSTORE (SFPLOAD.md,
SFPLOADI.md, SFPSTORE.md). The data type conversions are those of
:mod:`ttemu.tensix.formats.layout` (``sfpload_convert`` / ``sfpstore_convert``,
written from the same pages)."""

from __future__ import annotations

import numpy as np

from ...formats import layout as FL
from ...regs.dst import COLS, adj16, adj_rows
from .state import (ALL_LANES, BLOCK_DEST_WR_FROM_SFPU, BLOCK_SFPU_RD_FROM_DEST, COL,
                    DEST_RD_COL_EXCHANGE, DEST_WR_COL_EXCHANGE, ENABLE_FP16A_INF, LANES,
                    ROW, U32)

MOD0_FMT_SRCB = FL.MOD0_FMT_SRCB
MOD0_FMT_INT32_ALL = FL.MOD0_FMT_INT32_ALL
#: SrcB formats for which MOD0_FMT_SRCB means BF16 (FP32, TF32, BF16, BFP8, BFP4, BFP2,
#: INT32, INT16 as hardware codes; the BFP ones are the 8-bit-exponent "_b" formats).
SRCB_BF16_FORMATS = frozenset({0, 4, 5, 6, 7, 15, 8, 9})
#: SFPLOAD modes whose conversion is a function of the 16-bit Dst datum alone (SFPLOAD.md)
LOAD_BY_TABLE = frozenset({FL.MOD0_FMT_BF16, FL.MOD0_FMT_UINT16, FL.MOD0_FMT_HI16, FL.MOD0_FMT_INT16,
                           FL.MOD0_FMT_LO16, FL.MOD0_FMT_INT8, FL.MOD0_FMT_INT8_COMP})
_TABLES: dict = {}  # ("load", Mod0) / "store_bf16" -> conversion of every 16-bit pattern (uint32)


def load_table(mod0: int) -> np.ndarray:
    """``sfpload_convert`` of every 16-bit Dst datum for a :data:`LOAD_BY_TABLE` mode
    (MOD0_FMT_BF16: :func:`load_bf16_grid`)."""
    t = _TABLES.get(("load", mod0))
    if t is None:
        if mod0 == FL.MOD0_FMT_BF16:
            t = load_bf16_grid()
        else:
            t = FL.sfpload_convert(np.arange(1 << 16, dtype=U32), mod0).astype(U32)
        _TABLES[("load", mod0)] = t
        t.setflags(write=False)
    return t


def load_bf16_grid() -> np.ndarray:
    """``sfpload_convert`` MOD0_FMT_BF16 (``UnshuffleBF16(x) << 16``, SFPLOAD.md) of every
    16-bit Dst datum, built as the outer OR of its two bytes' parts: the high byte (sign,
    mantissa) and the low byte (exponent) land in separate bits (tests compare it with the
    conversion on every pattern)."""
    byte = np.arange(256, dtype=U32)
    high = ((byte & 0x80) << 24) | ((byte & 0x7F) << 16)  # sign, mantissa
    low = byte << 23  # exponent
    return np.bitwise_or.outer(high, low).reshape(-1)


def store_bf16_table() -> np.ndarray:
    """``sfpstore_convert`` MOD0_FMT_BF16 of every FP32 high half (its result depends on the
    high 16 bits only: FL.fp32_to_dst16_bf16): :func:`store_bf16_grid`."""
    t = _TABLES.get("store_bf16")
    if t is None:
        t = _TABLES["store_bf16"] = store_bf16_grid()
        t.setflags(write=False)
    return t


def store_bf16_grid() -> np.ndarray:
    """``sfpstore_convert`` MOD0_FMT_BF16 (``BF16Shuffle(ToBF16(x))``: an exponent of 0
    flushes to signed zero, then truncation, SFPSTORE.md) of every FP32 high half h, built
    as the outer OR of its two bytes' parts (the high byte: sign and the exponent's top 7
    bits; the low byte: the exponent's bit 0 and the mantissa) and the flush (tests compare
    it with the conversion on every pattern)."""
    byte = np.arange(256, dtype=np.uint16)
    high = ((byte & 0x80) << 8) | ((byte & 0x7F) << 1)  # Dst16 BF16: sign, (mantissa), exponent
    low = ((byte & 0x7F) << 8) | (byte >> 7)
    t = np.bitwise_or.outer(high, low).reshape(-1)
    np.putmask(t, (t & 0xFF) == 0, t & 0x8000)  # exponent 0: signed zero
    return t


#: SFPLOAD / SFPSTORE modes whose conversion is ``UnshuffleFP32`` / ``FP32Shuffle`` (the
#: high DstBits half through the BF16 shuffle, the low half as it is): done by table
FP32_BY_TABLE = frozenset({FL.MOD0_FMT_FP32, FL.MOD0_FMT_INT32, FL.MOD0_FMT_INT32_ALL})


def fp32_tables() -> tuple:
    """(``sfpload_convert`` MOD0_FMT_FP32 of every ``h << 16`` (uint32), the high DstBits
    half ``sfpstore_convert`` MOD0_FMT_FP32 gives for every FP32 high half ``h`` (uint16),
    and for Blackhole's store, which flushes denormals: that half with the flush, and
    0xFFFF / 0 (the low half kept / cleared) per ``h`` (uint32))."""
    t = _TABLES.get("fp32")
    if t is None:
        h = np.arange(1 << 16, dtype=U32)
        load = FL.sfpload_convert(h << 16, FL.MOD0_FMT_FP32).astype(U32)
        store = (FL.sfpstore_convert(h << 16, FL.MOD0_FMT_FP32) >> 16).astype(np.uint16)
        normal = (h & 0x7F80) != 0
        store_flush = np.where(normal, store, store.take(h & 0x8000)).astype(np.uint16)
        keep = np.where(normal, 0xFFFF, 0).astype(U32)
        t = _TABLES["fp32"] = (load, store, store_flush, keep)
        for a in t:
            a.setflags(write=False)
    return t


def load_fp32(hi16, lo16) -> np.ndarray:
    """``sfpload_convert((hi16 << 16) | lo16, MOD0_FMT_FP32)`` (uint32) by table."""
    out = fp32_tables()[0].take(hi16)
    out |= lo16
    return out


def store_fp32(x, flush: bool = False):
    """(high, low) DstBits halves (uint16) of ``sfpstore_convert(x, MOD0_FMT_FP32)``, or with
    ``flush`` of Blackhole's (denormals to signed zero first), by table."""
    _, store, store_flush, keep = fp32_tables()
    h = x >> 16
    if flush:
        return store_flush.take(h), (x & keep.take(h)).astype(np.uint16)
    return store.take(h), x.astype(np.uint16)


#: SFPLOADI modes whose value depends on Imm16 alone: BF16 (0), FP16-ish (1), zero-extended
#: (2), sign-extended (4)
LOADI_CONSTANT = frozenset({0, 1, 2, 4})
_LOADI: dict = {}  # (Mod0, Imm16) -> loadi_value


def loadi_value(mod0: int, imm16: int) -> np.ndarray:
    """SFPLOADI's value (uint32 [32], read-only) for a :data:`LOADI_CONSTANT` Mod0, kept
    per (Mod0, Imm16)."""
    key = (mod0, imm16)
    v = _LOADI.get(key)
    if v is None:
        if mod0 == 0:
            x = imm16 << 16
        elif mod0 == 1:
            x = int(FL.fp32_from_fp16_sfploadi(imm16))
        elif mod0 == 2:
            x = imm16
        else:
            x = (imm16 - 0x10000 if imm16 & 0x8000 else imm16) & 0xFFFFFFFF
        if len(_LOADI) > 8192:
            _LOADI.clear()
        v = _LOADI[key] = np.full(32, x, dtype=U32)
        v.setflags(write=False)
    return v


_ADDRS = np.arange(1024)[:, None]
_INDEX: dict = {}  # (exchange columns, dst32, aliased, remap, swizzle) -> (high, low) index tables


class LSArch:
    """What differs between the arches' SFPLOAD / SFPSTORE lane bodies (the addressing
    differs too: :meth:`LoadStoreOps.dst_addr`, Blackhole's ``_bh_addr``): the load modes
    converted by a 16-bit table (``load_table(mod0)``), the load / store modes converted
    by the FP32 tables (``store_flush``: the store modes that flush denormals first), the
    other conversions (``load_convert(raw, mod0, old_lreg, enable_fp16a_inf)``,
    ``store_convert(x, mod0)``), and ``view(unit, thread)`` -> (DEST_SP_BASE_Base, remap,
    swizzle) (0, False, False on Wormhole, which has neither a stack pointer nor a row
    remap); ``sp``: the fast forms' Addr has Blackhole's ``(Sp + DEST_SP_BASE_Base) & 3``."""

    def __init__(self, load_modes, load_table, load_fp32, store_fp32, store_flush, load_convert, store_convert,
                 view, sp: bool):
        self.load_modes, self.load_table = frozenset(load_modes), load_table
        self.load_fp32, self.store_fp32 = frozenset(load_fp32), frozenset(store_fp32)
        self.store_flush, self.view = frozenset(store_flush), view
        self.load_convert, self.store_convert = load_convert, store_convert
        self.sp_mask = 3 if sp else 0  # Addr's (Sp + DEST_SP_BASE_Base) & 3 term, or none


def _wh_load_convert(raw, mod0, old, fp16a_inf):
    return FL.sfpload_convert(raw, mod0, old_lreg=old, enable_fp16a_inf=fp16a_inf)


WORMHOLE = LSArch(LOAD_BY_TABLE, load_table, FP32_BY_TABLE, FP32_BY_TABLE, (), _wh_load_convert, FL.sfpstore_convert,
                  lambda unit, thread: (0, False, False), sp=False)


def index_tables(exchange: np.ndarray, dst32: bool, aliased: bool, remap: bool, swizzle: bool):
    """Indices into the flattened DstBits of the 32 lanes' datums, for every 10-bit Addr
    (one row per Addr): rows ``(Addr & ~3) + Lane / 8``, columns ``2 * (Lane % 8)`` plus
    one for Addr bit 1 or the lane's column ``exchange``; Dst.md's ``Adj32`` for 32-bit
    modes (the high halves; the low halves 8 rows further, the second table, else None)
    or ``Adj16`` (then ``Adj32`` when ``aliased``), with Blackhole's ``remap`` /
    ``swizzle``. Lists of read-only intp arrays (indexing with them needs no conversion);
    kept per arguments."""
    key = (exchange.tobytes(), dst32, aliased, remap, swizzle)
    hit = _INDEX.get(key)
    if hit is None:
        rows = (((_ADDRS & ~3) + ROW) & 0x3FF).astype(np.intp)
        cols = COL * 2 + (((_ADDRS & 2) != 0) | exchange)
        if dst32:
            adj = adj_rows(rows, remap, swizzle)
            hit = (adj * COLS + cols, (adj + 8) * COLS + cols)
        else:
            adj = adj16(rows, remap)
            if aliased:
                adj = adj_rows(adj)
            hit = (adj * COLS + cols, None)
        for a in hit:
            if a is not None:
                a.setflags(write=False)
        hit = _INDEX[key] = tuple(None if a is None else list(a) for a in hit)  # (a row per Addr)
    return hit


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
        return self._dst_addr(thread, imm10, mod0, offset, base)

    def _dst_addr(self, thread: int, imm10: int, mod0: int, offset: int, base: int) -> int:
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
    def _lane_index(self, thread: int, addr: int, exchange_bit: int, dst32: bool, aliased: bool):
        """Indices into the flattened DstBits of the 32 lanes' Dst datums at ``addr``: (the
        high halves, the low halves) for 32-bit modes, (the 16-bit datums, None) otherwise
        (``aliased``: Dst16b rows in the high halves of Dst32b rows), with the arch's row
        mapping for ``thread`` (:func:`index_tables`; read-only)."""
        _, remap, swizzle = self.ls_arch.view(self, thread)
        high, low = index_tables(self.cfg_bit(exchange_bit, by_column=True), dst32, aliased, remap, swizzle)
        return high[addr], None if low is None else low[addr]

    def x_SFPLOAD(self, ins, what="SFPLOAD"):
        """SFPLOAD.md: move the even (or odd: Addr bit 1, or DEST_RD_COL_EXCHANGE) columns of
        four rows of Dst to LReg[VD] with Mod0's conversion, in enabled lanes (all lanes
        for MOD0_FMT_INT32_ALL) not blocked by BLOCK_SFPU_RD_FROM_DEST; optionally also the
        Dst index into LReg[VD + 4]; then ApplyPartialAddrMod. Returns (Mod0, Addr) after
        resolution, which SFPLOADMACRO reuses."""
        srcb, offset, base = self._cfg_view(ins.thread)
        mod0 = srcb if ins.mod == MOD0_FMT_SRCB else ins.mod
        addr = self._dst_addr(ins.thread, ins.imm, mod0, offset, base)
        if ins.vd < 8:
            if self.cop.math.dst_log:
                self.hz_dst_read(ins, mod0, addr, what)  # hazards.py: FPU Dst write -> SFPLOAD distance
            self.load_lanes(ins.thread, ins.vd, mod0, addr)
        self.cop.rwcs.apply_addr_mod(ins.thread, ins.addr_mod, update_fidelity=False)
        return mod0, addr

    def load_lanes(self, thread: int, vd: int, mod0: int, addr: int) -> None:
        """SFPLOAD's lane body, both arches (their conversions: ``ls_arch``): the Dst
        datums of the enabled lanes (all for MOD0_FMT_INT32_ALL) not blocked by
        BLOCK_SFPU_RD_FROM_DEST converted to LReg[VD]; the Dst index capture."""
        arch = self.ls_arch
        active = self.lanes_open(BLOCK_SFPU_RD_FROM_DEST, mod0 == MOD0_FMT_INT32_ALL)
        dst = self.cop.dst
        dst32 = mod0 in FL.SFPLOAD_READS_DST32
        hi, lo = self._lane_index(thread, addr, DEST_RD_COL_EXCHANGE, dst32, dst.aliased16)
        bits = dst.bits
        if mod0 in arch.load_modes:
            datum = arch.load_table(mod0).take(bits.take(hi))
        elif mod0 in arch.load_fp32:
            datum = load_fp32(bits.take(hi), bits.take(lo))
        else:
            if dst32:
                raw = (bits.take(hi).astype(U32) << 16) | bits.take(lo).astype(U32)
            else:
                raw = bits.take(hi).astype(U32)
            datum = arch.load_convert(raw, mod0, self.lreg[vd], self.cfg_bit(ENABLE_FP16A_INF))
        np.copyto(self.lreg[vd], datum, casting="unsafe", where=active)
        if vd < 4:
            capture = self.dest_index_lanes()
            if capture is not None:
                idx = active & capture
                rows, cols = self._rows_cols(addr, self.cfg_bit(DEST_RD_COL_EXCHANGE, by_column=True))
                self.lreg[vd + 4][idx] = ((rows << 4) | cols).astype(U32)[idx]

    def x_SFPLOADI(self, ins):
        """SFPLOADI.md: write a converted Imm16 to LReg[VD] (VD < 8) in enabled lanes: BF16
        (0), FP16-ish (1), zero-extended (2), sign-extended (4), upper half (8, low half
        kept), lower half (10, upper half kept). Other Mod0 values are undefined."""
        if ins.vd >= 8:
            return
        imm = ins.imm & 0xFFFF
        mod = ins.mod
        if mod in LOADI_CONSTANT:
            self.write(ins.vd, loadi_value(mod, imm), self.lane_enabled())
            return
        old = self.lreg[ins.vd]
        if mod == 8:
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
        srcb, offset, base = self._cfg_view(ins.thread)
        mod0 = srcb if ins.mod == MOD0_FMT_SRCB else ins.mod
        addr = ins.addr if ins.macro else self._dst_addr(ins.thread, ins.imm, mod0, offset, base)
        self.store_lanes(ins, mod0, addr)
        if not ins.macro:
            self.cop.rwcs.apply_addr_mod(ins.thread, ins.addr_mod, update_fidelity=False)

    def store_lanes(self, ins, mod0: int, addr: int) -> None:
        """SFPSTORE's lane body, both arches (their conversions: ``ls_arch``): LReg[VD]
        converted to the Dst datums of the enabled lanes (all for MOD0_FMT_INT32_ALL) not
        blocked by BLOCK_DEST_WR_FROM_SFPU (nor by the backdoor gate)."""
        arch = self.ls_arch
        active = self.lanes_open(BLOCK_DEST_WR_FROM_SFPU, mod0 == MOD0_FMT_INT32_ALL)
        gate = self.gate(ins)
        if gate is not ALL_LANES:
            active = active & gate
        n = np.count_nonzero(active)
        if not n:
            return
        dst32 = mod0 in FL.SFPSTORE_WRITES_DST32
        dst = self.cop.dst
        bits = dst.bits
        if dst32 or not dst.aliased16:
            hi, lo = self._lane_index(ins.thread, addr, DEST_WR_COL_EXCHANGE, dst32, False)
            x = self.lreg[ins.vd]
            if n != 32:  # (the conversions are lane by lane)
                hi, x = hi[active], x[active]
                lo = None if lo is None else lo[active]
            if mod0 == FL.MOD0_FMT_BF16:
                bits.put(hi, store_bf16_table().take(x >> 16))
            elif mod0 in arch.store_fp32:
                high, low = store_fp32(x, mod0 in arch.store_flush)
                bits.put(hi, high)
                bits.put(lo, low)
            else:
                vals = arch.store_convert(x, mod0)
                if dst32:
                    bits.put(hi, (vals >> 16).astype(np.uint16))
                    bits.put(lo, (vals & 0xFFFF).astype(np.uint16))
                else:
                    bits.put(hi, (vals & 0xFFFF).astype(np.uint16))
        else:  # a 16-bit mode while Dst16b aliases Dst32b: through Dst.map16 (it may warn)
            vals = arch.store_convert(self.lreg[ins.vd], mod0)
            hi, _ = self._lane_index(ins.thread, addr, DEST_WR_COL_EXCHANGE, False, False)
            hi = hi[active]
            bits[dst.map16(hi // COLS, write=True), hi % COLS] = (vals[active] & 0xFFFF).astype(np.uint16)


__all__ = ["LoadStoreOps", "LSArch", "WORMHOLE", "index_tables", "LANES"]
