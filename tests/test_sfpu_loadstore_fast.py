"""The fast forms of thread-issued SFPLOAD / SFPSTORE (ttemu/tensix/units/sfpu/lsfast.py)
against the general forms (loadstore.py's x_SFPLOAD / x_SFPSTORE, blackhole.py's
bh_SFPLOAD / bh_SFPSTORE), bit for bit, on both arches: LRegs, DstBits, every RWC field,
the warnings, and the error when one is raised. Hypothesis draws the state: Dst and LReg
contents with special values (NaN, infinities, denormals, -0 in FP32, BF16 and their Dst
layouts), LaneConfig per lane (row masks, block bits, column exchange, the Dst index
capture), the lane flags, aliased Dst16b, the SrcB format / FP32 mode MOD0_FMT_SRCB
resolves to, the address offsets, AddrMods that move the RWCs (and ExtraAddrModBit),
Blackhole's stack pointer, remap and swizzle; and every Mod0 and VD. A second test runs
mixed instruction streams through the frontend with the fast forms on and off, changing
configuration and LaneConfig between instructions (the fast forms' guards)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ttemu import Tile
from ttemu.isa.table import get_table
from ttemu.tensix.units.sfpu.insn import Insn
from ttemu.tensix.units.sfpu.state import LANE_CONFIG_MASK

ARCHES = ("wormhole_b0", "blackhole")
#: Mod0 values the fast forms convert by table (on one arch or both; 0: MOD0_FMT_SRCB)
TABLE_MODES = (0, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13)
SPECIAL16 = np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x0001, 0x807F, 0x00FF, 0xFFFF, 0x7FFF, 0x0080,
                      0x7C00, 0xFC00, 0x7E00, 0x03FF, 0x8001], dtype=np.uint16)
SPECIAL32 = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 1, 0x807FFFFF, 0x007FFFFF,
                      0x00800000, 0x7F7FFFFF, 0xFFFFFFFF, 0x3F800000, 0x80000001, 0x0000FFFF, 0xFFFF0000],
                     dtype=np.uint32)


def tset(cfg, thread, name, value):
    """ThreadConfig[thread].name = value (through SETC16's word write)."""
    index, shift, width = cfg.thread_fields[name]
    mask = ((1 << width) - 1) << shift
    old = int(cfg.thread_cfg[thread, index])
    cfg.thread_set_word(thread, index, (old & ~mask) | ((value << shift) & mask))


def draw_state(data, arch):
    """A function applying one drawn state to a tile (the same to both tiles compared)."""
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    lane_kind = data.draw(st.sampled_from(["zero", "random", "rows", "exchange", "block"]), label="lane_config")
    flags_on = data.draw(st.booleans(), label="use_flags")
    aliased = data.draw(st.booleans(), label="aliased16")
    fmt = data.draw(st.sampled_from([("fp32", 0), ("srcb", 5), ("srcb", 1), ("srcb", 0), ("override", 10)]),
                    label="srcb")
    offsets = data.draw(st.tuples(st.integers(0, 1023), st.integers(0, 1023), st.integers(0, 1023)), label="offsets")
    mods = data.draw(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 15), st.booleans(), st.integers(0, 3)),
                              max_size=3), label="addr_mods")
    extra = data.draw(st.integers(0, 1), label="ExtraAddrModBit") if arch == "wormhole_b0" else 0
    set_base = data.draw(st.integers(0, 1), label="ADDR_MOD_SET_Base")
    bh = data.draw(st.tuples(st.integers(0, 1023), st.booleans(), st.booleans(), st.integers(0, 1023),
                             st.integers(0, 15)), label="sp_base remap swizzle Sp incr")

    def apply(tile):
        rng = np.random.default_rng(seed)
        cop = tile.tensix
        u = cop.sfpu
        raw = rng.integers(0, 1 << 16, (1024, 16)).astype(np.uint16)
        pick = rng.random((1024, 16)) < 0.3
        raw[pick] = rng.choice(SPECIAL16, int(pick.sum()))
        cop.dst.bits[...] = raw
        lreg = rng.integers(0, 1 << 32, (8, 32), dtype=np.uint64).astype(np.uint32)
        pick = rng.random((8, 32)) < 0.3
        lreg[pick] = rng.choice(SPECIAL32, int(pick.sum()))
        u.lreg[:8] = lreg
        u.lreg[16] = rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)
        if lane_kind == "random":
            lc = rng.integers(0, LANE_CONFIG_MASK + 1, 32)
        elif lane_kind == "rows":
            lc = rng.integers(0, 16, 32) << 12
        elif lane_kind == "exchange":
            lc = rng.integers(0, 4, 32) << 6
        elif lane_kind == "block":
            lc = (rng.integers(0, 4, 32) << 4) | (rng.integers(0, 4, 32) << 2)
        else:
            lc = np.zeros(32, dtype=np.int64)
        u.lane_config[:] = lc.astype(np.uint32)
        if flags_on:
            u.use_flags = rng.random(32) < 0.7
            u.flags = rng.random(32) < 0.6
        cop.dst.aliased16 = aliased
        cfg = cop.config
        kind, value = fmt
        for bank in (0, 1):
            cfg.set("ALU_ACC_CTRL_SFPU_Fp32_enabled", int(kind == "fp32"), bank)
            cfg.set("ALU_FORMAT_SPEC_REG1_SrcB", value, bank)
            cfg.set("ALU_FORMAT_SPEC_REG_SrcB_override", int(kind == "override"), bank)
            cfg.set("ALU_FORMAT_SPEC_REG_SrcB_val", value, bank)
            cfg.set("DEST_REGW_BASE_Base", offsets[1], bank)
            if arch == "blackhole":
                cfg.set("DEST_SP_BASE_Base", bh[0], bank)
                cfg.set("DEST_ACCESS_CFG_remap_addrs", int(bh[1]), bank)
                cfg.set("DEST_ACCESS_CFG_swizzle_32b", int(bh[2]), bank)
        for t in range(3):
            tset(cfg, t, "DEST_TARGET_REG_CFG_MATH_Offset", offsets[0])
            if arch == "wormhole_b0":
                tset(cfg, t, "ADDR_MOD_SET_Base", set_base)
            else:
                tset(cfg, t, "SFPU_STACK_Incr", bh[4])
            for index, incr, cr, clear in mods:
                if arch == "wormhole_b0" and index > 7:
                    continue
                tset(cfg, t, f"ADDR_MOD_DST_SEC{index}_DestIncr", incr)
                tset(cfg, t, f"ADDR_MOD_DST_SEC{index}_DestCR", int(cr))
                tset(cfg, t, f"ADDR_MOD_AB_SEC{index}_SrcAIncr", clear)
                tset(cfg, t, f"ADDR_MOD_BIAS_SEC{index}_BiasIncr", clear & 1)
            r = cop.rwcs.rwc[t]
            r.Dst, r.Dst_Cr, r.SrcA = offsets[2], offsets[2] ^ 5, 7
            r.ExtraAddrModBit = extra
            if arch == "blackhole":
                r.Sp = bh[3]

    return apply


