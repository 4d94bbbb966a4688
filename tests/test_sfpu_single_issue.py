"""The Vector Unit's one-at-a-time issue path (sfpu/macro.py issue_word) for the
conditional-execution instructions and the lane enables every instruction consults,
against the pages' functional models written out here lane by lane: SFPSETCC.md,
SFPENCC.md, VectorUnit.md (``IsLaneEnabled``: LaneConfig's ROW_MASK of the lane's
column, then LaneFlags where UseLaneFlagsForLaneEnable), SFPCONFIG.md
(DISABLE_BACKDOOR_LOAD gating VD >= 12). Hypothesis draws LReg contents with special
values (tests/sfpu_streams.py), partial and full lane flags and enables, row masks and
the backdoor bit per column, every Mod1 / Imm / VD; words go through the frontend of a
Wormhole or Blackhole tile, one after the other; SFPSTORE / SFPLOAD of BF16 and FP32
follow with the lane masks left (partial ones), their fast forms against the general
ones (loadstore.py)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import sfpu_streams as SS
from ttemu import Tile
from ttemu.isa.table import get_table

ARCHES = ("wormhole_b0", "blackhole")
DISABLE_BACKDOOR_LOAD = 1 << 1


def _bools(draw, label):
    kind = draw(st.sampled_from(["none", "all", "random"]), label=label)
    if kind == "none":
        return np.zeros(32, dtype=bool)
    if kind == "all":
        return np.ones(32, dtype=bool)
    return np.array(draw(st.lists(st.booleans(), min_size=32, max_size=32), label=label + " lanes"))


def _enabled(lane_config, use, flags):
    """IsLaneEnabled (VectorUnit.md), lane by lane."""
    out = np.zeros(32, dtype=bool)
    for lane in range(32):
        row_mask = (int(lane_config[lane & 7]) >> 12) & 0xF
        out[lane] = not (row_mask >> (lane >> 3)) & 1 and (not use[lane] or flags[lane])
    return out


def _gate(lane_config, vd):
    """VD < 12, or the lane's DISABLE_BACKDOOR_LOAD (SFPCONFIG.md)."""
    return np.array([vd < 12 or bool(int(lane_config[lane]) & DISABLE_BACKDOOR_LOAD) for lane in range(32)])


@st.composite
def _program(draw):
    steps = []
    for _ in range(draw(st.integers(1, 6), label="steps")):
        if draw(st.booleans(), label="setcc?"):
            steps.append(("SFPSETCC", draw(st.integers(0, 15), label="vc"), draw(st.integers(0, 15), label="mod"),
                          draw(st.integers(0, 1), label="imm"), draw(st.integers(0, 15), label="vd")))
        else:
            steps.append(("SFPENCC", 0, draw(st.integers(0, 15), label="mod"), draw(st.integers(0, 3), label="imm"),
                          draw(st.integers(0, 15), label="vd")))
    return steps


@settings(max_examples=120, deadline=None)
@given(arch=st.sampled_from(ARCHES), seed=st.integers(0, 2**32 - 1), data=st.data(), program=_program())
def test_conditional_execution_one_at_a_time_matches_the_pages(arch, seed, data, program):
    rng = np.random.default_rng(seed)
    lreg = SS.mix32(rng, (8, 32))
    raw = rng.integers(0, 1 << 16, (1024, 16)).astype(np.uint16)
    lane_config = np.zeros(32, dtype=np.uint32)
    if data.draw(st.booleans(), label="row masks"):
        lane_config[:8] |= (rng.integers(0, 16, 8).astype(np.uint32) << 12)
    if data.draw(st.booleans(), label="backdoor bits"):
        lane_config |= (rng.random(32) < 0.5).astype(np.uint32) * DISABLE_BACKDOOR_LOAD
    use0, flags0 = _bools(data.draw, "use"), _bools(data.draw, "flags")
    table = get_table(arch)
    ends = []
    for fast in (True, False):  # the fast SFPLOAD / SFPSTORE forms, then the general ones
        tile = Tile(arch)
        cop = tile.tensix
        cop.dst.bits[...] = raw
        u = cop.sfpu
        u.ls_fast = fast
        u.lreg[:8] = lreg
        u.lane_config[:] = lane_config
        use, flags = use0.copy(), flags0.copy()
        u.use_flags[:] = use
        u.flags[:] = flags
        t = cop.threads[1]
        for mnemonic, vc, mod, imm, vd in program:
            fields = dict(instr_mod1=mod, lreg_dest=vd, lreg_c=vc if mnemonic == "SFPSETCC" else 0, imm12_math=imm)
            assert t.push(table.encode(mnemonic, **fields), "test", after_mop=False)
            cop.kick()
            g = _gate(lane_config, vd)
            if mnemonic == "SFPSETCC":  # SFPSETCC.md
                en = g & _enabled(lane_config, use, flags)
                c = u.lreg[vc].view(np.int32)
                for lane in np.flatnonzero(en):
                    if mod & 8:
                        f = False
                    elif mod & 1:
                        f = bool(imm & 1)
                    else:
                        f = {0: c[lane] < 0, 2: c[lane] != 0, 4: c[lane] >= 0, 6: c[lane] == 0}[mod]
                    flags[lane] = f and use[lane]
            else:  # SFPENCC.md (the immediate read, as x_SFPENCC says)
                for lane in np.flatnonzero(g):
                    if mod & 2:
                        use[lane] = bool(imm & 1)
                    elif mod & 1:
                        use[lane] = not use[lane]
                    flags[lane] = bool(imm & 2) if mod & 8 else True
            np.testing.assert_array_equal(u.flags, flags, err_msg=f"{mnemonic} mod {mod} imm {imm} vd {vd}")
            np.testing.assert_array_equal(u.use_flags, use)
            np.testing.assert_array_equal(u.lane_enabled(), _enabled(lane_config, use, flags))
        # SFPSTORE then SFPLOAD of BF16 and of FP32 with these enables (partial lane masks)
        for mod0, addr in ((2, 8), (3, 20)):
            for word in (table.encode("SFPSTORE", lreg_ind=3, instr_mod0=mod0, sfpu_addr_mode=0, dest_reg_addr=addr),
                         table.encode("SFPLOAD", lreg_ind=5, instr_mod0=mod0, sfpu_addr_mode=0, dest_reg_addr=addr)):
                assert t.push(word, "test", after_mop=False)
                cop.kick()
        ends.append((cop.dst.bits.copy(), u.lreg.copy()))
    np.testing.assert_array_equal(ends[0][0], ends[1][0])
    np.testing.assert_array_equal(ends[0][1], ends[1][1])
