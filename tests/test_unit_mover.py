"""Mover: tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/XMOV.md,
../Mover.md (the Mover function) and ../TDMA-RISC.md (command queue, PACR_SETREG
configuration, packer sideband registers)."""

import numpy as np
import pytest

from tensix_harness import make, warned
from ttemu import GuestFault, UndefinedBehaviour
from ttemu.errors import Unimplemented
from ttemu.tensix.units.mover import TdmaRisc

TDMA = 0xFFB11000


def xmov_cfg(cop, dst, src, size, direction):
    cfg = cop.config
    cfg.set("THCON_SEC0_REG6_Destination_address", dst >> 4)
    cfg.set("THCON_SEC0_REG6_Source_address", src >> 4)
    cfg.set("THCON_SEC0_REG6_Buffer_size", size >> 4)
    cfg.set("THCON_SEC0_REG6_Transfer_direction", direction)


def xmov(issue, thread=0):
    return issue(thread, "XMOV", Mov_block_selection=0, Last=0)


def test_xmov_l1_to_l1_copies_16_byte_units():
    tile, issue = make()
    data = np.random.default_rng(1).integers(0, 256, 0x120, dtype=np.uint8).tobytes()
    tile.l1[0x1000:0x1120] = data
    xmov_cfg(tile.tensix, 0x8000, 0x1000, 0x120, 3)
    t = xmov(issue)
    assert t.held is None
    assert bytes(tile.l1[0x8000:0x8120]) == data
    assert bytes(tile.l1[0x8120:0x8130]) == bytes(16)


def test_xmov_buffer_size_uses_low_16_bits():
    tile, issue = make()
    tile.l1[0x1000:0x1020] = b"\x11" * 32
    xmov_cfg(tile.tensix, 0x8000, 0x1000, 0, 3)
    tile.tensix.config.set("THCON_SEC0_REG6_Buffer_size", (1 << 16) | 1)  # 16 bytes
    xmov(issue)
    assert bytes(tile.l1[0x8000:0x8020]) == b"\x11" * 16 + bytes(16)


def test_xmov_memset_l1():
    tile, issue = make()
    tile.l1[0x2000:0x2100] = b"\xff" * 0x100
    xmov_cfg(tile.tensix, 0x2010, 0xFFFFF0, 0x40, 0)  # L0_TO_L1: src is not read
    xmov(issue)
    assert bytes(tile.l1[0x2000:0x2100]) == b"\xff" * 16 + bytes(0x40) + b"\xff" * (0x100 - 0x50)


def test_xmov_l1_to_config_and_memset_config():
    tile, issue = make()
    cop = tile.tensix
    words = np.array([0x11111111, 0x22222222, 0x33333333, 0x44444444], dtype="<u4")
    tile.l1[0x3000:0x3010] = words.tobytes()
    xmov_cfg(cop, 0x40, 0x3000, 16, 1)  # Config bank 0, words 16..19
    xmov(issue)
    assert [cop.config.word(16 + k, 0) for k in range(4)] == list(words)
    xmov_cfg(cop, 0x40, 0, 16, 2)  # L0_TO_L0: memset
    xmov(issue)
    assert [cop.config.word(16 + k, 0) for k in range(4)] == [0] * 4


def test_xmov_to_ncrisc_iram_and_nowhere():
    tile, issue = make()
    cop = tile.tensix
    tile.l1[0x3000:0x3020] = bytes(range(32))
    xmov_cfg(cop, 0x40100, 0x3000, 32, 1)
    xmov(issue)
    assert bytes(tile.iram["ncrisc"][0x100:0x120]) == bytes(range(32))
    before = bytes(tile.l1)
    xmov_cfg(cop, 0x20000, 0x3000, 32, 1)  # NOWHERE: discarded
    xmov(issue)
    assert bytes(tile.l1) == before