def snapshot(tile):
    cop = tile.tensix
    rwcs = tuple((r.Dst, r.Dst_Cr, r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.FidelityPhase, r.ExtraAddrModBit, r.Sp)
                 for r in cop.rwcs.rwc)
    return cop.sfpu.lreg.tobytes(), cop.dst.raw.tobytes(), rwcs, list(tile.warnings)


def outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the same error from both forms is the expectation
        return type(e).__name__, str(e)
    return None


@settings(max_examples=200, deadline=None)
@given(data=st.data(), arch=st.sampled_from(ARCHES))
def test_fast_sfpload_sfpstore_match_the_general_forms(data, arch):
    apply = draw_state(data, arch)
    mnemonic = data.draw(st.sampled_from(["SFPLOAD", "SFPSTORE"]), label="mnemonic")
    # (mostly what the fast forms take; every VD and Mod0 sometimes)
    fields = dict(lreg_ind=data.draw(st.one_of(st.integers(0, 7), st.integers(0, 16)), label="VD"),
                  instr_mod0=data.draw(st.one_of(st.sampled_from(TABLE_MODES), st.integers(0, 15)), label="Mod0"),
                  sfpu_addr_mode=data.draw(st.integers(0, 7 if arch == "blackhole" else 3), label="AddrMod"),
                  dest_reg_addr=data.draw(st.integers(0, 1023), label="Imm10"))
    thread = data.draw(st.integers(0, 2), label="thread")
    repeat = data.draw(st.integers(1, 3), label="repeat")  # (the second runs with the kept context)
    got = []
    for fast in (True, False):
        tile = Tile(arch)
        apply(tile)
        u = tile.tensix.sfpu
        ins = Insn(mnemonic, fields, thread)
        if fast:
            fn = u.fast_SFPLOAD if mnemonic == "SFPLOAD" else u.fast_SFPSTORE
        else:
            fn = u.general_load if mnemonic == "SFPLOAD" else u.general_store
        errors = [outcome(lambda: fn(ins)) for _ in range(repeat)]
        got.append((errors, snapshot(tile)))
    assert got[0] == got[1]


