"""tt-exalens's own Python API driving a ttemu tile directly, without UMD.

tt-exalens (PyPI ``tt-exalens==0.4.2``) reaches a chip through a ``Device`` whose
``noc_read`` / ``noc_write`` go to UMD; everything above that (the RISC-V debug
hardware sequences, ELF loading, call stacks, ``TensixDebug``, ``get_tensix_state``)
only issues NoC reads and writes to a tile's addresses. :class:`ExalensTile` is such a
``Device`` whose NoC accesses are the tile's host reads and writes (a worker tile's NoC
addresses are its own addresses), so exalens's real code drives the tile's debug
registers exactly as it drives silicon. Time only passes when the test runs the tile.

    bridge = ExalensTile(Tile("wormhole_b0", ebreak_pauses=True))
    loc = bridge.location                       # an exalens OnChipCoordinate
    risc = loc.noc_block.get_risc_debug("brisc")
    risc.halt(); risc.read_gpr(32)
"""

from __future__ import annotations

import pytest

ttexalens = pytest.importorskip("ttexalens", reason="tt-exalens is not installed (pip install tt-exalens==0.4.2)")

from ttexalens.context import NocId  # noqa: E402
from ttexalens.coordinate import OnChipCoordinate  # noqa: E402


class _Context:
    safe_mode = False
    dma_read_threshold = 1 << 30
    dma_write_threshold = 1 << 30

    def __init__(self):
        self.loaded = []

    def elf_loaded(self, risc_location, path):
        self.loaded.append((risc_location.risc_name, path))


class ExalensTile:
    """The exalens ``Device`` of one tile at NoC (1, 1) (WH) / (1, 2) (BH)."""

    def __init__(self, tile):
        self.tile = tile
        self.id = 0
        self._context = _Context()
        self.active_noc = NocId.NOC0
        if tile.arch.name == "wormhole_b0":
            from ttexalens.hardware.wormhole.device import WormholeInstructions
            from ttexalens.hardware.wormhole.functional_worker_block import WormholeFunctionalWorkerBlock as Block
            from ttexalens.hardware.wormhole.functional_worker_debug_bus_signals import tensix_debug_bus_description
            from ttexalens.hardware.wormhole.functional_worker_registers import tensix_registers_descriptions
        else:
            from ttexalens.hardware.blackhole.device import BlackholeInstructions as WormholeInstructions
            from ttexalens.hardware.blackhole.functional_worker_block import BlackholeFunctionalWorkerBlock as Block
            from ttexalens.hardware.blackhole.functional_worker_debug_bus_signals import tensix_debug_bus_description
            from ttexalens.hardware.blackhole.functional_worker_registers import tensix_registers_descriptions
        self.instructions = WormholeInstructions()
        self._registers = tensix_registers_descriptions
        self._debug_bus = tensix_debug_bus_description
        self.location = OnChipCoordinate(*tile.arch.noc.tile, "noc0", self)
        self._block = Block(self.location)
        self.accesses = 0  # NoC reads and writes made

    # -- what exalens asks a Device -------------------------------------------------------------
    def is_wormhole(self):
        return self.tile.arch.name == "wormhole_b0"

    def is_blackhole(self):
        return self.tile.arch.name == "blackhole"

    def is_quasar(self):
        return False

    def get_block(self, location):
        return self._block

    def get_block_type(self, location):
        return "functional_workers"

    def get_tensix_registers_description(self):
        return self._registers

    def get_tensix_debug_bus_description(self):
        return self._debug_bus

    def to_noc0(self, coord, system, core_type="any"):
        return coord

    def from_noc0(self, coord, system):
        return (coord, "tensix")

    def noc_read(self, location, address, buffer, noc_id=None, dma_threshold=None, safe_mode=None):
        self.accesses += 1
        buffer[:] = self.tile.read(address, len(buffer))

    def noc_read32(self, location, address, noc_id=None, safe_mode=None):
        self.accesses += 1
        return int.from_bytes(self.tile.read(address, 4), "little")

    def noc_write(self, location, address, data, noc_id=None, dma_threshold=None, safe_mode=None):
        self.accesses += 1
        self.tile.write(address, bytes(data))

    def noc_write32(self, location, address, data, noc_id=None, safe_mode=None):
        self.accesses += 1
        self.tile.write(address, int(data).to_bytes(4, "little"))
