"""The SoC descriptor (``soc_descriptor.yaml``) tt-umd reads beside a simulator
library: the chip's nodes by kind in NoC 0 coordinates, sizes and the arch name,
written from ttemu's own arch data (:mod:`ttemu.arch.chip`) in the layout of tt-umd's
descriptors."""

from __future__ import annotations

from ..arch import get_arch
from ..arch.chip import get_chip

# the same on both arches (tt-umd's and tt-metal's descriptors)
_FEATURES = """features:
  unpacker:
    version: 2
    inline_srca_trans_without_srca_trans_instr: True
  math:
    dst_size_alignment: 32768
  packer:
    version: 2
  overlay:
    version: 2
"""


def _nodes(nodes) -> str:
    return "[" + ", ".join(f"{x}-{y}" for x, y in nodes) + "]"


def soc_descriptor(arch: str) -> str:
    """The descriptor's text for ``arch``."""
    chip, spec = get_chip(arch), get_arch(arch)
    gx, gy = chip.grid
    lines = [
        f"# ttemu {spec.name}: written by `ttemu simlib` from ttemu's arch data",
        "grid:", f"  x_size: {gx}", f"  y_size: {gy}",
        f"arc: {_nodes(chip.arc)}",
        f"pcie: {_nodes(chip.pcie)}",
        "dram:", *(f"  - {_nodes(channel)}" for channel in chip.dram),
        f"eth: {_nodes(chip.eth)}",
        f"functional_workers: {_nodes(chip.tensix)}",
        "harvested_workers: []",
        f"router_only: {_nodes(chip.router_only)}",
    ]
    if chip.l2cpu:
        lines.append(f"l2cpu: {_nodes(chip.l2cpu)}")
    lines += [
        f"noc0_x_to_noc1_x: [{', '.join(str(gx - 1 - x) for x in range(gx))}]",
        f"noc0_y_to_noc1_y: [{', '.join(str(gy - 1 - y) for y in range(gy))}]",
        f"worker_l1_size: {spec.l1_size}",
        f"dram_bank_size: {chip.dram_channel_size}",
        f"eth_l1_size: {chip.eth_l1_size}",
        f"arch_name: {chip.soc_name}",
    ]
    return "\n".join(lines) + "\n" + _FEATURES
