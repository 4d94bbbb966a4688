"""The debug hardware external debuggers use (docs/debug-hardware.md), driven by
host-side register reads and writes as tt-exalens 0.4.2 issues them
(ttexalens/hardware/baby_risc_debug.py, debug_bus_signal_store.py, debug_tensix.py,
register_store.py), against state the tile's own API reports."""

import pytest

from rv32asm import Program, a0, a1, a2, t0, t1
from ttemu import Tile
from ttemu.errors import GuestAssertion, GuestFault, Unimplemented, UsageError
from ttemu.isa.table import get_table, rotl2

BASE = 0xFFB12000
RESET_PC = {"brisc": 0x0, "trisc0": 0x6000, "trisc1": 0xA000, "trisc2": 0xE000}
ARCHES = ["wormhole_b0", "blackhole"]
RISC_ID = {"brisc": 0, "trisc0": 1, "trisc1": 2, "trisc2": 3}


class Host:
    """The host side of exalens's sequences (BabyRiscDebugHardware, DebugBusSignalStore,
    RegisterStore, TensixDebug), transcribed register for register."""

    def __init__(self, tile):
        self.tile = tile

    def wr(self, off, value):
        self.tile.write_u32(BASE + off, value)

    def rd(self, off):
        return self.tile.read_u32(BASE + off)

    # BabyRiscDebugHardware.__riscv_write / __riscv_read
    def dr_write(self, core, reg, value):
        self.wr(0x84, value)  # RISC_DBG_CNTL_1
        self.wr(0x80, 0x80010000 + (RISC_ID[core] << 17) + reg)  # CNTL_0: trigger, write
        self.wr(0x80, 0)

    def dr_read(self, core, reg):
        self.wr(0x80, 0x80000000 + (RISC_ID[core] << 17) + reg)
        self.wr(0x80, 0)
        assert self.rd(0x88) & (1 << 30)  # STATUS_0: read valid
        return self.rd(0x8C)  # STATUS_1

    def command(self, core, bits):
        self.dr_write(core, 1, 0x80000000 | bits)  # COMMAND_DEBUG_MODE + ...

    def status(self, core):
        return self.dr_read(core, 0)

    def read_gpr(self, core, n):
        self.dr_write(core, 2, n)
        self.command(core, 0x8)
        return self.dr_read(core, 4)

    def write_gpr(self, core, n, value):
        self.dr_write(core, 3, value)
        self.dr_write(core, 2, n)
        self.command(core, 0x10)

    def read_memory(self, core, addr):
        self.dr_write(core, 2, addr)
        self.command(core, 0x20)
        return self.dr_read(core, 4)

    def write_memory(self, core, addr, value):
        self.dr_write(core, 3, value)
        self.dr_write(core, 2, addr)
        self.command(core, 0x40)

    # DebugBusSignalStore._read_signal_data
    def signal(self, daisy, sig, rd_sel):
        self.wr(0x54, (1 << 29) | (rd_sel << 25) | (daisy << 16) | sig)
        return self.rd(0x5C)

    def group(self, daisy, sig):  # read_signal_group_unsafe
        return sum(self.signal(daisy, sig, k) << (32 * k) for k in range(4))

    # RegisterStore.read_register of a ConfigurationRegisterDescription
    def config(self, index):
        self.wr(0x58, index)
        return self.rd(0x78)

    # TensixDebug.inject_instruction
    def inject(self, word, thread):
        while not self.rd(0xA8) & (1 << thread):
            pass
        self.wr(0xA0, 1 << thread)
        while not self.rd(0xA8) & (1 << thread):
            pass
        self.wr(0xA4, word)
        self.wr(0xA0, (1 << (4 + thread)) | (1 << thread))
        while not self.rd(0xA8) & (1 << (4 + thread)):
            pass
        self.wr(0xA0, 0)


def _steps(arch):
    return Tile(arch).arch.debug_hw.step_commands


def _ebreak_program(base=0):
    """ebreak; 8 nops (tt's -mtt-fix-whbhebreak pad); a0 = 0x10000; a1 = 0x87654000;
    sw a1, 0(a0); a2 = a2 + 1 forever (a store loop)."""
    p = Program(base)
    p.ebreak()
    for _ in range(8):
        p.nop()
    p.li(a0, 0x10000)
    p.li(a1, 0x87654000)
    p.sw(a1, 0, a0)
    p.label("loop")
    p.addi(a2, a2, 1)
    p.sw(a2, 4, a0)
    p.j("loop")
    return p


