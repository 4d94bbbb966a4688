"""Configuration Unit: tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/
ConfigurationUnit.md, BackendConfiguration.md, SETC16.md, WRCFG.md, RMWCIB.md (and
RDCFG, named by ConfigurationUnit.md / BackendConfiguration.md without a page)."""

import random

import pytest

from tensix_harness import make, make_strict, warned
from ttemu import UndefinedBehaviour

CFG_BASE = 0xFFEF0000
BANK_WORDS = 188  # CFG_STATE_SIZE * 4
THREAD_WORDS = 57  # THD_STATE_SIZE
GLOBAL = 152  # GLOBAL_CFGREG_BASE_ADDR32
THREAD_BASE = CFG_BASE + 8 * BANK_WORDS
STATE_ID = 0  # ThreadConfig word of CFG_STATE_ID_StateID
STATE_RESET_EN = 4
PRNG_SEED = 164
CTX_CNT_RESET = 39  # UNPACK_MISC_CFG_CfgContextCntReset_0/1


def gprs(tile, t=0):
    return tile.tensix.gprs[t]


def cfg_word(tile, bank, index):
    """Config[bank][index] as RISC-V reads it."""
    return tile.read_u32(CFG_BASE + 4 * (bank * BANK_WORDS + index))


def thread_word(tile, thread, index):
    """ThreadConfig[thread][index].Value as RISC-V reads it (16-byte entries)."""
    return tile.read_u32(THREAD_BASE + 16 * (thread * THREAD_WORDS + index))


def use_bank(issue, thread, bank):
    issue(thread, "SETC16", setc16_reg=STATE_ID, setc16_value=bank)


# -- SETC16 ------------------------------------------------------------------------------------
def test_setc16():
    """SETC16.md: ThreadConfig[CurrentThread][CfgIndex] = NewValue."""
    tile, issue = make()
    issue(1, "SETC16", setc16_reg=12, setc16_value=0xBEEF)
    issue(2, "SETC16", setc16_reg=THREAD_WORDS - 1, setc16_value=0x1234)
    assert thread_word(tile, 1, 12) == 0xBEEF and thread_word(tile, 0, 12) == 0
    assert thread_word(tile, 2, THREAD_WORDS - 1) == 0x1234
    assert tile.tensix.config.thread_cfg[1, 12] == 0xBEEF


def test_setc16_out_of_bounds_warns_and_discards():
    """SETC16.md: CfgIndex >= THD_STATE_SIZE is undefined: a warning (once per site),
    the write goes nowhere; --strict stops."""
    tile, issue = make()
    before = tile.tensix.config.thread_cfg.copy()
    for _ in range(3):
        assert issue(0, "SETC16", setc16_reg=THREAD_WORDS, setc16_value=1).held is None
    assert "SETC16" in warned(tile, "SETC16", times=3)
    assert (tile.tensix.config.thread_cfg == before).all()
    tile, issue = make_strict()
    with pytest.raises(UndefinedBehaviour, match="SETC16"):
        issue(0, "SETC16", setc16_reg=THREAD_WORDS, setc16_value=1)


def test_setc16_context_counter_reset_hook():
    """BackendConfiguration.md: SETC16 to the UNPACK_MISC_CFG_CfgContextCntReset word
    resets thread i's unpacker context counters (hook on the unpackers)."""
    tile, issue = make()
    calls = []
    tile.tensix.unpack.reset_context_counters = lambda thread, value: calls.append((thread, value))
    issue(2, "SETC16", setc16_reg=CTX_CNT_RESET, setc16_value=0x10)
    issue(2, "SETC16", setc16_reg=CTX_CNT_RESET + 1, setc16_value=0x10)
    assert calls == [(2, 0x10)]


# -- WRCFG -------------------------------------------------------------------------------------
def test_wrcfg_32_and_128():
    """WRCFG.md: the thread's StateID picks the bank; 128-bit writes the aligned group
    of four from GPRs InputReg & ~3."""
    tile, issue = make()
    regs = gprs(tile, 1)
    regs[8:12] = [0x10, 0x11, 0x12, 0x13]
    issue(1, "WRCFG", CfgReg=22, wr128b=1, GprAddress=10)
    assert [cfg_word(tile, 0, i) for i in range(20, 24)] == [0x10, 0x11, 0x12, 0x13]
    use_bank(issue, 1, 1)
    issue(1, "WRCFG", CfgReg=100, wr128b=0, GprAddress=9)
    assert cfg_word(tile, 1, 100) == 0x11 and cfg_word(tile, 0, 100) == 0
    issue(1, "WRCFG", CfgReg=BANK_WORDS - 1, wr128b=0, GprAddress=11)  # global: both banks
    assert cfg_word(tile, 0, BANK_WORDS - 1) == 0x13 == cfg_word(tile, 1, BANK_WORDS - 1)


