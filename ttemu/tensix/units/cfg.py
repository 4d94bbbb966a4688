"""Configuration Unit: SETC16, WRCFG, RDCFG, RMWCIB; on Blackhole also CFGSHIFTMASK and
STREAMWRCFG (BlackholeA0/TensixTile/TensixCoprocessor/CFGSHIFTMASK.md, STREAMWRCFG.md;
the Blackhole WRCFG / RDCFG / RMWCIB / SETC16 pages have the Wormhole functional models).

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/ConfigurationUnit.md,
BackendConfiguration.md and the page of each instruction (cited in each method).
Instructions are methods named after their mnemonics (see ttemu.tensix.units).

Immediate effects of configuration writes (BackendConfiguration.md, "Special cases"),
applied to every write path (WRCFG, RMWCIB, REG2FLOP and RISC-V ``sw``) through a
listener on the configuration space:

* a write to ``Config[i][STATE_RESET_EN_ADDR32]``, except by RMWCIB, zeroes
  ``Config[i][0 .. GLOBAL_CFGREG_BASE_ADDR32)`` (directly, without notifying listeners);
* a write to ``PRNG_SEED_Seed_Val`` calls ``cop.sfpu.seed_prng(value)`` if the Vector
  Unit provides it;
* ``RISCV_IC_INVALIDATE_InvalidateAll``: no instruction caches are modelled (stores
  over code already drop translated blocks), so nothing to do;
* SETC16 to the ``CG_CTRL_*`` words: clock gating is not modelled, no effect;
* SETC16 to the ``UNPACK_MISC_CFG_CfgContextCntReset_*`` word calls
  ``cop.unpack.reset_context_counters(thread, value)`` if the unpackers provide it.
"""

from __future__ import annotations

from . import Unit, op

#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset()
#: Blackhole-only instructions of this unit, not implemented.
PENDING_BLACKHOLE = frozenset()


