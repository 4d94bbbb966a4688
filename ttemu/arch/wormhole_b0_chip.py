"""A Wormhole B0 chip (n150: 8 x 10 Tensix grid, nothing harvested).

Node positions (NoC 0): tt-umd's Wormhole SoC descriptors and tt-metal's
``wormhole_b0_80_arch.yaml``; DRAM: six channels of 2 GiB, each served by three
nodes. Virtual (translated) coordinates: x 18-25 and y 16-27 name the physical rows
and columns (the NIU translation tables of ``ttemu.arch.wormhole_b0``; ttsim's
``remap_virtual_coordinate`` agrees). PCIe view: ttsim's ``libttsim.cpp`` (device
0x401E; BAR0 512 MiB with 156 1-MiB, 10 2-MiB and 20 16-MiB TLB windows configured by
64-bit registers at 0x1FC00000, and the ARC's CSM and APB windows; BAR2's iATU and
DMA registers; BAR4 the top 32 MiB of BAR0). TLB field layouts: tt-umd
``wormhole_implementation``.
"""

from .chip import ChipSpec, PcieSpec, TlbKind, grid_nodes, tlb_fields
from .wormhole_b0 import NOC

_X = (1, 2, 3, 4, 6, 7, 8, 9)
_ARC = (0, 10)


def _axis(table, virtual):
    """A translation table (four words of eight 4-bit entries) -> {virtual: physical}
    for the ``virtual`` coordinates."""
    return {v: (table[v >> 3] >> (4 * (v & 7))) & 0xF for v in virtual}


def _translated():
    xt, yt = NOC.translate[0]
    xs, ys = _axis(xt, range(18, 26)), _axis(yt, range(16, 28))
    out = {}
    for vx, px in list(xs.items()) + [(x, x) for x in range(10)]:
        for vy, py in list(ys.items()) + [(y, y) for y in range(12)]:
            if (vx, vy) != (px, py):
                out[(vx, vy)] = (px, py)
    return out


PCIE = PcieSpec(
    device_id=0x401E,
    revision=1,
    bars=((0, 0x1_0000_0000, 512 << 20), (2, 0x1_2000_0000, 1 << 20), (4, 0x8_0000_0000, 32 << 20)),
    tlb_config_base=0x1FC00000,
    tlb_entry_bytes=8,
    tlb_windows=(
        TlbKind(0x0000000, 156, 20, 0, tlb_fields(16)),
        TlbKind(0x9C00000, 10, 21, 156, tlb_fields(15)),
        TlbKind(0xB000000, 20, 24, 166, tlb_fields(12)),
    ),
    bar4_tlbs=None,
    iatu=(0x1200, 0x3200),
    iatu_regs=(0x00, 0x04, 0x08, 0x0C, 0x10, 0x14, 0x18),
    dma=(0x0000, 0x1200),
    dma_doorbells=(0x10, 0x30),
    node_windows=((0x1FE80000, 0x80000, _ARC, 0x810000000), (0x1FF00000, 0x100000, _ARC, 0x880000000)),
)

CHIP = ChipSpec(
    arch="wormhole_b0",
    soc_name="WORMHOLE_B0",
    lib_name="libttsim_wh.so",
    grid=NOC.grid,
    tensix=grid_nodes(_X, (1, 2, 3, 4, 5, 7, 8, 9, 10, 11)),
    dram=(((0, 0), (0, 1), (0, 11)), ((0, 5), (0, 6), (0, 7)), ((5, 0), (5, 1), (5, 11)),
          ((5, 2), (5, 9), (5, 10)), ((5, 3), (5, 4), (5, 8)), ((5, 5), (5, 6), (5, 7))),
    dram_channel_size=2 << 30,
    eth=grid_nodes(_X, (0, 6)),
    eth_l1_size=256 << 10,
    arc=(_ARC,),
    pcie=((0, 3),),
    router_only=((0, 2), (0, 4), (0, 8), (0, 9)),
    translated=_translated(),
    arc_memory=((0x810000000, 0x80000), (0x880000000, 0x100000)),
    pcie_spec=PCIE,
)
