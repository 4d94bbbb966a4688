"""Test helper: random Matrix Unit programs for comparing two ways of running them (the
compiled datapath against the pure-Python one, fused MOP / replay bodies against one
instruction at a time). No tests here.

``prepare(tile, rng, ...)`` gives a tile a random configuration (SrcA format: BF16,
TF32, FP16 or INT8 style; 16- or 32-bit Dst; ADDR_MOD slots; on Blackhole sometimes Dst
remapping), random Src banks and Dst mixing special patterns, both Src banks handed to
the Matrix Unit. ``program(arch, rng, n)`` draws ``n`` instruction words: MVMUL (with
and without BroadcastSrcBRow), DOTPV, GAPOOL, ELWADD / ELWSUB / ELWMUL (broadcasts,
AddDst), SETRWC / INCRWC moving the counters, now and then a ZEROACC or a bank flip.
``state(tile)`` is everything such a program can change, for comparing tiles.
"""

from __future__ import annotations

import numpy as np

from ttemu.isa.table import get_table

SRC_SPECIAL = np.array([0, 0xFF, 0x1, 0x40000, 0x3FFFF, 0x7FFFF, 0x400FF, 0x3FF00, 0x7F, 0x80, 0x101,
                        0x40101, 0x3F801, 0x7FFFE, 0x000FE, 0x40080, 0x00180, 0x7FF80])
DST_SPECIAL = np.array([0, 0x8000, 0x7FFF, 0x00FF, 0x80FF, 0x3F80, 0x0080, 0x807F, 0x7F7F, 0xFFFF, 0x0001])

FMT_BF16, FMT_FP16, FMT_TF32 = 5, 1, 4


def mix(rng, shape, hi, special, dtype):
    x = rng.integers(0, hi, size=shape, dtype=np.uint64).astype(dtype)
    pick = rng.random(shape) < rng.random()  # from none to all special values
    x[pick] = rng.choice(special, size=int(pick.sum())).astype(dtype)
    return x


def prepare(tile, rng, fmt=None, fp32=None, int8=False, exps=None):
    """Random configuration, Src and Dst for a Matrix Unit program on thread 1."""
    cop = tile.tensix
    cfg = cop.config
    fmt = int(rng.choice([FMT_BF16, FMT_BF16, FMT_TF32, FMT_FP16])) if fmt is None else fmt
    fp32 = bool(rng.integers(0, 2)) if fp32 is None else fp32
    cfg.set("ALU_FORMAT_SPEC_REG0_SrcA", fmt, 0)
    cfg.set("ALU_FORMAT_SPEC_REG1_SrcB", fmt, 0)
    cfg.set("ALU_ACC_CTRL_Fp32_enabled", int(fp32), 0)
    cfg.set("ALU_ACC_CTRL_INT8_math_enabled", int(int8), 0)
    tf = cfg.thread_fields
    if "DISABLE_IMPLIED_SRCA_FMT_Base" in tf:  # Blackhole: the configured format, not the unpacker's
        _tset(cop, 1, "DISABLE_IMPLIED_SRCA_FMT_Base", 1)
    if "DEST_ACCESS_CFG_remap_addrs" in cfg.fields and rng.random() < 0.2:
        cfg.set("DEST_ACCESS_CFG_remap_addrs", 1, 0)
    for slot in range(4):  # ADDR_MOD slots 0..3: small increments, now and then a clear
        ab, dst = f"ADDR_MOD_AB_SEC{slot}_", f"ADDR_MOD_DST_SEC{slot}_"
        if slot == 0:
            continue  # slot 0 keeps every counter
        _tset(cop, 1, ab + "SrcAIncr", int(rng.choice([0, 16, 8, 48])))
        _tset(cop, 1, ab + "SrcBIncr", int(rng.choice([0, 8, 16])))
        _tset(cop, 1, ab + "SrcAClear", int(rng.random() < 0.15))
        _tset(cop, 1, dst + "DestIncr", int(rng.choice([0, 8, 16, 32])))
        _tset(cop, 1, dst + "FidelityIncr", int(rng.integers(0, 2)))
        _tset(cop, 1, dst + "DestClear", int(rng.random() < 0.1))
    for w in "AB":
        data = mix(rng, (2, 64, 16), 1 << 19, SRC_SPECIAL, np.uint32)
        if exps is not None:  # exponents close together: ties, cancellation
            data = (data & ~np.uint32(0xFF)) | rng.integers(exps, exps + 4, size=data.shape).astype(np.uint32)
        cop.src.data[w][...] = data
        cop.src.allowed[w][cop.src.math_bank[w]] = "math"
    cop.dst.bits[...] = mix(rng, (1024, 16), 1 << 16, DST_SPECIAL, np.uint16)


