"""PACR on Blackhole (ttemu/arch/blackhole.py PACKERS, ttemu/tensix/units/pack.py).

Blackhole has one packer (tt-llk cpack_common.h NUM_PACKERS = 1, configured by
THCON_SEC0_REG1_*) with four Dst read interfaces: PACR's ReadIntfSel selects them (0:
all four), interface k reads the datum range of Dst row base + k, and the rows are
packed one after the other (assembly.yaml, tt-llk llk_pack.h). The rest is the Wormhole
pages' packer. References: numpy on the Dst contents (unit tests), and ttsim's Blackhole
model (programs pushed from BRISC, tests/bh_prog.py), bit for bit.
"""

import numpy as np
import pytest

import bh_prog
from oracle_lib import require_ttsim
from tensix_harness import make
from ttemu.arch.tables.blackhole_cfg import THREAD_CFG
from ttemu.cmd.oracle import cross_check
from ttemu.errors import Unimplemented

PAC = 0b100  # CntSetMask: the packers' ADCs
FP32, FP16, BF16, FP8 = 0, 1, 5, 10
OUT = 0x20000


@pytest.fixture(scope="module")
def lib():
    return require_ttsim("blackhole")


def pack_cfg(in_fmt, out_fmt, dst32, dest_addr=OUT, **extra):
    """The Config tt-llk's Blackhole configure_pack writes for a tile (the fields the
    packer reads): formats, Read_32b_data, no compression, strides of the Dst format,
    one read per xy plane, an all-ones edge mask; L1_Dest_addr as
    program_packer_destination writes it (bit 31 set, 16-byte units, minus one)."""
    bpd = 4 if in_fmt == FP32 else 2  # set_packer_strides: the datum size of In_data_format
    cfg = {
        "THCON_SEC0_REG1_Exp_section_size": 0 if out_fmt == FP8 else 4,  # set_packer_config
        "THCON_SEC0_REG1_L1_Dest_addr": (1 << 31) | ((dest_addr >> 4) - 1),
        "THCON_SEC0_REG1_Disable_zero_compress": 1,
        "THCON_SEC0_REG1_Out_data_format": out_fmt,
        "THCON_SEC0_REG1_In_data_format": in_fmt,
        "ALU_FORMAT_SPEC_REG2_Dstacc": in_fmt,
        "PCK_DEST_RD_CTRL_Read_32b_data": int(dst32),
        "PACK_COUNTERS_SEC0_pack_reads_per_xy_plane": 1,
        "PCK_EDGE_OFFSET_SEC0_mask": 0xFFFF,
        "PCK0_ADDR_CTRL_XY_REG_0_Ystride": 16 * bpd,
        "PCK0_ADDR_CTRL_ZW_REG_0_Zstride": 256 * bpd,
        "PCK0_ADDR_CTRL_ZW_REG_0_Wstride": 1024 * bpd,
    }
    cfg.update(extra)
    return cfg


def addr_mods():
    """SETC16 words for tt-llk's default-mode packer ADDR_MODs: 0: y += 4 (four rows,
    one per read interface), 1: clear y and z (end of tile), 2: clear y, z += 1 (next face)."""
    out = []
    for sec, value in ((0, 4), (1, (1 << 5) | (1 << 13)), (2, (1 << 5) | (1 << 12))):
        index = THREAD_CFG[f"ADDR_MOD_PACK_SEC{sec}_YsrcIncr"][0]
        out.append(("SETC16", dict(setc16_reg=index, setc16_value=value)))
    return out


def pack_tile_insns(faces=4, intf=0, rows_per_pacr=4):
    """tt-llk's default-mode pack MOP unrolled: per face, PACRs of ``rows_per_pacr``
    rows with ADDR_MOD_0, the face's last with ADDR_MOD_2, the tile's last with
    ADDR_MOD_1 and Last."""
    out = addr_mods() + [
        ("SETADCXY", dict(CntSetMask=PAC, BitMask=0b1011)),  # tt-llk packer_addr_counter_init
        ("SETADCZW", dict(CntSetMask=PAC, BitMask=0b1111)),
        ("SETADCXX", dict(CntSetMask=PAC, x_start=0, x_end2=15)),
    ]
    per_face = 16 // rows_per_pacr
    for f in range(faces):
        for r in range(per_face):
            last_face = f == faces - 1
            last = r == per_face - 1
            mode = (1 if last_face else 2) if last else 0
            out.append(("PACR", dict(ReadIntfSel=intf, AddrMode=mode, Last=int(last and last_face))))
    return out


# -- unit tests (numpy reference) -----------------------------------------------------

def _bh_unit(in_fmt, out_fmt, dst32, **extra):
    tile, issue = make("blackhole")
    cfg = tile.tensix.config
    for name, value in pack_cfg(in_fmt, out_fmt, dst32, **extra).items():
        cfg.set(name, value)
    return tile, issue


def _issue_all(issue, insns):
    for m, f in insns:
        issue(0, m, **f)


def _random_dst(tile, rng, dst32):
    """Fill Dst rows 0..63 with random finite values; returns them as FP32 bits (a 64 x
    16 array, BF16 values in the high halves for a 16-bit Dst)."""
    sign = rng.integers(0, 2, (64, 16)).astype(np.uint32) << 31
    exp = rng.integers(100, 150, (64, 16)).astype(np.uint32) << 23
    man = rng.integers(0, 1 << 23, (64, 16)).astype(np.uint32)
    fp32 = sign | exp | man
    if dst32:
        dst_write32(tile, fp32)
    else:
        fp32 &= 0xFFFF0000
        tile.tensix.dst.bits[:64] = _dst16_bf16(fp32 >> 16)
    tile.tensix.math.undefined[:] = False
    return fp32


def _dst16_bf16(bf16):
    """Dst.md's 16-bit storage of a BF16 value: sign, then the 7 mantissa bits, then
    the 8 exponent bits."""
    bf16 = bf16.astype(np.uint32)
    return ((bf16 & 0x8000) | ((bf16 & 0x7F) << 8) | ((bf16 >> 7) & 0xFF)).astype(np.uint16)


def dst_write32(tile, fp32):
    """Dst32 rows 0.. with FP32 values (Dst.md: row r's high half in Dst16 row
    ((r & 0x1F8) << 1) | (r & 0x207), stored as a BF16, the low half 8 rows further)."""
    rows = np.arange(fp32.shape[0])
    adj = ((rows & 0x1F8) << 1) | (rows & 0x207)
    tile.tensix.dst.bits[adj] = _dst16_bf16(fp32 >> 16)
    tile.tensix.dst.bits[adj + 8] = (fp32 & 0xFFFF).astype(np.uint16)