def test_mover_undefined_cases_warn():
    """Mover.md's undefined cases ttemu can carry on from: a warning each (once per
    site), with the behaviour docs/undefined-behaviour.md names; --strict stops."""
    tile, issue = make()
    cop = tile.tensix
    data = bytes(range(0x50))
    tile.l1[0x1000:0x1050] = data
    xmov_cfg(cop, 0x1010, 0x1000, 0x40, 3)  # overlapping: memmove
    xmov(issue)
    warned(tile, "mover overlapping copy")
    assert bytes(tile.l1[0x1010:0x1050]) == data[:0x40]
    tile.l1[0x2000:0x2020] = bytes([0xAB] * 32)
    l1_before = bytes(tile.l1)
    xmov_cfg(cop, 0x2FFF0, 0x2000, 0x20, 1)  # NOWHERE, crossing its 64 KiB region: the first 16 bytes
    xmov(issue)
    warned(tile, "mover crosses 64 KiB region")
    assert bytes(tile.l1) == l1_before
    xmov_cfg(cop, 0x40000 + 16 * 1024 - 16, 0x2000, 0x20, 1)  # past NCRISC IRAM: the first 16 bytes
    xmov(issue)
    warned(tile, "mover beyond NCRISC IRAM")
    assert bytes(tile.iram["ncrisc"][-16:]) == bytes([0xAB] * 16)
    xmov_cfg(cop, 0x3000, 0x1000, 0x10, 3)
    issue(0, "XMOV", Mov_block_selection=1, Last=1)  # fields the model ignores
    warned(tile, "XMOV fields")
    assert bytes(tile.l1[0x3000:0x3010]) == data[:16]
    tile, issue = make()
    tile.diagnostics.strict = True
    xmov_cfg(tile.tensix, 0x1010, 0x1000, 0x40, 3)
    with pytest.raises(UndefinedBehaviour, match="overlapping"):
        xmov(issue)


def test_mover_faults_and_unimplemented():
    tile, issue = make()
    cop = tile.tensix
    xmov_cfg(cop, 1464 * 1024 - 16, 0, 0x20, 3)
    with pytest.raises(GuestFault, match="not inside L1"):
        xmov(issue)
    xmov_cfg(cop, 0x1000, 0, 0x10, 1)  # ThreadConfig region
    with pytest.raises(Unimplemented):
        xmov(issue)


# -- TDMA-RISC ----------------------------------------------------------------------------------
def tdma(tile):
    dev = TdmaRisc(tile.tensix)
    tile.router.attach("riscv_tdma_regs", dev)
    return dev


def test_tdma_mover_commands():
    tile, issue = make()
    dev = tdma(tile)
    tile.l1[0x1000:0x1040] = bytes(range(64))
    # command with parameters: Src, Dst, Count in 16-byte units, Mode 3 (L1 -> L1)
    for off, v in ((0x0, 0x1000 >> 4), (0x4, 0x5000 >> 4), (0x8, 4), (0xC, 3)):
        dev.write("brisc", TDMA + off, 4, v)
    dev.write("brisc", TDMA + 0x10, 4, 0x40)
    assert bytes(tile.l1[0x5000:0x5040]) == bytes(range(64))
    # compact command: Src = MovCmdBase + bits 15:8, Dst bits 23:16, Count bits 29:24, bit 30 L1->L1
    dev.write("trisc0", TDMA + 0x2C, 4, 0x100)
    assert dev.read("trisc0", TDMA + 0x2C, 4) == 0x100 and dev.read("brisc", TDMA + 0x2C, 4) == 0
    cmd = (1 << 31) | (1 << 30) | (2 << 24) | (0x60 << 16) | (0x02 << 8) | 0x40
    dev.write("trisc0", TDMA + 0x10, 4, cmd)  # src 0x102 << 4 = 0x1020, dst 0x600
    assert bytes(tile.l1[0x600:0x620]) == bytes(range(32, 64))
    # L1 write command (64-bit)
    for off, v in ((0x0, 0x7000), (0x8, 0xDDCCBBAA), (0xC, 0x44332211)):
        dev.write("brisc", TDMA + off, 4, v)
    dev.write("brisc", TDMA + 0x10, 4, 0x766)
    assert bytes(tile.l1[0x7000:0x7008]) == bytes.fromhex("aabbccdd11223344")
    dev.write("brisc", TDMA + 0x10, 4, (1 << 31) | 0x89)  # NOP
    assert dev.read("brisc", TDMA + 0x14, 4) == (1 << 3) | (1 << 5) | (4 << 8)
    with pytest.raises(Unimplemented, match="0x55"):
        dev.write("brisc", TDMA + 0x10, 4, 0x55)
    before = bytes(tile.l1[:16])
    dev.write("brisc", TDMA + 0x0, 4, 0)
    dev.write("brisc", TDMA + 0x8, 4, 0x12345678)
    dev.write("brisc", TDMA + 0x10, 4, 0x166)  # L1 write without bits 10:9: undefined, writes nothing
    warned(tile, "brisc TDMA-RISC L1 write form")
    assert bytes(tile.l1[:16]) == before
    dev.write("brisc", TDMA + 0x0, 4, 1464 * 1024)
    with pytest.raises(GuestFault, match="outside L1"):
        dev.write("brisc", TDMA + 0x10, 4, 0x666)
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="L1 write command"):
        dev.write("brisc", TDMA + 0x10, 4, 0x166)


