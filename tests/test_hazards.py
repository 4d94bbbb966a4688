"""Scheduling rules software must obey, checked by the model (ttemu/tensix/units/sfpu/
hazards.py): a violation is undefined behaviour naming both instructions and the rule: a
warning once per site, after which ttemu computes what a correctly scheduled program
would (the tests below run strict, so it stops the run as UndefinedBehaviour, except
``test_default_*``). Pages (tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/):
SFPMAD.md, SFPADD.md, SFPMUL.md, SFPADDI.md, SFPMULI.md, SFPLUT.md, SFPLUTFP32.md,
SFPSHFT2.md, SFPCONFIG.md ("Instruction scheduling"), SFPLOAD.md / SFPLOADMACRO.md (FPU
writes to Dst, then SFPLOAD), VectorUnit.md (one instruction per cycle), SFPSWAP.md.

"The next cycle": the next Vector Unit instruction of the same thread with nothing else
of that thread in between, or of another thread with neither thread issuing anything
in between; instructions SFPLOADMACRO schedules run in the cycle after the instruction
(or elapsed cycle) they follow."""

from __future__ import annotations

import pytest
from test_unit_sfpu import b2f, f2b, mod1, put, setup
from test_unit_sfpu_macro import config, loadmacro, nop, seq_byte, set_misc, set_sequence, set_template

from tensix_harness import warned
from ttemu import UndefinedBehaviour
from ttemu.diagnostics import Diagnostics
from ttemu.isa.table import get_table
from ttemu.tensix.units.sfpu import hazards as H
from ttemu.tensix.units.sfpu.insn import Insn

WH = get_table("wormhole_b0")
FP32 = 3


@pytest.fixture(autouse=True)
def _strict(request, monkeypatch):
    """Tiles made here are strict (ttemu run --strict), except in the test_default_* tests."""
    if not request.node.name.startswith("test_default_"):
        monkeypatch.setattr(Diagnostics.__init__, "__defaults__", (True,))


def mad(issue, d=3, a=0, b=1, c=2, mod=0, thread=0, name="SFPMAD"):
    issue(thread, name, lreg_src_a=a, lreg_src_b=b, lreg_src_c=c, lreg_dest=d, instr_mod1=mod)


def store(issue, vd, mod0=FP32, addr=0, thread=0):
    issue(thread, "SFPSTORE", lreg_ind=vd, instr_mod0=mod0, sfpu_addr_mode=0, dest_reg_addr=addr)


def load(issue, vd, mod0=FP32, addr=0, thread=0):
    issue(thread, "SFPLOAD", lreg_ind=vd, instr_mod0=mod0, sfpu_addr_mode=0, dest_reg_addr=addr)


def shft2(issue, mod, vd=0, vc=0, imm=0):
    issue(0, "SFPSHFT2", instr_mod1=mod, lreg_dest=vd, lreg_src_c=vc, imm12_math=imm)


# ----------------------------------------------------------------------------- the table
def test_access_table_covers_every_vector_unit_instruction():
    """Every SFP* mnemonic of the Wormhole B0 table has an entry, as do the Blackhole-only
    instructions (SFPGT, SFPLE, SFPMUL24, SFPARECIP), and nothing else does."""
    sfp = {s.mnemonic for s in WH if s.unit == "sfpu"}
    assert sfp == {s.mnemonic for s in WH if s.mnemonic.startswith("SFP")}
    assert set(H.LREG_ACCESS) == sfp | {"SFPGT", "SFPLE", "SFPMUL24", "SFPARECIP"}


WH_MNEMONICS = {s.mnemonic for s in WH}


@pytest.mark.parametrize("mnemonic", sorted(H.LREG_ACCESS))
def test_access_table_entries_resolve(mnemonic):
    """Every entry resolves for every Mod value and a spread of operands (no unknown terms)."""
    _, _, u = setup()
    spec = (WH if mnemonic in WH_MNEMONICS else get_table("blackhole")).spec(mnemonic)
    for mod in range(16):
        for v in (0, 3, 5, 7, 9, 12, 15):
            fields = {f.name: 0 for f in spec.fields}
            for name in ("lreg_dest", "lreg_ind", "config_dest", "lreg_c", "lreg_src_c", "lreg_src_b",
                         "lreg_src_a"):
                if name in fields:
                    fields[name] = v
            for name in ("instr_mod1", "instr_mod0"):
                if name in fields:
                    fields[name] = mod
            reads, writes = H.lreg_access(u, Insn(mnemonic, fields, 0))
            assert reads <= set(range(17)) and writes <= set(range(8)) | {11, 12, 13, 14, 16}


