"""Vector Unit state: LRegs, LaneConfig, lane flags and the flag stack, LoadMacroConfig,
the PRNG; shared helpers (lane enables, guarded writes).

Pages: LReg.md (the 17 LRegs and constants), VectorUnit.md (lane predication masks,
``IsLaneEnabled``, PRNG), SFPCONFIG.md (``LaneConfig`` bits, ``LoadMacroConfig``),
SFPLOADMACRO.md (``LoadMacroConfig`` layout), ../SoftReset.md (values after reset).
"""

from __future__ import annotations

import numpy as np

from .fp import _count_nonzero, prng_step

U32 = np.uint32
LANES = np.arange(32)
COL = LANES & 7  # column in the 4x8 lane grid (LReg.md "Lane layout")
ROW = LANES >> 3
ALL_LANES = np.ones(32, dtype=bool)  # gate()'s all-lanes answer (read-only)
ALL_LANES.setflags(write=False)

#: LReg[8], LReg[9], LReg[10], LReg[15] (read-only, LReg.md).
CONST_0P8373 = 0x3F56594B
CONST_ONE = 0x3F800000
#: LReg[11..14] after soft reset and SFPCONFIG's MOD1_IMM16_IS_VALUE defaults
#: (SoftReset.md, SFPCONFIG.md): -1.0, 1/65536, -0.67487759, -0.34484843.
PROG_CONST_DEFAULTS = {11: 0xBF800000, 12: 0x37800000, 13: 0xBF2CC4C7, 14: 0xBEB08FF9}

# LaneConfig bits (SFPCONFIG.md "LaneConfig").
ENABLE_FP16A_INF = 1 << 0
DISABLE_BACKDOOR_LOAD = 1 << 1
ENABLE_DEST_INDEX = 1 << 2
CAPTURE_DEFAULT_DEST_INDEX = 1 << 3
BLOCK_DEST_WR_FROM_SFPU = 1 << 4
BLOCK_SFPU_RD_FROM_DEST = 1 << 5
DEST_RD_COL_EXCHANGE = 1 << 6
DEST_WR_COL_EXCHANGE = 1 << 7
EXCHANGE_SRCB_SRCC = 1 << 8
ROW_MASK_SHIFT = 12
LANE_CONFIG_MASK = 0x3FFFF  # uint18

STACK_DEPTH = 8


class LaneConfig(np.ndarray):
    """LaneConfig per lane (a uint32[32] array) that counts writes through indexing
    (``version``), so masks derived from it are kept until it changes without comparing
    its bytes on every instruction. Arithmetic on it gives plain arrays; write it by
    indexing (``lane_config[...] = ...``), not through ``out=`` or a view."""

    version = 0

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        self.version += 1

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        return arr.view(np.ndarray) if type(arr) is not np.ndarray else arr

    def copy(self, order="C"):
        return np.array(self, order=order)


