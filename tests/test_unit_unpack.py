"""Unpackers: tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/UNPACR.md,
UNPACR_Regular.md, UNPACR_IncrementContextCounter.md, UNPACR_FlushCache.md, ADCs.md,
SrcASrcB.md, Dst.md. References are small numpy models written from the pages
(WriteSrcTF32 / WriteSrcBF16 / WriteSrcFP16 / WriteDstBF16 / WriteDstFP16 /
WriteDstFP32, BFP8ToBF16 / BFP8aToFP16, the INT8 overlay)."""

import numpy as np
import pytest

from tensix_harness import make, make_strict, warned
from ttemu import GuestFault, UndefinedBehaviour
from ttemu.errors import Unimplemented
from ttemu.tensix.units.unpack import encode_tile_descriptor, src_rows, tile_descriptor

U32 = np.uint32
L1A = 0x10000  # where test tiles live
FIELDS = dict(Unpack_block_selection=0, AddrMode=0, CfgContextCntInc=0, CfgContextId=0, AddrCntContextId=0,
              OvrdThreadId=0, SetDatValid=0, rareb_en=0, ZeroWrite2=0, AutoIncContextID=0, RowSearch=0,
              SearchCacheFlush=0, Last=0)
# DataFormat codes (Packers/FormatConversion.md encoding table)
FP32, FP16, BFP8A, BFP4A, TF32, BF16, BFP8, BFP4, INT32, INT16, FP8, BFP2A, INT8, BFP2 = (
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 15)


# -- references from UNPACR_Regular.md -----------------------------------------------------
def write_src_tf32(x):
    x = np.asarray(x, dtype=np.int64)
    return ((x & 0x40000) | ((x & 0x3FF) << 8) | ((x & 0x3FC00) >> 10)).astype(U32)


def write_src_bf16(x):
    return write_src_tf32(np.asarray(x, dtype=np.int64) << 3)


def write_src_fp16(x):
    x = np.asarray(x, dtype=np.int64)
    return write_src_tf32(((x & 0x8000) << 3) | (x & 0x7FFF))


def write_dst_bf16(x):
    x = np.asarray(x, dtype=np.int64)
    return ((x & 0x8000) | ((x & 0x7F) << 8) | ((x & 0x7F80) >> 7)).astype(U32)


def write_dst_fp16(x):
    x = np.asarray(x, dtype=np.int64)
    return ((x & 0x8000) | ((x & 0x3FF) << 5) | ((x & 0x7C00) >> 10)).astype(U32)


def write_dst_fp32(x):
    x = np.asarray(x, dtype=np.int64)
    return ((write_dst_bf16(x >> 16).astype(np.int64) << 16) | (x & 0xFFFF)).astype(U32)


def bfp8_to_bf16(d, e):
    out = []
    for dd, ee in zip(d.tolist(), e.tolist()):
        sign, mag = dd >> 7, (dd << 1) & 0xFF
        if mag == 0:
            out.append(0xFF80 if sign else 0)
            continue
        lz = 8 - mag.bit_length()
        mag = (mag << lz) & 0xFF
        ee = (ee - lz) & 0xFF
        out.append((sign << 15) | (ee << 7) | (mag & 0x7E))
    return np.array(out, dtype=U32)


def bfp8a_to_fp16(d, e):
    out = []
    for dd, ee in zip(d.tolist(), e.tolist()):
        sign, mag = dd >> 7, (dd << 1) & 0xFF
        if mag == 0:
            out.append(0xFC00 if sign else 0)
            continue
        lz = 8 - mag.bit_length()
        mag = (mag << lz) & 0xFF
        ee = (ee - lz) & 0xFF
        assert not ee & 0xE0
        out.append((sign << 15) | (ee << 10) | ((mag & 0x7E) << 3))
    return np.array(out, dtype=U32)


def int8_overlay(d, unsigned):
    d = np.asarray(d, dtype=np.int64)
    sign = np.zeros_like(d) if unsigned else d & 0x80
    mag = d - sign
    v = np.where(mag != 0, mag | (16 << 10), mag)
    return (v | (sign << 8)).astype(U32)


# -- helpers ---------------------------------------------------------------------------------
def tset(cop, thread, name, value):
    idx, sh, w = cop.config.thread_fields[name]
    old = int(cop.config.thread_cfg[thread, idx])
    m = ((1 << w) - 1) << sh
    cop.config.thread_set_word(thread, idx, (old & ~m) | ((value << sh) & m))


def unpacr(issue, thread=0, **kw):
    f = dict(FIELDS)
    f.update(kw)
    return issue(thread, "UNPACR", **f)


def set_descriptor(cop, u=0, bank=0, **kw):
    for k, w in enumerate(encode_tile_descriptor(**kw)):
        cop.config.write_word(bank, (52, 92)[u] + k, w)


