"""The packer's kept configuration (ttemu/tensix/units/pack.py _Plan, a Config derived
value, and the AddrMod fields kept per ThreadConfig): after any writes, what PACR uses
equals what it would read afresh."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ttemu import Tile
from ttemu.errors import GuestFault, UndefinedBehaviour, Unimplemented
from ttemu.tensix.units.pack import _ADDR_MOD_PACK_NAMES, _Plan

_SLOTS = [s for s in _Plan.__slots__ if s != "fast"]


def _plan_of(pack, g, i):
    nm = pack._fields_of(i)
    spec = pack.cop.arch.packers
    return g.__self__.derived(("pack_plan", i), nm.plan_names, lambda: _Plan(g, nm, spec, i))


def _setup(arch, i):
    """A tile whose packer ``i`` has a fast form: BF16, no compression, no edge mask; ->
    (tile, pack, cfg, fields of packer i, every Config field a PACR may read)."""
    tile = Tile(arch)
    pack = tile.tensix.pack
    cfg = tile.tensix.config
    nm = pack._fields_of(i)
    for b in (0, 1):
        for name, value in ((nm.In_data_format, 5), (nm.Out_data_format, 5), (nm.Disable_zero_compress, 1),
                            ("ALU_FORMAT_SPEC_REG2_Dstacc", 5)) + tuple((f"PCK_EDGE_OFFSET_SEC{c}_mask", 0xFFFF)
                                                                         for c in range(4)):
            cfg.set(name, value, b)
    section = pack.cop.arch.packers.sections[i]
    prefixes = (section, "PCK0_ADDR_", "PCK_DEST_RD_CTRL_", "ALU_FORMAT_SPEC_REG", "STACC_RELU_", "PCK_EDGE_",
                "TILE_ROW_SET_MAPPING_", f"DEST_TARGET_REG_CFG_PACK_SEC{i}_", f"PACK_COUNTERS_SEC{i}_",
                "THCON_SEC0_REG1_All_pack", "THCON_SEC0_REG9_Pack", "THCON_SEC1_REG9_Pack")
    return tile, pack, cfg, nm, sorted(n for n in cfg.fields if n.startswith(prefixes))


@pytest.mark.parametrize("arch", ["wormhole_b0", "blackhole"])
def test_a_write_to_any_field_a_pacr_reads_is_seen(arch):
    """Each field, written alone (to 1, then to all ones) after the plan and its span
    choice were kept: the kept plan and choice equal fresh ones."""
    for i in range(len(Tile(arch).tensix.arch.packers.sections)):
        tile, pack, cfg, nm, names = _setup(arch, i)
        g = cfg.values[0].__getitem__
        for name in names:
            old = cfg.get(name, 0)
            for value in (1, (1 << cfg.fields[name][2]) - 1):
                plan = _plan_of(pack, g, i)
                plan.fast = pack._span_choice(i, g, plan.in_code, plan.out_fmt, "test")
                cfg.set(name, value, 0)
                try:
                    fresh = _Plan(g, nm, pack.cop.arch.packers, i)
                    want = pack._span_choice(i, g, fresh.in_code, fresh.out_fmt, "test")
                except (GuestFault, UndefinedBehaviour, Unimplemented):
                    want = None  # what PACR itself stops at
                if want is not None:
                    kept = _plan_of(pack, g, i)
                    assert [getattr(kept, s) for s in _SLOTS] == [getattr(fresh, s) for s in _SLOTS], name
                    assert kept.fast is None or kept.fast == want, name
                cfg.set(name, old, 0)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["wormhole_b0", "blackhole"]), st.integers(0, 3), st.integers(0, 1), st.data())
def test_kept_plan_equals_a_fresh_one_after_any_writes(arch, i, bank, data):
    """Writes to the plan's own fields, to L1_Dest_addr / Offset (read by each PACR) and
    to the other bank: the kept plan (and its span choice) equals one made afresh."""
    tile = Tile(arch)
    pack = tile.tensix.pack
    cfg = tile.tensix.config
    n_packers = len(pack.cop.arch.packers.sections)
    i %= n_packers
    nm = pack._fields_of(i)
    section = pack.cop.arch.packers.sections[i]
    prefixes = (section, "PCK0_ADDR_", "PCK_DEST_RD_CTRL_", "ALU_FORMAT_SPEC_REG", "STACC_RELU_", "PCK_EDGE_",
                "TILE_ROW_SET_MAPPING_", f"DEST_TARGET_REG_CFG_PACK_SEC{i}_", f"PACK_COUNTERS_SEC{i}_",
                "THCON_SEC0_REG1_All_pack", "THCON_SEC0_REG9_Pack", "THCON_SEC1_REG9_Pack")
    names = sorted(n for n in cfg.fields if n.startswith(prefixes))  # every field a PACR may read
    g = cfg.values[bank].__getitem__
    for b in (0, 1):  # a configuration with a fast form to start from: BF16, no compression, no edge mask
        for name, value in ((nm.In_data_format, 5), (nm.Out_data_format, 5), (nm.Disable_zero_compress, 1),
                            ("ALU_FORMAT_SPEC_REG2_Dstacc", 5)) + tuple((f"PCK_EDGE_OFFSET_SEC{c}_mask", 0xFFFF)
                                                                         for c in range(4)):
            cfg.set(name, value, b)
    assert pack._span_choice(i, g, 5, _Plan(g, nm, pack.cop.arch.packers, i).out_fmt, "test")
    steps = data.draw(st.lists(st.tuples(st.sampled_from(names), st.integers(0, 2**32 - 1) | st.integers(0, 3),
                                         st.booleans()), min_size=1, max_size=25))
    for name, value, other in steps:
        try:
            plan = _plan_of(pack, g, i)
        except Unimplemented:  # a field the arch lacks (what PACR itself stops at): nothing kept
            assert ("pack_plan", i) not in cfg.values[bank]
            return
        if plan.fast is None:
            try:
                plan.fast = pack._span_choice(i, g, plan.in_code, plan.out_fmt, "test")
            except (GuestFault, UndefinedBehaviour, Unimplemented):
                pass
        width = cfg.fields[name][2]
        cfg.set(name, value & ((1 << width) - 1), 1 - bank if other else bank)
        try:
            fresh = _Plan(g, nm, pack.cop.arch.packers, i)
        except Unimplemented:
            with pytest.raises(Unimplemented):
                _plan_of(pack, g, i)
            return
        kept = _plan_of(pack, g, i)
        assert [getattr(kept, s) for s in _SLOTS] == [getattr(fresh, s) for s in _SLOTS], name
        if kept.fast is not None:
            assert kept.fast == pack._span_choice(i, g, fresh.in_code, fresh.out_fmt, "test"), name


@pytest.mark.parametrize("slot", range(4))
def test_kept_addr_mods_follow_setc16(slot):
    """The AddrMod fields _advance_adcs keeps per ThreadConfig change with a SETC16."""
    tile = Tile("wormhole_b0")
    cop = tile.tensix
    cfg = cop.config
    tv = cfg.thread_values[0]
    names = _ADDR_MOD_PACK_NAMES[slot][0]
    cop.pack._advance_adcs(0, slot, {0})
    y0 = cop.adcs.channel(0, 2, 0).Y
    index, shift, width = cfg.thread_fields[names[2]]  # YIncr
    cfg.thread_set_word(0, index, (int(cfg.thread_cfg[0, index]) & ~(((1 << width) - 1) << shift)) | (3 << shift))
    assert tv[names[2]] == 3
    cop.pack._advance_adcs(0, slot, {0})
    assert cop.adcs.channel(0, 2, 0).Y == y0 + 3