def _tile(arch, core="brisc", prog=None, **kw):
    tile = Tile(arch, ebreak_pauses=True, **kw)
    p = prog or _ebreak_program(RESET_PC[core])
    tile.write(p.base, p.assemble())
    tile.write_u32(0x10000, 0x12345678)
    tile.release([core])
    return tile, p


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("core", ["brisc", "trisc1"])
def test_ebreak_pauses_the_core_with_the_ebreak_status_and_pc_after_it(arch, core):
    tile, p = _tile(arch, core)
    h = Host(tile)
    r = tile.run(max_steps=10_000)
    assert r.outcome == "hang" and r.cores[core].state == "paused"
    assert "paused by its debug interface after ebreak/ecall" in r.blocked[0]
    assert h.status(core) == 0x9  # paused, ebreak hit (DebugInterface.md "Status bitmask")
    assert h.read_gpr(core, 32) == p.base + 4 == tile.harts[core].pc
    assert tile.read_u32(0x10000) == 0x12345678  # nothing after the ebreak ran
    # the pc the daisychain shows (exalens's <core>_pc signal: WH group A bits 0-30, BH group B 32-61)
    ga, gb = {"brisc": (10, 11), "trisc1": (14, 15)}[core]
    assert h.signal(7, ga, 0) & 0x7FFFFFFF == p.base + 4
    assert h.signal(7, gb, 1) & 0x3FFFFFFF == p.base + 4


@pytest.mark.parametrize("arch", ARCHES)
def test_step_read_and_write_registers_and_memory_then_resume(arch):
    tile, p = _tile(arch)
    h = Host(tile)
    tile.run(max_steps=1000)
    n = _steps(arch)
    for k in range(8 + 4):  # the pad, li a0 (lui), li a1 (lui + addi)
        for _ in range(n):
            h.command("brisc", 0x2)
        assert h.read_gpr("brisc", 32) == 4 + 4 * (k + 1) and h.status("brisc") == 0x1  # paused, no cause
    assert h.read_gpr("brisc", 10) == 0x10000 == tile.harts["brisc"].x[10]
    assert h.read_gpr("brisc", 11) == 0x87654000 == tile.harts["brisc"].x[11]
    h.write_gpr("brisc", 11, 0xCAFE0000)
    assert tile.harts["brisc"].x[11] == 0xCAFE0000
    for _ in range(n):
        h.command("brisc", 0x2)  # the sw
    assert tile.read_u32(0x10000) == 0xCAFE0000
    assert h.read_memory("brisc", 0x10000) == 0xCAFE0000
    h.write_memory("brisc", 0xFFB00010, 0xABCD)  # core-local data RAM, through the core
    assert tile.read_u32(0xFFB00010, core="brisc") == 0xABCD
    assert h.read_memory("brisc", 0xFFB00010) == 0xABCD
    h.write_gpr("brisc", 0, 5)  # x0 stays zero
    assert h.read_gpr("brisc", 0) == 0
    steps = tile.harts["brisc"].steps
    h.command("brisc", 0x4)  # continue
    assert h.status("brisc") == 0
    assert tile.run(max_steps=tile.steps + 300).outcome == "step-limit"
    assert tile.read_u32(0x10004) > 50 and tile.harts["brisc"].steps == steps + 300
    h.command("brisc", 0x1)  # halt: paused, no cause
    assert h.status("brisc") == 0x1
    count = tile.read_u32(0x10004)
    assert h.read_gpr("brisc", 12) in (count, count + 1)
    assert tile.run(max_steps=tile.steps + 300).outcome == "hang" and tile.read_u32(0x10004) == count


@pytest.mark.parametrize("arch", ARCHES)
def test_blackhole_steps_take_two_commands_per_instruction(arch):
    """tt-exalens issues Blackhole's step command twice ("a bug in hardware"); one per
    instruction is the Wormhole page's."""
    tile, _ = _tile(arch)
    h = Host(tile)
    tile.run(max_steps=1000)
    h.command("brisc", 0x2)
    assert h.read_gpr("brisc", 32) == (8 if arch == "wormhole_b0" else 4)
    h.command("brisc", 0x2)
    assert h.read_gpr("brisc", 32) == (12 if arch == "wormhole_b0" else 8)


