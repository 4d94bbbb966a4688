"""Vector Unit moves between Dst and LRegs, and immediates: SFPLOAD.md, SFPSTORE.md,
SFPLOADI.md (with Dst.md's Dst16b / Dst32b views and FloatBitPatterns.md).

References below are written from the pages' supporting definitions (``ReadFP16``,
``UnshuffleFP32``, ``ToFP16``, ``FP16Shuffle``, ...), element by element."""

from __future__ import annotations

import numpy as np
import pytest

from test_unit_sfpu import LANES, RNG, U32, b2f, f2b, fbits, put, setup
from tensix_harness import warned
from ttemu import UndefinedBehaviour
from ttemu.tensix.regs.dst import adj_rows

FP16, BF16, FP32, INT32, INT8, UINT16, HI16, INT16, LO16, INT32_ALL, ZERO, INT32_SM, INT8_COMP, LO16_ONLY, \
    HI16_ONLY = range(1, 16)
DST32_LOAD = {FP32, INT32, INT32_ALL, INT32_SM}
DST32_STORE = {FP32, INT32, INT32_ALL, INT32_SM, LO16, HI16}


def load(issue, vd, mod0, addr=0, am=0, thread=0):
    issue(thread, "SFPLOAD", lreg_ind=vd, instr_mod0=mod0, sfpu_addr_mode=am, dest_reg_addr=addr)


def store(issue, vd, mod0, addr=0, am=0, thread=0):
    issue(thread, "SFPSTORE", lreg_ind=vd, instr_mod0=mod0, sfpu_addr_mode=am, dest_reg_addr=addr)


def lane_cells(addr):
    """(Dst16b/Dst32b row, column) each lane reaches for ``Addr`` (SFPLOAD.md)."""
    rows = (addr & ~3) + LANES // 8
    cols = (LANES & 7) * 2 + (1 if addr & 2 else 0)
    return rows, cols


def dst16(tile, rows, cols):
    return tile.tensix.dst.bits[rows, cols].astype(np.int64)


def dst32(tile, rows, cols):
    b = tile.tensix.dst.bits
    a = adj_rows(rows)
    return (b[a, cols].astype(np.int64) << 16) | b[a + 8, cols]


# ------------------------------------------------------------- reference conversions
def read_fp16(x, inf=False):
    s, m, e = x >> 15, (x >> 5) & 0x3FF, x & 0x1F
    if inf and e == 0x1F and m == 0x3FF:
        e8, m = 255, 0
    else:
        e8 = e + 112 if e else 0
    return (s << 31) | (e8 << 23) | (m << 13)


def unshuffle_bf16(x):
    return (x & 0x8000) | ((x & 0xFF) << 7) | ((x & 0x7F00) >> 8)


def unshuffle_fp32(x):
    return (unshuffle_bf16(x >> 16) << 16) | (x & 0xFFFF)


def sm_to_twos(x):
    mag = x & 0x7FFFFFFF
    return (-mag) & 0xFFFFFFFF if x >> 31 else mag


def ref_load(x, mod0, old=0, inf=False):
    return {
        FP16: lambda: read_fp16(x, inf),
        BF16: lambda: unshuffle_bf16(x) << 16,
        FP32: lambda: unshuffle_fp32(x), INT32: lambda: unshuffle_fp32(x), INT32_ALL: lambda: unshuffle_fp32(x),
        INT32_SM: lambda: sm_to_twos(unshuffle_fp32(x)),
        INT8: lambda: ((x >> 15) << 31) | ((x >> 5) & 0x7F),
        INT8_COMP: lambda: sm_to_twos(((x >> 15) << 31) | ((x >> 5) & 0x3FF)),
        LO16_ONLY: lambda: (old & 0xFFFF0000) | x,
        HI16_ONLY: lambda: (x << 16) | (old & 0xFFFF),
        INT16: lambda: ((x >> 15) << 31) | (x & 0x7FFF),
        UINT16: lambda: x, LO16: lambda: x, HI16: lambda: x << 16, ZERO: lambda: 0,
    }[mod0]()


def to_fp16(x):
    s, e, m = x >> 31, ((x >> 23) & 0xFF) - 112, x & 0x7FFFFF
    if e <= 0:
        e, m = 0, 0
    elif e > 31:
        e, m = 31, 0x7FFFFF
    return (s << 15) | (e << 10) | (m >> 13)


