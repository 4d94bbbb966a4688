"""Packers: tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/PACR.md,
PACR_SETREG.md, Packers/README.md, Packers/InputAddressGenerator.md,
Packers/OutputAddressGenerator.md, Packers/FormatConversion.md, Packers/EdgeMasking.md,
Packers/ReLU.md, Packers/ExponentThresholding.md, Packers/ExponentHistogram.md,
Packers/Downsampling.md, ../L1.md (accumulation), ../TDMA-RISC.md (sideband).
References are small numpy models written in this file; the unpack -> pack round
trips use the unpacker (UNPACR_Regular.md) as the other half."""

import numpy as np
import pytest

from tensix_harness import make, warned
from ttemu import GuestFault, UndefinedBehaviour
from ttemu.errors import Unimplemented
from ttemu.mmio.router import Device
from ttemu.tensix.formats import DataFormat as DF
from ttemu.tensix.units.pack import accumulate
from ttemu.tensix.units.unpack import encode_tile_descriptor

U32 = np.uint32
L1B = 0x20000
PSEC = ("THCON_SEC0_REG1_", "THCON_SEC0_REG8_", "THCON_SEC1_REG1_", "THCON_SEC1_REG8_")
FP32, FP16, BFP8A, BFP4A, TF32, BF16, BFP8, BFP4, INT32, INT16, FP8, BFP2A, INT8, BFP2 = (
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 15)
PACR = dict(AddrMode=0, ZeroWrite=0, PackSel=1, OvrdThreadId=0, Concat=0, Flush=0, Last=1)


# -- Dst layout references (Dst.md / UNPACR_Regular.md WriteDst*) ----------------------------
def dst_bf16(x):
    x = np.asarray(x, dtype=np.int64)
    return ((x & 0x8000) | ((x & 0x7F) << 8) | ((x & 0x7F80) >> 7)).astype(np.uint16)


def dst_fp16(x):
    x = np.asarray(x, dtype=np.int64)
    return ((x & 0x8000) | ((x & 0x3FF) << 5) | ((x & 0x7C00) >> 10)).astype(np.uint16)


def dst_fp32(x):
    """WriteDstFP32: the high half in the Dst BF16 arrangement (also how INT32 sits in Dst)."""
    x = np.asarray(x, dtype=np.int64)
    return ((dst_bf16(x >> 16).astype(np.int64) << 16) | (x & 0xFFFF)).astype(U32)


def pacr(issue, thread=0, **kw):
    f = dict(PACR)
    f.update(kw)
    return issue(thread, "PACR", **f)


def tset(cop, thread, name, value):
    idx, sh, w = cop.config.thread_fields[name]
    old = int(cop.config.thread_cfg[thread, idx])
    m = ((1 << w) - 1) << sh
    cop.config.thread_set_word(thread, idx, (old & ~m) | ((value << sh) & m))


def setup(tile, *, i=0, in_fmt, out_fmt, dstacc=None, read32=False, raw=False, round10=False, unsigned=False,
          l1=L1B, count=256, thread=0, exp_section=0):
    cop = tile.tensix
    cfg = cop.config
    s = PSEC[i]
    cfg.set(s + "Disable_zero_compress", 1)
    cfg.set(s + "In_data_format", in_fmt)
    cfg.set(s + "Out_data_format", out_fmt)
    cfg.set(s + "L1_Dest_addr", l1 // 16 - 1)
    cfg.set(s + "Exp_section_size", exp_section)
    cfg.set("ALU_FORMAT_SPEC_REG2_Dstacc", in_fmt if dstacc is None else dstacc)
    cfg.set("PCK_DEST_RD_CTRL_Read_32b_data", int(read32))
    cfg.set("PCK_DEST_RD_CTRL_Read_int8", int(raw))
    cfg.set("PCK_DEST_RD_CTRL_Round_10b_mant", int(round10))
    cfg.set("PCK_DEST_RD_CTRL_Read_unsigned", int(unsigned))
    for c in range(4):
        cfg.set(f"PCK_EDGE_OFFSET_SEC{c}_mask", 0xFFFF)
    cop.adcs.channel(thread, 2, 1).set("X", count - 1)
    return cop


def l1(tile, addr, n):
    return np.frombuffer(bytes(tile.l1[addr:addr + n]), dtype=np.uint8)


def rng(seed):
    return np.random.default_rng(seed)


def fp32_bits(values):
    return np.asarray(values, dtype=np.float32).view(U32)


# -- formats --------------------------------------------------------------------------------
def test_bf16_identity_from_dst16():
    tile, issue = make()
    v = rng(1).integers(0, 1 << 16, 256, dtype=np.uint32)
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True)
    cop.dst.bits[:16] = dst_bf16(v).reshape(16, 16)
    pacr(issue)
    assert np.array_equal(l1(tile, L1B, 512).view("<u2"), v)
    assert cop.pack.last_tile_size[0] == 32 and cop.pack.last_thread[0] == 0


def test_bf16_rounding_flushes_denormals_and_minus_zero():
    tile, issue = make()
    v = np.array([0x0001, 0x8000, 0x8001, 0x3F80, 0xBF80, 0x7F80] + [0] * 250, dtype=np.uint32)
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16)
    cop.dst.bits[:16] = dst_bf16(v).reshape(16, 16)
    pacr(issue)
    assert list(l1(tile, L1B, 12).view("<u2")) == [0, 0, 0, 0x3F80, 0xBF80, 0x7F80]


def test_fp32_identity_and_fp32_to_bf16_truncation():
    tile, issue = make()
    w = rng(2).integers(0, 1 << 32, 256, dtype=np.uint64).astype(U32)
    cop = setup(tile, in_fmt=FP32, out_fmt=FP32, read32=True)
    cop.dst.write32(0, dst_fp32(w).reshape(16, 16))
    pacr(issue)
    assert np.array_equal(l1(tile, L1B, 1024).view("<u4"), w)
    # late FP32 -> BF16: truncate (denormals flushed as the mantissa narrows)
    tile.tensix.config.set(PSEC[0] + "Out_data_format", BF16)
    pacr(issue)
    ref = np.where((w & 0x7F800000) == 0, w & 0x80000000, w) >> 16
    assert np.array_equal(l1(tile, L1B, 512).view("<u2"), ref)