def test_fast_forms_run_where_they_apply():
    """The cases the fast forms take (not only their fallbacks): BF16 / FP32 / INT32 /
    16-bit table modes with all lanes, some lanes, and lane flags."""
    for arch in ARCHES:
        tile = Tile(arch)
        u = tile.tensix.sfpu
        u.general_load = u.general_store = None  # (would fail if called)
        for mod0 in (2, 3, 4, 6, 7, 8, 9):
            u.fast_SFPLOAD(Insn("SFPLOAD", dict(lreg_ind=1, instr_mod0=mod0, sfpu_addr_mode=0, dest_reg_addr=8), 0))
        for mod0 in (2, 3, 4):
            u.fast_SFPSTORE(Insn("SFPSTORE", dict(lreg_ind=1, instr_mod0=mod0, sfpu_addr_mode=0, dest_reg_addr=8), 0))
        u.lane_config[:4] = 1 << 12  # ROW_MASK: row 0 off in columns 0..3
        u.use_flags = np.ones(32, dtype=bool)
        u.flags = np.arange(32) % 3 == 0
        u.fast_SFPLOAD(Insn("SFPLOAD", dict(lreg_ind=1, instr_mod0=2, sfpu_addr_mode=0, dest_reg_addr=8), 0))
        u.fast_SFPSTORE(Insn("SFPSTORE", dict(lreg_ind=1, instr_mod0=3, sfpu_addr_mode=0, dest_reg_addr=8), 0))


def test_fast_forms_apply_deferred_dst_writes_first():
    """Dst writes the Matrix Unit deferred (``Dst.pending``) land before a fast SFPLOAD
    reads Dst and before a fast SFPSTORE writes it (the store's value is not overwritten
    by them afterwards)."""
    for arch in ARCHES:
        tile = Tile(arch)
        u, dst = tile.tensix.sfpu, tile.tensix.dst
        u.general_load = u.general_store = None  # (would fail if called)
        load = Insn("SFPLOAD", dict(lreg_ind=1, instr_mod0=2, sfpu_addr_mode=0, dest_reg_addr=8), 0)
        store = Insn("SFPSTORE", dict(lreg_ind=1, instr_mod0=2, sfpu_addr_mode=0, dest_reg_addr=8), 0)
        dst.raw.fill(0x3F80)
        u.fast_SFPLOAD(load)
        want = u.lreg[1].copy()
        assert want.any()
        dst.raw.fill(0)
        u.lreg[1] = 0
        dst.pending = lambda: dst.raw.fill(0x3F80)  # the same, deferred
        u.fast_SFPLOAD(load)
        assert dst.pending is None
        np.testing.assert_array_equal(u.lreg[1], want)
        u.fast_SFPSTORE(store)  # (writes back what it loaded: 0x3F80 where it stores)
        dst.pending = lambda: dst.raw.fill(0)
        u.fast_SFPSTORE(store)
        assert dst.pending is None and (dst.raw != 0).sum() == 32


