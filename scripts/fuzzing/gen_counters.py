"""Address counters: ADDR_MOD slots (SETC16; Wormhole's ADDR_MOD_SET_Base and bias
slots 4-7, Blackhole's eight), RWCs (SETRWC, INCRWC, the carriage-return forms) and the
packer's ADCs (SETADC, SETADCXY / ZW / XX, INCADCXY / ZW, ADDRCRXY / ZW) with
ADDR_MOD_PACK.

Probes show where the counters point: an SFPSTORE of a probe number (a uniform LReg[0])
at ``RWC.Dst + Imm + MATH_Offset`` with a random address mode (which then applies its
slot: RWCs.md ApplyAddrMod), and a PACR of one Dst row range at the ADC channel-0
position into its own L1 slot, with a random ADDR_MOD_PACK slot. Results: all of Dst
(512 32-bit rows, written whole with zeros first) and the PACR slots.

Kept inside what ttsim accepts: even Dst rows (SFPSTORE's row), no CToCR together with
Clear or CR, bias increments of 0 or 1 without clears, SETRWC CR only with its BitMask
bit, INCRWC CR only for Dst; the packer's channel-0 X at 0, channel 1 only X (the
count: a power of two up to 256 on Wormhole, 16 on Blackhole).
"""

from __future__ import annotations

from . import scaffold
from .program import OUTPUT_BASE, Builder, op_program

WH = "wormhole_b0"
PROBE_BASE = OUTPUT_BASE + 8 * scaffold.TILE_BYTES
PROBE_BYTES = 1024  # room for 256 datums of 4 bytes


