"""Matrix Unit (FPU) data movement, clearing and housekeeping: MOVA2D.md, MOVDBGA2D.md,
MOVB2D.md, MOVD2A.md, MOVD2B.md, MOVB2A (upstream tt-isa-documentation MOVB2A.md; not
in the local copy), ZEROACC.md, ZEROSRC.md, TRNSPSRCB.md, SHIFTXA.md, SHIFTXB.md,
CLEARDVALID.md, SETRWC.md, INCRWC.md, CLREXPHIST.md, GATESRCRST.md."""

import numpy as np
import pytest

from test_unit_math_helpers import (
    FMT_BF16,
    FMT_FP16,
    FMT_FP32,
    FMT_TF32,
    WH,
    bf16_bits,
    direct,
    dst_bf16,
    dst_fp32,
    give,
    put_dst_bf16,
    put_dst_fp16,
    put_dst_fp32,
    put_src,
    setup,
    src_bf16,
    src_fp16,
    src_tf32,
    tset,
)
from tensix_harness import push_word, warned
from ttemu import UndefinedBehaviour
from ttemu.tensix.formats import layout as L

RNG = np.random.default_rng(7)


def mov(issue, mnemonic, thread=0, **kw):
    fields = dict(dest_32b_lo=0, src=0, addr_mode=0, instr_mod=0, dst=0)
    fields.update(kw)
    return issue(thread, mnemonic, **fields)


def vals(shape, lo=-100, hi=100):
    return RNG.integers(lo, hi, size=shape).astype(np.float32)


# ---------------------------------------------------------------------------------------
# MOVA2D / MOVDBGA2D
# ---------------------------------------------------------------------------------------

def test_mova2d_bf16_one_row_and_eight_rows():
    tile, issue, cop = setup(FMT_BF16, fp32=False, own=False)
    give(cop, "A")  # only SrcA is needed
    a = vals((64, 16))
    put_src(cop, "A", 0, src_bf16(a))
    cop.rwcs[0].SrcA = 3
    t = mov(issue, "MOVA2D", src=2, dst=100)  # one row: SrcA 5 -> Dst 100
    assert t.held is None
    np.testing.assert_array_equal(dst_bf16(cop, 100)[0], a[5])
    mov(issue, "MOVA2D", src=12, instr_mod=2, dst=203)  # 8 rows: SrcA 15 & 0x38 = 8, Dst & 0x3f8 = 200
    np.testing.assert_array_equal(dst_bf16(cop, 200, 8), a[8:16])


def test_mova2d_waits_for_srca_only_and_movdbga2d_does_not_wait():
    tile, issue, cop = setup(FMT_BF16, own=False)
    put_src(cop, "A", 0, src_bf16(np.full((1, 16), 2.0, np.float32)))
    t = mov(issue, "MOVA2D")
    assert t.held is not None and "SrcA" in t.held_reason
    assert not cop.dst.bits.any()
    give(cop, "A")
    cop.kick()
    assert t.held is None and dst_bf16(cop, 0)[0, 0] == 2.0
    tile, issue, cop = setup(FMT_BF16, own=False)
    put_src(cop, "A", 0, src_bf16(np.full((1, 16), 3.0, np.float32)))
    t = mov(issue, "MOVDBGA2D")
    assert t.held is None and dst_bf16(cop, 0)[0, 0] == 3.0


def test_mova2d_tf32_goes_to_dst32_with_low_mantissa():
    """SrcAFmt TF32: Dst32b = RemoveLowMantissa << 16 | LowMantissa << 13, i.e. the FP32
    value of the TF32 datum (MOVA2D.md)."""
    tile, issue, cop = setup(FMT_TF32, fp32=True)
    a = (1 + RNG.integers(0, 1024, size=(8, 16)) / 1024).astype(np.float32) * 4
    put_src(cop, "A", 0, src_tf32(a))
    mov(issue, "MOVA2D", instr_mod=2, dst=8)
    np.testing.assert_array_equal(dst_fp32(cop, 8, 8), a)