def test_fp32_to_tf32_rounds_ties_away():
    tile, issue = make()
    w = np.array([0x3F801000, 0x3F800FFF, 0xBF803000, 0x3F802000] + [0x40000000] * 252, dtype=np.uint32)
    cop = setup(tile, in_fmt=TF32, out_fmt=TF32, dstacc=TF32, read32=True)
    cop.dst.write32(0, dst_fp32(w).reshape(16, 16))
    pacr(issue)
    got = l1(tile, L1B, 16).view("<u4")
    assert list(got) == [0x3F802000, 0x3F800000, 0xBF804000, 0x3F802000]


def test_fp16_identity_and_fp8_truncation():
    tile, issue = make()
    v = rng(3).integers(0, 1 << 16, 256, dtype=np.uint32)
    cop = setup(tile, in_fmt=FP16, out_fmt=FP16, raw=True)
    cop.dst.bits[:16] = dst_fp16(v).reshape(16, 16)
    pacr(issue)
    assert np.array_equal(l1(tile, L1B, 512).view("<u2"), v)
    # FP8: IntermediateFormat FP8 with Read_raw (truncation), late FP8 -> FP8
    v8 = v & 0xFF00
    v8 = np.where((v8 & 0x7C00) == 0, 0, v8)  # keep clear of the denormal rows of the late table
    tile, issue = make()
    cop = setup(tile, in_fmt=FP8, out_fmt=FP8, raw=True)
    cop.dst.bits[:16] = dst_fp16(v8 | (v & 0xFF)).reshape(16, 16)
    pacr(issue)
    assert np.array_equal(l1(tile, L1B, 256), (v8 >> 8).astype(np.uint8))


def test_int32_int16_int8_uint8():
    tile, issue = make()
    w = rng(4).integers(0, 1 << 32, 256, dtype=np.uint64).astype(U32)
    cop = setup(tile, in_fmt=INT32, out_fmt=INT32, read32=True)
    cop.dst.write32(0, dst_fp32(w).reshape(16, 16))
    pacr(issue)
    assert np.array_equal(l1(tile, L1B, 1024).view("<u4"), w)
    # INT8 "sign bit and low 7 bits of magnitude" (Read_raw)
    cfg = cop.config
    cfg.set("ALU_FORMAT_SPEC_REG2_Dstacc", INT8)
    cfg.set(PSEC[0] + "In_data_format", INT8)
    cfg.set(PSEC[0] + "Out_data_format", INT8)
    cfg.set("PCK_DEST_RD_CTRL_Read_int8", 1)
    pacr(issue)
    assert np.array_equal(l1(tile, L1B, 256), (((w >> 31) << 7) | (w & 0x7F)).astype(np.uint8))
    # UINT8 low eight bits
    cfg.set("PCK_DEST_RD_CTRL_Read_unsigned", 1)
    pacr(issue)
    assert np.array_equal(l1(tile, L1B, 256), (w & 0xFF).astype(np.uint8))
    # shift (INT_DESCALE), round ties away, saturate to 127
    cfg.set("PCK_DEST_RD_CTRL_Read_unsigned", 0)
    cfg.set("PCK_DEST_RD_CTRL_Read_int8", 0)
    cfg.set("INT_DESCALE_Enable", 1)
    cfg.set("INT_DESCALE_VALUES_SEC0_Value", 4)
    mags = np.array([8, 7, 24, 0x7FFFFFFF] * 64, dtype=np.uint32)
    signs = np.array([0, 1] * 128, dtype=np.uint32) << 31
    cop.dst.write32(0, dst_fp32((mags | signs)).reshape(16, 16))
    pacr(issue)
    ref = np.minimum((mags + 8) >> 4, 127) | (signs >> 24)
    assert np.array_equal(l1(tile, L1B, 256), ref.astype(np.uint8))
    # INT16 identity from Dst16
    tile, issue = make()
    v = rng(5).integers(0, 1 << 16, 256, dtype=np.uint32)
    cop = setup(tile, in_fmt=INT16, out_fmt=INT16)
    cop.dst.bits[:16] = v.reshape(16, 16)
    pacr(issue)
    assert np.array_equal(l1(tile, L1B, 512).view("<u2"), v)


def _bfp_data(seed, exp_bits):
    """BF16 (or FP16) values whose 16-datum groups share one exponent and whose low
    mantissa bit is clear, so E8M6 / BFP rounding is exact."""
    r = rng(seed)
    e = r.integers(100, 150, 16) if exp_bits == 8 else r.integers(5, 28, 16)
    m = r.integers(0, 64, 256) << 1
    s = r.integers(0, 2, 256)
    ee = np.repeat(e, 16)
    if exp_bits == 8:
        bits = (s << 15) | (ee << 7) | m
    else:
        bits = (s << 15) | (ee << 10) | (m << 3)
    mag = (0x80 | m) >> 1
    return bits.astype(U32), e.astype(np.uint8), s.astype(U32), mag.astype(U32)


