"""The chip model behind ``ttemu simlib``'s library (ttemu.chip), in process: PCI
configuration space, BAR windows and TLB decoding per arch, coordinate translation,
tiles built on first touch, plain memories, clocks, and the SoC descriptor. The
library itself, with tt-umd, tt-exalens and a C host, is tests/test_simlib.py."""

from __future__ import annotations

import struct

import pytest
import yaml

from ttemu.arch import get_arch
from ttemu.arch.chip import get_chip
from ttemu.chip.chip import Chip
from ttemu.chip.pcie import PciFunction
from ttemu.chip.soc_descriptor import soc_descriptor
from ttemu.errors import HostFault, Unimplemented

from rv32asm import Program, a0

BAR0, BAR2, BAR4 = 0x1_0000_0000, 0x1_2000_0000, 0x8_0000_0000
ARCHS = ("wormhole_b0", "blackhole")


def pci(arch):
    return PciFunction(Chip(arch))


def wh_window(p, entry, x, y, addr, *, mcast_from=None, window_bits=24):
    """Program Wormhole TLB ``entry`` (its layout from tt-umd: the local offset below
    x_end) and return the BAR0 address of ``addr`` in its window."""
    x_end = 36 - window_bits
    cfg = (addr >> window_bits) | (x << x_end) | (y << (x_end + 6))
    if mcast_from is not None:
        cfg |= (mcast_from[0] << (x_end + 12)) | (mcast_from[1] << (x_end + 18)) | (1 << (x_end + 25))
    p.write(BAR0 + 0x1FC00000 + 8 * entry, cfg.to_bytes(8, "little"))
    kinds = {20: (0, 0), 21: (0x9C00000, 156), 24: (0xB000000, 166)}
    base, first = kinds[window_bits]
    return BAR0 + base + ((entry - first) << window_bits) + (addr & ((1 << window_bits) - 1))


def bh_window(p, entry, x, y, addr):
    words = (addr >> 21, (x << 11) | (y << 17), 0)
    for i, w in enumerate(words):
        p.write(BAR0 + 0x1FC00000 + 12 * entry + 4 * i, w.to_bytes(4, "little"))
    return BAR0 + (entry << 21) + (addr & 0x1FFFFF)


# -- configuration space ---------------------------------------------------------------------
@pytest.mark.parametrize("arch, device, revision", [("wormhole_b0", 0x401E, 1), ("blackhole", 0xB140, 0)])
def test_config_space(arch, device, revision):
    p = pci(arch)
    assert p.config_read(0, 0) == 0x1E52 | device << 16
    assert p.config_read(0, 0x08) == 0x12000000 | revision
    assert [p.config_read(0, o) for o in (0x10, 0x14, 0x18, 0x1C, 0x20, 0x24)] == [
        0x4, 0x1, 0x20000004, 0x1, 0x4, 0x8]
    assert p.config_read(0, 0x3C) == 0xFF
    for dev in (1, 2, 31):
        assert p.config_read(dev << 3, 0) == 0xFFFFFFFF
    with pytest.raises(HostFault):
        p.config_read(1, 0)  # function 1
    with pytest.raises(HostFault):
        p.config_read(0, 2)  # misaligned
    p.config_write(0, 0x04, 0xFFFF0006)
    assert p.config_read(0, 0x04) == 0x0006


# -- TLB windows --------------------------------------------------------------------------
@pytest.mark.parametrize("window_bits, entry", [(20, 3), (21, 160), (24, 166), (24, 185)])
def test_wh_tlb_windows_reach_l1_and_registers(window_bits, entry):
    p = pci("wormhole_b0")
    a = wh_window(p, entry, 1, 1, 0x1234, window_bits=window_bits)
    p.write(a, b"\x11\x22\x33\x44")
    assert p.chip.tile(1, 1).read_u32(0x1234) == 0x44332211
    assert p.read(a, 4) == b"\x11\x22\x33\x44"
    # the soft-reset register through the same kind of window
    r = wh_window(p, entry, 1, 1, 0xFFB121B0, window_bits=window_bits)
    assert int.from_bytes(p.read(r, 4), "little") == 0x47800


def test_bh_tlb_window_and_far_tile():
    p = pci("blackhole")
    a = bh_window(p, 5, 16, 11, 0x12_3450)
    p.write(a, bytes(range(16)))
    assert p.chip.tile(16, 11).read(0x12_3450, 16) == bytes(range(16))
    assert set(p.chip.tiles) == {(16, 11)}  # only what was touched exists


