"""Chip-level facts as data: where the nodes sit on the NoC grid, how the host reaches
them over PCIe (BARs, TLB windows), and the coordinate translation UMD relies on.
``ttemu.chip`` builds a whole chip from these; ``ttemu simlib`` writes the SoC
descriptor UMD reads from them.

    get_chip("wormhole_b0").tensix    # ((1, 1), (2, 1), ...) NoC 0 coordinates
"""

from __future__ import annotations

from ..record import Factory, Record


class TlbKind(Record, frozen=True):
    """A group of TLB windows in BAR0 (or BAR4): ``count`` windows of ``2**window_bits``
    bytes from BAR offset ``base``, configured by entries ``first``, ``first + 1``...
    of the TLB configuration registers. ``fields``: bit position of each field in an
    entry's configuration value (tt-umd's ``tlb_offsets``): the local offset is the
    bits below ``x_end``; ``x_end``/``y_end``/``x_start``/``y_start`` are 6 bits,
    ``ordering`` 2 bits, the rest one bit."""

    base: int
    count: int
    window_bits: int
    first: int
    fields: dict

    @property
    def size(self) -> int:
        return self.count << self.window_bits

    @property
    def mask(self) -> int:
        """Offset bits within one window."""
        return (1 << self.window_bits) - 1


class PcieSpec(Record, frozen=True):
    """The PCIe function the host sees (what ttsim's library presents; its
    ``libttsim.cpp`` for the facts: BAR bases, sizes, register windows)."""

    device_id: int
    revision: int
    bars: tuple  # (BAR index, base, size): 64-bit memory BARs
    tlb_config_base: int  # BAR0 offset of the TLB configuration registers
    tlb_entry_bytes: int  # bytes per TLB entry: one 64-bit register, or three 32-bit words
    tlb_windows: tuple  # TlbKind, in BAR0
    bar4_tlbs: TlbKind | None  # BAR4 windows (Blackhole), or None: BAR4 aliases BAR0's top
    iatu: tuple  # BAR2 (offset, end) of the iATU registers
    iatu_regs: tuple  # register offsets inside a 0x100-byte iATU region
    dma: tuple  # BAR2 (offset, end) of the DMA engine registers
    dma_doorbells: tuple  # BAR2 offsets whose write starts a DMA transfer
    # BAR0 windows onto a node's NoC address space: (offset, size, node, NoC address)
    node_windows: tuple = ()
    # BAR0 windows onto the PCIe tile's NIU registers: (offset, NoC instance)
    niu_windows: tuple = ()


class ChipSpec(Record, frozen=True):
    """One chip: NoC 0 coordinates of every node by kind, the sizes UMD's SoC
    descriptor states, and the host's PCIe view."""

    arch: str  # the tile's ArchSpec name
    soc_name: str  # SoC descriptor ``arch_name``
    lib_name: str  # the file name ttsim's library has for this arch
    grid: tuple  # (x, y) NoC grid size
    tensix: tuple  # worker (Tensix) tiles
    dram: tuple  # per channel, the nodes serving it (all see the same memory)
    dram_channel_size: int
    eth: tuple
    eth_l1_size: int
    arc: tuple
    pcie: tuple
    router_only: tuple
    l2cpu: tuple = ()
    # translated (virtual) coordinate -> NoC 0 coordinate, for nodes whose translated
    # coordinate differs (any other coordinate is its own NoC 0 coordinate)
    translated: dict = Factory(dict)
    noc_translation: bool = False  # the NIU reports coordinate translation enabled
    # nodes with a plain memory behind them that UMD may touch: (NoC address, size)
    arc_memory: tuple = ()
    pcie_spec: PcieSpec | None = None
    soc_features: str = ""  # the SoC descriptor's ``features:`` block (YAML)


#: arch name -> the module holding its ChipSpec (``CHIP``)
_MODULES = {"wormhole_b0": "wormhole_b0_chip", "blackhole": "blackhole_chip"}


def get_chip(name: str) -> ChipSpec:
    """The chip of arch ``name`` (any spelling :func:`ttemu.arch.get_arch` accepts)."""
    import importlib

    from . import get_arch

    return importlib.import_module(f".{_MODULES[get_arch(name).name]}", __package__).CHIP


def tlb_fields(x_end: int, noc_sel_gap: int = 0) -> dict:
    """tt-umd's TLB field layout from the position of ``x_end`` (the local offset is
    every bit below it): four 6-bit coordinates, ``noc_sel``, then ``mcast`` (one bit
    further on where ``noc_sel_gap`` says so), 2-bit ``ordering``, ``linked`` and
    ``static_vc``."""
    f = {"x_end": x_end, "y_end": x_end + 6, "x_start": x_end + 12, "y_start": x_end + 18,
         "noc_sel": x_end + 24}
    m = x_end + 25 + noc_sel_gap
    f.update(mcast=m, ordering=m + 1, linked=m + 3, static_vc=m + 4)
    return f


def grid_nodes(xs, ys) -> tuple:
    """(x, y) for every y in ``ys`` and x in ``xs``, row by row (the SoC descriptor's order)."""
    return tuple((x, y) for y in ys for x in xs)