@pytest.mark.parametrize("dst32,in_fmt,out_fmt", [(False, BF16, BF16), (True, FP32, FP32), (True, BF16, BF16)])
def test_pack_tile_all_interfaces_matches_numpy(dst32, in_fmt, out_fmt):
    """A 32 x 32 tile (64 Dst rows) packed as tt-llk's Blackhole pack MOP does: 16 PACRs
    of four rows each; L1 holds the Dst rows in order, converted as numpy does
    (FP32 -> BF16 by the page's round to nearest, ties away from zero)."""
    rng = np.random.default_rng(5 + dst32 + out_fmt)
    tile, issue = _bh_unit(in_fmt, out_fmt, dst32)
    fp32 = _random_dst(tile, rng, dst32)
    _issue_all(issue, pack_tile_insns())
    if out_fmt == FP32:
        want = fp32.reshape(-1).astype("<u4").tobytes()
    else:
        r = fp32.reshape(-1)
        want = ((r + 0x8000) >> 16).astype("<u2").tobytes()  # nearest, ties away (finite values)
    got = tile.read(OUT, len(want))
    assert got == want


@pytest.mark.parametrize("intf,rows", [(0b0001, [0]), (0b0011, [0, 1]), (0b0101, [0, 2]), (0b1010, [1, 3]),
                                       (0b1111, [0, 1, 2, 3]), (0b1000, [3])])
def test_read_interfaces_select_rows(intf, rows):
    """ReadIntfSel: interface k reads Dst row base + k; the selected rows are packed in
    interface order (tt-llk's tilize uses 0b0101 / 0b1010; ttsim reads rows base + 2j /
    base + 2j + 1 for them)."""
    rng = np.random.default_rng(intf)
    tile, issue = _bh_unit(BF16, BF16, False)
    fp32 = _random_dst(tile, rng, False)
    _issue_all(issue, addr_mods() + [("SETADCXX", dict(CntSetMask=PAC, x_start=0, x_end2=15)),
                                     ("PACR", dict(ReadIntfSel=intf, AddrMode=0, Last=1))])
    want = (fp32[rows] >> 16).astype("<u2").tobytes()
    assert tile.read(OUT, len(want)) == want
    # the rest of the last 16-byte unit is padding (Last); beyond it L1 is untouched
    assert not any(tile.read(OUT + len(want), 64))


def test_partial_row_per_interface():
    """x_end 7: every interface reads eight datums of its row."""
    rng = np.random.default_rng(11)
    tile, issue = _bh_unit(BF16, BF16, False)
    fp32 = _random_dst(tile, rng, False)
    _issue_all(issue, addr_mods() + [("SETADCXX", dict(CntSetMask=PAC, x_start=0, x_end2=7)),
                                     ("PACR", dict(ReadIntfSel=0b0011, AddrMode=0, Last=1))])
    want = (fp32[[0, 1], :8] >> 16).astype("<u2").tobytes()
    assert tile.read(OUT, len(want)) == want


def test_pack_uses_dest_target_offset_and_advances_y_by_four():
    """DEST_TARGET_REG_CFG_PACK_SEC0_Offset (tt-llk's Dst half) adds rows; ADDR_MOD_0's
    y += 4 moves the next PACR four rows on."""
    rng = np.random.default_rng(12)
    tile, issue = _bh_unit(BF16, BF16, False, DEST_TARGET_REG_CFG_PACK_SEC0_Offset=16)
    fp32 = _random_dst(tile, rng, False)
    _issue_all(issue, addr_mods() + [("SETADCXX", dict(CntSetMask=PAC, x_start=0, x_end2=15)),
                                     ("PACR", dict(ReadIntfSel=0, AddrMode=0, Last=0)),
                                     ("PACR", dict(ReadIntfSel=0, AddrMode=0, Last=1))])
    want = (fp32[16:24] >> 16).astype("<u2").tobytes()
    assert tile.read(OUT, len(want)) == want


def _adj16_remap(rows):
    """BlackholeA0 Dst.md Adj16 with DEST_ACCESS_CFG_remap_addrs set."""
    return (rows & 0x3C7) ^ ((rows & 0x030) >> 1) ^ ((rows & 0x008) << 2)


@pytest.mark.parametrize("base", [0, 5, 8, 13, 32])
def test_strided_mode_reads_rows_sixteen_apart(base):
    """DstAccessMode 1 (tt-llk's untilize: two interfaces, remap_addrs and swizzle_32b
    set): interfaces 0 and 1 read Dst rows base and base + 16, which with remap_addrs
    live in storage rows Adj16(row) (Dst.md)."""
    rng = np.random.default_rng(base)
    tile, issue = _bh_unit(BF16, BF16, False, DEST_ACCESS_CFG_remap_addrs=1, DEST_ACCESS_CFG_swizzle_32b=1)
    fp32 = _random_dst(tile, rng, False)  # rows 0..63 in storage order
    logical = fp32[_adj16_remap(np.arange(64))]  # row r's values sit in storage row Adj16(r)
    tile.tensix.config.set("DEST_TARGET_REG_CFG_PACK_SEC0_Offset", base)
    _issue_all(issue, addr_mods() + [("SETADCXX", dict(CntSetMask=PAC, x_start=0, x_end2=15)),
                                     ("PACR", dict(ReadIntfSel=0b0011, DstAccessMode=1, AddrMode=0, Last=1))])
    want = (logical[[base, base + 16]] >> 16).astype("<u2").tobytes()
    assert tile.read(OUT, len(want)) == want


def test_remap_applies_to_normal_reads_of_dst32():
    """With remap_addrs and swizzle_32b, a Dst32 row r is read from storage row
    Adj32(r) (its high half) and Adj32(r) + 8 (low half)."""
    rng = np.random.default_rng(21)
    tile, issue = _bh_unit(FP32, FP32, True, DEST_ACCESS_CFG_remap_addrs=1, DEST_ACCESS_CFG_swizzle_32b=1)
    bits = rng.integers(0, 1 << 16, (1024, 16)).astype(np.uint16)
    tile.tensix.dst.bits[:] = bits
    tile.tensix.math.undefined[:] = False
    _issue_all(issue, addr_mods() + [("SETADCXX", dict(CntSetMask=PAC, x_start=0, x_end2=15)),
                                     ("PACR", dict(ReadIntfSel=0, AddrMode=0, Last=1))])
    r = _adj16_remap(np.arange(4))
    r = (r & 0x3F3) ^ ((r & 0x018) >> 1) ^ ((r & 0x004) << 1)
    adj = ((r & 0x1F8) << 1) | (r & 0x207)
    hi, lo = bits[adj].astype(np.uint32), bits[adj + 8].astype(np.uint32)
    # Dst.md storage of FP32: the high half is a BF16 as stored (sign, mantissa, exponent)
    hi = (hi & 0x8000) | ((hi & 0xFF) << 7) | ((hi >> 8) & 0x7F)
    want = ((hi << 16) | lo).astype("<u4").tobytes()
    assert tile.read(OUT, len(want)) == want


