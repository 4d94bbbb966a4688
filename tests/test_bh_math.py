"""Blackhole Matrix Unit, ADDR_MOD / RWCs and ZEROACC (issue 9).

There are no BlackholeA0 pages for these; the Wormhole pages apply (MVMUL.md, ELWADD.md,
MOVA2D.md, RWCs.md, ZEROACC.md ...) with the Blackhole differences tt-llk and ttsim show:
a three-bit AddrMod selecting all eight ADDR_MOD slots (tt-llk tt_llk_blackhole
ckernel_addrmod.h: ADDR_MOD_0..7 written with SETC16 at the cfg_defines.h indices
below; no ADDR_MOD_SET_Base), ZEROACC's Blackhole fields and its Dst-half-relative
16-row mode, and the per-bank implied SrcA format. References: numpy, hand-computed
counter values, and the Blackhole cfg_defines.h indices written out here (independent
of ttemu's generated configuration table).
"""

import numpy as np
import pytest

from tensix_harness import make, warned
from test_unit_math_helpers import bf16_bits, dst_bf16, src_bf16
from ttemu import Unimplemented
from ttemu.tensix.formats import layout as L

RNG = np.random.default_rng(99)

# tt-metal hw/inc/blackhole/cfg_defines.h (ThreadConfig section)
AB_SEC0 = 12  # ADDR_MOD_AB_SEC0_SrcAIncr_ADDR32 (SEC<i> at 12 + i)
DST_SEC0 = 28  # ADDR_MOD_DST_SEC0_DestIncr_ADDR32
BIAS_SEC0 = 47  # ADDR_MOD_BIAS_SEC0_BiasIncr_ADDR32
MATH_OFFSET = 1  # DEST_TARGET_REG_CFG_MATH_Offset_ADDR32
DISABLE_IMPLIED_SRCA = 2  # DISABLE_IMPLIED_SRCA_FMT_Base_ADDR32
FMT_FP16, FMT_BF16 = 1, 5


def src_val(incr=0, clr=0, cr=0):
    """ckernel_addrmod.h addr_mod_src_t::val()."""
    return (incr & 0x3F) | (cr & 1) << 6 | (clr & 1) << 7


def dest_val(incr=0, clr=0, cr=0, c_to_cr=0, fid_incr=0, fid_clr=0):
    """addr_mod_dest_t::val() | addr_mod_fidelity_t::val() << 13."""
    return ((incr & 0x3FF) | (cr & 1) << 10 | (clr & 1) << 11 | (c_to_cr & 1) << 12
            | ((fid_incr & 3) | (fid_clr & 1) << 2) << 13)


def set_addr_mod(issue, slot, srca=0, srcb=0, dest=0, bias=0, thread=0):
    """addr_mod_t::set(slot): three SETC16s."""
    issue(thread, "SETC16", setc16_reg=AB_SEC0 + slot, setc16_value=srca | srcb << 8)
    issue(thread, "SETC16", setc16_reg=DST_SEC0 + slot, setc16_value=dest)
    issue(thread, "SETC16", setc16_reg=BIAS_SEC0 + slot, setc16_value=bias)


def counters(tile, thread=0):
    r = tile.tensix.rwcs[thread]
    return r.SrcA, r.SrcB, r.Dst, r.FidelityPhase


def bh(fmt=FMT_BF16, own=True):
    tile, issue = make("blackhole")
    cop = tile.tensix
    cop.config.set("ALU_FORMAT_SPEC_REG0_SrcA", fmt)
    cop.config.set("ALU_FORMAT_SPEC_REG1_SrcB", fmt)
    if own:
        for w in "AB":
            cop.src.allowed[w][cop.src.math_bank[w]] = "math"
    return tile, issue, cop


# ---------------------------------------------------------------------------------------
# ADDR_MOD slots and RWCs
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("slot", range(8))
def test_three_bit_addr_mode_selects_each_slot(slot):
    """Each of the eight slots, programmed as tt-llk does, is the one a three-bit
    AddrMod of that value applies (the others hold different increments)."""
    tile, issue = make("blackhole")
    for k in range(8):
        set_addr_mod(issue, k, srca=src_val(incr=k + 1), srcb=src_val(incr=2 * k + 1),
                     dest=dest_val(incr=10 * k + 3, fid_incr=k & 3))
    issue(0, "ZEROACC", clear_mode=1, where=0xFF, addr_mode=slot)  # CLR_16 WHERE_NOP: AddrMod only
    assert counters(tile) == (slot + 1, 2 * slot + 1, 10 * slot + 3, slot & 3)


