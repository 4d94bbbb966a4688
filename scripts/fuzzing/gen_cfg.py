"""Configuration writes: RISC-V ``sw`` to Config, WRCFG (one word and 128-bit), RMWCIB0-3,
REG2FLOP (Wormhole), RDCFG, SETC16 of CFG_STATE_ID (the bank Tensix-side accesses use),
and the GPR arithmetic feeding them (SETDMAREG, ADDDMAREG, MULDMAREG).

Everything runs on thread T0, so the order is the program's (BackendConfiguration.md:
RISC-V writes are not ordered with pushed instructions; the builder drains the thread
first). Results: every Config word the RISC-V can read (bank 0, by ``lw``), the banked
words of bank 1 (RDCFG with CFG_STATE_ID = 1, then the GPRs read by the RISC-V), and
every GPR the program wrote.

Words and fields: only words ttsim models both ways (its tensix.cpp tensix_cfg_rd32 /
tensix_cfg_wr32 lists; it refuses the rest), whole-field values from the arch's field
table, with the fields ttsim requires to stay 0 left 0 (the Src / Dstacc format
overrides, stochastic rounding, Blackhole packer 1's extras) and STATE_RESET_EN (a
write clears the bank: BackendConfiguration.md) never written. Bits outside every field
are set in some writes (feature ``cfg-undefined-bits``).
"""

from __future__ import annotations

import numpy as np

from .program import OUTPUT_BASE, REGFILE, Builder

WH = "wormhole_b0"
# ttsim tensix.cpp: words it reads (banked) and writes, per arch
_WH_RW = [0, 1, 2, 3, 8, 9, 14, 20, 21, 22, 23, 24, 25, 26, 27, 44, 45, 47, 52, 53, 56, 57, 58, 59, 60, 61, 64, 65,
          72, 74, 84, 85, 86, 87, 92, 93, 96, 97, 98, 99, 100, 101, 104, 105, 124, 125, 126, 127]
_WH_READ_ZERO = [10, 11, 54, 55, 62, 63, 94, 95, 102, 103]
_BH_RW = [0, 1, 2, 3, 12, 13, 14, 15, 17, 18, 24, 28, 56, 57, 59, 64, 65, 68, 69, 70, 71, 72, 73, 76, 77, 84, 86,
          112, 113, 119, 120, 121, 124, 125]
_BH_READ_ZERO = [66, 67, 74, 75, 114, 115, 122, 123]
RW = {WH: _WH_RW, "blackhole": _BH_RW}
READ_ZERO = {WH: _WH_READ_ZERO, "blackhole": _BH_READ_ZERO}
FORBIDDEN = ("ALU_FORMAT_SPEC_REG_SrcA_override", "ALU_FORMAT_SPEC_REG_SrcB_override",
             "ALU_FORMAT_SPEC_REG_Dstacc_override", "ALU_ROUNDING_MODE_Fpu_srnd_en",
             "ALU_ROUNDING_MODE_Gasket_srnd_en", "ALU_ROUNDING_MODE_Packer_srnd_en", "ALU_ROUNDING_MODE_Padding",
             "ALU_ROUNDING_MODE_GS_LF", "ALU_ROUNDING_MODE_Bfp8_HF", "STATE_RESET_EN",
             "THCON_SEC1_REG1_Downsample_mask", "THCON_SEC1_REG1_Downsample_rate", "THCON_SEC1_REG1_Pack_L1_Acc",
             "THCON_SEC1_REG1_Exp_threshold_en", "THCON_SEC1_REG1_Pac_LF8_4b_exp", "THCON_SEC1_REG1_Exp_threshold")
GPRS = 64