@pytest.mark.parametrize("out_fmt,bits", [(BFP8, 8), (BFP4, 4), (BFP2, 2)])
def test_bfp_b_formats(out_fmt, bits):
    tile, issue = make()
    v, e, s, mag = _bfp_data(6, 8)
    # E8M6 route: IntermediateFormat BFP8, Read_raw false; In_data_format BFP8 (e8m7)
    cop = setup(tile, in_fmt=BFP8, out_fmt=out_fmt, exp_section=1)
    cop.dst.bits[:16] = dst_bf16(v).reshape(16, 16)
    pacr(issue)
    assert np.array_equal(l1(tile, L1B, 16), e)
    m = mag >> (8 - bits)
    d = np.where(m == 0, 0, (s << (bits - 1)) | m)
    per = 8 // bits
    packed = np.bitwise_or.reduce(d.reshape(-1, per) << (np.arange(per) * bits), axis=1).astype(np.uint8)
    assert np.array_equal(l1(tile, L1B + 16, 256 * bits // 8), packed)


def test_bfp8a_from_fp16():
    tile, issue = make()
    v, e, s, mag = _bfp_data(7, 5)
    cop = setup(tile, in_fmt=BFP8A, out_fmt=BFP8A, raw=True, exp_section=1)  # E5M7 (truncation) route
    cop.dst.bits[:16] = dst_fp16(v).reshape(16, 16)
    pacr(issue)
    assert np.array_equal(l1(tile, L1B, 16), e)
    assert np.array_equal(l1(tile, L1B + 16, 256), ((s << 7) | mag).astype(np.uint8))


def test_bfp_blocks_span_pacrs_and_a_split_block_is_undefined():
    tile, issue = make()
    v, e, s, mag = _bfp_data(8, 8)
    cop = setup(tile, in_fmt=BFP8, out_fmt=BFP8, exp_section=1, count=8)
    cop.dst.bits[:16] = dst_bf16(v).reshape(16, 16)
    cop.config.set("PCK0_ADDR_CTRL_XY_REG_0_Ystride", 16)  # 1-byte datums: X reaches 16 datums, Y the rest
    ch0, ch1 = cop.adcs.channel(0, 2, 0), cop.adcs.channel(0, 2, 1)
    for k in range(32):  # 8 datums per PACR
        ch0.set("Y", k // 2)
        ch0.set("X", 8 * (k % 2))
        ch1.set("X", 8 * (k % 2) + 7)
        pacr(issue, Last=int(k == 31))
    assert np.array_equal(l1(tile, L1B, 16), e)
    assert np.array_equal(l1(tile, L1B + 16, 256), ((s << 7) | mag).astype(np.uint8))
    # Last with half a block (8 datums of row 15): undefined; padded with zero datums
    ch0.set("X", 0)
    ch1.set("X", 7)
    pacr(issue)
    warned(tile, "PACR partial BFP block")
    assert l1(tile, L1B, 1)[0] == e[15]  # zeros take no part in the shared exponent
    want = np.r_[((s << 7) | mag)[240:248], np.zeros(8)].astype(np.uint8)
    assert np.array_equal(l1(tile, L1B + 16, 16), want)
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="BFP block"):
        pacr(issue)


# -- output buffering / address generator -------------------------------------------------
def test_output_buffers_persist_until_last():
    tile, issue = make()
    v = np.arange(1, 17, dtype=np.uint32) + 0x3F00
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True)
    cop.dst.bits[0] = dst_bf16(v)
    tile.l1[L1B:L1B + 64] = b"\xee" * 64
    ch0, ch1 = cop.adcs.channel(0, 2, 0), cop.adcs.channel(0, 2, 1)
    ch1.set("X", 3)
    pacr(issue, Last=0)  # 8 bytes buffered
    assert l1(tile, L1B, 16).tolist() == [0xEE] * 16
    ch0.set("X", 4)
    ch1.set("X", 7)
    pacr(issue, Last=0)  # 16 bytes: one aligned write
    assert np.array_equal(l1(tile, L1B, 16).view("<u2"), v[:8])
    cop.config.set("PCK0_ADDR_CTRL_XY_REG_0_Ystride", 16)  # BF16: X only reaches 8 datums
    ch0.set("Y", 1)
    ch0.set("X", 0)
    ch1.set("X", 1)
    pacr(issue, Last=1)  # 4 bytes, padded with zeroes
    assert np.array_equal(l1(tile, L1B + 16, 16).view("<u2"), np.r_[v[8:10], np.zeros(6)])
    assert l1(tile, L1B + 32, 16).tolist() == [0xEE] * 16
    assert cop.pack.last_tile_size[0] == 2
    # NeedsNewAddress: the next tile starts from L1_Dest_addr again
    ch0.set("Y", 0)
    ch0.set("X", 0)
    ch1.set("X", 7)
    pacr(issue, Flush=0, Last=1)
    assert np.array_equal(l1(tile, L1B, 16).view("<u2"), v[:8])


def test_flush_pads_and_reads_nothing():
    tile, issue = make()
    v = np.arange(1, 17, dtype=np.uint32) + 0x3F00
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True, count=2)
    cop.dst.bits[0] = dst_bf16(v)
    pacr(issue, Last=0)
    pacr(issue, Last=0, Flush=1)  # InputNumDatums = 0, buffers flushed
    assert np.array_equal(l1(tile, L1B, 16).view("<u2"), np.r_[v[:2], np.zeros(6)])
    assert cop.pack.last_thread[0] is None  # Flush does not finish a tile


def test_input_address_from_adcs_strides_and_dest_offset():
    """Addr = Base + X*(Xstride & 0xf) + Y*Ystride + Z*Zstride + W*Wstride (bytes);
    datum = ((Addr / BytesPerDatum) & ~mask) + (X & mask) + Offset << 4."""
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True, count=16)
    rows = rng(9).integers(0, 1 << 16, (64, 16), dtype=np.uint32)
    cop.dst.bits[:64] = dst_bf16(rows)
    cfg = cop.config
    cfg.set("PCK0_ADDR_CTRL_XY_REG_0_Ystride", 32)  # one 16-datum row of BF16
    cfg.set("PCK0_ADDR_CTRL_ZW_REG_0_Zstride", 32 * 4)
    cfg.set("DEST_TARGET_REG_CFG_PACK_SEC0_Offset", 8)
    ch0, ch1 = cop.adcs.channel(0, 2, 0), cop.adcs.channel(0, 2, 1)
    ch0.set("Y", 2)
    ch0.set("Z", 3)
    ch0.set("X", 3)
    ch1.set("X", 3 + 15)
    pacr(issue)
    first = (2 + 12 + 8) * 16 + 3
    assert np.array_equal(l1(tile, L1B, 32).view("<u2"), rows.reshape(-1)[first:first + 16])