def setup(tile, *, u=0, in_fmt, out_fmt, xdim=16, ydim=16, count=256, out_base=0, l1=L1A, thread=0, **desc):
    cop = tile.tensix
    cfg = cop.config
    set_descriptor(cop, u, InDataFormat=in_fmt, IsUncompressed=1, XDim=xdim, YDim=ydim, ZDim=1, **desc)
    cfg.set(f"THCON_SEC{u}_REG3_Base_address", l1 // 16 - 1)
    cfg.set(f"THCON_SEC{u}_REG2_Out_data_format", out_fmt)
    cfg.set(f"UNP{u}_ADDR_BASE_REG_1_Base", out_base)
    cop.adcs.channel(thread, u, 1).set("X", count - 1)
    return cop


def out_base_for(out_fmt, datum_index=64):
    """Byte-ish output base giving output datum index ``datum_index`` (the output
    address is divided by 4 / 2 for 32-bit / 16-bit OutDataFormat)."""
    if out_fmt in (FP32, TF32, INT32):
        return datum_index * 4
    if out_fmt in (FP16, BF16, INT16):
        return datum_index * 2
    return datum_index


def put(tile, addr, data):
    data = bytes(data)
    tile.l1[addr:addr + len(data)] = data


def rng(seed=1):
    return np.random.default_rng(seed)


def bfp_tile(datums, exps, bits):
    """Exponent section (16 bytes for 256 datums) then datums, ReadL1Bytes bit order."""
    sec = np.zeros(16, np.uint8)
    sec[:exps.size] = exps
    per = 8 // bits
    d = np.asarray(datums, dtype=np.uint32).reshape(-1, per)
    packed = np.bitwise_or.reduce(d << (np.arange(per, dtype=np.uint32) * bits), axis=1).astype(np.uint8)
    return sec.tobytes() + packed.tobytes()


# -- formats into SrcA / SrcB -------------------------------------------------------------
def case(name, seed=3):
    r = rng(seed)
    if name == "bf16":
        v = r.integers(0, 1 << 16, 256, dtype=np.uint32)
        return BF16, BF16, v.astype("<u2").tobytes(), write_src_bf16(v)
    if name == "fp16":
        v = r.integers(0, 1 << 16, 256, dtype=np.uint32)
        return FP16, FP16, v.astype("<u2").tobytes(), write_src_fp16(v)
    if name == "fp32->tf32":
        v = r.integers(0, 1 << 32, 256, dtype=np.uint64).astype(U32)
        return FP32, TF32, v.astype("<u4").tobytes(), write_src_tf32(v >> 13)
    if name == "fp32->bf16":
        v = r.integers(0, 1 << 32, 256, dtype=np.uint64).astype(U32)
        flushed = np.where((v & 0x7F800000) == 0, v & 0x80000000, v)
        return FP32, BF16, v.astype("<u4").tobytes(), write_src_bf16(flushed >> 16)
    if name == "fp8":
        v = r.integers(0, 256, 256, dtype=np.uint32)
        return FP8, FP8, v.astype(np.uint8).tobytes(), write_src_fp16(v << 8)
    if name == "int8":
        v = r.integers(0, 256, 256, dtype=np.uint32)
        return INT8, INT8, v.astype(np.uint8).tobytes(), write_src_fp16(int8_overlay(v, False))
    if name == "int16":
        v = r.integers(0, 1 << 16, 256, dtype=np.uint32)
        return INT16, INT16, v.astype("<u2").tobytes(), ((v & 0xFF00) << 3) | (v & 0xFF)
    if name.startswith("bfp"):
        bits = {"8": 8, "4": 4, "2": 2}[name[3]]
        b_fmt = name.endswith("_b")
        code = {(8, True): BFP8, (4, True): BFP4, (2, True): BFP2,
                (8, False): BFP8A, (4, False): BFP4A, (2, False): BFP2A}[(bits, b_fmt)]
        d = r.integers(0, 1 << bits, 256, dtype=np.uint32)
        e = r.integers(10, 250, 16, dtype=np.uint32) if b_fmt else r.integers(8, 31, 16, dtype=np.uint32)
        d8 = (d << (8 - bits)) & 0xFF
        ee = np.repeat(e, 16)
        ref = write_src_bf16(bfp8_to_bf16(d8, ee)) if b_fmt else write_src_fp16(bfp8a_to_fp16(d8, ee))
        return code, code, bfp_tile(d, e, bits), ref
    raise KeyError(name)


CASES = ["bf16", "fp16", "fp32->tf32", "fp32->bf16", "fp8", "int8", "int16",
         "bfp8_b", "bfp4_b", "bfp2_b", "bfp8", "bfp4", "bfp2"]


@pytest.mark.parametrize("name", CASES)
def test_unpack_each_format_into_srca(name):
    tile, issue = make()
    in_fmt, out_fmt, data, ref = case(name)
    put(tile, L1A, data)
    cop = setup(tile, in_fmt=in_fmt, out_fmt=out_fmt, out_base=out_base_for(out_fmt))
    t = unpacr(issue)
    assert t.held is None
    assert np.array_equal(cop.src.data["A"][0][:16].reshape(-1), ref)
    assert not cop.src.data["A"][0][16:].any()


@pytest.mark.parametrize("name", CASES)
def test_unpack_each_format_into_srcb(name):
    tile, issue = make()
    in_fmt, out_fmt, data, ref = case(name, seed=5)
    put(tile, L1A, data)
    # SrcB: no "- 4" row offset; row = OutAddr / 16 + SrcRow.
    cop = setup(tile, u=1, in_fmt=in_fmt, out_fmt=out_fmt, out_base=out_base_for(out_fmt, 16 * 2))
    unpacr(issue, Unpack_block_selection=1)
    got = cop.src.data["B"][0]
    assert np.array_equal(got[2:18].reshape(-1), ref)
    assert not got[:2].any() and not got[18:].any()


def test_unpack_uint8_uses_the_unsigned_bit():
    tile, issue = make()
    v = np.arange(256, dtype=np.uint32)
    put(tile, L1A, v.astype(np.uint8).tobytes())
    cop = setup(tile, in_fmt=INT8, out_fmt=INT8, out_base=out_base_for(INT8))
    cop.config.set("ALU_FORMAT_SPEC_REG0_SrcAUnsigned", 1)
    unpacr(issue)
    assert np.array_equal(cop.src.data["A"][0][:16].reshape(-1), write_src_fp16(int8_overlay(v, True)))


def test_force_shared_exp_replaces_the_exponent_section():
    tile, issue = make()
    d = rng(7).integers(0, 256, 256, dtype=np.uint32)
    put(tile, L1A, d.astype(np.uint8).tobytes())  # no exponent section is read or skipped
    cop = setup(tile, in_fmt=BFP8, out_fmt=BFP8, out_base=64)
    cop.config.set("THCON_SEC0_REG2_Force_shared_exp", 1)
    cop.config.set("UNP0_FORCED_SHARED_EXP_shared_exp", 130)
    unpacr(issue)
    ref = write_src_bf16(bfp8_to_bf16(d, np.full(256, 130)))
    assert np.array_equal(cop.src.data["A"][0][:16].reshape(-1), ref)


# -- Dst --------------------------------------------------------------------------------------
def test_unpack_bf16_to_dst16():
    tile, issue = make()
    v = rng(11).integers(0, 1 << 16, 256, dtype=np.uint32)
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=out_base_for(BF16, 64 + 16 * 8))
    cop.config.set("THCON_SEC0_REG2_Unpack_If_Sel", 1)
    unpacr(issue)
    # Dst row = OutAddr / 16 - 4 = 8
    assert np.array_equal(cop.dst.bits[8:24].reshape(-1), write_dst_bf16(v))
    assert not cop.dst.bits[:8].any() and not cop.dst.bits[24:].any()
    assert not cop.src.data["A"].any()