def access(u, mnemonic, **fields):
    spec = WH.spec(mnemonic)
    full = {f.name: 0 for f in spec.fields}
    full.update(fields)
    return H.lreg_access(u, Insn(mnemonic, full, 0))


def test_access_by_mode_from_the_functional_models():
    _, _, u = setup()
    # SFPLOAD reads VD only in MOD0_FMT_LO16_ONLY / HI16_ONLY; writes VD < 8 only
    assert access(u, "SFPLOAD", lreg_ind=2, instr_mod0=3) == (set(), {2})
    assert access(u, "SFPLOAD", lreg_ind=2, instr_mod0=14) == ({2}, {2})
    assert access(u, "SFPLOAD", lreg_ind=2, instr_mod0=15) == ({2}, {2})
    assert access(u, "SFPLOAD", lreg_ind=9, instr_mod0=14) == (set(), set())
    # SFPLOADI reads VD in UPPER (8) / LOWER (10)
    assert access(u, "SFPLOADI", lreg_ind=4, instr_mod0=0) == (set(), {4})
    assert access(u, "SFPLOADI", lreg_ind=4, instr_mod0=8) == ({4}, {4})
    assert access(u, "SFPLOADI", lreg_ind=4, instr_mod0=10) == ({4}, {4})
    # SFPSTORE reads VD
    assert access(u, "SFPSTORE", lreg_ind=6) == ({6}, set())
    # SFPMAD reads VA VB VC; INDIRECT_VA / INDIRECT_VD go through LReg[7]
    assert access(u, "SFPMAD", lreg_src_a=1, lreg_src_b=2, lreg_src_c=9, lreg_dest=4) == ({1, 2, 9}, {4})
    put(u, 7, 5)
    assert access(u, "SFPMAD", lreg_src_a=1, lreg_src_b=2, lreg_src_c=3, lreg_dest=4,
                  instr_mod1=4 | 8) == ({2, 3, 5, 7}, {5})
    # SFPMOV reads VC unless FROM_SPECIAL; SFPIADD reads VB = VD unless ARG_IMM
    assert access(u, "SFPMOV", lreg_c=3, lreg_dest=1) == ({3}, {1})
    assert access(u, "SFPMOV", lreg_c=3, lreg_dest=1, instr_mod1=8) == (set(), {1})
    assert access(u, "SFPIADD", lreg_c=3, lreg_dest=1) == ({1, 3}, {1})
    assert access(u, "SFPIADD", lreg_c=3, lreg_dest=1, instr_mod1=1) == ({3}, {1})
    # SFPADDI / SFPMULI: VC = VD
    assert access(u, "SFPADDI", lreg_dest=6) == ({6}, {6})
    # guard VD < 8 || VD == 16: nothing at all
    assert access(u, "SFPABS", lreg_c=3, lreg_dest=9) == (set(), set())
    # backdoor guard: VD >= 12 is a template write unless DISABLE_BACKDOOR_LOAD
    assert access(u, "SFPMOV", lreg_c=3, lreg_dest=13) == (set(), set())
    u.lane_config[:] = 2
    assert access(u, "SFPMOV", lreg_c=3, lreg_dest=13) == ({3}, set())
    # SFPCONFIG: LReg[0] unless IMM16_IS_VALUE; writes LReg[11..14]
    assert access(u, "SFPCONFIG", config_dest=12) == ({0}, {12})
    assert access(u, "SFPCONFIG", config_dest=12, instr_mod1=1) == (set(), {12})
    assert access(u, "SFPCONFIG", config_dest=2, instr_mod1=1) == ({0}, set())
    # SFPSHFT2 by mode
    assert access(u, "SFPSHFT2", instr_mod1=2, lreg_src_c=5) == ({1, 2, 3, 5}, {0, 1, 2, 3})
    assert access(u, "SFPSHFT2", instr_mod1=6, lreg_dest=4, imm12_math=0x7F2) == ({2}, {4})
    # SFPLUTFP32 FP16_3ENTRY_TABLE (10) reads LReg[0..3] and LReg[7] (writes indirectly)
    put(u, 7, 2)
    assert access(u, "SFPLUTFP32", instr_mod1=10, lreg_dest=2) == ({0, 1, 2, 3, 7}, {2})
    assert access(u, "SFPLUTFP32", instr_mod1=0, lreg_dest=2) == ({0, 1, 2, 3, 4, 5, 6}, {2})