def test_status_0_echoes_the_control_word_and_says_when_status_1_is_valid():
    """DebugInterface.md "RISCV_DEBUG_REG_RISC_DBG_STATUS_0": DR_i in bits 0-10,
    IsWrite << Which_RISCV in 13-16, bit 30 valid, bit 31 Trigger."""
    tile, _ = _tile("wormhole_b0")
    h = Host(tile)
    h.wr(0x80, 0x80000000 | (2 << 17) | 5)  # read DR(5) of T1
    assert h.rd(0x88) == 0x80000000 | (1 << 30) | 5
    h.wr(0x80, 0)
    h.wr(0x84, 0x11)
    h.wr(0x80, 0x80010000 | (3 << 17) | 2)  # write DR(2) of T2
    assert h.rd(0x88) == 0x80000000 | ((1 << 3) << 13) | 2  # valid cleared by a write
    h.wr(0x80, 0x80010000 | (3 << 17) | 3)  # Trigger already set: no second write
    assert tile.riscv_debug.cores["trisc2"].arg0 == 0x11 and tile.riscv_debug.cores["trisc2"].arg1 == 0
    assert h.rd(0x80) == 0x80010000 | (3 << 17) | 3 and h.rd(0x84) == 0x11


def test_pausing_one_core_leaves_the_others_running():
    b = Program(0)
    b.li(t0, 0x20000)
    b.label("loop")
    b.addi(t1, t1, 1)
    b.sw(t1, 0, t0)
    b.j("loop")
    tr = Program(0x6000)
    tr.li(t0, 0x20004)
    tr.label("loop")
    tr.addi(t1, t1, 1)
    tr.sw(t1, 0, t0)
    tr.j("loop")
    tile = Tile("wormhole_b0", quantum=64)
    tile.write(0, b.assemble())
    tile.write(0x6000, tr.assemble())
    tile.release(["brisc", "trisc0"])
    tile.run(max_steps=1000)
    h = Host(tile)
    assert tile.read_u32(0x20004) > 100
    h.command("trisc0", 0x1)
    frozen = tile.read_u32(0x20004)
    before = tile.read_u32(0x20000)
    tile.run(max_steps=tile.steps + 3000)
    assert tile.read_u32(0x20004) == frozen and tile.read_u32(0x20000) > before + 500
    assert tile.harts["trisc0"].state == "paused" and h.status("trisc0") == 1
    h.command("trisc0", 0x4)
    tile.run(max_steps=tile.steps + 3000)
    assert tile.read_u32(0x20004) > frozen


def test_a_step_that_waits_retires_when_its_load_can_complete():
    """TRISC0 steps a read of the mailbox from BRISC while it is empty: the core is
    busy (status 0) until BRISC writes it, then the load retires and it pauses again."""
    tr = Program(0x6000)
    tr.ebreak()
    tr.li(t0, 0xFFEC0000)  # mailbox from RISCV B
    tr.label("lw")
    tr.lw(a0, 0, t0)
    tr.halt()
    b = Program(0)
    b.li(t0, 0x30000)
    b.label("wait")
    b.lw(t1, 0, t0)  # the host's go
    b.beq(t1, 0, "wait")
    b.li(t0, 0xFFEC1000)  # mailbox to T0
    b.li(t1, 77)
    b.sw(t1, 0, t0)
    b.halt()
    tile = Tile("wormhole_b0", ebreak_pauses=True, quantum=64)
    tile.write(0, b.assemble())
    tile.write(0x6000, tr.assemble())
    tile.release(["brisc", "trisc0"])
    tile.run(max_steps=2000)
    h = Host(tile)
    assert h.status("trisc0") == 0x9
    while h.read_gpr("trisc0", 32) != tr.addr("lw"):
        h.command("trisc0", 0x2)
    h.command("trisc0", 0x2)  # the lw waits
    assert h.status("trisc0") == 0 and tile.harts["trisc0"].state == "stepping"
    tile.run(max_steps=tile.steps + 2000)  # nothing feeds it yet (BRISC polls the host's go)
    assert tile.harts["trisc0"].state == "stepping" and tile.harts["trisc0"].pc == tr.addr("lw")
    tile.write_u32(0x30000, 1)
    tile.run(max_steps=tile.steps + 2000)
    assert h.status("trisc0") == 1 and h.read_gpr("trisc0", 10) == 77
    assert h.read_gpr("trisc0", 32) == tr.addr("lw") + 4