def _pack_rows(tile, issue, rows=1):
    """One PACR of ``rows`` Dst rows (interfaces 0..rows-1), Last."""
    _issue_all(issue, addr_mods() + [("SETADCXX", dict(CntSetMask=PAC, x_start=0, x_end2=15)),
                                     ("PACR", dict(ReadIntfSel=(1 << rows) - 1, AddrMode=0, Last=1))])


def test_round10_fp32_dst_to_fp16_matches_numpy():
    """FP32 Dst packed to Float16 as tt-llk's Blackhole configure_pack sets it up
    (Read_32b_data, Dstacc / In / Out Float16, Round_10b_mant): values in FP16's normal
    range round to 10 mantissa bits as numpy's float16 does (no ties among them);
    below the range a zero of the datum's sign, above it (and infinities, NaNs)
    sign | 0x7fff, exponent 0 a +0."""
    rng = np.random.default_rng(31)
    tile, issue = _bh_unit(FP16, FP16, True, PCK_DEST_RD_CTRL_Round_10b_mant=1)
    sign = rng.integers(0, 2, (4, 16)).astype(np.uint32) << 31
    exp = rng.integers(113, 143, (4, 16)).astype(np.uint32) << 23  # FP16 exponents 1..30
    man = rng.integers(0, 1 << 23, (4, 16)).astype(np.uint32)
    man = np.where((man & 0x1FFF) == 0x1000, man + 1, man).astype(np.uint32)  # no ties
    fp32 = sign | exp | man
    edge = [0x387FFFFF | 0x80000000, 0x38000000, 0x47800000, 0xC7FFF000, 0x7F800000, 0xFFC00001, 0x80000000,
            0x00000001, 0x477FF000, 0x477FEFFF, 0x38800000, 0x80400000, 0x3F800000, 0xBF801000, 0x3F803000,
            0x40000000]
    fp32[3] = edge
    dst_write32(tile, fp32)
    tile.tensix.math.undefined[:] = False
    _pack_rows(tile, issue, 4)
    got = np.frombuffer(tile.read(OUT, 128), "<u2").reshape(4, 16)
    want = fp32[:3].view(np.float32).astype(np.float16).view(np.uint16)
    assert np.array_equal(got[:3], want)
    # rounding carries into the exponent; [2**-15, 2**-14) keeps exponent 0 with its
    # mantissa; exponent 31 is an ordinary FP16 exponent (2**16 = 0x7c00), beyond it
    # (after rounding), infinities and NaNs sign | 0x7fff; zeros and denormals +0; ties
    # round away from zero
    assert list(got[3]) == [0x8400, 0x0000, 0x7C00, 0xFFFF, 0x7FFF, 0xFFFF, 0x0000,
                            0x0000, 0x7C00, 0x7BFF, 0x0400, 0x0000, 0x3C00, 0xBC01, 0x3C02, 0x4000]


def _e4m3(x):
    """FP8 E4M3 bits of a float by arithmetic: bias 7, mantissa truncated to 3 bits,
    magnitudes below 2**-6 (E4M3's denormals too) a signed zero, 2**9 and up saturated
    to 0x7f."""
    s = 0x80 if np.signbit(x) else 0
    a = abs(float(x))
    if a < 2.0 ** -6:
        return s
    if a >= 2.0 ** 9:
        return s | 0x7F
    e = int(np.floor(np.log2(a)))
    m = int((a / 2.0 ** e - 1) * 8)
    return s | ((e + 7) << 3) | m


def test_fp8_e4m3_output_from_bf16_dst_matches_arithmetic():
    """tt-llk's Blackhole Fp8_e4m3 output from a BF16 Dst: Dstacc / In Float16,
    Round_10b_mant (BF16 -> FP16), Out FP8 with Pac_LF8_4b_exp: each datum is the E4M3
    encoding of its BF16 value (truncated), one byte per datum."""
    rng = np.random.default_rng(32)
    tile, issue = _bh_unit(FP16, FP8, False, PCK_DEST_RD_CTRL_Round_10b_mant=1, THCON_SEC0_REG1_Pac_LF8_4b_exp=1)
    sign = rng.integers(0, 2, (2, 16)).astype(np.uint32) << 15
    exp = rng.integers(117, 139, (2, 16)).astype(np.uint32) << 7
    bf16 = sign | exp | rng.integers(0, 128, (2, 16)).astype(np.uint32)
    tile.tensix.dst.bits[:2] = _dst16_bf16(bf16)
    tile.tensix.math.undefined[:] = False
    _pack_rows(tile, issue, 2)
    got = list(tile.read(OUT, 32))
    vals = (bf16.reshape(-1) << 16).astype(np.uint32).view(np.float32)
    assert got == [_e4m3(v) for v in vals]


def test_fp8_without_e4m3_stays_e5m2():
    """Without Pac_LF8_4b_exp, FP8 is the Wormhole pages' e5m2: the top byte of FP16."""
    tile, issue = _bh_unit(FP16, FP8, False)
    fp16 = np.arange(16, dtype=np.uint32) * 0x0913 + 0x3C00
    tile.tensix.dst.bits[:1] = ((fp16 & 0x8000) | ((fp16 & 0x3FF) << 5) | ((fp16 >> 10) & 0x1F)).astype(np.uint16)
    tile.tensix.math.undefined[:] = False
    _pack_rows(tile, issue, 1)
    assert list(tile.read(OUT, 16)) == list(fp16 >> 8)


@pytest.mark.parametrize("intf,datums", [(0b1111, 64), (0b0101, 32), (0, 16)])
def test_zero_write_counts(intf, datums):
    """ZeroWrite writes zeros for the datum range times the active interfaces; with
    ReadIntfSel 0 it is assembly.yaml's "Special Mode": (x_end + 1) datums in all."""
    tile, issue = _bh_unit(BF16, BF16, False)
    tile.write(OUT, b"\xff" * 256)
    _issue_all(issue, addr_mods() + [("SETADCXX", dict(CntSetMask=PAC, x_start=0, x_end2=15)),
                                     ("PACR", dict(ReadIntfSel=intf, ZeroWrite=1, AddrMode=0, Last=1))])
    got = tile.read(OUT, 256)
    assert got == bytes(2 * datums) + b"\xff" * (256 - 2 * datums)


@pytest.mark.parametrize("field,value", [("CtxtCtrl", 1), ("CfgContext", 1), ("RowPadZero", 1),
                                         ("DstAccessMode", 1)])