def test_mova2d_pair_builds_32bit_datum():
    """The page's recipe: MOVA2D with SrcAFmt=TF32 for the high 16 bits, then MOVA2D with
    another format and UseDst32bLo for the low 16 bits."""
    tile, issue, cop = setup(FMT_TF32, fp32=True)
    hi = src_bf16(np.full((1, 16), 1.5, np.float32))
    lo = src_fp16(np.full((1, 16), 0.25, np.float16))
    put_src(cop, "A", 0, hi)
    put_src(cop, "A", 1, lo)
    mov(issue, "MOVA2D", src=0, dst=4)
    cop.config.set("ALU_FORMAT_SPEC_REG0_SrcA", FMT_FP16, 0)
    mov(issue, "MOVA2D", src=1, dst=4, dest_32b_lo=1)
    got = cop.dst.read32(4)[0]
    assert np.all(got >> 16 == L.dst16_from_bf16(bf16_bits([1.5]))[0])
    assert np.all(got & 0xFFFF == L.dst16_from_fp16(np.float16(0.25).view(np.uint16)))


def test_mova2d_flushes_zero_exponent_unless_disabled():
    """FlushDenormals = !ALU_ACC_CTRL_Zero_Flag_disabled_src: a Src datum whose low 8
    bits are zero becomes 0 (SrcASrcB.md: set the flag to move integer "16" data)."""
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    x = L.src_from_int16(np.arange(16, dtype=np.uint32) << 8 | 0x8000)  # low byte 0
    put_src(cop, "A", 0, x)
    mov(issue, "MOVA2D", dst=0)
    assert not cop.dst.bits[0].any()
    cop.config.set("ALU_ACC_CTRL_Zero_Flag_disabled_src", 1, 0)
    mov(issue, "MOVA2D", dst=0)
    np.testing.assert_array_equal(cop.dst.read16(0)[0], L.src_to_int16(x))  # 16 bits pass through


def test_mova2d_fp16_removes_high_exponent():
    tile, issue, cop = setup(FMT_FP16, fp32=False)
    h = RNG.uniform(-1000, 1000, size=(1, 16)).astype(np.float16)
    put_src(cop, "A", 0, src_fp16(h))
    mov(issue, "MOVA2D", dst=0)
    np.testing.assert_array_equal(cop.dst.read16(0)[0], L.dst16_from_fp16(h.view(np.uint16))[0])


def test_mov_block_dest_mov_lanes():
    """LaneConfig[Column / 2].BLOCK_DEST_MOV.Bit[Column & 1] (SFPCONFIG.md bits 9-10)
    keeps columns unwritten; read from cop.sfpu.lane_config."""
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    put_src(cop, "A", 0, src_bf16(np.full((1, 16), 2.0, np.float32)))
    put_dst_bf16(cop, 0, np.full((1, 16), 7.0, np.float32))
    lane = [0] * 32
    lane[0] = 1 << 9    # column 0
    lane[3] = 1 << 10   # column 7
    cop.sfpu.lane_config = lane
    try:
        mov(issue, "MOVA2D", dst=0)
    finally:
        del cop.sfpu.lane_config
    got = dst_bf16(cop, 0)[0]
    expect = np.full(16, 2.0, np.float32)
    expect[[0, 7]] = 7.0
    np.testing.assert_array_equal(got, expect)


# ---------------------------------------------------------------------------------------
# MOVB2D
# ---------------------------------------------------------------------------------------