def test_addr_mod_carriage_return_and_clear():
    """RWCs.md ApplyAddrMod: CR adds to the Cr counter and copies it; CToCR moves Dst and
    copies it into Dst_Cr; Clear zeroes both (slot 6, beyond Wormhole's two bits)."""
    tile, issue = make("blackhole")
    r = tile.tensix.rwcs[0]
    r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.Dst, r.Dst_Cr = 20, 4, 9, 9, 100, 40
    set_addr_mod(issue, 6, srca=src_val(incr=8, cr=1), srcb=src_val(incr=5, clr=1),
                 dest=dest_val(incr=16, c_to_cr=1))
    issue(0, "ZEROACC", clear_mode=1, where=0xFF, addr_mode=6)
    assert (r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.Dst, r.Dst_Cr) == (12, 12, 0, 0, 116, 116)
    set_addr_mod(issue, 7, dest=dest_val(incr=8, cr=1))
    issue(0, "ZEROACC", clear_mode=1, where=0xFF, addr_mode=7)
    assert (r.Dst, r.Dst_Cr) == (124, 124)


def test_addr_mod_bias_stops_on_blackhole():
    """A BiasIncr sets ExtraAddrModBit; how it combines with the three-bit AddrMod is
    not documented for Blackhole (ttsim refuses it): the next AddrMod stops the run."""
    tile, issue = make("blackhole")
    set_addr_mod(issue, 2, bias=1)
    issue(0, "ZEROACC", clear_mode=1, where=0xFF, addr_mode=2)
    assert tile.tensix.rwcs[0].ExtraAddrModBit == 1
    with pytest.raises(Unimplemented, match="bias"):
        issue(0, "ZEROACC", clear_mode=1, where=0xFF, addr_mode=0)


def test_legacy_instruction_applies_an_upper_slot():
    """MatrixUnit.md "Legacy instructions" (CONV3S1: Dst += 0, then ApplyAddrMod): on
    Blackhole its three-bit AddrMod reaches slot 5."""
    tile, issue = make("blackhole")
    set_addr_mod(issue, 5, dest=dest_val(incr=3))
    issue(0, "CONV3S1", dst=0, addr_mode=5, rotate_weights=0, clear_dvalid=0)
    assert counters(tile)[2] == 3


def test_setrwc_and_incrwc_on_blackhole_fields():
    """SETRWC.md / INCRWC.md with the Blackhole field packing (BitMask 6 bits wide,
    INCRWC rwc_cr 6 bits wide; the documented bits behave as on Wormhole)."""
    tile, issue = make("blackhole")
    r = tile.tensix.rwcs[0]
    issue(0, "SETRWC", clear_ab_vld=0, rwc_cr=0, rwc_d=12, rwc_b=8, rwc_a=4, BitMask=0b1111)
    assert (r.SrcA, r.SrcB, r.Dst, r.FidelityPhase) == (4, 8, 12, 0)
    issue(0, "INCRWC", rwc_cr=0b100, rwc_d=8, rwc_b=2, rwc_a=1)
    assert (r.SrcA, r.SrcB, r.Dst, r.Dst_Cr) == (5, 10, 20, 20)
    issue(0, "SETRWC", clear_ab_vld=0, rwc_cr=0b100, rwc_d=4, rwc_b=0, rwc_a=0, BitMask=0b100)
    assert (r.Dst, r.Dst_Cr) == (24, 24)


# ---------------------------------------------------------------------------------------
# Matrix Unit arithmetic with Blackhole encodings
# ---------------------------------------------------------------------------------------

def rand_bf16(shape):
    v = RNG.uniform(1.0, 2.0, size=shape).astype(np.float32)
    v = (v.view(np.uint32) & 0xFFFF0000).view(np.float32)
    return v * RNG.choice([-1.0, 1.0], size=shape).astype(np.float32)


def small_ints(shape):
    """Small integers: every product and sum is exact in BF16."""
    return RNG.integers(-4, 5, size=shape).astype(np.float32)


def test_mvmul_on_blackhole_matches_numpy_and_applies_slot_5():
    """MVMUL.md: Dst[8,16] += SrcB[8,16] @ SrcA[16,16]; the Blackhole encoding's
    addr_mode (bits 16:14) = 5 applies ADDR_MOD_5."""
    tile, issue, cop = bh()
    a, b = small_ints((16, 16)), small_ints((8, 16))
    cop.src.math_view("A")[0:16] = src_bf16(a)
    cop.src.math_view("B")[0:8] = src_bf16(b)
    set_addr_mod(issue, 5, srcb=src_val(incr=8), dest=dest_val(incr=8))
    issue(0, "MVMUL", clear_dvalid=0, instr_mod19=0, addr_mode=5, dst=16)
    assert np.array_equal(dst_bf16(cop, 16, 8), b @ a)
    assert counters(tile)[1:3] == (8, 8)