class CountersGen:
    def __init__(self, b: Builder, rng, allow):
        self.b = b
        self.rng = rng
        self.wh = b.arch == WH
        self.slots = 8 if not self.wh else 4
        self.probes = 0
        self.pacrs = 0

    def r(self, n):
        return int(self.rng.integers(0, n))

    # -- configuration ---------------------------------------------------------------
    def addr_mod(self, slot):
        """Random contents for ADDR_MOD slot ``slot`` (0..7: Wormhole's 4..7 are the
        second set, reached with ADDR_MOD_SET_Base or the bias)."""
        b = self.b
        tf = b.thread_fields
        ab = tf[f"ADDR_MOD_AB_SEC{slot}_SrcAIncr"][0]
        dst = tf[f"ADDR_MOD_DST_SEC{slot}_DestIncr"][0]
        src = self.r(64) | self.r(2) << 6 | self.r(2) << 7
        srcb = self.r(64) | self.r(2) << 6 | self.r(2) << 7
        incr = 2 * self.r(512) if self.rng.random() < 0.7 else 2 * self.r(8)
        mode = self.r(4)  # 0 plain, 1 CR, 2 Clear, 3 CToCR
        d = incr | (1 << 10 if mode == 1 else 0) | (1 << 11 if mode == 2 else 0) | (1 << 12 if mode == 3 else 0)
        d |= self.r(4) << 13 | (self.r(2) << 15 if self.rng.random() < 0.2 else 0)  # fidelity incr / clear
        with b.unit(f"ADDR_MOD {slot}"):
            b.push("SETC16", setc16_reg=ab, setc16_value=src | srcb << 8)
            b.push("SETC16", setc16_reg=dst, setc16_value=d)
            if self.wh:
                bias = tf[f"ADDR_MOD_BIAS_SEC{slot}_BiasIncr"][0]
                b.push("SETC16", setc16_reg=bias, setc16_value=1 if self.rng.random() < 0.15 else 0)

    def pack_mod(self, slot):
        b = self.b
        reg = b.thread_fields["ADDR_MOD_PACK_SEC0_YsrcIncr"][0] + slot
        v = self.r(16) | self.r(2) << 4 | self.r(2) << 5 | self.r(2) << 12 | self.r(2) << 13
        with b.unit(f"ADDR_MOD_PACK {slot}"):
            b.push("SETC16", setc16_reg=reg, setc16_value=v)

    # -- operations ------------------------------------------------------------------
    def op(self):
        k = self.rng.random()
        b = self.b
        if k < 0.15:
            self.addr_mod(self.r(8))
        elif k < 0.22:
            self.pack_mod(self.r(4))
        elif k < 0.35:
            mask = self.r(16)
            cr = self.r(8) & (mask | 4)  # CR bits only with their BitMask bit (Dst: BitMask 4 too)
            if cr & 4 and not mask & 4:
                cr &= 3
            with b.unit(f"SETRWC cr={cr}"):
                b.push("SETRWC", BitMask=mask, rwc_a=self.r(16), rwc_b=self.r(16), rwc_d=2 * self.r(8), rwc_cr=cr)
        elif k < 0.45:
            with b.unit("INCRWC"):
                b.push("INCRWC", rwc_a=self.r(16), rwc_b=self.r(16), rwc_d=2 * self.r(8), rwc_cr=4 * self.r(2))
        elif k < 0.52 and self.wh:
            with b.unit("ADDR_MOD_SET_Base"):
                b.push("SETC16", setc16_reg=b.thread_fields["ADDR_MOD_SET_Base"][0], setc16_value=self.r(2))
        elif k < 0.55:
            with b.unit("MATH_Offset"):
                b.push("SETC16", setc16_reg=b.thread_fields["DEST_TARGET_REG_CFG_MATH_Offset"][0],
                       setc16_value=2 * self.r(64))
        elif k < 0.75:
            self.store_probe()
        elif k < 0.88:
            self.adc_op()
        else:
            self.pack_probe()

    def store_probe(self):
        b = self.b
        self.probes += 1
        modes = 4 if self.wh else 8
        with b.unit("SFPSTORE probe"):
            b.push("SFPLOADI", lreg_ind=0, instr_mod0=2, imm16=self.probes)
            b.push("SFPSTORE", lreg_ind=0, instr_mod0=4, sfpu_addr_mode=self.r(modes), dest_reg_addr=2 * self.r(64))

    def adc_op(self):
        b = self.b
        k = self.r(6)
        y, z = self.r(8), self.r(4)
        if k == 0:
            with b.unit("SETADC"):
                dim = self.r(2)  # Y or Z of channel 0
                b.push("SETADC", CntSetMask=scaffold.PACK_ADC, ChannelIndex=0, DimensionIndex=1 + dim,
                       Value=self.r(24) if dim == 0 else self.r(3))
        elif k == 1:
            with b.unit("SETADCXY"):
                b.push("SETADCXY", CntSetMask=scaffold.PACK_ADC, Ch0_Y=y, BitMask=0b0010)
        elif k == 2:
            with b.unit("SETADCZW"):
                b.push("SETADCZW", CntSetMask=scaffold.PACK_ADC, Ch0_X=z, BitMask=0b0001)
        elif k == 3:
            with b.unit("INCADCXY"):
                b.push("INCADCXY", CntSetMask=scaffold.PACK_ADC, Ch0_Y=self.r(4))
        elif k == 4:
            with b.unit("INCADCZW"):
                b.push("INCADCZW", CntSetMask=scaffold.PACK_ADC, Ch0_X=self.r(2))
        else:
            m = self.r(2)
            with b.unit("ADDRCRXY" if m == 0 else "ADDRCRZW"):
                if m == 0:
                    b.push("ADDRCRXY", CntSetMask=scaffold.PACK_ADC, Ch0_Y=self.r(4), BitMask=0b0010)
                else:
                    b.push("ADDRCRZW", CntSetMask=scaffold.PACK_ADC, Ch0_X=self.r(2), BitMask=0b0001)

    def pack_probe(self):
        b = self.b
        n = self.pacrs
        self.pacrs += 1
        addr = PROBE_BASE + PROBE_BYTES * n
        count = 16 * (1 << self.r(5)) if self.wh else 16
        with b.unit("PACR probe"):
            b.cfg(THCON_SEC0_REG1_L1_Dest_addr=(addr >> 4) - 1 if self.wh else (1 << 31) | ((addr >> 4) - 1))
            b.push("SETADCXX", CntSetMask=scaffold.PACK_ADC, x_start=0, x_end2=count - 1)
            if self.wh:
                b.push("PACR", AddrMode=self.r(4), PackSel=1, Last=1)
            else:
                b.push("PACR", AddrMode=self.r(4), ReadIntfSel=1, Last=1)

    # -- program ---------------------------------------------------------------------
    def prologue(self):
        b = self.b
        b.push("SFPENCC", instr_mod1=10, imm12_math=0)
        for a in range(0, 512, 2):  # every 32-bit Dst row, both column halves
            b.push("SFPSTORE", lreg_ind=9, instr_mod0=4, dest_reg_addr=a)
        scaffold.pack_setup(b)
        b.push("SETRWC", BitMask=0xF)

    def epilogue(self):
        b = self.b
        b.push("SETC16", setc16_reg=b.thread_fields["DEST_TARGET_REG_CFG_MATH_Offset"][0], setc16_value=0)
        scaffold.pack_setup(b)  # the readback's ADCs and ADDR_MOD_PACK slots again
        scaffold.pack_tiles(b, OUTPUT_BASE, 8)
        b.output("dst", OUTPUT_BASE, 8 * scaffold.TILE_BYTES, 4, scaffold.dst_label())
        if self.pacrs:
            b.output("pacr", PROBE_BASE, PROBE_BYTES * self.pacrs, 4,
                     lambda i: f"PACR probe {i // (PROBE_BYTES // 4)} datum {i % (PROBE_BYTES // 4)}")


def generate(arch: str, seed: int, allow=frozenset()):
    return op_program(arch, "counters", seed, 13, 1, CountersGen, allow, (6, 40))
