"""Fast forms of thread-issued SFPLOAD and SFPSTORE, one for both arches (SFPLOAD.md,
SFPSTORE.md; BlackholeA0 pages for Blackhole's addressing and row mapping).

The general forms (:meth:`.loadstore.LoadStoreOps.x_SFPLOAD` / ``x_SFPSTORE``, and
Blackhole's :meth:`.blackhole.BlackholeOps.bh_SFPLOAD` / ``bh_SFPSTORE``) work out, on
every instruction, the configuration-derived values an instruction uses: the resolved
MOD0_FMT_SRCB, the address offsets, the lane masks of LaneConfig, the Dst indices of the
32 lanes for the address, whether the AddrMod moves any counter. Here they are worked out
once per thread and kept in an :class:`LSContext` while nothing they depend on changes:
Config and ThreadConfig (their versions), LaneConfig (the array and its version) and
Dst's aliasing mode. The Dst indices are kept for all 1024 addresses at once (one row
per address). What stays per instruction: the address (the RWCs move), the lane
enables when UseLaneFlagsForLaneEnable is on in some lane, the Dst read and the
conversion by table, the LReg write, the Dst write, and AddrMod when it moves something.

Anything else runs the general form: VD >= 8 (SFPLOAD) or >= 12 (SFPSTORE: the
backdoor gate), MOD0_FMT_INT32_ALL (all lanes; Blackhole's stack pointer), a Mod0 whose
conversion is not a table lookup, SFPLOAD with the Dst index capture on, SFPSTORE of a
16-bit mode while Dst16b aliases Dst32b, and instructions SFPLOADMACRO scheduled (their
Addr and Mod0 are given). The arch differences are data (:class:`.loadstore.LSArch`): the
conversion tables and modes, Blackhole's ``(Sp + DEST_SP_BASE_Base) & 3`` address term
and its remap / swizzle row mapping.

Tests pin the fast forms against the general ones bit for bit
(tests/test_sfpu_loadstore_fast.py).
"""

from __future__ import annotations

import numpy as np

from ...formats import layout as FL
from .fp import _count_nonzero
from .loadstore import fp32_tables, index_tables, store_bf16_table
from .state import (BLOCK_DEST_WR_FROM_SFPU, BLOCK_SFPU_RD_FROM_DEST, DEST_RD_COL_EXCHANGE, DEST_WR_COL_EXCHANGE,
                    LaneConfig)

MOD0_FMT_SRCB = FL.MOD0_FMT_SRCB
MOD0_FMT_INT32_ALL = FL.MOD0_FMT_INT32_ALL
_KEEP16: dict = {}  # the uint16 form of fp32_tables' keep


def _keep16() -> np.ndarray:
    """:func:`.loadstore.fp32_tables`' ``keep`` as uint16 (0xFFFF: the low half kept)."""
    t = _KEEP16.get("keep16")
    if t is None:
        t = _KEEP16["keep16"] = fp32_tables()[3].astype(np.uint16)
        t.setflags(write=False)
    return t


class LSContext:
    """One thread's configuration-derived values for the fast forms (module docstring);
    valid while ``key`` matches."""

    __slots__ = ("cfg_version", "thread_version", "lane_config", "lane_version", "aliased", "srcb", "offset",
                 "sp_base", "sp_mask", "load_open", "load_full", "store_open", "store_full", "capture", "noop", "load",
                 "store", "exchange_rd", "exchange_wr", "remap", "swizzle")


