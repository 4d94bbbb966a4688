"""Vector Unit configuration and SFPLOADMACRO: SFPCONFIG.md (LReg[11..14], LaneConfig,
LoadMacroConfig, the InstructionTemplate backdoor), SFPLOADMACRO.md (scheduling, operand
overrides, delays), SFPSWAP.md (the stall after SFPSWAP).

Timing model under test (see ttemu/tensix/units/sfpu/macro.py): one cycle per Vector Unit
instruction issued; a delay-d instruction scheduled at cycle c runs in cycle c + 1 + d,
before the regular instruction of that cycle."""

from __future__ import annotations

import numpy as np
import pytest

from test_unit_sfpu import LANES, U32, b2f, f2b, fbits, mod1, put, setup
from test_unit_sfpu_loadstore import FP32, dst32, lane_cells, ref_store
from tensix_harness import warned
from ttemu import UndefinedBehaviour
from ttemu.errors import Unimplemented
from ttemu.isa.table import get_table

WH = get_table("wormhole_b0")


def config(issue, vd, mod=0, imm=0):
    issue(0, "SFPCONFIG", instr_mod1=mod, config_dest=vd, imm16_math=imm)


def loadi32(issue, vd, value):
    issue(0, "SFPLOADI", lreg_ind=vd, instr_mod0=8, imm16=value >> 16)
    issue(0, "SFPLOADI", lreg_ind=vd, instr_mod0=10, imm16=value & 0xFFFF)


def nop(issue, n=1):
    for _ in range(n):
        issue(0, "SFPNOP")


# --------------------------------------------------------------------------- SFPCONFIG
def test_config_programmable_constants_broadcast_columns():
    """SFPCONFIG.md VD 11..14: LReg[VD][Lane] = LReg[0][Lane & 7]; with IMM16_IS_VALUE the
    defaults -1.0, 1/65536, -0.67487759, -0.34484843."""
    _, issue, u = setup()
    u.lreg[0] = np.arange(100, 132, dtype=U32)
    for vd in (11, 12, 13, 14):
        config(issue, vd)
        assert np.array_equal(u.lreg[vd], 100 + (LANES & 7))
    for vd, v in ((11, -1.0), (12, 1 / 65536), (13, -0.67487759), (14, -0.34484843)):
        config(issue, vd, mod=1, imm=0x1234)
        assert np.all(u.lreg[vd] == fbits(v))


def test_config_lane_config_ops_keep_high_bits():
    """SFPCONFIG.md VD 15: assign / OR / AND / XOR; with IMM16_IS_VALUE the bits above 15
    keep their old value."""
    _, issue, u = setup()
    put(u, 0, 0x30000 | 0x00F0)
    config(issue, 15)
    assert np.all(u.lane_config == 0x300F0)
    config(issue, 15, mod=1, imm=0x000F)  # assign low 16 from Imm16, high bits kept
    assert np.all(u.lane_config == 0x3000F)
    config(issue, 15, mod=1 | 2, imm=0x0100)  # OR
    assert np.all(u.lane_config == 0x3010F)
    config(issue, 15, mod=1 | 4, imm=0x0003)  # AND: high bits restored afterwards
    assert np.all(u.lane_config == 0x30003)
    config(issue, 15, mod=1 | 6, imm=0x0001)  # XOR
    assert np.all(u.lane_config == 0x30002)
    put(u, 0, 0x10000)
    config(issue, 15, mod=4)  # AND with LReg[0]: high bits not restored
    assert np.all(u.lane_config == 0x10000)


def test_config_misc_sequence_template():
    """SFPCONFIG.md: VD 8 Misc (12 bits, with the bitwise ops), VD 4..7 Sequence (Imm16 or
    LReg[0]), VD 0..3 InstructionTemplate (always LReg[0]); VD 9 and 10 do nothing."""
    _, issue, u = setup()
    config(issue, 8, mod=1, imm=0xFABC)
    assert np.all(u.lm_misc == 0xABC)
    config(issue, 8, mod=1 | 6, imm=0x00F)
    assert np.all(u.lm_misc == 0xAB3)
    config(issue, 5, mod=1, imm=0x1234)
    assert np.all(u.lm_sequence[1] == 0x1234)
    put(u, 0, 0xDEADBEEF)
    config(issue, 2, mod=1, imm=0x1111)
    assert np.all(u.lm_template[2] == 0xDEADBEEF)
    before = u.lreg.copy()
    config(issue, 9)
    config(issue, 10)
    assert np.array_equal(u.lreg, before)


