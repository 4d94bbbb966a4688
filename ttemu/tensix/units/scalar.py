"""Scalar Unit (ThCon): GPR arithmetic, L1/MMIO loads and stores, atomics.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/ScalarUnit.md and the
page of each instruction (cited in each method). Instructions are methods named after
their mnemonics (see ttemu.tensix.units).

Model notes:

* Memory requests complete as the instruction issues (loads deliver at once), so the
  STALLWAIT / FLUSHDMA condition C0 ("ThCon memory requests outstanding") never waits.
* ScalarUnit.md: the unit runs one instruction at a time. An instruction that keeps
  the unit busy while it waits (ATCAS, ATINCGETPTR, FLUSHDMA) holds its thread at the
  gate and makes every other thread's Scalar Unit instruction wait too.
* Bits the instruction table does not carry as fields (ATSWAP's SingleDataReg, bit 22)
  are read from ``t.word``, the Tensix word being executed, when the frontend provides
  it; without it they read as 0 (which is all the ``TT_`` syntax can encode).
* Packer state that SETDMAREG (special mode) reads lives on the packers unit, read as
  optional attributes (default 0 / "no packer ran"): ``cop.pack.acc_tile_size[4][3]``,
  ``last_thread[4]``, ``last_tile_size[4]``, ``all_zero_flags[4]``,
  ``exponent_histogram[4]`` (32 bytes each), ``exponent_histogram_max_exponent`` and
  the optional method ``reset_acc_tile_size(packer)``.
* ``Unpackers[i].SrcRow[thread]`` (STOREIND to Src) is ``cop.src.src_row["A"|"B"][thread]``
  (``SrcState.src_row``).
"""

from __future__ import annotations

import functools

from ...errors import GuestFault, Unimplemented
from ..regs.src import UNPACK
from . import Unit, Wait, op, raw_word

#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
#: RSTDMA has no page in the ISA documentation.
PENDING = frozenset({'RSTDMA'})

MMIO_BASE = 0xFFB00000  # LOADREG / STOREREG / STOREIND (MMIO) window
MMIO_LOWEST = 0xFFB11000  # anything below is undefined
OFFSET_INCREMENT = (0, 2, 4, 16)  # LOADIND / STOREIND OffsetIncrement
#: Instructions that keep the Scalar Unit busy while they wait.
OCCUPYING = ("ATCAS", "ATINCGETPTR", "FLUSHDMA")


def get_half(regs, half: int) -> int:
    """``((uint16_t*)&GPRs[thread][0])[half]`` (little-endian halves)."""
    return (regs[half >> 1] >> ((half & 1) * 16)) & 0xFFFF


def set_half(regs, half: int, value: int) -> None:
    i, sh = half >> 1, (half & 1) * 16
    regs[i] = (regs[i] & ~(0xFFFF << sh) & 0xFFFFFFFF) | ((value & 0xFFFF) << sh)


def _scalar(fn):
    """@op for Scalar Unit instructions: wait while another thread's instruction
    occupies the unit (ScalarUnit.md: one instruction at a time)."""

    @functools.wraps(fn)
    def run(self, t, *args, **fields):
        occ = self.occupant
        if occ is not None and occ != t.index:  # (occupied_by_other's answer is None otherwise)
            busy = self.occupied_by_other(t)
            if busy is not None:
                return busy
        return fn(self, t, *args, **fields)

    run.tt_positional = fn  # (the frontend calls it with fn's parameters, positionally)
    return op(run)


def _bf16_lo(x: int) -> int:
    """ReadBF16Lo (STOREIND_Src.md): low 16 bits hold Sign, Man(7), Exp(8)."""
    return ((x & 0x8000) << 3) | ((x & 0x7F00) << 3) | (x & 0xFF)


def _bf16_hi(x: int) -> int:
    """ReadBF16Hi (STOREIND_Src.md): high 16 bits hold Sign, Exp(8), Man(7)."""
    return ((x >> 31) << 18) | (((x >> 16) & 0x7F) << 11) | ((x >> 23) & 0xFF)