def fp16_shuffle(h):
    return (h & 0x8000) | ((h & 0x3FF) << 5) | ((h & 0x7C00) >> 10)


def bf16_shuffle(h):
    return (h & 0x8000) | ((h & 0x7F) << 8) | ((h & 0x7F80) >> 7)


def to_bf16(x):
    return (x & 0x80000000 if (x & 0x7F800000) == 0 else x) >> 16


def to_sm(x):
    s = x & 0x80000000
    return s | (((-x) & 0xFFFFFFFF if s else x) & 0x7FFFFFFF)


def ref_store(x, mod0):
    return {
        FP16: lambda: fp16_shuffle(to_fp16(x)),
        BF16: lambda: bf16_shuffle(to_bf16(x)),
        FP32: lambda: (bf16_shuffle(x >> 16) << 16) | (x & 0xFFFF),
        INT32: lambda: (bf16_shuffle(x >> 16) << 16) | (x & 0xFFFF),
        INT32_ALL: lambda: (bf16_shuffle(x >> 16) << 16) | (x & 0xFFFF),
        INT32_SM: lambda: (bf16_shuffle(to_sm(x) >> 16) << 16) | (to_sm(x) & 0xFFFF),
        INT8: lambda: fp16_shuffle(((x >> 31) << 15) | (16 << 10) | (x & 0x3FF)),
        INT8_COMP: lambda: fp16_shuffle(((to_sm(x) >> 31) << 15) | (16 << 10) | (to_sm(x) & 0x3FF)),
        LO16_ONLY: lambda: x & 0xFFFF, HI16_ONLY: lambda: x >> 16,
        INT16: lambda: ((x >> 31) << 15) | (x & 0x7FFF),
        UINT16: lambda: x & 0xFFFF,
        LO16: lambda: ((x << 16) & 0xFFFFFFFF) | (x >> 16),
        HI16: lambda: x, ZERO: lambda: 0,
    }[mod0]()


ALL_MODES = [FP16, BF16, FP32, INT32, INT8, UINT16, HI16, INT16, LO16, INT32_ALL, ZERO, INT32_SM, INT8_COMP,
             LO16_ONLY, HI16_ONLY]


# ---------------------------------------------------------------------------- SFPLOAD
@pytest.mark.parametrize("mod0", ALL_MODES)
@pytest.mark.parametrize("addr", [0, 2, 4, 0x1FE, 0x3FC])
def test_load_every_mode(mod0, addr):
    """SFPLOAD.md: Row = (Addr & ~3) + Lane / 8, Column = 2 * (Lane & 7) + Addr bit 1, then
    the Mod0 conversion (Dst32b for the 32-bit modes, Dst16b otherwise)."""
    tile, issue, u = setup()
    tile.tensix.dst.bits[:] = RNG.integers(0, 1 << 16, tile.tensix.dst.bits.shape).astype(np.uint16)
    old = RNG.integers(0, 1 << 32, 32, dtype=np.uint64).astype(U32)
    put(u, 2, old)
    load(issue, 2, mod0, addr)
    rows, cols = lane_cells(addr)
    raw = dst32(tile, rows, cols) if mod0 in DST32_LOAD else dst16(tile, rows, cols)
    want = [ref_load(int(x), mod0, int(o)) for x, o in zip(raw, old)]
    assert [hex(g) for g in u.lreg[2]] == [hex(w) for w in want]


def test_load_fp16_infinity_option_and_denormals():
    """SFPLOAD.md ReadFP16 / FloatBitPatterns.md: exponent 31 is finite unless ENABLE_FP16A_INF
    (then exponent 31 mantissa 1023 is Inf); FP16 denormals stay FP32 denormals."""
    tile, issue, u = setup()
    vals = [(0, 0x3FF, 0x1F), (1, 0x3FF, 0x1F), (0, 0x3FE, 0x1F), (0, 5, 0), (1, 0, 0), (0, 0, 15)] + [(0, 0, 0)] * 2
    tile.tensix.dst.bits[0, 0::2] = [(s << 15) | (m << 5) | e for s, m, e in vals]  # lanes 0..7
    load(issue, 0, FP16)
    got = u.lreg[0][:8]
    assert got[0] == (143 << 23) | (0x3FF << 13)  # 65504 * 2, finite
    assert got[3] == 5 << 13 and got[4] == 0x80000000 and got[5] == fbits(1.0)
    u.lane_config[:] = 1  # ENABLE_FP16A_INF
    load(issue, 0, FP16)
    got = u.lreg[0][:8]
    assert got[0] == 0x7F800000 and got[1] == 0xFF800000 and got[2] == (143 << 23) | (0x3FE << 13)