def test_undescribed_pacr_fields_stop_as_unimplemented(field, value):
    tile, issue = _bh_unit(BF16, BF16, False)
    with pytest.raises(Unimplemented, match=field):
        issue(0, "PACR", **{field: value})


# -- ttsim (Blackhole) -------------------------------------------------------------------

def _l1_pattern(rng, n):
    return rng.integers(0, 256, n, dtype=np.uint8).tobytes()


BFP8B, BFP4B = 6, 7


@pytest.mark.parametrize("dst32,in_fmt,out_fmt,extra", [
    (False, BF16, BF16, {}), (True, FP32, FP32, {}), (True, BF16, BF16, {}), (False, FP16, FP16, {}),
    (True, FP16, FP16, {"PCK_DEST_RD_CTRL_Round_10b_mant": 1}), (False, BF16, BFP8B, {}),
    (True, FP32, BFP4B, {}), (False, FP16, FP8, {"PCK_DEST_RD_CTRL_Round_10b_mant": 1,
                                                 "THCON_SEC0_REG1_Pac_LF8_4b_exp": 1})],
    ids=["bf16", "fp32", "fp32-bf16", "fp16", "dst32-fp16-round10", "bfp8b", "dst32-bfp4b", "fp8-e4m3"])
def test_zero_tile_pack_bit_identical_to_ttsim(lib, dst32, in_fmt, out_fmt, extra):
    """ZEROACC then a tile packed as tt-llk's Blackhole pack MOP does, over an L1
    pattern: the bytes written (exponent sections, data, padding) and those left alone
    match ttsim's, for each format pair."""
    size = {FP32: 4096, BF16: 2048, FP16: 2048, FP8: 1024, BFP8B: 64 + 1024, BFP4B: 64 + 512}[out_fmt]
    nbytes = size
    rng = np.random.default_rng(3)
    insns = [("ZEROACC", dict(clear_mode=3, use_32_bit_mode=int(dst32)))] + pack_tile_insns()
    tile = bh_prog.run(pack_cfg(in_fmt, out_fmt, dst32, **extra), insns,
                       l1={OUT - 64: _l1_pattern(rng, nbytes + 128)})
    diffs, res = cross_check(tile, lib, [("out", OUT - 64, nbytes + 128)], until=bh_prog.DONE)
    assert diffs[0].ok, diffs[0].text()
    assert not any(tile.read(OUT, nbytes)) and any(tile.read(OUT + nbytes, 64))


@pytest.mark.parametrize("out_fmt", [BF16, FP32, FP16])
def test_l1_accumulation_of_zeros_bit_identical_to_ttsim(lib, out_fmt):
    """Pack_L1_Acc: L1 += the packed zeros, over random L1 bit patterns (denormals,
    infinities, NaNs among them): the accumulated bytes match ttsim's, and numpy's
    model of the lanes (a denormal or -0 plus +0 is +0, a NaN in L1 becomes an
    infinity for BF16 and 0x7fc00000 for FP32; Tensix FP16 has neither)."""
    dst32 = out_fmt == FP32
    nbytes = 1024 * (4 if dst32 else 2)
    rng = np.random.default_rng(4 + out_fmt)
    pattern = bytearray(_l1_pattern(rng, nbytes))
    insns = [("ZEROACC", dict(clear_mode=3, use_32_bit_mode=int(dst32)))] + pack_tile_insns()
    cfg = pack_cfg(out_fmt, out_fmt, dst32, THCON_SEC0_REG1_Pack_L1_Acc=1)
    tile = bh_prog.run(cfg, insns, l1={OUT: bytes(pattern)})
    diffs, res = cross_check(tile, lib, [("out", OUT, nbytes)], until=bh_prog.DONE)
    assert diffs[0].ok, diffs[0].text()
    got = tile.read(OUT, nbytes)
    if dst32:
        a = np.frombuffer(bytes(pattern), "<u4")
        mag = a & 0x7FFFFFFF
        want = np.where(mag > 0x7F800000, 0x7FC00000, np.where(mag < 0x800000, 0, a))
        assert np.array_equal(np.frombuffer(got, "<u4"), want.astype(np.uint32))
    elif out_fmt == BF16:
        a = np.frombuffer(bytes(pattern), "<u2").astype(np.uint32)
        mag = a & 0x7FFF
        want = np.where(mag > 0x7F80, (a & 0x8000) | 0x7F80, np.where(mag < 0x80, 0, a))
        assert np.array_equal(np.frombuffer(got, "<u2"), want.astype(np.uint16))
    else:
        a = np.frombuffer(bytes(pattern), "<u2").astype(np.uint32)
        want = np.where((a & 0x7C00) == 0, 0, a)
        assert np.array_equal(np.frombuffer(got, "<u2"), want.astype(np.uint16))


# -- ttsim (Blackhole) with values: the Vector Unit fills Dst ---------------------------

SFP_UPPER, SFP_LOWER = 8, 10  # SFPLOADI Mod0 (SFPLOADI.md)
# SFPSTORE Mod0 (SFPSTORE.md): SRCB resolves to FP16 with an FP16 SrcB format (ttsim
# refuses MOD0_FMT_FP16 itself)
STORE_SRCB, STORE_BF16, STORE_FP32 = 0, 2, 3
SRCB_FP16 = {"ALU_FORMAT_SPEC_REG1_SrcB": FP16}


def sfpu_fill(rng, store_mod0, exps=(100, 150), base=0):
    """Vector Unit instructions that write 64 Dst rows from ``base`` (both column
    parities of every group of four rows) with varied values: per SFPSTORE a random FP32 constant
    (SFPLOADI upper and lower halves) plus lane << 17 (LReg[15] holds 2 * lane,
    doubled 16 times by SFPIADD), so the lanes differ in their high mantissa bits."""
    out = [("SFPIADD", dict(instr_mod1=1 | 4, lreg_c=15, lreg_dest=1, imm12_math=0))]  # L1 = L15
    out += [("SFPIADD", dict(instr_mod1=4, lreg_c=1, lreg_dest=1, imm12_math=0))] * 16  # L1 += L1
    for k in range(32):
        v = (int(rng.integers(0, 2)) << 31) | (int(rng.integers(*exps)) << 23) | int(rng.integers(0, 1 << 23))
        out += [("SFPLOADI", dict(lreg_ind=0, instr_mod0=SFP_UPPER, imm16=v >> 16)),
                ("SFPLOADI", dict(lreg_ind=0, instr_mod0=SFP_LOWER, imm16=v & 0xFFFF)),
                ("SFPIADD", dict(instr_mod1=4, lreg_c=1, lreg_dest=0, imm12_math=0)),
                ("SFPSTORE", dict(lreg_ind=0, instr_mod0=store_mod0, sfpu_addr_mode=0,
                                  dest_reg_addr=base + 4 * (k >> 1) + 2 * (k & 1)))]
    out.append(("STALLWAIT", dict(stall_res=0x4, wait_res=0x800)))  # packer waits for the Vector Unit
    return out


