"""Test helper: random Vector Unit programs for comparing ways of running them (runs of a
compiled expansion executed together, compiled or in Python, against one instruction
at a time). No tests here.

``prepare(tile, rng)`` gives a tile random Vector Unit state (LRegs and Dst mixing
special FP32 / 16-bit patterns, LaneConfig row masks / block bits / column exchange,
lane flags, the flag stack) and configuration (the SrcB format or FP32 mode
MOD0_FMT_SRCB resolves to, Dst offsets, AddrMods that move the counters; Blackhole's
stack pointer base, remap and swizzle). ``program(arch, rng, n)`` draws ``n`` words:
every Vector Unit instruction with random fields (LReg operands mostly 0..7, VD now
and then 12..15, Mod and immediates over their widths), the scheduling hazards that
follow from them (a MAD result read on the next cycle), SFPNOP, INCRWC. ``kernel_body``
is a hand-written body of the kind LLK kernels run (an exp-like chain of MADs with
SFPNOPs between dependent ones). ``state(tile)`` is everything such a program can change.
"""

from __future__ import annotations

import numpy as np

from ttemu.isa.table import get_table
from ttemu.tensix.units.sfpu import VectorUnit
from ttemu.tensix.units.sfpu.state import LANE_CONFIG_MASK

SPECIAL16 = np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x807F, 0x00FF, 0xFFFF, 0x7FFF, 0x0080,
                      0x7C00, 0xFC00, 0x7E00, 0x03FF, 0x8001, 0x3F80, 0xBF80], dtype=np.uint16)
SPECIAL32 = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 1, 0x807FFFFF, 0x007FFFFF,
                      0x00800000, 0x7F7FFFFF, 0xFFFFFFFF, 0x3F800000, 0x80000001, 0x0000FFFF, 0xFFFF0000,
                      0x00FFFFFF, 0x4B400000, 0x3FB8AA3B, 0xBF317200, 0x7F000000, 0x01000000, 0x00800001],
                     dtype=np.uint32)
#: Vector Unit instructions a program draws from, by weight (the common ones more often)
WEIGHTS = {"SFPLOAD": 6, "SFPSTORE": 5, "SFPLOADI": 3, "SFPMAD": 8, "SFPADD": 3, "SFPMUL": 3, "SFPADDI": 2,
           "SFPMULI": 2, "SFPNOP": 5, "SFPIADD": 3, "SFPSETEXP": 2, "SFPSETMAN": 1, "SFPSETSGN": 1, "SFPEXEXP": 2,
           "SFPEXMAN": 1, "SFPABS": 1, "SFPAND": 1, "SFPOR": 1, "SFPXOR": 1, "SFPNOT": 1, "SFPLZ": 1, "SFPSHFT": 1,
           "SFPDIVP2": 1, "SFPMOV": 2, "SFPSETCC": 3, "SFPENCC": 3, "SFPPUSHC": 1, "SFPPOPC": 1, "SFPCOMPC": 1,
           "SFPCAST": 1, "SFP_STOCH_RND": 1, "SFPLUT": 1, "SFPLUTFP32": 1, "SFPSWAP": 1, "SFPTRANSP": 1,
           "SFPSHFT2": 1, "SFPCONFIG": 1, "SFPGT": 1, "SFPLE": 1, "SFPMUL24": 1, "SFPARECIP": 1, "INCRWC": 4}
#: the instructions the compiled form of runs covers (ttemu/tensix/units/sfpu/native.py)
NATIVE_KINDS = frozenset({"SFPLOAD", "SFPSTORE", "SFPLOADI", "SFPMAD", "SFPADD", "SFPMUL", "SFPADDI", "SFPMULI",
                          "SFPNOP", "SFPIADD", "SFPSETEXP", "SFPSETMAN", "SFPSETSGN", "SFPEXEXP", "SFPEXMAN", "SFPABS",
                          "SFPAND", "SFPOR", "SFPXOR", "SFPNOT", "SFPLZ", "SFPSHFT", "SFPDIVP2", "SFPMOV", "SFPSETCC",
                          "SFPENCC", "INCRWC"})
#: SFPLOAD / SFPSTORE Mod0 values drawn (the table forms and others; 0: MOD0_FMT_SRCB)
LS_MODES = (0, 1, 2, 3, 3, 3, 2, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)


def tset(cfg, thread, name, value):
    """ThreadConfig[thread].name = value (through SETC16's word write)."""
    index, shift, width = cfg.thread_fields[name]
    mask = ((1 << width) - 1) << shift
    old = int(cfg.thread_cfg[thread, index])
    cfg.thread_set_word(thread, index, (old & ~mask) | ((value << shift) & mask))


def mix32(rng, shape):
    x = rng.integers(0, 1 << 32, shape, dtype=np.uint64).astype(np.uint32)
    pick = rng.random(shape) < rng.random()
    x[pick] = rng.choice(SPECIAL32, int(pick.sum()))
    return x