def test_load_lane_enables_and_int32_all():
    """SFPLOAD.md: disabled lanes keep their value, except with MOD0_FMT_INT32_ALL, which also
    adds only (RWC Dst + DEST_REGW_BASE) & 3 to the address."""
    tile, issue, u = setup()
    tile.tensix.dst.write32(0, RNG.integers(0, 1 << 32, (8, 16), dtype=np.uint64).astype(U32))
    u.use_flags[:] = True
    u.flags[:] = LANES % 3 == 0
    load(issue, 1, FP32)
    rows, cols = lane_cells(0)
    full = [unshuffle_fp32(int(x)) for x in dst32(tile, rows, cols)]
    assert np.array_equal(u.lreg[1], np.where(LANES % 3 == 0, full, 0))
    tile.tensix.rwcs[0].Dst = 16 + 2  # only the low two bits count for INT32_ALL
    load(issue, 1, INT32_ALL)
    rows, cols = lane_cells(2)
    assert np.array_equal(u.lreg[1], [unshuffle_fp32(int(x)) for x in dst32(tile, rows, cols)])


def test_load_address_sum_and_partial_addr_mod():
    """SFPLOAD.md: Addr = Imm10 + DEST_TARGET_REG_CFG_MATH_Offset + RWC Dst + DEST_REGW_BASE
    (mod 1024); afterwards ApplyPartialAddrMod (Dst / Src RWCs, not the fidelity phase)."""
    tile, issue, u = setup()
    cop = tile.tensix
    cop.dst.bits[:] = (np.arange(1024)[:, None] * 16 + np.arange(16)[None, :]).astype(np.uint16)
    cfg = cop.config
    off_index = cfg.thread_fields["DEST_TARGET_REG_CFG_MATH_Offset"][0]
    cfg.thread_set_word(1, off_index, 0x100)
    cfg.set("DEST_REGW_BASE_Base", 0x40, bank=0)
    cop.rwcs[1].Dst = 0x20
    incr_index = cfg.thread_fields["ADDR_MOD_DST_SEC2_DestIncr"][0]
    cfg.thread_set_word(1, incr_index, 4 | (1 << 13))  # DestIncr 4, FidelityIncr 1
    load(issue, 3, UINT16, addr=0x3E2 & 0x3FF, am=2, thread=1)
    addr = (0x3E2 + 0x100 + 0x20 + 0x40) & 0x3FF
    rows, cols = lane_cells(addr)
    assert np.array_equal(u.lreg[3], rows * 16 + cols)
    assert cop.rwcs[1].Dst == 0x24 and cop.rwcs[1].FidelityPhase == 0


def test_load_lane_config_blocks_exchange_and_dest_index():
    """SFPCONFIG.md LaneConfig: BLOCK_SFPU_RD_FROM_DEST keeps the LReg, DEST_RD_COL_EXCHANGE
    reads odd columns, ENABLE_DEST_INDEX + CAPTURE_DEFAULT_DEST_INDEX also writes
    (Row << 4) | Column to LReg[VD + 4] (VD < 4)."""
    tile, issue, u = setup()
    tile.tensix.dst.bits[:] = (np.arange(1024)[:, None] * 16 + np.arange(16)[None, :]).astype(np.uint16)
    cfg = np.zeros(32, dtype=U32)
    cfg[LANES & 7 == 1] = 1 << 5  # column 1 blocked
    cfg[LANES & 7 == 2] = 1 << 6  # column 2 exchanged
    cfg |= (1 << 2) | (1 << 3)
    u.lane_config[:] = cfg
    put(u, 0, 0xDEAD)
    put(u, 4, 0xBEEF)
    load(issue, 0, UINT16, addr=8)
    rows, cols = lane_cells(8)
    cols = np.where(LANES & 7 == 2, cols + 1, cols)
    assert np.array_equal(u.lreg[0], np.where(LANES & 7 == 1, 0xDEAD, rows * 16 + cols))
    assert np.array_equal(u.lreg[4], np.where(LANES & 7 == 1, 0xBEEF, (rows << 4) | cols))


