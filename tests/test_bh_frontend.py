"""Blackhole frontend, Sync Unit and Configuration Unit (issue 9), against the BlackholeA0
pages (jasondavies/tt-isa-documentation BlackholeA0/TensixTile/TensixCoprocessor/):
STALLWAIT.md (13 renumbered condition bits, the block-mask table), SEMWAIT.md, ATGETM.md /
ATRELM.md (four mutexes), STREAMWAIT.md, STREAMWRCFG.md, CFGSHIFTMASK.md,
BackendConfiguration.md (CFG_STATE_SIZE 56, THD_STATE_SIZE 68, ConfigDualWrite), WRCFG /
RDCFG / RMWCIB / SETC16. References: the pages' functional models written out in Python
here, and cfg_defines.h indices (tt-metal hw/inc/blackhole) independent of ttemu's tables.
"""

import numpy as np
import pytest

from tensix_harness import make, warned
from ttemu import Unimplemented

RNG = np.random.default_rng(7)

# tt-metal hw/inc/blackhole/cfg_defines.h
CFG_BANK_WORDS = 56 * 4  # CFG_STATE_SIZE * 4
THD_STATE_SIZE = 68
GLOBAL_BASE = 180  # GLOBAL_CFGREG_BASE_ADDR32
SCRATCH_SEC0 = 209  # SCRATCH_SEC0_val_ADDR32 (SEC<i> at 209 + i)
THCON_SEC0_REG3_BASE_ADDRESS = 71  # THCON_SEC0_REG3_Base_address_ADDR32 (tt-llk tilize's target)
STREAMWAIT_NUM_MSGS_HI = 58  # STREAMWAIT_NUM_MSGS_HI_Val_ADDR32
STREAM_ID_SYNC_SEC0 = 59  # STREAM_ID_SYNC_SEC0_BankSel_ADDR32 (SEC<i> at 59 + i)
CFG_BASE = 0xFFEF0000  # TENSIX_CFG_BASE
OVERLAY = 0xFFB40000  # NOC_OVERLAY_START_ADDR; streams 0x1000 apart


def cfgword(tile, index, bank=0):
    return int(tile.tensix.config.cfg[bank, index])


def setcfg(tile, index, value, bank=0):
    tile.tensix.config.write_word(bank, index, value)


# ---------------------------------------------------------------------------------------
# Configuration geometry
# ---------------------------------------------------------------------------------------

def test_config_geometry_and_dual_write():
    """BackendConfiguration.md: Config[2][CFG_STATE_SIZE*4], ConfigDualWrite (writes land
    in both banks, reads return bank 0), then ThreadConfig[3][THD_STATE_SIZE] as 16-byte
    entries; GLOBAL_CFGREG_BASE_ADDR32 = 180."""
    tile, issue = make("blackhole")
    cfg = tile.tensix.config
    dual = CFG_BASE + 8 * CFG_BANK_WORDS
    cfg.write("brisc", dual + 4 * 100, 4, 0xCAFE)
    assert cfgword(tile, 100, 0) == cfgword(tile, 100, 1) == 0xCAFE
    cfg.write("brisc", CFG_BASE + 4 * (CFG_BANK_WORDS + 100), 4, 0xBEEF)  # bank 1 only
    assert (cfgword(tile, 100, 0), cfgword(tile, 100, 1)) == (0xCAFE, 0xBEEF)
    assert cfg.read("brisc", dual + 4 * 100, 4) == 0xCAFE
    cfg.write("brisc", CFG_BASE + 4 * GLOBAL_BASE, 4, 0x1234)  # global: both banks
    assert cfgword(tile, GLOBAL_BASE, 1) == 0x1234
    thread_cfg = dual + 4 * CFG_BANK_WORDS
    issue(2, "SETC16", setc16_reg=THD_STATE_SIZE - 1, setc16_value=0xA5A5)
    assert cfg.read("trisc2", thread_cfg + 16 * (2 * THD_STATE_SIZE + THD_STATE_SIZE - 1), 4) == 0xA5A5


def test_setc16_beyond_thd_state_size_warns():
    tile, issue = make("blackhole")
    issue(0, "SETC16", setc16_reg=THD_STATE_SIZE, setc16_value=1)
    assert "THD_STATE_SIZE (68)" in warned(tile, "SETC16")