def test_movb2d_modes():
    """instr_mod = Move4Rows<<2 | Broadcast1RowTo8<<1 | BroadcastCol0."""
    tile, issue, cop = setup(FMT_BF16, fp32=False, own=False)
    give(cop, "B")
    b = vals((64, 16))
    put_src(cop, "B", 0, src_bf16(b))
    cop.rwcs[0].SrcB = 1
    mov(issue, "MOVB2D", src=4, dst=9)  # one row 5 -> 9
    np.testing.assert_array_equal(dst_bf16(cop, 9)[0], b[5])
    mov(issue, "MOVB2D", src=6, instr_mod=4, dst=22)  # 4 rows: 7 & 0x3c = 4, Dst 20
    np.testing.assert_array_equal(dst_bf16(cop, 20, 4), b[4:8])
    mov(issue, "MOVB2D", src=6, instr_mod=2, dst=37)  # row 7 broadcast to Dst 32..39
    np.testing.assert_array_equal(dst_bf16(cop, 32, 8), np.broadcast_to(b[7], (8, 16)))
    mov(issue, "MOVB2D", src=6, instr_mod=1, dst=40)  # column 0 of row 7
    np.testing.assert_array_equal(dst_bf16(cop, 40)[0], np.full(16, b[7, 0]))
    mov(issue, "MOVB2D", src=0, instr_mod=6, dst=48)  # Broadcast1RowTo8 wins over Move4Rows
    np.testing.assert_array_equal(dst_bf16(cop, 48, 8), np.broadcast_to(b[1], (8, 16)))


def test_movb2d_uses_srca_format():
    """"This is not a documentation typo; SrcAFmt really is used": with SrcA TF32 and
    SrcB written as TF32, MOVB2D produces FP32 in Dst32b."""
    tile, issue, cop = setup(FMT_TF32, fp32=True)
    cop.config.set("ALU_FORMAT_SPEC_REG1_SrcB", FMT_BF16, 0)  # ignored
    b = (1 + RNG.integers(0, 1024, size=(4, 16)) / 1024).astype(np.float32)
    put_src(cop, "B", 0, src_tf32(b))
    mov(issue, "MOVB2D", instr_mod=4, dst=0)
    np.testing.assert_array_equal(dst_fp32(cop, 0, 4), b)


# ---------------------------------------------------------------------------------------
# MOVD2A / MOVD2B / MOVB2A
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("mnemonic,which", [("MOVD2A", "A"), ("MOVD2B", "B")])
def test_movd2src_16bit_roundtrip_and_no_wait(mnemonic, which):
    tile, issue, cop = setup(FMT_BF16, fp32=False, own=False)  # no bank owned: no wait
    d = vals((4, 16))
    put_dst_bf16(cop, 12, d)
    rwc = cop.rwcs[0]
    rwc.SrcA = rwc.SrcB = 1
    t = mov(issue, mnemonic, src=6, instr_mod=2, dst=13)  # 4 rows: Dst 12, Src 7 & 0x3c = 4
    assert t.held is None
    np.testing.assert_array_equal(cop.src.math_view(which)[4:8], src_bf16(d))
    # FP16 data passes through unchanged (also integer "8", overlaid on FP16)
    cop.config.set("ALU_FORMAT_SPEC_REG0_SrcA", FMT_FP16, 0)
    h = RNG.uniform(-100, 100, size=(1, 16)).astype(np.float16)
    put_dst_fp16(cop, 0, h)
    mov(issue, mnemonic, src=20, dst=0)
    np.testing.assert_array_equal(cop.src.math_view(which)[21], src_fp16(h)[0])


@pytest.mark.parametrize("mnemonic,which", [("MOVD2A", "A"), ("MOVD2B", "B")])
def test_movd2src_from_fp32(mnemonic, which):
    """FP32 Dst: TF32 truncation (ShuffleTF32 of DstVal >> 13, with the layouts' mask:
    the page's 0x3fc000 does not fit 19 bits), or BF16 truncation; UseDst32bLo moves the
    low 16 bits (BF16 style) or the low 13 bits (TF32 style)."""
    tile, issue, cop = setup(FMT_TF32, fp32=True)
    x = RNG.uniform(-1000, 1000, size=(1, 16)).astype(np.float32)
    put_dst_fp32(cop, 0, x)
    bits = x.view(np.uint32)[0]
    src = cop.src.math_view(which)
    mov(issue, mnemonic, src=0, dst=0)
    np.testing.assert_array_equal(src[0], L.fp32_to_src_tf32(bits))
    mov(issue, mnemonic, src=1, dst=0, dest_32b_lo=1)
    np.testing.assert_array_equal(src[1], bits & 0x1FFF)
    cop.config.set("ALU_FORMAT_SPEC_REG0_SrcA", FMT_FP32, 0)  # BF16 style
    mov(issue, mnemonic, src=2, dst=0)
    np.testing.assert_array_equal(src[2], L.src_from_bf16(bits >> 16))
    mov(issue, mnemonic, src=3, dst=0, dest_32b_lo=1)
    np.testing.assert_array_equal(src[3], L.src_from_dst16_bf16(cop.dst.read32(0)[0] & 0xFFFF))