def test_addrmod_advances_channel0_and_channel1():
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True, count=16)
    p = "ADDR_MOD_PACK_SEC2_"
    for name, val in (("YsrcIncr", 2), ("ZsrcIncr", 1), ("YdstIncr", 3), ("YdstCR", 1)):
        tset(cop, 0, p + name, val)
    c0, c1 = cop.adcs.channel(0, 2, 0), cop.adcs.channel(0, 2, 1)
    c1.set("Y_Cr", 5)
    c1.set("Z", 9)
    pacr(issue, AddrMode=2)
    assert (c0.Y, c0.Z, c1.Y, c1.Y_Cr, c1.Z) == (2, 1, 8, 8, 9)
    tset(cop, 0, p + "ZdstClear", 1)
    tset(cop, 0, p + "YsrcClear", 1)
    pacr(issue, AddrMode=2)
    assert (c0.Y, c0.Z, c1.Z) == (0, 2, 0)


def test_output_address_channel1_in_256_byte_units_and_fifo_wrap():
    tile, issue = make()
    v = np.arange(1, 17, dtype=np.uint32) + 0x3F00
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True, count=8)
    cop.dst.bits[0] = dst_bf16(v)
    cfg = cop.config
    cfg.set("PCK0_ADDR_CTRL_XY_REG_1_Ystride", 0x18)
    cop.adcs.channel(0, 2, 1).set("Y", 2)
    pacr(issue)  # YZW_Addr = 0x30, & ~0xf = 0x30 sixteen-byte units
    assert np.array_equal(l1(tile, L1B + 0x300, 16).view("<u2"), v[:8])
    # Pack_limit_address / Pack_fifo_size (in 32-byte units)
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True, count=8, l1=0x30000)
    cop.dst.bits[0] = dst_bf16(v)
    cfg = cop.config
    cfg.set("THCON_SEC0_REG9_Pack_0_2_limit_address", (0x30000 // 16 - 2) // 2)
    cfg.set("THCON_SEC0_REG9_Pack_0_2_fifo_size", 0x1000 // 32)
    pacr(issue)
    assert np.array_equal(l1(tile, 0x30000 - 0x1000, 16).view("<u2"), v[:8])


def test_four_packers_with_their_own_configuration():
    tile, issue = make()
    cop = tile.tensix
    rows = rng(10).integers(0, 1 << 16, (64, 16), dtype=np.uint32)
    for i in range(4):
        setup(tile, i=i, in_fmt=BF16, out_fmt=BF16, raw=True, l1=L1B + 0x1000 * i)
        cop.config.set(f"DEST_TARGET_REG_CFG_PACK_SEC{i}_Offset", 16 * i)
    cop.dst.bits[:64] = dst_bf16(rows)
    pacr(issue, PackSel=0b1111)
    for i in range(4):
        assert np.array_equal(l1(tile, L1B + 0x1000 * i, 512).view("<u2"), rows[16 * i:16 * i + 16].reshape(-1))
    # PACR.md: other masks are undefined; ttemu issues the work to every packer in the mask
    cop.dst.bits[:64] = dst_bf16(rows[::-1].copy())
    for i in range(4):
        tile.l1[L1B + 0x1000 * i:L1B + 0x1000 * i + 512] = bytes(512)
    pacr(issue, PackSel=0b0101)
    warned(tile, "PACR PackerMask=0b0101")
    for i in range(4):
        got = l1(tile, L1B + 0x1000 * i, 512).view("<u2")
        want = rows[::-1][16 * i:16 * i + 16].reshape(-1) if i in (0, 2) else np.zeros(256)
        assert np.array_equal(got, want), i
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="PackerMask"):
        pacr(issue, PackSel=0b0101)


def test_ovrd_thread_id_uses_addr_cnt_context():
    tile, issue = make()
    v = np.arange(1, 17, dtype=np.uint32) + 0x3F00
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True, count=1)
    cop.dst.bits[0] = dst_bf16(v)
    cop.config.set(PSEC[0] + "Addr_cnt_context", 2)
    cop.adcs.channel(2, 2, 0).set("X", 4)
    cop.adcs.channel(2, 2, 1).set("X", 7)
    tset(cop, 0, "ADDR_MOD_PACK_SEC0_YsrcIncr", 1)
    pacr(issue, OvrdThreadId=1)
    assert np.array_equal(l1(tile, L1B, 8).view("<u2"), v[4:8])
    assert cop.adcs.channel(2, 2, 0).Y == 1 and cop.adcs.channel(0, 2, 0).Y == 0


# -- pipeline features ------------------------------------------------------------------------
def test_edge_mask_columns_rows_and_faces():
    tile, issue = make()
    v = rng(11).integers(0x3F80, 0x4080, 512, dtype=np.uint32)
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True, count=512)
    cop.dst.bits[:32] = dst_bf16(v).reshape(32, 16)
    cfg = cop.config
    cfg.set("PCK_EDGE_OFFSET_SEC0_mask", 0x00FF)
    cfg.set("PCK_EDGE_OFFSET_SEC1_mask", 0xFF00)
    cfg.set("PCK_EDGE_OFFSET_SEC3_mask", 0x0001)
    cfg.set("PACK_COUNTERS_SEC0_pack_reads_per_xy_plane", 16)
    for k in range(1, 16, 2):
        cfg.set(f"TILE_ROW_SET_MAPPING_0_row_set_mapping_{k}", 1)
    for k in range(16):
        cfg.set(f"TILE_ROW_SET_MAPPING_2_row_set_mapping_{k}", 3)
    pacr(issue)
    m = v.reshape(32, 16).copy()
    keep = np.zeros((32, 16), bool)
    keep[0:32:2, :8] = True
    keep[1:32:2, 8:] = True
    assert np.array_equal(l1(tile, L1B, 1024).view("<u2").reshape(32, 16), np.where(keep, m, 0))
    # -infinity mode, and per-face row sets (TILE_FACE_SET_MAPPING, select = 1 for packer 0)
    cfg.set("PCK_EDGE_MODE_mode", 1)
    cfg.set("PCK_EDGE_TILE_FACE_SET_SELECT_enable", 1)
    cfg.set("PCK_EDGE_TILE_FACE_SET_SELECT_select", 1)
    cfg.set("TILE_FACE_SET_MAPPING_1_face_set_mapping_1", 2)
    pacr(issue)
    keep2 = keep.copy()
    keep2[16:] = False
    keep2[16:, 0] = True
    assert np.array_equal(l1(tile, L1B, 1024).view("<u2").reshape(32, 16), np.where(keep2, m, 0xFF80))