def test_unpack_fp16_to_dst16_and_fp32_to_dst32():
    tile, issue = make()
    v = rng(12).integers(0, 1 << 16, 256, dtype=np.uint32)
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=FP16, out_fmt=FP16, out_base=out_base_for(FP16))
    cop.config.set("THCON_SEC0_REG2_Unpack_If_Sel", 1)
    unpacr(issue)
    assert np.array_equal(cop.dst.bits[0:16].reshape(-1), write_dst_fp16(v))

    tile, issue = make()
    w = rng(13).integers(0, 1 << 32, 256, dtype=np.uint64).astype(U32)
    put(tile, L1A, w.astype("<u4").tobytes())
    for out in (FP32, TF32):  # "When unpacking to Dst, TF32 means FP32"
        cop = setup(tile, in_fmt=FP32, out_fmt=out, out_base=out_base_for(out, 64 + 16 * 16))
        cop.config.set("THCON_SEC0_REG2_Unpack_If_Sel", 1)
        unpacr(issue)
        assert np.array_equal(cop.dst.read32(16, 16).reshape(-1), write_dst_fp32(w))


def test_unpack_int32_to_dst32():
    tile, issue = make()
    w = rng(14).integers(0, 1 << 32, 256, dtype=np.uint64).astype(U32)
    put(tile, L1A, w.astype("<u4").tobytes())
    cop = setup(tile, in_fmt=INT32, out_fmt=INT32, out_base=out_base_for(INT32))
    cop.config.set("THCON_SEC0_REG2_Unpack_If_Sel", 1)
    unpacr(issue)
    assert np.array_equal(cop.dst.read32(0, 16).reshape(-1), write_dst_fp32(w))


def test_unpack_to_dst_waits_for_srca_ownership_too():
    tile, issue = make()
    put(tile, L1A, bytes(512))
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=128)
    cop.config.set("THCON_SEC0_REG2_Unpack_If_Sel", 1)
    cop.src.allowed["A"][0] = "math"
    t = unpacr(issue)
    assert t.held is not None and "SrcA" in t.held_reason


# -- tilize -----------------------------------------------------------------------------------
def test_tilize_row_major_32x32_into_four_faces():
    """Tileize_mode: 16 datums per row, then RowStride bytes (Shift_amount_cntx0..2 << 4/8/12);
    Unpack_Src_Reg_Set_Upd moves SrcRow by 16 per face."""
    tile, issue = make()
    m = rng(21).integers(0, 1 << 16, (32, 32), dtype=np.uint32)
    put(tile, L1A, m.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, xdim=32, ydim=32, out_base=128)
    cfg = cop.config
    cfg.set("THCON_SEC0_REG2_Tileize_mode", 1)
    cfg.set("THCON_SEC0_REG2_Shift_amount_cntx0", 64 >> 4)  # RowStride = 64 bytes
    cfg.set("THCON_SEC0_REG2_Unpack_Src_Reg_Set_Upd", 1)
    adc0, adc1 = cop.adcs.channel(0, 0, 0), cop.adcs.channel(0, 0, 1)
    for fr in range(2):
        for fc in range(2):
            adc0.set("X", 16 * fc)
            adc0.set("Y", 16 * fr)
            adc1.set("X", 16 * fc + 255)
            unpacr(issue)
    faces = m.reshape(2, 16, 2, 16).transpose(0, 2, 1, 3).reshape(64, 16)
    assert np.array_equal(cop.src.data["A"][0], write_src_bf16(faces))
    assert src_rows(cop.src)["A"][0] == 0  # 4 x 16, 6 bits


def test_tileize_requires_aligned_rows_and_no_upsampling():
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, xdim=32, out_base=128)
    cop.config.set("THCON_SEC0_REG2_Tileize_mode", 1)
    cop.adcs.channel(0, 0, 0).set("X", 4)  # first datum at +8 bytes
    cop.adcs.channel(0, 0, 1).set("X", 4 + 255)
    with pytest.raises(UndefinedBehaviour, match="aligned"):
        unpacr(issue)
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=128)
    cop.config.set("THCON_SEC0_REG2_Tileize_mode", 1)
    cop.config.set("THCON_SEC0_REG2_Upsample_rate", 1)
    with pytest.raises(UndefinedBehaviour, match="upsampling"):
        unpacr(issue)