@pytest.mark.parametrize("mnemonic", ["MOVD2A", "MOVD2B"])
def test_movd2src_undefined_cases(mnemonic):
    """MOVD2A.md: UseDst32bLo, or an FP32/TF32 SrcA format, with Dst in 16-bit mode is
    undefined: a warning; ttemu ignores UseDst32bLo / moves the value as BF16."""
    d16 = np.array([0x3F80, 0xC020] * 8, dtype=np.uint16)  # BF16 1.0, -2.5
    for fmt, kw, key in ((FMT_BF16, {"dest_32b_lo": 1}, "UseDst32bLo Dst16"), (FMT_TF32, {}, "TF32 Dst16")):
        tile, issue, cop = setup(fmt, fp32=False)
        cop.dst.write16(0, d16.reshape(1, 16))
        mov(issue, mnemonic, src=0, dst=0, **kw)
        warned(tile, f"{mnemonic} {key}")
        np.testing.assert_array_equal(cop.src.math_view(mnemonic[-1])[0], L.src_from_dst16_bf16(d16))
        tile, issue, cop = setup(fmt, fp32=False)
        tile.diagnostics.strict = True
        with pytest.raises(UndefinedBehaviour, match=mnemonic):
            mov(issue, mnemonic, **kw)


def test_movb2a():
    """Upstream MOVB2A.md: SrcB rows to SrcA rows (1 or an aligned 4), flushing a zero
    low byte; waits for SrcB only. Encoding: SrcBRow bits 0-5, Move4Rows bit 13,
    SrcARow bits 17-22."""
    tile, issue, cop = setup(FMT_BF16, own=False)
    b = src_bf16(vals((64, 16)))
    b[9, 3] &= ~np.uint32(0xFF)  # exponent 0: flushed
    put_src(cop, "B", 0, b)
    t = issue(0, "MOVB2A", srca=40, addr_mode=0, instr_mod=0, srcb=9)
    assert t.held is not None and "SrcB" in t.held_reason
    give(cop, "B")
    cop.kick()
    assert t.held is None
    a = cop.src.math_view("A")
    expect = b[9].copy()
    expect[3] = 0
    np.testing.assert_array_equal(a[40], expect)
    cop.rwcs[0].SrcA, cop.rwcs[0].SrcB = 2, 1
    issue(0, "MOVB2A", srca=17, addr_mode=0, instr_mod=2, srcb=13)  # A 19 & 0x3c = 16, B 12
    np.testing.assert_array_equal(a[16:20], np.where((b[12:16] & 0xFF) == 0, 0, b[12:16]))


# ---------------------------------------------------------------------------------------
# ZEROACC / ZEROSRC
# ---------------------------------------------------------------------------------------

