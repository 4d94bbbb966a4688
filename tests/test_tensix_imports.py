"""A Tensix coprocessor imports what its arch uses: a Wormhole tile never loads the
Blackhole Vector Unit (sfpu/blackhole.py, fp_bh.py and its tables) nor ``dataclasses``;
a Blackhole tile's Vector Unit has the BlackholeA0 methods its sfpu_variants name."""

import subprocess
import sys

from ttemu import Tile

_PROBE = """
import sys
from ttemu import Tile
Tile("wormhole_b0").tensix
print(",".join(sorted(m for m in sys.modules if m == "dataclasses" or m.endswith((".sfpu.blackhole", ".fp_bh")))))
"""


def test_wormhole_tensix_imports_no_blackhole_sfpu_nor_dataclasses():
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""


def test_blackhole_vector_unit_has_its_variants():
    wh, bh = Tile("wormhole_b0").tensix.sfpu, Tile("blackhole").tensix.sfpu
    assert not hasattr(wh, "bh_SFPLOAD")
    assert isinstance(bh, type(wh)) and type(bh).__name__ == "VectorUnit"
    for mnemonic, name in bh.cop.arch.sfpu_variants.items():
        assert bh.variants[mnemonic] == getattr(bh, name)
        assert callable(getattr(bh, name))
    assert Tile("blackhole").tensix.sfpu.__class__ is type(bh)  # one mixed class per process