# -- address generators and ADCs ----------------------------------------------------------
def test_first_datum_from_adcs_and_descriptor_dims():
    """FirstDatum = ((W * ZDim + Z) * YDim + YPos) * XDim + XPos; InAddr skips the
    (1 + DigestSize) * 16 byte header; count = Ch1.X + 1 - XPos."""
    tile, issue = make()
    v = np.arange(4 * 2 * 16 * 16, dtype=np.uint32) + 0x3F00
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, xdim=16, ydim=2, out_base=128, l1=L1A - 16, DigestSize=1)
    set_descriptor(cop, InDataFormat=BF16, IsUncompressed=1, XDim=16, YDim=2, ZDim=2, WDim=4, DigestSize=1)
    ch0 = cop.adcs.channel(0, 0, 0)
    ch0.set("W", 3)
    ch0.set("Z", 1)
    ch0.set("Y", 1)
    ch0.set("X", 4)
    cop.adcs.channel(0, 0, 1).set("X", 4 + 20 - 1)  # 20 datums
    unpacr(issue)
    first = ((3 * 2 + 1) * 2 + 1) * 16 + 4
    ref = write_src_bf16(v[first:first + 20])
    assert np.array_equal(cop.src.data["A"][0].reshape(-1)[:20], ref)
    assert not cop.src.data["A"][0].reshape(-1)[20:].any()


def test_output_address_strides_use_channel1():
    tile, issue = make()
    v = np.arange(16, dtype=np.uint32) + 0x4000
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, count=16, out_base=128)
    cfg = cop.config
    cfg.set("UNP0_ADDR_CTRL_XY_REG_1_Ystride", 32)   # one row of 16 bf16 datums
    cfg.set("UNP0_ADDR_CTRL_ZW_REG_1_Zstride", 64)
    cfg.set("UNP0_ADDR_CTRL_ZW_REG_1_Wstride", 128)
    ch1 = cop.adcs.channel(0, 0, 1)
    ch1.set("Y", 1)
    ch1.set("Z", 1)
    ch1.set("W", 1)
    unpacr(issue)
    assert np.array_equal(cop.src.data["A"][0][7], write_src_bf16(v))  # 1 + 2 + 4
    assert cop.src.data["A"][0].reshape(-1)[:7 * 16].sum() == 0


def test_addrmode_increments_y_and_z_of_both_channels():
    tile, issue = make()
    put(tile, L1A, bytes(512))
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=128)
    am = (3 << 6) | (2 << 4) | (1 << 2) | 1  # Ch1YInc=3 Ch1ZInc=2 Ch0YInc=1 Ch0ZInc=1
    unpacr(issue, AddrMode=am)
    c0, c1 = cop.adcs.channel(0, 0, 0), cop.adcs.channel(0, 0, 1)
    assert (c0.Y, c0.Z, c1.Y, c1.Z) == (1, 1, 3, 2)
    assert c0.X == 0 and c1.X == 255  # X untouched
    other = cop.adcs.channel(1, 0, 0)
    assert (other.Y, other.Z) == (0, 0)