class ScalarUnit(Unit):
    name = "scalar"

    def __init__(self, cop):
        self.cop = cop
        self.occupant = None  # thread index holding the unit while it waits
        table = cop.table
        self._occupying = frozenset(table.spec(m).opcode for m in OCCUPYING if m in table.by_mnemonic)

    # -- unit occupancy ----------------------------------------------------------------
    def occupied_by_other(self, t):
        occ = self.occupant
        if occ is None or occ == t.index:
            return None
        held = self.cop.threads[occ].held
        if held is None or (held[0] >> 24) not in self._occupying:
            self.occupant = None  # the occupying instruction went away (never issued)
            return None
        return Wait(f"the Scalar Unit (busy with t{occ} {self.cop.table.decode(held[0])[0].mnemonic})")

    def _occupy(self, t, reason):
        self.occupant = t.index
        return Wait(reason)

    def _release(self, t):
        if self.occupant == t.index:
            self.occupant = None

    # -- helpers -----------------------------------------------------------------------
    def _regs(self, t):
        return self.cop.gprs[t.index]

    def _check_l1(self, t, mnemonic, addr):
        if addr >= self.cop.arch.l1_size:
            raise GuestFault(f"t{t.index} {mnemonic}: L1 address 0x{addr:x} is beyond L1 "
                             f"({self.cop.arch.l1_size} bytes; {mnemonic}.md: undefined, there is no memory there)")

    def _l1_read(self, addr, n) -> int:
        return int.from_bytes(self.cop.tile.l1[addr:addr + n], "little")

    def _l1_write(self, addr, value, n) -> None:
        tile = self.cop.tile
        tile.l1[addr:addr + n] = (value & ((1 << (8 * n)) - 1)).to_bytes(n, "little")
        for i in range(addr >> 2, (addr + n + 3) >> 2):
            if tile.is_code[i]:
                tile.invalidate_code(i << 2)
        tile.activity[0] = 1

    def _mmio_device(self, t, mnemonic, addr):
        if addr < MMIO_LOWEST:
            raise GuestFault(f"t{t.index} {mnemonic}: MMIO address 0x{addr:08x} is below "
                             f"0x{MMIO_LOWEST:08x} ({mnemonic}.md: undefined; the coprocessor cannot reach it)")
        entry = self.cop.tile.router.lookup(addr)
        if entry is None:
            raise GuestFault(f"t{t.index} {mnemonic}: MMIO address 0x{addr:08x} is unmapped")
        if entry[1] is None:
            raise Unimplemented(f"t{t.index} {mnemonic}: MMIO address 0x{addr:08x} in {entry[0].name}: "
                                "this region is not modelled")
        return entry[1]

    # -- no-ops / waits ----------------------------------------------------------------
    @_scalar
    def DMANOP(self, t):
        """DMANOP.md: occupies the Scalar Unit for one cycle, no other effect."""
        return None

    @_scalar
    def FLUSHDMA(self, t, FlushSpec):
        """FLUSHDMA.md: occupy the Scalar Unit until every selected condition C0..C3
        (the low four STALLWAIT conditions) is met; a zero mask means 0xF."""
        mask = FlushSpec or 0xF
        cop = self.cop
        waiting = [f"C{bit} {label}" for bit, kind, arg, label in cop.arch.stallwait_conditions
                   if bit < 4 and (mask >> bit) & 1 and cop.condition(t.index, kind, arg)]
        if waiting:
            return self._occupy(t, "FLUSHDMA " + ", ".join(waiting))
        self._release(t)
        return None

    # -- SETDMAREG ---------------------------------------------------------------------
    @_scalar
    def SETDMAREG(self, t, RegIndex16b, SetSignalsMode, Payload_SigSel, Payload_SigSelSize):
        """SETDMAREG.md: SETDMAREG_Immediate.md (mode bit 0) or SETDMAREG_Special.md (1).

        The immediate form's 16-bit NewValue is bits 8..23 of the word, i.e. the table's
        Payload_SigSel plus Payload_SigSelSize << 14."""
        regs = self._regs(t)
        if not SetSignalsMode:
            set_half(regs, RegIndex16b, Payload_SigSel | (Payload_SigSelSize << 14))
            return None
        input_half = Payload_SigSel & 7
        source = (Payload_SigSel >> 3) & 0xF
        which = (Payload_SigSel >> 7) & 0xF
        values = self._special_values(t, source, which)
        if Payload_SigSelSize == 0:  # 16-bit
            v = (values[input_half >> 1] >> ((input_half & 1) * 16)) & 0xFFFF
            set_half(regs, RegIndex16b, v)
        elif Payload_SigSelSize == 1:  # 32-bit
            regs[RegIndex16b >> 1] = values[input_half >> 1]
        else:
            base = (RegIndex16b >> 1) & 0x3C
            if Payload_SigSelSize == 2:  # 128-bit
                regs[base:base + 4] = values
            else:  # 128-bit tile header, reserved fields left unchanged
                regs[base] = (regs[base] & 0xFFFF0000) | (values[0] & 0xFFFF)
                regs[base + 1] = (regs[base + 1] & 0xFF00FFFF) | (values[1] & 0x00FF0000)
                regs[base + 2] = values[2]
        return None

    def _packer(self, name, i, default=0):
        v = getattr(self.cop.pack, name, None)
        return default if v is None else v[i]

    def _last_tile_size(self, i, thread):
        if self._packer("last_thread", i, None) != thread:
            return 0
        return self._packer("last_tile_size", i) & 0xFFFF

    def _special_values(self, t, source, which):
        """``Values[4]`` of SETDMAREG_Special.md for InputSource ``source``."""
        thread = t.index
        cfg = self.cop.config
        values = [0, 0, 0, 0]
        if source == 0:
            acc = getattr(self.cop.pack, "acc_tile_size", None)
            for i in range(4):
                hi = (acc[i][thread] & 0xFFFF) if acc is not None else 0
                values[i] = (hi << 16) | self._last_tile_size(i, thread)
        elif source == 1:
            for i in range(4):
                values[i] = self._packer("all_zero_flags", i) & 0xFFFFFFFF
        elif 2 <= source <= 5:
            i = source - 2
            bank = cfg.bank_of(thread)
            sec = ("THCON_SEC0_REG1", "THCON_SEC0_REG8", "THCON_SEC1_REG1", "THCON_SEC1_REG8")[i]
            fmt = cfg.get(f"{sec}_Out_data_format", bank)
            if cfg.get("THCON_SEC0_REG1_All_pack_disable_zero_compress_ovrd", bank):
                dzc = (cfg.get("THCON_SEC0_REG1_All_pack_disable_zero_compress", bank) >> i) & 1
            else:
                dzc = cfg.get(f"{sec}_Disable_zero_compress", bank)
            values[0] = (self._last_tile_size(i, thread) + 1) & 0xFFFF
            values[1] = (fmt << 16) | (dzc << 20)
            values[2] = self._packer("all_zero_flags", i) & 0xFFFFFFFF
        elif source in (6, 7):
            hist = self._packer("exponent_histogram", which & 3, None)
            chunk = bytes(hist[(source - 6) * 16:(source - 6) * 16 + 16]) if hist is not None else bytes(16)
            values = [int.from_bytes(chunk[4 * k:4 * k + 4], "little") for k in range(4)]
        elif source == 8:
            reset = getattr(self.cop.pack, "reset_acc_tile_size", None)
            for i in range(4):
                values[0] |= (self._packer("all_zero_flags", i) & 1) << i
                if (which >> i) & 1 and reset is not None:
                    reset(i)
        elif source == 9:
            values[0] = int(getattr(self.cop.pack, "exponent_histogram_max_exponent", 0) or 0) & 0xFFFFFFFF
        return values

    # -- GPR arithmetic ----------------------------------------------------------------
    def _operands(self, t, OpARegIndex, OpBRegIndex, OpBisConst, imm_mask=0x3F):
        regs = self._regs(t)
        right = (OpBRegIndex & imm_mask) if OpBisConst else regs[OpBRegIndex]
        return regs, regs[OpARegIndex], right

    @_scalar
    def ADDDMAREG(self, t, OpARegIndex, OpBRegIndex, ResultRegIndex, OpBisConst):
        """ADDDMAREG.md: Result = Left + Right (mod 2**32); Right a GPR or a u6."""
        regs, left, right = self._operands(t, OpARegIndex, OpBRegIndex, OpBisConst)
        regs[ResultRegIndex] = (left + right) & 0xFFFFFFFF

    @_scalar
    def SUBDMAREG(self, t, OpARegIndex, OpBRegIndex, ResultRegIndex, OpBisConst):
        """SUBDMAREG.md: Result = Left - Right (mod 2**32)."""
        regs, left, right = self._operands(t, OpARegIndex, OpBRegIndex, OpBisConst)
        regs[ResultRegIndex] = (left - right) & 0xFFFFFFFF

    @_scalar
    def MULDMAREG(self, t, OpARegIndex, OpBRegIndex, ResultRegIndex, OpBisConst):
        """MULDMAREG.md: Result = (Left & 0xFFFF) * (Right & 0xFFFF), full 32-bit product."""
        regs, left, right = self._operands(t, OpARegIndex, OpBRegIndex, OpBisConst)
        regs[ResultRegIndex] = (left & 0xFFFF) * (right & 0xFFFF)

    def _undefined_mode(self, regs, ResultRegIndex, mnemonic, OpSel, modes):
        """A Mode beyond ``modes`` (its page: undefined): warn once per site and write 0
        (no case of the result selector is taken). True when it was undefined."""
        if OpSel < modes.count(",") + 1:
            return False
        self.cop.undefined(f"{mnemonic} Mode={OpSel}",
                           f"mode {OpSel} is not {modes} ({mnemonic}.md: undefined); "
                           "ttemu writes 0 (no case of the result selector is taken)")
        regs[ResultRegIndex] = 0
        return True

    @_scalar
    def BITWOPDMAREG(self, t, OpARegIndex, OpBRegIndex, ResultRegIndex, OpSel, OpBisConst):
        """BITWOPDMAREG.md: Mode 0 AND, 1 OR, 2 XOR; other modes are undefined."""
        regs, left, right = self._operands(t, OpARegIndex, OpBRegIndex, OpBisConst)
        if self._undefined_mode(regs, ResultRegIndex, "BITWOPDMAREG", OpSel, "0 AND, 1 OR, 2 XOR"):
            return
        regs[ResultRegIndex] = (left & right, left | right, left ^ right)[OpSel]

    @_scalar
    def CMPDMAREG(self, t, OpARegIndex, OpBRegIndex, ResultRegIndex, OpSel, OpBisConst):
        """CMPDMAREG.md: unsigned compare, Mode 0 GT, 1 LT, 2 EQ -> 1 or 0; other modes
        are undefined."""
        regs, left, right = self._operands(t, OpARegIndex, OpBRegIndex, OpBisConst)
        if self._undefined_mode(regs, ResultRegIndex, "CMPDMAREG", OpSel, "0 GT, 1 LT, 2 EQ"):
            return
        regs[ResultRegIndex] = int((left > right, left < right, left == right)[OpSel])

    @_scalar
    def SHIFTDMAREG(self, t, OpARegIndex, OpBRegIndex, ResultRegIndex, OpSel, OpBisConst):
        """SHIFTDMAREG.md: Mode 0 left, 1 right (logical), by GPR & 0x1F or a u5
        immediate (bits 6..10); other modes are undefined."""
        regs, left, right = self._operands(t, OpARegIndex, OpBRegIndex, OpBisConst, imm_mask=0x1F)
        if self._undefined_mode(regs, ResultRegIndex, "SHIFTDMAREG", OpSel, "0 left, 1 right"):
            return
        right &= 0x1F
        regs[ResultRegIndex] = ((left << right) & 0xFFFFFFFF) if OpSel == 0 else left >> right

    # -- L1 loads and stores -----------------------------------------------------------
    def _ind_address(self, t, mnemonic, AddrRegIndex, OffsetIndex):
        regs = self._regs(t)
        addr = (regs[AddrRegIndex] * 16 + get_half(regs, OffsetIndex)) & 0xFFFFFFFF
        self._check_l1(t, mnemonic, addr)
        return addr

    @_scalar
    def LOADIND(self, t, AddrRegIndex, DataRegIndex, AutoIncSpec, OffsetIndex, SizeSel):
        """LOADIND.md: L1 address = GPR[AddrReg] * 16 + 16-bit half-GPR Offset; the
        Offset is incremented by 0/2/4/16, then the load lands (Size 0: 16 bytes into
        four GPRs, 1: 32 bits, 2: low 16 bits, 3: low 8 bits, the rest of the GPR kept).
        The model delivers the load at once."""
        regs = self._regs(t)
        addr = self._ind_address(t, "LOADIND", AddrRegIndex, OffsetIndex)
        set_half(regs, OffsetIndex, get_half(regs, OffsetIndex) + OFFSET_INCREMENT[AutoIncSpec])
        if SizeSel == 0:
            base = DataRegIndex & 0x3C
            a = addr & ~15
            regs[base:base + 4] = [self._l1_read(a + 4 * k, 4) for k in range(4)]
        elif SizeSel == 1:
            regs[DataRegIndex] = self._l1_read(addr & ~3, 4)
        elif SizeSel == 2:
            regs[DataRegIndex] = (regs[DataRegIndex] & 0xFFFF0000) | self._l1_read(addr & ~1, 2)
        else:
            regs[DataRegIndex] = (regs[DataRegIndex] & 0xFFFFFF00) | self._l1_read(addr, 1)

    @_scalar
    def STOREIND(self, t, AddrRegIndex, DataRegIndex, AutoIncSpec, OffsetIndex, RegSizeSel, SizeSel,
                 MemHierSel):
        """STOREIND.md: bit 23 set -> STOREIND_L1.md (Size in bits 21..22); bits 23..22
        = 01 -> STOREIND_MMIO.md; 00 -> STOREIND_Src.md (bit 21 selects SrcB)."""
        if MemHierSel:
            return self._storeind_l1(t, AddrRegIndex, DataRegIndex, AutoIncSpec, OffsetIndex,
                                     (SizeSel << 1) | RegSizeSel)
        if SizeSel:
            return self._storeind_mmio(t, AddrRegIndex, DataRegIndex, AutoIncSpec, OffsetIndex)
        return self._storeind_src(t, AddrRegIndex, DataRegIndex, AutoIncSpec, OffsetIndex, RegSizeSel)

    def _storeind_l1(self, t, AddrReg, DataReg, OffsetIncrement, OffsetHalfReg, size):
        """STOREIND_L1.md. The data GPR is read after the Offset increment, as in the
        functional model (it matters when the Offset lives in the data GPR)."""
        regs = self._regs(t)
        addr = self._ind_address(t, "STOREIND", AddrReg, OffsetHalfReg)
        set_half(regs, OffsetHalfReg, get_half(regs, OffsetHalfReg) + OFFSET_INCREMENT[OffsetIncrement])
        if size == 0:
            base = DataReg & 0x3C
            a = addr & ~15
            for k in range(4):
                self._l1_write(a + 4 * k, regs[base + k], 4)
        elif size == 1:
            self._l1_write(addr & ~3, regs[DataReg], 4)
        elif size == 2:
            self._l1_write(addr & ~1, regs[DataReg], 2)
        else:
            self._l1_write(addr, regs[DataReg], 1)

    def _storeind_mmio(self, t, AddrReg, DataReg, OffsetIncrement, OffsetHalfReg):
        """STOREIND_MMIO.md: address 0xFFB00000 + ((GPR[AddrReg] + (Offset >> 4)) &
        0xFFFFC); below 0xFFB11000 is undefined. The write happens, then the Offset
        is incremented. A device that is not ready makes the instruction wait."""
        regs = self._regs(t)
        addr = MMIO_BASE + (((regs[AddrReg] + (get_half(regs, OffsetHalfReg) >> 4)) & 0xFFFFFFFF) & 0x000FFFFC)
        dev = self._mmio_device(t, "STOREIND", addr)
        if not dev.write(None, addr, 4, regs[DataReg]):
            return Wait(f"MMIO write to 0x{addr:08x}")
        set_half(regs, OffsetHalfReg, get_half(regs, OffsetHalfReg) + OFFSET_INCREMENT[OffsetIncrement])
        return None

    def _storeind_src(self, t, AddrReg, DataReg, OffsetIncrement, OffsetHalfReg, to_srcb):
        """STOREIND_Src.md: four BF16 from GPRs DataReg & 0x3C (+1) into four columns of
        one SrcA/SrcB row of the unpackers' bank; waits until that bank belongs to the
        unpackers. SrcA rows below 4 are dropped."""
        regs = self._regs(t)
        src = self.cop.src
        base = DataReg & 0x3C
        datum = (_bf16_lo(regs[base]), _bf16_hi(regs[base]), _bf16_lo(regs[base + 1]), _bf16_hi(regs[base + 1]))
        addr = (regs[AddrReg] + (get_half(regs, OffsetHalfReg) >> 4)) & 0xFFFFF
        if addr & 0xF0000:
            self.cop.undefined("STOREIND Src Addr&0xf0000",
                               f"address 0x{addr:05x} has bits 16..19 set (STOREIND_Src.md: undefined); "
                               "ttemu ignores those bits")
            addr &= 0xFFFF
        which = "B" if to_srcb else "A"
        bank = src.unpack_bank[which]
        if src.allowed[which][bank] != UNPACK:
            return Wait(f"Src{which} bank {bank} to belong to the unpackers")
        row = addr >> 2
        rows = src.src_row[which]
        if to_srcb:
            if row >= 16:
                self.cop.undefined("STOREIND SrcB Row>=16",
                                   f"SrcB row {row} >= 16 (STOREIND_Src.md: undefined); ttemu adds SrcRow "
                                   "and wraps the row to the 64-row bank")
            row += rows[t.index]
        else:
            row -= 4
            if row >= 0:
                if self.cop.config.thread_get(t.index, "SRCA_SET_SetOvrdWithAddr"):
                    if row >= 64:
                        self.cop.undefined("STOREIND SrcA Row>=64",
                                           f"SrcA row {row} >= 64 with SRCA_SET_SetOvrdWithAddr (STOREIND_Src.md: "
                                           "undefined); ttemu wraps the row to the 64-row bank")
                else:
                    if row >= 16:
                        self.cop.undefined("STOREIND SrcA Row>=16",
                                           f"SrcA row {row} >= 16 (STOREIND_Src.md: undefined); ttemu adds SrcRow "
                                           "and wraps the row to the 64-row bank")
                    row += rows[t.index]
        if row >= 64:  # only after one of the undefined cases above
            row &= 63
        set_half(regs, OffsetHalfReg, get_half(regs, OffsetHalfReg) + OFFSET_INCREMENT[OffsetIncrement])
        if row >= 0:
            col = (addr & 3) * 4
            src.data[which][bank, row, col:col + 4] = datum
        return None

    # -- MMIO --------------------------------------------------------------------------
    @_scalar
    def LOADREG(self, t, RegAddr, TdmaDataRegIndex):
        """LOADREG.md: GPR = *(0xFFB00000 + (AddrLo << 2)); below 0xFFB11000 is
        undefined. The model delivers the value at once; a device that is not ready
        makes the instruction wait."""
        addr = MMIO_BASE + (RegAddr << 2)
        dev = self._mmio_device(t, "LOADREG", addr)
        v = dev.read(None, addr, 4)
        if v is None:
            return Wait(f"MMIO read of 0x{addr:08x}")
        self._regs(t)[TdmaDataRegIndex] = v & 0xFFFFFFFF
        return None

    @_scalar
    def STOREREG(self, t, RegAddr, TdmaDataRegIndex):
        """STOREREG.md: *(0xFFB00000 + (AddrLo << 2)) = GPR; below 0xFFB11000 is
        undefined."""
        addr = MMIO_BASE + (RegAddr << 2)
        dev = self._mmio_device(t, "STOREREG", addr)
        if not dev.write(None, addr, 4, self._regs(t)[TdmaDataRegIndex]):
            return Wait(f"MMIO write to 0x{addr:08x}")
        return None

    # -- atomics -----------------------------------------------------------------------
    @_scalar
    def ATSWAP(self, t, AddrRegIndex, DataRegIndex, SwapMask, MemHierSel):
        """ATSWAP.md: write the 16-bit granules selected by Mask of the 16 bytes at
        GPR[AddrReg] * 16, from GPRs DataReg & 0x3C.. (or, with SingleDataReg, bit 22,
        from GPR DataReg alone at byte (DataReg & 3) * 4, zeros elsewhere). Nothing is
        written back to the GPRs."""
        regs = self._regs(t)
        addr = (regs[AddrRegIndex] * 16) & 0xFFFFFFFF
        self._check_l1(t, "ATSWAP", addr)
        if (raw_word(t) >> 22) & 1:
            data = regs[DataRegIndex] << (32 * (DataRegIndex & 3))
        else:
            base = DataRegIndex & 0x3C
            data = sum(regs[base + k] << (32 * k) for k in range(4))
        for i in range(8):
            if (SwapMask >> i) & 1:
                self._l1_write(addr + 2 * i, data >> (16 * i), 2)

    @_scalar
    def ATCAS(self, t, AddrRegIndex, DataRegIndex, Sel32b, CmpVal, SwapVal, MemHierSel):
        """ATCAS.md: wait until the 32-bit word at GPR[AddrReg] * 16 + Ofs * 4 equals
        CmpVal, then set it to SetVal (the unit stays busy while it retries)."""
        addr = (self._regs(t)[AddrRegIndex] * 16 + Sel32b * 4) & 0xFFFFFFFF
        self._check_l1(t, "ATCAS", addr)
        old = self._l1_read(addr, 4)
        if old != CmpVal:
            return self._occupy(t, f"ATCAS: L1[0x{addr:x}] = 0x{old:x}, not {CmpVal}")
        self._l1_write(addr, SwapVal, 4)
        self._release(t)
        return None

    @_scalar
    def ATINCGET(self, t, AddrRegIndex, DataRegIndex, Sel32b, WrapVal, MemHierSel):
        """ATINCGET.md: atomically add GPR[InOutReg] to the low IntWidth+1 bits of the
        word at GPR[AddrReg] * 16 + Ofs * 4 (upper bits kept); the GPR gets the
        original word."""
        regs = self._regs(t)
        addr = (regs[AddrRegIndex] * 16 + Sel32b * 4) & 0xFFFFFFFF
        self._check_l1(t, "ATINCGET", addr)
        mask = ((2 << WrapVal) - 1) & 0xFFFFFFFF
        old = self._l1_read(addr, 4)
        inc = (old + regs[DataRegIndex]) & 0xFFFFFFFF
        self._l1_write(addr, (inc & mask) | (old & ~mask & 0xFFFFFFFF), 4)
        regs[DataRegIndex] = old

    @_scalar
    def ATINCGETPTR(self, t, AddrRegIndex, DataRegIndex, Sel32b, WrapVal, IncrVal, NoIncr, MemHierSel):
        """ATINCGETPTR.md: FIFO {Rd, Wr} at GPR[AddrReg] * 16. Odd Ofs waits while the
        FIFO is full (capacity 2**(IntWidth-1), 0x8000 for IntWidth 0), even Ofs while it
        is empty; then Words[Ofs] += (!NoIncr) << IncrLog2 within IntMask = 2**IntWidth-1,
        and the GPR gets the original word."""
        regs = self._regs(t)
        addr = (regs[AddrRegIndex] * 16) & 0xFFFFFFFF
        self._check_l1(t, "ATINCGETPTR", addr)
        rd, wr = self._l1_read(addr, 4), self._l1_read(addr + 4, 4)
        size = (wr - rd) & 0xFFFFFFFF
        if Sel32b & 1:
            capacity = (1 << (WrapVal - 1)) if WrapVal else 0x8000
            if size % capacity == 0 and size != 0:
                return self._occupy(t, f"ATINCGETPTR: FIFO at 0x{addr:x} full (Rd {rd}, Wr {wr})")
        elif size == 0:
            return self._occupy(t, f"ATINCGETPTR: FIFO at 0x{addr:x} empty (Rd {rd}, Wr {wr})")
        mask = (1 << WrapVal) - 1
        a = addr + 4 * Sel32b
        old = self._l1_read(a, 4)
        inc = (old + ((0 if NoIncr else 1) << IncrVal)) & 0xFFFFFFFF
        self._l1_write(a, (inc & mask) | (old & ~mask & 0xFFFFFFFF), 4)
        regs[DataRegIndex] = old
        self._release(t)
        return None

    # -- REG2FLOP ----------------------------------------------------------------------
    @_scalar
    def REG2FLOP(self, t, RegIndex, FlopIndex, ContextId_2, ByteOffset, TargetSel, SizeSel):
        """REG2FLOP.md: bits 20..21 = 0 -> REG2FLOP_Configuration.md; bit 21 set ->
        REG2FLOP_ADC.md (bit 20 OverrideThread). TargetSel 1 has no page: undefined."""
        if TargetSel == 0:
            return self._reg2flop_cfg(t, RegIndex, FlopIndex, SizeSel)
        if TargetSel == 1:
            raise Unimplemented(f"t{t.index} REG2FLOP: bits 21..20 = 01 select no documented form "
                                "(REG2FLOP.md documents 00 and 1x)")
        return self._reg2flop_adc(t, RegIndex, FlopIndex, ContextId_2, ByteOffset, TargetSel & 1, SizeSel)

    def _reg2flop_cfg(self, t, InputReg, ThConCfgIndex, SizeSel):
        """REG2FLOP_Configuration.md: Config[StateID][THCON_CFGREG_BASE_ADDR32 + index]
        (32 bits, or 128 bits from four GPRs for SizeSel 0); only THCON_ words."""
        cfg = self.cop.config
        thcon = cfg.fields["THCON_SEC0_REG0_TileDescriptor"][0]  # THCON_CFGREG_BASE_ADDR32
        if ThConCfgIndex >= cfg.global_base - thcon:
            self.cop.undefined("REG2FLOP Config not THCON_",
                               f"configuration index {ThConCfgIndex} >= {cfg.global_base - thcon} is not a THCON_ "
                               "word (REG2FLOP_Configuration.md: undefined); ttemu writes it as the page's "
                               "model does (like WRCFG)")
        bank = cfg.bank_of(t.index)
        regs = self._regs(t)
        if SizeSel == 0:
            for k in range(4):
                cfg.write_word(bank, thcon + (ThConCfgIndex & ~3) + k, regs[(InputReg & ~3) + k])
        else:
            cfg.write_word(bank, thcon + ThConCfgIndex, regs[InputReg])

    def _reg2flop_adc(self, t, InputReg, flop, ThreadSel, Shift8, OverrideThread, SizeSel):
        """REG2FLOP_ADC.md: XYZW, Cr, ADCSel and Channel are FlopIndex bits 0-1, 2, 3-4, 5."""
        value = self._regs(t)[InputReg]
        if SizeSel == 0:  # 128 bit: not valid
            value = 0
        elif SizeSel == 1:
            if Shift8:
                value = 0
        elif SizeSel == 2:
            value = value & 0xFFFF if Shift8 == 0 else value >> 16 if Shift8 == 2 else 0
        else:
            value = (value >> (8 * Shift8)) & 0xFF
        thread = t.index
        if OverrideThread:
            thread = ThreadSel
            if thread >= 3:
                return
        xyzw, cr, adc, channel = flop & 3, (flop >> 2) & 1, (flop >> 3) & 3, (flop >> 5) & 1
        if adc == 3:
            return
        name = "XYZW"[xyzw] + ("_Cr" if cr else "")
        self.cop.adcs.channel(thread, adc, channel).set(name, value)
