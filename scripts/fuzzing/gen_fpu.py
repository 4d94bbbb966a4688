"""Matrix Unit (FPU) programs: ELWADD, ELWSUB, ELWMUL, MVMUL, GAPOOL, GMPOOL, MOVA2D,
MOVB2D and ZEROACC with fidelity phases, address modifiers and RWCs, on Src data
unpacked from L1 (Float16_b, Float16, or Float32 as TF32) into a 16- or 32-bit Dst.

One thread (T0, the unpack thread: UNPACR in MultiContextMode takes its XY counters from
ADCs[ContextADC], thread 0's, UNPACR_Regular.md) does it all: it configures the unpackers (scaffold.unpack_setup, tt-llk's
configure_unpack_AB), unpacks a tile into SrcA and one into SrcB (SetDatValid hands
both banks to the Matrix Unit), then runs random groups: Matrix Unit instructions with
random Dst rows, address modes and fidelity, reprogrammed ADDR_MOD slots, SETRWC /
INCRWC, the Dst offset, ZEROACC of a row, 16 rows, a half or all of Dst, and fresh
operands (SETRWC hands the banks back, two more UNPACRs). All of Dst (ZEROACC'd
first: the Matrix Unit and the packer read undefined rows as zero, ZEROACC.md) is
packed at the end.

ttsim's limits (tensix.cpp) kept: SrcA rows multiples of 16, SrcB and Dst rows of 8
(4 for GAPOOL / GMPOOL / MOVB2D's four rows), MVMUL / ELW* without broadcast flags
where it refuses them, GAPOOL / GMPOOL with instr_mod19 1, GMPOOL only on an all-1.0
SrcB, ELWADD / ELWSUB at fidelity phase 0, ELWMUL without dest_accum_en, FP16 in both
Src or neither, no CToCR with Clear / CR. DOTPV is not generated: ttsim refuses it
(firmware/matmul_dotpv checks it against numpy instead).
"""

from __future__ import annotations

import numpy as np

from . import data, scaffold
from .program import INPUT_BASE, OUTPUT_BASE, Builder, op_program

WH = "wormhole_b0"
FP32, FP16, BF16, TF32 = 0, 1, 5, 4
TILE_DATUMS = 1024


def fp16_patterns(rng, n):
    """FP16 bit patterns: ordinary exponents, zeros / denormals, the top exponents."""
    sign = rng.integers(0, 2, n)
    exp = 15 + rng.integers(-4, 5, n)
    kind = rng.random(n)
    exp = np.where(kind < 0.25, rng.integers(1, 31, n), exp)
    exp = np.where(kind > 0.95, 0, exp)
    exp = np.where((kind > 0.9) & (kind <= 0.95), 31 - rng.integers(0, 3, n), exp)
    man = rng.integers(0, 1 << 10, n)
    man = np.where(rng.random(n) < 0.1, 0, man)
    return ((sign << 15) | (exp << 10) | man).astype(np.uint16)


def tile_bytes(rng, fmt, ones=False, like=None):
    """A tile of ``fmt`` (the L1 format) as bytes; ``like``: another tile's values to
    cancel or square against in a tenth of the datums."""
    if fmt == FP16:
        v = fp16_patterns(rng, TILE_DATUMS)
        if ones:
            v[:] = 0x3C00
    else:
        f = data.floats(rng, TILE_DATUMS)
        if ones:
            f[:] = 0x3F800000
        v = (f >> 16).astype(np.uint16) if fmt == BF16 else f
    if like is not None and not ones:
        other = np.frombuffer(like, v.dtype).copy()
        pick = rng.random(TILE_DATUMS) < 0.1
        sign = np.array(0x8000 if v.dtype == np.uint16 else 0x80000000, dtype=v.dtype)
        v[pick] = np.where(rng.random(pick.sum()) < 0.5, other[pick] ^ sign, other[pick])
    return v.tobytes()