def test_multicontext_uses_context_fields_and_the_chosen_adc():
    """MultiContextMode: context 2 of unpacker 0 selects Base_cntx2 + Offset_cntx2,
    Tile_x_dim_cntx2, Dest_cntx2 (replacing the output address); ContextADC picks the
    ADC for X/Y; both the current thread's and ContextADC's ADCs advance."""
    tile, issue = make()
    v = rng(31).integers(0, 1 << 16, 64, dtype=np.uint32)
    put(tile, 0x30000 + 0x100, v.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=999 * 2, xdim=7)
    cfg = cop.config
    cfg.set("THCON_SEC0_REG3_Base_cntx2_address", 0x30000 // 16 - 1)
    cfg.set("THCON_SEC0_REG7_Offset_cntx2_address", 0x100 // 16)
    cfg.set("THCON_SEC0_REG5_Tile_x_dim_cntx2", 32)
    cfg.set("THCON_SEC0_REG5_Dest_cntx2_address", 64 + 16)
    cfg.set("THCON_SEC0_REG2_Disable_zero_compress_cntx2", 1)  # IsUncompressed in MultiContextMode
    cop.adcs.channel(0, 0, 1).set("X", 0)
    xy = cop.adcs.channel(1, 0, 0)
    xy.set("Y", 1)
    cop.adcs.channel(1, 0, 1).set("X", 31)  # 32 datums, from the ContextADC's channel 1
    unpacr(issue, OvrdThreadId=1, CfgContextId=2, AddrCntContextId=1, AddrMode=1 << 2)
    ref = write_src_bf16(v[32:64])  # FirstDatum = Y * XDim(ctx) = 32
    assert np.array_equal(cop.src.data["A"][0][1:3].reshape(-1), ref)
    assert cop.adcs.channel(0, 0, 0).Y == 1 and xy.Y == 2
    assert cop.adcs.channel(2, 0, 0).Y == 0


def test_context_counter_auto_increment_and_increment_form():
    tile, issue = make()
    put(tile, L1A, bytes(512))
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=128)
    cfg = cop.config
    cfg.set("THCON_SEC0_REG2_Context_count", 1)  # 2 contexts
    for ctx in (0, 1):
        cfg.set(f"THCON_SEC0_REG5_Tile_x_dim_cntx{ctx}", 16)
        cfg.set(f"THCON_SEC0_REG2_Disable_zero_compress_cntx{ctx}", 1)
    cfg.set("THCON_SEC0_REG3_Base_cntx1_address", L1A // 16 - 1)
    up = cop.unpack
    unpacr(issue, OvrdThreadId=1, AutoIncContextID=1)
    assert up.context_counter[0][0] == 1
    unpacr(issue, OvrdThreadId=1, AutoIncContextID=1)
    assert up.context_counter[0][0] == 0
    # UNPACR_IncrementContextCounter.md
    unpacr(issue, CfgContextCntInc=1)
    assert up.context_counter[0][0] == 1
    unpacr(issue, CfgContextCntInc=1)
    assert up.context_counter[0][0] == 0
    cfg.set("THCON_SEC0_REG2_Context_count", 3)
    for k in range(1, 8):
        unpacr(issue, CfgContextCntInc=1)
        assert up.context_counter[0][0] == k
    unpacr(issue, CfgContextCntInc=1)
    assert up.context_counter[0][0] == 0
    assert up.context_counter[1] == [0, 0, 0]


def test_flush_cache_form_changes_nothing():
    tile, issue = make()
    cop = tile.tensix
    before = cop.src.data["A"].copy()
    t = unpacr(issue, SearchCacheFlush=1, OvrdThreadId=1)
    assert t.held is None
    assert np.array_equal(cop.src.data["A"], before)


def test_mixed_forms_are_undefined_warnings_or_errors_when_strict():
    tile, issue = make()
    setup(tile, in_fmt=BF16, out_fmt=BF16)
    unpacr(issue, CfgContextCntInc=1, SetDatValid=1)
    unpacr(issue, CfgContextCntInc=2)
    unpacr(issue, SearchCacheFlush=1, RowSearch=1)
    unpacr(issue, rareb_en=1)
    unpacr(issue, rareb_en=1)
    sites = tile.diagnostics.sites
    assert len(sites) == 3 and all(kind == "undefined behaviour" for _, _, kind in sites.values())
    assert sites["t0 UNPACR rareb_en"][1] == 2
    tile, issue = make()
    setup(tile, in_fmt=BF16, out_fmt=BF16)
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="rareb_en"):
        unpacr(issue, rareb_en=1)
    with pytest.raises(UndefinedBehaviour, match="CfgContextCntInc"):
        unpacr(issue, CfgContextCntInc=1, SetDatValid=1)


@pytest.mark.parametrize("name", ["bf16", "fp32->tf32", "bfp8_b"])
def test_last_is_accepted_and_changes_nothing(name):
    """tt-llk sets Last=1 on every UNPACR (ttsim requires it); the page's syntax shows 0.
    The unpacked data is the same either way and nothing is reported."""
    results = []
    for last in (0, 1):
        tile, issue = make()
        tile.diagnostics.strict = True
        in_fmt, out_fmt, data, ref = case(name)
        put(tile, L1A, data)
        cop = setup(tile, in_fmt=in_fmt, out_fmt=out_fmt, out_base=out_base_for(out_fmt))
        assert unpacr(issue, Last=last).held is None
        assert np.array_equal(cop.src.data["A"][0][:16].reshape(-1), ref)
        results.append(cop.src.data["A"].copy())
        assert not tile.diagnostics.sites
    assert np.array_equal(results[0], results[1])


def test_multicontext_bounds():
    tile, issue = make()
    setup(tile, u=1, in_fmt=BF16, out_fmt=BF16)
    # unpacker 1 has two contexts: context 2 warns and uses context 0
    tile.tensix.config.set("THCON_SEC1_REG2_Disable_zero_compress_cntx0", 1)
    assert unpacr(issue, Unpack_block_selection=1, OvrdThreadId=1, CfgContextId=2).held is None
    assert "context 0" in warned(tile, "UNPACR unpacker 1 context>=2")
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="context 2"):
        unpacr(issue, Unpack_block_selection=1, OvrdThreadId=1, CfgContextId=2)
    with pytest.raises(UndefinedBehaviour, match="ContextADC"):
        unpacr(issue, OvrdThreadId=1, AddrCntContextId=3)


# -- bank ownership ---------------------------------------------------------------------------
def test_waits_while_the_bank_belongs_to_the_matrix_unit():
    tile, issue = make()
    v = rng(41).integers(0, 1 << 16, 256, dtype=np.uint32)
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=128)
    cop.src.allowed["A"][0] = "math"
    t = unpacr(issue, SetDatValid=1, AddrMode=1)
    assert t.held is not None and "SrcA bank 0" in t.held_reason
    assert not cop.src.data["A"].any()
    assert cop.adcs.channel(0, 0, 0).Z == 0  # nothing changed while waiting
    cop.src.allowed["A"][0] = "unpack"
    cop.state_changed()
    assert t.held is None
    assert np.array_equal(cop.src.data["A"][0][:16].reshape(-1), write_src_bf16(v))
    assert cop.adcs.channel(0, 0, 0).Z == 1


def test_flipsrc_hands_the_bank_to_the_matrix_unit():
    tile, issue = make()
    put(tile, 0x20000, bytes(512))
    cop = setup(tile, u=1, in_fmt=BF16, out_fmt=BF16, l1=0x20000)
    tset(cop, 0, "SRCB_SET_Base", 2)
    src_rows(cop.src)["B"][0] = 5
    unpacr(issue, Unpack_block_selection=1, SetDatValid=1)
    assert cop.src.allowed["B"] == ["math", "unpack"]
    assert cop.src.unpack_bank["B"] == 1
    assert src_rows(cop.src)["B"][0] == 32
    unpacr(issue, Unpack_block_selection=1, SetDatValid=1)
    assert cop.src.allowed["B"] == ["math", "math"]
    t = unpacr(issue, Unpack_block_selection=1)
    assert t.held is not None and "SrcB bank 0" in t.held_reason


