"""tt-exalens's own debugger API on ttemu (docs/debug-hardware.md), both arches.

In-process (``exalens_bridge``: exalens's Device layer replaced by the tile's host
reads and writes, everything above it exalens's code): run_elf, halt / status /
ebreak, register reads and writes, single steps, call stacks, get_tensix_state,
instruction injection and Dst dumps, checked against the tile's own API.

Through ``ttemu simlib``'s library (the path a user takes: ``init_ttexalens`` on the
``.so``, tests/exalens_debug_client.py in a process of its own): the same calls on
ttemu, and each on ttsim's library, which refuses them (its ERROR line is pinned).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

exalens_bridge = pytest.importorskip("exalens_bridge")  # skips without tt-exalens

from exalens_bridge import ExalensTile  # noqa: E402
from exalens_prog import CFG_FIELD, CFG_VALUE, GPR_T1_5, RESULT, TICKS, build  # noqa: E402
from ttemu import Tile  # noqa: E402

ARCHS = ("wormhole_b0", "blackhole")
HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def elfs(tmp_path_factory):
    return {arch: build(arch, tmp_path_factory.mktemp(arch)) for arch in ARCHS}


def _session(arch, elfs):
    from ttexalens import tt_exalens_lib as lib
    from ttexalens.elf import ElfFile

    tile = Tile(arch, ebreak_pauses=True)
    dev = ExalensTile(tile)
    elf = ElfFile(elfs[arch], None)
    lib.run_elf(elf, dev.location, "brisc")
    tile.run(max_steps=10_000)
    return tile, dev, elf, dev.location.noc_block.get_risc_debug("brisc")


@pytest.mark.parametrize("arch", ARCHS)
def test_run_elf_ebreak_registers_callstack_step_and_resume(arch, elfs):
    from ttexalens import tt_exalens_lib as lib

    tile, dev, elf, risc = _session(arch, elfs)
    hart = tile.harts["brisc"]
    leaf = elf.find_symbol_by_name("leaf")  # ebreak is leaf's fifth instruction (-O0 prologue)
    assert risc.is_halted() and risc.is_ebreak_hit()
    assert risc.get_pc() == hart.pc == leaf.value + 20  # after the ebreak
    assert [risc.read_gpr(i) for i in range(32)] == hart.x
    assert risc.read_gpr(10) == 6  # leaf(x + 1)
    stack = lib.callstack(dev.location, elf, risc_name="brisc")
    assert [e.function_name for e in stack][:2] == ["leaf", "middle"]
    assert stack[0].pc == leaf.value + 16  # exalens rewinds over the ebreak
    # local data RAM through the core (the stack): what the tile holds
    assert risc.read_memory(hart.x[2] + 28) == tile.read_u32(hart.x[2] + 28, core="brisc")
    risc.write_gpr(15, 0x5A5A)
    assert hart.x[15] == 0x5A5A
    pc = risc.get_pc()
    risc.step()  # (Blackhole: exalens issues two step commands)
    assert risc.get_pc() == pc + 4 and hart.pc == pc + 4 and risc.is_halted() and not risc.is_ebreak_hit()
    assert tile.read_u32(RESULT) == 0
    risc.cont()
    assert not risc.is_halted()
    tile.run(max_steps=tile.steps + 2000)
    assert tile.read_u32(RESULT) == 19 and tile.read_u32(TICKS) > 10
    risc.halt()
    ticks = tile.read_u32(TICKS)
    tile.run(max_steps=tile.steps + 2000)
    assert risc.is_halted() and tile.read_u32(TICKS) == ticks
    assert risc.read_status().is_halted and not risc.read_status().is_ebreak_hit
    assert elf.find_symbol_by_name("main").value <= risc.get_pc() < leaf.value + 0x1000


@pytest.mark.parametrize("arch", ARCHS)
def test_run_elf_on_a_trisc_moves_its_reset_pc_and_stops_at_the_ebreak(arch, tmp_path):
    """A TRISC's start address is a reset-pc override: Config words written through
    BRISC's debug interface on Wormhole (BRISC is released, paused on a jump-to-self,
    written through and put back in reset), debug registers on Blackhole."""
    from ttexalens import tt_exalens_lib as lib
    from ttexalens.elf import ElfFile

    tile = Tile(arch, ebreak_pauses=True)
    dev = ExalensTile(tile)
    elf = ElfFile(build(arch, tmp_path, "trisc0"), None)
    lib.run_elf(elf, dev.location, "trisc0")
    assert tile.harts["trisc0"].pc == 0x20000 and tile.harts["brisc"].state == "reset"
    assert tile.read_u32(0) == 0  # BRISC's borrowed word put back
    tile.run(max_steps=10_000)
    risc = dev.location.noc_block.get_risc_debug("trisc0")
    assert risc.is_ebreak_hit() and risc.get_pc() == elf.find_symbol_by_name("leaf").value + 20
    assert [e.function_name for e in lib.callstack(dev.location, elf, risc_name="trisc0")][:2] == ["leaf", "middle"]


@pytest.mark.parametrize("arch", ARCHS)
def test_get_tensix_state_shows_what_the_program_and_the_tile_set(arch, elfs):
    from ttexalens import tt_exalens_lib as lib

    tile, dev, _, risc = _session(arch, elfs)  # main wrote GPR T1[5] and the Dstacc format
    cop = tile.tensix
    cop.rwcs[1].SrcA, cop.rwcs[2].Dst, cop.rwcs[0].FidelityPhase = 13, 300, 2
    cop.adcs.channel(0, 0, 1).Y = 77  # Unpacker 0 channel 1
    cop.adcs.channel(2, 2, 0).Z_Cr = 9  # Packers channel 0
    state = lib.get_tensix_state(dev.location)
    gpr_names = list(state.gpr[1])
    assert state.gpr[1][gpr_names[5]] == GPR_T1_5 == cop.gprs[1][5]
    assert all(v == 0 for v in state.gpr[0].values())
    assert state.alu_config[0]["Format_Dstacc"] == CFG_VALUE == cop.config.get(CFG_FIELD)
    rwc, adc = state.register_window_counters, state.address_counters
    assert rwc["rwc2_dst"] == 300 and rwc["rwc0_srca"] == 0
    assert rwc["rwc1_srca" if arch == "wormhole_b0" else "rwc2_srca"] == (13 if arch == "wormhole_b0" else 0)
    assert adc["adcs0_unpacker0_channel1_y_counter"] == 77 and adc["adcs2_packers_channel0_z_cr"] == 9
    assert risc.is_halted() and risc.is_ebreak_hit()  # the TRISCs' dance (release, halt, reset) left BRISC alone
    assert all(tile.harts[c].state == "reset" for c in ("trisc0", "trisc1", "trisc2"))


@pytest.mark.parametrize("arch", ARCHS)
def test_injected_instructions_and_a_dst_dump(arch):
    from ttexalens.debug_tensix import TensixDebug
    from ttexalens.pack_unpack_regfile import TensixDataFormat

    tile = Tile(arch)
    dev = ExalensTile(tile)
    ops = dev.instructions
    td = TensixDebug(dev.location)
    store = dev.location.noc_block.get_register_store()
    store.write_register("ALU_FORMAT_SPEC_REG2_Dstacc", TensixDataFormat.Float16_b.value)  # via BRISC's debug writes
    assert tile.tensix.config.get("ALU_FORMAT_SPEC_REG2_Dstacc") == TensixDataFormat.Float16_b.value
    td.inject_instruction(ops.TT_OP_SFPLOADI(0, 0, 0x3FC0), 1)  # LReg0 = 1.5 (BF16)
    td.inject_instruction(ops.TT_OP_SFPSTORE(0, 0, 3, 0), 1)  # to Dst rows 0-3
    assert tile.tensix.threads[1].issued == 2
    values = td.read_regfile("dstacc")  # DBG_ARRAY_RD, 64 rows
    bits = tile.tensix.dst.bits
    # exalens reads each 32-bit word big-endian: columns 2i + 1, 2i of a row
    from ttexalens.pack_unpack_regfile import unpack_bfp16

    raw = b"".join((int(bits[r, 2 * i]) | int(bits[r, 2 * i + 1]) << 16).to_bytes(4, "big")
                   for r in range(64) for i in range(8))
    assert values == unpack_bfp16(raw)
    assert values.count(1.5) == 4 * 8  # four rows, the Vector Unit's even columns


def test_blackhole_dst_written_and_read_through_trisc0s_window():
    """TensixDebug.write_regfile / read_regfile on Blackhole: FP32 through the Dst
    window at 0xFFBD8000, by TRISC0's debug interface (the pause-in-reset dance)."""
    from ttexalens.debug_tensix import REGFILE, TensixDebug
    from ttexalens.pack_unpack_regfile import TensixDataFormat

    tile = Tile("blackhole")
    td = TensixDebug(ExalensTile(tile).location)
    data = [0.25 * i - 100.0 for i in range(1024)]
    td.write_regfile(REGFILE.DSTACC, data, TensixDataFormat.Float32)
    assert td.read_regfile(REGFILE.DSTACC, 1) == data
    import numpy as np

    want = np.array(data, dtype=np.float32).view(np.uint32)
    assert (tile.tensix.dst.read32(0, 64).reshape(-1) ==
            (want & 0x8000FFFF) | ((want & 0x7F800000) >> 7) | ((want & 0x007F0000) << 8)).all()
    assert tile.harts["trisc0"].state == "reset"


