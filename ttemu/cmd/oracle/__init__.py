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


def cross_check(tile, lib_path, regions, *, until=()):
    """Run on ttsim what ``tile`` (built with ``record=True``, released and run) was
    given, and compare ``regions`` bit for bit.

    ``regions``: (name, addr, length) or (name, addr, length, tile format, shape) for a
    report as tiles and values; ``until``: the done condition, conditions
    (:class:`ttemu.condition.Condition`) or (addr, value) pairs of 32-bit words.
    Returns (list of :class:`RegionDiff`, :class:`TtsimResult`); raises
    ``OracleUnable`` when ttsim cannot make the comparison.

        tile = Tile("wormhole_b0", record=True)
        ...load, write, release, tile.run(...)
        diffs, res = cross_check(tile, "libttsim_wh.so", [("out", 0x23000, 4096)])
        assert all(d.ok for d in diffs), "\n".join(d.text() for d in diffs)
    """
    regions = [tuple(r) + (None,) * (5 - len(r)) for r in regions]
    plan = plan_from_tile(tile, until=until,
                          reads=[(a, n, None) for _, a, n, _, _ in regions])
    plan.bound_clocks(max((h.steps for h in tile.harts.values()), default=0))
    res = run_ttsim(lib_path, plan)
    diffs = [compare_region(name, addr, tile.read(addr, n), theirs, fmt, shape)
             for (name, addr, n, fmt, shape), theirs in zip(regions, res.regions)]
    return diffs, res


__all__ = ["Plan", "plan_from_tile", "run_ttsim", "TtsimResult", "RegionDiff", "compare_region", "cross_check"]