def test_src_reg_set_update_and_srcrow():
    tile, issue = make()
    v = rng(43).integers(0, 1 << 16, 256, dtype=np.uint32)
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, u=1, in_fmt=BF16, out_fmt=BF16)
    cop.config.set("THCON_SEC1_REG2_Unpack_Src_Reg_Set_Upd", 1)
    tset(cop, 0, "SRCB_SET_Base", 1)
    src_rows(cop.src)["B"][0] = 40
    unpacr(issue, Unpack_block_selection=1)
    got = cop.src.data["B"][0]
    assert np.array_equal(got[40:56].reshape(-1), write_src_bf16(v))
    assert not got[:40].any() and not got[56:].any()
    assert src_rows(cop.src)["B"][0] == (40 + 16 + 16) & 0x3F


def test_srcb_rows_wrap_at_64():
    tile, issue = make()
    v = rng(44).integers(0, 1 << 16, 256, dtype=np.uint32)
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, u=1, in_fmt=BF16, out_fmt=BF16)
    src_rows(cop.src)["B"][0] = 56
    unpacr(issue, Unpack_block_selection=1)
    got = cop.src.data["B"][0]
    ref = write_src_bf16(v).reshape(16, 16)
    assert np.array_equal(got[56:64], ref[:8]) and np.array_equal(got[0:8], ref[8:])


def test_srca_row_limits():
    tile, issue = make()
    put(tile, L1A, bytes(1024))
    v = rng(45).integers(0, 1 << 16, 272, dtype=np.uint32)
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, count=272, out_base=128)  # 17 rows: undefined, warns
    src_rows(cop.src)["A"][0] = 48
    unpacr(issue)
    warned(tile, "UNPACR SrcA Row>=16")
    ref = write_src_bf16(v).reshape(17, 16)
    got = cop.src.data["A"][0]
    assert np.array_equal(got[48:64], ref[:16]) and np.array_equal(got[0], ref[16])  # row 16 + 48 wraps to 0
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match=">= 16"):
        unpacr(issue)
    tile, issue = make_strict()
    put(tile, L1A, bytes(2048))
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, count=1024, out_base=128)
    tset(cop, 0, "SRCA_SET_SetOvrdWithAddr", 1)
    unpacr(issue)  # 64 rows are fine with SetOvrdWithAddr
    cop.adcs.channel(0, 0, 1).set("X", 1024 + 15)
    with pytest.raises(UndefinedBehaviour, match=">= 64"):
        unpacr(issue)


def test_rows_below_four_and_columns_below_colshift_are_dropped():
    tile, issue = make()
    v = np.arange(1, 129, dtype=np.uint32) + 0x3F00
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, count=128, out_base=2 * 32)  # rows 2..9
    cop.config.set("THCON_SEC0_REG2_Shift_amount_cntx0", 3)
    unpacr(issue)
    a = cop.src.data["A"][0]
    ref = write_src_bf16(v).reshape(8, 16)
    # output rows 2, 3 dropped; row 4 -> SrcA row 0; columns c >= 3 land at c - 3
    assert np.array_equal(a[0:6, 0:13], ref[2:8, 3:16])
    assert not a[0:6, 13:].any() and not a[6:].any()


def test_haloize_transposes_within_16_rows():
    tile, issue = make()
    v = rng(51).integers(0, 1 << 16, 256, dtype=np.uint32)
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=128)
    cop.config.set("THCON_SEC0_REG2_Haloize_mode", 1)
    unpacr(issue)
    assert np.array_equal(cop.src.data["A"][0][:16], write_src_bf16(v).reshape(16, 16).T)


def test_upsampling_zeroes_and_interleave():
    tile, issue = make()
    v = np.arange(1, 65, dtype=np.uint32) + 0x4000
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, count=64, out_base=128)
    cop.config.set("THCON_SEC0_REG2_Upsample_rate", 1)
    a = cop.src.data["A"][0]
    a[:] = 0x1234
    unpacr(issue)
    flat = a[:8].reshape(-1)
    assert np.array_equal(flat[0::2], write_src_bf16(v)) and not flat[1::2].any()
    # interleave: the gaps are skipped (left as they were)
    a[:] = 0x1234
    cop.config.set("THCON_SEC0_REG2_Upsample_and_interleave", 1)
    cop.config.set("THCON_SEC0_REG2_Upsample_rate", 2)  # 3 gaps
    unpacr(issue)
    flat = a[:16].reshape(-1)
    assert np.array_equal(flat[0::4], write_src_bf16(v))
    assert (flat[1::4] == 0x1234).all() and (flat[3::4] == 0x1234).all()


def test_all_datums_are_zero():
    tile, issue = make()
    put(tile, L1A, (np.arange(256, dtype=np.uint32) + 1).astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=128)
    cop.src.data["A"][0][:] = 7
    unpacr(issue, ZeroWrite2=1)
    assert not cop.src.data["A"][0][:16].any() and (cop.src.data["A"][0][16:] == 7).all()


def test_row_search_without_blobs_reads_whole_rows_from_y():
    tile, issue = make()
    v = np.arange(64, dtype=np.uint32) + 0x3F00
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, xdim=16, ydim=4, out_base=128)
    cop.adcs.channel(0, 0, 0).set("Y", 2)
    cop.adcs.channel(0, 0, 0).set("X", 9)  # ignored: XPos = 0
    cop.adcs.channel(0, 0, 1).set("X", 16)  # XEnd = Ch1.X (no + 1)
    unpacr(issue, RowSearch=1)
    assert np.array_equal(cop.src.data["A"][0][0], write_src_bf16(v[32:48]))