def test_config_lane_mask_and_flags():
    """SFPCONFIG.md: IMM16_IS_LANE_MASK skips columns whose Imm16 bit (Lane & 7) * 2 is clear;
    UseLaneFlagsForLaneEnable / LaneFlags of lane Lane & 7 gate the column."""
    _, issue, u = setup()
    put(u, 0, fbits(3.0))
    config(issue, 12, mod=8, imm=0b0100000000000101)  # columns 0, 1, 7
    cols = LANES & 7
    assert np.array_equal(u.lreg[12], np.where(np.isin(cols, [0, 1, 7]), fbits(3.0), fbits(1 / 65536)))
    u.use_flags[:] = True
    u.flags[:] = False
    u.flags[2] = True  # column 2 only (lanes 10, 18, 26 ignored)
    u.flags[10] = True
    put(u, 0, fbits(5.0))
    config(issue, 13)
    assert np.array_equal(u.lreg[13], np.where(cols == 2, fbits(5.0), fbits(-0.67487759)))


def test_backdoor_template_writes():
    """SFPCONFIG.md DISABLE_BACKDOOR_LOAD: while false, an instruction with VD >= 12 writes
    its bits to InstructionTemplate[VD - 12] instead of executing there."""
    _, issue, u = setup()
    mod1(issue, "SFPMOV", vd=13, vc=4, mod=1)
    assert np.all(u.lm_template[1] == WH.encode("SFPMOV", instr_mod1=1, lreg_dest=13, lreg_c=4))
    issue(0, "SFPMAD", lreg_src_a=1, lreg_src_b=2, lreg_src_c=3, lreg_dest=15, instr_mod1=0)
    assert np.all(u.lm_template[3] == WH.encode("SFPMAD", lreg_src_a=1, lreg_src_b=2, lreg_src_c=3, lreg_dest=15))
    mod1(issue, "SFPENCC", vd=12, mod=2 | 8, imm=1)  # not executed: conditional execution stays off
    assert not u.use_flags.any()
    assert np.all(u.lm_template[0] == WH.encode("SFPENCC", instr_mod1=10, lreg_dest=12, imm12_math=1))
    u.lane_config[:] = 2
    mod1(issue, "SFPMOV", vd=13, vc=5)
    assert np.all(u.lm_template[1] == WH.encode("SFPMOV", instr_mod1=1, lreg_dest=13, lreg_c=4))
    mod1(issue, "SFPENCC", vd=12, mod=2 | 8, imm=1)
    assert u.use_flags.all()


# ------------------------------------------------------------------------ SFPLOADMACRO
def loadmacro(issue, macro, vd, mod0=FP32, addr=0, am=0, thread=0):
    """SFPLOADMACRO.md syntax: lreg_ind = (MacroIndex << 2) + VDLo, Imm10 = (Imm9 << 1) + VDHi."""
    assert (addr & 1) == (vd >> 2)
    issue(thread, "SFPLOADMACRO", lreg_ind=(macro << 2) | (vd & 3), instr_mod0=mod0, sfpu_addr_mode=am,
          dest_reg_addr=addr)


def seq_byte(kind, delay=0, vb=False, vd16=False):
    return kind | (delay << 3) | (0x80 if vb else 0) | (0x40 if vd16 else 0)


def set_sequence(issue, macro, simple=0, mad=0, rnd=0, store=0):
    loadi32(issue, 0, simple | (mad << 8) | (rnd << 16) | (store << 24))
    config(issue, 4 + macro)


def set_template(issue, i, mnemonic, **fields):
    loadi32(issue, 0, WH.encode(mnemonic, **fields))
    config(issue, i)