# ----------------------------------------------------------------- MAD sub-unit latency
def test_sfpmad_then_reader_of_its_result_is_undefined():
    _, issue, _u = setup()
    mad(issue, d=3)
    with pytest.raises(UndefinedBehaviour) as e:
        store(issue, 3)
    msg = str(e.value)
    assert "t0 SFPMAD (writes L3) followed on the next cycle by t0 SFPSTORE reading L3" in msg
    assert "SFPMAD.md" in msg and "SFPNOP" in msg


def test_default_run_warns_once_per_site_and_reads_the_stale_value():
    """Without --strict: one warning per site (thread, rule, both mnemonics), counted;
    the reader sees the LReg from before SFPMAD's write (the result is not written yet),
    and SFPMAD's result then lands."""
    tile, issue, u = setup()
    put(u, 0, f2b(2.0))
    put(u, 1, f2b(3.0))
    put(u, 2, f2b(1.0))
    put(u, 3, f2b(5.0))
    mad(issue, d=3)  # L3 = 2 * 3 + 1 = 7
    mad(issue, d=4, a=3, b=1, c=2)  # reads L3 on the next cycle: the old 5 -> L4 = 16
    assert list(b2f(u.lreg[4][:2])) == [16.0, 16.0] and list(b2f(u.lreg[3][:2])) == [7.0, 7.0]
    for _ in range(2):
        mad(issue, d=3)
        mad(issue, d=4, a=3, b=1, c=2)  # old L3 is now 7 -> 22
    text = warned(tile, "t0 hazard SFPMAD.md read SFPMAD->SFPMAD", times=3)
    assert "value from before the producer's write" in text
    assert list(b2f(u.lreg[4][:2])) == [22.0, 22.0]
    # a reader that also writes the register keeps its own result
    put(u, 3, f2b(5.0))
    mad(issue, d=3)  # L3 = 7
    mad(issue, d=3, a=3, b=1, c=2)  # reads the old 5, writes L3 = 16: its write wins
    assert list(b2f(u.lreg[3][:2])) == [16.0, 16.0]


def test_default_run_warns_for_an_early_sfpload_and_loads_the_written_rows():
    tile, issue, u = setup()
    tile.tensix.dst.bits[:] = 0x3F80  # old Dst contents: BF16 1.0
    movdbga2d_8rows(issue, dst=0)  # overwrites rows 0..7 with SrcA (zeros)
    put(u, 0, 0xDEAD)
    load(issue, 0, mod0=2, addr=4)  # rows 4..7, right after the write
    warned(tile, "t0 hazard SFPLOAD.md Dst read after MOVDBGA2D")
    assert not u.lreg[0].any()  # the new rows, not the old 1.0
    assert tile.tensix.dst.bits[8:].all()


def test_sfpnop_or_any_instruction_of_the_thread_makes_the_gap():
    _, issue, _u = setup()
    mad(issue, d=3)
    nop(issue)
    store(issue, 3)
    mad(issue, d=3)
    issue(0, "NOP")  # any Tensix instruction of the thread takes a cycle
    store(issue, 3)
    mad(issue, d=3)
    issue(0, "SETRWC", clear_ab_vld=0, rwc_cr=0, rwc_d=0, rwc_b=0, rwc_a=0, BitMask=0)
    store(issue, 3)