def _ttsim_pack(lib, cfg, fill, out_bytes, l1=None, seed=0):
    rng = np.random.default_rng(seed)
    pattern = l1 if l1 is not None else _l1_pattern(rng, out_bytes + 128)
    tile = bh_prog.run(cfg, fill + pack_tile_insns(), l1={OUT - 64: pattern}, max_steps=400_000)
    diffs, res = cross_check(tile, lib, [("out", OUT - 64, out_bytes + 128)], until=bh_prog.DONE)
    assert diffs[0].ok, diffs[0].text()
    out = tile.read(OUT, out_bytes)
    assert len(set(out)) > 16  # the tile holds varied values
    return tile


_VALUE_CASES = {
    # name: (store Mod0, Dst32, In, Out, extra Config, L1 bytes)
    "fp32": (STORE_FP32, True, FP32, FP32, {}, 4096),
    "dst32-bf16": (STORE_FP32, True, BF16, BF16, {}, 2048),
    "dst32-fp16-round10": (STORE_FP32, True, FP16, FP16, {"PCK_DEST_RD_CTRL_Round_10b_mant": 1}, 2048),
    "dst32-bfp8b": (STORE_FP32, True, FP32, BFP8B, {}, 64 + 1024),
    "dst32-fp8-e4m3": (STORE_FP32, True, FP16, FP8, {"PCK_DEST_RD_CTRL_Round_10b_mant": 1,
                                                     "THCON_SEC0_REG1_Pac_LF8_4b_exp": 1}, 1024),
    "bf16": (STORE_BF16, False, BF16, BF16, {}, 2048),
    "bf16-fp32": (STORE_BF16, False, BF16, FP32, {}, 4096),
    "bf16-bfp8b": (STORE_BF16, False, BF16, BFP8B, {}, 64 + 1024),
    "bf16-bfp4b": (STORE_BF16, False, BF16, BFP4B, {}, 64 + 512),
    "bf16-fp8-e4m3": (STORE_BF16, False, FP16, FP8, {"PCK_DEST_RD_CTRL_Round_10b_mant": 1,
                                                     "THCON_SEC0_REG1_Pac_LF8_4b_exp": 1}, 1024),
    "fp16": (STORE_SRCB, False, FP16, FP16, SRCB_FP16, 2048),
    "fp16-fp32": (STORE_SRCB, False, FP16, FP32, SRCB_FP16, 4096),
    "fp16-bf16": (STORE_SRCB, False, FP16, BF16, SRCB_FP16, 2048),
    # L1 accumulation onto random L1 bit patterns
    "fp32-acc": (STORE_FP32, True, FP32, FP32, {"THCON_SEC0_REG1_Pack_L1_Acc": 1}, 4096),
    "bf16-acc": (STORE_BF16, False, BF16, BF16, {"THCON_SEC0_REG1_Pack_L1_Acc": 1}, 2048),
    "fp16-acc": (STORE_SRCB, False, FP16, FP16, {"THCON_SEC0_REG1_Pack_L1_Acc": 1, **SRCB_FP16}, 2048),
    "dst32-bf16-acc": (STORE_FP32, True, BF16, BF16, {"THCON_SEC0_REG1_Pack_L1_Acc": 1}, 2048),
    # ReLU (ReLU.md): plain, threshold to zero, clamp to the threshold
    "bf16-relu1": (STORE_BF16, False, BF16, BF16, {"STACC_RELU_ApplyRelu": 1}, 2048),
    "bf16-relu2": (STORE_BF16, False, BF16, BF16, {"STACC_RELU_ApplyRelu": 2, "STACC_RELU_ReluThreshold": 0x3F80},
                   2048),
    "bf16-relu3": (STORE_BF16, False, BF16, BF16, {"STACC_RELU_ApplyRelu": 3, "STACC_RELU_ReluThreshold": 0x4000},
                   2048),
    "fp32-relu2": (STORE_FP32, True, FP32, FP32, {"STACC_RELU_ApplyRelu": 2, "STACC_RELU_ReluThreshold": 0x3F80},
                   4096),
    "fp32-relu3": (STORE_FP32, True, FP32, FP32, {"STACC_RELU_ApplyRelu": 3, "STACC_RELU_ReluThreshold": 0x4000},
                   4096),
    "fp16-relu3": (STORE_SRCB, False, FP16, FP16, {"STACC_RELU_ApplyRelu": 3, "STACC_RELU_ReluThreshold": 0x3C00,
                                                   **SRCB_FP16}, 2048),
    # edge masks (EdgeMasking.md): odd rows of each face (TILE_ROW_SET_MAPPING_0, with 16
    # reads per xy plane) keep only column 0 (PCK_EDGE_OFFSET_SEC1), even rows all
    "bf16-edge": (STORE_BF16, False, BF16, BF16, {"PACK_COUNTERS_SEC0_pack_reads_per_xy_plane": 16,
                                                  "PCK_EDGE_OFFSET_SEC1_mask": 1,
                                                  **{f"TILE_ROW_SET_MAPPING_0_row_set_mapping_{j}": j & 1
                                                     for j in range(16)}}, 2048),
}


@pytest.mark.parametrize("case", list(_VALUE_CASES))
def test_values_pack_bit_identical_to_ttsim(lib, case):
    """Dst filled by the Vector Unit (SFPLOADI, SFPIADD, SFPSTORE) with varied values,
    then a tile packed as tt-llk's Blackhole pack MOP does: the L1 bytes (and the
    bytes around them) match ttsim's, for each format pair tt-llk configures."""
    mod0, dst32, in_fmt, out_fmt, extra, nbytes = _VALUE_CASES[case]
    exps = (113, 143) if in_fmt == FP16 else (100, 150)  # FP16 Dst: values within its range
    fill = sfpu_fill(np.random.default_rng(len(case)), mod0, exps)
    _ttsim_pack(lib, pack_cfg(in_fmt, out_fmt, dst32, **extra), fill, nbytes, seed=len(case))