def test_edge_mask_position_generator_continues_across_pacrs():
    tile, issue = make()
    v = np.full(32, 0x3F80, dtype=np.uint32)
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True, count=8)
    cop.dst.bits[:2] = dst_bf16(v).reshape(2, 16)
    cfg = cop.config
    cfg.set("PCK_EDGE_OFFSET_SEC0_mask", 0xFFFF)
    cfg.set("PCK_EDGE_OFFSET_SEC1_mask", 0)
    cfg.set("PACK_COUNTERS_SEC0_pack_reads_per_xy_plane", 2)
    cfg.set("TILE_ROW_SET_MAPPING_0_row_set_mapping_1", 1)  # second row of every plane
    ch0, ch1 = cop.adcs.channel(0, 2, 0), cop.adcs.channel(0, 2, 1)
    out = []
    for k in range(4):
        ch0.set("X", 8 * k)
        ch1.set("X", 8 * k + 7)
        pacr(issue, Last=int(k == 3))
    out = l1(tile, L1B, 64).view("<u2")
    assert np.array_equal(out, np.r_[np.full(16, 0x3F80), np.zeros(16)])
    assert cop.pack.state[0].tpg == [0, 0, 0]  # restarted by Last


def test_relu_modes():
    tile, issue = make()
    x = np.array([-3.0, -0.0, 0.0, 0.5, 1.0, 2.0, 3.0, 100.0] * 32, dtype=np.float32)
    cop = setup(tile, in_fmt=FP32, out_fmt=FP32, read32=True)
    cop.dst.write32(0, dst_fp32(fp32_bits(x)).reshape(16, 16))
    cfg = cop.config
    cfg.set("STACC_RELU_ReluThreshold", 0x4000)  # BF16 2.0
    expect = {
        1: np.where(x <= 0, 0, x),
        2: np.where(x <= 2.0, 0, x),
        3: np.where(x <= 0, 0, np.where(x > 2.0, 2.0, x)),
    }
    for mode, ref in expect.items():
        cfg.set("STACC_RELU_ApplyRelu", mode)
        pacr(issue)
        assert np.array_equal(l1(tile, L1B, 1024).view("<u4"), fp32_bits(ref)), mode
    # ReLU.md: a negative threshold is undefined; ttemu does what ttsim does (an unsigned
    # compare of bit patterns: the threshold is above every positive value)
    cfg.set("STACC_RELU_ReluThreshold", 0xC000)  # BF16 -2.0
    for mode, ref in ((2, np.zeros_like(x)), (3, np.where(x <= 0, 0, x))):
        cfg.set("STACC_RELU_ApplyRelu", mode)
        pacr(issue)
        assert np.array_equal(l1(tile, L1B, 1024).view("<u4"), fp32_bits(ref)), mode
    warned(tile, "PACR ReLU mode 2 negative threshold")
    warned(tile, "PACR ReLU mode 3 negative threshold")
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="threshold"):
        pacr(issue)


def test_relu_with_fp16_threshold():
    tile, issue = make()
    h = np.array([0xC000, 0x3C00, 0x4000, 0x4200, 0x7BFF, 0x0001, 0, 0x8000] * 32, dtype=np.uint32)
    cop = setup(tile, in_fmt=FP16, out_fmt=FP16, raw=True)
    cop.dst.bits[:16] = dst_fp16(h).reshape(16, 16)
    cfg = cop.config
    cfg.set("STACC_RELU_ReluThreshold", 0x4000)  # FP16 2.0
    cfg.set("STACC_RELU_ApplyRelu", 3)
    pacr(issue)
    ref = np.array([0, 0x3C00, 0x4000, 0x4000, 0x4000, 0x0001, 0, 0] * 32)
    assert np.array_equal(l1(tile, L1B, 512).view("<u2"), ref)


def test_exponent_thresholding():
    tile, issue = make()
    x = np.array([0.25, -0.5, 1.0, -1.5, 1e-30, 4.0, 0.0, -8.0] * 32, dtype=np.float32)
    cop = setup(tile, in_fmt=FP32, out_fmt=FP32, read32=True)
    cop.dst.write32(0, dst_fp32(fp32_bits(x)).reshape(16, 16))
    cop.config.set(PSEC[0] + "Exp_threshold_en", 1)
    cop.config.set(PSEC[0] + "Exp_threshold", 127)
    pacr(issue)
    assert np.array_equal(l1(tile, L1B, 1024).view("<u4"), fp32_bits(np.where(np.abs(x) < 1, 0, x)))


def test_downsampling_mask():
    tile, issue = make()
    v = np.arange(256, dtype=np.uint32) + 0x3F00
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True)
    cop.dst.bits[:16] = dst_bf16(v).reshape(16, 16)
    cop.config.set(PSEC[0] + "Downsample_mask", 0x0F0F)
    pacr(issue)
    keep = ((0x0F0F >> (np.arange(256) % 16)) & 1).astype(bool)
    assert np.array_equal(l1(tile, L1B, 256).view("<u2"), v[keep])