def _tset(cop, thread, name, value):
    idx, sh, width = cop.config.thread_fields[name]
    mask = ((1 << width) - 1) << sh
    old = int(cop.config.thread_cfg[thread, idx])
    cop.config.thread_set_word(thread, idx, (old & ~mask) | ((value << sh) & mask))


def program(arch, rng, n, kinds=("MVMUL", "MVMUL", "MVMUL", "ELWADD", "ELWSUB", "ELWMUL", "GAPOOL", "DOTPV",
                                 "SETRWC", "INCRWC"), flips=True):
    """``n`` random Matrix Unit instruction words for ``arch``."""
    t = get_table(arch)
    wide = arch == "blackhole"
    out = []
    for _ in range(n):
        m = str(rng.choice(kinds))
        am = int(rng.integers(0, 4))
        flip = int(rng.integers(1, 4)) if flips and rng.random() < 0.01 else 0
        dst = int(rng.integers(0, 1024))
        if m == "MVMUL":
            w = t.encode(m, dst=dst, addr_mode=am, instr_mod19=int(rng.random() < 0.1), clear_dvalid=flip)
        elif m == "DOTPV":
            w = t.encode(m, dst=dst, addr_mode=am, instr_mod19=0, dest_accum_en=1, clear_dvalid=flip)
        elif m == "GAPOOL":
            kw = {"pool_addr_mode": am} if wide else {"addr_mode": am}
            w = t.encode(m, dst=dst, max_pool_index_en=0, instr_mod19=0, clear_dvalid=flip, **kw)
        elif m in ("ELWADD", "ELWSUB", "ELWMUL"):
            w = t.encode(m, dst=dst, addr_mode=am, instr_mod19=int(rng.integers(0, 4)),
                         dest_accum_en=int(rng.integers(0, 2)) if m != "ELWMUL" else 1, clear_dvalid=flip)
        elif m == "SETRWC":
            w = t.encode(m, BitMask=int(rng.integers(0, 16)), rwc_a=int(rng.integers(0, 16)),
                         rwc_b=int(rng.integers(0, 16)), rwc_d=int(rng.integers(0, 16)), rwc_cr=0,
                         clear_ab_vld=0)
        elif m == "INCRWC":
            w = t.encode(m, rwc_a=int(rng.integers(0, 16)), rwc_b=int(rng.integers(0, 16)),
                         rwc_d=int(rng.integers(0, 16)), rwc_cr=0)
        else:
            raise ValueError(m)
        out.append(w)
    return out


def state(tile):
    """What a Matrix Unit program changes: Dst, ZEROACC marks, the Dst write log, the
    thread's counters, Src ownership, warnings."""
    cop = tile.tensix
    r = cop.rwcs[1]
    return {"dst": cop.dst.bits.copy(), "undefined": cop.math.undefined.copy(), "log": list(cop.math.dst_log),
            "rwc": (r.Dst, r.Dst_Cr, r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.FidelityPhase),
            "src": (dict(cop.src.math_bank), {w: list(v) for w, v in cop.src.allowed.items()}),
            "warnings": {k: v[:2] for k, v in tile.diagnostics.sites.items()},
            "issued": [t.issued for t in cop.threads], "held": [t.held for t in cop.threads]}


def assert_same(a, b):
    np.testing.assert_array_equal(a["dst"], b["dst"])
    for k in a:
        if k != "dst":
            if isinstance(a[k], np.ndarray):
                np.testing.assert_array_equal(a[k], b[k], err_msg=k)
            else:
                assert a[k] == b[k], k
