"""MOP templates and REPLAY: the frontend expanders (MOPExpander.md, REPLAY.md).

Thread T1 configures its MOP expander (RISC-V stores to TENSIX_MOP_CFG_BASE, made with
the thread drained) and pushes MOP (template 0: mask-selected A / B / skip sequences;
template 1: outer and inner loops with start, end, alternating loop instructions and
the last-iteration overrides), MOP_CFG (the mask's high half), REPLAY loads (with and
without Exec) and replays, MOPs whose instructions are REPLAYs, and plain instructions.
The instructions inside are "atoms" whose effects accumulate and show the expansion's
order and count: integer adds and shifts on LReg[0..3] (SFPIADD / SFPSHFT / SFPMOV),
SFPSTOREs stepping through Dst with an address mode, GPR adds (ADDDMAREG), NOPs.

Kept inside what ttsim accepts: template 0 with Count1 <= 31 and Flags <= 3, template
1 with OuterCount 1..32 and InnerCount 1..64 (and the MOP's own count fields 0),
REPLAY counts 1..32, replays only of slots loaded before, expansions that fit its
512-entry FIFO. Results: Dst (512 rows, zeroed first), LReg[0..3] and GPRs 0..15.
"""

from __future__ import annotations

from . import scaffold
from .program import OUTPUT_BASE, REGFILE, Builder, op_program

WH = "wormhole_b0"
MOP_CFG_BASE = 0xFFB80000
MAX_EXPANSION = 300
GPR_OUT = OUTPUT_BASE + 8 * scaffold.TILE_BYTES
LREG_ROW = 496  # 32-bit Dst rows 496..503: LReg[0..3] at the end


