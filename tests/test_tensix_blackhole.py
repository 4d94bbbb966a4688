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


def test_zeroacc_row_modes_need_blackhole_address_modifiers():
    """Modes 0 and 1 apply an ADDR_MOD, whose Blackhole configuration layout the
    Wormhole implementation does not know: the run stops, naming the field."""
    tile, issue = make("blackhole")
    with pytest.raises(Unimplemented, match="ADDR_MOD"):
        issue(1, "ZEROACC", clear_mode=1, where=0)


def test_zeroacc_clear_zero_flags_is_not_modelled():
    tile, issue = make("blackhole")
    with pytest.raises(Unimplemented, match="clear_zero_flags"):
        issue(1, "ZEROACC", clear_mode=1, use_32_bit_mode=1, clear_zero_flags=1)


@pytest.mark.parametrize("mnemonic", ["PACR", "UNPACR", "SFPLOAD", "SFPMAD", "STREAMWAIT"])
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