def test_next_instruction_not_reading_the_result_is_fine():
    _, issue, _u = setup()
    mad(issue, d=3)
    mad(issue, d=4, a=0, b=1, c=2)  # independent
    store(issue, 3)  # two cycles after the first SFPMAD
    mad(issue, d=5, a=3, b=3, c=3)  # reads L3, written two cycles ago; L4 one cycle ago is not read
    nop(issue)


@pytest.mark.parametrize("name, kw, reader", [
    ("SFPADD", {"lreg_src_a": 10, "lreg_src_b": 0, "lreg_src_c": 1, "lreg_dest": 2, "instr_mod1": 0}, 2),
    ("SFPMUL", {"lreg_src_a": 0, "lreg_src_b": 1, "lreg_src_c": 9, "lreg_dest": 2, "instr_mod1": 0}, 2),
    ("SFPADDI", {"lreg_dest": 2, "imm16_math": 0x3F80, "instr_mod1": 0}, 2),
    ("SFPMULI", {"lreg_dest": 2, "imm16_math": 0x4000, "instr_mod1": 0}, 2),
    ("SFPLUT", {"lreg_ind": 2, "instr_mod0": 0, "dest_reg_addr": 0}, 2),
    ("SFPLUTFP32", {"lreg_dest": 2, "instr_mod1": 0}, 2),
])
def test_every_mad_subunit_writer_is_checked(name, kw, reader):
    _, issue, _u = setup()
    issue(0, name, **kw)
    with pytest.raises(UndefinedBehaviour, match=rf"{name} \(writes L{reader}\).*{name}\.md"):
        mod1(issue, "SFPMOV", vd=6, vc=reader)


def test_sfpaddi_chain_reads_its_own_destination():
    """SFPADDI.md: VC = VD, so two SFPADDIs on the same LReg back to back break the rule."""
    _, issue, _u = setup()
    issue(0, "SFPADDI", lreg_dest=1, imm16_math=0x3F80, instr_mod1=0)
    with pytest.raises(UndefinedBehaviour, match="SFPADDI reading L1"):
        issue(0, "SFPADDI", lreg_dest=1, imm16_math=0x3F80, instr_mod1=0)


def test_indirect_destination_is_resolved_from_lreg7():
    _, issue, u = setup()
    put(u, 7, 2)
    mad(issue, d=0, mod=8)  # writes LReg[LReg[7] & 15] = L2
    store(issue, 0)  # L0 was not written
    mad(issue, d=0, mod=8)
    with pytest.raises(UndefinedBehaviour, match="writes L2"):
        store(issue, 2)


def test_mode_dependent_reads():
    """SFPLOAD LO16_ONLY reads VD; a plain SFPLOAD only writes it; SFPLOADI UPPER reads VD."""
    _, issue, _u = setup()
    mad(issue, d=3)
    load(issue, 3, mod0=FP32)  # overwrites L3 without reading it
    mad(issue, d=3)
    with pytest.raises(UndefinedBehaviour, match="SFPLOAD reading L3"):
        load(issue, 3, mod0=14)
    _, issue, _u = setup()
    mad(issue, d=4)
    issue(0, "SFPLOADI", lreg_ind=4, instr_mod0=0, imm16=1)
    mad(issue, d=4)
    with pytest.raises(UndefinedBehaviour, match="SFPLOADI reading L4"):
        issue(0, "SFPLOADI", lreg_ind=4, instr_mod0=8, imm16=1)


def test_disabled_writes_start_no_rule():
    """SFPMAD with VD >= 12 (a template write while DISABLE_BACKDOOR_LOAD is false) writes no
    LReg; neither does VD 9."""
    _, issue, _u = setup()
    mad(issue, d=12)
    store(issue, 0)
    mad(issue, d=9)
    mod1(issue, "SFPMOV", vd=1, vc=9)


# ------------------------------------------------------------------- threads and cycles
def test_other_threads_nonvector_instructions_do_not_occupy_the_vector_unit():
    _, issue, _u = setup()
    mad(issue, d=3, thread=0)
    issue(1, "NOP")
    with pytest.raises(UndefinedBehaviour, match="t0 SFPMAD .* t0 SFPSTORE"):
        store(issue, 3, thread=0)


def test_another_threads_vector_instruction_takes_the_next_cycle():
    _, issue, _u = setup()
    mad(issue, d=3, thread=0)
    issue(1, "SFPNOP")
    store(issue, 3, thread=0)