def test_tlb_config_registers_read_back_and_refuse_odd_widths():
    p = pci("wormhole_b0")
    p.write(BAR0 + 0x1FC00000 + 8 * 7 + 4, (0xABC).to_bytes(4, "little"))
    assert p.read(BAR0 + 0x1FC00000 + 8 * 7, 8) == struct.pack("<Q", 0xABC << 32)
    with pytest.raises(HostFault):
        p.write(BAR0 + 0x1FC00000 + 2, b"\0\0")
    with pytest.raises(HostFault):  # Blackhole entries are 32-bit words
        pci("blackhole").write(BAR0 + 0x1FC00000, bytes(8))


def test_window_overrun_is_refused():
    p = pci("wormhole_b0")
    a = wh_window(p, 0, 1, 1, 0xFFFFC, window_bits=20)
    with pytest.raises(HostFault, match="runs past"):
        p.write(a, bytes(8))


def test_multicast_writes_every_tensix_tile_of_the_rectangle():
    p = pci("wormhole_b0")
    a = wh_window(p, 166, 4, 2, 0x500, mcast_from=(3, 1))  # x 3-4, y 1-2 (column 5 is DRAM)
    p.write(a, b"\xAA\xBB\xCC\xDD")
    assert sorted(p.chip.tiles) == [(3, 1), (3, 2), (4, 1), (4, 2)]
    assert all(t.read_u32(0x500) == 0xDDCCBBAA for t in p.chip.tiles.values())
    with pytest.raises(HostFault, match="multicast"):
        p.read(a, 4)


def test_translated_and_noc1_coordinates():
    wh, bh = Chip("wormhole_b0"), Chip("blackhole")
    assert wh.node(18, 18) == (1, 1) and wh.node(25, 27) == (9, 11) and wh.node(22, 17) == (6, 6)
    assert wh.node(1, 1, noc=1) == (8, 10)  # NoC 1 counts from the opposite corner
    assert bh.node(17, 12) == (9, 0) and bh.node(18, 23) == (0, 8)
    assert bh.node(20, 25) == (1, 1) and bh.node(21, 25) == (16, 1) and bh.node(19, 24) == (2, 0)
    assert bh.node(1, 2) == (1, 2)
    with pytest.raises(HostFault, match="outside"):
        wh.node(12, 3)


def test_blackhole_pcie_niu_reports_translation():
    p = pci("blackhole")
    cfg0 = int.from_bytes(p.read(BAR0 + 0x1FD04100, 4), "little")
    assert cfg0 == 1 << 14
    node_id = int.from_bytes(p.read(BAR0 + 0x1FD04044, 4), "little")
    assert node_id & 0xFFF == 2 | 0 << 6  # the PCIe tile (2, 0)
    node_id1 = int.from_bytes(p.read(BAR0 + 0x1FD14044, 4), "little")
    assert node_id1 & 0xFFF == (16 - 2) | (11 << 6)


@pytest.mark.parametrize("arch, slot_base", [("wormhole_b0", 0x1200), ("blackhole", 0x1000)])
def test_iatu_registers_store(arch, slot_base):
    p = pci(arch)
    for off, v in ((0x0A04, 0), (0x0A10, 0xFFFDFFFF), (0x0A04, 0x80000000)):
        p.write(BAR2 + slot_base + off, v.to_bytes(4, "little"))
    assert int.from_bytes(p.read(BAR2 + slot_base + 0x0A10, 4), "little") == 0xFFFDFFFF
    assert int.from_bytes(p.read(BAR2 + slot_base + 0x0A04, 4), "little") == 0x80000000
    with pytest.raises(Unimplemented, match="DMA"):
        doorbell = {"wormhole_b0": 0x30, "blackhole": 0x104}[arch]
        p.write(BAR2 + doorbell, (0).to_bytes(4, "little"))


def test_wormhole_bar4_is_the_top_of_bar0():
    p = pci("wormhole_b0")
    a = wh_window(p, 185, 2, 3, 0x700)  # the last 16-MiB window: BAR0 0x1E000000, BAR4 offset 0
    p.write(a, b"\1\2\3\4")
    assert p.read(BAR4 + (a - BAR0) - 0x1E000000, 4) == b"\1\2\3\4"


def test_no_bar_is_a_host_fault():
    with pytest.raises(HostFault, match="no BAR"):
        pci("blackhole").read(0x2000, 4)