def test_wrcfg_riscv_gprs():
    tile, issue = make()
    tile.write_u32(0xFFE00000 + 4 * 5, 0xCAFEBABE, core="trisc0")
    issue(0, "WRCFG", CfgReg=60, wr128b=0, GprAddress=5)
    assert cfg_word(tile, 0, 60) == 0xCAFEBABE


def test_wrcfg_out_of_bounds_warns_and_discards():
    tile, issue = make()
    gprs(tile)[0] = 0x1234
    before = tile.tensix.config.cfg.copy()
    issue(0, "WRCFG", CfgReg=BANK_WORDS, wr128b=0, GprAddress=0)
    issue(0, "WRCFG", CfgReg=BANK_WORDS + 4, wr128b=1, GprAddress=0)
    warned(tile, "WRCFG", times=2)
    assert (tile.tensix.config.cfg == before).all()
    tile, issue = make_strict()
    with pytest.raises(UndefinedBehaviour, match="WRCFG"):
        issue(0, "WRCFG", CfgReg=BANK_WORDS, wr128b=0, GprAddress=0)


# -- RDCFG -------------------------------------------------------------------------------------
def test_rdcfg():
    """RDCFG: GPR = Config[StateID][CfgReg] (mirror of WRCFG's 32-bit form)."""
    tile, issue = make()
    tile.write_u32(CFG_BASE + 4 * 70, 0x01234567)  # bank 0
    tile.write_u32(CFG_BASE + 4 * (BANK_WORDS + 70), 0x89ABCDEF)  # bank 1
    issue(2, "RDCFG", CfgReg=70, GprAddress=63)
    assert gprs(tile, 2)[63] == 0x01234567
    use_bank(issue, 2, 1)
    issue(2, "RDCFG", CfgReg=70, GprAddress=1)
    assert gprs(tile, 2)[1] == 0x89ABCDEF
    assert tile.read_u32(0xFFE00000 + 4, core="trisc2") == 0x89ABCDEF


@pytest.mark.parametrize("reg,gpr,key,want", [(BANK_WORDS, 5, "CfgIndex", 0), (0xFFFF, 5, "CfgIndex", 0),
                                              (70, 64 + 5, "GprAddress", 0x01234567)])
def test_rdcfg_out_of_bounds_warns(reg, gpr, key, want):
    """Beyond the bank: reads 0; a GPR index >= 64: GprAddress & 63 (ttsim's field)."""
    tile, issue = make()
    tile.write_u32(CFG_BASE + 4 * 70, 0x01234567)
    gprs(tile)[5] = 0xFFFFFFFF
    issue(0, "RDCFG", CfgReg=reg, GprAddress=gpr)
    warned(tile, f"RDCFG {key}")
    assert gprs(tile)[5] == want
    tile, issue = make_strict()
    with pytest.raises(UndefinedBehaviour, match="RDCFG"):
        issue(0, "RDCFG", CfgReg=reg, GprAddress=gpr)


# -- RMWCIB ------------------------------------------------------------------------------------
@pytest.mark.parametrize("index1", [0, 1, 2, 3])
def test_rmwcib(index1):
    """RMWCIB.md: byte Index1 of Config[StateID][Index4] = (New & Mask) | (Old & ~Mask)."""
    rng = random.Random(index1)
    tile, issue = make()
    for _ in range(30):
        bank, index = rng.randrange(2), rng.randrange(8, BANK_WORDS)
        old = rng.getrandbits(32)
        tile.write_u32(CFG_BASE + 4 * (bank * BANK_WORDS + index), old)
        new, mask = rng.getrandbits(8), rng.getrandbits(8)
        use_bank(issue, 0, bank)
        issue(0, f"RMWCIB{index1}", CfgRegAddr=index, Data=new, Mask=mask)
        sh = 8 * index1
        byte = (new & mask) | ((old >> sh) & ~mask & 0xFF)
        want = (old & ~(0xFF << sh)) | (byte << sh)
        assert cfg_word(tile, bank, index) == want
        if index >= GLOBAL:
            assert cfg_word(tile, 1 - bank, index) == want


