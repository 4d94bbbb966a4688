"""Blackhole's unpackers: UNPACR and UNPACR_NOP as tt-llk's Blackhole code emits them.

There are no BlackholeA0 UNPACR pages: the Wormhole pages apply (UNPACR_Regular.md),
with Blackhole's configuration layout, instruction fields and the differences
Blackhole evidence shows (ttemu/arch/blackhole.py ``UNPACKER``). The configuration is
written here as tt-llk's Blackhole ``configure_unpack_AB`` writes it: raw Config words
at tt-metal's Blackhole cfg_defines.h indices (not through ttemu's field table), so a
field at the wrong place fails. References: the page's WriteSrc* / WriteDst* models
(tests/test_unit_unpack.py), numpy, and assembly.yaml's UNPACR_NOP descriptions.
"""

import numpy as np
import pytest

import bh_prog
from oracle_lib import require_ttsim
from tensix_harness import make
from test_bh_pack import pack_cfg, pack_tile_insns
from test_unit_unpack import (BF16, BFP2, BFP4, BFP8, FP8, FP16, FP32, INT8, INT16, INT32, TF32, U32, bfp8_to_bf16,
                              bfp_tile, case, int8_overlay, write_dst_fp32, write_src_bf16, write_src_fp16)
from ttemu.arch.tables.blackhole_cfg import CFG, THREAD_CFG
from ttemu.cmd.oracle import cross_check
from ttemu.errors import Unimplemented

L1A = 0x20000
# tt-metal hw/inc/internal/tt-1xx/blackhole/cfg_defines.h (Config word indices)
ALU_FORMAT_SPEC_REG0 = 1  # SrcAUnsigned bit 15, SrcBUnsigned bit 16
UNP_ADD_DEST_ADDR_CNTR = 50  # UNP0_ADD_DEST_ADDR_CNTR_add_dest_addr_cntr, bit 8
UNP_CH1_Y = (56, 58)  # UNPn_ADDR_CTRL_XY_REG_1: Xstride bits 15:0, Ystride bits 31:16
UNP_CH1_ZW = (57, 59)  # UNPn_ADDR_CTRL_ZW_REG_1: Zstride bits 15:0, Wstride bits 31:16
TILE_DESC = (64, 112)  # THCON_SECn_REG0_TileDescriptor (word 0, word 1)
REG1_LF8 = (71, 119)  # THCON_SECn_REG1_Unp_LF8_4b_exp, bit 22
REG2 = (72, 120)  # THCON_SECn_REG2_Out_data_format: tt-llk's unpack_config_t words 0, 1
REG3_BASE = (76, 124)  # THCON_SECn_REG3_Base_address
REG5_DEST_CNTX01 = 84  # THCON_SEC0_REG5_Dest_cntx0_address | Dest_cntx1_address << 16
REG5_X_DIM_CNTX01 = 86  # THCON_SEC0_REG5_Tile_x_dim_cntx0 | _cntx1 << 16
THREAD_SRCA_SET = 5  # ThreadConfig: SRCA_SET_Base bits 1:0, SetOvrdWithAddr bit 2

UNPACR = dict(Unpack_block_selection=0, AddrMode=0, CfgContextCntInc=0, CfgContextId=0, AddrCntContextId=0,
              OvrdThreadId=1, SetDatValid=0, srcb_bcast=0, ZeroWrite2=0, AutoIncContextID=0, RowSearch=0,
              SearchCacheFlush=0, Last=1)
NOP = dict(Unpacker_Select=0, Stream_Id=0, Msg_Clr_Cnt=0, Set_Dvalid=0, Clr_to1_fmt_Ctrl=0, Stall_Clr_Cntrl=0,
           Bank_Clr_Ctrl=0, Src_ClrVal_Ctrl=0, Unpack_Pop=1)


def datum_bytes(fmt):
    return 4 if fmt in (FP32, TF32, INT32) else 2 if fmt in (FP16, BF16, 9) else 1


def configure(tile, src_a, dst_a, src_b=None, dst_b=None, *, x_dim=256, faces=4, unsigned=(0, 0), e4m3=(0, 0),
              transpose=0):
    """tt-llk Blackhole configure_unpack_AB (cunpack_common.h), as raw Config writes."""
    cop = tile.tensix
    src_b = src_a if src_b is None else src_b
    dst_b = dst_a if dst_b is None else dst_b

    def w(index, value):
        cop.config.write_word(0, index, value)

    for u, d in ((0, dst_a), (1, dst_b)):
        w(UNP_CH1_ZW[u], 256 * datum_bytes(d))  # Zstride: one face
    w(UNP_CH1_Y[0], (16 * datum_bytes(dst_a)) << 16)
    w(ALU_FORMAT_SPEC_REG0, unsigned[0] << 15 | unsigned[1] << 16)
    for u in (0, 1):
        w(REG1_LF8[u], e4m3[u] << 22)
    w(TILE_DESC[0], src_a | 1 << 4)  # x_dim 0: Tile_x_dim_cntx0 replaces it for unpacker 0
    w(TILE_DESC[0] + 1, 1 | faces << 16)  # y_dim 1, z_dim
    w(TILE_DESC[1], src_b | 1 << 4 | x_dim << 16)
    w(TILE_DESC[1] + 1, 1 | faces << 16)
    for u, d in ((0, dst_a), (1, dst_b)):
        w(REG2[u], d | 2 << 4 | (transpose if u == 0 else 0) << 8)  # throttle 2, haloize
        w(REG2[u] + 1, 0xF | 0xF << 16)  # uncompress_cntx0_3 / 4_7
    w(REG5_DEST_CNTX01, 64 | 64 << 16)
    w(REG5_X_DIM_CNTX01, x_dim | x_dim << 16)
    w(UNP_ADD_DEST_ADDR_CNTR, 1 << 8)
    cop.config.thread_set_word(0, THREAD_SRCA_SET, 0x4)  # SETC16 SRCA_SET_Base_ADDR32, 0x4
    return cop