def _stream_words(arch, data):
    t = get_table(arch)
    words = []
    for _ in range(data.draw(st.integers(4, 24), label="length")):
        kind = data.draw(st.sampled_from(["load", "store", "load", "store", "loadi", "config", "setcc", "encc", "nop",
                                          "cfg", "cfg", "lane"]), label="kind")
        if kind in ("load", "store"):
            words.append(("word", t.encode("SFPLOAD" if kind == "load" else "SFPSTORE",
                                           lreg_ind=data.draw(st.integers(0, 7)),
                                           instr_mod0=data.draw(st.sampled_from([0, 2, 3, 4, 6, 9, 10])),
                                           sfpu_addr_mode=data.draw(st.integers(0, 3)),
                                           dest_reg_addr=data.draw(st.integers(0, 1023)))))
        elif kind == "loadi":
            words.append(("word", t.encode("SFPLOADI", lreg_ind=data.draw(st.integers(0, 3)), instr_mod0=2,
                                           imm16=data.draw(st.integers(0, 0xFFFF)))))
        elif kind == "config":  # SFPCONFIG: LaneConfig from Imm16 (MOD1_IMM16_IS_VALUE)
            words.append(("word", t.encode("SFPCONFIG", config_dest=15, instr_mod1=1,
                                           imm16_math=data.draw(st.sampled_from([0, 0x40, 0x80, 0x30, 0x4, 0xC])))))
        elif kind == "setcc":  # lane flags from LReg[VC]'s sign, flags on
            words.append(("word", t.encode("SFPSETCC", lreg_c=data.draw(st.integers(0, 3)), lreg_dest=0,
                                           instr_mod1=0, imm12_math=0)))
        elif kind == "encc":
            words.append(("word", t.encode("SFPENCC", lreg_c=0, lreg_dest=0, instr_mod1=data.draw(st.integers(0, 10)),
                                           imm12_math=data.draw(st.integers(0, 3)))))
        elif kind == "nop":
            words.append(("word", t.encode("SFPNOP")))
        elif kind == "cfg":
            words.append(("cfg", data.draw(st.integers(0, 3)), data.draw(st.integers(0, 63))))
        else:
            words.append(("lane", data.draw(st.integers(0, 31)), data.draw(st.integers(0, LANE_CONFIG_MASK))))
    return words


@settings(max_examples=60, deadline=None)
@given(data=st.data(), arch=st.sampled_from(ARCHES))
def test_streams_with_fast_forms_on_and_off_match(data, arch):
    """Instruction streams through the frontend, the fast forms on and off, with Config,
    ThreadConfig, LaneConfig and Dst aliasing changed between instructions."""
    apply = draw_state(data, arch)
    steps = _stream_words(arch, data)
    got = []
    for fast in (True, False):
        tile = Tile(arch)
        apply(tile)
        cop = tile.tensix
        cop.sfpu.ls_fast = fast
        t = cop.threads[1]
        out = []
        for step in steps:
            if step[0] == "word":
                t.push(step[1], "test", after_mop=True)
                out.append(outcome(cop.kick))
            elif step[0] == "cfg":
                what, value = step[1:]
                if what == 0:
                    cop.config.set("DEST_REGW_BASE_Base", value * 4, cop.config.bank_of(1))
                elif what == 1:
                    cop.config.set("ALU_FORMAT_SPEC_REG1_SrcB", value & 15, cop.config.bank_of(1))
                elif what == 2:
                    tset(cop.config, 1, "ADDR_MOD_DST_SEC0_DestIncr", value & 7)
                else:
                    cop.dst.aliased16 = not cop.dst.aliased16
            else:
                cop.sfpu.lane_config[step[1]] = step[2]
            out.append(snapshot(tile))
        got.append(out)
    assert got[0] == got[1]


