"""Matrix Unit (FPU): MVMUL, element-wise ops, pooling, moves between Src and Dst.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/MatrixUnit.md, and one
page per instruction (cited in each method). Register layouts: Dst.md, SrcASrcB.md;
counters: RWCs.md; number reading: FloatBitPatterns.md ("Matrix Unit (FPU)" columns).

Numerics model (the pages say the functional model is "a rough guide": order,
fusing and precision may differ; denormals flush to zero; NaN/Inf are not IEEE):

* Src values are read with the FPU column of FloatBitPatterns.md: exponent 0 is
  zero (denormals flushed), the largest exponent (255 / FP16 31) is an ordinary
  number. BF16 ignores the three low TF32 mantissa bits.
* Fidelity phases (SrcASrcB.md, ``SrcAFidelityBits`` / ``SrcBFidelityBits`` of
  ELWMUL.md) are taken on the integer mantissa: SrcA gives ``1.mmmm`` (phase even)
  or the next five bits (phase odd, the last TF32/FP16 bit is never used); SrcB gives
  ``1.mmmmmm`` (phase 0/1) or the remaining four bits (phase 2/3). Every partial
  product (<= 5 x 7 significant bits) is exact.
* Floating-point MVMUL / GAPOOL / DOTPV / ELWADD / ELWSUB / ELWMUL go through the
  datapath of ``fpu_datapath.py``: products of one phase summed in groups of 8 aligned
  to their largest exponent, aligned again with the old Dst value, rounded half away
  from zero to the Dst format (16-bit Dst: 10 mantissa bits before the add). The pages
  leave this open ("a rough guide ... precision could be either lower or higher");
  ttsim pins it down, and tt-llk's kernels (scripts/llk_corpus.py) and random operands
  with edge cases (tests/test_fpu_ttsim.py) come out bit-identical to ttsim with it.
  Results below the smallest normal become +0. ELWADD / ELWSUB in a non-zero fidelity
  phase (ttsim refuses it) scale the sum by 2**-5 / 2**-7, as the page divides it.
* Integer "8" x integer "8" -> integer "32" is exact with the documented magnitude
  masks per phase and saturation at +-(2**31-1).

Blackhole (no Matrix Unit pages: the Wormhole pages apply, with what tt-llk's Blackhole
code and ttsim's Blackhole model show; ``ttemu/arch/blackhole.py``): the instructions'
three-bit AddrMod names the ADDR_MOD slot (regs/rwc.py); ZEROACC's Blackhole fields and
16-row mode relative to the Dst half (``ZEROACC``); SrcA's format is the one the
unpacker wrote into the bank unless ThreadConfig DISABLE_IMPLIED_SRCA_FMT_Base is set
(``_implied_fmt``); Dst rows go through Dst.md's Blackhole ``Adj16`` / ``Adj32``
(regs/dst.py) while Config DEST_ACCESS_CFG_remap_addrs / swizzle_32b are set (``_remap``;
ttsim ignores them: "XXX handle Adj16/Adj32 on BH"), as the packers and SFPLOAD /
SFPSTORE do.

``ZEROACC`` marks rows undefined: they are written with zeros (what packers and
most FPU instructions read) and remembered, so that ``GMPOOL`` reads them as minus
infinity (all bits set). The mark of a DstBits row is dropped when the Matrix Unit
writes it, or when anyone leaves non-zero bits in it (limitation: zeros written into a
marked row by another unit still read as undefined in GMPOOL; Dst itself keeps no
undefined state).
"""

from __future__ import annotations

import numpy as np

from ...errors import Unimplemented
from ..formats import layout as L
from ..regs.dst import adj16, adj_rows
from . import Unit, Wait, op
from . import fpu_datapath as FD
from . import math_batch
from .fpu_datapath import BF16, FP16, INT8, TF32
from .fpu_fused import FusedMvmul
from .fpu_native import MODULE as _NATIVE
from .fpu_native import load as _load_native

#: the data movers' compiled routes (movers_native.c: MOVA2D's move16), or None
_MOVERS = _load_native("_movers_native")

#: Instructions of this unit not implemented (each stops a run as unimplemented).
#: The legacy instructions have no page with a functional model (MatrixUnit.md,
#: "Legacy instructions": MFCONV3S1 / CONV3S1 / CONV3S2 / APOOL3S1 / APOOL3S2 compute
#: ``Dst += 0``, MPOOL3S1/2 something like GMPOOL), and RAREB, SETASHRM*, SETIBRWC,
#: SETPKEDGOF and TRNSPSRCA are not documented for Wormhole B0 at all.
PENDING = frozenset({
    'RAREB', 'SETASHRMH', 'SETASHRMH0', 'SETASHRMH1', 'SETASHRMV', 'SETIBRWC', 'SETPKEDGOF', 'TRNSPSRCA'
})
#: Blackhole-only instructions of this unit, not implemented.
PENDING_BLACKHOLE = frozenset({
    'MOVDBGB2D'
})

U32 = np.uint32
_MASK19 = U32(0x7FFFF)
MATH = "math"
UNPACK = "unpack"

# SrcAStyle values (MVMUL.md "Determine the data formats"): BF16, FP16, TF32, INT8 (fpu_datapath.py)
# GMPOOL DstStyle adds INT32.
INT32 = "INT32"

# Hardware data format codes (formats.DataFormat; docs names in comments).
_FMT_BF16_STYLE = frozenset({0, 5, 6, 7, 15, 8, 9})  # FP32, BF16, BFP8, BFP4, BFP2, INT32, INT16
_FMT_FP16_STYLE = frozenset({1, 10, 2, 3, 11, 14})  # FP16, FP8, BFP8a, BFP4a, BFP2a, INT8
_FMT_TF32 = 4
_FMT_8B_EXP = frozenset({0, 4, 5, 6, 7, 15, 8, 9})  # MOVA2D.md Use8bExponent set (adds TF32)

# GMPOOL.md: argmax index transform of the first eight SrcA rows.
_NONLINEAR_I = np.array([0, 3, 6, 1, 4, 7, 2, 5], dtype=np.int64)
# GMPOOL.md visitation order: i = i_ ^ 4 for i_ < 8.
_GMPOOL_ORDER = np.array([4, 5, 6, 7, 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15])

INT32_MAX = (1 << 31) - 1

# MOVA2D's 16-bit fast path (_mova2d): Src bits 18..11 / 18..8 shifted down by three
# over bits 7..0 / 4..0
_U3 = U32(3)
_BF16_HI, _BF16_LO, _FP16_HI, _FP16_LO = U32(0xFF00), U32(0xFF), U32(0xFFE0), U32(0x1F)


def move16_rows(x, fp16, flush):
    """The 16-bit Dst datums MOVA2D's fast path writes for Src datums ``x`` (uint32;
    bits above 18 ignored), computed: RemoveHighExponent (``fp16``) or RemoveLowMantissa,
    then, with ``flush``, 0 where the exponent byte (bits 7..0) is 0. The same bits as
    ``_mov_to_dst``'s 16-bit path (tests compare them)."""
    if fp16:
        v = ((x >> _U3) & _FP16_HI) | (x & _FP16_LO)
    else:
        v = ((x >> _U3) & _BF16_HI) | (x & _BF16_LO)
    if flush:
        v[(x & _BF16_LO) == 0] = 0
    return v


#: move16_rows on every 19-bit Src datum, per (fp16, flush): uint16 [2**19], built once
#: a MatrixUnit has made MOVE16_TABLE_AFTER fast moves (~10 ms to build, 1 MiB each)
_MOVE16_TABLES: dict = {}
MOVE16_TABLE_AFTER = 512


def move16_table(fp16, flush):
    t = _MOVE16_TABLES.get((fp16, flush))
    if t is None:
        t = move16_rows(np.arange(1 << 19, dtype=U32), fp16, flush).astype(np.uint16)
        t.setflags(write=False)
        _MOVE16_TABLES[(fp16, flush)] = t
    return t

# ZEROACC's DstBits rows in modes 2 (each half) and 3 (read-only: the Dst write log holds them)
_HALF_ROWS = (np.arange(0, 512), np.arange(512, 1024))
_ALL_ROWS = np.arange(1024)
for _rows in (*_HALF_ROWS, _ALL_ROWS):
    _rows.setflags(write=False)

# fpu_native's ELW* kinds
_ELW_KIND = {"add": 0, "sub": 1, "mul": 2}

# Config fields read by this unit: Config (per bank) and ThreadConfig (per thread).
_CFG = ("ALU_FORMAT_SPEC_REG_SrcA_override", "ALU_FORMAT_SPEC_REG_SrcA_val",
        "ALU_FORMAT_SPEC_REG0_SrcA", "ALU_ACC_CTRL_Fp32_enabled", "ALU_ACC_CTRL_INT8_math_enabled",
        "ALU_ACC_CTRL_Zero_Flag_disabled_src", "DEST_REGW_BASE_Base")
_TCFG = ("CFG_STATE_ID_StateID", "DEST_TARGET_REG_CFG_MATH_Offset", "FIDELITY_BASE_Phase",
         "FP16A_FORCE_Enable", "CLR_DVALID_SrcA_Disable", "CLR_DVALID_SrcB_Disable")


# ---------------------------------------------------------------------------------------
# Numbers (vectorised on numpy arrays of raw bits)
# ---------------------------------------------------------------------------------------

def _src_int8(x, mask=0x7FFFF):
    """``ReadSrcInt8(x & mask)`` (ELWMUL.md): sign and 10-bit magnitude, as int64."""
    x = x.astype(np.int64) & mask
    mag = (x >> 8) & 0x3FF
    return np.where((x >> 18) & 1 == 1, -mag, mag)


# Dst16 BF16 layout (sign, man7, exp8) <-> IEEE BF16, as lookup tables: _UNSHUF_BF16 gives
# the IEEE FP32 bits (BF16 << 16) of a Dst16 value, _SHUF_BF16 the Dst16 value of an
# IEEE BF16 (Dst.md; also the high half of Dst32b FP32 / INT32).
# A DstBits value h (BF16 layout; the high half of an FP32 Dst32 row) for the FPU's
# accumulator (fpu_datapath.dst_decode): exponent, twice the signed mantissa of h << 16,
# and twice the sign (0 for a zero) the low half is added with. (Built on the grid
# h = sign, man7, exp8 without full-size temporaries: this runs at every Tensix start;
# tests/test_math_tables.py checks them against layout.py and dst_decode.)


