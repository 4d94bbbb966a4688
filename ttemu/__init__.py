"""ttemu: an emulator for one Tenstorrent Tensix tile.

    from ttemu import Tile
    tile = Tile("wormhole_b0")
    tile.load_elf("firmware/build/hello/brisc.elf", core="brisc")
    tile.release(["brisc"])
    result = tile.run(max_steps=100_000)
"""

from .errors import (BadInput, ElfError, GuestAssertion, GuestFault, OutputMismatch, TtemuError,
                     UndefinedBehaviour, Unimplemented, UsageError)
from .tile import Tile

__all__ = ["Tile", "TtemuError", "BadInput", "ElfError", "UsageError", "GuestFault", "GuestAssertion",
           "Unimplemented", "UndefinedBehaviour", "OutputMismatch"]
__version__ = "0.1.0"