class MopGen:
    def __init__(self, b: Builder, rng, allow):
        self.b = b
        self.rng = rng
        self.wh = b.arch == WH
        self.loaded = set()  # replay buffer slots loaded

    def r(self, n):
        return int(self.rng.integers(0, n))

    def enc(self, mnemonic, **fields):
        return self.b.table.encode(mnemonic, **fields), f"{mnemonic} " + " ".join(f"{k}={v}" for k, v in fields.items())

    def atom(self):
        """(word, text) of one accumulating instruction."""
        k = self.r(9)
        d = self.r(4)
        if k <= 1:
            return self.enc("SFPIADD", lreg_c=d, lreg_dest=d, instr_mod1=5, imm12_math=(self.r(200) - 100) & 0xFFF)
        if k == 2:
            return self.enc("SFPSHFT", lreg_c=0, lreg_dest=d, instr_mod1=1, imm12_math=(self.r(7) - 3) & 0xFFF)
        if k == 3:
            return self.enc("SFPMOV", lreg_c=self.r(4), lreg_dest=d, instr_mod1=0)
        if k <= 5:
            return self.enc("SFPSTORE", lreg_ind=self.r(4), instr_mod0=4, sfpu_addr_mode=self.r(4),
                            dest_reg_addr=2 * self.r(8))
        if k == 6:
            return self.enc("ADDDMAREG", OpARegIndex=self.r(16), OpBRegIndex=self.r(16), ResultRegIndex=self.r(16))
        if k == 7:
            return self.enc("NOP")
        return self.enc("SFPNOP")

    def mop_cfg(self, values):
        b = self.b
        for i, (w, text) in values.items():
            if b.thread in b.pushed:
                b.sync()
            b.store(MOP_CFG_BASE + 4 * i, w, f"MopCfg[{i}] = {text}")

    # -- operations --------------------------------------------------------------------
    def op(self):
        k = self.rng.random()
        if k < 0.25:
            w, text = self.atom()
            with self.b.unit(text.split()[0]):
                self.b.push_word(w, text)
        elif k < 0.5:
            self.template0()
        elif k < 0.75:
            self.template1()
        elif k < 0.88:
            self.replay_load()
        else:
            self.replay_exec()

    def template0(self):
        b = self.b
        flags = self.r(4)
        per = 1 + (3 if flags & 2 else 0) + (1 if flags & 1 else 0)
        count = self.r(min(32, MAX_EXPANSION // per))
        cfg = {1: (flags, f"{flags} (Flags)")}
        for i in (2, 3, 4, 5, 6, 7, 8):
            cfg[i] = self.atom()
        zlo = self.r(1 << 16)
        with b.unit(f"MOP template 0 flags={flags}"):
            self.mop_cfg(cfg)
            if self.rng.random() < 0.5:
                b.push("MOP_CFG", zmask_hi16=self.r(1 << 16))
            if self.wh:
                b.push("MOP", mop_type=0, loop_count=count, zmask_lo16=zlo)
            else:
                b.push("MOP", mop_type=0, loop_count=count, zmask_lo16_or_loop_count=zlo)

    def template1(self):
        b = self.b
        nop = self.enc("NOP")
        outer = 1 + self.r(8)
        inner = 1 + self.r(16)
        cfg = {}
        for i in (2, 3, 4, 6):  # start, end0, end1, loop1: NOP (unused) half the time
            cfg[i] = nop if self.rng.random() < 0.5 else self.atom()
        cfg[5] = self.atom()
        replay = self.replay_word()
        if replay is not None and self.rng.random() < 0.4:
            cfg[5] = replay
        cfg[7], cfg[8] = self.atom(), self.atom()
        # keep the expansion within ttsim's instruction FIFO (it expands a MOP at once)
        while outer * self.template1_length(cfg, inner) > MAX_EXPANSION and (outer > 1 or inner > 1):
            if outer > 1:
                outer -= 1
            else:
                inner -= 1
        cfg[0] = (outer, f"{outer} (OuterCount)")
        cfg[1] = (inner, f"{inner} (InnerCount)")
        with b.unit("MOP template 1"):
            self.mop_cfg(dict(sorted(cfg.items())))
            if self.wh:
                b.push("MOP", mop_type=1, loop_count=0, zmask_lo16=0)
            else:
                b.push("MOP", mop_type=1, loop_count=0, zmask_lo16_or_loop_count=0)

    @staticmethod
    def length(op) -> int:
        """Instructions ``op`` ((word, text)) puts into the FIFO: a REPLAY its count, a
        NOP none (ttsim drops NOPs as they arrive), anything else one."""
        word, text = op
        if text.startswith("REPLAY"):
            return (word >> 4) & 0x3F
        return 0 if text.split()[0] == "NOP" else 1

    def template1_length(self, cfg, inner) -> int:
        """FIFO entries of one outer iteration of template 1 (MOPExpander.md)."""
        is_nop = {i: cfg[i][1].split()[0] == "NOP" for i in (2, 3, 4, 6)}
        body = max(self.length(cfg[5]), self.length(cfg[6]), self.length(cfg[7]), self.length(cfg[8]))
        n = inner * (1 if is_nop[6] else 2) * body
        n += 0 if is_nop[2] else self.length(cfg[2])
        if not is_nop[3]:
            n += self.length(cfg[3]) + (0 if is_nop[4] else self.length(cfg[4]))
        return n

    def replay_word(self):
        """A REPLAY (no Load) of a run of loaded slots, or None."""
        if not self.loaded:
            return None
        start = int(self.rng.choice(sorted(self.loaded)))
        n = 0
        while n < 8 and (start + n) % 32 in self.loaded:
            n += 1
        return self.enc("REPLAY", start_idx=start, len=1 + self.r(n), execute_while_loading=0, load_mode=0)

    def replay_load(self):
        b = self.b
        start, n = self.r(32), 1 + self.r(12)
        ex = self.r(2)
        with b.unit(f"REPLAY load exec={ex}"):
            b.push("REPLAY", start_idx=start, len=n, execute_while_loading=ex, load_mode=1)
            for i in range(n):
                w, text = self.atom()
                b.push_word(w, text)
                self.loaded.add((start + i) % 32)

    def replay_exec(self):
        w = self.replay_word()
        if w is None:
            return self.replay_load()
        with self.b.unit("REPLAY"):
            self.b.push_word(*w)

    # -- program -----------------------------------------------------------------------
    def prologue(self):
        b = self.b
        b.push("SFPENCC", instr_mod1=10, imm12_math=0)
        for a in range(0, 512, 2):
            b.push("SFPSTORE", lreg_ind=9, instr_mod0=4, dest_reg_addr=a)
        for d in range(4):
            v = int(self.rng.integers(0, 1 << 32))
            b.push("SFPLOADI", lreg_ind=d, instr_mod0=8, imm16=v >> 16)
            b.push("SFPLOADI", lreg_ind=d, instr_mod0=10, imm16=v & 0xFFFF)
        tf = b.thread_fields
        for slot in range(4):
            b.push("SETC16", setc16_reg=tf[f"ADDR_MOD_DST_SEC{slot}_DestIncr"][0], setc16_value=2 * self.r(9))
        for g in range(16):
            v = int(self.rng.integers(0, 1 << 32))
            for half in (0, 1):
                h = (v >> (16 * half)) & 0xFFFF
                b.push("SETDMAREG", RegIndex16b=2 * g + half, Payload_SigSel=h & 0x3FFF, Payload_SigSelSize=h >> 14)
        b.push("SETRWC", BitMask=0xF)

    def epilogue(self):
        b = self.b
        b.push("SETRWC", BitMask=0xF)
        for d in range(4):
            b.push("SFPSTORE", lreg_ind=d, instr_mod0=4, sfpu_addr_mode=0, dest_reg_addr=LREG_ROW + 2 * d)
        scaffold.pack_setup(b)
        scaffold.pack_tiles(b, OUTPUT_BASE, 8)
        for g in range(16):
            b.copy(REGFILE + 4 * g, GPR_OUT + 4 * g, f"copy GPR {g}")

        b.output("dst", OUTPUT_BASE, 8 * scaffold.TILE_BYTES, 4, scaffold.dst_label())
        b.output("gprs", GPR_OUT, 64, 4, lambda i: f"T1 GPR {i}")


def generate(arch: str, seed: int, allow=frozenset()):
    return op_program(arch, "mop", seed, 17, 1, MopGen, allow, (3, 16))