def _change(tile, what):
    cop = tile.tensix
    u = cop.sfpu
    if what == "aliased16":
        cop.dst.aliased16 = True
    elif what == "lane_config":
        u.lane_config[3] = (1 << 6) | (1 << 7) | (1 << 13)  # column exchange, row 1 masked in column 3
    elif what == "lane_config_replaced":
        u.lane_config = u.lane_config.copy()
        u.lane_config[5] = 1 << 5  # BLOCK_SFPU_RD_FROM_DEST
    elif what == "config":
        cop.config.set("DEST_REGW_BASE_Base", 12, cop.config.bank_of(1))
    elif what == "srcb_fp32":
        cop.config.set("ALU_ACC_CTRL_SFPU_Fp32_enabled", 1, cop.config.bank_of(1))
    elif what == "thread_config":
        tset(cop.config, 1, "DEST_TARGET_REG_CFG_MATH_Offset", 40)
    elif what == "addr_mod":
        tset(cop.config, 1, "ADDR_MOD_DST_SEC0_DestIncr", 4)
    elif what == "flags":
        u.use_flags = np.ones(32, dtype=bool)
        u.flags = np.arange(32) % 5 != 0
    elif what == "capture":
        u.lane_config[:] = (1 << 2) | (1 << 3)  # ENABLE_DEST_INDEX, CAPTURE_DEFAULT_DEST_INDEX
    elif what == "dst_log":
        cop.issuing = cop.threads[1]
        cop.math._log_dst_write("16", 0, 64)  # (as an FPU write of Dst rows 0..63 logs itself)
    elif what == "rwc":
        cop.rwcs.rwc[1].Dst = 100


CHANGES = ("aliased16", "lane_config", "lane_config_replaced", "config", "srcb_fp32", "thread_config", "addr_mod",
           "flags", "capture", "dst_log", "rwc")


def _one(arch, raw, lreg, mnemonic, mod0, fast):
    """(a tile with Dst ``raw`` and LReg[0..7] ``lreg``, the fast or general form of
    ``mnemonic``, its Insn on thread 1: LReg 2, ``mod0``, AddrMod 0, Imm10 6)."""
    tile = Tile(arch)
    tile.tensix.dst.bits[...] = raw
    u = tile.tensix.sfpu
    u.lreg[:8] = lreg
    ins = Insn(mnemonic, dict(lreg_ind=2, instr_mod0=mod0, sfpu_addr_mode=0, dest_reg_addr=6), 1)
    if fast:
        fn = u.fast_SFPLOAD if mnemonic == "SFPLOAD" else u.fast_SFPSTORE
    else:
        fn = u.general_load if mnemonic == "SFPLOAD" else u.general_store
    return tile, fn, ins


def test_fast_forms_see_every_change_they_depend_on():
    """An instruction run with the fast form keeps its LSContext; each change below, made
    between two instructions, must reach the second one as it reaches the general form."""
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 1 << 16, (1024, 16)).astype(np.uint16)
    for arch in ARCHES:
        for what in CHANGES:
            for mnemonic, mod0 in (("SFPLOAD", 0), ("SFPLOAD", 2), ("SFPSTORE", 0), ("SFPSTORE", 3)):
                got = []
                lreg = rng.integers(0, 1 << 32, (8, 32), dtype=np.uint64).astype(np.uint32)
                for fast in (True, False):
                    tile, fn, ins = _one(arch, raw, lreg, mnemonic, mod0, fast)
                    fn(ins)
                    _change(tile, what)
                    fn(ins)
                    fn(ins)
                    got.append(snapshot(tile))
                assert got[0] == got[1], (arch, what, mnemonic, mod0)


@settings(max_examples=100, deadline=None)
@given(mod0=st.sampled_from([0, 1, 2, 4]), imm16=st.one_of(st.integers(0, 0xFFFF),
                                                             st.sampled_from([0, 0x8000, 0x7C00, 0xFC00, 0x7FFF,
                                                                              0xFFFF, 0x03FF, 0x3F80])),
       enabled=st.lists(st.booleans(), min_size=32, max_size=32), vd=st.integers(0, 16))