@pytest.mark.parametrize("mnemonic,op", [("ELWADD", np.add), ("ELWSUB", np.subtract), ("ELWMUL", np.multiply)])
def test_elementwise_on_blackhole_match_numpy(mnemonic, op):
    """ELWADD.md / ELWSUB.md / ELWMUL.md on an 8x16 block; ELWMUL accumulates onto Dst,
    ELWADD/ELWSUB with dest_accum_en = 0 overwrite it. AddrMod 4 (Blackhole-only)."""
    tile, issue, cop = bh()
    a, b, d0 = small_ints((8, 16)), small_ints((8, 16)), small_ints((8, 16))
    cop.src.math_view("A")[8:16] = src_bf16(a)
    cop.src.math_view("B")[8:16] = src_bf16(b)
    cop.dst.write16(32, L.dst16_from_bf16(bf16_bits(d0)))
    r = cop.rwcs[0]
    r.SrcA, r.SrcB = 8, 8
    set_addr_mod(issue, 4, srca=src_val(clr=1), srcb=src_val(clr=1), dest=dest_val(incr=8))
    accum = 1 if mnemonic == "ELWMUL" else 0
    issue(0, mnemonic, clear_dvalid=0, dest_accum_en=accum, instr_mod19=0, addr_mode=4, dst=32)
    want = op(a, b) + (d0 if mnemonic == "ELWMUL" else 0)
    assert np.array_equal(dst_bf16(cop, 32, 8), want)
    assert counters(tile)[:3] == (0, 0, 8)


def test_elementwise_flips_src_banks_with_clear_dvalid():
    """clear_dvalid (bits 23:22): both banks go back to the unpackers and the Matrix
    Unit moves to the other bank of each (MVMUL.md "Possibly flip source banks")."""
    tile, issue, cop = bh()
    issue(0, "ELWADD", clear_dvalid=3, dest_accum_en=0, instr_mod19=0, addr_mode=0, dst=0)
    src = cop.src
    assert src.math_bank == {"A": 1, "B": 1}
    assert src.allowed["A"][0] == "unpack" and src.allowed["B"][0] == "unpack"


def test_gmpool_gapool_pool_addr_mode_reaches_upper_slots():
    """GMPOOL / GAPOOL name their AddrMod ``pool_addr_mode`` on Blackhole; slot 7 is
    applied. GAPOOL (GAPOOL.md: MVMUL with NumRows 4) matches numpy."""
    tile, issue, cop = bh()
    a, b = small_ints((16, 16)), small_ints((8, 16))
    cop.src.math_view("A")[0:16] = src_bf16(a)
    cop.src.math_view("B")[0:8] = src_bf16(b)
    set_addr_mod(issue, 7, dest=dest_val(incr=4))
    issue(0, "GAPOOL", clear_dvalid=0, instr_mod19=0, pool_addr_mode=7, max_pool_index_en=0, dst=0)
    assert np.array_equal(dst_bf16(cop, 0, 4), b[:4] @ a)
    assert counters(tile)[2] == 4
    issue(0, "GMPOOL", clear_dvalid=0, instr_mod19=0, pool_addr_mode=7, max_pool_index_en=0, dst=0)
    assert counters(tile)[2] == 8


def test_moves_between_src_and_dst_on_blackhole():
    """MOVA2D.md, MOVD2B.md, MOVB2A.md, MOVB2D.md with Blackhole packing (MOVB2D's mode
    is ``movb2d_instr_mod`` at bits 13:11) and AddrMod slots 4..6."""
    tile, issue, cop = bh()
    vals = rand_bf16((8, 16))
    cop.src.math_view("A")[0:8] = src_bf16(vals)
    set_addr_mod(issue, 4)
    issue(0, "MOVA2D", dest_32b_lo=0, src=0, addr_mode=4, instr_mod=2, dst=64)  # MOV_8_ROWS
    assert np.array_equal(dst_bf16(cop, 64, 8), vals)
    issue(0, "MOVD2B", dest_32b_lo=0, src=4, addr_mode=5, instr_mod=2, dst=64)  # 4 rows Dst -> SrcB
    issue(0, "MOVB2A", srca=20, addr_mode=6, instr_mod=2, srcb=4)  # 4 rows SrcB -> SrcA
    assert np.array_equal(cop.src.math_view("A")[20:24], src_bf16(vals[:4]))
    issue(0, "MOVB2D", dest_32b_lo=0, src=4, addr_mode=4, movb2d_instr_mod=4, dst=128)  # MOV_4_ROWS
    assert np.array_equal(dst_bf16(cop, 128, 4), vals[:4])


def test_trnspsrcb_on_blackhole():
    """TRNSPSRCB.md: rows 16..31 of SrcB transposed."""
    tile, issue, cop = bh()
    m = RNG.integers(0, 1 << 19, size=(16, 16)).astype(np.uint32)
    cop.src.math_view("B")[16:32] = m
    issue(0, "TRNSPSRCB")
    assert np.array_equal(cop.src.math_view("B")[16:32], m.T)