def test_exponent_histogram_and_clear():
    tile, issue = make()
    e = np.array([127, 128, 128, 130, 1, 0, 200, 131] * 32)
    v = (e << 7) | 0x11
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True)
    cop.dst.bits[:16] = dst_bf16(v).reshape(16, 16)
    pk = cop.pack
    pacr(issue)
    assert not pk.exponent_histogram.any() and pk.exponent_histogram_max_exponent == 200  # stats disabled
    tset(cop, 1, "ENABLE_ACC_STATS_Enable", 1)  # any thread's enable counts
    pacr(issue)
    ref = np.minimum(np.bincount(e & 31, minlength=32), 255)
    assert np.array_equal(pk.exponent_histogram[0], ref)
    for _ in range(8):
        pacr(issue)
    assert pk.exponent_histogram[0].max() == 255  # saturating
    pk.clear_exponent_histograms()
    assert not pk.exponent_histogram.any() and pk.exponent_histogram_max_exponent == 0


def test_zero_write_packs_zeroes():
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True)
    cop.dst.bits[:16] = 0x3F80
    tile.l1[L1B:L1B + 512] = b"\x55" * 512
    pacr(issue, ZeroWrite=1)
    assert not l1(tile, L1B, 512).any()


# -- L1 accumulation ---------------------------------------------------------------------------
def test_l1_accumulation_fp32_int32_bf16():
    tile, issue = make()
    x = rng(12).standard_normal(256).astype(np.float32)
    y = rng(13).standard_normal(256).astype(np.float32)
    cop = setup(tile, in_fmt=FP32, out_fmt=FP32, read32=True)
    cop.config.set(PSEC[0] + "Pack_L1_Acc", 1)
    cop.dst.write32(0, dst_fp32(fp32_bits(x)).reshape(16, 16))
    tile.l1[L1B:L1B + 1024] = y.tobytes()
    pacr(issue)
    assert np.array_equal(l1(tile, L1B, 1024).view(np.float32), x + y)
    # INT32 sign-magnitude, saturating
    a = np.array([5, 0x80000003, 0x7FFFFFF0, 0x80000010, 7, 0x80000007] * 42 + [0] * 4, dtype=np.uint32)
    b = np.array([0x80000008, 0x80000004, 0x100, 0xFFFFFFF0, 0x80000007, 7] * 42 + [0] * 4, dtype=np.uint32)
    cfg = cop.config
    for name in ("In_data_format", "Out_data_format"):
        cfg.set(PSEC[0] + name, INT32)
    cfg.set("ALU_FORMAT_SPEC_REG2_Dstacc", INT32)
    cop.dst.write32(0, dst_fp32(a).reshape(16, 16))
    tile.l1[L1B:L1B + 1024] = b.tobytes()
    pacr(issue)
    ref = np.array([0x80000003, 0x80000007, 0x7FFFFFFF, 0xFFFFFFFF, 0, 0] * 42 + [0] * 4, dtype=np.uint32)
    assert np.array_equal(l1(tile, L1B, 1024).view("<u4"), ref)
    # BF16: FP32 add, round to nearest even
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True)
    cop.config.set(PSEC[0] + "Pack_L1_Acc", 1)
    hv = np.array([0x3F80, 0x3F80, 0x4000] * 85 + [0], dtype=np.uint32)  # 1, 1, 2
    lv = np.array([0x3B80, 0x3BC0, 0x3F80] * 85 + [0], dtype=np.uint32)  # 2**-8, 1.5 * 2**-8, 1
    cop.dst.bits[:16] = dst_bf16(hv).reshape(16, 16)
    tile.l1[L1B:L1B + 512] = lv.astype("<u2").tobytes()
    pacr(issue)
    ref = np.array([0x3F80, 0x3F81, 0x4040] * 85 + [0])  # tie to even, round up, exact
    assert np.array_equal(l1(tile, L1B, 512).view("<u2"), ref)


def test_l1_accumulation_edge_values_follow_ttsim():
    """L1.md names the accumulation lanes (FP32, BF16, FP16, INT32) but not their
    arithmetic; ttemu follows ttsim's packer, checked bit for bit by
    tests/test_pack_formats_ttsim.py. Expected values worked by hand from those rules:
    FP32 and BF16 take denormals as zeros and flush denormal results; FP32 NaNs become
    0x7fc00000; BF16 +inf + -inf is 0x7fc0 and a NaN in L1 counts as a huge finite value
    (the sum is +inf); FP16 has no infinity: a result below 2**-14's exponent range
    saturates to 0x7fff (sign kept), overflow saturates, and an exact cancellation is
    0x7fff when L1's exponent was 30 or 31, else +0."""
    def acc(old, new, fmt, dt):
        return accumulate(np.array(old, dt).view(np.uint8), np.array(new, dt).view(np.uint8), fmt, "t").view(dt)

    got = acc([0x00000001, 0x7F800001, 0x00C00000, 0x3F800000], [0x3F800000, 0x3F800000, 0x80800000, 1],
              DF.Float32, "<u4")
    assert got.tolist() == [0x3F800000, 0x7FC00000, 0, 0x3F800000]
    got = acc([0x7F80, 0x7FC1, 0x0001, 0x0080, 0x3F80, 0x3F80, 0, 0],
              [0xFF80, 0x3F80, 0x8080, 0x8080, 0x3B80, 0x3BC0, 0, 0], DF.Float16_b, "<u2")
    assert got.tolist() == [0x7FC0, 0x7F80, 0x8080, 0, 0x3F80, 0x3F81, 0, 0]
    got = acc([0x0001, 0x0400, 0x7C00, 0x7FFF, 0x3C00, 0x3C00, 0, 0],
              [0x3C00, 0x8401, 0xFC00, 0x7FFF, 0xBC00, 0x1400, 0, 0], DF.Float16, "<u2")
    assert got.tolist() == [0x3C00, 0xFFFF, 0x7FFF, 0x7FFF, 0, 0x3C01, 0, 0]