def test_cross_thread_back_to_back_is_checked():
    _, issue, _u = setup()
    mad(issue, d=3, thread=0)
    with pytest.raises(UndefinedBehaviour, match="t0 SFPMAD .* t1 SFPSTORE reading L3"):
        store(issue, 3, thread=1)


def test_cross_thread_with_instructions_in_between_is_unrelated():
    _, issue, _u = setup()
    mad(issue, d=3, thread=0)
    issue(1, "NOP")
    store(issue, 3, thread=1)  # t1 issued something after the SFPMAD: no timing relation
    mad(issue, d=3, thread=0)
    issue(0, "NOP")
    store(issue, 3, thread=1)


def test_soft_reset_forgets_pending_rules():
    _, issue, u = setup()
    mad(issue, d=3)
    u.reset()
    store(issue, 3)


# ------------------------------------------------------------------------------ SFPSHFT2
def test_shft2_ror1_and_copy4_rules():
    """SFPSHFT2.md Mod1 2: next cycle no read of L0..L3, no write of L1..L3, nothing from the
    list (SFPABS ... SFPXOR)."""
    _, issue, _u = setup()
    shft2(issue, 2, vc=5)
    with pytest.raises(UndefinedBehaviour, match=r"SFPSHFT2 \(Mod1=2\).*SFPSTORE reading L1.*SFPSHFT2\.md"):
        store(issue, 1)
    _, issue, _u = setup()
    shft2(issue, 2, vc=5)
    with pytest.raises(UndefinedBehaviour, match="SFPLOADI writing L2"):
        issue(0, "SFPLOADI", lreg_ind=2, instr_mod0=0, imm16=1)
    _, issue, _u = setup()
    shft2(issue, 2, vc=5)
    issue(0, "SFPLOADI", lreg_ind=0, instr_mod0=0, imm16=1)  # L0 may be written
    shft2(issue, 2, vc=5)
    with pytest.raises(UndefinedBehaviour, match="SFPABS may not execute"):
        mod1(issue, "SFPABS", vd=6, vc=5)
    _, issue, _u = setup()
    shft2(issue, 2, vc=5)
    nop(issue)
    mod1(issue, "SFPABS", vd=1, vc=2)


def test_shft2_ror1_and_shr1_rules():
    _, issue, _u = setup()
    shft2(issue, 3, vd=5, vc=6)
    store(issue, 4)
    shft2(issue, 4, vd=5, vc=6)
    with pytest.raises(UndefinedBehaviour, match="reading L5"):
        store(issue, 5)
    _, issue, _u = setup()
    shft2(issue, 3, vd=5, vc=6)
    shft2(issue, 3, vd=4, vc=6)  # SFPSHFT2 Mod1 3 is not in the list
    with pytest.raises(UndefinedBehaviour, match="SFPSHFT2 Mod1=5 may not execute"):
        shft2(issue, 5, vd=1, vc=2)
    _, issue, _u = setup()
    shft2(issue, 3, vd=9, vc=9)  # VD >= 8: no read rule, but the list still applies
    store(issue, 0)
    shft2(issue, 3, vd=9, vc=9)
    with pytest.raises(UndefinedBehaviour, match="SFPMOV may not execute"):
        mod1(issue, "SFPMOV", vd=1, vc=2)


def test_shft2_other_modes_start_no_rule():
    _, issue, _u = setup()
    shft2(issue, 0)
    store(issue, 0)
    mod1(issue, "SFPABS", vd=1, vc=2)


# ------------------------------------------------------------------------------ SFPCONFIG
def test_sfpconfig_backdoor_bit_change_then_vd12():
    """SFPCONFIG.md: after a change of DISABLE_BACKDOOR_LOAD the next instruction may see
    either value; one with VD >= 12 would behave differently."""
    _, issue, _u = setup()
    config(issue, 15, mod=1, imm=2)  # DISABLE_BACKDOOR_LOAD = 1
    with pytest.raises(UndefinedBehaviour, match="DISABLE_BACKDOOR_LOAD.*VD=13.*SFPCONFIG.md"):
        mod1(issue, "SFPMOV", vd=13, vc=1)
    _, issue, _u = setup()
    config(issue, 15, mod=1, imm=2)
    nop(issue)
    mod1(issue, "SFPMOV", vd=13, vc=1)
    _, issue, _u = setup()
    config(issue, 15, mod=1, imm=2)
    mod1(issue, "SFPMOV", vd=3, vc=1)  # VD < 12 does not depend on it
    config(issue, 15, mod=1, imm=2)  # no change
    mod1(issue, "SFPMOV", vd=13, vc=1)


