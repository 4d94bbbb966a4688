"""Cross-checking ttemu against Tenstorrent's ttsim (``ttemu run ... --oracle LIB``).

ttsim is a whole-chip functional simulator written by the chip's vendor, shipped as a
shared library with a PCIe-like C API. A run is turned into a :class:`Plan` (the exact
host writes ttemu made before release, the soft-reset value that releases the cores,
the done condition and the regions to compare); the plan runs on ttsim in a child
process (the library keeps global state, so one process per run), and the regions it
reads back are compared with ttemu's bit for bit (:mod:`.compare`).

    plan -> run_ttsim(lib, plan) -> TtsimResult -> compare_regions(...)
"""

from .compare import RegionDiff, compare_region
from .plan import Plan, plan_from_tile
from .ttsim import TtsimResult, run_ttsim

__all__ = ["Plan", "plan_from_tile", "run_ttsim", "TtsimResult", "RegionDiff", "compare_region"]