def test_setdvalid_and_cleardvalid_on_blackhole():
    """SETDVALID.md hands the unpackers' banks to the Matrix Unit; CLEARDVALID.md hands
    them back and flips (Blackhole widens both fields; the documented bits apply)."""
    tile, issue, cop = bh(own=False)
    src = cop.src
    issue(0, "SETDVALID", setvalid=3)
    assert src.owned_by("A", "math") and src.owned_by("B", "math")
    issue(1, "CLEARDVALID", cleardvalid=3, reset=0)
    assert src.math_bank == {"A": 1, "B": 1} and src.allowed["A"][0] == "unpack"


def test_implied_srca_format_follows_the_bank():
    """Blackhole's implied SrcA format (ThreadConfig DISABLE_IMPLIED_SRCA_FMT_Base clear):
    MOVA2D reads the bank as the format the unpacker wrote (here FP16, though
    ALU_FORMAT_SPEC_REG0_SrcA says BF16); with the field set, the configured format."""
    tile, issue, cop = bh(fmt=FMT_BF16)
    h = np.array(RNG.uniform(1, 2, size=(8, 16)), dtype=np.float16)
    cop.src.math_view("A")[0:8] = L.src_from_fp16(h.view(np.uint16))
    cop.src.fmt["A"][cop.src.math_bank["A"]] = FMT_FP16
    issue(0, "MOVA2D", dest_32b_lo=0, src=0, addr_mode=0, instr_mod=2, dst=0)
    got = L.dst16_to_fp16(cop.dst.read16(0, 8)).astype(np.uint16).view(np.float16)
    assert np.array_equal(got, h)
    issue(0, "SETC16", setc16_reg=DISABLE_IMPLIED_SRCA, setc16_value=1)
    issue(0, "MOVA2D", dest_32b_lo=0, src=0, addr_mode=0, instr_mod=2, dst=8)
    assert not np.array_equal(cop.dst.read16(8, 8), cop.dst.read16(0, 8))  # read as BF16 now


# ---------------------------------------------------------------------------------------
# ZEROACC
# ---------------------------------------------------------------------------------------

def marked(tile, value=0x1234):
    tile.tensix.dst.bits[:] = value
    tile.tensix.math.undefined[:] = False


def cleared_rows(tile):
    return np.flatnonzero(~tile.tensix.dst.bits.any(axis=1))


def test_zeroacc_one_row_and_16_rows():
    """CLR_SPECIFIC clears Dst row where + offset + RWC.Dst; CLR_16 clears 16 rows."""
    tile, issue = make("blackhole")
    marked(tile)
    issue(0, "SETC16", setc16_reg=MATH_OFFSET, setc16_value=64)
    issue(0, "ZEROACC", clear_mode=0, where=5, addr_mode=0)
    assert list(cleared_rows(tile)) == [69]
    marked(tile)
    issue(0, "SETC16", setc16_reg=MATH_OFFSET, setc16_value=0)
    issue(0, "ZEROACC", clear_mode=1, where=3, addr_mode=0)
    assert list(cleared_rows(tile)) == list(range(48, 64))


@pytest.mark.parametrize("absolute,offset,where,first", [
    (0, 0, 3, 48), (0, 512, 3, 48 + 512), (1, 512, 3, 48), (0, 512 + 64, 0, 512)])
def test_zeroacc_16_rows_is_relative_to_the_dst_half(absolute, offset, where, first):
    """tt-llk global.h DEST_ACCESS_CFG: "the ZEROACC CLR_16 mode ... will be relative to
    the half of dest as selected" by the thread's Dst offset, unless
    zeroacc_absolute_tile_mode is set (ttsim: +32 blocks when the offset has bit 9)."""
    tile, issue = make("blackhole")
    marked(tile)
    tile.tensix.config.set("DEST_ACCESS_CFG_zeroacc_absolute_tile_mode", absolute)
    issue(0, "SETC16", setc16_reg=MATH_OFFSET, setc16_value=offset)
    issue(0, "ZEROACC", clear_mode=1, where=where, addr_mode=0)
    assert list(cleared_rows(tile)) == list(range(first, first + 16))


def test_zeroacc_16_rows_warns_where_silicon_picks_the_other_half():
    """tt-llk llk_math_eltwise_binary.h (measured on p150): offset + block >= 512 clears
    the other half on silicon; ttemu clears what ttsim does, with a warning."""
    tile, issue = make("blackhole")
    marked(tile)
    issue(0, "SETC16", setc16_reg=MATH_OFFSET, setc16_value=496)
    issue(0, "ZEROACC", clear_mode=1, where=31, addr_mode=0)
    assert list(cleared_rows(tile)) == list(range(496, 512))
    assert "tt-metal#53693" in warned(tile, "ZEROACC 16_ROWS half")