# --------------------------------------------------------------------------- SFPLOADMACRO
def mad_then_store(issue, u, store_delay):
    """Macro 0: template 0 SFPMAD (VD = L5 * x + L6) at delay 0, SFPSTORE at ``store_delay``."""
    set_template(issue, 0, "SFPMAD", lreg_src_a=5, lreg_src_b=0, lreg_src_c=6, lreg_dest=0)
    set_sequence(issue, 0, mad=seq_byte(4, 0, vb=True), store=seq_byte(3, store_delay))
    set_misc(issue, store_mod0=FP32)
    put(u, 5, 0x40000000)
    put(u, 6, 0x3F800000)
    nop(issue)


def test_scheduled_mad_then_scheduled_store_on_the_next_cycle():
    _, issue, u = setup()
    mad_then_store(issue, u, store_delay=1)
    loadmacro(issue, 0, vd=1)
    with pytest.raises(UndefinedBehaviour, match=r"SFPMAD \[scheduled by SFPLOADMACRO\] \(writes L1\).*"
                                                 r"SFPSTORE \[scheduled by SFPLOADMACRO\] reading L1"):
        nop(issue)


def test_scheduled_mad_with_a_cycle_between_is_fine():
    _, issue, u = setup()
    mad_then_store(issue, u, store_delay=2)
    loadmacro(issue, 0, vd=1)
    nop(issue, 3)
    assert not u.scheduled


def test_scheduled_mad_then_regular_reader_two_issues_later():
    """The delay-0 MAD runs in the cycle of the next regular instruction (no check between
    them); the regular instruction after that reads on the MAD's next cycle."""
    _, issue, u = setup()
    mad_then_store(issue, u, store_delay=7)
    set_sequence(issue, 0, mad=seq_byte(4, 0, vb=True))
    loadmacro(issue, 0, vd=1)
    store(issue, 1, addr=8)  # same cycle as the MAD
    loadmacro(issue, 0, vd=1)
    nop(issue)
    with pytest.raises(UndefinedBehaviour, match=r"SFPMAD \[scheduled by SFPLOADMACRO\].*t0 SFPSTORE reading L1"):
        store(issue, 1, addr=8)


def test_regular_mad_then_scheduled_reader():
    _, issue, _u = setup()
    set_sequence(issue, 0, store=seq_byte(3, 1))
    set_misc(issue, store_mod0=FP32)
    nop(issue)
    loadmacro(issue, 0, vd=1)  # store of L1 runs in the cycle after the next instruction
    with pytest.raises(UndefinedBehaviour, match=r"t0 SFPMAD \(writes L1\).*SFPSTORE \[scheduled by SFPLOADMACRO\]"):
        mad(issue, d=1)


def test_sfpswap_stall_moves_the_next_instruction_a_cycle_later():
    """SFPSWAP.md: a non-SFPNOP instruction after SFPSWAP is stalled one cycle. A delay-1
    scheduled MAD runs in the cycle after the SFPSWAP; the stalled instruction runs in the
    cycle after that, so it must not read the MAD's result (an SFPNOP is not stalled and
    runs in the MAD's own cycle)."""
    _, issue, u = setup()
    mad_then_store(issue, u, store_delay=7)
    set_sequence(issue, 0, mad=seq_byte(4, 1, vb=True))
    loadmacro(issue, 0, vd=1)  # cycle c; the MAD runs in c + 2
    issue(0, "SFPSWAP", instr_mod1=0, lreg_dest=3, lreg_src_c=4, imm12_math=0)  # c + 1
    with pytest.raises(UndefinedBehaviour, match=r"SFPMAD \[scheduled by SFPLOADMACRO\].*t0 SFPSTORE reading L1"):
        store(issue, 1)  # stalled to c + 3
    _, issue, u = setup()
    mad_then_store(issue, u, store_delay=7)
    set_sequence(issue, 0, mad=seq_byte(4, 1, vb=True))
    loadmacro(issue, 0, vd=1)
    issue(0, "SFPSWAP", instr_mod1=0, lreg_dest=3, lreg_src_c=4, imm12_math=0)
    store(issue, 2)  # stalled too, but L2 was not written
    nop(issue)