def test_zeroacc_modes():
    """clear_mode = UseDst32b<<2 | Mode; Mode 0 one row, 1 sixteen rows, 2 half, 3 all."""
    tile, issue, cop = setup(FMT_BF16, fp32=False)
    cop.dst.bits[:] = 0xFFFF
    tset(cop, 0, "ADDR_MOD_DST_SEC1_DestIncr", 1)
    cop.rwcs[0].Dst = 2
    issue(0, "ZEROACC", clear_mode=0, AddrMode=1, dst=5)  # Dst16b row 7
    assert not cop.dst.bits[7].any() and cop.dst.bits[6].all() and cop.dst.bits[8].all()
    assert cop.rwcs[0].Dst == 3
    issue(0, "ZEROACC", clear_mode=1, AddrMode=1, dst=0x102)  # Imm10 & 0xff = 2: rows 32..47
    assert not cop.dst.bits[32:48].any() and cop.dst.bits[48].all() and cop.dst.bits[31].all()
    assert cop.rwcs[0].Dst == 4
    issue(0, "ZEROACC", clear_mode=5, AddrMode=0, dst=1)  # Dst32b rows 16..31
    assert not cop.dst.bits[32:64].any() and cop.dst.bits[64].all()
    issue(0, "ZEROACC", clear_mode=2, AddrMode=1, dst=1)  # high half; no AddrMod
    assert not cop.dst.bits[512:].any() and cop.dst.bits[511].all()
    assert cop.rwcs[0].Dst == 4
    issue(0, "ZEROACC", clear_mode=2, AddrMode=0, dst=0)
    assert not cop.dst.bits.any()
    cop.dst.bits[:] = 1
    issue(0, "ZEROACC", clear_mode=3, AddrMode=1, dst=0)
    assert not cop.dst.bits.any() and cop.rwcs[0].Dst == 4


def test_zeroacc_one_row_in_32bit_mode():
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    cop.dst.bits[:] = 0xFFFF
    issue(0, "ZEROACC", clear_mode=0, AddrMode=0, dst=9)  # Dst32b row 9: AdjRow 17, 25
    zero = np.flatnonzero(~cop.dst.bits.any(axis=1))
    assert zero.tolist() == [17, 25]


def test_zeroacc_as_pure_addrmod():
    """RWCs.md: ZEROACC_MODE_16_ROWS with Imm10 = 0xff only applies the AddrMod."""
    tile, issue, cop = setup(FMT_BF16)
    cop.dst.bits[:] = 0x1111
    tset(cop, 0, "ADDR_MOD_AB_SEC3_SrcAIncr", 4)
    tset(cop, 0, "ADDR_MOD_DST_SEC3_DestCToCR", 1)
    tset(cop, 0, "ADDR_MOD_DST_SEC3_DestIncr", 16)
    issue(0, "ZEROACC", clear_mode=1, AddrMode=3, dst=0xFF)
    assert np.all(cop.dst.bits == 0x1111)
    r = cop.rwcs[0]
    assert (r.SrcA, r.Dst, r.Dst_Cr) == (4, 16, 16)


def test_zeroacc_revert_is_undefined():
    """ZEROACC.md: Revert outside ONE_ROW "un-assigns Undefined", and is undefined: a
    warning; the rows lose their undefined mark and keep their contents."""
    tile, issue, cop = setup(FMT_BF16)
    cop.dst.bits[:] = 0x1111
    cop.math.undefined[:] = True
    word = WH.encode("ZEROACC", clear_mode=2, AddrMode=0, dst=1) | (1 << 18)  # high half of Dst
    push_word(tile, 0, word)
    warned(tile, "ZEROACC Revert")
    assert np.all(cop.dst.bits == 0x1111)
    assert not cop.math.undefined[512:].any() and cop.math.undefined[:512].all()
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="ZEROACC"):
        push_word(tile, 0, word)
    word = WH.encode("ZEROACC", clear_mode=0, AddrMode=0, dst=0) | (1 << 18)
    direct(tile, "math", "ZEROACC", word)  # ONE_ROW ignores Revert


