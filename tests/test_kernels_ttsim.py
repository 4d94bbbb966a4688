"""Every shipped kernel manifest (firmware/*/*.toml) also runs on Tenstorrent's ttsim
(through ``ttemu.cmd.oracle.cross_check``), and its expected output regions are
bit-identical there, or differ exactly as pinned below with the reason.

The LLK-style library configures the tile with the Config words and fields tt-llk
writes (firmware/llk/README.md), so ttsim, which refuses configuration real code
never makes, runs every kernel to its done condition. Skipped when ttsim cannot be
built from ../shared (tests/oracle_lib.py).
"""

import pathlib

import numpy as np
import pytest

from oracle_lib import ttsim_lib
from ttemu import Tile, tiles
from ttemu.cmd import manifest as manifest_mod
from ttemu.cmd.oracle import cross_check
from ttemu.errors import OracleUnable

ROOT = pathlib.Path(__file__).resolve().parent.parent
MANIFESTS = sorted((ROOT / "firmware").glob("*/*.toml"))

# Manifests whose outputs differ from ttsim's, because of the Matrix Unit's arithmetic:
# ttemu computes ELWADD / ELWSUB / MVMUL / GAPOOL results as the ISA pages' functional
# models write them (float arithmetic on the Src values, one rounding into Dst), and
# those pages say the model "should be taken as a rough guide rather than an exact
# description: ... precision could be either lower or higher than what is shown"
# (WormholeB0/TensixTile/TensixCoprocessor/ELWADD.md, ELWSUB.md, MVMUL.md, GAPOOL.md,
# end of "Functional model"). ttsim models the FPU's datapath (11-bit operand
# mantissas aligned, with rounding, to the largest exponent before the sum; products of
# a dot product summed in two groups of eight the same way), so some results differ: by
# one BF16 step, or by about 1e-4 relative for FP32 dot products. Neither result
# contradicts the pages; ttsim's bits are its claim about silicon, and modelling that
# datapath in ttemu is the way to make these identical. Pinned: the
# number of output datums that differ (the inputs come from the manifests' fixed
# seeds), and a bound on the largest difference relative to the largest output value:
# about one BF16 rounding step for BF16 outputs, 2.5e-4 for FP32 sums of products
# (ttsim's dot products keep fewer bits than FP32; ttemu's match numpy within the
# manifests' tolerances).
BF16_STEP, FP32_SUMS = 6e-3, 2.5e-4
FPU_ROUNDING = {
    # manifest stem: (datums that differ, bound on max |ttemu - ttsim| / max |ttsim|)
    "eltwise_add": (40, BF16_STEP),          # ELWADD, FP32 Dst packed to BF16
    "eltwise_sub": (30, BF16_STEP),          # ELWSUB
    "matmul_tile_lofi": (62, BF16_STEP),     # MVMUL, BF16 Dst
    "matmul_tile_hifi4": (3068, FP32_SUMS),  # MVMUL, four fidelity phases, FP32 Dst
    "matmul_block": (6143, FP32_SUMS),       # MVMUL over K = 3 tiles
    "matmul_block_lofi": (8178, FP32_SUMS),
    "reduce_col": (33, FP32_SUMS),           # GAPOOL
    "reduce_col_scaled": (64, FP32_SUMS),
    "reduce_row": (61, FP32_SUMS),           # MVMUL against a column of scalers
    "reduce_row_scaled": (64, FP32_SUMS),
}


# Kernels of their own for instructions ttsim does not model: ttsim refuses them
# (ERROR line quoted exactly), ttemu runs them to the numpy reference in their
# manifests (tests/test_kernels.py), following the cited pages.
TTSIM_REFUSES = {
    # manifest stem: (ttsim's ERROR line, the page ttemu follows)
    "matmul_dotpv": ("ERROR: UnsupportedFunctionality: tensix_decode_dotpv",
                     "WormholeB0/TensixTile/TensixCoprocessor/DOTPV.md"),
    "shiftxa": ("ERROR: UnsupportedFunctionality: tensix_decode_shiftxa",
                "WormholeB0/TensixTile/TensixCoprocessor/SHIFTXA.md"),
    "shiftxb": ("ERROR: UnsupportedFunctionality: tensix_decode_shiftxb",
                "WormholeB0/TensixTile/TensixCoprocessor/SHIFTXB.md"),
    "scalar_loadind": ("ERROR: UnsupportedFunctionality: tensix_decode_loadind",
                       "WormholeB0/TensixTile/TensixCoprocessor/LOADIND.md, STOREIND.md"),
    "sfpu_loadmacro": ("ERROR: UnsupportedFunctionality: tensix_sfploadmacro: explicitly out of scope: "
                       "set TT_METAL_DISABLE_SFPLOADMACRO=1 to disable usage",
                       "WormholeB0/TensixTile/TensixCoprocessor/SFPLOADMACRO.md"),
}