def test_unpack_fifo_wrap():
    """WrapAddr: an address above Unpack_limit_address * 16 drops Unpack_fifo_size * 16."""
    tile, issue = make()
    v = rng(61).integers(0, 1 << 16, 256, dtype=np.uint32)
    lo, hi = 0x40000, 0x40000 + 0x100  # FIFO holds rows from lo; the tile starts 256 bytes before its end
    put(tile, hi, v[:128].astype("<u2").tobytes())
    put(tile, lo, v[128:].astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=128, l1=hi)
    cop.config.set("THCON_SEC0_REG2_Unpack_limit_address", (hi + 256) // 16 - 1)
    cop.config.set("THCON_SEC0_REG2_Unpack_fifo_size", 0x200 // 16)
    unpacr(issue)
    assert np.array_equal(cop.src.data["A"][0][:16].reshape(-1), write_src_bf16(v))


def test_undefined_conversions_and_l1_bounds():
    tile, issue = make()
    setup(tile, in_fmt=BF16, out_fmt=FP16, out_base=128)
    with pytest.raises(UndefinedBehaviour):
        unpacr(issue)
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=128)
    cop.config.set("THCON_SEC0_REG3_Base_address", 1464 * 1024 // 16)
    with pytest.raises(GuestFault, match="outside L1"):
        unpacr(issue)
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=128)
    cop.config.set("THCON_SEC0_REG2_Unpack_If_Sel", 1)
    cop.config.set("THCON_SEC0_REG2_Haloize_mode", 1)
    with pytest.raises(UndefinedBehaviour, match="Dst"):
        unpacr(issue)
    # an odd output address for 16-bit data: undefined, warns; the low bit is dropped
    v = rng(46).integers(0, 1 << 16, 256, dtype=np.uint32)
    tile, issue = make()
    put(tile, L1A, v.astype("<u2").tobytes())
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=129)
    unpacr(issue)
    warned(tile, "UNPACR OutAddr&1")
    assert np.array_equal(cop.src.data["A"][0][:16].reshape(-1), write_src_bf16(v))
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="odd"):
        unpacr(issue)


def test_fp32_output_address_not_a_multiple_of_4_warns_and_drops_the_low_bits():
    v = rng(47).integers(0, 1 << 32, 256, dtype=np.uint64).astype(np.uint32) & 0xFFFFE000
    tile, issue = make()
    put(tile, L1A, v.astype("<u4").tobytes())
    cop = setup(tile, in_fmt=FP32, out_fmt=TF32, out_base=128 * 2 + 2)  # 32-bit datums: 130 & 3 != 0
    unpacr(issue)
    warned(tile, "UNPACR OutAddr&3")
    tile2, issue2 = make()
    put(tile2, L1A, v.astype("<u4").tobytes())
    cop2 = setup(tile2, in_fmt=FP32, out_fmt=TF32, out_base=128 * 2)
    unpacr(issue2)
    assert not tile2.diagnostics.sites
    assert np.array_equal(cop.src.data["A"], cop2.src.data["A"])


def test_negative_datum_count_is_a_guest_fault():
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=128)
    cop.adcs.channel(0, 0, 0).set("X", 20)
    cop.adcs.channel(0, 0, 1).set("X", 3)
    with pytest.raises(GuestFault, match="negative"):
        unpacr(issue)


def test_compressed_input_is_unimplemented():
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=128)
    set_descriptor(cop, InDataFormat=BF16, IsUncompressed=0, XDim=16, YDim=16)
    with pytest.raises(Unimplemented, match="compressed"):
        unpacr(issue)


def test_tile_descriptor_round_trip():
    kw = dict(InDataFormat=7, IsUncompressed=1, NoBFPExpSection=1, BlobsPerXYPlane=5, XDim=0x1234, YDim=0x56,
              ZDim=0x78, WDim=0x9A, BlobsYStart=[1, 2, 3, 4, 5, 6, 7, 8], DigestSize=0xBC)
    assert tile_descriptor(encode_tile_descriptor(**kw)) == kw


# -- UNPACR_NOP (no ISA page: assembly.yaml, tt-llk p_unpacr_nop, ttsim's behaviour) ----------
UNP_ZEROSRC, UNP_NEGINFSRC, UNP_SET_DVALID, UNP_NOP, UNP_ZEROSRC_SET_DVALID = 0b001, 0b101, 0b111, 0b010, 0b1000001


def nop(issue, which, noop, thread=0):
    return issue(thread, "UNPACR_NOP", Unpack_block_selection=which, NoOp=noop)


@pytest.mark.parametrize("which,u", [("A", 0), ("B", 1)])
def test_unpacr_nop_zerosrc_clears_the_unpackers_bank(which, u):
    tile, issue = make()
    src = tile.tensix.src
    src.data[which][:] = 0x1234
    t = nop(issue, u, UNP_ZEROSRC)
    assert t.held is None
    assert not src.data[which][0].any() and (src.data[which][1] == 0x1234).all()
    assert src.unpack_bank[which] == 0 and src.allowed[which] == ["unpack", "unpack"]


def test_unpacr_nop_neginf_fills_srca_with_all_ones_like_zerosrc():
    tile, issue = make()
    nop(issue, 0, UNP_NEGINFSRC)
    src = tile.tensix.src
    assert (src.data["A"][0] == 0x7FFFF).all() and not src.data["A"][1].any()
    # ZEROSRC with NegativeInfSrcA writes the same pattern (ZEROSRC.md)
    t2, issue2 = make()
    issue2(0, "ZEROSRC", zero_val=1, write_mode=0, bank_mask=0, src_mask=1)
    assert np.array_equal(t2.tensix.src.data["A"][0], src.data["A"][0])