def test_zeroacc_32_bit_16_rows():
    """use_32_bit_mode (bit 18) with CLR_16: 16 Dst32b rows (both DstBits halves, Dst.md
    Adj32), in the upper half when the offset has bits 9:8 set."""
    tile, issue = make("blackhole")
    marked(tile)
    issue(0, "ZEROACC", clear_mode=1, use_32_bit_mode=1, where=1, addr_mode=0)
    assert list(cleared_rows(tile)) == list(range(32, 64))
    marked(tile)
    issue(0, "SETC16", setc16_reg=MATH_OFFSET, setc16_value=256)
    issue(0, "ZEROACC", clear_mode=1, use_32_bit_mode=1, where=1, addr_mode=0)
    assert list(cleared_rows(tile)) == list(range(512 + 32, 512 + 64))


def test_zeroacc_clear_zero_flags_keeps_contents_and_defines_rows():
    """tt-llk's Blackhole datacopy after unpacking to Dst: CLR_16 with clear_zero_flags
    clears the rows' zero ("undefined") flags, keeping their contents; no warning."""
    tile, issue = make("blackhole")
    marked(tile)
    math = tile.tensix.math
    issue(0, "ZEROACC", clear_mode=3, where=0, addr_mode=0)  # CLR_ALL: all rows undefined
    tile.tensix.dst.bits[16:32] = 0x5555
    issue(0, "ZEROACC", clear_mode=1, clear_zero_flags=1, where=1, addr_mode=0)
    assert not math.undefined[16:32].any() and math.undefined[:16].all() and math.undefined[32:].all()
    assert (tile.tensix.dst.bits[16:32] == 0x5555).all()
    assert not tile.diagnostics.sites


def test_zeroacc_clear_zero_flags_outside_its_modes_warns():
    tile, issue = make("blackhole")
    issue(0, "ZEROACC", clear_mode=2, clear_zero_flags=1, where=0, addr_mode=0)
    assert "undefined" in warned(tile, "ZEROACC Revert")


@pytest.mark.parametrize("mode,use32,rows", [(3, 0, 1024), (2, 0, 512), (3, 1, 1024)])
def test_zeroacc_half_and_all(mode, use32, rows):
    tile, issue = make("blackhole")
    marked(tile)
    issue(0, "ZEROACC", clear_mode=mode, use_32_bit_mode=use32, where=0, addr_mode=5)
    assert len(cleared_rows(tile)) == rows
    assert counters(tile) == (0, 0, 0, 0)  # no AddrMod in HALF / ALL modes


# ---------------------------------------------------------------------------------------
# The unpack -> Matrix Unit -> pack chain, against numpy and ttsim's Blackhole library
# ---------------------------------------------------------------------------------------
L1A, L1B, OUT = 0x20000, 0x21000, 0x22000


def _unpack_words():
    """tt-llk's Blackhole configure_unpack_AB for one 16x16 BF16 face per unpacker, as raw
    Config words at cfg_defines.h indices (as tests/test_bh_unpack.py configure())."""
    return {
        1: FMT_BF16 << 17 | FMT_BF16 << 21,  # ALU_FORMAT_SPEC_REG0_SrcA, REG1_SrcB
        57: 512, 59: 512,  # UNPn_ADDR_CTRL_ZW_REG_1_Zstride: one face
        56: 32 << 16,  # UNP0_ADDR_CTRL_XY_REG_1_Ystride
        64: FMT_BF16 | 1 << 4, 65: 1 | 1 << 16,  # THCON_SEC0_REG0_TileDescriptor
        112: FMT_BF16 | 1 << 4 | 256 << 16, 113: 1 | 1 << 16,  # THCON_SEC1_REG0_TileDescriptor
        72: FMT_BF16 | 2 << 4, 73: 0xF | 0xF << 16, 120: FMT_BF16 | 2 << 4, 121: 0xF | 0xF << 16,
        84: 64 | 64 << 16, 86: 256 | 256 << 16, 50: 1 << 8,
        76: L1A // 16 - 1, 124: L1B // 16 - 1,  # THCON_SECn_REG3_Base_address
    }


UNPACR = dict(AddrMode=0, CfgContextCntInc=0, CfgContextId=0, AddrCntContextId=0, OvrdThreadId=1, SetDatValid=1,
              srcb_bcast=0, ZeroWrite2=0, AutoIncContextID=0, RowSearch=0, SearchCacheFlush=0, Last=1)