# -- through ttemu simlib's library, and on ttsim ----------------------------------------------------
TILE = {"wormhole_b0": "1-1", "blackhole": "1-2"}


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    """ttemu's library per arch, and ttsim's beside the same SoC descriptor (or the reason
    it is unavailable)."""
    import shutil

    from oracle_lib import ttsim_lib

    if shutil.which("gcc") is None:
        pytest.skip("no C compiler: ttemu simlib compiles its library with one")
    out = {}
    for arch in ARCHS:
        d = tmp_path_factory.mktemp(f"lib-{arch}")
        proc = subprocess.run([sys.executable, "-m", "ttemu", "simlib", "--arch", arch, str(d)], cwd=HERE.parent,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        so = Path(proc.stdout.strip())
        path, why = ttsim_lib(arch)
        sim = None
        if path is not None:
            ds = tmp_path_factory.mktemp(f"ttsim-{arch}")
            shutil.copy(path, ds / so.name)
            shutil.copy(d / "soc_descriptor.yaml", ds)
            sim = str(ds / so.name)
        out[arch] = (str(so), sim, why)
    return out


def _client(lib, arch, elf, action):
    proc = subprocess.run([sys.executable, str(HERE / "exalens_debug_client.py"), lib, TILE[arch], elf, action],
                          capture_output=True, text=True, timeout=600, cwd=HERE)
    return proc


@pytest.mark.parametrize("arch", ARCHS)
def test_exalens_debugging_session_on_ttemus_library(arch, libs, elfs):
    proc = _client(libs[arch][0], arch, elfs[arch], "session")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["halted"] and got["ebreak"] and got["a0"] == 6
    assert got["callstack"][:2] == ["leaf", "middle"]
    assert got["step"] == got["pc"] + 4
    assert got["result"] == 19 and got["halted_again"]
    assert got["gpr_t1_5"] == GPR_T1_5 and got["dstacc"] == CFG_VALUE
    assert got["injected"] == 0xBEEF


#: what ttsim (v1.10.0) says to each call: its ERROR line (register reads, steps, resume and
#: is_ebreak_hit start with the same DR access as halt; get_tensix_state: Wormhole first
#: reads TRISC0's start PC override, config word 161; Blackhole, whose override is a debug
#: register, first pauses a TRISC to read its GPRs)
TTSIM_REFUSES = {
    "run_elf": "UnsupportedFunctionality: riscv_debug_regs_wr32: RISC_DBG_CNTL_0",
    "halt": "UnsupportedFunctionality: riscv_debug_regs_wr32: RISC_DBG_CNTL_0",  # (is_halted: read_status first)
    "get_tensix_state": {"wormhole_b0": "UnimplementedFunctionality: tensix_cfg_rd32: reg=161",
                         "blackhole": "UnsupportedFunctionality: riscv_debug_regs_wr32: RISC_DBG_CNTL_0"},
    "inject": "UnimplementedFunctionality: riscv_debug_regs_rd32: DBG_INSTRN_BUF_STATUS",
}


@pytest.mark.parametrize("action", sorted(TTSIM_REFUSES))
@pytest.mark.parametrize("arch", ARCHS)
def test_the_same_calls_stop_ttsim(arch, action, libs, elfs):
    _, ttsim_so, why = libs[arch]
    if ttsim_so is None:
        pytest.skip(why)
    proc = _client(ttsim_so, arch, elfs[arch], action)
    refusal = TTSIM_REFUSES[action]
    refusal = refusal if isinstance(refusal, str) else refusal[arch]
    assert proc.returncode != 0
    assert f"ERROR: {refusal}" in proc.stdout + proc.stderr, proc.stdout[-500:]