@pytest.fixture(scope="module")
def lib():
    path, why = ttsim_lib("wormhole_b0")
    if path is None:
        pytest.skip(why)
    return path


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def run_both(path, lib):
    """Run the manifest on ttemu (as `ttemu run` does) and on ttsim; -> [(expect,
    ttemu bytes, ttsim bytes, diff)]."""
    man = manifest_mod.load(str(path))
    tile = Tile(man.arch or "wormhole_b0", record=True)
    for core, elf in man.cores:
        tile.load_elf(elf, core=core, local_data=man.local_data.get(core))
    for inp in man.inputs:
        tile.write(inp.addr, inp.data)
    for addr, value, core in man.writes:
        tile.write_u32(addr, value, core)
    tile.release(man.release if man.release is not None else tile.default_release())
    until = [(addr, value) for addr, value, _ in man.until]
    result = tile.run(max_steps=man.max_steps, until=until, idle_steps=man.idle_steps)
    assert result.exit_code == 0, f"{path.name}: ttemu {result.outcome}"
    regions = [(e.name, e.addr, tiles.nbytes(e.format, e.shape), e.format, e.shape) for e in man.expects]
    assert regions, f"{path.name}: no [[expect]] region to compare"
    diffs, res = cross_check(tile, lib, regions, until=until)
    return [(e, tile.read(e.addr, r[2]), theirs, d) for e, r, theirs, d in zip(man.expects, regions, res.regions, diffs)]


def datum_diffs(fmt, shape, ours, theirs):
    """(number of datums whose bits differ, largest |ttemu - ttsim| relative to the
    region's largest |ttsim|) of two Float16_b / Float32 regions."""
    a = tiles.decode(ours, fmt, shape)
    b = tiles.decode(theirs, fmt, shape)
    dt = {"bf16": np.uint16, "fp32": np.uint32}[fmt]
    n = int(np.count_nonzero(np.frombuffer(ours, dtype=dt) != np.frombuffer(theirs, dtype=dt)))
    return n, float(np.abs(a - b).max() / np.abs(b).max())


@pytest.mark.parametrize("path", MANIFESTS, ids=[p.stem for p in MANIFESTS])
def test_kernel_on_ttsim(path, lib):
    """Bit-identical, the pinned FPU rounding difference, or the pinned refusal."""
    if path.stem in TTSIM_REFUSES:
        line, _page = TTSIM_REFUSES[path.stem]
        with pytest.raises(OracleUnable) as exc:
            run_both(path, lib)
        assert str(exc.value).endswith(line), str(exc.value)
        return
    for e, ours, theirs, d in run_both(path, lib):
        if path.stem not in FPU_ROUNDING:
            assert d.ok, f"{path.name}: {e.name} differs from ttsim\n{d.text()}"
            continue
        assert e.format in ("bf16", "fp32")
        count, rel = datum_diffs(e.format, e.shape, ours, theirs)
        want_count, max_rel = FPU_ROUNDING[path.stem]
        assert (count, rel <= max_rel) == (want_count, True), \
            f"{path.name}: {e.name}: {count} datums differ, max relative difference {rel:.3g}\n{d.text()}"


def test_the_pins_name_shipped_manifests():
    stems = {p.stem for p in MANIFESTS}
    assert set(FPU_ROUNDING) <= stems and set(TTSIM_REFUSES) <= stems
    assert not set(FPU_ROUNDING) & set(TTSIM_REFUSES)
