"""A Blackhole chip (p150: 14 x 10 Tensix grid, nothing harvested).

Node positions (NoC 0): tt-umd's ``blackhole_140_arch.yaml``; DRAM: eight channels
of 4 GiB, each served by three nodes; Ethernet L1 512 KiB (tt-metal
``dev_mem_map.h``). Translated coordinates (the NIU reports translation enabled,
NIU_CFG_0 bit 14): Tensix rows are their own; DRAM nodes are x 17-18, y 12-23;
Ethernet x 20-31 on y 25; the PCIe tile (19, 24) (ttsim ``remap_virtual_coordinate``,
which models translation the same way). PCIe view: ttsim's ``libttsim.cpp`` (device
0xB140; BAR0 512 MiB with 202 2-MiB TLB windows configured by three 32-bit words each
from 0x1FC00000, and the PCIe tile's NIU registers at 0x1FD04000 / 0x1FD14000; BAR2's
iATU and DMA read-channel registers; BAR4 32 GiB through 4-GiB TLBs 202-209). TLB
field layouts: tt-umd ``blackhole_implementation``.
"""

from .blackhole import NOC
from .chip import ChipSpec, PcieSpec, TlbKind, grid_nodes, tlb_fields

_X = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16)
_DRAM_Y = {12: 0, 13: 1, 14: 11, 15: 2, 16: 10, 17: 3, 18: 5, 19: 7, 20: 6, 21: 9, 22: 4, 23: 8}
_ETH = ((1, 1), (16, 1), (2, 1), (15, 1), (3, 1), (14, 1), (4, 1), (13, 1), (5, 1), (12, 1), (6, 1), (11, 1),
        (7, 1), (10, 1))


def _translated():
    out = {(tx, ty): (px, py) for tx, px in ((18, 0), (17, 9)) for ty, py in _DRAM_Y.items()}
    out.update({(20 + i, 25): node for i, node in enumerate(_ETH[:12])})
    out[(19, 24)] = (2, 0)
    return out


PCIE = PcieSpec(
    device_id=0xB140,
    revision=0,
    bars=((0, 0x1_0000_0000, 512 << 20), (2, 0x1_2000_0000, 1 << 20), (4, 0x8_0000_0000, 32 << 30)),
    tlb_config_base=0x1FC00000,
    tlb_entry_bytes=12,
    tlb_windows=(TlbKind(0, 202, 21, 0, tlb_fields(43, noc_sel_gap=1)),),
    bar4_tlbs=TlbKind(0, 8, 32, 202, tlb_fields(32, noc_sel_gap=1)),
    iatu=(0x1000, 0x3000),
    iatu_regs=(0x00, 0x04, 0x08, 0x0C, 0x10, 0x14, 0x18, 0x1C, 0x20),
    dma=(0x100, 0x1AC),
    dma_doorbells=(0x104,),
    niu_windows=((0x1FD04000, 0), (0x1FD14000, 1)),
)

CHIP = ChipSpec(
    arch="blackhole",
    soc_name="BLACKHOLE",
    lib_name="libttsim_bh.so",
    grid=NOC.grid,
    tensix=grid_nodes(_X, range(2, 12)),
    dram=(((0, 0), (0, 1), (0, 11)), ((0, 2), (0, 10), (0, 3)), ((0, 9), (0, 4), (0, 8)), ((0, 5), (0, 7), (0, 6)),
          ((9, 0), (9, 1), (9, 11)), ((9, 2), (9, 10), (9, 3)), ((9, 9), (9, 4), (9, 8)), ((9, 5), (9, 7), (9, 6))),
    dram_channel_size=4 << 30,
    eth=_ETH,
    eth_l1_size=512 << 10,
    arc=((8, 0),),
    pcie=((2, 0), (11, 0)),
    router_only=((1, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0), (10, 0), (12, 0), (13, 0), (14, 0), (15, 0),
                 (16, 0)) + grid_nodes((8,), range(1, 12)),
    l2cpu=((8, 10), (8, 4), (8, 8), (8, 6)),
    translated=_translated(),
    noc_translation=True,
    pcie_spec=PCIE,
)
