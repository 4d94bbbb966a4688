"""A whole chip as the host reaches it over the NoC: every node of the arch's
:class:`ttemu.arch.chip.ChipSpec` by coordinate.

* Tensix tiles are :class:`ttemu.tile.Tile` objects, built the first time anything
  touches them; a host access reaches the tile's whole address space (L1 and its MMIO
  registers: soft reset, debug registers, the Tensix's, the NIUs') through the tile's
  host entry points.
* DRAM channels (each served by three nodes), Ethernet L1 and the ARC's windows are
  plain memory (:class:`ttemu.chip.memory.SparseMemory`).
* Coordinates: NoC 0 physical, or translated (virtual) ones, which the arch's data
  maps to physical; NoC 1 coordinates count from the opposite corner.

A *clock* (:meth:`Chip.clock`) advances every tile with a running core: each running
core retires up to ``steps_per_clock`` instructions (one, as ttsim's ``libttsim_clock``
steps every released core one instruction), in the fixed core order, then the Tensix
coprocessor retries what waits at its gates. A tile with no running core costs
nothing.
"""

from __future__ import annotations

from ..arch import get_arch
from ..arch.chip import get_chip
from ..errors import HostFault, TtemuError, Unimplemented, UsageError
from ..run import advance, busy
from .memory import SparseMemory


class Chip:
    def __init__(self, arch: str = "wormhole_b0", *, steps_per_clock: int = 1):
        self.arch = get_arch(arch)
        self.spec = spec = get_chip(arch)
        self.steps_per_clock = steps_per_clock
        self.clocks = 0  # host clocks so far
        self.tiles: dict[tuple, object] = {}  # (x, y) NoC 0 -> Tile, once touched
        self.active: dict[tuple, object] = {}  # the tiles a clock could change (ttemu.run.busy)
        #: 1 while ``active`` holds a tile (read by the library's C shim: a clock with none
        #: running has nothing to do, so an access need not wait for Python to count it)
        self.running = bytearray(1)
        self.kind: dict[tuple, str] = {}
        self.memory: dict[tuple, list] = {}  # node -> [(NoC base, SparseMemory)]
        for xy in spec.tensix:
            self.kind[xy] = "tensix"
        for i, nodes in enumerate(spec.dram):
            mem = SparseMemory(spec.dram_channel_size, f"DRAM channel {i}")
            for xy in nodes:
                self.kind[xy] = "dram"
                self.memory[xy] = [(0, mem)]
        for xy in spec.eth:
            self.kind[xy] = "eth"
            self.memory[xy] = [(0, SparseMemory(spec.eth_l1_size, f"Ethernet L1 {xy[0]}-{xy[1]}"))]
        for xy in spec.arc:
            self.kind[xy] = "arc"
            self.memory[xy] = [(base, SparseMemory(size, f"ARC 0x{base:x}")) for base, size in spec.arc_memory]
        for kind, nodes in (("pcie", spec.pcie), ("router", spec.router_only), ("l2cpu", spec.l2cpu)):
            for xy in nodes:
                self.kind.setdefault(xy, kind)

    # -- coordinates -------------------------------------------------------------------
    def node(self, x: int, y: int, noc: int = 0) -> tuple:
        """NoC ``noc`` coordinate (physical or translated) -> NoC 0 physical (x, y)."""
        t = self.spec.translated.get((x, y))
        if t is not None:
            return t
        gx, gy = self.spec.grid
        if not (0 <= x < gx and 0 <= y < gy):
            raise HostFault(f"NoC coordinate ({x}, {y}) is outside the {gx} x {gy} grid and not a translated "
                            "coordinate")
        return (gx - 1 - x, gy - 1 - y) if noc else (x, y)

    def tile(self, x: int, y: int):
        """The Tensix tile at NoC 0 (x, y), built on first use."""
        t = self.tiles.get((x, y))
        if t is None:
            if self.kind.get((x, y)) != "tensix":
                raise UsageError(f"({x}, {y}) is not a Tensix tile")
            from ..tile import Tile

            # ebreak / ecall pause a core, as on silicon, for a debugger (tt-exalens) to see
            t = self.tiles[(x, y)] = Tile(self.arch, noc=self.noc_spec(x, y), ebreak_pauses=True)
        return t

    def noc_spec(self, x: int, y: int):
        """The NoC facts of the Tensix tile at (x, y): the arch's worker-tile facts with
        this position and, as NOC_ID_LOGICAL, its translated coordinate (the one whose
        both axes the arch's translation maps here; else its own)."""
        spec = self.arch.noc
        logical = min((t for t, p in self.spec.translated.items() if p == (x, y) and t[0] >= 16 and t[1] >= 16),
                      default=(x, y))
        fields = {f: getattr(spec, f) for f in spec._fields}
        fields.update(tile=(x, y), id_logical=logical[0] | (logical[1] << 6))
        return type(spec)(**fields)

    # -- host access (NoC 0 physical coordinates) ----------------------------------------
    def read(self, xy: tuple, addr: int, n: int) -> bytes:
        kind = self.kind.get(xy)
        if kind == "tensix":
            return self._tile_access(xy, addr, n, None)
        base, mem = self._memory(xy, kind, addr, n, "read")
        return mem.read(addr - base, n)

    def write(self, xy: tuple, addr: int, data) -> None:
        kind = self.kind.get(xy)
        if kind == "tensix":
            self._tile_access(xy, addr, len(data), bytes(data))
            return
        base, mem = self._memory(xy, kind, addr, len(data), "write")
        mem.write(addr - base, data)

    def _tile_access(self, xy, addr, n, data):
        tile = self.tile(*xy)
        try:
            if data is None:
                return tile.read(addr, n)
            tile.write(addr, data)
        except TtemuError as e:
            where = f"host {'read' if data is None else 'write'} of {n} bytes at 0x{addr:x} on Tensix tile " \
                    f"{xy[0]}-{xy[1]}"
            if isinstance(e, UsageError):
                raise HostFault(f"{where}: {e}") from None
            e.args = (f"{where}: {e}",)
            raise
        if addr >= self.arch.l1_size and xy not in self.active and busy(tile):
            self.active[xy] = tile  # a register write released a core (or a held Tensix instruction)
            self.running[0] = 1
        return None

    def _memory(self, xy, kind, addr, n, verb):
        for base, mem in self.memory.get(xy, ()):
            if mem.contains(addr - base, n):
                return base, mem
        if kind is None:
            raise HostFault(f"host {verb} at 0x{addr:x} on ({xy[0]}, {xy[1]}): no node there")
        if kind in ("router", "pcie", "l2cpu"):
            raise Unimplemented(f"host {verb} at 0x{addr:x} on the {kind} node {xy[0]}-{xy[1]}: "
                                "ttemu models no memory there")
        raise Unimplemented(f"host {verb} of {n} bytes at 0x{addr:x} on the {kind} node {xy[0]}-{xy[1]}: "
                            "beyond its memory (registers there are not modelled)")

    # -- time ------------------------------------------------------------------------
    def clock(self, n: int = 1) -> None:
        """``n`` host clocks (see the module docstring)."""
        self.clocks += n
        if not self.active:
            return
        steps = n * self.steps_per_clock
        for xy, tile in list(self.active.items()):
            try:
                left = advance(tile, steps)
            except TtemuError as e:
                e.args = (f"Tensix tile {xy[0]}-{xy[1]}: {e}",)
                raise
            if not left:
                del self.active[xy]
                self.running[0] = 1 if self.active else 0