def test_tdma_packer_configuration_and_sideband():
    tile, issue = make()
    dev = tdma(tile)
    pk = tile.tensix.pack
    dev.write("brisc", TDMA + 0x38, 4, (2 << 22) | (3 << 20) | (5 << 10) | 7)
    assert pk.set_reg_base == [(3 << 18) + (7 << 2), (2 << 18) + (5 << 2)]
    assert dev.read("brisc", TDMA + 0x38, 4) & 0xFF == 0x55  # four empty metadata FIFOs
    dev.write("brisc", TDMA + 0x3C, 4, (3 << 18) | (2 << 9) | 1)
    dev.write("brisc", TDMA + 0x28, 4, (0x1AB << 16) | 0xFFFF)
    assert pk.set_reg_hi_scaler == [1, 2, 3, 0x1AB]
    assert dev.read("brisc", TDMA + 0x28, 4) == ((0x1AB << 16) | 0xFFFF) & 0x01FF007F
    assert dev.read("brisc", TDMA + 0x13C, 4) == (3 << 18) | (2 << 9) | 1
    pk.last_tile_size[1] = 40
    pk.last_thread[1] = 2
    pk.acc_tile_size[1][2] = 77
    pk.metadata_fifo[1].append((40, 0))
    assert dev.read("brisc", TDMA + 0x118 + 0x80, 4) == 40  # PackerTileSize(1, 2)
    assert dev.read("brisc", TDMA + 0x118, 4) == 0
    assert dev.read("brisc", TDMA + 0x11C + 0x80, 4) == 77
    assert dev.read("brisc", TDMA + 0x130, 4) == 40  # peek
    assert dev.read("brisc", TDMA + 0x134, 4) == 0  # pop (AllZeroFlags)
    assert dev.read("brisc", TDMA + 0x130, 4) is None  # peek waits on an empty FIFO
    assert dev.read("brisc", TDMA + 0x134, 4) == 0  # pop of an empty FIFO: undefined data, a warning
    assert dev.read("brisc", TDMA + 0x134, 4) == 0
    warned(tile, "brisc TDMA-RISC pop empty metadata FIFO 1", times=2)
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="empty metadata FIFO"):
        dev.read("brisc", TDMA + 0x134, 4)
    dev.write("brisc", TDMA + 0x11C, 4, (1 << 17) | 0x1234)  # ResetPackerAccTileSize for packer 1
    assert pk.acc_tile_size[1] == [0, 0, 0] and pk.l1_dest_addr_offset[1] == 0x1234