def test_sfploadi_constant_values_match_the_page(mod0, imm16, enabled, vd):
    """SFPLOADI's kept values (loadstore.loadi_value) against SFPLOADI.md's modes written
    out here, through x_SFPLOADI with some lanes disabled by the lane flags."""
    if mod0 == 0:
        want = imm16 << 16
    elif mod0 == 1:  # FP16toFP32: always rebias
        want = ((imm16 >> 15) << 31) | ((((imm16 >> 10) & 0x1F) + 112) << 23) | ((imm16 & 0x3FF) << 13)
    elif mod0 == 2:
        want = imm16
    else:
        want = (imm16 | 0xFFFF0000) if imm16 & 0x8000 else imm16
    tile = Tile("wormhole_b0")
    u = tile.tensix.sfpu
    before = u.lreg.copy()
    u.use_flags = np.ones(32, dtype=bool)
    u.flags = np.array(enabled)
    u.execute(Insn("SFPLOADI", dict(lreg_ind=vd, instr_mod0=mod0, imm16=imm16), 0))
    expect = before.copy()
    if vd < 8:
        expect[vd][np.array(enabled)] = want
    assert np.array_equal(u.lreg, expect)


@settings(max_examples=60, deadline=None)
@given(exchange=st.lists(st.booleans(), min_size=8, max_size=8), dst32=st.booleans(), aliased=st.booleans(),
       remap=st.booleans(), swizzle=st.booleans(), addrs=st.lists(st.integers(0, 1023), min_size=1, max_size=8))
def test_lane_index_tables_match_dst_md_lane_by_lane(exchange, dst32, aliased, remap, swizzle, addrs):
    """loadstore.index_tables (the lanes' DstBits indices both SFPLOAD / SFPSTORE forms use)
    against SFPLOAD.md's lane rows / columns and Dst.md's Adj16 / Adj32 for one row at a
    time (regs.dst.adj16_row / adj_row)."""
    from ttemu.tensix.regs.dst import adj16_row, adj_row
    from ttemu.tensix.units.sfpu.loadstore import index_tables
    col_x = np.array([exchange[lane & 7] for lane in range(32)])
    high, low = index_tables(col_x, dst32, aliased, remap, swizzle)
    for addr in addrs:
        for lane in range(32):
            row = ((addr & ~3) + lane // 8) & 0x3FF
            col = 2 * (lane & 7) + (1 if (addr & 2) or col_x[lane] else 0)
            if dst32:
                r = adj_row(row, remap, swizzle)
                assert (high[addr][lane], low[addr][lane]) == (r * 16 + col, (r + 8) * 16 + col)
            else:
                r = adj16_row(row, remap)
                if aliased:
                    r = adj_row(r)
                assert high[addr][lane] == r * 16 + col and low is None


def test_fast_forms_take_a_context_again_only_when_it_still_holds():
    """A context made for the same Config-derived values is taken again when the
    configuration comes back to them (Dst halves alternate per tile), and not when an
    AddrMod it looked at moves a counter now: fast and general forms agree through
    DEST_TARGET_REG_CFG_MATH_Offset going 0 -> 40 -> 0, then the AddrMod changing while
    the offset goes 40 -> 0 again."""
    rng = np.random.default_rng(11)
    raw = rng.integers(0, 1 << 16, (1024, 16)).astype(np.uint16)
    steps = [("offset", 40), ("offset", 0), ("offset", 40), ("addr_mod", 4), ("offset", 0), ("addr_mod", 0),
             ("offset", 40), ("offset", 0)]
    for arch in ARCHES:
        for mnemonic, mod0 in (("SFPLOAD", 2), ("SFPSTORE", 2), ("SFPLOAD", 3), ("SFPSTORE", 0)):
            got = []
            lreg = rng.integers(0, 1 << 32, (8, 32), dtype=np.uint64).astype(np.uint32)
            for fast in (True, False):
                tile, fn, ins = _one(arch, raw, lreg, mnemonic, mod0, fast)
                cop = tile.tensix
                u = cop.sfpu
                out = []
                fn(ins)
                for what, value in steps:
                    tset(cop.config, 1, "DEST_TARGET_REG_CFG_MATH_Offset" if what == "offset"
                         else "ADDR_MOD_DST_SEC0_DestIncr", value)
                    u.lreg[2] += np.uint32(0x10001)  # (each store writes other bits)
                    fn(ins)
                    out.append(snapshot(tile))
                got.append(out)
            assert got[0] == got[1], (arch, mnemonic, mod0)
            if mnemonic == "SFPLOAD":
                assert len(u.ls_known[1]) == 0  # (the general form makes no context)