def test_pc_write_and_bulk_register_clear():
    tile, _ = _tile("wormhole_b0")
    h = Host(tile)
    tile.run(max_steps=1000)
    h.write_gpr("brisc", 5, 99)
    h.command("brisc", 0x80)  # bulk GPR write: x1-x31 = 0
    assert all(v == 0 for v in tile.harts["brisc"].x)
    h.dr_write("brisc", 3, 0x24)
    h.command("brisc", 0x100)  # pc write in slow execution mode: DR(3)
    assert h.read_gpr("brisc", 32) == 0x24 and h.status("brisc") == 1  # still paused, cause cleared
    h.dr_write("brisc", 1, 0x100)  # without slow execution mode: the reset pc
    assert h.read_gpr("brisc", 32) == 0


def test_commands_that_need_a_pause_while_running_are_undefined_and_ignored():
    tile, _ = _tile("wormhole_b0")
    h = Host(tile)
    h.command("brisc", 0x8)  # GPR read while running
    assert any("not paused" in w for w in tile.warnings)
    tile.diagnostics.strict = True
    from ttemu.errors import UndefinedBehaviour

    with pytest.raises(UndefinedBehaviour):
        h.command("brisc", 0x20)


def test_hardware_breakpoints_stop_as_unimplemented():
    tile, _ = _tile("wormhole_b0")
    h = Host(tile)
    tile.run(max_steps=100)
    h.dr_write("brisc", 12, 0x40)  # DR(10 + 2): stored
    assert h.dr_read("brisc", 12) == 0x40
    with pytest.raises(Unimplemented, match="breakpoints"):
        h.dr_write("brisc", 5, 0x800)  # #2 breakpoint
    h.wr(0x80, 0)  # (the sequence stopped before clearing Trigger)
    h.dr_write("brisc", 5, 0x300)  # a mode below 8 is "disabled": stored
    assert h.dr_read("brisc", 5) == 0x300


def test_default_tiles_keep_ebreak_an_assertion_and_ecall_a_fault():
    p = Program(0)
    p.ebreak()
    tile = Tile("wormhole_b0")
    tile.write(0, p.assemble())
    tile.release(["brisc"])
    with pytest.raises(GuestAssertion):
        tile.run(max_steps=10)
    p = Program(0)
    p.ecall()
    tile = Tile("wormhole_b0")
    tile.write(0, p.assemble())
    tile.release(["brisc"])
    with pytest.raises(GuestFault, match="ecall"):
        tile.run(max_steps=10)


def test_ecall_pauses_like_ebreak_when_ebreaks_pause():
    p = Program(0)
    p.ecall()
    p.halt()
    tile, _ = _tile("wormhole_b0", prog=p)
    tile.run(max_steps=10)
    assert Host(tile).status("brisc") == 0x9 and tile.harts["brisc"].pc == 4


def test_reset_clears_the_pause_and_the_python_api_refuses_ncrisc():
    tile, _ = _tile("wormhole_b0")
    tile.run(max_steps=100)
    tile.set_soft_reset(tile.soft_reset | (1 << 11))
    assert tile.harts["brisc"].state == "reset" and Host(tile).status("brisc") == 0
    tile.release(["brisc"])
    assert tile.harts["brisc"].state == "running"
    with pytest.raises(UsageError, match="no debug interface"):
        tile.riscv_debug.pause("ncrisc")
    tile.riscv_debug.pause("brisc")
    assert tile.riscv_debug.read_gpr("brisc", 32) == 0
    with pytest.raises(UsageError, match="not paused"):
        tile.riscv_debug.read_gpr("trisc0", 1)