def test_load_srcb_format_resolution():
    """SFPLOAD.md MOD0_FMT_SRCB: FP32 when ALU_ACC_CTRL_SFPU_Fp32_enabled; else BF16 for SrcB
    formats FP32 / TF32 / BF16 / BFP8 / BFP4 / BFP2 / INT32 / INT16, FP16 otherwise;
    ALU_FORMAT_SPEC_REG_SrcB_override selects SrcB_val. (The seed text says the Dst lane
    width is set by ALU_ACC_CTRL_SFPU Fp32_enabled; per the pages, Mod0 selects the
    conversion and Fp32_enabled only matters when resolving MOD0_FMT_SRCB.)"""
    tile, issue, u = setup()
    cop = tile.tensix
    cop.dst.bits[:] = RNG.integers(0, 1 << 16, cop.dst.bits.shape).astype(np.uint16)
    rows, cols = lane_cells(0)
    raw16 = dst16(tile, rows, cols)
    cfg = cop.config
    for fmt, want_mode in ((5, BF16), (1, FP16), (0, BF16), (6, BF16), (2, FP16), (10, FP16), (9, BF16)):
        cfg.set("ALU_FORMAT_SPEC_REG1_SrcB", fmt)
        load(issue, 0, 0)
        assert np.array_equal(u.lreg[0], [ref_load(int(x), want_mode) for x in raw16]), fmt
    cfg.set("ALU_FORMAT_SPEC_REG_SrcB_override", 1)
    cfg.set("ALU_FORMAT_SPEC_REG_SrcB_val", 1)
    cfg.set("ALU_FORMAT_SPEC_REG1_SrcB", 5)
    load(issue, 0, 0)
    assert np.array_equal(u.lreg[0], [ref_load(int(x), FP16) for x in raw16])
    cfg.set("ALU_ACC_CTRL_SFPU_Fp32_enabled", 1)
    load(issue, 0, 0)
    assert np.array_equal(u.lreg[0], [ref_load(int(x), FP32) for x in dst32(tile, rows, cols)])


# --------------------------------------------------------------------------- SFPSTORE
@pytest.mark.parametrize("mod0", ALL_MODES)
@pytest.mark.parametrize("addr", [0, 2, 0x1FC, 0x3FE])
def test_store_every_mode(mod0, addr):
    """SFPSTORE.md: the inverse addressing of SFPLOAD, Mod0's conversion, and only the
    addressed cells change."""
    tile, issue, u = setup()
    before = RNG.integers(0, 1 << 16, tile.tensix.dst.bits.shape).astype(np.uint16)
    tile.tensix.dst.bits[:] = before
    v = RNG.integers(0, 1 << 32, 32, dtype=np.uint64).astype(U32)
    v[:6] = [0, 0x80000000, 0x7F800000, 0x00000001, 0xC7000000, 0x477FE000]
    put(u, 5, v)
    store(issue, 5, mod0, addr)
    rows, cols = lane_cells(addr)
    want = [ref_store(int(x), mod0) for x in v]
    got = dst32(tile, rows, cols) if mod0 in DST32_STORE else dst16(tile, rows, cols)
    assert [hex(g) for g in got] == [hex(w) for w in want]
    changed = tile.tensix.dst.bits != before
    if mod0 in DST32_STORE:
        cells = {(int(r), int(c)) for a, c in zip(adj_rows(rows), cols) for r in (a, a + 8)}
    else:
        cells = {(int(r), int(c)) for r, c in zip(rows, cols)}
    assert {(int(r), int(c)) for r, c in zip(*np.nonzero(changed))} <= cells


def test_store_fp16_bf16_rounding_and_saturation():
    """SFPSTORE.md ToFP16 / ToBF16: truncate toward zero, flush denormals / underflow to
    signed zero, FP16 saturates (Inf, NaN, large) to exponent 31 mantissa 1023."""
    tile, issue, u = setup()
    x = np.array([1.0 + 2**-11, 1.0 + 2**-10 - 2**-20, 2.0**-20, -(2.0**-30), 1e6, -np.inf, np.nan, 65504.0]
                 * 4, dtype=np.float32)
    put(u, 0, f2b(x))
    store(issue, 0, FP16)
    rows, cols = lane_cells(0)
    got = dst16(tile, rows, cols)[:8]
    h = [(got_i & 0x8000) | ((got_i & 0x1F) << 10) | ((got_i >> 5) & 0x3FF) for got_i in got]
    assert h == [0x3C00, 0x3C00, 0, 0x8000, 0x7FFF, 0xFFFF, 0x7FFF, 0x7BFF]
    store(issue, 0, BF16)
    got = dst16(tile, rows, cols)[:8]
    b = [unshuffle_bf16(int(g)) for g in got]
    assert b[0] == 0x3F80 and b[1] == 0x3F80 and b[5] == 0xFF80 and b[7] == 0x477F