def prepare(tile, rng, lanes=True, config=True):
    """Random Vector Unit state and configuration for programs on thread 1 (see the module
    docstring); ``lanes``: LaneConfig and lane flags too; ``config``: configuration too."""
    cop = tile.tensix
    u = cop.sfpu
    arch = tile.arch.name
    raw = rng.integers(0, 1 << 16, (1024, 16)).astype(np.uint16)
    pick = rng.random((1024, 16)) < rng.random()
    raw[pick] = rng.choice(SPECIAL16, int(pick.sum()))
    cop.dst.bits[...] = raw
    u.lreg[:8] = mix32(rng, (8, 32))
    u.lreg[16] = mix32(rng, 32)
    if lanes and rng.random() < 0.5:
        kind = rng.integers(0, 4)
        if kind == 0:
            lc = rng.integers(0, 16, 32) << 12  # row masks
        elif kind == 1:
            lc = rng.integers(0, 4, 32) << 6  # column exchange
        elif kind == 2:
            lc = (rng.integers(0, 4, 32) << 4) | (rng.integers(0, 4, 32) << 2)  # block bits, Dst index
        else:
            lc = rng.integers(0, LANE_CONFIG_MASK + 1, 32)
        u.lane_config[:] = lc.astype(np.uint32)
    if lanes and rng.random() < 0.5:
        u.use_flags = rng.random(32) < 0.7
        u.flags = rng.random(32) < 0.6
        if rng.random() < 0.3:
            u.stack_size[:] = rng.integers(0, 3, 32)
            u.stack_flags[...] = rng.random(u.stack_flags.shape) < 0.5
            u.stack_use[...] = rng.random(u.stack_use.shape) < 0.5
    if not config:
        return
    cfg = cop.config
    kind, value = [("fp32", 0), ("srcb", 5), ("srcb", 1), ("srcb", 0), ("override", 10)][rng.integers(0, 5)]
    for bank in (0, 1):
        cfg.set("ALU_ACC_CTRL_SFPU_Fp32_enabled", int(kind == "fp32"), bank)
        cfg.set("ALU_FORMAT_SPEC_REG1_SrcB", value, bank)
        cfg.set("ALU_FORMAT_SPEC_REG_SrcB_override", int(kind == "override"), bank)
        cfg.set("ALU_FORMAT_SPEC_REG_SrcB_val", value, bank)
        if rng.random() < 0.3:
            cfg.set("DEST_REGW_BASE_Base", int(rng.integers(0, 1024)), bank)
        if arch == "blackhole":
            cfg.set("DEST_SP_BASE_Base", int(rng.integers(0, 1024)) if rng.random() < 0.3 else 0, bank)
            cfg.set("DEST_ACCESS_CFG_remap_addrs", int(rng.random() < 0.2), bank)
            cfg.set("DEST_ACCESS_CFG_swizzle_32b", int(rng.random() < 0.2), bank)
    for t in range(3):
        tset(cfg, t, "DEST_TARGET_REG_CFG_MATH_Offset", int(rng.choice([0, 0, 512, int(rng.integers(0, 1024))])))
        for index in range(1, 4 if arch == "wormhole_b0" else 8):  # slot 0 keeps every counter
            if rng.random() < 0.5:
                tset(cfg, t, f"ADDR_MOD_DST_SEC{index}_DestIncr", int(rng.choice([0, 2, 4, 8, 16])))
                tset(cfg, t, f"ADDR_MOD_DST_SEC{index}_DestCR", int(rng.random() < 0.2))
                tset(cfg, t, f"ADDR_MOD_AB_SEC{index}_SrcAIncr", int(rng.integers(0, 4)))
        r = cop.rwcs.rwc[t]
        r.Dst = int(rng.choice([0, 0, int(rng.integers(0, 1024))]))
        r.Dst_Cr = r.Dst
        if arch == "blackhole":
            r.Sp = int(rng.integers(0, 1024)) if rng.random() < 0.3 else 0


def _field(rng, name, width):
    if name in ("lreg_dest", "lreg_ind", "lreg_c", "lreg_src_c", "lreg_src_b", "lreg_src_a", "config_dest"):
        r = rng.random()
        if name == "lreg_src_a" and width > 4:
            width = 4
        return int(rng.integers(0, 8)) if r < 0.8 else int(rng.integers(8, 1 << min(width, 4)))
    if name == "dest_reg_addr":
        return int(rng.choice([0, 0, 64, 128, 2, 4, int(rng.integers(0, 1 << min(width, 10)))]))
    if name == "sfpu_addr_mode":
        return int(rng.choice([0, 0, 0, int(rng.integers(0, 1 << width))]))
    return int(rng.integers(0, 1 << width))