# -- the daisychain -----------------------------------------------------------------------------
@pytest.mark.parametrize("arch", ARCHES)
def test_daisychain_adc_and_rwc_groups_show_the_counters(arch):
    """ADCs: DebugDaisychain.md's layout (both arches); RWCs: the arch's ``debug_hw``
    positions (Wormhole: the page; Blackhole: tt-exalens's signal map)."""
    tile = Tile(arch)
    cop = tile.tensix
    ch = cop.adcs.channel(0, 1, 1)  # ADCs[0].Unpacker[1] channel 1 -> SignalSel 3
    ch.X, ch.X_Cr, ch.Y, ch.Y_Cr, ch.Z, ch.Z_Cr, ch.W, ch.W_Cr = 0x3FFFF, 0x12345, 0x1ABC, 7, 0xEE, 3, 0x81, 9
    pk = cop.adcs.channel(2, 2, 0)  # ADCs[2].Packers channel 0 -> SignalSel 4
    pk.X = 5
    h = Host(tile)
    g = h.group(6, 3)
    assert [g & 0x3FFFF, g >> 18 & 0x3FFFF, g >> 64 & 0x1FFF, g >> 80 & 0x1FFF, g >> 96 & 0xFF, g >> 104 & 0xFF,
            g >> 112 & 0xFF, g >> 120 & 0xFF] == [0x3FFFF, 0x12345, 0x1ABC, 7, 0xEE, 3, 0x81, 9]
    assert h.group(6, 4) & 0x3FFFF == 5 and h.group(6, 0) == 0
    for t in range(3):
        r = cop.rwcs[t]
        r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.Dst, r.Dst_Cr, r.FidelityPhase = \
            10 + t, 20 + t, 30 + t, 40 + t, 500 + t, 600 + t, t + 1
    both = h.group(3, 2) | h.group(3, 3) << 128
    for name, bit, stride, width in tile.arch.debug_hw.rwc_bits:
        for t in range(3):
            assert both >> (bit + stride * t) & ((1 << width) - 1) == getattr(cop.rwcs[t], name)
    fid = h.group(3, 4)
    assert [fid >> (tile.arch.debug_hw.fidelity_bit + 2 * t) & 3 for t in range(3)] == [1, 2, 3]
    if arch == "wormhole_b0":  # DebugDaisychain.md "RWCs": RWCs[1].SrcB at bits 64-69, RWCs[2].Dst at 160
        assert both >> 64 & 0x3F == 31 and both >> 160 & 0x3FF == 502 and fid >> 62 & 3 == 1


def test_daisychain_self_test_l1_write_and_unmodelled_groups():
    tile = Tile("wormhole_b0")
    h = Host(tile)
    assert h.group(7, 255) == 7 | 0xA5A5A5A5 << 32 | 0x5A5A5A5A << 64 | 0xA5A5A5A5 << 96
    # DebugBusSignalStore._setup_l1_sampling_configuration / _execute_l1_sampling, WriteMode 1
    h.wr(0x54, (1 << 29) | (4 << 16) | 255)
    h.wr(0x50, 0xF)
    h.wr(0x48, 0x4000 >> 4)
    h.wr(0x50, (2 << 4) | 1)
    for _ in range(2):
        h.wr(0x50, (1 << 12) | (2 << 4) | 1)
        h.wr(0x50, (2 << 4) | 1)
    expect = (4 | 0xA5A5A5A5 << 32 | 0x5A5A5A5A << 64 | 0xA5A5A5A5 << 96).to_bytes(16, "little")
    assert tile.read(0x4000, 32) == expect * 2
    h.wr(0x54, (1 << 29) | (8 << 16) | 2)
    with pytest.raises(Unimplemented, match="DaisySel 8 SignalSel 2"):
        h.rd(0x5C)


def test_daisychain_frontend_group_shows_the_held_instruction():
    from tensix_harness import push_word

    tile = Tile("wormhole_b0")
    table = get_table("wormhole_b0")
    stall = table.encode("ATGETM", mutex_index=1)  # ATGETM.md: an invalid index waits forever
    push_word(tile, 1, stall)
    tile.tensix.kick()
    g = Host(tile).group(1, 8)  # thread T1
    assert g >> 55 & 0xFFFFFFFF == stall and not g >> 87 & 1
    assert Host(tile).group(1, 12) >> 87 & 1 and Host(tile).group(1, 12) >> 90 & 1  # T0: nothing


