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
from oracle_lib import ttsim_lib
from tensix_harness import make
from ttemu.arch.tables.blackhole_cfg import THREAD_CFG
from ttemu.cmd.oracle import cross_check
from ttemu.errors import Unimplemented

PAC = 0b100  # CntSetMask: the packers' ADCs
FP32, FP16, BF16 = 0, 1, 5
OUT = 0x20000


@pytest.fixture(scope="module")
def lib():
    path, why = ttsim_lib("blackhole")
    if path is None:
        pytest.skip(why)
    return path


def pack_cfg(in_fmt, out_fmt, dst32, dest_addr=OUT, **extra):
    """The Config tt-llk's Blackhole configure_pack writes for a tile (the fields the
    packer reads): formats, Read_32b_data, no compression, strides of the Dst format,
    one read per xy plane, an all-ones edge mask; L1_Dest_addr as
    program_packer_destination writes it (bit 31 set, 16-byte units, minus one)."""
    bpd = 4 if in_fmt == FP32 else 2  # set_packer_strides: the datum size of In_data_format
    cfg = {
        "THCON_SEC0_REG1_Exp_section_size": 4,
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


@pytest.mark.parametrize("field,value", [("CtxtCtrl", 1), ("CfgContext", 1), ("RowPadZero", 1),
                                         ("DstAccessMode", 1)])
def test_undescribed_pacr_fields_stop_as_unimplemented(field, value):
    tile, issue = _bh_unit(BF16, BF16, False)
    with pytest.raises(Unimplemented, match=field):
        issue(0, "PACR", **{field: value})


# -- ttsim (Blackhole) -------------------------------------------------------------------

def _l1_pattern(rng, n):
    return rng.integers(0, 256, n, dtype=np.uint8).tobytes()


@pytest.mark.parametrize("dst32,in_fmt,out_fmt", [(False, BF16, BF16), (True, FP32, FP32)])
def test_zero_tile_pack_bit_identical_to_ttsim(lib, dst32, in_fmt, out_fmt):
    """ZEROACC then a tile packed as tt-llk's Blackhole pack MOP does, over an L1
    pattern: the bytes written (and those left alone) match ttsim's."""
    nbytes = 1024 * (4 if out_fmt == FP32 else 2)
    rng = np.random.default_rng(3)
    insns = [("ZEROACC", dict(clear_mode=3, use_32_bit_mode=int(dst32)))] + pack_tile_insns()
    tile = bh_prog.run(pack_cfg(in_fmt, out_fmt, dst32), insns, l1={OUT - 64: _l1_pattern(rng, nbytes + 128)})
    diffs, res = cross_check(tile, lib, [("out", OUT - 64, nbytes + 128)], until=bh_prog.DONE)
    assert diffs[0].ok, diffs[0].text()
    assert not any(tile.read(OUT, nbytes)) and any(tile.read(OUT + nbytes, 64))


@pytest.mark.parametrize("out_fmt", [BF16, FP32])
def test_l1_accumulation_of_zeros_bit_identical_to_ttsim(lib, out_fmt):
    """Pack_L1_Acc: L1 += the packed zeros, over random L1 bit patterns (denormals,
    infinities, NaNs among them): the accumulated bytes match ttsim's, and numpy's
    model of the lanes (a denormal or -0 plus +0 is +0, a NaN in L1 becomes an
    infinity for BF16 and 0x7fc00000 for FP32)."""
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
    else:
        a = np.frombuffer(bytes(pattern), "<u2").astype(np.uint32)
        mag = a & 0x7FFF
        want = np.where(mag > 0x7F80, (a & 0x8000) | 0x7F80, np.where(mag < 0x80, 0, a))
        assert np.array_equal(np.frombuffer(got, "<u2"), want.astype(np.uint16))