class FpuGen:
    def __init__(self, b: Builder, rng, allow):
        self.b = b
        self.rng = rng
        self.allow = allow
        self.wh = b.arch == WH
        self.slots = 4 if self.wh else 8
        k = int(rng.integers(0, 3 if "fpu-mixed-src-styles" not in allow else 5))
        self.l1 = [(BF16, BF16), (FP16, FP16), (FP32, FP32), (FP32, BF16), (BF16, FP32)][k]
        self.src = tuple(TF32 if f == FP32 else f for f in self.l1)
        self.dst32 = bool(rng.random() < 0.6)
        self.dst16_fmt = FP16 if self.src[0] == FP16 else BF16
        if self.src[0] != self.src[1]:
            b.prog.tags.add("fpu-mixed-src-styles")
        self.ones_b = bool(rng.random() < 0.3)  # SrcB all 1.0: GMPOOL allowed
        self.tiles = 0
        # RWC.Dst (and its carriage return), the slots' Dst fields and MATH_Offset, as
        # ttsim's math_update_rwc does it: ELW* rows must stay below 1024 (ttsim refuses,
        # where the page's 10-bit row wraps), so the generator keeps track
        self.d = self.d_cr = 0
        self.slot_dst = {}
        self.offset = 0

    def r(self, n):
        return int(self.rng.integers(0, n))

    # -- operands --------------------------------------------------------------------
    def operands(self):
        """Two new tiles in L1 and the UNPACRs moving them to SrcA and SrcB."""
        b = self.b
        n = self.tiles
        self.tiles += 1
        a_addr = INPUT_BASE + 0x2000 * n
        b_addr = a_addr + 0x1000
        a = tile_bytes(self.rng, self.l1[0])
        bt = tile_bytes(self.rng, self.l1[1], ones=self.ones_b, like=a if self.l1[0] == self.l1[1] else None)
        b.input(a_addr, a)
        b.input(b_addr, bt)
        scaffold.unpack_tile(b, 0, a_addr)
        scaffold.unpack_tile(b, 1, b_addr)

    # -- configuration -------------------------------------------------------------
    def addr_mod(self, slot):
        b = self.b
        tf = b.thread_fields
        ab = 16 * self.r(4) | self.r(2) << 6 | self.r(2) << 7 | (8 * self.r(8)) << 8 | self.r(2) << 14 | self.r(2) << 15
        mode = self.r(4)
        d = 8 * self.r(16) if self.rng.random() < 0.8 else 8 * self.r(128)
        d |= (1 << 10 if mode == 1 else 0) | (1 << 11 if mode == 2 else 0) | (1 << 12 if mode == 3 else 0)
        d |= self.r(4) << 13 | (self.r(2) << 15 if self.rng.random() < 0.3 else 0)
        with b.unit(f"ADDR_MOD {slot}"):
            b.push("SETC16", setc16_reg=tf[f"ADDR_MOD_AB_SEC{slot}_SrcAIncr"][0], setc16_value=ab)
            b.push("SETC16", setc16_reg=tf[f"ADDR_MOD_DST_SEC{slot}_DestIncr"][0], setc16_value=d)
        self.slot_dst[slot] = d

    # -- operations ------------------------------------------------------------------
    def op(self):
        b = self.b
        k = self.rng.random()
        am = self.r(self.slots)
        if k < 0.14:
            mnem = ("ELWADD", "ELWSUB")[self.r(2)]
            with b.unit(mnem):
                self.fidelity_zero()
                self.math(mnem, am, dict(instr_mod19=self.r(4), dest_accum_en=self.r(2), clear_dvalid=0))
        elif k < 0.26:
            with b.unit("ELWMUL"):
                self.math("ELWMUL", am, dict(instr_mod19=self.r(4), dest_accum_en=0, clear_dvalid=0))
        elif k < 0.46:
            with b.unit("MVMUL"):
                self.math("MVMUL", am, dict(instr_mod19=0, clear_dvalid=0))
        elif k < 0.54:
            with b.unit("GAPOOL"):
                self.math("GAPOOL", am, dict(instr_mod19=1, clear_dvalid=0, max_pool_index_en=0), 4)
        elif k < 0.6 and self.ones_b and self.src[0] != FP16:
            with b.unit("GMPOOL"):
                self.math("GMPOOL", am, dict(instr_mod19=1, clear_dvalid=0, max_pool_index_en=0), 4)
        elif k < 0.66 and self.mixed_ok(self.src[0] == TF32):
            with b.unit("MOVA2D") as g:
                self.math("MOVA2D", am, dict(instr_mod=2, src=0, dest_32b_lo=0))
                self.mixed_tag(g, self.src[0] == TF32)
        elif k < 0.7 and self.mixed_ok(self.src[1] == TF32):
            mod = 2 + self.r(4)
            with b.unit(f"MOVB2D/{mod}") as g:
                self.math("MOVB2D", am, dict(instr_mod=mod, src=0, dest_32b_lo=0), 8 if mod & 2 else 4)
                self.mixed_tag(g, self.src[1] == TF32)
        elif k < 0.76:
            self.zeroacc()
        elif k < 0.84:
            self.addr_mod(self.r(self.slots))
        elif k < 0.9:
            with b.unit("SETRWC"):
                mask = self.r(16)
                cr = self.r(8) & mask
                rd = 8 * self.r(2)
                b.push("SETRWC", BitMask=mask, rwc_a=0, rwc_b=8 * self.r(2), rwc_d=rd, rwc_cr=cr)
                if mask & 4:
                    self.d = self.d_cr = ((self.d_cr + rd) if cr & 4 else rd) & 1023
        elif k < 0.93:
            with b.unit("INCRWC"):
                rd, cr = 8 * self.r(2), 4 * self.r(2)
                b.push("INCRWC", rwc_a=0, rwc_b=8 * self.r(2), rwc_d=rd, rwc_cr=cr)
                if cr:
                    self.d = self.d_cr = (self.d_cr + rd) & 1023
                else:
                    self.d = (self.d + rd) & 1023
        elif k < 0.95:
            with b.unit("MATH_Offset"):
                self.offset = 8 * self.r(32)
                b.push("SETC16", setc16_reg=b.thread_fields["DEST_TARGET_REG_CFG_MATH_Offset"][0],
                       setc16_value=self.offset)
        elif k < 0.97 and self.wh:
            with b.unit("FIDELITY_BASE"):
                b.push("SETC16", setc16_reg=b.thread_fields["FIDELITY_BASE_Phase"][0], setc16_value=self.r(4))
        else:
            with b.unit("new operands"):
                b.push("SETRWC", clear_ab_vld=3, BitMask=0)
                self.operands()

    def dst_row(self, align=8):
        """A DstRow field keeping RWC.Dst + DstRow + MATH_Offset below 1024 (None: it
        cannot be, reset RWC.Dst first)."""
        room = 1024 - 8 - self.d - self.offset
        if room < 0:
            return None
        return align * self.r(min(room // align, 255 if align == 4 else 127) + 1)

    def apply(self, slot):
        """RWC.Dst after an instruction applied ADDR_MOD ``slot`` (RWCs.md ApplyAddrMod)."""
        v = self.slot_dst.get(slot, 0)
        incr, cr, clr, c2cr = v & 0x3FF, v >> 10 & 1, v >> 11 & 1, v >> 12 & 1
        if c2cr:
            self.d = (self.d + incr) & 1023
            self.d_cr = self.d
        elif clr:
            self.d = self.d_cr = 0
        elif cr:
            self.d = self.d_cr = (self.d_cr + incr) & 1023
        else:
            self.d = (self.d + incr) & 1023

    def math(self, mnem, am, fields, align=8):
        """One Matrix Unit instruction with a Dst row that stays in range."""
        b = self.b
        dst = self.dst_row(align)
        if dst is None:
            b.push("SETRWC", BitMask=4, rwc_d=0)
            self.d = self.d_cr = 0
            dst = self.dst_row(align)
        fields["dst"] = dst
        b.push(mnem, **self.am(mnem, am, fields))
        self.apply(am)

    def am(self, mnem, slot, fields):
        """The instruction's address-mode field (its name and width differ by arch)."""
        spec = self.b.table.by_mnemonic[mnem]
        names = {f.name: f for f in spec.fields}
        for name in ("addr_mode", "pool_addr_mode", "AddrMode"):
            if name in names:
                fields[name] = slot & names[name].mask
                break
        if "movb2d_instr_mod" in names:
            fields["movb2d_instr_mod"] = fields.pop("instr_mod")
        return {k: v for k, v in fields.items() if k in names}

    def mixed_ok(self, writes32) -> bool:
        """Whether an instruction writing Dst32b (``writes32``) or Dst16b rows may be
        generated: one view per program unless class dst-undefined-halves is let in."""
        return writes32 == self.dst32 or "dst-undefined-halves" in self.allow

    def mixed_tag(self, g, writes32):
        if writes32 != self.dst32:
            self.b.prog.group_features.setdefault(g, set()).add("dst-undefined-halves")

    def fidelity_zero(self):
        """ELWADD / ELWSUB need fidelity phase 0 (ttsim refuses others): reset the RWC's
        phase (SETRWC BitMask 8) and, on Wormhole, FIDELITY_BASE_Phase."""
        b = self.b
        b.push("SETRWC", BitMask=8)
        if self.wh:
            b.push("SETC16", setc16_reg=b.thread_fields["FIDELITY_BASE_Phase"][0], setc16_value=0)

    def zeroacc(self):
        """ZEROACC.md's modes as ttsim models them: one row (Dst16b, or Dst32b with a 32-bit
        Dst), 16 rows of Dst16b (Blackhole also of Dst32b), half, all. The one-row and
        16-row forms depend on RWC.Dst, so the group zeroes it first."""
        b = self.b
        modes = (0, 1, 2, 3, 6, 7) if self.wh else (0, 1, 2, 3, 5, 6, 7)
        # 16-row modes: mode 1 marks Dst16b rows, Blackhole's 5 Dst32b rows (one view
        # per program, see mixed_ok)
        modes = [m for m in modes if m not in (1, 5) or self.mixed_ok(m == 5)]
        mode = int(self.rng.choice(modes))
        if mode == 0:
            where = self.r(512)
        elif mode in (1, 5):
            where = self.r(32)
        elif mode in (2, 6):
            where = self.r(2)
        else:
            where = 0
        with b.unit(f"ZEROACC mode {mode}") as g:
            if mode in (1, 5):
                self.mixed_tag(g, mode == 5)
            if mode in (0, 1, 5):
                b.push("SETRWC", BitMask=4, rwc_d=0)
                self.d = self.d_cr = 0
            if self.wh:
                b.push("ZEROACC", clear_mode=mode, dst=where, AddrMode=0)
            else:
                b.push("ZEROACC", clear_mode=mode & 3, use_32_bit_mode=mode >> 2, where=where, addr_mode=0)
            if mode in (0, 1, 5):
                self.apply(0)

    # -- program ---------------------------------------------------------------------
    def prologue(self):
        b = self.b
        dstacc = FP32 if self.dst32 else self.dst16_fmt
        scaffold.alu_config(b, self.src[0], self.src[1], self.dst32, dstacc)
        scaffold.unpack_setup(b, 0, self.l1[0], self.src[0])
        scaffold.unpack_setup(b, 1, self.l1[1], self.src[1])
        if self.wh:
            b.push("ZEROACC", clear_mode=3, dst=0)
        else:
            b.push("ZEROACC", clear_mode=3, use_32_bit_mode=int(self.dst32))
        for slot in range(self.slots):
            self.addr_mod_plain(slot)
        b.push("SETRWC", BitMask=0xF)
        self.operands()

    def addr_mod_plain(self, slot):
        b = self.b
        tf = b.thread_fields
        b.push("SETC16", setc16_reg=tf[f"ADDR_MOD_AB_SEC{slot}_SrcAIncr"][0],
               setc16_value=16 * self.r(4) | (8 * self.r(8)) << 8)
        d = 8 * self.r(16) | self.r(4) << 13
        b.push("SETC16", setc16_reg=tf[f"ADDR_MOD_DST_SEC{slot}_DestIncr"][0], setc16_value=d)
        self.slot_dst[slot] = d

    def epilogue(self):
        b = self.b
        b.push("SETC16", setc16_reg=b.thread_fields["DEST_TARGET_REG_CFG_MATH_Offset"][0], setc16_value=0)
        fmt = FP32 if self.dst32 else self.dst16_fmt
        bpd = 4 if self.dst32 else 2
        scaffold.pack_setup(b, fmt, fmt, self.dst32)
        ntiles = 8 if self.dst32 else 16
        scaffold.pack_tiles(b, OUTPUT_BASE, ntiles, bpd=bpd)
        b.output("dst", OUTPUT_BASE, ntiles * 1024 * bpd, bpd, scaffold.dst_label(bpd))


def generate(arch: str, seed: int, allow=frozenset()):
    return op_program(arch, "fpu", seed, 19, 0, FpuGen, allow, (4, 30))