def test_data_dependent_undefined_conversions_warn():
    """Values the late conversion "mishandles" (Packers/FormatConversion.md) are data, so
    real kernels can meet them: a warning once per site, then ttsim's values: FP32 ->
    FP16 writes 2**-15 < |x| < 2**-14 as the denormal with FP32's top mantissa bits;
    --strict stops. A BFP8 magnitude that rounds to 128 is not undefined by any page:
    it saturates to 127, silently, as ttsim's packer and tt-metal's host converter do."""
    tile, issue = make()
    x = np.array([1.0, -2.5, 2.0**-14.5, -(2.0**-14.5)] * 64, dtype=np.float32)
    cop = setup(tile, in_fmt=FP32, out_fmt=FP16, read32=True)
    cop.dst.write32(0, dst_fp32(fp32_bits(x)).reshape(16, 16))
    pacr(issue)
    warned(tile, "2**-15..2**-14", times=1)
    m10 = (fp32_bits(2.0**-14.5) >> 13) & 0x3FF
    want = np.array([0x3C00, 0xC100, m10, 0x8000 | m10] * 64)
    assert np.array_equal(l1(tile, L1B, 512).view("<u2"), want)
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="mishandles"):
        pacr(issue)
    tile, issue = make()
    v = np.array([0x3FFF] + [0x3F80] * 255, dtype=np.uint32)  # 1.9921875: mantissa all ones at the max
    cop = setup(tile, in_fmt=BF16, out_fmt=BFP8, raw=True, exp_section=1)
    cop.dst.bits[:16] = dst_bf16(v).reshape(16, 16)
    tile.diagnostics.strict = True
    pacr(issue)
    assert l1(tile, L1B, 1)[0] == 127 and l1(tile, L1B + 16, 2).tolist() == [127, 64]


def test_fp16_denormal_widened_to_fp32_warns_and_follows_ttsim():
    """FormatConversion.md: when the exponent widens, denormals are "mishandled"; ttemu
    warns and writes what ttsim does: the mantissa widened without rebiasing (an FP32
    denormal, which the page tells consumers to treat as zero)."""
    tile, issue = make()
    v = np.array([0x0001, 0x8200, 0x3C00, 0] * 64, dtype=np.uint32)
    cop = setup(tile, in_fmt=FP16, out_fmt=FP32, raw=True)
    cop.dst.bits[:16] = dst_fp16(v).reshape(16, 16)
    pacr(issue)
    warned(tile, "packer late FP16->FP32 denormal")
    assert l1(tile, L1B, 16).view("<u4").tolist() == [0x2000, 0x80400000, 0x3F800000, 0]
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="denormal"):
        pacr(issue)


def test_negative_input_datum_count_is_a_guest_fault():
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True)
    cop.adcs.channel(0, 2, 0).set("X", 10)
    cop.adcs.channel(0, 2, 1).set("X", 5)
    with pytest.raises(GuestFault, match="negative"):
        pacr(issue)


def test_l1_accumulation_of_bfp_is_undefined():
    tile, issue = make()
    cop = setup(tile, in_fmt=BFP8, out_fmt=BFP8, exp_section=1)
    cop.config.set(PSEC[0] + "Pack_L1_Acc", 1)
    with pytest.raises(GuestFault, match="accumulation"):
        pacr(issue)


# -- round trips ------------------------------------------------------------------------------
UNPACR = dict(Unpack_block_selection=0, AddrMode=0, CfgContextCntInc=0, CfgContextId=0, AddrCntContextId=0,
              OvrdThreadId=0, SetDatValid=0, rareb_en=0, ZeroWrite2=0, AutoIncContextID=0, RowSearch=0,
              SearchCacheFlush=0, Last=0)