def _bf16_tables():
    """-> _UNSHUF_BF16, _SHUF_BF16, _DST_EXP, _DST_MAN, _DST_SIGN (above)."""
    exp, man, i64 = np.arange(256, dtype=U32), np.arange(128, dtype=U32)[:, None], np.int64
    unshuf = np.empty((2, 128, 256), U32)
    unshuf[0] = (exp << U32(23)) | (man << U32(16))
    unshuf[1] = unshuf[0] | U32(0x80000000)
    unshuf = unshuf.reshape(-1)
    shuf = np.empty(1 << 16, np.uint16)
    shuf[unshuf >> U32(16)] = np.arange(1 << 16, dtype=np.uint16)
    e = np.empty((256, 256), i64)
    e[:] = exp
    m = np.empty((2, 128, 256), i64)
    m[0] = ((man.astype(i64) << 17) | 0x1000000) * (exp != 0)
    np.negative(m[0], out=m[1])
    sign = np.empty((2, 128, 256), i64)
    sign[0] = (exp != 0) * 2
    np.negative(sign[0], out=sign[1])
    return unshuf, shuf, e.reshape(-1), m.reshape(-1), sign.reshape(-1)


_UNSHUF_BF16, _SHUF_BF16, _DST_EXP, _DST_MAN, _DST_SIGN = _bf16_tables()


def dst_decode_tables():
    """(_DST_EXP, _DST_MAN, _DST_SIGN): the reference path's Dst decode tables (the fused
    path, fpu_fused, has its own)."""
    return _DST_EXP, _DST_MAN, _DST_SIGN


_ZEROS16 = np.zeros((16, 16), dtype=np.int64)


# ---------------------------------------------------------------------------------------
# The unit
# ---------------------------------------------------------------------------------------