def test_wrcfg_rdcfg_rmwcib_reach_blackhole_only_words():
    """WRCFG.md / RMWCIB.md on Blackhole: words up to CFG_STATE_SIZE*4 = 224 exist (beyond
    Wormhole's 188); the thread's CFG_STATE_ID_StateID picks the bank."""
    tile, issue = make("blackhole")
    gprs = tile.tensix.gprs[1]
    gprs[8:12] = [0x11111111, 0x22222222, 0x33333333, 0x44444444]
    issue(1, "WRCFG", CfgReg=200, wr128b=1, GprAddress=8)
    assert [cfgword(tile, 200 + k) for k in range(4)] == [0x11111111, 0x22222222, 0x33333333, 0x44444444]
    issue(1, "SETC16", setc16_reg=0, setc16_value=1)  # CFG_STATE_ID_StateID = 1
    issue(1, "RMWCIB2", CfgRegAddr=170, Data=0xAB, Mask=0xF0)
    assert cfgword(tile, 170, 1) == 0xA00000 and cfgword(tile, 170, 0) == 0
    setcfg(tile, 210, 0x5A5A5A5A)  # global
    issue(1, "RDCFG", CfgReg=210, GprAddress=3)
    assert gprs[3] == 0x5A5A5A5A
    issue(1, "WRCFG", CfgReg=CFG_BANK_WORDS, wr128b=0, GprAddress=3)
    assert "224" in warned(tile, "WRCFG CfgIndex")


# ---------------------------------------------------------------------------------------
# CFGSHIFTMASK / STREAMWRCFG
# ---------------------------------------------------------------------------------------

def _rotr(x, amt):
    return ((x >> amt) | (x << (32 - amt))) & 0xFFFFFFFF if amt else x


def cfgshiftmask_model(cfg_value, scratch, mask_mode, alu_mode, mask_width, rotate):
    """CFGSHIFTMASK.md functional model, on Python integers."""
    mask = ((2 << mask_width) - 1) & 0xFFFFFFFF
    s = _rotr(scratch & mask, rotate)
    c = cfg_value
    if mask_mode == 0:
        c &= ~_rotr(mask, rotate) & 0xFFFFFFFF
    ops = {0: c | s, 1: c & s, 2: c ^ s, 3: c + s, 4: c | ~s, 5: c & ~s, 6: c ^ ~s, 7: c - s}
    return ops[alu_mode] & 0xFFFFFFFF


def test_cfgshiftmask_as_tt_llk_tilize_uses_it():
    """tt-llk llk_unpack_tilize.h: TTI_CFGSHIFTMASK(1, 0b011, 32 - 1, 0, 0b11,
    THCON_SEC0_REG3_Base_address_ADDR32) adds SCRATCH_SEC[CurrentThread] to the address."""
    tile, issue = make("blackhole")
    setcfg(tile, SCRATCH_SEC0 + 0, 0x111)
    setcfg(tile, SCRATCH_SEC0 + 2, 0x40)  # thread 2's stride
    setcfg(tile, THCON_SEC0_REG3_BASE_ADDRESS, 0x1000)
    for _ in range(3):
        issue(2, "CFGSHIFTMASK", disable_mask_on_old_val=1, operation=3, mask_width=31, right_cshift_amt=0,
              scratch_sel=3, CfgReg=THCON_SEC0_REG3_BASE_ADDRESS)
    assert cfgword(tile, THCON_SEC0_REG3_BASE_ADDRESS) == 0x1000 + 3 * 0x40


@pytest.mark.parametrize("alu_mode", range(8))
@pytest.mark.parametrize("mask_mode", [0, 1])
def test_cfgshiftmask_matches_the_page_model(alu_mode, mask_mode):
    tile, issue = make("blackhole")
    for _ in range(6):
        scratch, old = (int(x) for x in RNG.integers(0, 1 << 32, size=2, dtype=np.uint64))
        width, rotate, sel = int(RNG.integers(0, 32)), int(RNG.integers(0, 32)), int(RNG.integers(0, 3))
        setcfg(tile, SCRATCH_SEC0 + sel, scratch)
        setcfg(tile, 64, old)
        issue(1, "CFGSHIFTMASK", disable_mask_on_old_val=mask_mode, operation=alu_mode, mask_width=width,
              right_cshift_amt=rotate, scratch_sel=sel, CfgReg=64)
        assert cfgword(tile, 64) == cfgshiftmask_model(old, scratch, mask_mode, alu_mode, width, rotate)