# -- Tensix debug paths --------------------------------------------------------------------------
@pytest.mark.parametrize("arch", ARCHES)
def test_cfgreg_reads_config_words_of_both_banks(arch):
    tile = Tile(arch)
    cfg = tile.tensix.config
    cfg.write_word(0, 1, 0x11111111)
    cfg.write_word(1, 1, 0x22222222)
    h = Host(tile)
    assert h.config(1) == 0x11111111
    assert h.config(cfg.bank_words + 1) == 0x22222222  # (uint32_t *) TENSIX_CFG_BASE)[x]
    assert h.rd(0x58) == cfg.bank_words + 1
    h.config(0x7FF)
    assert any("CFGREG_RD_CNTL" in w for w in tile.warnings)


@pytest.mark.parametrize("arch", ARCHES)
def test_dbg_array_reads_dst_rows_two_columns_at_a_time(arch):
    """tt-exalens's read_regfile_data: RD_EN, then RD_CMD row | 2 << 16 | i << 12, RD_DATA."""
    import numpy as np

    tile = Tile(arch)
    bits = tile.tensix.dst.bits
    rng = np.random.default_rng(5)
    bits[:] = rng.integers(0, 1 << 16, bits.shape, dtype=np.uint16)
    h = Host(tile)
    h.wr(0x60, 1)
    for row in (0, 17, 1023):
        got = []
        for i in range(8):
            h.wr(0x64, row + (2 << 16) + (i << 12))
            got.append(h.rd(0x6C))
        assert got == [int(bits[row, 2 * i]) | int(bits[row, 2 * i + 1]) << 16 for i in range(8)]
    assert h.rd(0x64) == 1023 + (2 << 16) + (7 << 12)
    h.wr(0x64, 3 | (1 << 16))
    with pytest.raises(Unimplemented, match="SrcB"):
        h.rd(0x6C)
    h.wr(0x60, 0)
    assert h.rd(0x6C) == 0 and any("DBG_ARRAY_RD_EN" in w for w in tile.warnings)


@pytest.mark.parametrize("arch", ARCHES)
def test_injected_instructions_execute_on_their_thread(arch):
    table = get_table(arch)
    tile = Tile(arch)
    h = Host(tile)
    assert h.rd(0xA8) == 0x77  # tt-metal's dbg_instrn_buf_wait_for_ready
    # SETDMAREG writes a 16-bit half of a GPR (ScalarUnit): GPR 5 of thread 2 = 0xBEEF
    h.inject(table.encode("SETDMAREG", Payload_SigSel=0xBEEF & 0x3FFF, Payload_SigSelSize=0xBEEF >> 14,
                          SetSignalsMode=0, RegIndex16b=2 * 5), 2)
    assert tile.tensix.gprs[2][5] == 0xBEEF and tile.tensix.gprs[0][5] == 0
    assert tile.tensix.threads[2].pushed == 1 and h.rd(0xA8) == 0x77


def test_core_pushes_to_a_thread_the_debug_bus_holds_are_discarded():
    table = get_table("wormhole_b0")
    word = table.encode("SETDMAREG", Payload_SigSel=0x1234, Payload_SigSelSize=0, SetSignalsMode=0, RegIndex16b=2)
    p = Program(0x6000)
    p.word(rotl2(word))
    p.halt()
    tile = Tile("wormhole_b0")
    tile.write(0x6000, p.assemble())
    h = Host(tile)
    h.wr(0xA0, 1)  # the debug bus takes T0's FIFO
    tile.release(["trisc0"])
    tile.run(max_steps=100)
    assert tile.tensix.gprs[0][1] == 0 and any("held by the debug bus" in w or "holds its FIFO" in w
                                                for w in tile.warnings)
    h.wr(0xA0, 0)


# -- Blackhole: RISC-V access to Dst ----------------------------------------------------------------
def _dst_core(fmt, no_swizzle=0, unsigned_int=0, thread=0):
    tile = Tile("blackhole")
    cfg = tile.tensix.config
    sec = f"RISC_DEST_ACCESS_CTRL_SEC{thread}_"
    cfg.set(sec + "fmt", fmt)
    cfg.set(sec + "no_swizzle", no_swizzle)
    cfg.set(sec + "unsigned_int", unsigned_int)
    return tile, f"trisc{thread}"