def untilize_insns():
    """tt-llk's Blackhole untilize pack MOP unrolled (llk_pack.h PackMode::Untilize, a
    32 x 32 tile): two read interfaces in strided mode read row r of faces 0 and 1 (Dst
    rows r and r + 16) per PACR; ADDR_MOD_0 y += 1, ADDR_MOD_1 (end of the face pair)
    clears y and moves z to faces 2 and 3, ADDR_MOD_2 clears both."""
    mods = []
    for sec, value in ((0, 1), (1, (1 << 5) | (1 << 12)), (2, (1 << 5) | (1 << 13))):
        mods.append(("SETC16", dict(setc16_reg=THREAD_CFG[f"ADDR_MOD_PACK_SEC{sec}_YsrcIncr"][0], setc16_value=value)))
    out = mods + [
        ("SETADCXY", dict(CntSetMask=PAC, BitMask=0b1011)),
        ("SETADCZW", dict(CntSetMask=PAC, BitMask=0b1111)),
        ("SETADCXX", dict(CntSetMask=PAC, x_start=0, x_end2=15)),
    ]
    for outer in range(2):
        for inner in range(16):
            mode, last = 0, 0
            if inner == 15:
                mode, last = (2, 1) if outer == 1 else (1, 0)
            out.append(("PACR", dict(ReadIntfSel=0b0011, DstAccessMode=1, AddrMode=mode, Last=last,
                                     Concat=int(not last))))
    return out


def untilize_cfg(in_fmt, dst32):
    bpd = 4 if in_fmt == FP32 else 2
    return pack_cfg(in_fmt, in_fmt, dst32, DEST_ACCESS_CFG_remap_addrs=1, DEST_ACCESS_CFG_swizzle_32b=1,
                    PCK0_ADDR_CTRL_ZW_REG_0_Zstride=2 * 16 * 16 * bpd)  # set_packer_strides: two faces


@pytest.mark.parametrize("dst32", [False, True])
def test_untilize_matches_numpy(dst32):
    """The untilize MOP writes the tile row by row: L1 row R (32 datums) is row R % 16
    of faces 0 and 1 (R < 16) or of faces 2 and 3, i.e. the 32 x 32 matrix whose faces
    are Dst rows 0..15, 16..31, 32..47, 48..63 (logical rows, stored at Adj16 / Adj32)."""
    rng = np.random.default_rng(41 + dst32)
    fmt = FP32 if dst32 else BF16
    tile, issue = make("blackhole")
    for name, value in untilize_cfg(fmt, dst32).items():
        tile.tensix.config.set(name, value)
    sign = rng.integers(0, 2, (64, 16)).astype(np.uint32) << 31
    fp32 = sign | (rng.integers(100, 150, (64, 16)).astype(np.uint32) << 23) | rng.integers(0, 1 << 23, (64, 16))
    fp32 = fp32.astype(np.uint32)
    rows = _adj16_remap(np.arange(64))
    if dst32:
        r = (rows & 0x3F3) ^ ((rows & 0x018) >> 1) ^ ((rows & 0x004) << 1)
        adj = ((r & 0x1F8) << 1) | (r & 0x207)
        tile.tensix.dst.bits[adj] = _dst16_bf16(fp32 >> 16)
        tile.tensix.dst.bits[adj + 8] = (fp32 & 0xFFFF).astype(np.uint16)
    else:
        fp32 &= 0xFFFF0000
        tile.tensix.dst.bits[rows] = _dst16_bf16(fp32 >> 16)
    tile.tensix.math.undefined[:] = False
    _issue_all(issue, untilize_insns())
    faces = fp32.reshape(4, 16, 16)
    matrix = np.block([[faces[0], faces[1]], [faces[2], faces[3]]])
    if dst32:
        want = matrix.reshape(-1).astype("<u4").tobytes()
    else:
        want = (matrix.reshape(-1) >> 16).astype("<u2").tobytes()
    assert tile.read(OUT, len(want)) == want


@pytest.mark.parametrize("case", ["bf16", "fp32"])
def test_untilize_values_bit_identical_to_ttsim(lib, case):
    """The untilize MOP (strided reads with remap_addrs / swizzle_32b) on a Dst the
    Vector Unit filled: L1 matches ttsim's."""
    dst32 = case == "fp32"
    fmt = FP32 if dst32 else BF16
    fill = sfpu_fill(np.random.default_rng(7), STORE_FP32 if dst32 else STORE_BF16)
    nbytes = 1024 * (4 if dst32 else 2)
    rng = np.random.default_rng(8)
    tile = bh_prog.run(untilize_cfg(fmt, dst32), fill + untilize_insns(),
                       l1={OUT - 64: _l1_pattern(rng, nbytes + 128)}, max_steps=400_000)
    diffs, res = cross_check(tile, lib, [("out", OUT - 64, nbytes + 128)], until=bh_prog.DONE)
    assert diffs[0].ok, diffs[0].text()
    assert len(set(tile.read(OUT, nbytes))) > 16


def tilize_insns():
    """tt-llk's Blackhole tilize pack MOP unrolled (llk_pack.h PackMode::Tilize, 32 x 32,
    face_r_dim 16): per face pair, eight PACRs through interfaces 0 and 2 (Dst rows
    base, base + 2; y += 4), the eighth with ADDR_MOD_1 (clear y), then eight through
    interfaces 1 and 3, the last with ADDR_MOD_2 (clear y, z += 1: the next face pair),
    Last on the tile's final PACR."""
    mods = []
    for sec, value in ((0, 4), (1, 1 << 5), (2, (1 << 5) | (1 << 12))):
        mods.append(("SETC16", dict(setc16_reg=THREAD_CFG[f"ADDR_MOD_PACK_SEC{sec}_YsrcIncr"][0], setc16_value=value)))
    out = mods + [
        ("SETADCXY", dict(CntSetMask=PAC, BitMask=0b1011)),
        ("SETADCZW", dict(CntSetMask=PAC, BitMask=0b1111)),
        ("SETADCXX", dict(CntSetMask=PAC, x_start=0, x_end2=15)),
    ]
    for outer in range(2):
        out += [("PACR", dict(ReadIntfSel=0b0101, AddrMode=0, Concat=1))] * 7
        out += [("PACR", dict(ReadIntfSel=0b0101, AddrMode=1, Concat=1))]
        out += [("PACR", dict(ReadIntfSel=0b1010, AddrMode=0, Concat=1))] * 7
        out += [("PACR", dict(ReadIntfSel=0b1010, AddrMode=2, Last=int(outer == 1)))]
    return out


def tilize_cfg(fmt, dst32):
    bpd = 4 if fmt == FP32 else 2
    return pack_cfg(fmt, fmt, dst32, PCK0_ADDR_CTRL_ZW_REG_0_Zstride=2 * 16 * 16 * bpd)