def test_store_lane_config_and_enables():
    """SFPSTORE.md: BLOCK_DEST_WR_FROM_SFPU skips lanes, DEST_WR_COL_EXCHANGE writes odd
    columns, disabled lanes are skipped except with MOD0_FMT_INT32_ALL."""
    tile, issue, u = setup()
    put(u, 1, (LANES + 1).astype(U32))
    cfg = np.zeros(32, dtype=U32)
    cfg[LANES & 7 == 3] = 1 << 4
    cfg[LANES & 7 == 4] = 1 << 7
    u.lane_config[:] = cfg
    u.use_flags[:] = True
    u.flags[:] = LANES < 24
    store(issue, 1, UINT16, addr=0)
    bits = tile.tensix.dst.bits
    for lane in range(32):
        r, c = lane // 8, (lane & 7) * 2 + (1 if lane & 7 == 4 else 0)
        want = lane + 1 if (lane < 24 and lane & 7 != 3) else 0
        assert bits[r, c] == want, lane
    store(issue, 1, INT32_ALL, addr=8)
    rows, cols = lane_cells(8)
    cols = np.where(LANES & 7 == 4, cols + 1, cols)
    got = dst32(tile, rows, cols)
    assert np.array_equal(np.where(LANES & 7 == 3, 0, got), np.where(LANES & 7 == 3, 0, ref_store_arr(LANES + 1)))


def ref_store_arr(v):
    return np.array([ref_store(int(x), INT32) for x in v])


@pytest.mark.parametrize("mod0,values", [
    (FP32, f2b(RNG.normal(size=32) * 1e10)),
    (INT32, RNG.integers(0, 1 << 32, 32, dtype=np.uint64).astype(U32)),
    (INT32_ALL, RNG.integers(0, 1 << 32, 32, dtype=np.uint64).astype(U32)),
    (INT32_SM, RNG.integers(-2**31 + 1, 2**31, 32).astype(np.int32).view(U32)),
    (FP16, f2b(np.float16(RNG.normal(size=32) * 100).astype(np.float32))),
    (BF16, f2b(RNG.normal(size=32)) & 0xFFFF0000),
    (INT8, np.array([(s << 31) | m for s, m in zip(RNG.integers(0, 2, 32), RNG.integers(0, 128, 32))], U32)),
    (INT8_COMP, RNG.integers(-1023, 1024, 32).astype(np.int32).view(U32)),
    (INT16, np.array([(s << 31) | m for s, m in zip(RNG.integers(0, 2, 32), RNG.integers(0, 1 << 15, 32))], U32)),
    (UINT16, RNG.integers(0, 1 << 16, 32).astype(U32)),
    (LO16, RNG.integers(0, 1 << 16, 32).astype(U32)),
    (HI16, RNG.integers(0, 1 << 16, 32).astype(U32) << 16),
])
def test_store_load_round_trip(mod0, values):
    """SFPSTORE then SFPLOAD with the same Mod0 returns the value for each mode's documented
    input range (FP16: FP16-representable normals; INT8: sign-magnitude +-127; INT8_COMP:
    two's complement +-1023; INT16: sign-magnitude +-32767; ...). A sign-magnitude -0
    reads back as +0 in the two's complement modes."""
    tile, issue, u = setup()
    values = values.copy()
    if mod0 == INT8:
        values[values == 0x80000000] = 0
    put(u, 0, values)
    store(issue, 0, mod0, addr=0)
    load(issue, 1, mod0, addr=0)
    assert [hex(x) for x in u.lreg[1]] == [hex(x) for x in values]


def test_only16_round_trip_preserves_other_half():
    tile, issue, u = setup()
    v = RNG.integers(0, 1 << 32, 32, dtype=np.uint64).astype(U32)
    put(u, 0, v)
    store(issue, 0, LO16_ONLY, addr=0)
    store(issue, 0, HI16_ONLY, addr=2)
    put(u, 1, 0x12345678)
    load(issue, 1, LO16_ONLY, addr=0)
    load(issue, 1, HI16_ONLY, addr=2)
    assert np.array_equal(u.lreg[1], v)