def base(tile, u, addr):
    tile.tensix.config.write_word(0, REG3_BASE[u], addr // 16 - 1)


def unpacr(issue, **kw):
    return issue(0, "UNPACR", **{**UNPACR, **kw})


def unpacr_nop(issue, **kw):
    return issue(0, "UNPACR_NOP", **{**NOP, **kw})


def setadcxx(issue, mask, x_end):
    issue(0, "SETADCXX", CntSetMask=mask, x_end2=x_end, x_start=0)


def put(tile, addr, data):
    tile.l1[addr:addr + len(data)] = bytes(data)


def release(src, which):
    """The Matrix Unit consumes the bank it holds (as its data-valid clear does)."""
    src.allowed[which][src.math_bank[which]] = "unpack"
    src.math_bank[which] ^= 1


# -- formats, face by face, as llk_unpack_A / llk_unpack_AB ---------------------------------------
FORMATS = ["bf16", "fp16", "fp32->tf32", "fp32->bf16", "int8", "int16", "bfp8_b", "bfp4_b", "bfp8",
           "bfp2_b"]


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("u", [0, 1])
def test_face_by_face_unpack_with_llk_configuration(name, u):
    """Two faces (Ch0.Z += 1, SetDatValid each, OvrdThreadId as tt-llk emits) land in
    consecutive banks' rows 0..15 (SrcA: Dest_cntx0_address 64 less the 4 skipped rows;
    SrcB: UNP1_ADDR_BASE_REG_1_Base 0, no rows skipped) with the page's conversions."""
    tile, issue = make("blackhole")
    in_fmt, out_fmt, data0, ref0 = case(name, seed=30 + u)
    _, _, data1, ref1 = case(name, seed=40 + u)
    assert len(data0) == len(data1)
    if name.startswith("bfp"):  # one 4-face tile: 64 exponents (64 bytes), then the datums
        n = len(data0) - 16
        data0 = data0[:16] + data1[:16] + bytes(32) + data0[16:] + data1[16:] + bytes(2 * n)
        data1 = b""
    put(tile, L1A, data0 + data1)
    cop = configure(tile, in_fmt, out_fmt)
    base(tile, u, L1A)
    setadcxx(issue, 1 << u, 255)
    src = cop.src
    which = "AB"[u]
    for ref in (ref0, ref1):
        bank = src.unpack_bank[which]
        t = unpacr(issue, Unpack_block_selection=u, AddrMode=0b1, SetDatValid=1)
        assert t.held is None
        rows = src.data[which][bank]
        assert np.array_equal(rows[:16].reshape(-1), ref), name
        assert src.allowed[which][bank] == "math" and src.fmt[which][bank] == out_fmt
        release(src, which)
    assert cop.adcs.channel(0, u, 0).Z == 2


def test_whole_tile_into_srca_rows_0_to_63_by_z_stride():
    """Four faces into one bank: AddrMode Ch0.Z++ / Ch1.Z++ with the Z stride of one face
    (the 8-bit tilize sequence's addressing), the last with SetDatValid."""
    tile, issue = make("blackhole")
    d = np.random.default_rng(2).integers(0, 1 << 16, 1024, dtype=np.uint32)
    put(tile, L1A, d.astype("<u2").tobytes())
    cop = configure(tile, BF16, BF16)
    base(tile, 0, L1A)
    setadcxx(issue, 1, 255)
    for f in range(4):
        unpacr(issue, AddrMode=0b00010001, SetDatValid=int(f == 3))
    assert np.array_equal(cop.src.data["A"][0].reshape(-1), write_src_bf16(d))
    assert cop.src.allowed["A"] == ["math", "unpack"]


def test_uint8_sets_the_unsigned_bit_and_bfp8_reads_its_exponent_section():
    tile, issue = make("blackhole")
    v = np.arange(256, dtype=np.uint32)
    put(tile, L1A, v.astype(np.uint8).tobytes())
    cop = configure(tile, INT8, INT8, unsigned=(1, 0))
    base(tile, 0, L1A)
    setadcxx(issue, 1, 255)
    unpacr(issue)
    assert np.array_equal(cop.src.data["A"][0][:16].reshape(-1), write_src_fp16(int8_overlay(v, True)))

    tile, issue = make("blackhole")
    dd = np.random.default_rng(4).integers(0, 256, 256, dtype=np.uint32)
    e = np.random.default_rng(5).integers(100, 150, 16, dtype=np.uint32)
    put(tile, L1A, bfp_tile(dd, e, 8))
    cop = configure(tile, BFP8, BFP8, faces=1)  # one face: a 16-byte exponent section
    base(tile, 1, L1A)
    setadcxx(issue, 2, 255)
    unpacr(issue, Unpack_block_selection=1)
    assert np.array_equal(cop.src.data["B"][0][:16].reshape(-1), write_src_bf16(bfp8_to_bf16(dd, np.repeat(e, 16))))


# -- FP8 --------------------------------------------------------------------------------------------
def e4m3_reference(v):
    """E4M3 -> FP16 bits: normal values exactly (numpy's float16 of the E4M3 value);
    exponent 0 keeps the mantissa under a zero exponent; E4M3's NaN (S.1111.111) widens
    to an all-ones mantissa (tt-llk's Fp8_e4m3 on Blackhole; ttsim's bit mapping)."""
    out = []
    for x in v.tolist():
        s, e, m = x >> 7, (x >> 3) & 15, x & 7
        if e == 0:
            out.append(s << 15 | m << 7)
        elif e == 15 and m == 7:
            out.append(s << 15 | 23 << 10 | 0x3FF)
        else:
            val = (-1) ** s * (1 + m / 8) * 2.0 ** (e - 7)
            out.append(int(np.array(val, dtype=np.float16).view(np.uint16)))
    return np.array(out, dtype=U32)


def test_fp8_e4m3_when_unp_lf8_4b_exp_is_set():
    tile, issue = make("blackhole")
    v = np.arange(256, dtype=np.uint32)
    put(tile, L1A, v.astype(np.uint8).tobytes())
    cop = configure(tile, FP8, FP8, e4m3=(1, 0))
    base(tile, 0, L1A)
    setadcxx(issue, 1, 255)
    unpacr(issue)
    assert np.array_equal(cop.src.data["A"][0][:16].reshape(-1), write_src_fp16(e4m3_reference(v)))


@pytest.mark.parametrize("arch", ["blackhole", "wormhole_b0"])
def test_fp8_e5m2_all_ones_differs_on_blackhole(arch):
    """E5M2 is the high byte of an FP16 (UNPACR_Regular.md); on Blackhole 0x7F / 0xFF
    fill the whole FP16 mantissa (ttsim's Blackhole model); Wormhole keeps the page."""
    from test_unit_unpack import setup
    tile, issue = make(arch)
    v = np.arange(256, dtype=np.uint32)
    put(tile, L1A, v.astype(np.uint8).tobytes())
    cop = setup(tile, in_fmt=FP8, out_fmt=FP8, out_base=64, l1=L1A) if arch == "wormhole_b0" else None
    if cop is None:
        cop = configure(tile, FP8, FP8)
        base(tile, 0, L1A)
        setadcxx(issue, 1, 255)
        unpacr(issue)
    else:
        issue(0, "UNPACR", **{**{k: v for k, v in UNPACR.items() if k != "srcb_bcast"}, "OvrdThreadId": 0,
                              "rareb_en": 0})
    fp16 = v << 8
    if arch == "blackhole":
        fp16 = np.where((v & 0x7F) == 0x7F, fp16 | 0xFF, fp16)
    assert np.array_equal(cop.src.data["A"][0][:16].reshape(-1), write_src_fp16(fp16))


# -- tilize: 32 datums per L1 row for 16/32-bit formats ------------------------------------------
@pytest.mark.parametrize("fmt", [BF16, FP16])
def test_tilize_reads_32_datum_rows_whole_tile(fmt):
    """tt-llk's Blackhole tilize (llk_unpack_tilize.h, non-8-bit path): Tileize_mode,
    RowStride = Shift_amount << 4 bytes = one block row, x_dim = 1024 (the whole tile),
    one UNPACR: datum i comes from block row i / 32, column tile*32 + i % 32."""
    ct = 3
    tile, issue = make("blackhole")
    m = np.random.default_rng(fmt).integers(0, 1 << 16, (32, 32 * ct), dtype=np.uint32)
    put(tile, L1A, m.astype("<u2").tobytes())
    cop = configure(tile, fmt, fmt, x_dim=1024, faces=1)
    tidx = 1
    base(tile, 0, L1A + tidx * 32 * 2)
    shift = (32 * ct * 2) >> 4
    cop.config.write_word(0, REG2[0], fmt | 2 << 4 | 1 << 9 | shift << 16)  # tt-llk's tilize config word 0
    setadcxx(issue, 1, 1023)
    unpacr(issue, AddrMode=0b1, SetDatValid=1)
    i = np.arange(1024)
    ref = m[i // 32, tidx * 32 + i % 32]
    conv = write_src_bf16 if fmt == BF16 else write_src_fp16
    assert np.array_equal(cop.src.data["A"][0].reshape(-1), conv(ref))


def test_tilize_8bit_reads_16_datum_rows():
    """8-bit formats keep 16-datum rows (tt-llk's Blackhole 8-bit tilize reads 1x16 face
    rows): a 16-datum row then RowStride."""
    tile, issue = make("blackhole")
    m = np.random.default_rng(8).integers(0, 256, (16, 64), dtype=np.uint32)
    put(tile, L1A, m.astype(np.uint8).tobytes())
    cop = configure(tile, INT8, INT8, x_dim=16)
    base(tile, 0, L1A)
    cop.config.write_word(0, REG2[0], INT8 | 2 << 4 | 1 << 9 | (64 >> 4) << 16)
    setadcxx(issue, 1, 255)  # 256 datums: 16 rows of 16
    unpacr(issue)
    ref = m[:, :16].reshape(-1)
    assert np.array_equal(cop.src.data["A"][0][:16].reshape(-1), write_src_fp16(int8_overlay(ref, False)))


# -- unpack to Dst ------------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", [FP32, INT32])
def test_unpack_32bit_to_dst(fmt):
    """tt-llk's unpack-to-Dst (set_dst_write_addr): Unpack_if_sel_cntx0, SRCA_SET_Base 0,
    Dest_cntx0_address 16 * (4 + tile row); Ch0.Z++ / Ch1.Z++ per face (Zstride 1024)."""
    tile, issue = make("blackhole")
    w = np.random.default_rng(fmt + 1).integers(0, 1 << 32, 1024, dtype=np.uint64).astype(U32)
    put(tile, L1A, w.astype("<u4").tobytes())
    cop = configure(tile, fmt, fmt)
    base(tile, 0, L1A)
    cop.config.write_word(0, REG2[0] + 1, 0xF | 1 << 4 | 0xF << 16)  # Unpack_if_sel_cntx0
    cop.config.write_word(0, REG5_DEST_CNTX01, 16 * (4 + 64) | 64 << 16)
    cop.config.thread_set_word(0, THREAD_SRCA_SET, 0)
    setadcxx(issue, 1, 255)
    for _ in range(4):
        unpacr(issue, AddrMode=0b00010001)
    assert np.array_equal(cop.dst.read32(64, 64).reshape(-1), write_dst_fp32(w))
    assert not cop.dst.read32(0, 64).any()


def _adj32_from_dst_md(r, remap, swizzle):
    """BlackholeA0 Dst.md's Adj16 / Adj32, written out from the page."""
    if remap:
        r = (r & 0x3C7) ^ ((r & 0x030) >> 1) ^ ((r & 0x008) << 2)
    if swizzle:
        r = (r & 0x3F3) ^ ((r & 0x018) >> 1) ^ ((r & 0x004) << 1)
    return ((r & 0x1F8) << 1) | (r & 0x207)


@pytest.mark.parametrize("remap,swizzle", [(1, 0), (1, 1), (0, 1)])
def test_unpack_to_dst_goes_through_adj32(remap, swizzle):
    """Dst.md: Dst32b[Row] is DstBits[Adj32(Row)] / [Adj32(Row) + 8] for every access, so
    the unpackers' writes move with DEST_ACCESS_CFG_remap_addrs / swizzle_32b as the
    Matrix Unit's, the Vector Unit's and the packer's reads do."""
    tile, issue = make("blackhole")
    w = np.random.default_rng(7).integers(0, 1 << 32, 1024, dtype=np.uint64).astype(U32)
    put(tile, L1A, w.astype("<u4").tobytes())
    cop = configure(tile, FP32, FP32)
    base(tile, 0, L1A)
    cop.config.write_word(0, REG2[0] + 1, 0xF | 1 << 4 | 0xF << 16)  # Unpack_if_sel_cntx0
    cop.config.write_word(0, REG5_DEST_CNTX01, 16 * (4 + 64) | 64 << 16)
    cop.config.thread_set_word(0, THREAD_SRCA_SET, 0)
    cop.config.set("DEST_ACCESS_CFG_remap_addrs", remap)
    cop.config.set("DEST_ACCESS_CFG_swizzle_32b", swizzle)
    setadcxx(issue, 1, 255)
    for _ in range(4):
        unpacr(issue, AddrMode=0b00010001)
    expect = np.zeros_like(cop.dst.bits)
    vals = write_dst_fp32(w).reshape(64, 16)
    for k in range(64):
        hi = _adj32_from_dst_md(64 + k, remap, swizzle)
        expect[hi] = (vals[k] >> 16).astype(np.uint16)
        expect[hi + 8] = (vals[k] & 0xFFFF).astype(np.uint16)
    assert np.array_equal(cop.dst.bits, expect)


# -- haloize (transpose within a face) -------------------------------------------------------------------
def test_haloize_transposes_each_face():
    tile, issue = make("blackhole")
    d = np.random.default_rng(9).integers(0, 1 << 16, 256, dtype=np.uint32)
    put(tile, L1A, d.astype("<u2").tobytes())
    cop = configure(tile, BF16, BF16, transpose=1)
    base(tile, 0, L1A)
    setadcxx(issue, 1, 255)
    unpacr(issue)
    assert np.array_equal(cop.src.data["A"][0][:16], write_src_bf16(d).reshape(16, 16).T)


# -- L1 size ----------------------------------------------------------------------------------------------
def test_reads_all_of_blackholes_1536_kib_l1():
    tile, issue = make("blackhole")
    top = 1536 * 1024 - 512
    d = np.random.default_rng(10).integers(0, 1 << 16, 256, dtype=np.uint32)
    put(tile, top, d.astype("<u2").tobytes())
    cop = configure(tile, BF16, BF16)
    base(tile, 0, top)
    setadcxx(issue, 1, 255)
    unpacr(issue)
    assert np.array_equal(cop.src.data["A"][0][:16].reshape(-1), write_src_bf16(d))


def test_srcb_bcast_is_not_modelled():
    tile, issue = make("blackhole")
    with pytest.raises(Unimplemented, match="srcb_bcast"):
        unpacr(issue, Unpack_block_selection=1, srcb_bcast=1)


# -- UNPACR_NOP (assembly.yaml: Unpack_Pop, Src_ClrVal_Ctrl, Bank_Clr_Ctrl, Stall_Clr_Cntrl, Set_Dvalid) ---
@pytest.mark.parametrize("u", [0, 1])
def test_nop_zerosrc_set_dvalid_clears_and_hands_the_bank(u):
    """tt-llk: UNPACR_NOP(Src, 0, 0, SET_DVALID, 0, WAIT_LIKE_UNPACR, 0, 0, UNP_ZEROSRC)."""
    tile, issue = make("blackhole")
    src = tile.tensix.src
    which = "AB"[u]
    src.data[which][:] = 0x1234
    tile.tensix.config.write_word(0, REG2[u], BF16)
    t = unpacr_nop(issue, Unpacker_Select=u, Set_Dvalid=1, Stall_Clr_Cntrl=1)
    assert t.held is None
    assert not src.data[which][0].any() and (src.data[which][1] == 0x1234).all()
    assert src.allowed[which] == ["math", "unpack"] and src.unpack_bank[which] == 1
    assert src.fmt[which][0] == BF16


def test_nop_wait_like_unpacr_waits_for_the_unpackers_own_bank_only():
    """Stall_Clr_Cntrl 1 ("stall clear until write ready"): waits while the unpacker's
    own bank is handed to the Matrix Unit, not for the Matrix Unit's bank; 0 ("until data
    ready is 0") waits for the Matrix Unit's bank."""
    tile, issue = make("blackhole")
    src = tile.tensix.src
    src.allowed["B"][0] = "math"  # math holds bank 0; the unpacker writes bank 1
    src.unpack_bank["B"] = 1
    src.data["B"][:] = 5
    t = unpacr_nop(issue, Unpacker_Select=1, Stall_Clr_Cntrl=1)
    assert t.held is None and not src.data["B"][1].any() and (src.data["B"][0] == 5).all()
    src.data["B"][:] = 5
    t = unpacr_nop(issue, Unpacker_Select=1)
    assert t.held is not None and (src.data["B"] == 5).all()
    release(src, "B")
    tile.tensix.kick()
    assert t.held is None and not src.data["B"][1].any()


def test_nop_neginf_all_banks_delay_and_set_dvalid_flavour():
    tile, issue = make("blackhole")
    src = tile.tensix.src
    unpacr_nop(issue, Src_ClrVal_Ctrl=1)  # CLR_SRC_NEGINF: all ones, as ZEROSRC's NegativeInfSrcA
    assert (src.data["A"][0] == 0x7FFFF).all() and not src.data["A"][1].any()
    unpacr_nop(issue, Bank_Clr_Ctrl=1)  # both banks to 0
    assert not src.data["A"].any()
    src.data["A"][:] = 3
    unpacr_nop(issue, Unpack_Pop=2)  # UNP_NOP: a delay only
    assert (src.data["A"] == 3).all() and src.allowed["A"] == ["unpack", "unpack"]
    unpacr_nop(issue, Unpack_Pop=2, Clr_to1_fmt_Ctrl=3)  # "sets dvalid ... NOP in all other respects"
    assert (src.data["A"] == 3).all() and src.allowed["A"] == ["math", "unpack"]


@pytest.mark.parametrize("fields,what", [
    (dict(Unpack_Pop=0), "UNP_POP"),
    (dict(Unpack_Pop=3, Stream_Id=4, Msg_Clr_Cnt=1), "UNP_POP"),
    (dict(Src_ClrVal_Ctrl=2), "clear to 1"),
    (dict(Src_ClrVal_Ctrl=3), "NOP_REG_CLR_VAL"),
    (dict(Set_Dvalid=2), "Set_Dvalid"),
])
def test_nop_unmodelled_forms_stop_naming_the_fields(fields, what):
    tile, issue = make("blackhole")
    with pytest.raises(Unimplemented, match=what):
        unpacr_nop(issue, **fields)


# -- ttsim (Blackhole): unpack to Dst, then tt-llk's pack MOP --------------------------------------
# (Blackhole's ttsim refuses RISC-V reads of Dst: the unpacked tile reaches L1 through PACR.)
def _ttsim_unpack_to_dst(lib, fmt, l1_words, *, tileize_stride=0, context=0, x_start=0, offset=0, dest_row=0):
    """BRISC pushes: the descriptor's second word (WRCFG), the unpacker ADCs, UNPACRs to Dst as tt-llk's
    Blackhole unpack-to-Dst (Ch0.Z++ / Ch1.Z++ per face, OvrdThreadId, Last) or its
    tilize (one UNPACR of the whole tile); then tt-llk's pack MOP (tests/test_bh_pack.py)
    packs Dst rows 0..63 to OUT. Returns the packed words (checked equal to ttsim's).
    ``context``: the configuration context (UNPACK_MISC_CFG_CfgContextOffset_0, as
    tt-llk's switch_config_context); ``x_start``: the first datum (SETADCXX);
    ``offset``: THCON_SEC0_REG7_Offset(_cntx1)_address; ``dest_row``: the Dst row of
    Dest_cntx{context}_address."""
    out = 0x40000
    tileize = bool(tileize_stride)
    cfg = pack_cfg(fmt, fmt, True, dest_addr=out, PCK0_ADDR_CTRL_XY_REG_0_Ystride=64,
                   PCK0_ADDR_CTRL_ZW_REG_0_Zstride=1024, PCK0_ADDR_CTRL_ZW_REG_0_Wstride=4096)  # 4-byte datums
    c = context
    ctx_fields = {
        f"THCON_SEC0_REG2_Disable_zero_compress_cntx{c}": 1,
        f"THCON_SEC0_REG2_Unpack_if_sel_cntx{c}": 1,
        f"THCON_SEC0_REG5_Dest_cntx{c}_address": 64 + 16 * dest_row,
        f"THCON_SEC0_REG5_Tile_x_dim_cntx{c}": 1024 if tileize else 256,
        "THCON_SEC0_REG3_Base_cntx1_address" if c else "THCON_SEC0_REG3_Base_address": L1A // 16 - 1,
        "THCON_SEC0_REG7_Offset_cntx1_address" if c else "THCON_SEC0_REG7_Offset_address": offset,
    }
    cfg.update({
        "THCON_SEC0_REG0_TileDescriptor": fmt | 1 << 4,
        "UNP0_ADDR_CTRL_ZW_REG_1_Zstride": 1024,
        "THCON_SEC0_REG2_Out_data_format": fmt,
        "THCON_SEC0_REG2_Throttle_mode": 2,
        "THCON_SEC0_REG2_Tileize_mode": int(tileize),
        "THCON_SEC0_REG2_Shift_amount_cntx0": (tileize_stride >> 4) & 15,
        "THCON_SEC0_REG2_Shift_amount_cntx1": (tileize_stride >> 8) & 15,
        "UNP0_ADD_DEST_ADDR_CNTR_add_dest_addr_cntr": 1,
        **ctx_fields,
    })
    desc1 = CFG["THCON_SEC0_REG0_TileDescriptor"][0] + 1  # y_dim 1, z_dim: no field name; WRCFG as tt-llk
    insns = wrcfg(desc1, 1 | (1 if tileize else 4) << 16)
    offset_index = THREAD_CFG["UNPACK_MISC_CFG_CfgContextOffset_0"][0]
    insns += [("ZEROACC", dict(clear_mode=3, use_32_bit_mode=1)),
              ("SETC16", dict(setc16_reg=offset_index, setc16_value=context)),
              ("SETADCXY", dict(CntSetMask=1, BitMask=0b1111)), ("SETADCZW", dict(CntSetMask=1, BitMask=0b1111)),
              ("SETADCXX", dict(CntSetMask=1, x_start=x_start, x_end2=1023 if tileize else 255))]
    unp = {**UNPACR, "AddrMode": 0b00010001}
    insns += [("UNPACR", unp)] * (1 if tileize else 4) + pack_tile_insns()
    tile = bh_prog.run(cfg, insns, l1={L1A: l1_words.astype("<u4").tobytes(), out: bytes(4096)})
    diffs, _ = cross_check(tile, lib, [("out", out, 4096)], until=bh_prog.DONE)
    assert diffs[0].ok, diffs[0].text()
    return np.frombuffer(tile.read(out, 4096), "<u4")


def wrcfg(index, value, gpr=60):
    """tt-llk's Config write from Tensix code: SETDMAREG the two halves of a GPR, WRCFG."""
    halves = [(2 * gpr + k, (value >> (16 * k)) & 0xFFFF) for k in (0, 1)]
    return [("SETDMAREG", dict(RegIndex16b=r, SetSignalsMode=0, Payload_SigSel=h & 0x3FFF, Payload_SigSelSize=h >> 14))
            for r, h in halves] + [("WRCFG", dict(GprAddress=gpr, wr128b=0, CfgReg=index))]


@pytest.fixture(scope="module")
def ttsim_bh():
    return require_ttsim("blackhole")


@pytest.mark.parametrize("fmt", [FP32, INT32])
def test_unpack_to_dst_bit_identical_to_ttsim(ttsim_bh, fmt):
    """Four faces of random 32-bit patterns (NaNs, denormals, -0 among them) to Dst32 and
    back: ttsim's bytes, and the L1 tile unchanged."""
    w = np.random.default_rng(50 + fmt).integers(0, 1 << 32, 1024, dtype=np.uint64).astype(U32)
    assert np.array_equal(_ttsim_unpack_to_dst(ttsim_bh, fmt, w), w)


@pytest.mark.parametrize("fmt", [FP32, INT32])
def test_tilize_to_dst_reads_32_datum_rows_like_ttsim(ttsim_bh, fmt):
    """tt-llk's Blackhole 32-bit tilize: one UNPACR of the whole tile, RowStride one
    block row (two tiles of 32 datums): Dst holds block rows of 32 datums in order."""
    m = np.random.default_rng(60 + fmt).integers(0, 1 << 32, (32, 64), dtype=np.uint64).astype(U32)
    got = _ttsim_unpack_to_dst(ttsim_bh, fmt, m.reshape(-1), tileize_stride=64 * 4)
    assert np.array_equal(got, m[:, :32].reshape(-1))


def test_context_1_offset_and_partial_face_like_ttsim(ttsim_bh):
    """Configuration context 1 (Base_cntx1, Offset_cntx1, Tile_x_dim_cntx1, Dest_cntx1,
    Unpack_if_sel_cntx1), a 16-byte-unit offset and a face from datum 32: face f's
    datums 32..255 land from Dst row 8 + 16 f, the rows before stay zero."""
    w = np.random.default_rng(70).integers(0, 1 << 32, 1024 + 64, dtype=np.uint64).astype(U32)
    got = _ttsim_unpack_to_dst(ttsim_bh, FP32, w, context=1, x_start=32, offset=3, dest_row=8).reshape(64, 16)
    src = w[12:12 + 1024].reshape(4, 256)  # offset 3 x 16 bytes = 12 words
    want = np.zeros((64, 16), dtype=U32)
    for f in range(4):
        flat = want.reshape(-1)
        start = (8 + 16 * f) * 16
        n = min(224, 1024 - start)  # face 3 runs past the 64 packed rows
        flat[start:start + n] = src[f, 32:32 + n]
    assert np.array_equal(got, want)


# -- ttsim (Blackhole): formats into SrcA, MOVA2D to Dst, tt-llk's pack MOP -------------------------
def _ttsim_unpack_to_srca(lib, in_fmt, out_fmt, data, *, e4m3=0):
    """Four faces unpacked into SrcA (Ch0.Z++ / Ch1.Z++, SetDatValid on the last), eight
    8-row MOVA2Ds (tt-llk's A2D datacopy) to Dst, the tile packed: ttsim's bytes."""
    dst32 = out_fmt == TF32
    pack_fmt = FP32 if dst32 else FP16 if out_fmt in (FP16, FP8) else INT16 if out_fmt == INT16 else BF16
    bpd = 4 if dst32 else 2
    cfg = pack_cfg(pack_fmt, pack_fmt, dst32, dest_addr=0x40000, PCK0_ADDR_CTRL_XY_REG_0_Ystride=16 * bpd,
                   PCK0_ADDR_CTRL_ZW_REG_0_Zstride=256 * bpd, PCK0_ADDR_CTRL_ZW_REG_0_Wstride=1024 * bpd)
    cfg.update({
        "THCON_SEC0_REG0_TileDescriptor": in_fmt | 1 << 4,
        "UNP0_ADDR_CTRL_ZW_REG_1_Zstride": 256 * datum_bytes(out_fmt),
        "THCON_SEC0_REG1_Unp_LF8_4b_exp": e4m3,
        "THCON_SEC0_REG2_Out_data_format": out_fmt,
        "THCON_SEC0_REG2_Throttle_mode": 2,
        "THCON_SEC0_REG2_Disable_zero_compress_cntx0": 1,
        "THCON_SEC0_REG5_Dest_cntx0_address": 64,
        "THCON_SEC0_REG5_Tile_x_dim_cntx0": 256,
        "UNP0_ADD_DEST_ADDR_CNTR_add_dest_addr_cntr": 1,
        "THCON_SEC0_REG3_Base_address": L1A // 16 - 1,
        "ALU_ACC_CTRL_Fp32_enabled": int(dst32),
    })
    insns = wrcfg(CFG["THCON_SEC0_REG0_TileDescriptor"][0] + 1, 1 | 4 << 16)
    insns += [("SETC16", dict(setc16_reg=THREAD_CFG["SRCA_SET_SetOvrdWithAddr"][0], setc16_value=4)),
              ("SETADCXY", dict(CntSetMask=1, BitMask=0b1111)), ("SETADCZW", dict(CntSetMask=1, BitMask=0b1111)),
              ("SETADCXX", dict(CntSetMask=1, x_start=0, x_end2=255))]
    unp = {**UNPACR, "AddrMode": 0b00010001}
    insns += [("UNPACR", unp)] * 3 + [("UNPACR", {**unp, "SetDatValid": 1})]
    insns += [("MOVA2D", dict(dst=r, instr_mod=2, addr_mode=0, src=r, dest_32b_lo=0)) for r in range(0, 64, 8)]
    insns += pack_tile_insns()
    n = 1024 * bpd
    tile = bh_prog.run(cfg, insns, l1={L1A: data, 0x40000: bytes(n)})
    diffs, _ = cross_check(tile, lib, [("out", 0x40000, n)], until=bh_prog.DONE)
    assert diffs[0].ok, diffs[0].text()
    return tile.read(0x40000, n)


def _bfp_tile4(rng, bits, exp_lo, exp_hi):
    """A 4-face BFP tile: 64 exponents (one per 16 datums), then the packed datums."""
    d = rng.integers(0, 1 << bits, 1024, dtype=np.uint32)
    e = rng.integers(exp_lo, exp_hi, 64, dtype=np.uint32).astype(np.uint8)
    per = 8 // bits
    packed = np.bitwise_or.reduce(d.reshape(-1, per) << (np.arange(per, dtype=np.uint32) * bits), axis=1)
    return e.tobytes() + packed.astype(np.uint8).tobytes()


SRCA_CASES = [  # (name, in, out, L1 bytes from a seeded rng)
    ("bf16", BF16, BF16, lambda r: r.integers(0, 1 << 16, 1024, dtype=np.uint32).astype("<u2").tobytes()),
    ("fp16", FP16, FP16, lambda r: r.integers(0, 1 << 16, 1024, dtype=np.uint32).astype("<u2").tobytes()),
    ("fp32->tf32", FP32, TF32, lambda r: r.integers(0, 1 << 32, 1024, dtype=np.uint64).astype("<u4").tobytes()),
    ("fp32->bf16", FP32, BF16, lambda r: r.integers(0, 1 << 32, 1024, dtype=np.uint64).astype("<u4").tobytes()),
    ("fp32->fp16", FP32, FP16, lambda r: r.integers(0, 1 << 32, 1024, dtype=np.uint64).astype("<u4").tobytes()),
    ("int16", INT16, INT16, lambda r: r.integers(0, 1 << 16, 1024, dtype=np.uint32).astype("<u2").tobytes()),
    ("fp8-e5m2", FP8, FP8, lambda r: np.arange(1024, dtype=np.uint32).astype(np.uint8).tobytes()),
    ("bfp8_b", BFP8, BFP8, lambda r: _bfp_tile4(r, 8, 1, 255)),
    ("bfp4_b", BFP4, BFP4, lambda r: _bfp_tile4(r, 4, 1, 255)),
    ("bfp2_b", BFP2, BFP2, lambda r: _bfp_tile4(r, 2, 1, 255)),
]


@pytest.mark.parametrize("name,in_fmt,out_fmt,make_data", SRCA_CASES, ids=[c[0] for c in SRCA_CASES])
def test_formats_into_srca_bit_identical_to_ttsim(ttsim_bh, name, in_fmt, out_fmt, make_data):
    data = make_data(np.random.default_rng(80 + in_fmt * 16 + out_fmt))
    out = _ttsim_unpack_to_srca(ttsim_bh, in_fmt, out_fmt, data)
    assert any(out)


def test_fp8_e4m3_into_srca_bit_identical_to_ttsim(ttsim_bh):
    """Every E4M3 byte (Unp_LF8_4b_exp) through SrcA and Dst to FP16 in L1: ttsim's
    bytes, and normal values exactly (MOVA2D flushes the exponent-0 ones to zero)."""
    v = np.arange(1024, dtype=np.uint32) & 0xFF
    out = np.frombuffer(_ttsim_unpack_to_srca(ttsim_bh, FP8, FP8, v.astype(np.uint8).tobytes(), e4m3=1), "<u2")
    ref = e4m3_reference(v)
    normal = ((v >> 3) & 15) != 0
    assert np.array_equal(out[normal], ref[normal]) and not out[~normal].any()


# -- the unpackers' ADCs: tt-llk's Blackhole SETADCXY with a thread override -------------------
def test_setadcxy_thread_override_in_the_ch1_y_field():
    """Blackhole's table makes SETADCXY's Ch1_Y six bits; tt-llk's
    TT_OP_SETADCXY_THREAD_OVERRIDE puts the thread (THREAD_OVRD_MATH = 2: thread 1)
    in its bits 4:3, which are SETADCXY.md's ThreadOverride (bits 19:18): thread 1's
    unpacker Y counters become 0 and keep their 3-bit value, thread 0's are untouched."""
    from tensix_harness import push_word
    tile, issue = make("blackhole")
    adcs = tile.tensix.adcs
    for th in (0, 1):
        for u in (0, 1):
            for ch in (0, 1):
                adcs.channel(th, u, ch).set("Y", 5)
    word = (0x51 << 24) | (0b011 << 21) | (((2 << 3) | 3) << 15) | (1 << 9) | 0b1010  # Y0 = 1, Y1 = 3
    push_word(tile, 0, word)
    for u in (0, 1):
        assert (adcs.channel(1, u, 0).Y, adcs.channel(1, u, 1).Y) == (1, 3)
        assert adcs.channel(1, u, 1).Y_Cr == 3
        assert (adcs.channel(0, u, 0).Y, adcs.channel(0, u, 1).Y) == (5, 5)