def chain_program(math, extra=()):
    """BRISC: Config words (and ``extra``: {index: value}), then on Tensix thread 0:
    unpack A and B (one face each), ``math`` ((mnemonic, fields) pairs), pack Dst rows
    0..15 (plus the packer's Dst offset) to OUT as BF16."""
    import bh_prog
    from rv32asm import Program, t0, t1, t2
    from test_bh_pack import pack_cfg, pack_tile_insns

    words = dict(_unpack_words())
    for index, value in bh_prog.cfg_words(pack_cfg(FMT_BF16, FMT_BF16, False, dest_addr=OUT)).items():
        words[index] = words.get(index, 0) | value
    words.update(dict(extra))
    insns = [("SETC16", dict(setc16_reg=5, setc16_value=0x4)),  # SRCA_SET_Base: tt-llk's unpack init
             ("SETADCXX", dict(CntSetMask=0b011, x_start=0, x_end2=255)),
             ("UNPACR", dict(UNPACR, Unpack_block_selection=0)),
             ("UNPACR", dict(UNPACR, Unpack_block_selection=1))]
    insns += list(math) + pack_tile_insns(faces=1)
    p = Program(0)
    for index, value in sorted(words.items()):
        p.li(t0, bh_prog.CFG_BASE + 4 * index).li(t1, value).sw(t1, 0, t0)
    p.li(t0, bh_prog.PUSH)
    for m, f in insns:
        p.li(t1, bh_prog.word(m, **f)).sw(t1, 0, t0)
    p.li(t2, 600).label("wait").addi(t2, t2, -1).bne(t2, 0, "wait")
    p.li(t0, bh_prog.FLAG).li(t1, 1).sw(t1, 0, t0)
    p.label("end").j("end")
    return p.assemble()


def run_chain(math, a, b, extra=()):
    from ttemu import Tile

    tile = Tile("blackhole", record=True)
    tile.write(L1A, (bf16_bits(a).astype(np.uint16)).tobytes())
    tile.write(L1B, (bf16_bits(b).astype(np.uint16)).tobytes())
    tile.write(0, chain_program(math, extra))
    tile.release(["brisc"])
    assert tile.run(max_steps=400_000, until=[(0x1F000, 1)]).outcome == "until"
    out = np.frombuffer(bytes(tile.read(OUT, 512)), dtype=np.uint16).astype(np.uint32) << 16
    return tile, out.view(np.float32).reshape(16, 16)


def addr_mod_words(slot, srca=0, srcb=0, dest=0):
    return [("SETC16", dict(setc16_reg=AB_SEC0 + slot, setc16_value=srca | srcb << 8)),
            ("SETC16", dict(setc16_reg=DST_SEC0 + slot, setc16_value=dest))]


def elw_math(mnemonic):
    """Two 8-row ELW* steps over the face (ADDR_MOD_5: SrcA, SrcB, Dst += 8); the second
    hands both banks back (clear_dvalid = 3), as tt-llk's eltwise binary MOP does
    (dest_accum_en 0, as tt-llk emits ELWMUL too: ttsim refuses 1 there; ELWMUL.md's
    model accumulates regardless, onto the zero Dst of reset)."""
    return addr_mod_words(5, src_val(incr=8), src_val(incr=8), dest_val(incr=8)) + [
        (mnemonic, dict(clear_dvalid=cd, dest_accum_en=0, instr_mod19=0, addr_mode=5, dst=0)) for cd in (0, 3)]


def mvmul_math():
    """Dst[16,16] = SrcB[16,16] @ SrcA[16,16] in two MVMULs (ADDR_MOD_6: SrcB, Dst += 8)."""
    return addr_mod_words(6, 0, src_val(incr=8), dest_val(incr=8)) + [
        ("MVMUL", dict(clear_dvalid=cd, instr_mod19=0, addr_mode=6, dst=0)) for cd in (0, 3)]


@pytest.mark.parametrize("mnemonic", ["ELWADD", "ELWSUB", "ELWMUL", "MVMUL"])
def test_chain_matches_numpy(mnemonic):
    """Small integers: every result is exact, so numpy's float32 arithmetic is the
    reference for what reaches L1 through UNPACR, the Matrix Unit and PACR."""
    a, b = small_ints((16, 16)), small_ints((16, 16))
    math = mvmul_math() if mnemonic == "MVMUL" else elw_math(mnemonic)
    tile, out = run_chain(math, a, b)
    want = {"ELWADD": a + b, "ELWSUB": a - b, "ELWMUL": a * b, "MVMUL": b @ a}[mnemonic]
    assert np.array_equal(out, want)