# ------------------------------------------------------------ FPU writes, then SFPLOAD
def movdbga2d_8rows(issue, dst=0, thread=0):
    """MOVDBGA2D (no SrcA ownership wait): SrcA rows 0..7 -> Dst rows dst..dst+7."""
    issue(thread, "MOVDBGA2D", dest_32b_lo=0, src=0, addr_mode=0, instr_mod=2, dst=dst)


def test_sfpload_right_after_an_fpu_write_of_its_rows():
    _, issue, _u = setup()
    movdbga2d_8rows(issue, dst=0)
    with pytest.raises(UndefinedBehaviour) as e:
        load(issue, 0, mod0=2, addr=4)  # rows 4..7
    msg = str(e.value)
    assert "MOVDBGA2D" in msg and "SFPLOAD" in msg and "after only 0 other instructions" in msg
    assert "SFPLOAD.md" in msg and "STALLWAIT" in msg


def test_sfpload_after_three_instructions_or_a_stallwait():
    _, issue, _u = setup()
    movdbga2d_8rows(issue)
    for _ in range(2):
        issue(0, "NOP")
    with pytest.raises(UndefinedBehaviour, match="after only 2 other instructions"):
        load(issue, 0, mod0=2, addr=0)
    _, issue, _u = setup()
    movdbga2d_8rows(issue)
    for _ in range(3):
        issue(0, "NOP")
    load(issue, 0, mod0=2, addr=0)
    _, issue, _u = setup()
    movdbga2d_8rows(issue)
    issue(0, "STALLWAIT", stall_res=1 << 8, wait_res=1 << 7)  # B8 (SFPU), C7 (FPU)
    load(issue, 0, mod0=2, addr=0)
    _, issue, _u = setup()
    movdbga2d_8rows(issue)
    issue(0, "STALLWAIT", stall_res=1 << 6, wait_res=1 << 7)  # B6 does not hold the SFPU
    with pytest.raises(UndefinedBehaviour, match="after only 1 other instruction "):
        load(issue, 0, mod0=2, addr=0)


def test_sfpload_of_other_rows_or_thread_is_not_checked():
    _, issue, _u = setup()
    movdbga2d_8rows(issue, dst=0)
    load(issue, 0, mod0=2, addr=8)  # rows 8..11: not written
    movdbga2d_8rows(issue, dst=0)
    load(issue, 0, mod0=2, addr=0, thread=1)  # another thread: no documented timing
    movdbga2d_8rows(issue, dst=0)
    with pytest.raises(UndefinedBehaviour, match="DstBits rows 0..3"):
        load(issue, 0, mod0=FP32, addr=0)  # Dst32b rows 0..3 are DstBits 0..3 and 8..11


def test_sfploadmacro_load_part_is_checked():
    _, issue, _u = setup()
    set_sequence(issue, 0)
    set_misc(issue)
    movdbga2d_8rows(issue, dst=0)
    with pytest.raises(UndefinedBehaviour, match="SFPLOADMACRO reads .*SFPLOADMACRO.md"):
        loadmacro(issue, 0, vd=1, mod0=2)


def test_zeroacc_counts_as_a_dst_write():
    _, issue, _u = setup()
    issue(0, "ZEROACC", clear_mode=0, AddrMode=0, dst=2)  # one row
    with pytest.raises(UndefinedBehaviour, match="ZEROACC"):
        load(issue, 0, mod0=2, addr=0)


def test_log_stays_short():
    tile, issue, _u = setup()
    for i in range(200):
        movdbga2d_8rows(issue, dst=8 * (i % 4))
    assert len(tile.tensix.math.dst_log) <= 64