def test_store_from_constant_registers():
    """SFPSTORE.md: VD may name a constant register: VD < 12, or any with
    DISABLE_BACKDOOR_LOAD (without it, VD >= 12 stores nothing: see the backdoor tests)."""
    tile, issue, u = setup()
    store(issue, 15, UINT16)
    rows, cols = lane_cells(0)
    assert np.all(dst16(tile, rows, cols) == 0)
    store(issue, 10, FP32, addr=4)
    rows, cols = lane_cells(4)
    assert np.all(dst32(tile, rows, cols) == ref_store(0x3F800000, FP32))
    u.lane_config[:] = 2  # DISABLE_BACKDOOR_LOAD: VD 12..15 are LRegs again
    store(issue, 15, UINT16)
    rows, cols = lane_cells(0)
    assert np.array_equal(dst16(tile, rows, cols), LANES * 2)
    store(issue, 12, FP32, addr=8)
    rows, cols = lane_cells(8)
    assert np.all(dst32(tile, rows, cols) == ref_store(fbits(1 / 65536), FP32))


# --------------------------------------------------------------------------- SFPLOADI
@pytest.mark.parametrize("imm", [0x0000, 0x3C00, 0x8001, 0x7BFF, 0xFFFF, 0x0400, 0x1234])
def test_loadi_modes(imm):
    """SFPLOADI.md: BF16 (0), FP16 with no special cases (1), zero-extend (2), sign-extend
    (4), upper half keeping the lower (8), lower half keeping the upper (10)."""
    _, issue, u = setup()
    old = RNG.integers(0, 1 << 32, 32, dtype=np.uint64).astype(U32)

    def run(mod):
        put(u, 3, old)
        issue(0, "SFPLOADI", lreg_ind=3, instr_mod0=mod, imm16=imm)
        return u.lreg[3]

    assert np.all(run(0) == imm << 16)
    s, e, m = imm >> 15, (imm >> 10) & 31, imm & 0x3FF
    assert np.all(run(1) == (s << 31) | ((e + 112) << 23) | (m << 13))
    assert np.all(run(2) == imm)
    assert np.all(run(4) == (imm - 0x10000 if imm & 0x8000 else imm) & 0xFFFFFFFF)
    assert np.array_equal(run(8), (imm << 16) | (old & 0xFFFF))
    assert np.array_equal(run(10), (old & 0xFFFF0000) | imm)


def test_loadi_fp16_zero_is_not_zero():
    """FloatBitPatterns.md FP16 table: SFPLOADI reads 0x0000 as 2**-15, not 0."""
    _, issue, u = setup()
    issue(0, "SFPLOADI", lreg_ind=0, instr_mod0=1, imm16=0)
    assert np.all(b2f(u.lreg[0]) == 2.0**-15)


@pytest.mark.parametrize("mod", [3, 5, 6, 7, 9, 11, 12, 15])
def test_loadi_undefined_modes(mod):
    """SFPLOADI.md's default case is undefined: a warning; LReg[VD] is left unchanged."""
    tile, issue, u = setup()
    put(u, 0, 0x12345678)
    issue(0, "SFPLOADI", lreg_ind=0, instr_mod0=mod, imm16=1)
    warned(tile, f"SFPLOADI Mod0={mod}")
    assert np.all(u.lreg[0] == 0x12345678)
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="SFPLOADI"):
        issue(0, "SFPLOADI", lreg_ind=0, instr_mod0=mod, imm16=1)


def test_loadi_lane_enables_and_constant_targets():
    """SFPLOADI.md: only enabled lanes; VD >= 8 writes nothing (11..14 via SFPCONFIG)."""
    _, issue, u = setup()
    u.use_flags[:] = True
    u.flags[:] = LANES < 4
    issue(0, "SFPLOADI", lreg_ind=2, instr_mod0=2, imm16=9)
    assert np.array_equal(u.lreg[2], np.where(LANES < 4, 9, 0))
    u.lane_config[:] = 2  # no backdoor write either
    issue(0, "SFPLOADI", lreg_ind=11, instr_mod0=2, imm16=9)
    assert np.all(u.lreg[11] == fbits(-1.0))