class FastLoadStoreOps:
    """Mixin of VectorUnit: :meth:`fast_SFPLOAD`, :meth:`fast_SFPSTORE`."""

    def ls_context(self, thread: int) -> LSContext:
        """The thread's :class:`LSContext`, rebuilt when something it depends on changed."""
        ctx = self.ls_contexts[thread]
        cfg = self.cop.config
        lc = self.lane_config
        if (ctx is not None and ctx.cfg_version == cfg.version and ctx.thread_version == cfg.thread_version
                and ctx.lane_config is lc and ctx.lane_version == lc.version and ctx.aliased == self.cop.dst.aliased16):
            return ctx
        srcb, offset, base = self._cfg_view(thread)
        sp_base, remap, swizzle = self.ls_arch.view(self, thread)
        aliased = self.cop.dst.aliased16
        # a context made before for the same values (Config moves on, as a kernel's other
        # threads write it, and comes back, as Dst halves alternate): kept, with what was
        # prepared in it, when the AddrMods it looked at move the same counters
        known = self.ls_known[thread]
        key = (srcb, offset + base, sp_base, remap, swizzle, aliased, id(lc), getattr(lc, "version", None))
        old = known.get(key) if type(lc) is LaneConfig else None
        if (old is not None and old.lane_config is lc
                and all(self._ls_noop_now(thread, m) == v for m, v in old.noop.items())):
            old.cfg_version, old.thread_version = cfg.version, cfg.thread_version
            self.ls_contexts[thread] = old
            return old
        ctx = LSContext()
        ctx.cfg_version, ctx.thread_version = cfg.version, cfg.thread_version
        ctx.lane_config, ctx.lane_version = lc, getattr(lc, "version", None)
        ctx.aliased = aliased
        ctx.srcb, ctx.offset = srcb, offset + base
        ctx.sp_base, ctx.remap, ctx.swizzle = sp_base, remap, swizzle
        ctx.sp_mask = self.ls_arch.sp_mask
        flags, self.use_flags = self.use_flags, np.zeros(32, dtype=bool)
        try:  # the lanes open while UseLaneFlagsForLaneEnable is off (LaneConfig alone)
            ctx.load_open = self.lanes_open(BLOCK_SFPU_RD_FROM_DEST)
            ctx.store_open = self.lanes_open(BLOCK_DEST_WR_FROM_SFPU)
        finally:
            self.use_flags = flags
        ctx.load_full = bool(ctx.load_open.all())
        ctx.store_full = bool(ctx.store_open.all())
        ctx.capture = self.dest_index_lanes() is not None
        ctx.exchange_rd = self.cfg_bit(DEST_RD_COL_EXCHANGE, by_column=True)
        ctx.exchange_wr = self.cfg_bit(DEST_WR_COL_EXCHANGE, by_column=True)
        ctx.noop, ctx.load, ctx.store = {}, {}, {}
        if type(lc) is not LaneConfig:  # (a plain array, as tests set it: not kept)
            return ctx
        self.ls_contexts[thread] = ctx
        if len(known) >= 8:
            known.clear()
        known[key] = ctx
        return ctx

    def _ls_noop(self, ctx: LSContext, thread: int, addr_mod: int) -> bool:
        """Whether ApplyPartialAddrMod with ``addr_mod`` moves nothing while ExtraAddrModBit
        is 0 (every SrcA / SrcB / Dst clear, carry and increment field 0, no bias
        increment; FidelityPhase is not updated by SFPLOAD / SFPSTORE)."""
        hit = ctx.noop.get(addr_mod)
        if hit is None:
            hit = ctx.noop[addr_mod] = self._ls_noop_now(thread, addr_mod)
        return hit

    def _ls_noop_now(self, thread: int, addr_mod: int) -> bool:
        """:meth:`_ls_noop` as the configuration is now."""
        rwcs = self.cop.rwcs
        if rwcs.addr_mod_bits == 3:
            index = addr_mod & 7
        else:
            index = (addr_mod & 3) + (4 if self.cop.config.thread_get(thread, "ADDR_MOD_SET_Base") else 0)
        fields = rwcs.slot_fields(thread, index)  # (None: every field 0)
        return fields is None or (not any(fields[:10]) and not fields[13] & 3)

    def _ls_plan(self, ctx: LSContext, mod: int, store: bool):
        """How Mod0 ``mod`` runs in ``ctx``, or None (the general form runs): for SFPLOAD
        (conversion table of the 16-bit datum or of the FP32 high half, high index table,
        low index table or None), for SFPSTORE (table of the high half, the FP32 flush's
        low-half mask or None, high index table, low index table or None)."""
        plans = ctx.store if store else ctx.load
        if mod in plans:
            return plans[mod]
        arch = self.ls_arch
        mod0 = ctx.srcb if mod == MOD0_FMT_SRCB else mod
        plan = None
        if mod0 != MOD0_FMT_INT32_ALL:
            if store:
                if mod0 == FL.MOD0_FMT_BF16 and not ctx.aliased:
                    plan = (store_bf16_table(), None, *index_tables(ctx.exchange_wr, False, False, ctx.remap,
                                                                      ctx.swizzle))
                elif mod0 in arch.store_fp32:
                    _, high, flush, keep = fp32_tables()
                    if mod0 in arch.store_flush:
                        high, keep = flush, _keep16()
                    else:
                        keep = None
                    plan = (high, keep, *index_tables(ctx.exchange_wr, True, False, ctx.remap, ctx.swizzle))
            else:
                dst32 = mod0 in FL.SFPLOAD_READS_DST32
                if mod0 in arch.load_modes:
                    plan = (arch.load_table(mod0),)
                elif mod0 in arch.load_fp32:
                    plan = (fp32_tables()[0],)
                if plan is not None:
                    plan += index_tables(ctx.exchange_rd, dst32, ctx.aliased, ctx.remap, ctx.swizzle)
        plans[mod] = plan
        return plan

    def _ls_prepare(self, ctx: LSContext, ins, store: bool) -> tuple:
        """What the fast form of ``ins`` uses in ``ctx`` (kept on the Insn with ``ctx``):
        (ctx, conversion table or None when the general form runs, high index table, low
        index table or None, VD, Imm10 + the address offsets, whether its AddrMod moves
        nothing while ExtraAddrModBit is 0[, SFPSTORE: the FP32 flush's low-half mask or
        None])."""
        plan = self._ls_plan(ctx, ins.mod, store)
        vd = ins.vd
        if plan is None or ins.macro or (vd >= 12 if store else vd >= 8 or (ctx.capture and vd < 4)):
            return (ctx, None, None, None, vd, 0, False, None)
        noop = self._ls_noop(ctx, ins.thread, ins.addr_mod)
        if store:
            table, keep, high, low = plan
        else:
            (table, high, low), keep = plan, None
        return (ctx, table, high, low, vd, ins.imm + ctx.offset, noop, keep)

    def _ls_fast(self, ins, store: bool):
        """What ``ins``'s fast form uses (``_ls_prepare``) in its thread's context, the
        context rebuilt first when anything it keeps has changed (Config, ThreadConfig,
        LaneConfig, Dst aliasing)."""
        ctx = self.ls_contexts[ins.thread]
        cop = self.cop
        cfg = cop.config
        lc = self.lane_config
        if (ctx is None or ctx.cfg_version != cfg.version or ctx.thread_version != cfg.thread_version
                or ctx.lane_config is not lc or ctx.lane_version != lc.version or ctx.aliased != cop.dst.aliased16):
            ctx = self.ls_context(ins.thread)
        p = ins.fast
        if p is None or p[0] is not ctx:
            p = ins.fast = self._ls_prepare(ctx, ins, store)
        return p

    def fast_SFPLOAD(self, ins) -> None:
        """A thread-issued SFPLOAD (module docstring); the general form where it does not apply."""
        ctx, table, high, low, vd, imm, noop, keep = self._ls_fast(ins, False)
        if table is None:
            self.general_load(ins)
            return
        thread = ins.thread
        cop = self.cop
        rwc = cop.rwcs.rwc[thread]
        addr = (imm + rwc.Dst + ((rwc.Sp + ctx.sp_base) & ctx.sp_mask)) & 0x3FF
        if cop.math.dst_log:
            self.hz_dst_read(ins, ctx.srcb if ins.mod == MOD0_FMT_SRCB else ins.mod, addr, "SFPLOAD")
        dst = cop.dst  # DstBits flattened (indexed by intp arrays, no conversion): flat_bits, without
        flat = dst.flat if dst.pending is None else dst.flat_bits  # its call while no write is deferred
        lregs = self.ls_lregs
        if lregs[0] is not self.lreg:
            lregs = self._ls_lregs()
        row = lregs[1][vd]
        if _count_nonzero(self.use_flags) and _count_nonzero(self.flags) != 32:
            full, active = False, self.lanes_open(BLOCK_SFPU_RD_FROM_DEST)
        else:  # (the lane flags leave every lane as LaneConfig does)
            full, active = ctx.load_full, ctx.load_open
        if low is None:
            if full:
                table.take(flat[high[addr]], None, row, "clip")  # (in range; "clip": unbuffered)
            else:
                np.copyto(row, table.take(flat[high[addr]]), where=active)
        else:  # FP32 table: the high half through the table, the low half as it is
            datum = table.take(flat[high[addr]])
            datum |= flat[low[addr]]
            np.copyto(row, datum, where=active)
        if rwc.ExtraAddrModBit or not noop:
            cop.rwcs.apply_addr_mod(thread, ins.addr_mod, update_fidelity=False)

    def fast_SFPSTORE(self, ins) -> None:
        """A thread-issued SFPSTORE (module docstring); the general form where it does not apply."""
        ctx, table, high, low, vd, imm, noop, keep = self._ls_fast(ins, True)
        if table is None:
            self.general_store(ins)
            return
        thread = ins.thread
        cop = self.cop
        rwc = cop.rwcs.rwc[thread]
        addr = (imm + rwc.Dst + ((rwc.Sp + ctx.sp_base) & ctx.sp_mask)) & 0x3FF
        if _count_nonzero(self.use_flags) and _count_nonzero(self.flags) != 32:
            active = self.lanes_open(BLOCK_DEST_WR_FROM_SFPU)
            full = _count_nonzero(active) == 32
        else:  # (as in fast_SFPLOAD)
            full, active = ctx.store_full, ctx.store_open
        if full or _count_nonzero(active):
            lregs = self.ls_lregs
            if lregs[0] is not self.lreg:
                lregs = self._ls_lregs()
            hi16 = lregs[2][vd]  # LReg[VD]'s high 16-bit halves (a view)
            high = high[addr]
            dst = cop.dst
            flat = dst.flat if dst.pending is None else dst.flat_bits  # (as in fast_SFPLOAD)
            if full:
                flat[high] = table.take(hi16)
                if low is not None:  # FP32 table: the low half as it is (flushed with the high half: keep)
                    lo16 = lregs[1][vd].astype(np.uint16)
                    flat[low[addr]] = lo16 if keep is None else lo16 & keep.take(hi16)
            else:  # (the conversions are lane by lane)
                hi16 = hi16[active]
                flat[high[active]] = table.take(hi16)
                if low is not None:
                    lo16 = lregs[1][vd][active].astype(np.uint16)
                    flat[low[addr][active]] = lo16 if keep is None else lo16 & keep.take(hi16)
        if rwc.ExtraAddrModBit or not noop:
            cop.rwcs.apply_addr_mod(thread, ins.addr_mod, update_fidelity=False)

    def _ls_lregs(self):
        """(the LRegs, their rows, their rows' high 16-bit halves): lists of views, kept
        while ``self.lreg`` is the same array."""
        lreg = self.lreg
        high = lreg.view(np.uint16).reshape(17, 32, 2)[:, :, 1 if np.little_endian else 0]
        self.ls_lregs = (lreg, list(lreg), list(high))
        return self.ls_lregs


__all__ = ["FastLoadStoreOps"]