def test_rmwcib_out_of_bounds_warns_and_discards():
    tile, issue = make()
    before = tile.tensix.config.cfg.copy()
    issue(0, "RMWCIB2", CfgRegAddr=BANK_WORDS, Data=1, Mask=1)
    warned(tile, "RMWCIB2")
    assert (tile.tensix.config.cfg == before).all()
    tile, issue = make_strict()
    with pytest.raises(UndefinedBehaviour, match="RMWCIB2"):
        issue(0, "RMWCIB2", CfgRegAddr=BANK_WORDS, Data=1, Mask=1)


# -- special cases (BackendConfiguration.md) ---------------------------------------------------
def fill(tile):
    cfg = tile.tensix.config
    cfg.cfg[:, :] = 0x5A5A5A5A


@pytest.mark.parametrize("path", ["WRCFG", "RISCV"])
@pytest.mark.parametrize("bank", [0, 1])
def test_state_reset_en_clears_bank(path, bank):
    """Writing anything to Config[i][STATE_RESET_EN_ADDR32] zeroes Config[i][j] for
    j < GLOBAL_CFGREG_BASE_ADDR32; the other bank and the global words stay."""
    tile, issue = make()
    fill(tile)
    if path == "WRCFG":
        use_bank(issue, 0, bank)
        issue(0, "WRCFG", CfgReg=STATE_RESET_EN, wr128b=0, GprAddress=0)
    else:
        tile.write_u32(CFG_BASE + 4 * (bank * BANK_WORDS + STATE_RESET_EN), 1)
    cfg = tile.tensix.config.cfg
    assert not cfg[bank, :GLOBAL].any()
    assert (cfg[bank, GLOBAL:] == 0x5A5A5A5A).all()
    assert (cfg[1 - bank] == 0x5A5A5A5A).all()


def test_state_reset_en_128bit_write_then_rest_of_group():
    """A 128-bit WRCFG covering STATE_RESET_EN: words are written in ascending order,
    so the words after it in the group survive the reset."""
    tile, issue = make()
    fill(tile)
    gprs(tile)[0:4] = [1, 2, 3, 4]
    issue(0, "WRCFG", CfgReg=STATE_RESET_EN, wr128b=1, GprAddress=0)
    assert [cfg_word(tile, 0, i) for i in range(4, 8)] == [0, 2, 3, 4]
    assert cfg_word(tile, 0, 8) == 0 and cfg_word(tile, 0, 3) == 0


def test_state_reset_en_not_by_rmwcib():
    tile, issue = make()
    fill(tile)
    issue(0, "RMWCIB0", CfgRegAddr=STATE_RESET_EN, Data=1, Mask=0xFF)
    assert cfg_word(tile, 0, STATE_RESET_EN) == 0x5A5A5A01
    assert cfg_word(tile, 0, 0) == 0x5A5A5A5A


def test_prng_seed_hook():
    """Writing PRNG_SEED_Seed_Val re-seeds the PRNGs (the Vector Unit's hook)."""
    tile, issue = make()
    seeds = []
    tile.tensix.sfpu.seed_prng = seeds.append
    gprs(tile)[3] = 0xDEADBEEF
    issue(0, "WRCFG", CfgReg=PRNG_SEED, wr128b=0, GprAddress=3)
    tile.write_u32(CFG_BASE + 4 * PRNG_SEED, 42)
    issue(0, "RMWCIB1", CfgRegAddr=PRNG_SEED, Data=0x77, Mask=0xFF)
    assert seeds == [0xDEADBEEF, 42, 0x772A]
    assert cfg_word(tile, 1, PRNG_SEED) == 0x772A  # global


def test_prng_seed_without_hook():
    tile, issue = make()
    issue(0, "WRCFG", CfgReg=PRNG_SEED, wr128b=0, GprAddress=3)  # no hook: just stored


def test_cfg_report_names_fields_and_unnamed_bits():
    """--dump-cfg: non-zero fields by name, then bits no named field covers."""
    from ttemu.tensix.dump_regs import cfg_report

    tile, issue = make()
    tile.write_u32(CFG_BASE + 4 * 58, 0x50)  # THCON_SEC0_REG1_Out_data_format = 5
    issue(1, "SETC16", setc16_reg=STATE_ID, setc16_value=0x8001)  # bit 15: no field
    text, data = cfg_report(tile)
    assert data == {"cfg0": {"THCON_SEC0_REG1_Out_data_format": 5},
                    "thread1": {"CFG_STATE_ID_StateID": 1, "word0_unnamed_bits": 0x8000}}
    assert "THCON_SEC0_REG1_Out_data_format" in text and "word0_unnamed_bits" in text