class CfgGen:
    def __init__(self, b: Builder, rng, allow):
        self.b = b
        self.rng = rng
        self.allow = allow
        self.arch = b.arch
        self.words = list(RW[b.arch])
        self.fields_of = {}
        forbidden_mask = {}
        for name, (index, shift, width) in b.cfg_fields.items():
            self.fields_of.setdefault(index, []).append((name, shift, width))
            if name in FORBIDDEN:
                forbidden_mask[index] = forbidden_mask.get(index, 0) | (((1 << width) - 1) << shift)
        self.forbidden = forbidden_mask
        self.words = [w for w in self.words if self.forbidden.get(w, 0) != 0xFFFFFFFF]
        self.written_gprs = set()
        self.bank = 0
        self.global_base = 152 if b.arch == WH else 180

    def word_value(self, index) -> tuple:
        """A value for Config word ``index`` and the features it has."""
        v = 0
        defined = 0
        for name, shift, width in self.fields_of.get(index, []):
            mask = ((1 << width) - 1) << shift
            defined |= mask
            if name in FORBIDDEN:
                continue
            k = self.rng.random()
            f = 0 if k < 0.3 else (1 << width) - 1 if k < 0.4 else int(self.rng.integers(0, 1 << width))
            v |= f << shift
        feats = set()
        undefined = ~defined & 0xFFFFFFFF
        if undefined and self.rng.random() < 0.2 and "cfg-undefined-bits" in self.allow:
            v |= int(self.rng.integers(0, 1 << 32)) & undefined
            feats.add("cfg-undefined-bits")
        return v & ~self.forbidden.get(index, 0) & 0xFFFFFFFF, feats

    def gpr(self):
        return int(self.rng.integers(0, 48))  # 48..63 stay free for the readback of bank 1

    def setdmareg(self, g, value):
        b = self.b
        for half in (0, 1):
            v = (value >> (16 * half)) & 0xFFFF
            b.push("SETDMAREG", RegIndex16b=2 * g + half, Payload_SigSel=v & 0x3FFF, Payload_SigSelSize=v >> 14)
        self.written_gprs.add(g)

    # -- operations --------------------------------------------------------------------
    def op(self):
        b = self.b
        k = self.rng.random()
        word = int(self.rng.choice(self.words))
        if k < 0.2:
            v, feats = self.word_value(word)
            with b.unit("sw cfg") as g:
                b.cfg_word(word, v, "RISC-V store")
        elif k < 0.45:
            wide = self.rng.random() < 0.3
            if wide:
                quads = [w for w in self.words if w % 4 == 0 and all(w + i in self.words for i in range(4))]
                word = int(self.rng.choice(quads))
            gp = int(self.rng.integers(0, 12)) * 4 if wide else self.gpr()
            feats = set()
            with b.unit("WRCFG/128" if wide else "WRCFG") as g:
                for i in range(4 if wide else 1):
                    v, f = self.word_value(word + i)
                    feats |= f
                    self.setdmareg(gp + i, v)
                b.push("WRCFG", CfgReg=word, wr128b=int(wide), GprAddress=gp)
                b.push("NOP")  # WRCFG.md: the next instruction must not consume what it wrote
        elif k < 0.6:
            byte = int(self.rng.integers(0, 4))
            v, feats = self.word_value(word)
            mask = int(self.rng.integers(0, 256))
            data = (v >> (8 * byte)) & 0xFF
            with b.unit(f"RMWCIB{byte}") as g:
                b.push(f"RMWCIB{byte}", CfgRegAddr=word, Data=data, Mask=mask)
        elif k < 0.72:
            gp = self.gpr()
            with b.unit("RDCFG") as g:
                b.push("RDCFG", CfgReg=word, GprAddress=gp)
            self.written_gprs.add(gp)
            feats = set()
        elif k < 0.87:
            a, c, r = self.gpr(), self.gpr(), self.gpr()
            op = "ADDDMAREG" if self.rng.random() < 0.6 else "MULDMAREG"
            with b.unit(op) as g:
                if self.rng.random() < 0.5:
                    self.setdmareg(a, int(self.rng.integers(0, 1 << 32)))
                b.push(op, OpARegIndex=a, OpBRegIndex=c, ResultRegIndex=r, OpBisConst=0)
            self.written_gprs.add(r)
            feats = set()
        elif k < 0.95:
            bank = int(self.rng.integers(0, 2))
            with b.unit(f"SETC16 CFG_STATE_ID={bank}") as g:
                b.push("SETC16", setc16_reg=b.thread_fields["CFG_STATE_ID_StateID"][0], setc16_value=bank)
            self.bank = bank
            feats = set()
        elif self.arch == WH:
            # REG2FLOP (Configuration): Config[52 + FlopIndex] = GPR, 32-bit (SizeSel 1 or 2 as ttsim models)
            flops = [w - 52 for w in self.words if 52 <= w < 152]
            word = 52 + int(self.rng.choice(flops))
            v, feats = self.word_value(word)
            gp = self.gpr()
            with b.unit("REG2FLOP") as g:
                self.setdmareg(gp, v)
                b.push("REG2FLOP", RegIndex=gp, FlopIndex=word - 52, SizeSel=int(self.rng.integers(1, 3)))
        else:
            return
        b.prog.group_features[g] = feats

    # -- readback --------------------------------------------------------------------------
    def epilogue(self):
        b = self.b
        out = OUTPUT_BASE
        readable = sorted(self.words + READ_ZERO[self.arch])
        b.sync()
        for i, w in enumerate(readable):
            b.copy(0xFFEF0000 + 4 * w, out + 4 * i, f"copy Config[0][{w}]")
        labels = [f"Config[0][{w}]" for w in readable]
        gprs = sorted(self.written_gprs)
        base1 = out + 4 * len(readable)
        for i, g in enumerate(gprs):
            b.copy(REGFILE + 4 * g, base1 + 4 * i, f"copy GPR {g}")
        labels += [f"T0 GPR {g}" for g in gprs]
        # bank 1's banked words through RDCFG into GPRs 48..63, 16 at a time
        banked = [w for w in readable if w < self.global_base and w not in READ_ZERO[self.arch]]
        b.push("SETC16", setc16_reg=b.thread_fields["CFG_STATE_ID_StateID"][0], setc16_value=1)
        base2 = base1 + 4 * len(gprs)
        for k in range(0, len(banked), 16):
            part = banked[k:k + 16]
            for i, w in enumerate(part):
                b.push("RDCFG", CfgReg=w, GprAddress=48 + i)
            b.sync()
            for i, w in enumerate(part):
                b.copy(REGFILE + 4 * (48 + i), base2 + 4 * (k + i), f"copy Config[1][{w}] (via GPR {48 + i})")
        labels += [f"Config[1][{w}]" for w in banked]
        n = len(labels)
        b.output("cfg", out, 4 * n, 4, lambda i: labels[i])


def generate(arch: str, seed: int, allow=frozenset()):
    rng = np.random.default_rng([seed, 7])
    b = Builder(arch, "cfg", seed)
    with b.on(0):
        g = CfgGen(b, rng, allow)
        for _ in range(int(rng.integers(4, 40))):
            g.op()
        g.epilogue()
    return b.prog