@pytest.mark.parametrize("mnemonic", ["ELWADD", "ELWMUL", "MVMUL"])
def test_chain_bit_identical_to_ttsim(mnemonic):
    """Random BF16 operands (rounding in every result): the packed face is bit-identical
    to ttsim's Blackhole run of the same program."""
    from oracle_lib import require_ttsim
    from ttemu.cmd.oracle import cross_check

    lib = require_ttsim("blackhole")
    a, b = rand_bf16((16, 16)), rand_bf16((16, 16))
    math = mvmul_math() if mnemonic == "MVMUL" else elw_math(mnemonic)
    tile, out = run_chain(math, a, b)
    assert np.isfinite(out).all() and out.any()
    diffs, _ = cross_check(tile, lib, [("out", OUT, 512)], until=[(0x1F000, 1)])
    assert all(d.ok for d in diffs), "\n".join(d.text() for d in diffs)


def moves_math():
    """MOVA2D SrcA rows 0..15 to Dst 0..15 (MOV_8_ROWS twice, ADDR_MOD_4: SrcA, Dst += 8),
    SETRWC back to Dst row 0, ZEROACC CLR_SPECIFIC rows 5 and 9 (as tt-llk's
    one-row face clear), then CLEARDVALID hands both banks back."""
    return addr_mod_words(4, src_val(incr=8), 0, dest_val(incr=8)) + addr_mod_words(3) + [
        ("MOVA2D", dict(dest_32b_lo=0, src=0, addr_mode=4, instr_mod=2, dst=0)),
        ("MOVA2D", dict(dest_32b_lo=0, src=0, addr_mode=4, instr_mod=2, dst=0)),
        ("SETRWC", dict(clear_ab_vld=0, rwc_cr=0, rwc_d=0, rwc_b=0, rwc_a=0, BitMask=0b0101)),
        ("ZEROACC", dict(clear_mode=0, use_32_bit_mode=0, clear_zero_flags=0, addr_mode=3, where=5)),
        ("ZEROACC", dict(clear_mode=0, use_32_bit_mode=0, clear_zero_flags=0, addr_mode=3, where=9)),
        ("CLEARDVALID", dict(cleardvalid=3, reset=0)),
    ]


def test_moves_and_zeroacc_chain_matches_numpy_and_ttsim():
    """MOVA2D.md (BF16 moves exactly), ZEROACC.md ONE_ROW (the rows read back as zero)."""
    a, b = rand_bf16((16, 16)), rand_bf16((16, 16))
    tile, out = run_chain(moves_math(), a, b)
    want = a.copy()
    want[[5, 9]] = 0
    assert np.array_equal(out, want)
    _ttsim_same(tile)


def movb2d_math():
    """MOVB2D MOV_4_ROWS four times (ADDR_MOD_4: SrcB, Dst += 4): SrcB rows 0..15 to Dst."""
    return addr_mod_words(4, 0, src_val(incr=4), dest_val(incr=4)) + [
        ("MOVB2D", dict(dest_32b_lo=0, src=0, addr_mode=4, movb2d_instr_mod=4, dst=0)) for _ in range(4)]


def pool_math(mnemonic):
    """One GMPOOL / GAPOOL (instr_mod19 1, as ttsim requires; AddrMod 7)."""
    return addr_mod_words(7) + [
        (mnemonic, dict(clear_dvalid=3, instr_mod19=1, pool_addr_mode=7, max_pool_index_en=0, dst=0))]


def _ttsim_same(tile):
    from oracle_lib import require_ttsim
    from ttemu.cmd.oracle import cross_check

    lib = require_ttsim("blackhole")
    diffs, _ = cross_check(tile, lib, [("out", OUT, 512)], until=[(0x1F000, 1)])
    assert all(d.ok for d in diffs), "\n".join(d.text() for d in diffs)


@pytest.mark.parametrize("mnemonic", ["MOVB2D", "GMPOOL", "GAPOOL"])
def test_moves_and_pooling_chain_match_numpy_and_ttsim(mnemonic):
    """MOVB2D.md (BF16 moves exactly); GMPOOL.md with SrcB = 1.0 (scale exponent 0) and
    an undefined Dst row (reads as minus infinity): the column max of SrcA in Dst row 0,
    rows 1..3 zero; GAPOOL.md: Dst[4,16] = SrcB[4,16] @ SrcA (small integers, exact)."""
    if mnemonic == "MOVB2D":
        a, b = rand_bf16((16, 16)), rand_bf16((16, 16))
        tile, out = run_chain(movb2d_math(), a, b)
        want = b
    elif mnemonic == "GMPOOL":
        a, b = rand_bf16((16, 16)), np.ones((16, 16), np.float32)
        tile, out = run_chain(pool_math(mnemonic), a, b)
        want = np.zeros((16, 16), np.float32)
        want[0] = a.max(axis=0)
    else:
        a, b = small_ints((16, 16)), np.ones((16, 16), np.float32)
        tile, out = run_chain(pool_math(mnemonic), a, b)
        want = np.zeros((16, 16), np.float32)
        want[:4] = b[:4] @ a
    assert np.array_equal(out, want)
    _ttsim_same(tile)