def test_cfgshiftmask_uses_the_issuing_threads_bank():
    tile, issue = make("blackhole")
    setcfg(tile, SCRATCH_SEC0 + 1, 5)
    issue(0, "SETC16", setc16_reg=0, setc16_value=1)
    issue(0, "CFGSHIFTMASK", disable_mask_on_old_val=1, operation=3, mask_width=31, right_cshift_amt=0,
          scratch_sel=1, CfgReg=64)
    assert (cfgword(tile, 64, 0), cfgword(tile, 64, 1)) == (0, 5)


def test_streamwrcfg_copies_an_overlay_stream_register():
    """STREAMWRCFG.md: Config[StateID][CfgIndex] = NOC_STREAM_READ_REG(
    ThreadConfig.STREAM_ID_SYNC_SEC[StreamSelect].BankSel, RegIndex); here the stream's
    remote_src register (offset 0x10, RegIndex 4), written by RISC-V through the overlay."""
    tile, issue = make("blackhole")
    tile.router.lookup(OVERLAY)[1].write("brisc", OVERLAY + 5 * 0x1000 + 0x10, 4, 0xABCDEF)
    issue(0, "SETC16", setc16_reg=STREAM_ID_SYNC_SEC0 + 1, setc16_value=5)
    issue(0, "STREAMWRCFG", CfgReg=90, StreamRegAddr=4, stream_id_sel=1)
    assert cfgword(tile, 90) == 0xABCDEF


def test_streamwrcfg_of_an_unmodelled_stream_register_stops():
    tile, issue = make("blackhole")
    with pytest.raises(Unimplemented, match="noc_overlay stream 0"):
        issue(0, "STREAMWRCFG", CfgReg=90, StreamRegAddr=29, stream_id_sel=0)


# ---------------------------------------------------------------------------------------
# STREAMWAIT
# ---------------------------------------------------------------------------------------

def test_streamwait_blocks_until_the_stream_reaches_its_target():
    """STREAMWAIT.md: TargetValue = ThreadConfig STREAMWAIT_NUM_MSGS_HI_Val << 10 |
    TargetValueLo for C1 (messages received, stream register 259); a zero block mask
    means B6 (Matrix Unit). The NoC overlay's stream counters are not modelled, so a
    stand-in supplies the register here."""
    tile, issue = make("blackhole")
    cop = tile.tensix
    seen, value = [], [0]

    def stream_reg(thread, select, index):
        seen.append((thread, select, index))
        return value[0]
    cop.stream_reg = stream_reg
    issue(1, "SETC16", setc16_reg=STREAMWAIT_NUM_MSGS_HI, setc16_value=1)
    t = issue(1, "STREAMWAIT", stall_res=0, target_value=5, target_sel=1, wait_stream_sel=2)
    assert t.gate.opcode == "STREAMWAIT"
    issue(1, "SETC16", setc16_reg=3, setc16_value=0)  # Configuration Unit (B7): passes
    assert t.held is None
    issue(1, "ZEROACC", clear_mode=3, where=0, addr_mode=0)  # Matrix Unit (B6): held
    assert t.held is not None and "messages received 0 < 1029" in t.held_reason
    value[0] = 1028
    cop.kick()
    assert t.held is not None
    value[0] = 1029
    cop.kick()
    assert t.held is None and t.gate.opcode is None
    assert set(seen) == {(1, 2, 259)}


def test_streamwait_phase_condition_and_block_mask():
    """C0 compares the current phase (register 29) with STREAMWAIT_PHASE_HI_Val << 10 |
    TargetValueLo; an explicit block mask selects what waits."""
    tile, issue = make("blackhole")
    cop = tile.tensix
    cop.stream_reg = lambda thread, select, index: 3 if index == 29 else 1 << 20
    t = issue(0, "STREAMWAIT", stall_res=1 << 7, target_value=4, target_sel=0, wait_stream_sel=0)
    issue(0, "ZEROACC", clear_mode=3, where=0, addr_mode=0)  # B6 not selected: passes
    assert t.held is None
    issue(0, "SETC16", setc16_reg=3, setc16_value=0)
    assert t.held is not None and "current phase 3 < 4" in t.held_reason


def test_streamwait_on_unmodelled_overlay_stops_naming_the_register():
    tile, issue = make("blackhole")
    with pytest.raises(Unimplemented, match="noc_overlay stream 0 register"):
        issue(0, "STREAMWAIT", stall_res=0, target_value=1, target_sel=1, wait_stream_sel=0)
        issue(0, "ZEROACC", clear_mode=3, where=0, addr_mode=0)