class MatrixUnit(Unit):
    name = "math"

    def __init__(self, cop):
        self.cop = cop
        cfg = cop.config
        self._f = {n: cfg.fields[n] for n in _CFG}
        self._tf = {n: cfg.thread_fields[n] for n in _TCFG}
        # ZEROACC "undefined" marks, per DstBits row (see the module docstring).
        self.undefined = np.zeros(1024, dtype=bool)
        self._marks = False  # False: no row is marked (undefined.any() is known False)
        # SHIFTXA.md HardwareBug(): the last (starting) SrcA row address computed.
        self.last_srca_row = 0
        # Recent Dst writes (thread, its issue count before the instruction, kind "16" /
        # "32" / "rows", first row or DstBits rows, row count, instruction word), for
        # SFPLOAD.md's "three unrelated instructions" rule, which the Vector Unit checks
        # (ttemu/tensix/units/sfpu/hazards.py). Only the latest writes are kept.
        self._log = []
        # runs executed together whose log entries are not made yet (math_batch.log_run),
        # and the log's length once they are
        self._log_runs = []
        self._log_len = 0
        # Per thread: (config versions, bank, SrcAStyle, UseDst32b, Dst row base,
        # fidelity phase base), see _view.
        self._views = [None, None, None]
        # Dst.md (BlackholeA0) remapping: (remap_addrs, swizzle_32b) at Config version
        self._has_remap = "DEST_ACCESS_CFG_remap_addrs" in cfg.fields
        self._rm = (0, 0)
        self._rm_version = -1
        self._fused = FusedMvmul()  # holds the MVMULs waiting for the next access to Dst (_fused_mvmul)
        self._quirk = self._fused.minus_one_quirk = cop.tile.arch.fpu_minus_one_quirk
        # fpu_native's use32 for a 32-bit Dst: 1 with the -1 quirk (Wormhole), 2 without
        self._native32 = 1 if self._quirk else 2
        self._blocked = (None, None, None)  # (LaneConfig array, its version, _blocked_columns' answer)
        # Per thread: (config versions, SrcA format the unpacker recorded, LaneConfig and
        # its version, _move_view's answer), see _move_view.
        self._move_views = [None, None, None]
        self.fast_moves = True  # MOVA2D's common case through _move_view (tests compare both)
        self.move16_uses = 0  # fast moves made by arithmetic (move16_rows) before the table
        #: movers_native (its move16: move16_rows compiled), or None: the numpy forms
        self.movers = _MOVERS
        # the compiled datapath (fpu_native), or None: the pure-Python one (fpu_fused)
        self.native = _NATIVE
        # math_batch: the numbers naming ADDR_MOD slot values (math_batch._addr_mods)
        self.addr_mod_ids = {}
        self.addr_mod_next = 0

    # -- runs executed together (math_batch.py) ----------------------------------------
    def batch_runs(self, words, entries):
        """Runs of a compiled expansion's steps this unit executes together (math_batch)."""
        return math_batch.batch_runs(self, words, entries)

    def run_batch(self, t, body, start, end):
        """Execute steps ``start``.. of ``body`` together, as one at a time would; -> how many."""
        return math_batch.run_batch(self, t, body, start, end)

    def _view(self, ti, mnemonic):
        """``(bank, style, use32, dst_base, fid_base)`` of thread ``ti``: its Config bank,
        ``_styles``, DEST_TARGET_REG_CFG_MATH_Offset + DEST_REGW_BASE_Base and
        FIDELITY_BASE_Phase, recomputed only after a Config or ThreadConfig write."""
        cfg = self.cop.config
        v = self._views[ti]
        if v is not None and v[0] == cfg.version and v[1] == cfg.thread_version:
            if not v[4]:  # no implied SrcA format: the view holds
                return v[2]
            src = self.cop.src
            if v[3] == src.fmt["A"][src.math_bank["A"]]:
                return v[2]
        # (what _implied_fmt, _tc, _c and _styles give, read through the configuration's
        # field caches: a kernel rewrites the Dst offset before each tile, so this runs often)
        tv = cfg.thread_values[ti]
        bank = tv["CFG_STATE_ID_StateID"]
        bv = cfg.values[bank]
        # whether the implied format applies at all depends on ThreadConfig only
        possible = "DISABLE_IMPLIED_SRCA_FMT_Base" in cfg.thread_fields and not tv["DISABLE_IMPLIED_SRCA_FMT_Base"]
        implied = None
        if possible:
            src = self.cop.src
            implied = src.fmt["A"][src.math_bank["A"]]
        if tv["FP16A_FORCE_Enable"]:
            style, use32 = FP16, False
        elif bv["ALU_ACC_CTRL_INT8_math_enabled"]:
            style, use32 = INT8, True
        else:
            if bv["ALU_FORMAT_SPEC_REG_SrcA_override"]:
                fmt = bv["ALU_FORMAT_SPEC_REG_SrcA_val"]
            else:
                fmt = implied if implied is not None else bv["ALU_FORMAT_SPEC_REG0_SrcA"]
            if fmt in (12, 13):
                self._srca_fmt(bank, mnemonic, ti)  # (raises: the format code is not assigned)
            style, use32 = self._style_of(fmt), bool(bv["ALU_ACC_CTRL_Fp32_enabled"])
        out = (bank, style, use32, tv["DEST_TARGET_REG_CFG_MATH_Offset"] + bv["DEST_REGW_BASE_Base"],
               tv["FIDELITY_BASE_Phase"])
        self._views[ti] = (cfg.version, cfg.thread_version, out, implied, possible)
        return out

    @property
    def dst_log(self):
        """The recent Dst writes (see __init__), the latest last."""
        if self._log_runs:
            math_batch.apply_log_runs(self)
        return self._log

    def _log_dst_write(self, kind, row, n):
        t = self.cop.issuing
        if t is not None:
            log = self.dst_log
            log.append((t.index, t.issued, kind, row, n, t.word))
            if len(log) > 64:
                del log[:-32]

    # -- configuration -----------------------------------------------------------------
    def _c(self, bank, name):
        index, shift, width = self._f[name]
        return (int(self.cop.config.cfg[bank, index]) >> shift) & ((1 << width) - 1)

    def _tc(self, ti, name):
        index, shift, width = self._tf[name]
        return (int(self.cop.config.thread_cfg[ti, index]) >> shift) & ((1 << width) - 1)

    def _srca_fmt(self, bank, mnemonic, ti=None, which="A"):
        """The SrcA data format: ALU_FORMAT_SPEC_REG_SrcA_val when overridden, else the
        implied format of the Matrix Unit's Src``which`` bank (Blackhole, see
        ``_implied_fmt``), else ALU_FORMAT_SPEC_REG0_SrcA."""
        if self._c(bank, "ALU_FORMAT_SPEC_REG_SrcA_override"):
            fmt = self._c(bank, "ALU_FORMAT_SPEC_REG_SrcA_val")
        else:
            fmt = self._implied_fmt(ti, which)
            if fmt is None:
                fmt = self._c(bank, "ALU_FORMAT_SPEC_REG0_SrcA")
        if fmt in (12, 13):
            raise Unimplemented(f"{mnemonic}: SrcA data format code {fmt} is not assigned to any format; "
                                "nothing documents what the Matrix Unit does with it")
        return fmt

    def _implied_fmt(self, ti, which):
        """Blackhole's implied Src format: while ThreadConfig DISABLE_IMPLIED_SRCA_FMT_Base
        is clear (a field only Blackhole's configuration has), the Matrix Unit takes the
        SrcA format from the data format the unpacker last wrote into the bank it reads
        (``SrcState.fmt``; MOVB2D reads SrcB's, as ttsim does); tt-llk's Blackhole
        datacopy sets the field to make "manual SrcA format switches take effect". None
        where it does not apply or no unpacker recorded a format."""
        tf = self.cop.config.thread_fields
        if ti is None or "DISABLE_IMPLIED_SRCA_FMT_Base" not in tf:
            return None
        if self.cop.config.thread_get(ti, "DISABLE_IMPLIED_SRCA_FMT_Base"):
            return None
        src = self.cop.src
        return src.fmt[which][src.math_bank[which]]

    @staticmethod
    def _style_of(fmt):
        if fmt in _FMT_BF16_STYLE:
            return BF16
        if fmt in _FMT_FP16_STYLE:
            return FP16
        return TF32

    def _styles(self, ti, bank, mnemonic):
        """(SrcAStyle, UseDst32b) of MVMUL.md / ELWMUL.md / ELWADD.md."""
        if self._tc(ti, "FP16A_FORCE_Enable"):
            return FP16, False
        if self._c(bank, "ALU_ACC_CTRL_INT8_math_enabled"):
            return INT8, True
        return (self._style_of(self._srca_fmt(bank, mnemonic, ti)),
                bool(self._c(bank, "ALU_ACC_CTRL_Fp32_enabled")))

    def _dst_row(self, ti, bank, row):
        """DstRow + DEST_TARGET_REG_CFG_MATH_Offset + RWC.Dst + DEST_REGW_BASE_Base."""
        return (row + self._tc(ti, "DEST_TARGET_REG_CFG_MATH_Offset") + self.cop.rwcs[ti].Dst
                + self._c(bank, "DEST_REGW_BASE_Base"))

    def _phase(self, ti):
        return (self.cop.rwcs[ti].FidelityPhase + self._tc(ti, "FIDELITY_BASE_Phase")) & 3

    def _blocked_columns(self):
        """LaneConfig[Column / 2].BLOCK_DEST_MOV.Bit[Column & 1] (SFPCONFIG.md, bits 9-10)
        as a bool[16], or None when no column is blocked. LaneConfig belongs to the
        Vector Unit: read as ``cop.sfpu.lane_config`` (a sequence of >= 8 ints) if it
        exists."""
        lane_config = getattr(self.cop.sfpu, "lane_config", None)
        if lane_config is None:
            return None
        version = getattr(lane_config, "version", None)  # a LaneConfig counts its writes
        kept = self._blocked
        if version is not None and kept[0] is lane_config and kept[1] == version:
            return kept[2]
        lc = np.asarray(lane_config, dtype=np.int64)[:8]
        bits = (np.repeat(lc, 2) >> (9 + np.tile([0, 1], 8))) & 1
        out = bits.astype(bool) if bits.any() else None
        if version is not None:
            self._blocked = (lane_config, version, out)
        return out

    # -- Src ownership -------------------------------------------------------------------
    def _wait_src(self, *which):
        src = self.cop.src
        for w in which:
            if not src.owned_by(w, MATH):
                return Wait(f"Src{w} bank {src.math_bank[w]} to be given to the Matrix Unit", src.ownership())
        return None

    def _flip(self, ti, clear_dvalid):
        """The "Possibly flip source banks" block of MVMUL.md (also ELW*, GMPOOL, SETRWC)."""
        src = self.cop.src
        for bit, w in ((1, "A"), (2, "B")):
            if clear_dvalid & bit:
                if not self._tc(ti, f"CLR_DVALID_Src{w}_Disable"):
                    src.allowed[w][src.math_bank[w]] = UNPACK
                src.math_bank[w] ^= 1

    # -- Dst access ----------------------------------------------------------------------
    # Dst.md views on cop.dst.bits. An aligned group of 8 Dst32b rows maps to 8
    # consecutive DstBits rows (high halves) and the 8 after them (low halves), so the
    # usual blocks are two slices; anything else goes through cop.dst.read32/write32.
    # Every write goes through _forget16 / _forget32, which also log it (dst_log).
    def _remap(self):
        """(remap_addrs, swizzle_32b) of Config DEST_ACCESS_CFG, or None when both are
        clear or the arch has no such fields (then Dst rows map as on Wormhole)."""
        if not self._has_remap:
            return None
        cfg = self.cop.config
        if self._rm_version != cfg.version:
            self._rm_version = cfg.version
            self._rm = (cfg.get("DEST_ACCESS_CFG_remap_addrs"), cfg.get("DEST_ACCESS_CFG_swizzle_32b"))
        return self._rm if any(self._rm) else None

    def _rows16(self, row, n, write=False, alias=True):
        """DstBits rows of Dst16b rows ``row``.. (Adj16; with ``alias``, the aliased-Dst16
        mode of Dst.map16 too)."""
        rm = self._remap()
        rows = np.arange(row, row + n) & 0x3FF
        if rm is not None:
            rows = adj16(rows, rm[0])
        return self.cop.dst.map16(rows, write) if alias else rows

    def _rows32(self, row, n):
        """DstBits rows of the high halves of Dst32b rows ``row``.. (Adj32)."""
        rm = self._remap()
        if rm is None:
            return adj_rows(np.arange(row, row + n))
        return adj_rows(np.arange(row, row + n), *rm)

    def _forget16(self, row, n):
        self._log_dst_write("16", row, n)
        if self._marks:
            if 0 <= row and row + n <= 1024 and self._remap() is None:
                self.undefined[row:row + n] = False  # (the rows _rows16 names, as a slice)
            elif self._any_marked():
                self.undefined[self._rows16(row, n, alias=False)] = False

    def _forget32(self, row, n):
        self._log_dst_write("32", row, n)
        if self._marks and self._any_marked():
            adj = self._rows32(row, n)
            self.undefined[adj] = False
            self.undefined[adj + 8] = False

    def _any_marked(self):
        self._marks = bool(self.undefined.any())
        return self._marks

    def _read16(self, row, n):
        if row + n <= 1024 and not self.cop.dst.aliased16 and self._remap() is None:
            return self.cop.dst.bits[row:row + n]
        return self.cop.dst.bits[self._rows16(row, n)]

    def _write16(self, row, vals):
        vals = np.asarray(vals, dtype=np.uint16).reshape(-1, 16)
        n = vals.shape[0]
        if row + n <= 1024 and not self.cop.dst.aliased16 and self._remap() is None:
            self.cop.dst.bits[row:row + n] = vals
        else:
            self.cop.dst.bits[self._rows16(row, n, write=True)] = vals
        self._forget16(row, n)

    def _read32(self, row, n):
        """Dst32b rows (Dst storage layout) as uint32."""
        bits = self.cop.dst.bits
        if (row & 7) + n <= 8 and self._remap() is None:
            a = ((row & 0x1F8) << 1) | (row & 0x207)
            return (bits[a:a + n].astype(U32) << U32(16)) | bits[a + 8:a + 8 + n]
        adj = self._rows32(row, n)
        return (bits[adj].astype(U32) << U32(16)) | bits[adj + 8]

    def _write32(self, row, vals):
        vals = np.asarray(vals, dtype=U32).reshape(-1, 16)
        n = vals.shape[0]
        bits = self.cop.dst.bits
        if (row & 7) + n <= 8 and self._remap() is None:
            a = ((row & 0x1F8) << 1) | (row & 0x207)
            bits[a:a + n] = vals >> U32(16)
            bits[a + 8:a + 8 + n] = vals & U32(0xFFFF)
        else:
            adj = self._rows32(row, n)
            bits[adj] = (vals >> U32(16)).astype(np.uint16)
            bits[adj + 8] = (vals & U32(0xFFFF)).astype(np.uint16)
        self._forget32(row, n)

    def _read_ieee32(self, row, n):
        """Dst32b rows as IEEE-layout FP32 / sign-magnitude INT32 bits (UnshuffleFP32)."""
        if (row & 7) + n <= 8 and self._remap() is None:
            a = ((row & 0x1F8) << 1) | (row & 0x207)
            bits = self.cop.dst.bits
            return _UNSHUF_BF16[bits[a:a + n]] | bits[a + 8:a + 8 + n]
        return L.dst32_to_fp32(self._read32(row, n))

    def _write_ieee32(self, row, ieee):
        ieee = np.asarray(ieee, dtype=U32).reshape(-1, 16)
        n = ieee.shape[0]
        if (row & 7) + n <= 8 and self._remap() is None:
            a = ((row & 0x1F8) << 1) | (row & 0x207)
            bits = self.cop.dst.bits
            bits[a:a + n] = _SHUF_BF16[ieee >> U32(16)]
            bits[a + 8:a + 8 + n] = ieee & U32(0xFFFF)
            self._forget32(row, n)
        else:
            self._write32(row, L.dst32_from_fp32(ieee))

    def _undefined_rows(self, rows):
        """Which DstBits ``rows`` are still undefined (marked by ZEROACC, still zero)."""
        und = self.undefined[rows]
        if und.any():
            still = ~self.cop.dst.bits[rows].any(axis=1)
            und &= still
            self.undefined[rows[~still]] = False
        return und

    # -- shared accumulate ---------------------------------------------------------------
    def _fpu_accumulate(self, row, nrows, terms, style, use32, add_dst=True):
        """Dst rows ``row``.. (+)= the partial sums ``terms`` through the FPU's
        accumulator (fpu_datapath.accumulate), in the Dst format of ``style`` /
        ``use32``."""
        fp16 = style == FP16
        dst_exp, dst_man, dst_sign = dst_decode_tables()
        if not add_dst:
            ed = ds = _ZEROS16[:nrows]
        elif use32 and (row & 7) + nrows <= 8 and self._remap() is None:
            a = ((row & 0x1F8) << 1) | (row & 0x207)
            bits = self.cop.dst.bits
            h = bits[a:a + nrows]
            ed = dst_exp[h]
            ds = dst_man[h] + dst_sign[h] * bits[a + 8:a + 8 + nrows]
        elif use32:
            ed, ds = FD.dst_decode(self._read_ieee32(row, nrows))
        elif fp16:
            ed, ds = FD.dst_decode(FD.dst_in_fp16(L.dst16_to_fp16(self._read16(row, nrows))))
        else:
            h = self._read16(row, nrows)
            ed, ds = dst_exp[h], dst_man[h]
        bits = FD.accumulate(terms, ed, ds, use32, not fp16, self._quirk)
        if use32:
            self._write_ieee32(row, bits)
        elif fp16:
            self._write16(row, L.dst16_from_fp16(FD.dst_out_fp16(bits)))
        else:
            self._write16(row, _SHUF_BF16[bits >> U32(16)])

    def _accumulate_int(self, row, result, add_dst=True):
        """Dst32b[row..] = Saturate(Dst + result) for integer "32" (ELWMUL.md): sign-
        magnitude, saturating at +-(2**31-1)."""
        if add_dst:
            sm = self._read_ieee32(row, result.shape[0]).astype(np.int64)
            mag = sm & 0x7FFFFFFF
            result = result + np.where(sm >> 31, -mag, mag)
        v = np.clip(result, -INT32_MAX, INT32_MAX)
        self._write_ieee32(row, np.where(v < 0, (1 << 31) | -v, v).astype(U32))

    # =====================================================================================
    # Matrix multiplication
    # =====================================================================================
    def _matmul(self, t, mnemonic, dst, addr_mode, clear_dvalid, broadcast, num_rows):
        """MVMUL.md functional model (GAPOOL.md / DOTPV.md differ only in NumRows /
        BroadcastSrcBRow)."""
        cop = self.cop
        src = cop.src
        bank_a, bank_b = src.math_bank["A"], src.math_bank["B"]
        if src.allowed["A"][bank_a] != MATH or src.allowed["B"][bank_b] != MATH:
            return self._wait_src("A", "B")
        ti = t.index
        v = self._views[ti]  # _view's first test, inline
        cfg = cop.config
        if v is not None and v[0] == cfg.version and v[1] == cfg.thread_version and not v[4]:
            _, style, use32, dst_base, fid_base = v[2]
        else:
            _, style, use32, dst_base, fid_base = self._view(ti, mnemonic)
        rwc = cop.rwcs.rwc[ti]
        srca_row = rwc.SrcA & 0x38
        srcb_row = rwc.SrcB & (0x3F if broadcast else 0x38)
        nrows = 7 if broadcast else num_rows
        dst_row = (dst + dst_base + rwc.Dst) & (0x400 - nrows)  # _dst_row
        phase = (rwc.FidelityPhase + fid_base) & 3  # _phase
        native = self.native
        if native is not None and not broadcast and (style == BF16 or style == TF32) and srca_row + 16 <= 64:
            # the common case, as _native_mvmul below does it (_plain_block and _log_defer inline)
            if use32:
                r = ((dst_row & 0x1F8) << 1) | (dst_row & 0x207) if (dst_row & 7) + nrows <= 8 else None
            else:
                r = dst_row if dst_row + nrows <= 1024 and not cop.dst.aliased16 else None
            if r is not None and not (self._has_remap and self._remap() is not None):
                self.last_srca_row = srca_row
                it = cop.issuing
                if it is not None:
                    log = self.dst_log
                    log.append((it.index, it.issued, "32" if use32 else "16", dst_row, nrows, it.word))
                    if len(log) > 64:
                        del log[:-32]
                if self._marks:
                    und = self.undefined
                    und[r:r + nrows] = False
                    if use32:
                        und[r + 8:r + 8 + nrows] = False
                native.mvmul1(cop.dst.bits, src.data["A"][bank_a], src.data["B"][bank_b], srca_row, srcb_row, nrows,
                              r, phase, style == BF16, use32 and self._native32)
                if clear_dvalid:
                    self._flip(ti, clear_dvalid)
                cop.rwcs.apply_addr_mod(ti, addr_mode)
                return None
        if srca_row + 16 > 64:
            cop.undefined(f"{mnemonic} SrcA rows past 63",
                          f"SrcA rows {srca_row}..{srca_row + 15} run past row 63 (RWC SrcA = {rwc.SrcA}; "
                          f"{mnemonic}.md indexes SrcA[SrcARow + i] out of bounds); ttemu wraps the row "
                          "index to the 64-row bank")
            a = src.data["A"][bank_a][(srca_row + np.arange(16)) & 63]
        else:
            a = src.data["A"][bank_a][srca_row:srca_row + 16]
        b_rows = 1 if broadcast else min(nrows, 8)
        b = src.data["B"][bank_b][srcb_row:srcb_row + b_rows]
        self.last_srca_row = srca_row
        native = self.native
        if (native is not None and not broadcast and (style == BF16 or style == TF32) and srca_row + 16 <= 64
                and self._native_mvmul(native, src, bank_a, bank_b, srca_row, srcb_row, style == BF16, phase,
                                       dst_row, nrows, use32)):
            pass
        elif not broadcast and (style == BF16 or style == TF32) and self._fused_mvmul(
                a, b, style == BF16, phase, dst_row, nrows, use32):
            pass  # the operands' 19-bit mask is applied by the fused path
        elif style == INT8:
            ai = _src_int8(a & _MASK19, 0x41FFF if phase & 1 else 0x4E0FF)
            bi = _src_int8(b & _MASK19, 0x40FFF if phase & 2 else 0x7F0FF)
            prod = bi @ ai
            if broadcast:
                for k in range(4):
                    self._accumulate_int(dst_row + 2 * k, prod)
            else:
                self._accumulate_int(dst_row, prod)
        else:
            sums = FD.dot(a & _MASK19, b & _MASK19, style == FP16, style == BF16, use32, phase)
            if broadcast:
                for k in range(4):
                    self._fpu_accumulate(dst_row + 2 * k, 1, sums, style, use32)
            else:
                self._fpu_accumulate(dst_row, nrows, sums, style, use32)
        if clear_dvalid:
            self._flip(ti, clear_dvalid)
        cop.rwcs.apply_addr_mod(ti, addr_mode)
        return None

    def _plain_block(self, row, n, use32):
        """The first DstBits row of the ``n`` Dst rows at ``row`` (Dst32 rows with
        ``use32``: their high halves; the low halves are 8 rows further) when they are
        plain slices of DstBits (no Blackhole remapping, no aliased Dst16, within one
        aligned group of 8 Dst32 rows), else None."""
        if self._has_remap and self._remap() is not None:
            return None
        if use32:
            if (row & 7) + n > 8:
                return None
            return ((row & 0x1F8) << 1) | (row & 0x207)
        if row + n > 1024 or self.cop.dst.aliased16:
            return None
        return row

    def _native_mvmul(self, native, src, bank_a, bank_b, srca_row, srcb_row, bf16, phase, row, n, use32):
        """Dst rows ``row``.. += SrcB rows @ SrcA rows through the compiled datapath
        (fpu_native: the numbers of FD.dot + _fpu_accumulate) when the rows are plain
        slices of DstBits; False (and nothing done) when they are not."""
        r = self._plain_block(row, n, use32)
        if r is None:
            return False
        self._log_defer(row, n, r, use32)
        native.mvmul1(self.cop.dst.bits, src.data["A"][bank_a], src.data["B"][bank_b], srca_row, srcb_row, n, r,
                      phase, bf16, use32 and self._native32)
        return True

    def _fused_mvmul(self, a, b, bf16, phase, row, n, use32):
        """Dst rows ``row``.. += ``b`` @ ``a`` through fpu_fused (the numbers of
        FD.dot + _fpu_accumulate) when the rows are plain slices of DstBits, deferred: the
        job joins FusedMvmul's queue (``defer`` copies the Src rows ``a``, ``b``), applied
        (``flush``) on the next access to ``cop.dst.bits`` (regs/dst.py) or once
        ``FusedMvmul.CAPACITY`` are waiting. False (and nothing done) when the rows are
        not plain slices."""
        r = self._plain_block(row, n, use32)
        if r is None:
            return False
        dst = self.cop.dst
        self._log_defer(row, n, r, use32)
        if dst.pending is None:
            dst.pending = self._apply_deferred
        if self._fused.defer(a, b, bf16, phase, r, use32) >= self._fused.CAPACITY:
            dst.bits  # applies them
        return True

    def _apply_deferred(self):
        self._fused.flush(self.cop.dst.raw)

    @op
    def MVMUL(self, t, clear_dvalid, instr_mod19, addr_mode, dst):
        """``Dst[8,16] += SrcB[8,16] @ SrcA[16,16]`` with one fidelity phase (MVMUL.md).

        Fields: clear_dvalid = FlipSrcB<<1 | FlipSrcA, instr_mod19 = BroadcastSrcBRow,
        dst = DstRow. With BroadcastSrcBRow the SrcB row (any row) times SrcA is added
        to Dst rows DstRow+0, +2, +4, +6 with DstRow &= 0x3f9 (``0x400 - 7``).
        """
        return self._matmul(t, "MVMUL", dst, addr_mode, clear_dvalid, bool(instr_mod19 & 1), 8)

    @op
    def DOTPV(self, t, clear_dvalid, dest_accum_en, instr_mod19, addr_mode, dst):
        """MVMUL without BroadcastSrcBRow (DOTPV.md). ``dest_accum_en`` and
        ``instr_mod19`` are not used by the functional model."""
        return self._matmul(t, "DOTPV", dst, addr_mode, clear_dvalid, False, 8)

    @op
    def GAPOOL(self, t, clear_dvalid, instr_mod19, addr_mode, max_pool_index_en, dst):
        """MVMUL with NumRows = 4 (GAPOOL.md): the top 4 rows of the aligned 8-row SrcB
        block, Dst aligned to 4 rows. Unused fields are ignored as the page says."""
        return self._matmul(t, "GAPOOL", dst, addr_mode, clear_dvalid, False, 4)

    # =====================================================================================
    # Element-wise
    # =====================================================================================
    def _elw_operands(self, ti, instr_mod19):
        """SrcA's 8 rows and SrcB's (8 rows, or 1 row / column 0 broadcast) of an ELW*,
        as views of the banks (Src bits, unmasked; ``b`` [8 | 1, 16 | 1])."""
        rwc = self.cop.rwcs.rwc[ti]
        src = self.cop.src
        bcast_row = instr_mod19 & 2
        srca_row = rwc.SrcA & 0x38
        srcb_row = rwc.SrcB & (0x3F if bcast_row else 0x38)
        a = src.data["A"][src.math_bank["A"]][srca_row:srca_row + 8]
        bsrc = src.data["B"][src.math_bank["B"]]
        b = bsrc[srcb_row:srcb_row + 1] if bcast_row else bsrc[srcb_row:srcb_row + 8]
        if instr_mod19 & 1:  # BroadcastSrcBCol0
            b = b[:, :1]
        self.last_srca_row = srca_row
        return a, b

    def _elw(self, t, mnemonic, clear_dvalid, add_dst, instr_mod19, addr_mode, dst, kind):
        """ELWADD.md / ELWSUB.md / ELWMUL.md functional models."""
        cop = self.cop
        src = cop.src
        if src.allowed["A"][src.math_bank["A"]] != MATH or src.allowed["B"][src.math_bank["B"]] != MATH:
            return self._wait_src("A", "B")
        ti = t.index
        _, style, use32, dst_base, fid_base = self._view(ti, mnemonic)
        rwc = cop.rwcs.rwc[ti]
        dst_row = (dst + dst_base + rwc.Dst) & 0x3F8  # _dst_row
        phase = (rwc.FidelityPhase + fid_base) & 3  # _phase
        a, b = self._elw_operands(ti, instr_mod19)
        native = self.native
        fused = (style == BF16 or style == TF32) and (kind == "mul" or phase == 0)
        if fused and native is not None and self._native_elw(native, ti, instr_mod19, kind, style == BF16, phase,
                                                              dst_row, use32, add_dst):
            pass
        elif fused and self._fused_elw(a, b, kind, style == BF16, phase, dst_row, use32, add_dst):
            pass  # the operands' 19-bit mask and SrcB's broadcast are applied by the fused path
        else:
            a = a & _MASK19
            b = np.broadcast_to(b & _MASK19, (8, 16))
            if style == INT8:
                if kind == "mul":
                    r = (_src_int8(a, 0x41FFF if phase & 1 else 0x4E0FF)
                         * _src_int8(b, 0x40FFF if phase & 2 else 0x7F0FF))
                elif kind == "add":
                    r = _src_int8(a) + _src_int8(b)
                else:
                    r = _src_int8(a) - _src_int8(b)
                self._accumulate_int(dst_row, r, add_dst)
            else:
                fp16, bf16 = style == FP16, style == BF16
                if kind == "mul":
                    term = FD.elw_mul(a, b, fp16, bf16, use32, phase)
                else:
                    term = FD.elw_add(a, b, kind == "sub", fp16, bf16, use32, phase)
                self._fpu_accumulate(dst_row, 8, (term,), style, use32, add_dst)
        if clear_dvalid:
            self._flip(ti, clear_dvalid)
        cop.rwcs.apply_addr_mod(ti, addr_mode)
        return None

    def _native_elw(self, native, ti, instr_mod19, kind, bf16, phase, row, use32, add_dst):
        """ELWMUL / ELWADD / ELWSUB through the compiled datapath (fpu_native: the numbers
        of FD.elw_mul / FD.elw_add + _fpu_accumulate) on the operands ``_elw_operands``
        reads, when the 8 Dst rows are plain slices of DstBits; False (and nothing done)
        otherwise."""
        r = self._plain_block(row, 8, use32)
        if r is None:
            return False
        self._log_defer(row, 8, r, use32)
        cop = self.cop
        rwc = cop.rwcs.rwc[ti]
        src = cop.src
        bcast_row = (instr_mod19 >> 1) & 1
        flags = _ELW_KIND[kind] | add_dst << 2 | bcast_row << 3 | (instr_mod19 & 1) << 4
        native.elw1(cop.dst.bits, src.data["A"][src.math_bank["A"]], src.data["B"][src.math_bank["B"]],
                    rwc.SrcA & 0x38, rwc.SrcB & (0x3F if bcast_row else 0x38), r, phase, flags, bf16,
                    use32 and self._native32)
        return True

    def _fused_elw(self, a, b, kind, bf16, phase, row, use32, add_dst):
        """ELWMUL / ELWADD / ELWSUB through fpu_fused (the numbers of FD.elw_mul /
        FD.elw_add + _fpu_accumulate) when the 8 Dst rows are plain slices of DstBits,
        deferred as MVMULs are (``_fused_mvmul``: FusedMvmul.defer_elw); False (and
        nothing done) otherwise."""
        r = self._plain_block(row, 8, use32)
        if r is None:
            return False
        dst = self.cop.dst
        self._log_defer(row, 8, r, use32)
        if dst.pending is None:
            dst.pending = self._apply_deferred
        if self._fused.defer_elw(a, b, kind, bf16, phase, r, use32, add_dst) >= self._fused.CAPACITY:
            dst.bits  # applies them
        return True

    def _log_defer(self, row, n, r, use32):
        """_forget16 / _forget32 of a deferred write to the DstBits rows at ``r`` (plain
        slices): the Dst write log and the rows' ZEROACC marks."""
        t = self.cop.issuing  # _log_dst_write, inline
        if t is not None:
            log = self.dst_log
            log.append((t.index, t.issued, "32" if use32 else "16", row, n, t.word))
            if len(log) > 64:
                del log[:-32]
        if self._marks:  # on the rows' slices
            und = self.undefined
            und[r:r + n] = False
            if use32:
                und[r + 8:r + 8 + n] = False

    @op
    def ELWADD(self, t, clear_dvalid, dest_accum_en, instr_mod19, addr_mode, dst):
        """``Dst (+)= SrcA + SrcB`` on an aligned 8x16 block (ELWADD.md).

        Fields: dest_accum_en = AddDst, instr_mod19 = BroadcastSrcBRow<<1 |
        BroadcastSrcBCol0. A non-zero fidelity phase divides the float sum by 32 / 128
        as the page says; integers saturate at +-(2**31-1).
        """
        return self._elw(t, "ELWADD", clear_dvalid, bool(dest_accum_en), instr_mod19, addr_mode, dst, "add")

    @op
    def ELWSUB(self, t, clear_dvalid, dest_accum_en, instr_mod19, addr_mode, dst):
        """``Dst (+)= SrcA - SrcB`` (ELWSUB.md: ELWADD's model with subtraction)."""
        return self._elw(t, "ELWSUB", clear_dvalid, bool(dest_accum_en), instr_mod19, addr_mode, dst, "sub")

    @op
    def ELWMUL(self, t, clear_dvalid, dest_accum_en, instr_mod19, addr_mode, dst):
        """``Dst += SrcA * SrcB`` with one fidelity phase (ELWMUL.md). ``dest_accum_en``
        is always set by the documented syntax and not used by the model."""
        return self._elw(t, "ELWMUL", clear_dvalid, True, instr_mod19, addr_mode, dst, "mul")

    # =====================================================================================
    # GMPOOL
    # =====================================================================================
    @op
    def GMPOOL(self, t, clear_dvalid, instr_mod19, addr_mode, max_pool_index_en, dst):
        """Column max of a 16x16 SrcA block scaled by SrcB exponents, max'ed with a Dst
        row, with optional argmax (GMPOOL.md functional model, ``ReadDst`` /
        ``WriteDst`` / ``ReadAndScaleSrc`` / ``AsComparable``).

        Fields: max_pool_index_en = ArgMax; instr_mod19 is not used by the model.
        Undefined Dst rows (ZEROACC) read as all bits set. Ties go to the later row of
        the visitation order (``>=``), as in the model.
        """
        w = self._wait_src("A", "B")
        if w is not None:
            return w
        cop = self.cop
        ti = t.index
        bank = self._tc(ti, "CFG_STATE_ID_StateID")
        argmax = bool(max_pool_index_en)
        if self._tc(ti, "FP16A_FORCE_Enable"):
            a_style, d_style, use32 = FP16, FP16, False
        elif self._c(bank, "ALU_ACC_CTRL_INT8_math_enabled"):
            a_style, d_style, use32 = INT8, INT32, True
        else:
            fmt = self._srca_fmt(bank, "GMPOOL", ti)
            use32 = bool(self._c(bank, "ALU_ACC_CTRL_Fp32_enabled"))
            a_style = self._style_of(fmt)
            if a_style == TF32:
                d_style = INT32 if argmax else (TF32 if use32 else BF16)
            elif argmax and use32:
                d_style = a_style
            else:
                d_style = TF32 if use32 else a_style
        rwc = cop.rwcs[ti]
        srca_row = rwc.SrcA & 0x30
        srcb_row = rwc.SrcB & 0x38
        dst_row = self._dst_row(ti, bank, dst) & 0x3FC
        self.last_srca_row = srca_row

        # Dst: the first row, read with undefined rows as all bits set.
        dstb = cop.dst
        if use32:
            adj = self._rows32(dst_row, 4)
            hi = dstb.bits[adj].astype(np.int64)
            lo = dstb.bits[adj + 8].astype(np.int64)
            hi = np.where(self._undefined_rows(adj)[:, None], 0xFFFF, hi)
            lo = np.where(self._undefined_rows(adj + 8)[:, None], 0xFFFF, lo)
            dvals = (hi << 16) | lo
        else:
            rows = self._rows16(dst_row, 4, alias=False)
            d16 = dstb.bits[rows].astype(np.int64)
            d16 = np.where(self._undefined_rows(rows)[:, None], 0xFFFF, d16)
            dvals = d16 << 16
        dval = dvals[0]

        # Max / MaxIndex start from Dst (ReadDst).
        d_sign = dval >> 31
        if d_style == INT32:
            d_man = dval & 0x3FF
            d_exp = ((dval >> 10) & 0x3F) + (((dval >> 24) & 7) << 6)
        elif d_style == FP16:
            d_exp = ((dval >> 16) & 0x1F) + 15
            d_man = (dval >> 21) & 0x3FF
        else:
            d_exp = ((dval >> 16) & 0xFF) + 127
            d_man = ((dval >> 24) & 0x7F) << 3
            if d_style == TF32:
                d_man = d_man + ((dval >> 13) & 7)
        max_index0 = dval & 0xFF
        index_phase = (dval + 0x100) & 0xF00

        # SrcA rows in visitation order, scaled (ReadAndScaleSrc).
        a = cop.src.math_view("A")[srca_row + _GMPOOL_ORDER].astype(np.int64) & 0x7FFFF  # [visit, col]
        b = (cop.src.math_view("B")[srcb_row][_GMPOOL_ORDER].astype(np.int64) & 0x7FFFF)[:, None]
        a_exp = a & 0xFF
        b_exp = b & 0xFF
        man = (a >> 8) & 0x3FF
        sign = a >> 18
        if a_style == INT8:
            exp = np.zeros_like(a)
        elif a_style == FP16:
            exp = (a_exp & 0x1F) + (b_exp & 0x1F)
        else:
            exp = a_exp + b_exp
            if a_style == BF16:
                man = man & 0x3F8
        neg_inf = np.broadcast_to(b_exp == 0, a.shape)
        zero = (a_exp == 0) & ~neg_inf
        sign = np.where(neg_inf, 1, np.where(zero, 0, sign))
        exp = np.where(neg_inf, 0x1FF, np.where(zero, 0, exp))
        man = np.where(neg_inf, 0x3FF, np.where(zero, 0, man))

        comp = np.where(sign == 1, -1, 1) * ((exp << 10) + man)  # AsComparable
        d_comp = np.where(d_sign == 1, -1, 1) * ((d_exp << 10) + d_man)
        running = np.maximum.accumulate(np.vstack([d_comp[None, :], comp]), axis=0)[:-1]
        update = comp >= running  # [visit, col]
        visits = np.arange(16)[:, None]
        last_any = np.where(update, visits, -1).max(axis=0)
        last_idx = np.where(update & (visits < 8), visits, -1).max(axis=0)
        cols = np.arange(16)
        pick = np.maximum(last_any, 0)
        has = last_any >= 0
        m_sign = np.where(has, sign[pick, cols], d_sign)
        m_exp = np.where(has, exp[pick, cols], d_exp) & 0x1FF
        m_man = np.where(has, man[pick, cols], d_man) & 0x3FF
        visited_i = _GMPOOL_ORDER[np.maximum(last_idx, 0)]
        max_index = np.where(last_idx >= 0,
                             ((index_phase >> 4) + _NONLINEAR_I[np.minimum(visited_i, 7)]) & 0xFF,
                             max_index0)

        # WriteDst
        if d_style == INT32:
            out = (m_sign << 31) | ((m_exp & 7) << 10) | m_man
        elif d_style == FP16:
            out = np.where((m_exp & 0x3F) == 0, 0,
                           (m_sign << 31) | (m_man << 21) | (((m_exp - 15) & 0x1F) << 16))
        else:
            out = (m_sign << 31) | ((m_man & 0x3F8) << 21) | (((m_exp - 127) & 0xFF) << 16)
            if d_style == TF32:
                out = out + ((m_man & 7) << 13)
            out = np.where(m_exp == 0, 0, out)
        if argmax:
            index_result = index_phase | max_index
            out = index_result if d_style == INT32 else (out | index_result)
        out = out & 0xFFFFFFFF

        if use32:
            rest = (((dvals[1:] + 0x100) & 0xF00) if argmax else np.zeros_like(dvals[1:]))
            self._write32(dst_row, np.vstack([out[None, :], rest]).astype(U32))
        else:
            block = np.zeros((4, 16), dtype=np.uint16)
            block[0] = (out >> 16).astype(np.uint16)
            self._write16(dst_row, block)
        self._flip(ti, clear_dvalid)
        cop.rwcs.apply_addr_mod(ti, addr_mode)
        return None

    # =====================================================================================
    # Moves into Dst
    # =====================================================================================
    def _mov_to_dst(self, t, mnemonic, src_vals, dst_row, nrows, dest_32b_lo, bank, cols):
        """Common tail of MOVA2D.md / MOVB2D.md: flush, RemoveLowMantissa /
        RemoveHighExponent, the TF32 and UseDst32bLo paths, LaneConfig blocking."""
        ti = t.index
        fmt = self._srca_fmt(bank, mnemonic, ti, "B" if mnemonic == "MOVB2D" else "A")
        use8 = not self._tc(ti, "FP16A_FORCE_Enable") and fmt in _FMT_8B_EXP
        x = src_vals.astype(U32)
        if not self._c(bank, "ALU_ACC_CTRL_Zero_Flag_disabled_src"):
            x = np.where((x & 0xFF) == 0, U32(0), x)
        v16 = L.dst16_bf16_from_src(x) if use8 else L.dst16_fp16_from_src(x)
        if fmt == _FMT_TF32 or dest_32b_lo:
            if fmt == _FMT_TF32:
                low = ((x >> 8) & 7) << 13
                if dest_32b_lo:
                    low = low | v16
                new = (v16 << 16) | low
            else:
                new = (self._read32(dst_row, nrows) & U32(0xFFFF0000)) | v16
            if cols is not None:
                new = np.where(cols, self._read32(dst_row, nrows), new)
            self._write32(dst_row, new)
        else:
            if cols is not None:
                v16 = np.where(cols, self._read16(dst_row, nrows), v16)
            self._write16(dst_row, v16)

    def _move_view(self, ti):
        """What thread ``ti``'s MOVA2D needs when it writes a 16-bit Dst row by row with
        no column blocked: ``(Dst row base, FP16 (else BF16) RemoveHighExponent /
        RemoveLowMantissa, flush exponent-0 datums)``, or None when it takes the general
        path (SrcA format TF32, blocked columns, a format ``_mov_to_dst`` refuses). Kept
        until a Config or ThreadConfig write, a LaneConfig change or (Blackhole's implied
        format) another SrcA format recorded by the unpacker."""
        cop = self.cop
        cfg = cop.config
        src = cop.src
        lane_config = getattr(cop.sfpu, "lane_config", None)
        lane_version = getattr(lane_config, "version", None)
        fmt_a = src.fmt["A"][src.math_bank["A"]]
        kept = self._move_views[ti]
        if (kept is not None and kept[0] == cfg.version and kept[1] == cfg.thread_version and kept[2] == fmt_a
                and kept[3] is lane_config and kept[4] == lane_version and lane_version is not None):
            return kept[5]
        bank = self._tc(ti, "CFG_STATE_ID_StateID")
        out = None
        if self._blocked_columns() is None:
            if self._c(bank, "ALU_FORMAT_SPEC_REG_SrcA_override"):
                fmt = self._c(bank, "ALU_FORMAT_SPEC_REG_SrcA_val")
            else:
                fmt = self._implied_fmt(ti, "A")
                if fmt is None:
                    fmt = self._c(bank, "ALU_FORMAT_SPEC_REG0_SrcA")
            if fmt not in (12, 13, _FMT_TF32):
                fp16 = bool(self._tc(ti, "FP16A_FORCE_Enable")) or fmt not in _FMT_8B_EXP
                out = (self._tc(ti, "DEST_TARGET_REG_CFG_MATH_Offset") + self._c(bank, "DEST_REGW_BASE_Base"),
                       fp16, not self._c(bank, "ALU_ACC_CTRL_Zero_Flag_disabled_src"))
        self._move_views[ti] = (cfg.version, cfg.thread_version, fmt_a, lane_config, lane_version, out)
        return out

    def _mova2d(self, t, mnemonic, dest_32b_lo, src, addr_mode, instr_mod, dst):
        cop = self.cop
        ti = t.index
        rwc = cop.rwcs[ti]
        mv = self._move_view(ti) if self.fast_moves and not dest_32b_lo else None
        if mv is not None and not cop.dst.aliased16 and self._remap() is None:
            # _mov_to_dst's 16-bit path, rows whole: RemoveLowMantissa keeps Src bits 18..11
            # and 7..0 (RemoveHighExponent 18..8 and 4..0), the flush tests bits 7..0
            base, fp16, flush = mv
            if instr_mod & 2:  # Move8Rows
                n, dst_row, src_row = 8, (dst + rwc.Dst + base) & 0x3F8, (src + rwc.SrcA) & 0x38
            else:
                n, dst_row, src_row = 1, (dst + rwc.Dst + base) & 0x3FF, (src + rwc.SrcA) & 0x3F
            movers = self.movers
            if movers is not None:
                movers.move16(cop.src.math_view("A"), src_row, n, cop.dst.bits, dst_row, fp16, flush)
            else:
                x = cop.src.math_view("A")[src_row:src_row + n]
                if self.move16_uses < MOVE16_TABLE_AFTER:
                    self.move16_uses += 1
                    cop.dst.bits[dst_row:dst_row + n] = move16_rows(x, fp16, flush)
                else:  # (mode "wrap": Src bits above 18 ignored, as move16_rows does)
                    cop.dst.bits[dst_row:dst_row + n] = move16_table(fp16, flush).take(x, mode="wrap")
            self._forget16(dst_row, n)
            if mnemonic == "MOVA2D":
                self.last_srca_row = src_row
            cop.rwcs.apply_addr_mod(ti, addr_mode)
            return None
        bank = self._tc(ti, "CFG_STATE_ID_StateID")
        dst_row = self._dst_row(ti, bank, dst)
        src_row = src + rwc.SrcA
        if instr_mod & 2:  # Move8Rows
            n, dst_row, src_row = 8, dst_row & 0x3F8, src_row & 0x38
        else:
            n, dst_row, src_row = 1, dst_row & 0x3FF, src_row & 0x3F
        vals = cop.src.math_view("A")[src_row:src_row + n]
        self._mov_to_dst(t, mnemonic, vals, dst_row, n, dest_32b_lo, bank, self._blocked_columns())
        if mnemonic == "MOVA2D":
            self.last_srca_row = src_row
        cop.rwcs.apply_addr_mod(ti, addr_mode)
        return None

    @op
    def MOVA2D(self, t, dest_32b_lo, src, addr_mode, instr_mod, dst):
        """Move one row or an aligned 8-row block of SrcA to Dst (MOVA2D.md).

        Fields: dest_32b_lo = UseDst32bLo, src = SrcRow, instr_mod = Move8Rows<<1.
        Waits until the Matrix Unit owns its SrcA bank.
        """
        w = self._wait_src("A")
        if w is not None:
            return w
        return self._mova2d(t, "MOVA2D", dest_32b_lo, src, addr_mode, instr_mod, dst)

    @op
    def MOVDBGA2D(self, t, dest_32b_lo, src, addr_mode, instr_mod, dst):
        """MOVA2D without the wait for SrcA ownership (MOVDBGA2D.md). It is not in
        SHIFTXA.md's list of instructions that set the HardwareBug() row."""
        return self._mova2d(t, "MOVDBGA2D", dest_32b_lo, src, addr_mode, instr_mod, dst)

    @op
    def MOVB2D(self, t, dest_32b_lo, src, addr_mode, instr_mod, dst):
        """Move SrcB rows to Dst: 1 row, an aligned 4-row block, or 1 row broadcast to
        an aligned 8-row block, optionally column 0 to all columns (MOVB2D.md; the data
        format is SrcA's, as the page insists).

        Fields: instr_mod = Move4Rows<<2 | Broadcast1RowTo8<<1 | BroadcastCol0.
        """
        w = self._wait_src("B")
        if w is not None:
            return w
        cop = self.cop
        ti = t.index
        bank = self._tc(ti, "CFG_STATE_ID_StateID")
        rwc = cop.rwcs[ti]
        dst_row = self._dst_row(ti, bank, dst)
        src_row = src + rwc.SrcB
        bsrc = cop.src.math_view("B")
        if instr_mod & 2:  # Broadcast1RowTo8
            n, dst_row, src_row = 8, dst_row & 0x3F8, src_row & 0x3F
            vals = np.broadcast_to(bsrc[src_row], (8, 16))
        elif instr_mod & 4:  # Move4Rows
            n, dst_row, src_row = 4, dst_row & 0x3FC, src_row & 0x3C
            vals = bsrc[src_row:src_row + 4]
        else:
            n, dst_row, src_row = 1, dst_row & 0x3FF, src_row & 0x3F
            vals = bsrc[src_row:src_row + 1]
        if instr_mod & 1:  # BroadcastCol0
            vals = np.broadcast_to(vals[:, :1], (n, 16))
        self._mov_to_dst(t, "MOVB2D", vals, dst_row, n, dest_32b_lo, bank, self._blocked_columns())
        # SHIFTXA.md: MOVB2D sets HardwareBug(); it addresses no SrcA row, so we take
        # the bare RWC SrcA counter (our choice; the page does not say).
        self.last_srca_row = rwc.SrcA
        cop.rwcs.apply_addr_mod(ti, addr_mode)
        return None

    # =====================================================================================
    # Moves from Dst to Src
    # =====================================================================================
    def _mov_d2src(self, t, mnemonic, which, dest_32b_lo, src, addr_mode, instr_mod, dst):
        """MOVD2A.md / MOVD2B.md (identical but for the target). Neither waits for Src
        ownership. Undefined cases: UseDst32bLo, or TF32, with Dst in 16-bit mode."""
        cop = self.cop
        ti = t.index
        bank = self._tc(ti, "CFG_STATE_ID_StateID")
        if self._tc(ti, "FP16A_FORCE_Enable"):
            use32, style = False, FP16
        else:
            fmt = self._srca_fmt(bank, mnemonic, ti, which)
            use32 = bool(self._c(bank, "ALU_ACC_CTRL_Fp32_enabled")
                         or self._c(bank, "ALU_ACC_CTRL_INT8_math_enabled"))
            style = self._style_of(fmt)
        if not use32 and dest_32b_lo:
            cop.undefined(f"{mnemonic} UseDst32bLo Dst16",
                          f"UseDst32bLo with Dst in 16-bit mode ({mnemonic}.md: undefined); ttemu ignores "
                          "UseDst32bLo and moves the 16-bit value")
            dest_32b_lo = 0
        if not use32 and style == TF32:
            cop.undefined(f"{mnemonic} TF32 Dst16",
                          f"SrcA format FP32/TF32 with Dst in 16-bit mode ({mnemonic}.md: undefined); ttemu "
                          "moves the 16-bit value as BF16 (the same 8-bit exponent)")
            style = BF16
        rwc = cop.rwcs[ti]
        dst_row = self._dst_row(ti, bank, dst)
        src_row = src + (rwc.SrcA if which == "A" else rwc.SrcB)
        if instr_mod & 2:  # Move4Rows
            n, dst_row, src_row = 4, dst_row & 0x3FC, src_row & 0x3C
        else:
            n, dst_row, src_row = 1, dst_row & 0x3FF, src_row & 0x3F
        if use32:
            d = self._read32(dst_row, n)
            if dest_32b_lo:
                d = (d << U32(16)) | (d & U32(0xFFFF))
            if style == BF16:
                v = L.src_from_dst16_bf16(d >> 16)
            elif style == FP16:
                v = L.src_from_dst16_fp16(d >> 16)
            elif not dest_32b_lo:
                v = L.src_from_dst32_tf32(d)
            else:
                v = d & U32(0x1FFF)
        else:
            d = self._read16(dst_row, n)
            v = L.src_from_dst16_bf16(d) if style == BF16 else L.src_from_dst16_fp16(d)
        target = cop.src.math_view(which)
        cols = self._blocked_columns()
        if cols is not None:
            v = np.where(cols, target[src_row:src_row + n], v)
        target[src_row:src_row + n] = v
        self.last_srca_row = src_row if which == "A" else rwc.SrcA
        cop.rwcs.apply_addr_mod(ti, addr_mode)
        return None

    @op
    def MOVD2A(self, t, dest_32b_lo, src, addr_mode, instr_mod, dst):
        """Move one row or an aligned 4-row block of Dst to SrcA (MOVD2A.md). Does not
        wait for SrcA ownership.

        Docs disagreement: ``ShuffleTF32`` masks with 0x3fc000, which does not fit in
        19 bits and contradicts the layouts; we follow the layouts
        (formats.layout.src_from_dst32_tf32: plain TF32 truncation of the FP32 value).
        """
        return self._mov_d2src(t, "MOVD2A", "A", dest_32b_lo, src, addr_mode, instr_mod, dst)

    @op
    def MOVD2B(self, t, dest_32b_lo, src, addr_mode, instr_mod, dst):
        """Move one row or an aligned 4-row block of Dst to SrcB (MOVD2B.md; the data
        format is SrcA's). Does not wait for SrcB ownership. For SHIFTXA's
        HardwareBug() row it records the bare RWC SrcA counter (our choice)."""
        return self._mov_d2src(t, "MOVD2B", "B", dest_32b_lo, src, addr_mode, instr_mod, dst)

    @op
    def MOVB2A(self, t, srca, addr_mode, instr_mod, srcb):
        """Move one row or an aligned 4-row block of SrcB to SrcA.

        Not in /work/isadoc: follows MOVB2A.md of the upstream tt-isa-documentation
        (MatrixUnit.md links it). Encoding (Bits32_MOVB2A): SrcBRow bits 0-5 (table
        field ``srcb``), Move4Rows bit 13 (``instr_mod`` bit 1), AddrMod bits 15-16,
        SrcARow bits 17-22 (``srca``). Waits for SrcB ownership only; flushes values
        with a zero low byte unless ALU_ACC_CTRL_Zero_Flag_disabled_src.
        """
        w = self._wait_src("B")
        if w is not None:
            return w
        cop = self.cop
        ti = t.index
        bank = self._tc(ti, "CFG_STATE_ID_StateID")
        rwc = cop.rwcs[ti]
        a_row = (srca & 0x3F) + rwc.SrcA
        b_row = (srcb & 0x3F) + rwc.SrcB
        if instr_mod & 2:
            n, a_row, b_row = 4, a_row & 0x3C, b_row & 0x3C
        else:
            n, a_row, b_row = 1, a_row & 0x3F, b_row & 0x3F
        v = cop.src.math_view("B")[b_row:b_row + n]
        if not self._c(bank, "ALU_ACC_CTRL_Zero_Flag_disabled_src"):
            v = np.where((v & 0xFF) == 0, U32(0), v)
        target = cop.src.math_view("A")
        cols = self._blocked_columns()
        if cols is not None:
            v = np.where(cols, target[a_row:a_row + n], v)
        target[a_row:a_row + n] = v
        self.last_srca_row = a_row
        cop.rwcs.apply_addr_mod(ti, addr_mode)
        return None

    # =====================================================================================
    # Clearing
    # =====================================================================================
    @op
    def ZEROACC(self, t, clear_mode, AddrMode, dst, Revert=None):
        """Mark 1 / 16 / 512 / 1024 rows of Dst undefined (ZEROACC.md).

        Fields: clear_mode = UseDst32b<<2 | Mode, dst = Imm10. Undefined rows are
        written with zeros and remembered for GMPOOL (module docstring). The Revert bit
        (bit 18, Bits32_ZEROACC) is not a Wormhole table field: it is read from ``t.word``
        when the frontend provides it (``Revert`` None); Blackhole's ``clear_zero_flags``
        (bit 17) comes in as ``Revert`` (ttsim treats it as the page's Revert: the rows
        keep their contents and lose the undefined mark). Revert is undefined behaviour
        outside the modes of ``ArchSpec.zeroacc_revert_modes`` (the page: ONE_ROW;
        Blackhole adds 16_ROWS, which tt-llk's Blackhole datacopy issues after unpacking
        to Dst, budabackend#2730).
        AddrMod applies in modes 0 and 1 only (mode 1 with Imm10 = 0xff only applies
        AddrMod).

        ZEROACC_MODE_16_ROWS relative to the Dst half (Blackhole: the configuration has
        ``DEST_ACCESS_CFG_zeroacc_absolute_tile_mode``; tt-llk's cfg comment "the ZEROACC
        CLR_16 mode ... will be relative to the half of dest as selected by" the thread's
        Dst offset unless that bit is set): while the bit is clear, Imm10 moves to the
        upper half (+32 blocks of 16 rows; +16 blocks of 16 Dst32b rows) when
        DEST_TARGET_REG_CFG_MATH_Offset + RWC.Dst has bit 9 set (bits 9:8 in 32-bit
        mode), as ttsim does. tt-llk measured silicon select the half from offset +
        Imm10 instead (llk_math_eltwise_binary.h, tt-metal#53693); where the two differ
        ttemu follows ttsim and warns.
        """
        cop = self.cop
        ti = t.index
        mode = clear_mode & 3
        use32 = bool(clear_mode & 4)
        if Revert is None:
            Revert = ((getattr(t, "word", None) or 0) >> 18) & 1
        revert = bool(Revert)
        if revert and mode not in cop.arch.zeroacc_revert_modes:
            cop.undefined("ZEROACC Revert",
                          f"Revert / clear_zero_flags set in ZEROACC mode {mode} (ZEROACC.md: undefined; \"all "
                          "assignments of Undefined are instead un-assigning Undefined\"); ttemu clears the "
                          "rows' undefined mark and leaves their contents")
        rows = None
        if mode == 0:  # ZEROACC_MODE_ONE_ROW
            bank = self._tc(ti, "CFG_STATE_ID_StateID")
            row = self._dst_row(ti, bank, dst) & 0x3FF
            if self._c(bank, "ALU_ACC_CTRL_Fp32_enabled") or self._c(bank, "ALU_ACC_CTRL_INT8_math_enabled"):
                adj = int(self._rows32(row, 1)[0])
                rows = np.array([adj, adj + 8])
            else:
                rows = self._rows16(row, 1, alias=False)
        elif mode == 1:  # ZEROACC_MODE_16_ROWS
            imm = (dst & 0xFF) + self._zeroacc_half(ti, dst & 0xFF, use32)
            if use32 and imm < 32:
                adj = self._rows32(imm * 16, 16)
                rows = np.concatenate([adj, adj + 8])
            elif not use32 and imm < 64:
                rows = self._rows16(imm * 16, 16, alias=False)
        elif mode == 2:  # ZEROACC_MODE_HALF_OF_DST
            rows = _HALF_ROWS[dst & 1]
        else:  # ZEROACC_MODE_ALL_OF_DST
            rows = _ALL_ROWS
        if rows is not None:
            # (the rows of modes 2 and 3 as slices)
            at = slice(int(rows[0]), int(rows[0]) + len(rows)) if mode >= 2 else rows
            if revert:
                self.undefined[at] = False
            else:
                cop.dst.bits[at] = 0
                self.undefined[at] = True
                self._marks = True
                self._log_dst_write("rows", rows, len(rows))
        if mode in (0, 1):
            cop.rwcs.apply_addr_mod(ti, AddrMode)
        return None

    def _zeroacc_half(self, ti, imm, use32):
        """Blocks ZEROACC_MODE_16_ROWS adds to Imm10 for the Dst half the thread's offset
        selects (0 where the configuration has no relative tile mode or it is off)."""
        cfg = self.cop.config
        if "DEST_ACCESS_CFG_zeroacc_absolute_tile_mode" not in cfg.fields or imm == 0xFF:
            return 0
        bank = self._tc(ti, "CFG_STATE_ID_StateID")
        if cfg.get("DEST_ACCESS_CFG_zeroacc_absolute_tile_mode", bank):
            return 0
        offset = self._tc(ti, "DEST_TARGET_REG_CFG_MATH_Offset") + self.cop.rwcs[ti].Dst
        if use32:
            return 16 if offset & 0x300 else 0
        if not offset & 0x200 and offset + imm >= 0x200:
            self.cop.undefined("ZEROACC 16_ROWS half",
                               f"ZEROACC 16_ROWS block {imm} with Dst offset {offset}: offset + block reaches "
                               "512, where Blackhole silicon clears the block in the other Dst half (tt-llk "
                               "llk_math_eltwise_binary.h, tt-metal#53693); ttemu clears it in the half the "
                               "offset selects, as ttsim does")
        return 32 if offset & 0x200 else 0

    @op
    def ZEROSRC(self, t, zero_val, write_mode, bank_mask, src_mask):
        """Set all or one bank of SrcA and/or SrcB to zero, or SrcA to all ones
        ("negative infinity") (ZEROSRC.md). Does not wait for ownership.

        Fields: zero_val = NegativeInfSrcA, write_mode = SingleBankMatrixUnit,
        bank_mask = BothBanks, src_mask = ClearSrcB<<1 | ClearSrcA.
        """
        src = self.cop.src
        for bit, w, fill in ((1, "A", 0x7FFFF if zero_val else 0), (2, "B", 0)):
            if not src_mask & bit:
                continue
            if bank_mask:
                banks = (0, 1)
            elif write_mode:
                banks = (src.math_bank[w],)
            else:
                banks = (src.unpack_bank[w],)
            for bank in banks:
                src.data[w][bank][:] = fill
        return None

    # =====================================================================================
    # Src shuffles
    # =====================================================================================
    @op
    def TRNSPSRCB(self, t):
        """Transpose the 16x16 matrix in rows 16..31 of the Matrix Unit's SrcB bank
        (TRNSPSRCB.md). Waits for SrcB ownership."""
        w = self._wait_src("B")
        if w is not None:
            return w
        b = self.cop.src.math_view("B")
        b[16:32] = b[16:32].T.copy()
        return None

    @op
    def SHIFTXA(self, t, log2_amount2, shift_mode):
        """Shift 16 rows of SrcA one lane right (Direction 2) or left (3) into rows
        0..15 (SHIFTXA.md). The input block is HardwareBug() & 0x30: the starting SrcA
        row of the last MVMUL / DOTPV / GAPOOL / ELW* / GMPOOL / MOVA2D / MOVB2D /
        MOVD2A / MOVD2B / MOVB2A (0 after reset). Other Direction values match no case
        of the model's switch and change nothing. Waits for SrcA ownership."""
        w = self._wait_src("A")
        if w is not None:
            return w
        a = self.cop.src.math_view("A")
        in_row = self.last_srca_row & 0x30
        block = a[in_row:in_row + 16].copy()
        if shift_mode == 2:  # DIRECTION_RIGHT
            a[0:16, 1:] = block[:, :15]
            a[0:16, 0] = 0
        elif shift_mode == 3:  # DIRECTION_LEFT
            a[0:16, :15] = block[:, 1:]
            a[0:16, 15] = 0
        return None

    @op
    def SHIFTXB(self, t, addr_mode, rot_shift, shift_row):
        """Rotate (or shift in zero, rot_shift = ShiftInZero) one SrcB row left by one
        lane (SHIFTXB.md). Docs disagreement: the page's loop stops at column 13
        (``Column < 14``), leaving column 14 unchanged, but its own lane diagram shows a
        full rotation and the upstream page fixed the loop to ``Column < 15``; we rotate
        all lanes. Waits for SrcB ownership."""
        w = self._wait_src("B")
        if w is not None:
            return w
        cop = self.cop
        ti = t.index
        row = (shift_row + cop.rwcs[ti].SrcB) & 0x3F
        b = cop.src.math_view("B")
        col0 = b[row, 0]
        b[row, :15] = b[row, 1:].copy()
        b[row, 15] = 0 if rot_shift else col0
        cop.rwcs.apply_addr_mod(ti, addr_mode)
        return None

    # =====================================================================================
    # Oddballs
    # =====================================================================================
    @op
    def CLREXPHIST(self, t):
        """Reset the exponent histograms of the four packers (CLREXPHIST.md). The
        histograms belong to the packers: calls ``cop.pack.clear_exponent_histograms()``
        when the packers provide it, and does nothing otherwise."""
        fn = getattr(self.cop.pack, "clear_exponent_histograms", None)
        if fn is not None:
            fn()
        return None

    @op
    def GATESRCRST(self, t, reset_srcb_gate_control, reset_srca_gate_control):
        """Invalidate the SrcB operand cache (GATESRCRST.md). No such cache is modelled
        (reads always see current SrcB), so this does nothing."""
        return None

    # Legacy 3x3 convolution / pooling instructions
    # =====================================================================================
    def _legacy(self, t, mnemonic, addr_mode, clear_dvalid):
        """MatrixUnit.md "Legacy instructions": on Wormhole these only compute
        ``Dst += 0`` (no visible change to Dst) and, per RWCs.md, apply their AddrMod
        bits. The documentation does not say whether they honour ClearDvalid or what
        AddrMod bits above the two low ones mean, so those cases stop the run."""
        if clear_dvalid:
            raise Unimplemented(f"{mnemonic}: ClearDvalid={clear_dvalid} on a legacy instruction "
                                "(the documentation only says it computes Dst += 0)")
        bits = self.cop.arch.addr_mod_bits
        if addr_mode >> bits:
            raise Unimplemented(f"{mnemonic}: AddrMod field 0x{addr_mode:x} has bits beyond the {bits} "
                                "AddrMod bits the documentation describes")
        self.cop.rwcs.apply_addr_mod(t.index, addr_mode)

    @op
    def CONV3S1(self, t, dst, addr_mode, rotate_weights, clear_dvalid):
        """MatrixUnit.md "Legacy instructions": Dst += 0, then ApplyAddrMod."""
        self._legacy(t, "CONV3S1", addr_mode, clear_dvalid)

    @op
    def CONV3S2(self, t, dst, addr_mode, rotate_weights, clear_dvalid):
        """MatrixUnit.md "Legacy instructions": Dst += 0, then ApplyAddrMod."""
        self._legacy(t, "CONV3S2", addr_mode, clear_dvalid)

    @op
    def MFCONV3S1(self, t, dst, addr_mode, rotate_weights, clear_dvalid):
        """MatrixUnit.md "Legacy instructions": Dst += 0, then ApplyAddrMod."""
        self._legacy(t, "MFCONV3S1", addr_mode, clear_dvalid)

    @op
    def APOOL3S1(self, t, dst, index_en, addr_mode, clear_dvalid):
        """MatrixUnit.md "Legacy instructions": Dst += 0, then ApplyAddrMod."""
        self._legacy(t, "APOOL3S1", addr_mode, clear_dvalid)

    @op
    def APOOL3S2(self, t, dst, index_en, addr_mode, clear_dvalid):
        """MatrixUnit.md "Legacy instructions": Dst += 0, then ApplyAddrMod."""
        self._legacy(t, "APOOL3S2", addr_mode, clear_dvalid)

    @op
    def MPOOL3S1(self, t, dst, index_en, addr_mode, clear_dvalid):
        """MatrixUnit.md "Legacy instructions": only "something similar to what GMPOOL
        would do if SrcA was entirely zero" -- not defined precisely enough to model."""
        raise Unimplemented("MPOOL3S1: the documentation only says it does something similar to GMPOOL "
                                 "with SrcA all zero; its exact effect on Dst is not defined")

    @op
    def MPOOL3S2(self, t, dst, index_en, addr_mode, clear_dvalid):
        """See MPOOL3S1."""
        raise Unimplemented("MPOOL3S2: the documentation only says it does something similar to GMPOOL "
                                 "with SrcA all zero; its exact effect on Dst is not defined")

    @op
    def CLEARDVALID(self, t, cleardvalid, reset):
        """Give the Matrix Unit's SrcA / SrcB banks to the unpackers, optionally
        flipping, or reset the whole Src handshake (CLEARDVALID.md).

        Fields: cleardvalid = FlipSrcB<<1 | FlipSrcA, reset = KeepReadingSameSrc<<1 |
        Reset.
        """
        src = self.cop.src
        if reset & 1:
            for w in ("A", "B"):
                src.math_bank[w] = 0
                src.unpack_bank[w] = 0
                src.allowed[w][0] = UNPACK
                src.allowed[w][1] = UNPACK
            return None
        keep = bool(reset & 2)
        for bit, w in ((1, "A"), (2, "B")):
            if cleardvalid & bit:
                src.allowed[w][src.math_bank[w]] = UNPACK
                if not keep:
                    src.math_bank[w] ^= 1
        return None

    @op
    def SETRWC(self, t, clear_ab_vld, rwc_cr, rwc_d, rwc_b, rwc_a, BitMask):
        """Set RWC counters, optionally relative to the Cr counters, reset the fidelity
        phase, flip Src banks (SETRWC.md).

        Fields: clear_ab_vld = FlipSrcB<<1 | FlipSrcA; rwc_cr = DstCtoCr<<3 | DstCr<<2 |
        SrcBCr<<1 | SrcACr; rwc_d / rwc_b / rwc_a = DstVal / SrcBVal / SrcAVal (4 bits);
        BitMask = Fidelity<<3 | Dst<<2 | SrcB<<1 | SrcA (Blackhole: SFPU Sp << 4).
        """
        ti = t.index
        r = self.cop.rwcs[ti]
        if BitMask & 1:
            v = (rwc_a + (r.SrcA_Cr if rwc_cr & 1 else 0)) & 0x3F
            r.SrcA = r.SrcA_Cr = v
        if BitMask & 2:
            v = (rwc_b + (r.SrcB_Cr if rwc_cr & 2 else 0)) & 0x3F
            r.SrcB = r.SrcB_Cr = v
        if BitMask & 4 or rwc_cr & 8:
            if rwc_cr & 8:
                v = rwc_d + r.Dst
            elif rwc_cr & 4:
                v = rwc_d + r.Dst_Cr
            else:
                v = rwc_d
            r.Dst = r.Dst_Cr = v & 0x3FF
        if BitMask & 8:
            r.FidelityPhase = 0
        if BitMask & 16:  # Blackhole's six-bit BitMask: "SFPU SP", set from rwc_d:rwc_b:rwc_a (assembly.yaml)
            r.Sp = rwc_a | rwc_b << 4 | rwc_d << 8
        self._flip(ti, clear_ab_vld)
        return None

    @op
    def INCRWC(self, t, rwc_cr, rwc_d, rwc_b, rwc_a):
        """Increment RWC counters, optionally through the Cr counters (INCRWC.md).

        Fields: rwc_cr = DstCr<<2 | SrcBCr<<1 | SrcACr; rwc_d / rwc_b / rwc_a = DstInc /
        SrcBInc / SrcAInc.
        """
        r = self.cop.rwcs[t.index]
        if rwc_cr & 1:
            r.SrcA_Cr = (r.SrcA_Cr + rwc_a) & 0x3F
            r.SrcA = r.SrcA_Cr
        else:
            r.SrcA = (r.SrcA + rwc_a) & 0x3F
        if rwc_cr & 2:
            r.SrcB_Cr = (r.SrcB_Cr + rwc_b) & 0x3F
            r.SrcB = r.SrcB_Cr
        else:
            r.SrcB = (r.SrcB + rwc_b) & 0x3F
        if rwc_cr & 4:
            r.Dst_Cr = (r.Dst_Cr + rwc_d) & 0x3FF
            r.Dst = r.Dst_Cr
        else:
            r.Dst = (r.Dst + rwc_d) & 0x3FF
        return None