def set_misc(issue, store_mod0=FP32, uses_load_mod0=0, delay_kind=0):
    config(issue, 8, mod=1, imm=store_mod0 | (uses_load_mod0 << 4) | (delay_kind << 8))


def fill_dst(tile, values, addr=0):
    rows, cols = lane_cells(addr)
    for v, r, c in zip(values, rows, cols):
        row = tile.tensix.dst.read32(int(r))[0].copy()
        row[c] = ref_store(int(v), FP32)
        tile.tensix.dst.write32(int(r), row)


def read_fp32(tile, addr=0):
    rows, cols = lane_cells(addr)
    raw = dst32(tile, rows, cols)
    hi = raw >> 16
    return np.array([((h & 0x8000) | ((h & 0xFF) << 7) | ((h & 0x7F00) >> 8)) << 16 | (x & 0xFFFF)
                     for h, x in zip(hi, raw)], dtype=U32)


def mad_store_setup(tile, issue, mad_delay=0, store_delay=2, delay_kind=0):
    """Macro 0: MAD (template 0: VD = L5 * x + L6, x via VB) then SFPSTORE back to the
    loaded address (by default one cycle after the MAD's next cycle: SFPMAD.md forbids
    reading its result on the next cycle)."""
    put_vals = f2b(np.arange(32, dtype=np.float32) - 7)
    fill_dst(tile, put_vals)
    set_template(issue, 0, "SFPMAD", lreg_src_a=5, lreg_src_b=0, lreg_src_c=6, lreg_dest=0)
    set_sequence(issue, 0, mad=seq_byte(4, mad_delay, vb=True), store=seq_byte(3, store_delay))
    set_misc(issue, store_mod0=FP32, delay_kind=delay_kind)
    u = tile.tensix.sfpu
    put(u, 5, f2b(2.0))
    put(u, 6, f2b(1.0))
    return np.arange(32, dtype=np.float32) - 7


def test_loadmacro_load_mad_store_pipeline():
    """SFPLOADMACRO.md: the SFPLOAD part, a MAD scheduled with delay 0 (runs the next
    cycle: VB overridden with the loaded register, VD with VD), and an SFPSTORE with delay
    2 to the address the SFPLOADMACRO computed."""
    tile, issue, u = setup()
    x = mad_store_setup(tile, issue)
    loadmacro(issue, 0, vd=1)
    assert np.array_equal(b2f(u.lreg[1]), 2 * x + 1)  # MAD already ran (cycle c + 1)
    assert np.array_equal(b2f(read_fp32(tile)), x)  # store not yet (cycle c + 3)
    nop(issue)
    assert np.array_equal(b2f(read_fp32(tile)), x)
    nop(issue)
    assert np.array_equal(b2f(read_fp32(tile)), 2 * x + 1)
    assert not u.scheduled and not u.busy(0)


def test_loadmacro_store_uses_macro_address_despite_rwc_advance():
    """SFPLOADMACRO.md: the scheduled SFPSTORE writes to the SFPLOADMACRO's Addr even though
    the SFPLOADMACRO's ApplyPartialAddrMod moved RWC Dst, and does not move it again."""
    tile, issue, u = setup()
    x = mad_store_setup(tile, issue)
    cfg = tile.tensix.config
    cfg.thread_set_word(0, cfg.thread_fields["ADDR_MOD_DST_SEC1_DestIncr"][0], 8)
    loadmacro(issue, 0, vd=1, am=1)
    nop(issue, 2)
    assert tile.tensix.rwcs[0].Dst == 8
    assert np.array_equal(b2f(read_fp32(tile)), 2 * x + 1)