class ConfigUnit(Unit):
    name = "cfg"

    def __init__(self, cop):
        self.cop = cop
        cfg = cop.config
        self._in_rmwcib = False
        self._reset_index = cfg.fields["STATE_RESET_EN"][0] if "STATE_RESET_EN" in cfg.fields else None
        self._seed_index = cfg.fields["PRNG_SEED_Seed_Val"][0] if "PRNG_SEED_Seed_Val" in cfg.fields else None
        tf = cfg.thread_fields
        self._ctx_reset_index = (tf["UNPACK_MISC_CFG_CfgContextCntReset_0"][0]
                                 if "UNPACK_MISC_CFG_CfgContextCntReset_0" in tf else None)
        cfg.listeners.append(self._on_config_write)

    # -- immediate effects -------------------------------------------------------------
    def _on_config_write(self, bank, index, value):
        """BackendConfiguration.md, "Special cases" (see the module docstring)."""
        cfg = self.cop.config
        if index == self._reset_index and not self._in_rmwcib:
            cfg.cfg[bank, :cfg.global_base] = 0
            cfg.forget_all()
        if index == self._seed_index:
            seed = getattr(self.cop.sfpu, "seed_prng", None)
            if seed is not None:
                seed(value)

    def _beyond_config(self, what, index, page, outcome="discards the write"):
        """A Config word index at or beyond CFG_STATE_SIZE*4 (``page``: undefined): warn
        once per site and say what ttemu does instead. True when it was beyond."""
        words = self.cop.config.bank_words
        if index < words:
            return False
        self.cop.undefined(f"{what}>=CFG_STATE_SIZE*4",
                           f"index {index} >= CFG_STATE_SIZE*4 ({words}) ({page}: undefined); "
                           f"no register is there, ttemu {outcome}")
        return True

    # -- instructions ------------------------------------------------------------------
    @op
    def SETC16(self, t, setc16_value, setc16_reg):
        """SETC16.md: ThreadConfig[CurrentThread][CfgIndex] = NewValue; CfgIndex beyond
        THD_STATE_SIZE is undefined."""
        cfg = self.cop.config
        if setc16_reg >= cfg.thread_words:
            self.cop.undefined("SETC16 CfgIndex>=THD_STATE_SIZE",
                               f"index {setc16_reg} >= THD_STATE_SIZE ({cfg.thread_words}) (SETC16.md: undefined); "
                               "no register is there, ttemu discards the write")
            return
        cfg.thread_set_word(t.index, setc16_reg, setc16_value)
        if setc16_reg == self._ctx_reset_index:
            reset = getattr(self.cop.unpack, "reset_context_counters", None)
            if reset is not None:
                reset(t.index, setc16_value)

    @op
    def WRCFG(self, t, CfgReg, wr128b, GprAddress):
        """WRCFG.md: Config[StateID][CfgIndex] = GPRs[InputReg], or (Is128Bit) the four
        words at CfgIndex & ~3 from GPRs InputReg & ~3 (written in ascending order);
        CfgIndex >= CFG_STATE_SIZE*4 is undefined."""
        cfg = self.cop.config
        if self._beyond_config("WRCFG CfgIndex", CfgReg, "WRCFG.md"):
            return
        bank = cfg.bank_of(t.index)
        regs = self.cop.gprs[t.index]
        if GprAddress >= len(regs):
            self.cop.undefined("WRCFG GprAddress>=64",
                               f"GPR index {GprAddress} >= {len(regs)} (undefined); ttemu uses GprAddress & 63 "
                               "(ttsim decodes the field as bits 21:16)")
            GprAddress &= 63
        if wr128b:
            for k in range(4):
                cfg.write_word(bank, (CfgReg & ~3) + k, regs[(GprAddress & ~3) + k])
        else:
            cfg.write_word(bank, CfgReg, regs[GprAddress])

    @op
    def RDCFG(self, t, CfgReg, GprAddress):
        """RDCFG (no page of its own; ConfigurationUnit.md and BackendConfiguration.md
        name it the explicit read of ``Config``): GPRs[CurrentThread][GprAddress] =
        Config[StateID][CfgReg], the 32-bit mirror of WRCFG. As for WRCFG, an index
        beyond the bank (CfgReg >= CFG_STATE_SIZE*4) or a GPR index >= 64 is undefined."""
        cfg = self.cop.config
        regs = self.cop.gprs[t.index]
        if self._beyond_config("RDCFG CfgIndex", CfgReg, "as WRCFG.md", "reads 0"):
            regs[GprAddress & 63] = 0
            return
        if GprAddress >= len(regs):
            self.cop.undefined("RDCFG GprAddress>=64",
                               f"GPR index {GprAddress} >= {len(regs)} (undefined); ttemu uses GprAddress & 63 "
                               "(ttsim decodes the field as bits 21:16)")
            GprAddress &= 63
        regs[GprAddress] = cfg.word(CfgReg, cfg.bank_of(t.index))

    def _rmwcib(self, t, index1, CfgRegAddr, Data, Mask):
        """RMWCIB.md: byte Index1 of Config[StateID][Index4] = (NewValue & Mask) |
        (old & ~Mask); Index4 >= CFG_STATE_SIZE*4 is undefined."""
        cfg = self.cop.config
        if self._beyond_config(f"RMWCIB{index1} Index4", CfgRegAddr, "RMWCIB.md"):
            return
        bank = cfg.bank_of(t.index)
        old = cfg.word(CfgRegAddr, bank)
        shift = 8 * index1
        byte = (Data & Mask) | ((old >> shift) & ~Mask & 0xFF)
        self._in_rmwcib = True
        try:
            cfg.write_word(bank, CfgRegAddr, (old & ~(0xFF << shift)) | (byte << shift))
        finally:
            self._in_rmwcib = False

    @op
    def RMWCIB0(self, t, CfgRegAddr, Data, Mask):
        """RMWCIB.md with Index1 = 0."""
        self._rmwcib(t, 0, CfgRegAddr, Data, Mask)

    @op
    def RMWCIB1(self, t, CfgRegAddr, Data, Mask):
        """RMWCIB.md with Index1 = 1."""
        self._rmwcib(t, 1, CfgRegAddr, Data, Mask)

    @op
    def RMWCIB2(self, t, CfgRegAddr, Data, Mask):
        """RMWCIB.md with Index1 = 2."""
        self._rmwcib(t, 2, CfgRegAddr, Data, Mask)

    @op
    def RMWCIB3(self, t, CfgRegAddr, Data, Mask):
        """RMWCIB.md with Index1 = 3."""
        self._rmwcib(t, 3, CfgRegAddr, Data, Mask)

    # -- Blackhole ---------------------------------------------------------------------
    @op
    def CFGSHIFTMASK(self, t, CfgReg, scratch_sel, right_cshift_amt, mask_width, operation,
                     disable_mask_on_old_val):
        """CFGSHIFTMASK.md (BlackholeA0): Config[StateID][CfgIndex] op= the scratch value
        ``SCRATCH_SEC[ScratchIndex < 3 ? ScratchIndex : CurrentThread].val``, masked to
        MaskWidth + 1 bits and rotated right by RotateAmt; MaskMode = 0 first clears the
        rotated mask's bits of the old value. AluMode: 0 or, 1 and, 2 xor, 3 add, 4..6 the
        same with the scratch value inverted, 7 subtract. A rotation by 0 leaves the value
        (the page's ``rotr`` shifts by 32 there). CfgIndex >= CFG_STATE_SIZE*4 is undefined.

        Fields: disable_mask_on_old_val = MaskMode, operation = AluMode, mask_width =
        MaskWidth, right_cshift_amt = RotateAmt, scratch_sel = ScratchIndex, CfgReg =
        CfgIndex. tt-llk's Blackhole tilize / untilize add a per-thread stride to an
        address this way (MaskMode 1, AluMode 3, MaskWidth 31, RotateAmt 0)."""
        cfg = self.cop.config
        if self._beyond_config("CFGSHIFTMASK CfgIndex", CfgReg, "CFGSHIFTMASK.md"):
            return
        scratch = cfg.get(f"SCRATCH_SEC{scratch_sel if scratch_sel < 3 else t.index}_val")
        mask = ((2 << mask_width) - 1) & 0xFFFFFFFF
        value = _rotr(scratch & mask, right_cshift_amt)
        bank = cfg.bank_of(t.index)
        old = cfg.word(CfgReg, bank)
        if disable_mask_on_old_val == 0:
            old &= ~_rotr(mask, right_cshift_amt) & 0xFFFFFFFF
        if operation >= 4 and operation != 7:
            value = ~value & 0xFFFFFFFF
        kind = operation & 3
        if operation == 7:
            new = old - value
        elif kind == 0:
            new = old | value
        elif kind == 1:
            new = old & value
        elif kind == 2:
            new = old ^ value
        else:
            new = old + value
        cfg.write_word(bank, CfgReg, new & 0xFFFFFFFF)

    @op
    def STREAMWRCFG(self, t, CfgReg, StreamRegAddr, stream_id_sel):
        """STREAMWRCFG.md (BlackholeA0): Config[StateID][CfgIndex] =
        NOC_STREAM_READ_REG(ThreadConfig STREAM_ID_SYNC_SEC[StreamSelect].BankSel,
        RegIndex); CfgIndex >= CFG_STATE_SIZE*4 is undefined. NoC overlay registers
        ttemu does not model stop the run (mmio/overlay.py).

        Fields: CfgReg = CfgIndex, StreamRegAddr = RegIndex, stream_id_sel = StreamSelect
        (assembly.yaml gives it bits 23:21; the page's u2: bit 23 is ignored)."""
        cfg = self.cop.config
        if self._beyond_config("STREAMWRCFG CfgIndex", CfgReg, "STREAMWRCFG.md"):
            return
        value = self.cop.stream_reg(t.index, stream_id_sel & 3, StreamRegAddr)
        cfg.write_word(cfg.bank_of(t.index), CfgReg, value)


def _rotr(x, amt):
    """CFGSHIFTMASK.md ``rotr``: rotate a 32-bit value right by ``amt`` (0..31)."""
    amt &= 31
    return ((x >> amt) | (x << (32 - amt))) & 0xFFFFFFFF if amt else x