def test_tilize_interfaces_match_numpy():
    """The tilize MOP un-interleaves rows: L1 gets Dst rows 0, 2, ..., 30, then 1, 3,
    ..., 31, then the same from row 32 (interfaces 0 and 2, then 1 and 3)."""
    rng = np.random.default_rng(51)
    tile, issue = make("blackhole")
    for name, value in tilize_cfg(BF16, False).items():
        tile.tensix.config.set(name, value)
    fp32 = _random_dst(tile, rng, False)
    _issue_all(issue, tilize_insns())
    order = [b + r for b in (0, 32) for r in list(range(0, 32, 2)) + list(range(1, 32, 2))]
    want = (fp32[order] >> 16).astype("<u2").tobytes()
    assert tile.read(OUT, len(want)) == want


def test_tilize_values_bit_identical_to_ttsim(lib):
    fill = sfpu_fill(np.random.default_rng(52), STORE_BF16)
    rng = np.random.default_rng(53)
    tile = bh_prog.run(tilize_cfg(BF16, False), fill + tilize_insns(), l1={OUT - 64: _l1_pattern(rng, 2048 + 128)},
                       max_steps=400_000)
    diffs, res = cross_check(tile, lib, [("out", OUT - 64, 2048 + 128)], until=bh_prog.DONE)
    assert diffs[0].ok, diffs[0].text()
    assert len(set(tile.read(OUT, 2048))) > 16


def test_second_dst_half_bit_identical_to_ttsim(lib):
    """tt-llk's SyncHalf packs the second Dst half: DEST_TARGET_REG_CFG_PACK_SEC0_Offset
    512 with a 32-bit Dst (the 10-bit row through Adj32), values the Vector Unit stored
    there."""
    fill = sfpu_fill(np.random.default_rng(54), STORE_FP32, base=512)
    rng = np.random.default_rng(55)
    cfg = pack_cfg(FP32, FP32, True, DEST_TARGET_REG_CFG_PACK_SEC0_Offset=512)
    tile = bh_prog.run(cfg, fill + pack_tile_insns(), l1={OUT - 64: _l1_pattern(rng, 4096 + 128)}, max_steps=400_000)
    diffs, res = cross_check(tile, lib, [("out", OUT - 64, 4096 + 128)], until=bh_prog.DONE)
    assert diffs[0].ok, diffs[0].text()
    assert len(set(tile.read(OUT, 4096))) > 16


def test_exponent_threshold_zeroes_small_exponents():
    """Exponent thresholding (ExponentThresholding.md; tt-llk's reconfigure_exp_threshold
    writes THCON_SEC0_REG1_Exp_threshold_en / Exp_threshold): datums whose exponent is
    below the threshold become zero before the late conversion. FP32 Dst to BFP8_b with
    threshold 115: with one larger datum per block the shared exponents stay, every
    datum at or above the threshold packs as without it, those below lose their
    (otherwise non-zero) mantissas."""
    outs = []
    for en in (0, 1):
        tile, issue = _bh_unit(FP32, BFP8B, True, THCON_SEC0_REG1_Exp_threshold_en=en,
                               THCON_SEC0_REG1_Exp_threshold=115)
        rng = np.random.default_rng(56)
        sign = rng.integers(0, 2, (4, 16)).astype(np.uint32) << 31
        exp = rng.integers(112, 119, (4, 16)).astype(np.uint32)
        exp[:, 0] = 118
        fp32 = (sign | (exp << 23) | rng.integers(0, 1 << 23, (4, 16)).astype(np.uint32)).astype(np.uint32)
        dst_write32(tile, fp32)
        tile.tensix.math.undefined[:] = False
        _pack_rows(tile, issue, 4)
        outs.append(np.frombuffer(tile.read(OUT, 64 + 64), np.uint8))
    small = (exp < 115).reshape(-1)
    assert small.any() and (~small).any()
    assert np.array_equal(outs[0][:4], outs[1][:4]) and set(outs[1][:4]) == {118}  # shared exponents
    data0, data1 = outs[0][64:], outs[1][64:]
    assert np.array_equal(data1[~small], data0[~small])
    assert not (data1[small] & 0x7F).any() and (data0[small] & 0x7F).all()


def test_ovrd_thread_id_selects_adc_by_addr_cnt_context():
    """OvrdThreadId: the ADCs of AddrCntContext (a Blackhole PACR field; Wormhole reads
    Addr_cnt_context from the packer's configuration) instead of the issuing thread's:
    thread 1's datum range (x_end 7) applies to a PACR issued by thread 0."""
    rng = np.random.default_rng(61)
    tile, issue = _bh_unit(BF16, BF16, False)
    fp32 = _random_dst(tile, rng, False)
    _issue_all(issue, addr_mods())
    issue(0, "SETADCXX", CntSetMask=PAC, x_start=0, x_end2=15)
    issue(1, "SETADCXX", CntSetMask=PAC, x_start=0, x_end2=7)
    issue(0, "PACR", ReadIntfSel=0b0011, OvrdThreadId=1, AddrCntContext=1, AddrMode=0, Last=1)
    want = (fp32[[0, 1], :8] >> 16).astype("<u2").tobytes()
    assert tile.read(OUT, len(want)) == want
    from ttemu.tensix.regs.adc import PACKERS
    assert tile.tensix.adcs.channel(1, PACKERS, 0).Y == 4  # ADDR_MOD_0 advanced thread 1's ADC
    assert tile.tensix.adcs.channel(0, PACKERS, 0).Y == 0


@pytest.mark.parametrize("relu,thr", [(1, 0), (2, 0x3F80), (3, 0x4000)])
def test_relu_with_round10_from_fp32_dst(relu, thr):
    """ReLU with Round_10b_mant from an FP32 Dst (ttsim's Blackhole packer: on the
    rounded value, the threshold a BF16): for values in FP16's range, mode 1 zeroes
    negatives, mode 2 zeroes everything at or below the threshold, mode 3 clamps to it,
    as numpy's float16 of the values says."""
    rng = np.random.default_rng(70 + relu)
    tile, issue = _bh_unit(FP16, FP16, True, PCK_DEST_RD_CTRL_Round_10b_mant=1, STACC_RELU_ApplyRelu=relu,
                           STACC_RELU_ReluThreshold=thr)
    sign = rng.integers(0, 2, (4, 16)).astype(np.uint32) << 31
    man = rng.integers(0, 1 << 23, (4, 16)).astype(np.uint32)
    man = np.where((man & 0x1FFF) == 0x1000, man + 1, man).astype(np.uint32)
    fp32 = sign | (rng.integers(124, 131, (4, 16)).astype(np.uint32) << 23) | man
    dst_write32(tile, fp32)
    tile.tensix.math.undefined[:] = False
    _pack_rows(tile, issue, 4)
    got = np.frombuffer(tile.read(OUT, 128), "<u2").view(np.float16).reshape(4, 16)
    x = fp32.view(np.float32).astype(np.float16)
    t = np.float32(np.array([thr << 16], np.uint32).view(np.float32)[0])
    want = np.where(x <= 0, np.float16(0), x)
    if relu == 2:
        want = np.where(x <= t, np.float16(0), x)
    elif relu == 3:
        want = np.minimum(want, np.float16(t))
    assert np.array_equal(got.view(np.uint16), want.astype(np.float16).view(np.uint16))