def test_loadmacro_vd16_and_decoding():
    """SFPLOADMACRO.md: VD = (VDHi << 2) | VDLo with VDHi the low bit of the address field;
    sequence bit 0x40 sends the result to LReg[16], and a store with 0x40 reads LReg[16]."""
    tile, issue, u = setup()
    x = np.arange(32, dtype=np.float32)
    fill_dst(tile, f2b(x), addr=4)
    set_template(issue, 1, "SFPMAD", lreg_src_a=10, lreg_src_b=10, lreg_src_c=0, lreg_dest=0)  # VC := x
    set_sequence(issue, 2, mad=seq_byte(5, 0, vd16=True), store=seq_byte(3, 2, vd16=True))
    set_misc(issue)
    loadmacro(issue, 2, vd=5, addr=5)  # VDHi = 1: VD 5, Imm10 = 5 -> rows 4..7 even columns
    assert np.array_equal(b2f(u.lreg[5]), x)
    assert np.array_equal(b2f(u.lreg[16]), x + 1)
    nop(issue, 2)
    assert np.array_equal(b2f(read_fp32(tile, addr=4)), x + 1)


def test_loadmacro_simple_and_round_units_and_vc_override():
    """Simple and round sub-units: without 0x80, VC := loaded VD and VB := template VD when
    the instruction has no VB (SFPABS / SFPOR here), and VD := loaded VD."""
    tile, issue, u = setup()
    fill_dst(tile, f2b(-np.arange(32, dtype=np.float32) - 0.6))
    set_template(issue, 0, "SFPABS", instr_mod1=1, lreg_dest=0, lreg_c=0)
    set_template(issue, 2, "SFP_STOCH_RND", instr_mod1=3, lreg_dest=0, lreg_src_c=0, lreg_src_b=0)
    set_sequence(issue, 1, simple=seq_byte(4, 0), rnd=seq_byte(6, 1))
    set_misc(issue)
    loadmacro(issue, 1, vd=2)
    nop(issue)
    assert np.array_equal(u.lreg[2], np.round(np.arange(32) + 0.6).astype(U32))


def test_loadmacro_simple_and_round_in_one_cycle_with_the_same_vd_warns():
    """SFPLOADMACRO.md (†): a simple and a round instruction in one cycle need different
    kinds of VD; both writing LReg[2] is undefined: a warning; ttemu runs simple, then
    round (round's write wins, having read simple's result)."""
    tile, issue, u = setup()
    fill_dst(tile, f2b(-np.arange(32, dtype=np.float32) - 0.6))
    set_template(issue, 0, "SFPABS", instr_mod1=1, lreg_dest=0, lreg_c=0)
    set_template(issue, 2, "SFP_STOCH_RND", instr_mod1=3, lreg_dest=0, lreg_src_c=0, lreg_src_b=0)
    set_sequence(issue, 1, simple=seq_byte(4, 0), rnd=seq_byte(6, 0))
    set_misc(issue)
    loadmacro(issue, 1, vd=2)
    nop(issue)
    warned(tile, "SFPLOADMACRO (†) VD conflict")
    assert np.array_equal(u.lreg[2], np.round(np.arange(32) + 0.6).astype(U32))
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="conflicting VD"):
        loadmacro(issue, 1, vd=2)
        nop(issue)


def test_loadmacro_instruction_delay_kind():
    """SFPLOADMACRO.md WaitForElapsedInstructions: counters move only when Vector Unit
    instructions issue; idle cycles do not run them; the unit stays busy meanwhile."""
    tile, issue, u = setup()
    x = mad_store_setup(tile, issue, mad_delay=0, store_delay=3, delay_kind=0b1000)  # store counts instructions
    loadmacro(issue, 0, vd=1)
    u.elapse_cycles(10)
    assert u.busy(0) and not u.busy(1)
    assert np.array_equal(b2f(read_fp32(tile)), x)
    nop(issue, 2)
    assert np.array_equal(b2f(read_fp32(tile)), x)
    nop(issue)
    assert np.array_equal(b2f(read_fp32(tile)), 2 * x + 1)
    assert not u.busy(0)


def test_loadmacro_cycle_kind_completes_when_waited_for():
    """WaitForElapsedCycles: with no further Vector Unit instruction the work still completes;
    asking whether the unit is busy lets those cycles pass."""
    tile, issue, u = setup()
    x = mad_store_setup(tile, issue, mad_delay=2, store_delay=5)
    loadmacro(issue, 0, vd=1)
    assert np.array_equal(b2f(read_fp32(tile)), x)
    assert not u.busy(0)
    assert np.array_equal(b2f(read_fp32(tile)), 2 * x + 1)