def test_zerosrc():
    """src_mask = ClearSrcB<<1 | ClearSrcA, bank_mask = BothBanks, write_mode =
    SingleBankMatrixUnit, zero_val = NegativeInfSrcA (SrcA only, all 19 bits set)."""
    tile, issue, cop = setup(FMT_BF16, own=False)
    src = cop.src
    for w in "AB":
        src.data[w][:] = 5
    src.math_bank["A"], src.unpack_bank["A"] = 1, 0
    issue(0, "ZEROSRC", zero_val=0, write_mode=1, bank_mask=0, src_mask=1)  # A, math bank 1
    assert not src.data["A"][1].any() and np.all(src.data["A"][0] == 5)
    issue(0, "ZEROSRC", zero_val=1, write_mode=0, bank_mask=0, src_mask=1)  # A, unpacker bank 0
    assert np.all(src.data["A"][0] == 0x7FFFF)
    issue(0, "ZEROSRC", zero_val=1, write_mode=0, bank_mask=1, src_mask=2)  # B both banks, zero
    assert not src.data["B"].any()
    assert np.all(src.data["A"][0] == 0x7FFFF)


# ---------------------------------------------------------------------------------------
# TRNSPSRCB / SHIFTXA / SHIFTXB
# ---------------------------------------------------------------------------------------

def test_trnspsrcb():
    tile, issue, cop = setup(FMT_BF16, own=False)
    b = RNG.integers(0, 1 << 19, size=(64, 16)).astype(np.uint32)
    put_src(cop, "B", 0, b)
    t = issue(0, "TRNSPSRCB")
    assert t.held is not None
    give(cop, "B")
    cop.kick()
    got = cop.src.math_view("B")
    np.testing.assert_array_equal(got[16:32], b[16:32].T)
    np.testing.assert_array_equal(got[:16], b[:16])
    np.testing.assert_array_equal(got[32:], b[32:])


def test_shiftxa_uses_last_srca_row():
    """SHIFTXA.md HardwareBug(): the block is the starting SrcA row of the most recent
    MVMUL / ELW* / MOV* (& 0x30); the output always goes to rows 0..15."""
    tile, issue, cop = setup(FMT_BF16, fp32=True)
    a = RNG.integers(1, 1 << 19, size=(64, 16)).astype(np.uint32)
    put_src(cop, "A", 0, a)
    cop.rwcs[0].SrcA = 32
    issue(0, "MVMUL", dst=0)  # SrcA row 32
    issue(0, "SHIFTXA", log2_amount2=0, shift_mode=2)  # right
    got = cop.src.math_view("A")
    np.testing.assert_array_equal(got[0:16, 1:], a[32:48, :15])
    assert not got[0:16, 0].any()
    np.testing.assert_array_equal(got[16:], a[16:])
    cop.rwcs[0].SrcA = 0
    issue(0, "MOVA2D", dest_32b_lo=0, src=16, addr_mode=0, instr_mod=0, dst=0)  # SrcA row 16
    issue(0, "SHIFTXA", log2_amount2=0, shift_mode=3)  # left
    np.testing.assert_array_equal(got[0:16, :15], a[16:32, 1:])
    assert not got[0:16, 15].any()


def test_shiftxb_rotate_and_shift():
    """Docs disagreement: SHIFTXB.md's loop stops at Column < 14 (column 14 unchanged),
    but its lane diagram shows a full rotation (B C ... P A) and the upstream page fixed
    the loop to Column < 15: we rotate all sixteen lanes."""
    tile, issue, cop = setup(FMT_BF16)
    b = np.arange(64 * 16, dtype=np.uint32).reshape(64, 16) + 1
    put_src(cop, "B", 0, b)
    cop.rwcs[0].SrcB = 60
    tset(cop, 0, "ADDR_MOD_AB_SEC2_SrcBIncr", 1)
    issue(0, "SHIFTXB", addr_mode=2, rot_shift=0, shift_row=5)  # row (5 + 60) & 0x3f = 1
    got = cop.src.math_view("B")
    np.testing.assert_array_equal(got[1], np.roll(b[1], -1))
    assert cop.rwcs[0].SrcB == 61
    issue(0, "SHIFTXB", addr_mode=0, rot_shift=1, shift_row=3)  # row 0, shift in zero
    np.testing.assert_array_equal(got[0], np.append(b[0, 1:], 0))


# ---------------------------------------------------------------------------------------
# CLEARDVALID / SETRWC / INCRWC / CLREXPHIST / GATESRCRST
# ---------------------------------------------------------------------------------------

