"""The MAD instructions' specialised runners (sfpu/hazards.py ``_hz_mad_runner`` with
sfpu/mad.py ``mad_compute``) against the general path they replace (``_hz_run_mad``'s
rule record, then the arch's executor ``x_<MNEMONIC>`` / ``bh_<MNEMONIC>``), on
Wormhole and Blackhole, for SFPMAD, SFPADD, SFPMUL, SFPADDI and SFPMULI: every Mod1
(negations, indirect operands), every operand and destination LReg, immediates,
SFPLOADMACRO-scheduled or not (with a VC of its own for SFPADDI / SFPMULI), LRegs mixing random values with NaN, Inf,
denormals and signed zeros, lanes disabled by LaneConfig row masks and by lane flags;
the LRegs and the recorded rules (with the stale values) must match bit for bit.
hypothesis draws the cases."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ttemu import Tile
from ttemu.tensix.units.sfpu.insn import Insn

U32 = np.uint32
SPECIAL = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 1, 0x807FFFFF, 0x00800000,
                    0x3F800000, 0xBF800000, 0x7F7FFFFF, 0x33800000], dtype=U32)
_UNITS = {}


def _units(arch):
    """Two Vector Units of ``arch`` (one tile each): general path, runners."""
    if arch not in _UNITS:
        _UNITS[arch] = (Tile(arch).tensix.sfpu, Tile(arch).tensix.sfpu)
    return _UNITS[arch]


def _state(rng, masked: int):
    lreg = ((rng.integers(0, 1 << 23, (17, 32)) | (rng.integers(90, 160, (17, 32)) << 23)
             | (rng.integers(0, 2, (17, 32)) << 31)).astype(U32))
    pick = rng.random((17, 32)) < 0.1
    lreg[pick] = rng.choice(SPECIAL, int(pick.sum()))
    lreg[7] = rng.integers(0, 16, 32).astype(U32) if rng.random() < 0.5 else lreg[7]
    lane_config = np.zeros(32, dtype=U32)
    use = flags = np.zeros(32, dtype=bool)
    if masked & 1:  # ROW_MASK (LaneConfig bits 12..15 of lanes 0..7) disables rows of lanes
        lane_config[:8] = rng.integers(0, 16, 8).astype(U32) << 12
    if masked & 2:  # UseLaneFlagsForLaneEnable with some flags clear
        use, flags = rng.random(32) < 0.7, rng.random(32) < 0.5
    return lreg, lane_config, use, flags


def _load(u, state):
    lreg, lane_config, use, flags = state
    u.reset()
    u.lreg[...] = lreg
    u.lane_config[...] = lane_config
    u.use_flags, u.flags = use.copy(), flags.copy()


def _rules(u):
    return {c: [(r.kind, r.producer, r.regs, r.page, {k: v.tolist() for k, v in (r.old or {}).items()})
                for r in rules] for c, rules in u.hz_rules.items()}


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), arch=st.sampled_from(["wormhole_b0", "blackhole"]),
       mnemonic=st.sampled_from(["SFPMAD", "SFPADD", "SFPMUL", "SFPADDI", "SFPMULI"]), mod=st.integers(0, 15),
       regs=st.tuples(*[st.integers(0, 15)] * 4), macro=st.booleans(), masked=st.integers(0, 3),
       imm=st.sampled_from([0x3F80, 0xBF80, 0x4B40, 0x0000, 0x8000, 0x0040, 0x7F80, 0x7FC0, 0x3E2A]))
def test_runner_matches_general_path(seed, arch, mnemonic, mod, regs, macro, masked, imm):
    _check(seed, arch, mnemonic, mod, regs, macro, masked, imm)


def test_runner_matches_general_path_every_mode():
    """Every Mod1 of every instruction on both arches, once each (hypothesis above mixes
    the rest)."""
    for arch in ("wormhole_b0", "blackhole"):
        for mnemonic in ("SFPMAD", "SFPADD", "SFPMUL", "SFPADDI", "SFPMULI"):
            for mod in range(16):
                _check(mod, arch, mnemonic, mod, (mod & 7, 2, 3, 1 + (mod & 3)), bool(mod & 1), mod & 3, 0xBF80)


def _check(seed, arch, mnemonic, mod, regs, macro, masked, imm):
    rng = np.random.default_rng(seed)
    general, fast = _units(arch)
    va, vb, vc, vd = regs
    if mnemonic in ("SFPADDI", "SFPMULI"):  # (VC = VD, unless SFPLOADMACRO supplied VC)
        fields = dict(instr_mod1=mod, lreg_dest=vd, imm16_math=imm)
    else:
        fields = dict(instr_mod1=mod, lreg_dest=vd, lreg_src_c=vc, lreg_src_b=vb, lreg_src_a=va)
    ins = Insn(mnemonic, fields, 0)
    if macro and mnemonic in ("SFPADDI", "SFPMULI") and rng.random() < 0.5:
        ins.vc = vc
    ins.macro = macro
    states = [_state(rng, masked) for _ in range(3)]
    for u in (general, fast):
        _load(u, states[0])
        if u is general:
            u.hz_runners[ins] = False  # no runner: the general path
        u._hz_run_mad(ins, 10)  # (the first run of an Insn builds no runner)
        for cycle, (lreg, lane_config, use, flags) in zip((12, 14), states[1:]):  # other operands and lanes
            u.lreg[:8] = lreg[:8]
            u.lane_config[...] = lane_config
            u.use_flags, u.flags = use.copy(), flags.copy()
            u._hz_run_mad(ins, cycle)
    np.testing.assert_array_equal(fast.lreg, general.lreg)
    assert _rules(fast) == _rules(general)
    specialised = mod & (8 if mnemonic in ("SFPADDI", "SFPMULI") else 12) == 0 and vd < 8 and not macro
    assert bool(fast.hz_runners[ins]) == specialised


def test_runner_is_used_and_follows_a_replaced_lreg():
    """The stream's case takes the runner from its second run on; an ``lreg`` array
    replaced behind its back sends the instruction down the general path (same result,
    in the new array); an Insn SFPLOADMACRO scheduled (a new one each time) gets none."""
    for arch in ("wormhole_b0", "blackhole"):
        u = Tile(arch).tensix.sfpu
        ins = Insn("SFPMAD", dict(instr_mod1=0, lreg_dest=1, lreg_src_c=3, lreg_src_b=2, lreg_src_a=0), 0)
        u.lreg[0], u.lreg[2], u.lreg[3] = 0x40000000, 0x40400000, 0x3F800000  # 2 * 3 + 1
        u._hz_run_mad(ins, 8)
        assert u.hz_runners[ins] == 0  # run once: no runner yet
        u._hz_run_mad(ins, 10)
        assert callable(u.hz_runners[ins]) and u.lreg[1, 5] == 0x40E00000
        u.lreg = u.lreg.copy()
        u.lreg[3] = 0x40000000
        u._hz_run_mad(ins, 12)
        assert (u.lreg[1] == 0x41000000).all()
        assert u.hz_rules[12][0].old[1][0] == 0x40E00000
        sched = Insn("SFPMAD", dict(instr_mod1=0, lreg_dest=1, lreg_src_c=3, lreg_src_b=2, lreg_src_a=0), 0)
        sched.macro = True
        for cycle in (20, 22):
            u._hz_run_mad(sched, cycle)
        assert u.hz_runners[sched] is False
        indirect = Insn("SFPMAD", dict(instr_mod1=8, lreg_dest=1, lreg_src_c=3, lreg_src_b=2, lreg_src_a=0), 0)
        built = []
        u._hz_mad_runner = lambda ins, build=u._hz_mad_runner: built.append(ins) or build(ins)
        for cycle in (30, 32, 34, 36):  # no runner for INDIRECT_VD: asked for once, on the second run
            u._hz_run_mad(indirect, cycle)
        assert u.hz_runners[indirect] is False and built == [indirect]


def test_issue_path_calls_the_runner_itself_and_matches_the_general_path():
    """A thread-issued SFPMAD reaches its runner straight from MacroOps.issue_word (kept
    on the Insn as ``fast`` once built); the LRegs and rules match a tile whose MAD
    instructions take the general path, also after ``lreg`` is replaced (the runner then
    declines and the general path runs)."""
    from ttemu.isa.table import get_table
    for arch in ("wormhole_b0", "blackhole"):
        table = get_table(arch)
        mad = table.encode("SFPMAD", lreg_src_a=0, lreg_src_b=2, lreg_src_c=3, lreg_dest=1, instr_mod1=0)
        nop = table.encode("SFPNOP")
        rng = np.random.default_rng(5)
        tiles = [Tile(arch), Tile(arch)]
        tiles[1].tensix.sfpu._hz_mad_runner = lambda ins: None  # the general path only
        for step in range(8):
            values = _state(rng, 0)[0]
            for tile in tiles:
                u = tile.tensix.sfpu
                if step == 5:
                    u.lreg = u.lreg.copy()
                u.lreg[[0, 2, 3]] = values[[0, 2, 3]]
                for w in (mad, nop):
                    tile.tensix.threads[0].push(w, "test", after_mop=True)
                    tile.tensix.kick()
            fast, general = (tile.tensix.sfpu for tile in tiles)
            np.testing.assert_array_equal(fast.lreg, general.lreg)
            assert repr(_rules(fast)) == repr(_rules(general))  # (each tile's Insn: compared as text)
        (ins, runner), = [(i, r) for i, r in fast.hz_runners.items() if i.mnemonic == "SFPMAD"]
        assert callable(runner) and ins.fast is runner
        (ins, runner), = [(i, r) for i, r in general.hz_runners.items() if i.mnemonic == "SFPMAD"]
        assert runner is False and ins.fast is None