def test_loadmacro_delays_order_against_regular_instructions():
    """A delay-2 scheduled instruction runs in cycle c + 3: after the regular instructions
    of cycles c + 1 and c + 2, before the one of cycle c + 3. (SFPIADD, a one-cycle
    instruction: an SFPADDI result may not be read on the next cycle, SFPADDI.md.)"""
    tile, issue, u = setup()
    fill_dst(tile, f2b(np.ones(32, np.float32)))
    set_sequence(issue, 0, store=seq_byte(3, 2))
    set_misc(issue)
    loadmacro(issue, 0, vd=1)
    put(u, 1, 5)
    mod1(issue, "SFPIADD", vd=1, vc=1, mod=1 | 4, imm=1)  # c+1: 6
    mod1(issue, "SFPIADD", vd=1, vc=1, mod=1 | 4, imm=1)  # c+2: 7; store due in c+3
    assert np.all(read_fp32(tile) == 7)
    mod1(issue, "SFPIADD", vd=1, vc=1, mod=1 | 4, imm=1)
    assert np.all(read_fp32(tile) == 7)


def test_sfpswap_stall_delays_following_instruction():
    """SFPSWAP.md: a non-SFPNOP after SFPSWAP is stalled one cycle, so a cycle-delayed
    store scheduled before runs before it (with SFPNOP in between it would not)."""
    for middle, want in (("SFPSWAP", 1), ("SFPNOP", 2)):
        tile, issue, u = setup()
        fill_dst(tile, f2b(np.zeros(32, np.float32)))
        set_sequence(issue, 0, store=seq_byte(3, 2))
        set_misc(issue)
        put(u, 1, 0)
        loadmacro(issue, 0, vd=1, mod0=11)  # MOD0_FMT_ZERO load: L1 = 0 ... then:
        put(u, 1, 1)
        if middle == "SFPSWAP":
            issue(0, "SFPSWAP", instr_mod1=0, lreg_dest=3, lreg_src_c=4, imm12_math=0)  # c+1
        else:
            issue(0, "SFPNOP")
        # c+3 (stalled) or c+2; SFPIADD (one cycle), as an SFPADDI result may not be read
        # on the next cycle (SFPADDI.md)
        mod1(issue, "SFPIADD", vd=1, vc=1, mod=1 | 4, imm=1)
        u.settle()
        assert np.all(read_fp32(tile) == want), middle


def test_loadmacro_forgets_same_time_instruction():
    """SFPLOADMACRO.md: scheduling on a sub-unit forgets an instruction already scheduled there
    for the same time (unless the delay is 7)."""
    tile, issue, u = setup()
    fill_dst(tile, f2b(np.full(32, 3.0, np.float32)))
    set_sequence(issue, 0, store=seq_byte(3, 3))
    set_sequence(issue, 1, store=seq_byte(3, 2, vd16=True))
    set_misc(issue, uses_load_mod0=0b11, delay_kind=0b1000)
    loadmacro(issue, 0, vd=1)  # store due after 3 more instructions: counter 3
    loadmacro(issue, 1, vd=2)  # first store's counter is now 2: forgotten, replaced
    assert len(u.scheduled) == 1 and u.scheduled[0].insn.vd == 16


def test_regular_instruction_on_busy_subunit_is_discarded():
    """SFPLOADMACRO.md: a regular instruction arriving at a sub-unit in the same cycle as a
    scheduled one is silently discarded (the model also warns)."""
    tile, issue, u = setup()
    x = mad_store_setup(tile, issue, mad_delay=0, store_delay=2)
    loadmacro(issue, 0, vd=1)
    put(u, 2, 0)
    issue(0, "SFPMAD", lreg_src_a=10, lreg_src_b=10, lreg_src_c=10, lreg_dest=2, instr_mod1=0)  # c+1 on MAD
    assert np.all(u.lreg[2] == 0)
    assert any("discarded" in w for w in tile.warnings)
    issue(0, "SFPMAD", lreg_src_a=10, lreg_src_b=10, lreg_src_c=10, lreg_dest=2, instr_mod1=0)
    assert np.all(b2f(u.lreg[2]) == 2.0)
    assert np.array_equal(b2f(read_fp32(tile)), 2 * x + 1)