def test_cleardvalid():
    """cleardvalid = FlipSrcB<<1 | FlipSrcA, reset = KeepReadingSameSrc<<1 | Reset."""
    tile, issue, cop = setup(FMT_BF16)
    src = cop.src
    issue(0, "CLEARDVALID", cleardvalid=1, reset=0)
    assert src.allowed["A"] == ["unpack", "unpack"] and src.math_bank["A"] == 1
    assert src.allowed["B"][0] == "math" and src.math_bank["B"] == 0
    issue(0, "CLEARDVALID", cleardvalid=2, reset=2)  # keep reading the same bank
    assert src.allowed["B"][0] == "unpack" and src.math_bank["B"] == 0
    src.allowed["A"] = ["math", "math"]
    src.unpack_bank["A"] = 1
    issue(0, "CLEARDVALID", cleardvalid=0, reset=1)
    assert src.allowed == {"A": ["unpack", "unpack"], "B": ["unpack", "unpack"]}
    assert src.math_bank == {"A": 0, "B": 0} and src.unpack_bank == {"A": 0, "B": 0}


def test_setrwc():
    """BitMask = Fidelity<<3 | Dst<<2 | SrcB<<1 | SrcA; rwc_cr = DstCtoCr<<3 | DstCr<<2 |
    SrcBCr<<1 | SrcACr; clear_ab_vld flips banks like MVMUL."""
    tile, issue, cop = setup(FMT_BF16)
    r = cop.rwcs[0]
    r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.Dst, r.Dst_Cr, r.FidelityPhase = 9, 20, 9, 30, 100, 200, 3
    issue(0, "SETRWC", clear_ab_vld=0, rwc_cr=0, rwc_d=0, rwc_b=5, rwc_a=4, BitMask=3)
    assert (r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr) == (4, 4, 5, 5)
    assert (r.Dst, r.Dst_Cr, r.FidelityPhase) == (100, 200, 3)
    issue(0, "SETRWC", clear_ab_vld=0, rwc_cr=3, rwc_d=0, rwc_b=15, rwc_a=1, BitMask=3)
    assert (r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr) == (5, 5, 20, 20)
    issue(0, "SETRWC", clear_ab_vld=0, rwc_cr=4, rwc_d=8, rwc_b=0, rwc_a=0, BitMask=4)  # Dst = Cr + 8
    assert (r.Dst, r.Dst_Cr) == (208, 208)
    r.Dst = 300
    issue(0, "SETRWC", clear_ab_vld=0, rwc_cr=8, rwc_d=2, rwc_b=0, rwc_a=0, BitMask=0)  # DstCtoCr alone
    assert (r.Dst, r.Dst_Cr) == (302, 302)
    issue(0, "SETRWC", clear_ab_vld=3, rwc_cr=0, rwc_d=0, rwc_b=0, rwc_a=0, BitMask=12)
    assert (r.Dst, r.Dst_Cr, r.FidelityPhase) == (0, 0, 0)
    assert cop.src.math_bank == {"A": 1, "B": 1} and cop.src.allowed["A"][0] == "unpack"


def test_incrwc():
    tile, issue, cop = setup(FMT_BF16)
    r = cop.rwcs[0]
    r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.Dst, r.Dst_Cr = 62, 10, 3, 50, 1020, 100
    issue(0, "INCRWC", rwc_cr=0, rwc_d=15, rwc_b=4, rwc_a=3)
    assert (r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.Dst, r.Dst_Cr) == (1, 10, 7, 50, 11, 100)
    issue(0, "INCRWC", rwc_cr=7, rwc_d=1, rwc_b=15, rwc_a=2)
    assert (r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.Dst, r.Dst_Cr) == (12, 12, 1, 1, 101, 101)