def test_blackhole_dst_window_32_bit_views_follow_dst_md():
    import numpy as np

    tile, core = _dst_core(0)
    dst = tile.tensix.dst
    dst.write32(3, np.arange(16, dtype=np.uint32) * 0x01010101 + 0x3F800000)
    for col in (0, 5):
        v = int(dst.read32(3)[0, col])
        want = (v & 0x8000FFFF) | ((v & 0x7F000000) >> 8) | ((v & 0x00FF0000) << 7)
        assert tile.core_read_u32(core, 0xFFBD8000 + 4 * (3 * 16 + col)) == want
    tile.core_write_u32(core, 0xFFBD8000 + 4 * 16, 0x40490FDB)  # pi, CPU layout -> Dst32b row 1
    v = 0x40490FDB
    assert int(dst.read32(1)[0, 0]) == (v & 0x8000FFFF) | ((v & 0x7F800000) >> 7) | ((v & 0x007F0000) << 8)
    assert tile.core_read_u32(core, 0xFFBD8000 + 4 * 16) == 0x40490FDB  # and back
    tile, core = _dst_core(1, thread=2)  # int32: two's complement <-> sign-magnitude
    tile.core_write_u32(core, 0xFFBD8000, (-5) & 0xFFFFFFFF)
    assert tile.core_read_u32(core, 0xFFBD8000) == (-5) & 0xFFFFFFFF
    with pytest.raises(GuestFault, match="T0 / T1 / T2"):
        tile.core_read_u32("brisc", 0xFFBD8000)


def test_blackhole_dst_window_16_and_8_bit_views():
    tile, core = _dst_core(3)  # bf16
    dst = tile.tensix.dst
    p = Program(0x6000)  # sh / lhu through TRISC0, as Dst.md says T0 must
    p.li(t0, 0xFFBD8000 + 2 * 17)
    p.li(t1, 0x3FC0)  # 1.5 as bf16
    p.sh(t1, 0, t0)
    p.lhu(a0, 0, t0)
    p.halt()
    tile.write(0x6000, p.assemble())
    tile.release([core])
    tile.run(max_steps=100)
    assert int(dst.read16(1)[0, 1]) == 0x407F  # Dst's BF16 layout: mantissa (0x40) above exponent (0x7F)
    assert tile.harts[core].x[a0] == 0x3FC0
    tile, core = _dst_core(5)  # int8: -3 -> sign + magnitude 3, as Integer "8"
    p = Program(0x6000)
    p.li(t0, 0xFFBD8000)
    p.li(t1, 0xFD)
    p.sb(t1, 0, t0)
    p.lb(a0, 0, t0)
    p.li(t1, 0x7F)
    p.sb(t1, 1, t0)
    p.lbu(a1, 1, t0)
    p.lw(a2, 0, t0)  # a 32-bit access of an 8-bit view: undefined
    p.halt()
    tile.write(0x6000, p.assemble())
    tile.release([core])
    tile.run(max_steps=100)
    d = tile.tensix.dst
    assert tile.harts[core].x[a0] == (-3) & 0xFFFFFFFF and tile.harts[core].x[a1] == 0x7F
    assert int(d.read16(0)[0, 1]) == (0x7F << 5) | 16
    assert tile.harts[core].x[a2] == 0 and any("fmt is 5" in w for w in tile.warnings)


def test_debug_memory_access_is_the_cores_view():
    """A TRISC's 2 KiB local RAM (Wormhole) ends where its window's unmapped part starts;
    Tensix GPRs are the core's own thread's; misaligned addresses fault."""
    p = Program(0xE000)
    p.ebreak()
    p.halt()
    tile, _ = _tile("wormhole_b0", core="trisc2", prog=p)
    tile.run(max_steps=10)
    h = Host(tile)
    tile.tensix.gprs[2][3] = 0x77
    assert h.read_memory("trisc2", 0xFFE00000 + 4 * 3) == 0x77  # T2 sees its thread's GPR 3
    h.write_memory("trisc2", 0xFFB007FC, 9)
    assert tile.read_u32(0xFFB007FC, core="trisc2") == 9
    with pytest.raises(GuestFault, match="unmapped"):
        h.read_memory("trisc2", 0xFFB00800)
    h.wr(0x80, 0)
    with pytest.raises(GuestFault, match="misaligned"):
        h.read_memory("trisc2", 0x102)