def test_unpacr_nop_set_dvalid_hands_the_bank_to_math_like_setdvalid():
    tile, issue = make()
    nop(issue, 0, UNP_SET_DVALID)
    nop(issue, 1, UNP_SET_DVALID)
    ref, issue_ref = make()
    issue_ref(0, "SETDVALID", setvalid=3)
    for w in "AB":
        assert tile.tensix.src.allowed[w] == ref.tensix.src.allowed[w] == ["math", "unpack"]
        assert tile.tensix.src.unpack_bank[w] == ref.tensix.src.unpack_bank[w] == 1


def test_unpacr_nop_zerosrc_waits_while_math_holds_its_bank_then_can_set_dvalid():
    tile, issue = make()
    src = tile.tensix.src
    src.allowed["A"][0] = "math"  # the Matrix Unit's bank (0) is handed to it
    src.unpack_bank["A"] = 1
    src.data["A"][1][:] = 7
    t = nop(issue, 0, UNP_ZEROSRC_SET_DVALID)
    assert t.held is not None and (src.data["A"][1] == 7).all()
    src.allowed["A"][0] = "unpack"  # math releases it (CLEARDVALID / a consuming instruction)
    tile.tensix.kick()
    assert t.held is None and not src.data["A"][1].any()
    assert src.allowed["A"][1] == "math" and src.unpack_bank["A"] == 0


def test_unpacr_nop_delay_and_unmodelled_forms():
    tile, issue = make()
    before = tile.tensix.src.data["A"].copy()
    assert nop(issue, 0, UNP_NOP).held is None
    assert np.array_equal(tile.tensix.src.data["A"], before)
    with pytest.raises(Unimplemented, match="NoOp=0x0"):
        nop(issue, 0, 0)  # UNP_POP: overlay message clearing
    with pytest.raises(Unimplemented, match="NoOp=0x3"):
        nop(issue, 0, 0b011)  # UNP_POP with the stream id in the instruction



def test_waiting_retries_warn_per_attempt_and_see_counter_and_config_changes():
    """A waiting UNPACR's retries: each counts its warning again; one that issued no
    warning waits again (its outcome kept) until an ADC or a Config word it reads
    changes: then the retry is worked out again."""
    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16, out_base=129)  # odd: OutAddr&1 warns
    cop.src.allowed["A"][0] = "math"
    t = unpacr(issue)
    before = tile.diagnostics.sites["t0 UNPACR OutAddr&1"][1]
    for k in range(3):
        cop.state_changed()
        assert t.held is not None
    assert tile.diagnostics.sites["t0 UNPACR OutAddr&1"][1] == before + 3

    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16)
    cop.src.allowed["A"][0] = "math"
    t = unpacr(issue)
    cop.state_changed()
    cop.state_changed()
    assert t.held is not None and not tile.diagnostics.sites
    cop.config.set("THCON_SEC0_REG3_Base_address", cop.arch.l1_size // 16 - 2)  # the datums run past L1
    with pytest.raises(GuestFault, match="outside L1"):
        cop.state_changed()

    tile, issue = make()
    cop = setup(tile, in_fmt=BF16, out_fmt=BF16)
    cop.src.allowed["A"][0] = "math"
    t = unpacr(issue)
    cop.state_changed()
    assert t.held is not None
    cop.adcs.channel(0, 0, 0).X = 256  # XEnd - XPos = 0: no datums, nothing to wait for
    cop.state_changed()
    assert t.held is None


def test_src_set_base_written_between_unpacrs_is_seen_with_the_view_kept():
    """SRCB_SET_Base is ThreadConfig: each UNPACR reads it, the Config view it keeps does
    not (a SETC16 between two UNPACRs changes the second's row update)."""
    tile, issue = make()
    put(tile, L1A, bytes(512))
    cop = setup(tile, u=1, in_fmt=BF16, out_fmt=BF16)
    cop.config.set("THCON_SEC1_REG2_Unpack_Src_Reg_Set_Upd", 1)
    tset(cop, 0, "SRCB_SET_Base", 1)
    unpacr(issue, Unpack_block_selection=1)
    assert src_rows(cop.src)["B"][0] == 16 + 16
    view = cop.unpack._view(0, 1, cop.config.bank_of(0), False, 0)
    tset(cop, 0, "SRCB_SET_Base", 2)
    unpacr(issue, Unpack_block_selection=1)
    assert cop.unpack._view(0, 1, cop.config.bank_of(0), False, 0) is view
    assert src_rows(cop.src)["B"][0] == (32 + 16 + 32) & 0x3F


def test_base_address_written_between_unpacrs_is_read_with_the_view_kept():
    """Base_address (rewritten per tile by tt-llk) is read by each UNPACR, not kept in
    its Config view: the second UNPACR reads the second tile."""
    tile, issue = make()
    a = rng(45).integers(0, 1 << 16, 256, dtype=np.uint32)
    b = rng(46).integers(0, 1 << 16, 256, dtype=np.uint32)
    put(tile, 0x20000, a.astype("<u2").tobytes())
    put(tile, 0x21000, b.astype("<u2").tobytes())
    cop = setup(tile, u=1, in_fmt=BF16, out_fmt=BF16, l1=0x20000)
    unpacr(issue, Unpack_block_selection=1)
    assert np.array_equal(cop.src.data["B"][0][:16].reshape(-1), write_src_bf16(a))
    view = cop.unpack._view(0, 1, cop.config.bank_of(0), False, 0)
    cop.config.set("THCON_SEC1_REG3_Base_address", 0x21000 // 16 - 1)
    cop.adcs.channel(0, 1, 0).Y = 0
    cop.adcs.channel(0, 1, 0).Z = 0
    unpacr(issue, Unpack_block_selection=1)
    assert cop.unpack._view(0, 1, cop.config.bank_of(0), False, 0) is view
    assert np.array_equal(cop.src.data["B"][0][:16].reshape(-1), write_src_bf16(b))