def test_loadmacro_undefined_cases():
    """SFPLOADMACRO.md: sequence kind 1 is undefined, the store sub-unit fed something
    other than SFPSTORE is undefined (ttemu schedules nothing for that sub-unit);
    SFPSWAP on the simple sub-unit without SFPNOP on MAD is undefined (ttemu runs both).
    Each warns once per site; --strict stops."""
    for kw, key in (({"simple": seq_byte(1)}, "Sequence kind 1"),
                    ({"store": seq_byte(2)}, "store sub-unit not SFPSTORE")):
        tile, issue, u = setup()
        set_sequence(issue, 0, **kw)
        loadmacro(issue, 0, vd=0)
        warned(tile, f"SFPLOADMACRO {key}")
        assert u.scheduled == []
        tile, issue, u = setup()
        set_sequence(issue, 0, **kw)
        tile.diagnostics.strict = True
        with pytest.raises(UndefinedBehaviour, match="SFPLOADMACRO"):
            loadmacro(issue, 0, vd=0)
    results = []
    for mad in (0, seq_byte(2)):
        tile, issue, u = setup()
        set_template(issue, 0, "SFPSWAP", instr_mod1=1, lreg_dest=3, lreg_src_c=0, imm12_math=0)
        set_sequence(issue, 0, simple=seq_byte(4), mad=mad)
        put(u, 3, f2b(-1.0))
        loadmacro(issue, 0, vd=0)
        nop(issue)
        nop(issue)
        results.append((u.lreg[0].copy(), u.lreg[3].copy()))
        if not mad:
            warned(tile, "SFPLOADMACRO (‡) SFPSWAP without SFPNOP")
        else:
            assert not tile.diagnostics.sites
    assert all(np.array_equal(a, b) for a, b in zip(*results))
    tile, issue, u = setup()
    set_template(issue, 0, "SFPSWAP", instr_mod1=1, lreg_dest=3, lreg_src_c=0, imm12_math=0)
    set_sequence(issue, 0, simple=seq_byte(4))
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="SFPSWAP"):
        loadmacro(issue, 0, vd=0)
        nop(issue)


def test_loadmacro_wrong_subunit_becomes_nop():
    """SFPLOADMACRO.md: an instruction the sub-unit cannot execute becomes SFPNOP."""
    tile, issue, u = setup()
    set_template(issue, 0, "SFPMAD", lreg_src_a=10, lreg_src_b=10, lreg_src_c=10, lreg_dest=0)
    set_sequence(issue, 0, simple=seq_byte(4))  # MAD on the simple sub-unit
    put(u, 1, 0)
    loadmacro(issue, 0, vd=1, mod0=11)
    assert np.all(u.lreg[1] == 0)


def test_loadmacro_per_lane_config_is_unimplemented():
    tile, issue, u = setup()
    u.lm_sequence[0][5] = 0x44
    with pytest.raises(Unimplemented):
        loadmacro(issue, 0, vd=0)


def test_soft_reset_forgets_everything():
    """SoftReset.md: reset clears LaneConfig, LoadMacroConfig, the stack, scheduled work."""
    tile, issue, u = setup()
    mad_store_setup(tile, issue, store_delay=4, delay_kind=0b1000)
    loadmacro(issue, 0, vd=1)
    assert u.scheduled
    u.reset()
    assert not u.scheduled and np.all(u.lm_sequence == 0) and np.all(u.lreg[16] == 0)


def test_backdoor_keeps_all_instruction_bits():
    """The backdoor stores the executed word itself, including bits outside the documented
    operand widths (e.g. SFPSETCC's Imm12 beyond bit 12)."""
    from tensix_harness import push_word
    tile, issue, u = setup()
    word = (WH.spec("SFPSETCC").opcode << 24) | (0xABC << 12) | (14 << 4) | 1
    push_word(tile, 0, word)
    assert np.all(u.lm_template[2] == word)