# -- nodes and memories ----------------------------------------------------------------------
def test_dram_channel_is_shared_by_its_nodes_and_eth_l1_is_memory():
    c = Chip("wormhole_b0")
    c.write((0, 1), 0x7FFF_FFF0, b"\x01\x02")  # channel 0 is served by (0, 0), (0, 1), (0, 11)
    assert c.read((0, 11), 0x7FFF_FFF0, 2) == b"\x01\x02"
    assert c.read((5, 0), 0x7FFF_FFF0, 2) == b"\0\0"
    c.write((1, 0), 0x100, b"\x55")
    assert c.read((1, 0), 0x100, 1) == b"\x55"
    data = bytes(range(200)) * 700  # 140,000 bytes across three 64 KiB pages
    c.write((5, 5), 0xFFF0, data)
    assert c.read((5, 6), 0xFFF0, len(data)) == data and c.read((5, 7), 0xFFE0, 16) == bytes(16)
    with pytest.raises(Unimplemented):
        c.read((0, 0), 0x8000_0000, 4)  # past the 2 GiB channel
    with pytest.raises(Unimplemented, match="router"):
        c.read((0, 2), 0, 4)


def test_tile_mmio_refusals_are_host_faults():
    c = Chip("blackhole")
    with pytest.raises(HostFault, match="whole 32-bit words"):
        c.read((1, 2), 0xFFB121B0, 2)


# -- clocks ---------------------------------------------------------------------------------
def _spin_program():
    p = Program(0)
    p.label("loop")
    p.addi(a0, a0, 1)
    p.j("loop")
    return p.assemble()


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("steps", [1, 7])
def test_clock_retires_steps_per_clock_on_each_running_core(arch, steps):
    c = Chip(arch, steps_per_clock=steps)
    xy = get_chip(arch).tensix[0]
    c.clock(5)  # nothing released: nothing to do, no tile built
    assert not c.tiles and c.clocks == 5
    c.write(xy, 0, _spin_program())
    reset = get_arch(arch).soft_reset_value
    c.write(xy, 0xFFB121B0, (reset & ~(1 << 11)).to_bytes(4, "little"))
    c.clock(1)
    c.clock(2)
    brisc = c.tile(*xy).harts["brisc"]
    assert brisc.steps == 3 * steps
    assert brisc.x[a0] == (3 * steps + 1) // 2  # addi, j, addi, ...
    c.write(xy, 0xFFB121B0, reset.to_bytes(4, "little"))  # back into reset
    c.clock(10)
    assert brisc.steps == 3 * steps and not c.active


# -- the SoC descriptor ---------------------------------------------------------------------
@pytest.mark.parametrize("arch, workers, name", [("wormhole_b0", 80, "WORMHOLE_B0"), ("blackhole", 140, "BLACKHOLE")])
def test_soc_descriptor(arch, workers, name):
    d = yaml.safe_load(soc_descriptor(arch))
    chip = get_chip(arch)
    assert d["arch_name"] == name
    assert (d["grid"]["x_size"], d["grid"]["y_size"]) == chip.grid
    assert len(d["functional_workers"]) == workers
    assert d["worker_l1_size"] == get_arch(arch).l1_size
    nodes = [n for k in ("arc", "pcie", "eth", "functional_workers", "router_only") for n in d[k]]
    nodes += [n for channel in d["dram"] for n in channel]
    assert len(nodes) == len(set(nodes))  # no node listed twice
    gx, gy = chip.grid
    assert all(0 <= int(n.split("-")[0]) < gx and 0 <= int(n.split("-")[1]) < gy for n in nodes)


@pytest.mark.parametrize("arch, xy, logical", [("wormhole_b0", (9, 11), (25, 27)), ("wormhole_b0", (1, 1), (18, 18)),
                                               ("blackhole", (16, 11), (16, 11))])
def test_each_tile_knows_its_place_on_the_noc(arch, xy, logical):
    """NOC_NODE_ID (both NoCs) and NOC_ID_LOGICAL of a tile the chip built."""
    c = Chip(arch)
    regs = {name: off for off, name, *_ in get_arch(arch).registers["noc0_regs"]}
    tile = c.tile(*xy)
    gx, gy = get_chip(arch).grid
    node0 = tile.host_read_u32(0xFFB20000 + regs["noc_node_id"])
    node1 = tile.host_read_u32(0xFFB30000 + regs["noc_node_id"])
    assert (node0 & 0x3F, node0 >> 6 & 0x3F) == xy
    assert (node1 & 0x3F, node1 >> 6 & 0x3F) == (gx - 1 - xy[0], gy - 1 - xy[1])
    ident = tile.host_read_u32(0xFFB20000 + regs["noc_id_logical"])
    assert (ident & 0x3F, ident >> 6 & 0x3F) == logical