def test_clrexphist_calls_packers_and_gatesrcrst_is_a_noop():
    tile, issue, cop = setup(FMT_BF16)
    calls = []
    had = hasattr(cop.pack, "clear_exponent_histograms")
    saved = getattr(cop.pack, "clear_exponent_histograms", None)
    cop.pack.clear_exponent_histograms = lambda: calls.append(1)
    try:
        issue(0, "CLREXPHIST")
    finally:
        if had:
            cop.pack.clear_exponent_histograms = saved
        else:
            del cop.pack.clear_exponent_histograms
    assert calls == [1]
    before = [d.copy() for d in cop.src.data.values()]
    t = issue(0, "GATESRCRST", reset_srcb_gate_control=1, reset_srca_gate_control=0)
    assert t.held is None
    assert all(np.array_equal(a, b) for a, b in zip(before, cop.src.data.values()))


def test_other_thread_rwcs_are_separate():
    tile, issue, cop = setup(FMT_BF16)
    issue(1, "INCRWC", rwc_cr=0, rwc_d=4, rwc_b=0, rwc_a=0)
    assert cop.rwcs[1].Dst == 4 and cop.rwcs[0].Dst == 0


# -- legacy 3x3 instructions (MatrixUnit.md "Legacy instructions") --------------------
def test_legacy_conv_pool_only_apply_addr_mod():
    import numpy as np
    import pytest

    from tensix_harness import make
    from ttemu import Unimplemented

    tile, issue = make()
    cop = tile.tensix
    cop.dst.bits[:] = np.arange(1024 * 16, dtype=np.uint32).reshape(1024, 16).astype(np.uint16)
    before = cop.dst.bits.copy()
    # ADDR_MOD_DST_SEC1: DestIncr = 8
    idx, shift, width = cop.config.thread_fields["ADDR_MOD_DST_SEC1_DestIncr"]
    cop.config.thread_set_word(0, idx, 8 << shift)
    for mnemonic in ("CONV3S1", "CONV3S2", "MFCONV3S1"):
        issue(0, mnemonic, dst=0, addr_mode=1, rotate_weights=0, clear_dvalid=0)
    for mnemonic in ("APOOL3S1", "APOOL3S2"):
        issue(0, mnemonic, dst=0, index_en=0, addr_mode=1, clear_dvalid=0)
    assert np.array_equal(cop.dst.bits, before)  # Dst += 0
    assert cop.rwcs[0].Dst == 5 * 8
    with pytest.raises(Unimplemented, match="MPOOL3S1"):
        issue(1, "MPOOL3S1", dst=0, index_en=0, addr_mode=0, clear_dvalid=0)
    tile2, issue2 = make()
    with pytest.raises(Unimplemented, match="ClearDvalid"):
        issue2(0, "CONV3S1", dst=0, addr_mode=0, rotate_weights=0, clear_dvalid=1)


def test_dbg_feature_disable_bit11_aliases_dst16_to_dst32_high_halves():
    """Dst.md: with bit 11 of RISCV_DEBUG_REG_DBG_FEATURE_DISABLE set, Dst16b[Row] reads
    and writes the high 16 bits of Dst32b[Row]."""
    import numpy as np

    from tensix_harness import make
    from ttemu.tensix.regs.dst import adj_rows

    tile, issue = make()
    dst = tile.tensix.dst
    dst.bits[:] = np.arange(1024 * 16, dtype=np.uint32).reshape(1024, 16).astype(np.uint16)
    assert np.array_equal(dst.read16(17, 2), dst.bits[17:19])
    tile.write_u32(0xFFB12068, 1 << 11)
    assert dst.aliased16
    assert np.array_equal(dst.read16(17, 2), dst.bits[adj_rows(np.array([17, 18]))])
    assert np.array_equal(dst.read16(17, 1)[0], dst.read32(17, 1)[0] >> 16)
    dst.write16(3, np.full(16, 0xABCD))
    assert (dst.read32(3, 1) >> 16 == 0xABCD).all()
    assert any("DBG_FEATURE_DISABLE bit 11" in w for w in tile.warnings)
    tile.write_u32(0xFFB12068, 0)
    assert not dst.aliased16 and tile.read_u32(0xFFB12068) == 0