class VectorState:
    """The Vector Unit's architectural state (soft-reset values on construction)."""

    def reset(self) -> None:
        """Leave soft reset (SoftReset.md, "Vector Unit (SFPU) soft reset"): LReg[0..7]
        and LReg[16] zero, LReg[11..14] their defaults, LaneConfig and LoadMacroConfig
        zero, flag stack empty, unconditional execution, PRNG reset, nothing scheduled.

        The page does not give the PRNG's reset state; this model uses 0 in every lane.
        The state SFPSHFT2's SHFLSHR1 bug reads (``vc0``) is not documented either; 0.
        """
        self.lreg = np.zeros((17, 32), dtype=U32)
        self.lreg[8] = CONST_0P8373
        self.lreg[10] = CONST_ONE
        self.lreg[15] = (LANES * 2).astype(U32)
        for i, v in PROG_CONST_DEFAULTS.items():
            self.lreg[i] = v
        self.lane_config = np.zeros(32, dtype=U32).view(LaneConfig)
        self._lane_views_of = None  # (LaneConfig array, its version) the masks below belong to
        self._lane_views = {}
        self.flags = np.zeros(32, dtype=bool)  # LaneFlags
        self.use_flags = np.zeros(32, dtype=bool)  # UseLaneFlagsForLaneEnable
        self.stack_flags = np.zeros((STACK_DEPTH, 32), dtype=bool)
        self.stack_use = np.zeros((STACK_DEPTH, 32), dtype=bool)
        self.stack_size = np.zeros(32, dtype=np.int64)
        self.lm_template = np.zeros((4, 32), dtype=U32)  # LoadMacroConfig.InstructionTemplate
        self.lm_sequence = np.zeros((4, 32), dtype=U32)  # LoadMacroConfig.Sequence
        self.lm_misc = np.zeros(32, dtype=U32)  # LoadMacroConfig.Misc (12 bits)
        self.prng = np.zeros(32, dtype=U32)
        self.shfl_vc0 = np.zeros(32, dtype=U32)
        self.scheduled = []
        self.pre_ran = set()
        self.swap_stall = False
        self.issued_insns = {}  # (mnemonic, field values, thread, word) -> its issue_word slot (macro.py)
        self.executors = {}  # mnemonic -> the method executing it (macro.py)
        self.hz_reset()  # hazards.py: nothing pending after reset

    # -- lane predication -------------------------------------------------------------
    def _lane_view(self) -> dict:
        """Masks derived from the current LaneConfig (read-only arrays), kept until the
        array is written (its ``version``) or replaced; a LaneConfig given as a plain
        array is not cached."""
        lc = self.lane_config
        of = self._lane_views_of
        if of is not None and of[0] is lc and of[1] == lc.version:
            return self._lane_views
        self._lane_views = view = {}
        self._lane_views_of = (lc, lc.version) if type(lc) is LaneConfig else None
        return view

    def cfg_bit(self, bit: int, by_column: bool = False) -> np.ndarray:
        """LaneConfig[Lane] & bit (or LaneConfig[Lane & 7] & bit) as a bool per lane
        (read-only: combine, do not modify)."""
        view = self._lane_view()
        out = view.get((bit, by_column))
        if out is None:
            lc = np.asarray(self.lane_config)
            cfg = lc[COL] if by_column else lc
            out = view[(bit, by_column)] = (cfg & U32(bit)) != 0
            out.setflags(write=False)
        return out

    def lane_enabled(self) -> np.ndarray:
        """``IsLaneEnabled`` (VectorUnit.md): ROW_MASK of LaneConfig[Lane & 7], then the
        lane flags when UseLaneFlagsForLaneEnable."""
        lc = self.lane_config
        of = self._lane_views_of
        view = self._lane_views if of is not None and of[0] is lc and of[1] == lc.version else self._lane_view()
        unmasked = view.get("unmasked")
        if unmasked is None:
            unmasked = self.row_unmasked()
        n = _count_nonzero(self.use_flags)
        if not n:
            return unmasked  # (read-only)
        flags = self.flags
        if n == 32:  # (every lane by its flag)
            return unmasked if _count_nonzero(flags) == 32 else np.bitwise_and(unmasked, flags)
        return unmasked & (~self.use_flags | flags)

    def row_unmasked(self) -> np.ndarray:
        """The lanes ROW_MASK of LaneConfig[Lane & 7] leaves enabled (read-only; kept with
        the LaneConfig masks)."""
        view = self._lane_view()
        unmasked = view.get("unmasked")
        if unmasked is None:
            row_mask = (np.asarray(self.lane_config)[COL] >> ROW_MASK_SHIFT) & 0xF
            unmasked = ~(((row_mask >> ROW.astype(U32)) & 1) != 0)
            if unmasked.all():
                unmasked = ALL_LANES  # (callers may test for it by identity)
            unmasked.setflags(write=False)
            view["unmasked"] = unmasked
        return unmasked

    def lanes_open(self, block_bit: int, all_lanes: bool = False) -> np.ndarray:
        """``!LaneConfig[Lane].block_bit && (IsLaneEnabled(Lane) || all_lanes)`` per lane
        (read-only; kept with the LaneConfig masks while UseLaneFlagsForLaneEnable is
        false in every lane)."""
        view = self._lane_view()
        n = 0 if all_lanes else _count_nonzero(self.use_flags)
        key = ("open", block_bit, all_lanes)
        out = view.get(key)  # (the lanes open while UseLaneFlagsForLaneEnable is false everywhere)
        if out is None:
            unmasked = self.row_unmasked()
            out = view[key] = ~self.cfg_bit(block_bit) & (unmasked | all_lanes)
            out.setflags(write=False)
        if not n:
            return out
        flags = self.flags
        if _count_nonzero(flags) == 32:  # (every lane's flag set: as if none were used)
            return out
        if n == 32:
            return np.bitwise_and(out, flags)
        return out & (~self.use_flags | flags)

    def dest_index_lanes(self):
        """``ENABLE_DEST_INDEX && CAPTURE_DEFAULT_DEST_INDEX`` per lane, or None when no lane
        has both (SFPLOAD's Dst index capture)."""
        view = self._lane_view()
        out = view.get("dest_index", False)
        if out is False:
            out = self.cfg_bit(ENABLE_DEST_INDEX) & self.cfg_bit(CAPTURE_DEFAULT_DEST_INDEX)
            out = view["dest_index"] = out if out.any() else None
        return out

    def enabled(self, ins) -> np.ndarray:
        """``gate(ins) & lane_enabled()`` (read-only; :data:`ALL_LANES` itself when every
        lane is)."""
        if ins.macro or ins.vd < 12:  # (gate(ins) is ALL_LANES)
            return self.lane_enabled()
        g = self.cfg_bit(DISABLE_BACKDOOR_LOAD)
        e = self.lane_enabled()
        return g if e is ALL_LANES else g & e

    def gate(self, ins) -> np.ndarray:
        """``VD < 12 || LaneConfig[Lane].DISABLE_BACKDOOR_LOAD`` per lane (``true`` for
        instructions scheduled by SFPLOADMACRO, SFPLOADMACRO.md)."""
        if ins.macro or ins.vd < 12:
            return ALL_LANES
        return self.cfg_bit(DISABLE_BACKDOOR_LOAD)

    # -- writes -------------------------------------------------------------------------
    def write(self, vd: int, value, mask) -> None:
        """``if (VD < 8 || VD == 16) LReg[VD] = value`` in the lanes of ``mask``."""
        if vd < 8 or vd == 16:
            row = self.lreg[vd]
            if type(value) is np.ndarray and value.dtype == U32 and value.shape == (32,):
                if mask is ALL_LANES:
                    row[:] = value
                else:
                    np.copyto(row, value, where=mask)
            else:
                row[mask] = np.broadcast_to(np.asarray(value, dtype=U32), (32,))[mask]

    def write_indirect(self, vd_lanes: np.ndarray, value, mask) -> None:
        """Per-lane destination ``vd_lanes`` (e.g. ``LReg[7] & 15``); only 0..7 written."""
        m = mask & (vd_lanes < 8)
        self.lreg[vd_lanes[m], LANES[m]] = np.broadcast_to(np.asarray(value, dtype=U32), (32,))[m]

    # -- PRNG ---------------------------------------------------------------------------
    def advance_prng(self, mask) -> np.ndarray:
        """``AdvancePRNG(Lane)`` (VectorUnit.md) in the lanes of ``mask``: returns the
        current state there (0 elsewhere) and steps those lanes."""
        out = np.where(mask, self.prng, U32(0)).astype(U32)
        self.prng = np.where(mask, prng_step(self.prng), self.prng).astype(U32)
        return out

    def seed_prng(self, value: int) -> None:
        """(Re-)seed every lane's PRNG from a write of ``value`` to
        ``Config.PRNG_SEED_Seed_Val`` (BackendConfiguration.md, "Special cases").

        The ISA pages do not say how one 32-bit seed reaches 32 lanes. This follows the
        hardware behaviour as published by the seed text's author alongside it (and
        consistent with the seed text's "adjacent lanes have 30 out of 32 bits in
        common"): the seed is stepped 32 times, then lanes 31 down to 0 each take the
        value after two more steps. Hardware does this over the SFPNOPs software issues
        after the write; the model does it at once.
        """
        s = np.array([value & 0xFFFFFFFF], dtype=U32)
        for _ in range(32):
            s = prng_step(s)
        lanes = np.zeros(32, dtype=U32)
        for lane in range(31, -1, -1):
            s = prng_step(prng_step(s))
            lanes[lane] = s[0]
        self.prng = lanes