# ---------------------------------------------------------------------------------------
# STALLWAIT / SEMWAIT / mutexes
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("arch,holds", [("blackhole", True), ("wormhole_b0", False)])
def test_stallwait_c7_is_srca_ownership_on_blackhole(arch, holds):
    """Blackhole renumbers the conditions: C7 is SrcA[MatrixUnit.SrcABank] not given to
    the Matrix Unit (Wormhole's C7 is "Matrix Unit busy", never true between
    instructions here). SETDVALID (Miscellaneous Unit, B0 only) gives the bank over."""
    tile, issue = make(arch)
    t = issue(0, "STALLWAIT", stall_res=1 << 6, wait_res=1 << 7)
    fields = {"where": 0, "addr_mode": 0} if arch == "blackhole" else {"dst": 0, "AddrMode": 0}
    issue(0, "ZEROACC", clear_mode=3, **fields)
    assert (t.held is not None) == holds
    if holds:
        assert "C7 SrcA bank not owned by the Matrix Unit" in t.held_reason
        issue(1, "SETDVALID", setvalid=1)
        assert t.held is None


def test_semwait_is_held_by_any_block_bit_on_blackhole():
    """STALLWAIT.md's block-mask table: on Blackhole SEMWAIT is held by every block bit
    (on Wormhole only by B1), so a latched wait blocking the Matrix Unit (B6) also holds
    the next SEMWAIT instead of letting it replace the latch."""
    for arch, held in (("blackhole", True), ("wormhole_b0", False)):
        tile, issue = make(arch)
        issue(0, "SEMINIT", max_value=2, init_value=1, sem_sel=0b10)
        t = issue(0, "SEMWAIT", stall_res=1 << 6, sem_sel=0b1, wait_sem_cond=1)  # sem0 == 0: latched
        issue(0, "SEMWAIT", stall_res=1 << 6, sem_sel=0b10, wait_sem_cond=1)
        assert (t.held is not None) == held, arch


def test_semwait_zero_condition_is_the_blackhole_stallwait_default():
    """SEMWAIT.md (BlackholeA0): ConditionMask 0 latches a STALLWAIT with 0x0F."""
    tile, issue = make("blackhole")
    t = tile.tensix.threads[0]
    tile.tensix.sync.SEMWAIT(t, stall_res=0, sem_sel=1, wait_sem_cond=0)
    assert (t.gate.opcode, t.gate.cond_mask, t.gate.block_mask) == ("STALLWAIT", 0x0F, 0x40)


def test_blackhole_has_four_mutexes():
    """ATGETM.md / ATRELM.md (BlackholeA0): "Blackhole only has four mutexes" - index 1
    and indices above 4 wait forever (Wormhole's go up to 7)."""
    tile, issue = make("blackhole")
    t0 = issue(0, "ATGETM", mutex_index=4)
    assert t0.held is None
    t1 = issue(1, "ATGETM", mutex_index=4)
    assert t1.held is not None and "held by t0" in t1.held_reason
    issue(0, "ATRELM", mutex_index=4)
    assert t1.held is None
    t2 = issue(2, "ATGETM", mutex_index=5)
    assert t2.held is not None and "does not exist (indices 0, 2, 3, 4" in t2.held_reason
    wh, issue_wh = make("wormhole_b0")
    assert issue_wh(2, "ATGETM", mutex_index=5).held is None


# ---------------------------------------------------------------------------------------
# Against ttsim's Blackhole library
# ---------------------------------------------------------------------------------------

