"""Vector Unit (SFPU) programs: every SFP* instruction in the forms the pages define
and ttsim's model accepts, on both arches.

Layout of a program (one Tensix thread, T0: its unpacks take thread 0's ADCs, see
classes.py unpack-context-adc):

- prologue (scaffolding): the predication state made known (SFPENCC: lanes
  unconditional); LReg[11..14] given values with SFPCONFIG (unless the reset-value
  classes are let in); Dst rows 0..191 unpacked from L1 as Float32 (the result slots
  zero, a scratch area of edge-case data, and LReg[0..7]'s data, which SFPLOADs take):
  every Dst row the program reads is written whole (no ZEROACC: ZEROACC.md makes an
  SFPLOAD of an undefined row, and an SFPSTORE to some columns of one, undefined
  behaviour).
- body: 4..40 random instructions, each its own droppable group, with the SFPNOPs the
  pages' "Instruction scheduling" sections require right after the producer (so that
  dropping groups never breaks a rule): MAD-latency results (SFPMAD.md ...), SFPSHFT2,
  SFPCONFIG. SFPLOAD / SFPSTORE use a scratch area of Dst (32-bit rows 64..127).
- epilogue (scaffolding): the lanes enabled at the end (LReg[10], 1.0, stored under the
  body's predication), then LReg[0..7] (and the programmable constants) stored with all
  lanes enabled, raw (SFPSTORE MOD0_FMT_INT32), and Dst rows 0..127 packed as FP32.

What ttsim refuses (its tensix.cpp ``TTSIM_VERIFY``s) is kept out: VD >= 12 outside
SFPCONFIG (instruction-template loads), SFPLOADMACRO, SFPSETCC / SFPCOMPC without
condition codes enabled, SFPCONFIG with lanes disabled or a non-uniform LReg[0], modes
it does not model (e.g. stochastic rounding, SFPSHFT2 Mod1 0-2, SFPLUT Mod0 != 4).
"""

from __future__ import annotations

import numpy as np

from . import data, scaffold
from .program import INPUT_BASE, OUTPUT_BASE, Builder

WH = "wormhole_b0"
MAD = ("SFPMAD", "SFPADD", "SFPMUL", "SFPADDI", "SFPMULI", "SFPLUT", "SFPLUTFP32")
SCRATCH_ROW = 64  # first 32-bit Dst row of the scratch area (tile 1)
SLOT_LANES = 8  # epilogue slot of the lane-enable capture
CONST_SLOTS = {11: 9, 12: 10, 13: 11, 14: 12}
STACK_DEPTH = 8
LOAD32 = (3, 4, 12)  # FP32, INT32, INT32_SM (SFPLOAD.md) reading 32-bit Dst rows
LOAD16 = (2, 6, 14, 15)  # BF16, UINT16, LO16_ONLY, HI16_ONLY
STORE32 = (3, 4, 7, 9, 12)
STORE16 = (2, 6, 14, 15)