# -- firmware/pack_formats built for Blackhole, on edge-case data --------------------------

def _pack_formats_bh(cfg, relu=0, flags=0, old=None):
    """tests/test_pack_formats_ttsim.py's run on a Blackhole tile with the kernel's
    Blackhole ELFs (firmware/build/blackhole/pack_formats)."""
    import test_pack_formats_ttsim as pf
    from ttemu import Tile

    build = pf.ROOT / "firmware" / "build" / "blackhole"
    name = cfg.split(":")
    in_fmt, uout, inter, out = (pf.F[name[k]] for k in (0, 1, 3, 4))
    x = 4 if inter in (0, 4, 8) else 1 if inter == 14 else 2
    tile = Tile("blackhole", record=True)
    tile.load_elf(str(build / "boot" / "brisc.elf"), core="brisc")
    for core in ("trisc0", "trisc1", "trisc2"):
        tile.load_elf(str(build / "pack_formats" / f"{core}.elf"), core=core)
    tile.write(pf.IN, pf.make_input(in_fmt))
    if old is not None:
        tile.write(pf.OUT, old)
    params = [pf.IN, pf.TILE_BYTES[in_fmt] | (pf.TILE_BYTES[out] << 16), pf.OUT, 1,
              in_fmt | (uout << 8) | (int(name[2]) << 16),
              inter | (out << 8) | (int(name[5]) << 16) | (flags << 17) | (x << 24), relu, 0]
    for i, value in enumerate(params):
        tile.write_u32(pf.PARAMS + 4 * i, value)
    tile.release(tile.default_release())
    assert tile.run(max_steps=5_000_000, until=pf.UNTIL, idle_steps=2_000_000).exit_code == 0
    return tile, pf.UNTIL, ("out", pf.OUT, pf.TILE_BYTES[out])


PF_CASES = [
    # (in:unpacker out:to Dst:intermediate:out:32-bit Dst, ReLU, flags: 4 Round_10b_mant, 8 L1 acc)
    ("f32:f32:1:f32:f32:1", 0, 0), ("f32:f32:1:bf16:bf16:1", 0, 0), ("f32:f32:1:f32:fp16:1", 0, 0),
    ("f32:f32:1:f32:bfp8b:1", 0, 0), ("bf16:bf16:0:bfp8b:bfp8b:0", 0, 0), ("fp16:fp16:0:fp16:f32:0", 0, 0),
    ("f32:f32:1:fp16:fp16:1", 0, 4), ("f32:f32:1:fp16:fp16:1", 3 | (0x3F80 << 4), 4),
    ("f32:f32:1:fp16:fp16:1", 2 | (0x7F80 << 4), 4), ("f32:f32:1:bf16:bf16:1", 3 | (0x4120 << 4), 0),
    ("bf16:bf16:0:bf16:bf16:0", 0, 8), ("f32:f32:1:i8:i8:1", 0, 1),
]


@pytest.mark.parametrize("cfg,relu,flags", PF_CASES, ids=[f"{c}-relu{r:#x}-f{f}" for c, r, f in PF_CASES])
def test_pack_formats_kernel_bit_identical_to_ttsim(lib, cfg, relu, flags):
    """The project's pack_formats kernel built for Blackhole, on edge-case inputs
    (NaNs, infinities, denormals, rounding boundaries): the packed tile matches ttsim's
    Blackhole model bit for bit, Blackhole's Round_10b_mant FP16 conversion and its ReLU
    included."""
    import test_pack_formats_ttsim as pf
    old = pf.make_input(pf.F[cfg.split(":")[4]], seed=6) if flags & 8 else None
    tile, until, region = _pack_formats_bh(cfg, relu, flags, old)
    (diff,), _ = cross_check(tile, lib, [region], until=until)
    assert diff.ok, diff.text()


def test_flush_writes_out_the_partial_buffer():
    """PACR Flush (PACR.md, OutputAddressGenerator.md: the output buffer before L1 holds
    datums until 16 bytes are complete; Flush pads it with zeros and writes it): four
    BF16 datums stay buffered after a PACR without Last, a Flush PACR writes them."""
    rng = np.random.default_rng(81)
    tile, issue = _bh_unit(BF16, BF16, False)
    fp32 = _random_dst(tile, rng, False)
    tile.write(OUT, b"\xff" * 32)
    _issue_all(issue, addr_mods() + [("SETADCXX", dict(CntSetMask=PAC, x_start=0, x_end2=3)),
                                     ("PACR", dict(ReadIntfSel=0b0001, AddrMode=0))])
    assert tile.read(OUT, 32) == b"\xff" * 32
    issue(0, "PACR", ReadIntfSel=0b0001, Flush=1)
    want = (fp32[0, :4] >> 16).astype("<u2").tobytes() + bytes(8) + b"\xff" * 16
    assert tile.read(OUT, 32) == want


@pytest.mark.parametrize("fields,error", [
    ({"Flush": 1}, "ERROR: MissingSpecification: tensix_pacr: flush=1"),
    ({"ZeroWrite": 1, "ReadIntfSel": 0b0011}, "ERROR: UnimplementedFunctionality: tensix_pacr: zero_write=1"),
    ({"ReadIntfSel": 0b1111}, "ERROR: UnimplementedFunctionality: tensix_pacr: read_intf_sel=15"),
])
def test_ttsim_refuses_flush_zero_write_and_interface_masks(lib, fields, error):
    """ttsim's Blackhole packer refuses PACR's Flush and ZeroWrite forms and interface
    masks other than 0, 1, 3, 5, 10 (facts about ttsim only); ttemu runs them as the
    pages and assembly.yaml describe (the tests above; 0b1111 is tt-llk's
    ALL_INTF_ACTIVE_ONES)."""
    from ttemu.errors import OracleUnable
    insns = addr_mods() + [("SETADCXX", dict(CntSetMask=PAC, x_start=0, x_end2=15)),
                           ("PACR", dict(AddrMode=0, Last=0 if "Flush" in fields else 1, **fields))]
    tile = bh_prog.run(pack_cfg(BF16, BF16, False), insns)
    with pytest.raises(OracleUnable, match=error):
        cross_check(tile, lib, [("out", OUT, 128)], until=bh_prog.DONE)