@pytest.mark.parametrize("absolute", [0, 1])
def test_zeroacc_16_rows_relative_tile_mode_matches_ttsim(absolute):
    """The math thread's Dst offset at 512 (the upper half): MOVA2D writes SrcA to Dst rows
    512..527, then ZEROACC CLR_16 with Imm10 0 clears them when zeroacc_absolute_tile_mode
    is clear (relative to the half the offset selects) and rows 0..15 when it is set; the
    packer (DEST_TARGET_REG_CFG_PACK_SEC0_Offset = 512) reads zeros or SrcA back."""
    a, b = rand_bf16((16, 16)), rand_bf16((16, 16))
    math = [("SETC16", dict(setc16_reg=MATH_OFFSET, setc16_value=512))] + moves_math()[:-3] + [
        ("ZEROACC", dict(clear_mode=1, use_32_bit_mode=0, clear_zero_flags=0, addr_mode=3, where=0)),
        ("CLEARDVALID", dict(cleardvalid=3, reset=0))]
    extra = {220: absolute << 3, 180: 512}  # DEST_ACCESS_CFG, DEST_TARGET_REG_CFG_PACK_SEC0_Offset
    tile, out = run_chain(math, a, b, extra)
    assert np.array_equal(out, a if absolute else np.zeros_like(a))
    _ttsim_same(tile)


# ---------------------------------------------------------------------------------------
# Dst.md (BlackholeA0): Adj16 / Adj32 with DEST_ACCESS_CFG remap_addrs / swizzle_32b
# ---------------------------------------------------------------------------------------
DEST_ACCESS_CFG = 220  # cfg_defines.h: swizzle_32b bit 0, remap_addrs bit 1


def page_adj16(r, remap):
    """Dst.md Adj16, written out bit by bit: bit 3 <- bit 4, bit 4 <- bit 5, bit 5 <- bit 3."""
    if not remap:
        return r
    b3, b4, b5 = (r >> 3) & 1, (r >> 4) & 1, (r >> 5) & 1
    return (r & ~0x38) | b4 << 3 | b5 << 4 | b3 << 5


def page_adj32(r, remap, swizzle):
    r = page_adj16(r, remap)
    if swizzle:  # the page's XORs bit by bit: bit 2 <- bit 3, bit 3 <- bit 4 ^ bit 2, bit 4 kept
        b2, b3, b4 = (r >> 2) & 1, (r >> 3) & 1, (r >> 4) & 1
        r = (r & ~0x0C) | b3 << 2 | (b4 ^ b2) << 3
    return ((r & 0x1F8) << 1) | (r & 0x207)


def test_remap_addrs_moves_matrix_unit_rows_as_adj16():
    """With remap_addrs, ELWADD's logical Dst rows 8..15 (and 40..47) land in DstBits
    Adj16(row); MOVD2A reads them back through the same mapping."""
    tile, issue, cop = bh()
    cop.config.write_word(0, DEST_ACCESS_CFG, 1 << 1)
    a, b = small_ints((8, 16)), small_ints((8, 16))
    cop.src.math_view("A")[0:8] = src_bf16(a)
    cop.src.math_view("B")[0:8] = src_bf16(b)
    for dst in (8, 40):
        issue(0, "ELWADD", clear_dvalid=0, dest_accum_en=0, instr_mod19=0, addr_mode=0, dst=dst)
        rows = [page_adj16(r, 1) for r in range(dst, dst + 8)]
        assert rows != list(range(dst, dst + 8))
        got = L.dst16_to_bf16(cop.dst.bits[rows]).astype(np.uint32) << 16
        assert np.array_equal(got.view(np.float32), a + b)
    issue(0, "MOVD2A", dest_32b_lo=0, src=16, addr_mode=0, instr_mod=2, dst=40)  # 4 rows Dst -> SrcA
    assert np.array_equal(cop.src.math_view("A")[16:20], src_bf16((a + b)[:4]))


@pytest.mark.parametrize("remap,swizzle", [(0, 1), (1, 1), (1, 0)])
def test_swizzle_32b_moves_dst32_rows_as_adj32(remap, swizzle):
    """32-bit Dst: ZEROACC ONE_ROW clears DstBits Adj32(row) and Adj32(row) + 8."""
    tile, issue = make("blackhole")
    marked(tile)
    cop = tile.tensix
    cop.config.set("ALU_ACC_CTRL_Fp32_enabled", 1)
    cop.config.write_word(0, DEST_ACCESS_CFG, remap << 1 | swizzle)
    for row in (5, 12, 29, 300):
        marked(tile)
        issue(0, "ZEROACC", clear_mode=0, where=row, addr_mode=0)
        adj = page_adj32(row, remap, swizzle)
        assert list(cleared_rows(tile)) == [adj, adj + 8], row