def test_config_unit_matches_ttsim_blackhole():
    """BRISC writes scratch and THCON words with ``sw``, pushes CFGSHIFTMASK (tt-llk's
    form, the one ttsim supports: MaskMode 1, AluMode 3, MaskWidth 31, RotateAmt 0; every
    ScratchIndex) and RMWCIB0..3, waits, reads the words back with ``lw`` and stores them
    to L1: the words must be bit-identical to ttsim's Blackhole run."""
    from oracle_lib import require_ttsim
    from rv32asm import Program, t0, t1, t2
    from ttemu import Tile
    from ttemu.cmd.oracle import cross_check
    from ttemu.isa.table import get_table

    lib = require_ttsim("blackhole")
    bh = get_table("blackhole")
    push, res, done = 0xFFE40000, 0x20000, 0x1FFFC
    words = (70, 71, 72, 73)  # THCON_SEC0_REG3 words, read and written by ttsim's Blackhole model
    p = Program(0)

    def sw(addr, value):
        p.li(t0, addr).li(t1, value).sw(t1, 0, t0)

    for i, v in enumerate((0x10, 0x200, 0x3000)):
        sw(CFG_BASE + 4 * (SCRATCH_SEC0 + i), v)
    for w in words:
        sw(CFG_BASE + 4 * w, 0x01000000 * w + 0x0F0F)
    insns = [bh.encode("CFGSHIFTMASK", disable_mask_on_old_val=1, operation=3, mask_width=31,
                       right_cshift_amt=0, scratch_sel=sel, CfgReg=w)
             for sel, w in ((0, 71), (1, 71), (2, 72), (3, 73), (3, 71))]
    insns += [bh.encode(f"RMWCIB{k}", CfgRegAddr=70, Data=0xA5 ^ k, Mask=0x3C) for k in range(4)]
    for insn in insns:
        sw(push, insn)
    p.li(t2, 2000).label("wait").addi(t2, t2, -1).bne(t2, 0, "wait")  # let ttsim's Tensix catch up
    p.li(t1, res)
    for k, w in enumerate(words):
        p.li(t0, CFG_BASE + 4 * w).lw(t2, 0, t0).sw(t2, 4 * k, t1)
    sw(done, 1)
    p.label("end").j("end")
    tile = Tile("blackhole", record=True)
    tile.write(0, p.assemble())
    tile.release(["brisc"])
    assert tile.run(max_steps=100_000, until=[(done, 1)]).outcome == "until"
    got = [int.from_bytes(tile.read(res + 4 * k, 4), "little") for k in range(4)]
    rmw = 0x01000000 * 70 + 0x0F0F
    for k in range(4):
        byte = ((0xA5 ^ k) & 0x3C) | ((rmw >> 8 * k) & ~0x3C & 0xFF)
        rmw = (rmw & ~(0xFF << 8 * k)) | byte << 8 * k
    assert got == [rmw, 0x01000000 * 71 + 0x0F0F + 0x10 + 0x200 + 0x10, 0x01000000 * 72 + 0x0F0F + 0x3000,
                   0x01000000 * 73 + 0x0F0F + 0x10]
    diffs, _ = cross_check(tile, lib, [("config words", res, 16)], until=[(done, 1)])
    assert all(d.ok for d in diffs), "\n".join(d.text() for d in diffs)


def test_streamwait_reads_the_overlay_only_when_something_waits():
    """A latched STREAMWAIT that blocks nothing is never evaluated (nothing observable
    depends on it), so a program that latches one and moves on runs. A STALLWAIT (held by
    every block bit) has to wait for it: that needs the stream register, which the
    overlay does not model."""
    tile, issue = make("blackhole")
    t = issue(0, "STREAMWAIT", stall_res=1 << 6, target_value=1, target_sel=1, wait_stream_sel=0)
    issue(0, "SETC16", setc16_reg=3, setc16_value=0)  # not blocked (B7)
    assert t.held is None and t.gate.opcode == "STREAMWAIT" and t.issued == 2
    with pytest.raises(Unimplemented, match="noc_overlay stream 0 register"):
        issue(0, "STALLWAIT", stall_res=1 << 6, wait_res=1 << 12)


@pytest.mark.parametrize("insn,fields", [
    ("STREAMWRCFG", dict(CfgReg=90, StreamRegAddr=4, stream_id_sel=0)),
    ("STREAMWAIT", dict(stall_res=1, target_value=0, target_sel=0, wait_stream_sel=0))])
def test_ttsim_refuses_the_stream_instructions(insn, fields):
    """ttsim's Blackhole model decodes neither (a fact about ttsim: ttemu follows the
    BlackholeA0 pages, tests above)."""
    import bh_prog
    from oracle_lib import require_ttsim
    from ttemu.cmd.oracle import cross_check
    from ttemu.errors import OracleUnable

    lib = require_ttsim("blackhole")
    tile = bh_prog.run({}, [(insn, fields)])
    with pytest.raises(OracleUnable, match=f"ERROR: UnsupportedFunctionality: tensix_decode_{insn.lower()}$"):
        cross_check(tile, lib, [("l1", 0x20000, 16)], until=bh_prog.DONE)