def unpack_to_dst(tile, issue, fmt, src_addr, count=256):
    cop = tile.tensix
    cfg = cop.config
    for k, w in enumerate(encode_tile_descriptor(InDataFormat=fmt, IsUncompressed=1, XDim=16, YDim=count // 16,
                                                 ZDim=1)):
        cfg.write_word(0, 52 + k, w)
    cfg.set("THCON_SEC0_REG3_Base_address", src_addr // 16 - 1)
    cfg.set("THCON_SEC0_REG2_Out_data_format", fmt)
    cfg.set("THCON_SEC0_REG2_Unpack_If_Sel", 1)
    scale = 4 if fmt in (FP32, INT32) else 2 if fmt in (BF16, FP16, INT16) else 1
    cfg.set("UNP0_ADDR_BASE_REG_1_Base", 64 * scale)  # Dst row 0
    cop.adcs.channel(0, 0, 1).set("X", count - 1)
    t = issue(0, "UNPACR", **UNPACR)
    assert t.held is None


@pytest.mark.parametrize("name", ["fp32", "int32", "bf16", "fp16", "int16", "bfp8_b", "bfp8a"])
def test_round_trip_unpack_then_pack(name):
    tile, issue = make()
    r = rng(20)
    src, dst = 0x10000, 0x20000
    if name in ("fp32", "int32"):
        fmt = FP32 if name == "fp32" else INT32
        data = r.integers(0, 1 << 32, 256, dtype=np.uint64).astype(U32).astype("<u4").tobytes()
        kw = dict(in_fmt=fmt, out_fmt=fmt, read32=True)
    elif name in ("bf16", "fp16", "int16"):
        fmt = {"bf16": BF16, "fp16": FP16, "int16": INT16}[name]
        data = r.integers(0, 1 << 16, 256, dtype=np.uint32).astype("<u2").tobytes()
        kw = dict(in_fmt=fmt, out_fmt=fmt, raw=True)
    else:
        fmt = BFP8 if name == "bfp8_b" else BFP8A
        e = r.integers(100, 150, 16) if fmt == BFP8 else r.integers(8, 31, 16)
        d = r.integers(1, 128, 256)
        d[::16] |= 0x40  # every block has a datum at its shared exponent
        d |= r.integers(0, 2, 256) << 7
        sec = np.zeros(16, np.uint8)
        sec[:] = e
        data = sec.tobytes() + d.astype(np.uint8).tobytes()
        kw = dict(in_fmt=fmt, out_fmt=fmt, raw=True, exp_section=1)
    tile.l1[src:src + len(data)] = data
    unpack_to_dst(tile, issue, fmt, src)
    setup(tile, l1=dst, **kw)
    pacr(issue)
    assert bytes(tile.l1[dst:dst + len(data)]) == data


# -- PACR_SETREG and the sideband ------------------------------------------------------------
class Stub(Device):
    name = "stub"

    def __init__(self):
        self.writes = []

    def write(self, core, addr, width, value):
        self.writes.append((addr, width, value))
        return True


def test_pacr_setreg_writes_value32_after_flushing():
    tile, issue = make()
    stub = Stub()
    tile.router.attach("noc0_regs", stub)
    v = np.arange(1, 17, dtype=np.uint32) + 0x3F00
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True, count=2)
    cop.dst.bits[0] = dst_bf16(v)
    pk = cop.pack
    pk.set_pack_reg_addr((1 << 10) * 4 | 4)  # SetRegBase = {0x10, 0x10}
    pk.set_scaler(0, (3 << 9) | 1)  # SetRegHiScaler[0] = 1, [1] = 3
    pacr(issue, Last=0)
    issue(0, "PACR_SETREG", Push=1, AddrSel=1, WrData=5, PackSel=0xF, StreamId=0x20, Flush=1, Last=0)
    value = 5 + ((5 * 3) << 12)  # Out_data_format BF16 & 3 = 1 -> scaler 1
    assert stub.writes == [(0xFFB20010, 4, value)]
    assert np.array_equal(l1(tile, L1B, 16).view("<u2"), np.r_[v[:2], np.zeros(6)])
    # PackSel other than 0xf: undefined; the page's model reads none of the fixed fields
    issue(0, "PACR_SETREG", Push=1, AddrSel=1, WrData=6, PackSel=0x1, StreamId=0x20, Flush=1, Last=0)
    warned(tile, "PACR_SETREG fixed fields")
    assert stub.writes[-1] == (0xFFB20010, 4, 6 + ((6 * 3) << 12))
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="PACR_SETREG"):
        issue(0, "PACR_SETREG", Push=1, AddrSel=0, WrData=5, PackSel=0x1, StreamId=0x20, Flush=1, Last=0)
    pk.set_reg_base[0] = 0
    with pytest.raises(GuestFault, match="below"):
        issue(0, "PACR_SETREG", Push=1, AddrSel=0, WrData=5, PackSel=0xF, StreamId=0x10, Flush=1, Last=0)


def test_tile_sizes_and_metadata_fifo():
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True, thread=1)
    cop.config.set(PSEC[0] + "Add_tile_header_size", 1)
    cop.config.set(PSEC[0] + "Enable_out_fifo", 1)
    pacr(issue, thread=1)
    pacr(issue, thread=1)
    pk = cop.pack
    assert pk.last_tile_size[0] == 32 and pk.last_thread[0] == 1
    assert pk.acc_tile_size[0] == [0, 66, 0]
    assert list(pk.metadata_fifo[0]) == [(32, 0), (32, 0)]
    pk.reset_acc_tile_size(0)
    assert pk.acc_tile_size[0] == [0, 0, 0]


def test_unmodelled_features():
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, raw=True)
    cop.config.set(PSEC[0] + "Disable_zero_compress", 0)
    with pytest.raises(Unimplemented, match="compression"):
        pacr(issue)
    cop.config.set(PSEC[0] + "Disable_zero_compress", 1)
    cop.config.set("ALU_ROUNDING_MODE_Packer_srnd_en", 1)
    with pytest.raises(Unimplemented, match="stochastic"):
        pacr(issue)
    cop.config.set("ALU_ROUNDING_MODE_Packer_srnd_en", 0)
    cop.config.set(PSEC[0] + "Source_interface_selection", 1)
    with pytest.raises(Unimplemented, match="L1"):
        pacr(issue)


def test_mismatched_late_from_format_is_undefined():
    tile, issue = make()
    setup(tile, in_fmt=FP16, out_fmt=FP16, dstacc=BF16, raw=True)
    with pytest.raises(GuestFault, match="In_data_format"):
        pacr(issue)
    tile, issue = make()
    setup(tile, in_fmt=BFP4, out_fmt=BFP4, dstacc=BFP8, exp_section=1)
    with pytest.raises(GuestFault, match="only valid"):
        pacr(issue)


def test_packer_soft_reset_bits_zero_their_counters():
    """SoftReset.md "Packer soft reset": entering (bit 2 + i, or bit 17 for all) zeroes
    AccTileSize and LastTileSize; leaving zeroes l1_dest_addr_offset. Real code stores
    4 to the register (tt-exalens's unhalt kernel)."""
    from ttemu import Tile

    tile = Tile("wormhole_b0")
    pk = tile.tensix.pack
    pk.acc_tile_size[0] = [5, 6, 7]
    pk.acc_tile_size[1] = [1, 1, 1]
    pk.last_tile_size[0] = 9
    pk.l1_dest_addr_offset[0] = 0x40
    base = tile.soft_reset
    tile.set_soft_reset(base | 4)
    assert pk.acc_tile_size[0] == [0, 0, 0] and pk.last_tile_size[0] == 0
    assert pk.acc_tile_size[1] == [1, 1, 1] and pk.l1_dest_addr_offset[0] == 0x40
    tile.set_soft_reset(base)
    assert pk.l1_dest_addr_offset[0] == 0
    tile.set_soft_reset(base | (1 << 17))
    assert pk.acc_tile_size[1] == [0, 0, 0]