def slot_addr(slot: int) -> int:
    """Dst address of result slot ``slot``: rows 4 * (slot // 2), even / odd columns."""
    return 4 * (slot // 2) + 2 * (slot & 1)


class SfpuGen:
    def __init__(self, b: Builder, rng, allow: frozenset):
        self.b = b
        self.rng = rng
        self.arch = b.arch
        self.wh = b.arch == WH
        self.allow = allow
        self.cc_en = None  # condition codes enabled (None: not known, after reset)
        self.stack = []  # cc_en of each SFPPUSHC
        self.consts_set = False  # LReg[11..14] written by SFPCONFIG
        self.stoch_seen = False  # an SFP_STOCH_RND was generated
        self.view = rng.choice(["32", "16", "mixed"])

    # -- helpers -----------------------------------------------------------------------
    def r(self, *choices):
        return choices[int(self.rng.integers(len(choices)))]

    def dst(self):
        return int(self.rng.integers(0, 8))

    def src(self):
        """A source LReg: 0..7 mostly, the constants sometimes (11..14 once written)."""
        k = self.rng.random()
        if k < 0.85:
            return int(self.rng.integers(0, 8))
        consts = [8, 9, 10, 15]
        if self.consts_set or "lreg12-reset" in self.allow:
            consts += [11, 12, 13, 14]
        return int(self.r(*consts))

    def features_of_reads(self, regs):
        if not self.consts_set and 12 in regs:
            return {"lreg12-reset"}
        return set()

    def emit(self, mnemonic, nop_after=False, features=(), extra_bits=0, **fields):
        b = self.b
        mod = fields.get("instr_mod1", fields.get("instr_mod0"))
        with b.unit(mnemonic if mod is None else f"{mnemonic}/{mod}") as g:
            word = b.table.encode(mnemonic, **fields) | extra_bits
            args = " ".join(f"{k}={v}" for k, v in fields.items())
            b.push_word(word, f"{mnemonic} {args}".rstrip())
            if nop_after:
                b.push("SFPNOP")
        b.prog.group_features[g] = set(features)
        return g

    # -- prologue / epilogue -----------------------------------------------------------
    def prologue(self):
        b = self.b
        if "reset-unconditional" not in self.allow or self.rng.random() < 0.8:
            b.push("SFPENCC", instr_mod1=10, imm12_math=0)  # lanes unconditional, flags clear
            self.cc_en = False
        else:
            b.prog.tags.add("reset-unconditional")
        if "lreg12-reset" not in self.allow or self.rng.random() < 0.7:
            if self.cc_en is None:
                b.push("SFPENCC", instr_mod1=10, imm12_math=0)
                self.cc_en = False
            for k in (11, 12, 13, 14):
                v = data.uniform_value(self.rng)
                b.push("SFPLOADI", lreg_ind=0, instr_mod0=8, imm16=v >> 16)
                b.push("SFPLOADI", lreg_ind=0, instr_mod0=10, imm16=v & 0xFFFF)
                b.push("SFPCONFIG", config_dest=k, instr_mod1=0)
                b.push("SFPNOP")
            self.consts_set = True
        # the PRNG seeded (BackendConfiguration.md: a write of PRNG_SEED_Seed_Val re-seeds
        # every lane's PRNG), SFPNOPs while it settles
        b.cfg(PRNG_SEED_Seed_Val=int(self.rng.integers(0, 1 << 32)))
        for _ in range(4):
            b.push("SFPNOP")
        self.fill()

    def fill(self):
        """Dst from L1, unpacked straight to Dst as Float32 (Unpackers/FormatConversion.md:
        Float32 into a 32-bit Dst keeps every bit, NaN payloads and denormals included;
        tests/test_pack_formats_ttsim.py): rows 0..63 zero (the result slots), rows
        64..127 edge-case data (the scratch area), rows 128..191 the data of LReg[0..7]
        (LReg r lane l at Dst32b row 128 + 4 r + l // 8, column 2 (l % 8)), which
        SFPLOADs (MOD0_FMT_INT32: raw bits) then take. Every Dst row the program reads is
        written whole."""
        b = self.b
        regs = []
        for r in range(8):
            kind = self.rng.random()
            regs.append(data.integers(self.rng, 32) if kind < 0.2 else data.mixed(self.rng, 32)
                        if kind < 0.4 else data.floats(self.rng, 32))
        self.regs = regs
        lanes = data.mixed(self.rng, 1024).reshape(64, 16)
        for r in range(8):
            for lane in range(32):
                lanes[4 * r + lane // 8, 2 * (lane % 8)] = regs[r][lane]
        tiles = [np.zeros(1024, np.uint32), data.mixed(self.rng, 1024), lanes.reshape(-1)]
        fp32 = scaffold.FP32
        scaffold.alu_config(b, fp32, fp32, True, fp32)
        scaffold.unpack_setup(b, 0, fp32, fp32, to_dst=True)
        for k, t in enumerate(tiles):
            addr = INPUT_BASE + 0x1000 * k
            b.input(addr, t.astype("<u4").tobytes())
            b.cfg(THCON_SEC0_REG5_Dest_cntx0_address=64 + 16 * 64 * k)
            scaffold.unpack_tile(b, 0, addr, flip=False)
        # the SFPLOADs wait for the unpacker (STALLWAIT: block the Vector Unit, B8, while
        # unpacker 0 is busy, C1)
        b.push("STALLWAIT", stall_res=1 << 8, wait_res=1 << 1)
        for r in range(8):
            b.push("SFPLOAD", lreg_ind=r, instr_mod0=4, dest_reg_addr=2 * SCRATCH_ROW + 4 * r)

    def epilogue(self):
        b = self.b
        b.push("SFPSTORE", lreg_ind=10, instr_mod0=4, dest_reg_addr=slot_addr(SLOT_LANES))
        b.push("SFPENCC", instr_mod1=10, imm12_math=0)
        for r in range(8):
            b.push("SFPSTORE", lreg_ind=r, instr_mod0=4, dest_reg_addr=slot_addr(r))
        if self.consts_set:
            b.push("SFPSTORE", lreg_ind=11, instr_mod0=4, dest_reg_addr=slot_addr(CONST_SLOTS[11]))
            for k in (12, 13, 14):
                b.push("SFPMOV", lreg_c=k, lreg_dest=0, instr_mod1=0)
                b.push("SFPSTORE", lreg_ind=0, instr_mod0=4, dest_reg_addr=slot_addr(CONST_SLOTS[k]))
        scaffold.pack_setup(b)
        scaffold.pack_tiles(b, OUTPUT_BASE, 2)

        dst = scaffold.dst_label()

        def label(i):
            if i < 1024:  # tile 0: the result slots
                face, rc = divmod(i, 256)
                dst_row, col = 16 * face + rc // 16, rc % 16
                slot = 2 * (dst_row // 4) + (col & 1)
                lane = 8 * (dst_row % 4) + col // 2
                what = {SLOT_LANES: "lanes enabled"}.get(slot)
                if what is None:
                    what = f"LReg[{slot}]" if slot < 8 else next(
                        (f"LReg[{k}]" for k, s in CONST_SLOTS.items() if s == slot), f"slot {slot}")
                return f"{what} lane {lane}"
            return dst(i)

        b.output("dst", OUTPUT_BASE, 2 * scaffold.TILE_BYTES, 4, label)
        regs = self.regs

        def explain(region, i):
            text = label(i)
            if " lane " not in text:
                return ""
            lane = int(text.rsplit(" ", 1)[1])
            return "inputs " + " ".join(f"L{r}=0x{int(regs[r][lane]):08x}" for r in range(8))

        b.prog.explain = explain

    # -- the body ------------------------------------------------------------------------
    def body(self, n):
        forms = self.forms()
        names = list(forms)
        weights = np.array([forms[k][1] for k in names], dtype=float)
        weights /= weights.sum()
        for _ in range(n):
            name = names[int(self.rng.choice(len(names), p=weights))]
            forms[name][0]()
        while self.stack:
            self.popc()

    def forms(self) -> dict:
        f = {
            "mad": (self.mad, 6), "lut": (self.lut, 1), "imm_mad": (self.imm_mad, 2),
            "iadd": (self.iadd, 3), "shft": (self.shft, 2), "bitwise": (self.bitwise, 3),
            "simple": (self.simple, 5), "exp_man": (self.exp_man, 4), "lz": (self.lz, 2),
            "cast": (self.cast, 2), "stoch": (self.stoch, 2), "swap": (self.swap, 2),
            "transp": (self.transp, 1), "shft2": (self.shft2, 2), "loadi": (self.loadi, 2),
            "cc": (self.cc, 6), "config": (self.config, 1), "ldst": (self.ldst, 4), "nop": (self.nop, 1),
            "prng": (self.prng, 1),
        }
        if not self.wh:
            f.update({"cmp": (self.cmp_bh, 2), "mul24": (self.mul24, 1), "arecip": (self.arecip, 1)})
        if self.wh and "wh-mad-family" not in self.allow:
            for k in ("mad", "lut", "imm_mad"):
                del f[k]
        return f

    def mad(self):
        m = self.r("SFPMAD", "SFPADD", "SFPMUL")
        mod = 0 if self.wh else int(self.rng.integers(0, 4 if m != "SFPMUL" else 2))
        a, bb, c = self.src(), self.src(), self.src()
        if m == "SFPADD":
            if self.rng.random() < 0.5:
                a = 10
            else:
                bb = 10
        elif m == "SFPMUL":
            c = 9
        self.emit(m, True, self.mad_features(m) | self.features_of_reads({a, bb, c}),
                  lreg_src_a=a, lreg_src_b=bb, lreg_src_c=c, lreg_dest=self.dst(), instr_mod1=mod)

    def mad_features(self, m):
        return {"wh-mad-family"} if self.wh else set()

    def lut(self):
        if self.rng.random() < 0.5:
            self.emit("SFPLUT", True, self.mad_features("SFPLUT"), lreg_ind=self.dst(), instr_mod0=4)
        else:
            self.emit("SFPLUTFP32", True, self.mad_features("SFPLUTFP32"), lreg_dest=self.dst(), instr_mod1=2)

    def imm_mad(self):
        m = self.r("SFPADDI", "SFPMULI")
        imm = int(data.floats(self.rng, 1)[0]) >> 16
        self.emit(m, True, self.mad_features(m), lreg_dest=self.dst(), imm16_math=imm, instr_mod1=0)

    def iadd(self):
        mod = self.r(0, 1, 2, 4, 5, 6, 8, 9, 10)
        imm = int(self.rng.integers(-2048, 2048)) & 0xFFF if mod & 1 else 0
        c = self.src()
        self.emit("SFPIADD", False, self.features_of_reads({c}), lreg_c=c, lreg_dest=self.dst(), instr_mod1=mod,
                  imm12_math=imm)

    def shft(self):
        mods = (0, 1) if self.wh else (0, 1, 2, 3, 5, 7)
        mod = self.r(*mods)
        imm = int(self.rng.integers(-40, 41)) & 0xFFF if mod & 1 else 0
        c = self.src()
        self.emit("SFPSHFT", False, self.features_of_reads({c}), lreg_c=c, lreg_dest=self.dst(), instr_mod1=mod,
                  imm12_math=imm)

    def bitwise(self):
        m = self.r("SFPAND", "SFPOR", "SFPXOR", "SFPNOT")
        mod, imm = 0, 0
        if not self.wh and m in ("SFPAND", "SFPOR") and self.rng.random() < 0.4:
            mod, imm = 1, self.src()  # Blackhole: VB from Imm12
        c = self.src()
        self.emit(m, False, self.features_of_reads({c, imm}), lreg_c=c, lreg_dest=self.dst(), instr_mod1=mod,
                  imm12_math=imm)

    def simple(self):
        m = self.r("SFPMOV", "SFPABS", "SFPSETSGN", "SFPDIVP2")
        c = self.src()
        feats = self.features_of_reads({c})
        extra = 0
        if m == "SFPMOV":
            mod, imm = self.r(0, 1, 2), 0
        elif m == "SFPABS":
            mod, imm = self.r(0, 1), 0
            if mod == 1:
                feats.add("sfpabs-float-minus-inf")
        elif m == "SFPSETSGN":
            mod = self.r(0, 1)
            imm = self.r(0, 1) if mod else 0
        else:
            mod = self.r(0, 1)
            v = int(self.rng.integers(-128, 128))
            imm = v & 0xFF
            extra = ((v & 0xFFF) >> 8) << 20  # Imm12's top bits: the sign, as ttsim and the page read it
        self.emit(m, False, feats, extra_bits=extra, lreg_c=c, lreg_dest=self.dst(), instr_mod1=mod, imm12_math=imm)

    def exp_man(self):
        m = self.r("SFPEXEXP", "SFPEXMAN", "SFPSETEXP", "SFPSETMAN")
        c = self.src()
        imm = 0
        if m == "SFPEXEXP":
            mod = self.r(0, 1, 2, 10)
        elif m == "SFPEXMAN":
            mod = self.r(0, 1)
        elif m == "SFPSETEXP":
            mod = self.r(0, 1, 2)
            imm = int(self.rng.integers(0, 256)) if mod == 1 else 0
        else:
            mod = self.r(0, 1)
        self.emit(m, False, self.features_of_reads({c}), lreg_c=c, lreg_dest=self.dst(), instr_mod1=mod,
                  imm12_math=imm)

    def lz(self):
        mod = self.r(0, 2, 4)
        c, d = self.src(), self.dst()
        if self.rng.random() < 0.3 and c < 8:
            d = c
        feats = self.features_of_reads({c})
        if mod & 2 and c == d:
            if "sfplz-vc-eq-vd" not in self.allow:
                d = (c + 1) % 8
            else:
                feats.add("sfplz-vc-eq-vd")
        self.emit("SFPLZ", False, feats, lreg_c=c, lreg_dest=d, instr_mod1=mod)

    def cast(self):
        mod = 0 if self.wh else self.r(0, 3)
        c = self.src()
        self.emit("SFPCAST", False, self.features_of_reads({c}), lreg_src_c=c, lreg_dest=self.dst(), instr_mod1=mod)

    def stoch(self):
        self.stoch_seen = True
        mod = self.r(1, 2, 3, 6, 7)
        c = self.src()
        self.emit("SFP_STOCH_RND", False, self.features_of_reads({c}), lreg_src_c=c, lreg_src_b=self.src(),
                  lreg_dest=self.dst(), instr_mod1=mod, rnd_mode=0, imm8_math=0)

    def swap(self):
        mod = self.r(0, 1, 2, 3)  # 9: no page defines it
        self.emit("SFPSWAP", False, (), lreg_src_c=self.dst(), lreg_dest=self.dst(), instr_mod1=mod)

    def transp(self):
        self.emit("SFPTRANSP", False, (), lreg_dest=0, lreg_c=0)

    def shft2(self):
        mods = (3, 5) if self.wh else (3, 4, 5)
        mod = self.r(*mods)
        c = self.src()
        imm = self.src() if mod == 5 else 0
        self.emit("SFPSHFT2", mod != 5, self.features_of_reads({c, imm}), lreg_src_c=c, lreg_dest=self.dst(),
                  instr_mod1=mod, imm12_math=imm)

    def loadi(self):
        mod = self.r(0, 1, 2, 4, 8, 10)
        v = data.uniform_value(self.rng)
        imm = v >> 16 if mod in (0, 1, 8) else v & 0xFFFF
        self.emit("SFPLOADI", False, (), lreg_ind=self.dst(), instr_mod0=mod, imm16=imm)

    def nop(self):
        self.emit("SFPNOP")

    def prng(self):
        """SFPMOV from the PRNG (Mod1 FROM_SPECIAL, VC 9; VectorUnit.md AdvancePRNG), seeded
        in the prologue. On Wormhole, after a non-stochastic SFP_STOCH_RND only with class
        stochrnd-prng-advance let in."""
        feats = set()
        if self.wh and self.stoch_seen:
            if "stochrnd-prng-advance" not in self.allow:
                return
            feats.add("stochrnd-prng-advance")
        self.emit("SFPMOV", False, feats, lreg_c=9, lreg_dest=self.dst(), instr_mod1=8)

    # -- predication ---------------------------------------------------------------------
    def cc(self):
        k = self.rng.random()
        if k < 0.2:
            imm = int(self.rng.integers(0, 4))
            if self.rng.random() < 0.2:
                self.emit("SFPENCC", False, (), instr_mod1=0, imm12_math=0)  # flags set, use unchanged
            else:
                self.emit("SFPENCC", False, (), instr_mod1=10, imm12_math=imm)
                self.cc_en = bool(imm & 1)
        elif k < 0.45:
            if self.cc_en:
                c = self.src()
                self.emit("SFPSETCC", False, self.features_of_reads({c}), lreg_c=c, instr_mod1=self.r(0, 2, 4, 6))
            else:
                self.emit("SFPENCC", False, (), instr_mod1=10, imm12_math=3)
                self.cc_en = True
        elif k < 0.65:
            if len(self.stack) < STACK_DEPTH - 1 and self.cc_en is not None:
                self.emit("SFPPUSHC")
                self.stack.append(self.cc_en)
            elif self.stack:
                self.popc()
        elif k < 0.8:
            if self.stack:
                self.popc()
        elif self.cc_en and (not self.stack or self.stack[-1]):
            self.emit("SFPCOMPC")

    def popc(self):
        self.emit("SFPPOPC")
        self.cc_en = self.stack.pop()

    def config(self):
        """SFPCONFIG, all lanes enabled (ttsim requires it), the predication state kept
        around it: a programmable constant (LReg[11..14]) from a uniform LReg[0] (ttsim
        requires uniform: the page takes LReg[0] of lane & 7), LReg[11]'s default value
        (MOD1_IMM16_IS_VALUE), or LaneConfig = 0 or EXCHANGE_SRCB_SRCC (the bits ttsim
        models besides ENABLE_DEST_INDEX, whose erratum it refuses around)."""
        if len(self.stack) >= STACK_DEPTH - 1 or self.cc_en is None:
            return
        b = self.b
        k = self.rng.random()
        with b.unit("SFPCONFIG") as g:
            b.push("SFPPUSHC")
            b.push("SFPENCC", instr_mod1=10, imm12_math=0)
            if k < 0.6:
                dest = int(self.rng.integers(11, 15))
                v = data.uniform_value(self.rng)
                b.push("SFPLOADI", lreg_ind=0, instr_mod0=8, imm16=v >> 16)
                b.push("SFPLOADI", lreg_ind=0, instr_mod0=10, imm16=v & 0xFFFF)
                b.push("SFPCONFIG", config_dest=dest, instr_mod1=0)
            elif k < 0.75:
                b.push("SFPCONFIG", config_dest=11, instr_mod1=1)
            else:
                b.push("SFPCONFIG", config_dest=15, instr_mod1=1, imm16_math=int(self.r(0, 0x100)))
            b.push("SFPNOP")
            b.push("SFPPOPC")
        b.prog.group_features[g] = set()

    # -- Dst -------------------------------------------------------------------------------
    def ldst(self):
        view = self.view if self.view != "mixed" else self.r("32", "16")
        store = self.rng.random() < 0.5
        feats = set()
        if view == "32":
            row = SCRATCH_ROW + 2 * int(self.rng.integers(0, 32))
            if store:
                mod = self.r(*STORE32)
                if mod == 3 and self.wh:
                    if "sfpstore-fp32-denormal" not in self.allow:
                        mod = 4
                    else:
                        feats.add("sfpstore-fp32-denormal")
            else:
                mod = self.r(*LOAD32)
        else:
            # 16-bit rows 128..255 hold 32-bit rows 64..127 (Dst.md's Adj16 layout)
            row = 2 * SCRATCH_ROW + 2 * int(self.rng.integers(0, 64))
            mod = self.r(*(STORE16 if store else LOAD16))
        if store:
            r = self.src() if self.rng.random() < 0.5 else self.dst()
            if r > 11:
                r = self.dst()
            self.emit("SFPSTORE", False, feats | self.features_of_reads({r}), lreg_ind=r, instr_mod0=mod,
                      dest_reg_addr=row)
        else:
            self.emit("SFPLOAD", False, feats, lreg_ind=self.dst(), instr_mod0=mod, dest_reg_addr=row)

    # -- Blackhole only --------------------------------------------------------------------
    def cmp_bh(self):
        m = self.r("SFPLE", "SFPGT")
        c = self.src()
        self.emit(m, False, self.features_of_reads({c}), lreg_c=c, lreg_dest=self.dst(), instr_mod1=self.r(1, 8))

    def mul24(self):
        self.emit("SFPMUL24", True, (), lreg_src_a=self.src(), lreg_src_b=self.src(), lreg_src_c=9,
                  lreg_dest=self.dst(), instr_mod1=self.r(0, 1))

    def arecip(self):
        c = self.src()
        self.emit("SFPARECIP", False, self.features_of_reads({c}), lreg_c=c, lreg_dest=self.dst())


def generate(arch: str, seed: int, allow: frozenset = frozenset()):
    rng = np.random.default_rng([seed, 1])
    b = Builder(arch, "sfpu", seed)
    with b.on(0):
        g = SfpuGen(b, rng, allow)
        g.prologue()
        g.body(int(rng.integers(4, 41)))
        g.epilogue()
    return b.prog