def program(arch, rng, n, weights=None):
    """``n`` random Vector Unit (and INCRWC) words for ``arch``."""
    t = get_table(arch)
    w = {m: k for m, k in (weights or WEIGHTS).items() if m in t.by_mnemonic}
    names = list(w)
    p = np.array([w[m] for m in names], dtype=float)
    p /= p.sum()
    out = []
    for _ in range(n):
        m = str(rng.choice(names, p=p))
        spec = t.spec(m)
        if m == "INCRWC":
            out.append(t.encode(m, rwc_a=0, rwc_b=0, rwc_d=int(rng.choice([2, 2, 4, 0, 1])),
                                rwc_cr=int(rng.random() < 0.1) << 2))
            continue
        fields = {f.name: _field(rng, f.name, f.width) for f in spec.fields}
        if m in ("SFPLOAD", "SFPSTORE") and rng.random() < 0.8:
            fields["instr_mod0"] = int(rng.choice(LS_MODES))
        if m in ("SFPLOAD", "SFPSTORE", "SFPLOADI") and rng.random() < 0.9:
            fields["lreg_ind"] = int(rng.integers(0, 8))
        if m in ("SFPMAD", "SFPADD", "SFPMUL", "SFPADDI", "SFPMULI") and rng.random() < 0.8:
            fields["instr_mod1"] &= 3  # mostly without the indirect operands
        if m == "SFPLOADI" and rng.random() < 0.8:
            fields["instr_mod0"] = int(rng.choice([0, 1, 2, 4, 8, 10]))
        if m == "SFPENCC" and rng.random() < 0.7:
            fields["instr_mod1"] = int(rng.choice([10, 2, 8, 0]))
        if m == "SFPSETCC" and rng.random() < 0.7:
            fields["instr_mod1"] = int(rng.choice([0, 2, 4, 6]))
        if m == "SFPCONFIG" and rng.random() < 0.7:
            fields["config_dest"] = int(rng.choice([15, 15, 11, 12, 8]))
            fields["instr_mod1"] = int(rng.choice([0, 1, 8, 9]))
        out.append(t.encode(m, **fields))
    return out


def kernel_body(arch, rng, fmt=3):
    """A body of the kind kernels record (firmware/sfpu_exp's shape): SFPLOAD of the group,
    a chain of MADs each separated from its reader by an SFPNOP or an unrelated
    instruction, integer / exponent work, SFPSTORE; random registers and constants."""
    t = get_table(arch)
    mad = lambda a, b, c, d: t.encode("SFPMAD", lreg_src_a=a, lreg_src_b=b, lreg_src_c=c, lreg_dest=d, instr_mod1=0)
    nop = t.encode("SFPNOP")
    body = [t.encode("SFPLOAD", lreg_ind=0, instr_mod0=fmt, sfpu_addr_mode=0, dest_reg_addr=0),
            mad(0, 3, 4, 2), mad(0, 3, 4, 1),
            t.encode("SFPADDI", lreg_dest=2, imm16_math=int(rng.integers(0, 1 << 16)), instr_mod1=0),
            t.encode("SFPIADD", lreg_dest=1, lreg_c=1, imm12_math=127, instr_mod1=5),
            mad(2, 5, 0, 0), t.encode("SFPSETEXP", lreg_dest=1, lreg_c=10, imm12_math=0, instr_mod1=0),
            mad(2, 6, 0, 0), nop]
    for c in (11, 12, 13, 14, 10):
        body += [mad(2, 0, c, 2), nop]
    body += [mad(2, 1, 9, 0), nop, t.encode("SFPSTORE", lreg_ind=0, instr_mod0=fmt, sfpu_addr_mode=0,
                                            dest_reg_addr=0)]
    return body


def state(tile):
    """What a Vector Unit program changes (and what a run leaves for later instructions:
    the cycle bookkeeping and the rules the latest cycle started)."""
    cop = tile.tensix
    u = cop.sfpu
    rules = u.hz_rules.get(u.hz_now) or []
    return {"dst": cop.dst.bits.copy(), "lreg": u.lreg.copy(), "flags": u.flags.copy(),
            "use_flags": u.use_flags.copy(), "stack": (u.stack_flags.copy(), u.stack_use.copy(), u.stack_size.copy()),
            "lane_config": np.asarray(u.lane_config).copy(), "lm": (u.lm_template.copy(), u.lm_sequence.copy(),
                                                                    u.lm_misc.copy()),
            "prng": u.prng.copy(), "hz": (u.hz_now, u.hz_last),
            "rules": [(r.kind, r.producer.mnemonic, sorted(r.regs), r.page,
                       None if r.old is None else {k: v.tobytes() for k, v in r.old.items()}) for r in rules],
            "rwc": [(r.Dst, r.Dst_Cr, r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.FidelityPhase, r.ExtraAddrModBit, r.Sp)
                    for r in cop.rwcs.rwc],
            "warnings": {k: v[:2] for k, v in tile.diagnostics.sites.items()},
            "issued": [t.issued for t in cop.threads], "held": [t.held for t in cop.threads]}


def assert_same(a, b):
    for k in a:
        va, vb = a[k], b[k]
        if isinstance(va, np.ndarray):
            np.testing.assert_array_equal(va, vb, err_msg=k)
        elif isinstance(va, tuple) and va and isinstance(va[0], np.ndarray):
            for x, y in zip(va, vb):
                np.testing.assert_array_equal(x, y, err_msg=k)
        else:
            assert va == vb, k


__all__ = ["prepare", "program", "kernel_body", "state", "assert_same", "VectorUnit"]
