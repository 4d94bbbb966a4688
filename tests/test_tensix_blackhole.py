"""Blackhole Tensix as data (ttemu/arch/blackhole.py): instructions whose fields the
Blackhole table names or packs differently run on the Wormhole implementations through
adapters; the Vector Unit serves only the instructions whose BlackholeA0 page is the
Wormhole page; everything else stops as unimplemented (never an internal error)."""

import numpy as np
import pytest

from tensix_harness import make
from ttemu.errors import Unimplemented


def _dst_marked(tile, value=0x1234):
    tile.tensix.dst.bits[:] = value
    tile.tensix.math.undefined[:] = False


@pytest.mark.parametrize("mode,use32,rows", [(3, 0, 1024), (2, 0, 512), (3, 1, 1024)])
def test_zeroacc_fields_map_onto_wormhole_semantics(mode, use32, rows):
    """ZEROACC on Blackhole: ``where`` is Imm10, ``clear_mode`` the Mode, bit 18
    ``use_32_bit_mode`` UseDst32b (ttsim: clear_mode |= use_32_bit_mode << 2): the same
    rows clear as Wormhole's ZEROACC with clear_mode = UseDst32b << 2 | Mode."""
    bh, issue_bh = make("blackhole")
    wh, issue_wh = make("wormhole_b0")
    for tile in (bh, wh):
        _dst_marked(tile)
    issue_bh(1, "ZEROACC", clear_mode=mode, use_32_bit_mode=use32, where=0)
    issue_wh(1, "ZEROACC", clear_mode=use32 << 2 | mode, dst=0)
    cleared = ~bh.tensix.dst.bits.any(axis=1)
    assert int(cleared.sum()) == rows
    assert np.array_equal(bh.tensix.dst.bits, wh.tensix.dst.bits)


def test_zeroacc_row_modes_apply_the_three_bit_addr_mod():
    """Modes 0 and 1 apply an ADDR_MOD: on Blackhole the AddrMod field names the slot
    itself (three bits, no ADDR_MOD_SET_Base: ttsim's Blackhole ApplyAddrMod)."""
    tile, issue = make("blackhole")
    index, shift, _ = tile.tensix.config.thread_fields["ADDR_MOD_DST_SEC3_DestIncr"]
    tile.tensix.config.thread_set_word(1, index, 4 << shift)
    issue(1, "ZEROACC", clear_mode=1, where=0, addr_mode=3)
    assert tile.tensix.rwcs.rwc[1].Dst == 4


@pytest.mark.parametrize("mnemonic", ["PACR_SETREG", "MOVDBGB2D"])
def test_blackhole_instructions_that_differ_stop_as_unimplemented(mnemonic):
    tile, issue = make("blackhole")
    with pytest.raises(Unimplemented, match=mnemonic):
        issue(0, mnemonic)


def test_shared_vector_unit_instructions_run_on_blackhole():
    """SFPLOADI and SFPCONFIG (pages identical to Wormhole's): what tt-metal's
    Blackhole BRISC does at boot to set the SFPU constant registers."""
    tile, issue = make("blackhole")
    issue(0, "SFPLOADI", lreg_ind=0, instr_mod0=0, imm16=0x3F80)  # SFPLOADI_MOD0_FLOATB: BF16 1.0
    issue(0, "SFPCONFIG", config_dest=11, instr_mod1=0, imm16_math=0)  # LReg[11] = LReg[0] (8 lanes broadcast)
    lregs = tile.tensix.sfpu.lreg
    assert int(lregs[0][0]) == 0x3F800000 and int(lregs[11][0]) == 0x3F800000


def _sign_mag_less(c, d):
    """Independent reference for the pages' SignMagIsSmaller: sign-magnitude values as
    Python integers (-0 below +0, as FP32's total order has it)."""
    def val(x):
        x = int(x)
        mag = x & 0x7FFFFFFF
        return (-mag - 1) if x >> 31 else mag  # -0 -> -1, so -0 < +0
    return np.array([val(a) < val(b) for a, b in zip(c, d)])


_CMP_VALUES = np.array([0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000,
                        0x7FC00000, 0xFFC00000, 0x00000001, 0x80000001, 0x7FFFFFFF, 0xFFFFFFFF,
                        0x40000000, 0xC0000000, 0x12345678, 0x92345678], dtype=np.uint32)


def _cmp_tile(vd_vals, vc_vals):
    tile, issue = make("blackhole")
    sfpu = tile.tensix.sfpu
    sfpu.lreg[1][:] = vd_vals
    sfpu.lreg[2][:] = vc_vals
    return tile, issue, sfpu


@pytest.mark.parametrize("mnemonic", ["SFPGT", "SFPLE"])
def test_sfpgt_sfple_set_vd_and_lane_flags(mnemonic):
    """SFPGT.md / SFPLE.md (BlackholeA0): Mod1 SET_VD | SET_CC writes -1/0 to VD and
    LaneFlags = VD > VC (VD <= VC) in the sign-magnitude / FP32 total order."""
    rng = np.random.default_rng(9)
    vd = np.concatenate([_CMP_VALUES, rng.choice(_CMP_VALUES, 16)]).astype(np.uint32)
    vc = np.concatenate([_CMP_VALUES[::-1], rng.choice(_CMP_VALUES, 16)]).astype(np.uint32)
    vc[-1] = vd[-1]  # equal operands: GT false, LE true
    tile, issue, sfpu = _cmp_tile(vd, vc)
    issue(0, mnemonic, lreg_dest=1, lreg_c=2, instr_mod1=8 | 1, imm12_math=0)
    gt = _sign_mag_less(vc, vd)
    want = gt if mnemonic == "SFPGT" else ~gt
    assert np.array_equal(sfpu.lreg[1], np.where(want, 0xFFFFFFFF, 0).astype(np.uint32))
    assert np.array_equal(sfpu.flags, want)
    assert not want.all() and want.any()


def test_sfpgt_respects_lane_enable_and_mutates_stack_top():
    """Disabled lanes keep VD and LaneFlags; MUTATE_STACK ANDs (MUTATE_OR: ORs) the
    comparison into the top of the flag stack, in every lane."""
    vd = np.tile(np.array([0x3F800000, 0xBF800000], dtype=np.uint32), 16)  # 1.0, -1.0
    vc = np.zeros(32, dtype=np.uint32)  # +0.0: GT true in even lanes
    tile, issue, sfpu = _cmp_tile(vd, vc)
    sfpu.use_flags[:] = True
    sfpu.flags[:] = np.arange(32) < 16  # lanes 16.. disabled
    sfpu.stack_size[:] = 1
    sfpu.stack_flags[0, :] = True
    issue(0, "SFPGT", lreg_dest=1, lreg_c=2, instr_mod1=8 | 2, imm12_math=0)
    gt = np.arange(32) % 2 == 0
    en = np.arange(32) < 16
    assert np.array_equal(sfpu.lreg[1], np.where(en, np.where(gt, 0xFFFFFFFF, 0), vd).astype(np.uint32))
    assert np.array_equal(sfpu.stack_flags[0], gt)  # AND into the top, regardless of lane enable
    assert np.array_equal(sfpu.flags, en)  # SET_CC not given: flags untouched
    sfpu.stack_flags[0, :] = False
    sfpu.lreg[1][:] = vd
    issue(0, "SFPLE", lreg_dest=1, lreg_c=2, instr_mod1=4 | 2, imm12_math=0)  # OR, no SET_VD
    assert np.array_equal(sfpu.stack_flags[0], ~gt)
    assert np.array_equal(sfpu.lreg[1], vd)
