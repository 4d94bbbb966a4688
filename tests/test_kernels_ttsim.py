"""Every shipped kernel manifest (firmware/*/*.toml) also runs on Tenstorrent's ttsim
(through ``ttemu.cmd.oracle.cross_check``), and its expected output regions are
bit-identical there, or ttsim refuses the kernel as pinned below with the reason.

The LLK-style library configures the tile with the Config words and fields tt-llk
writes (firmware/llk/README.md), so ttsim, which refuses configuration real code
never makes, runs every kernel to its done condition. Skipped when ttsim cannot be
built from ../shared (tests/oracle_lib.py).
"""

import pathlib

import numpy as np
import pytest

from oracle_lib import require_ttsim
from ttemu import Tile, tiles
from ttemu.cmd import manifest as manifest_mod
from ttemu.cmd.oracle import cross_check
from ttemu.errors import OracleUnable

ROOT = pathlib.Path(__file__).resolve().parent.parent
MANIFESTS = sorted((ROOT / "firmware").glob("*/*.toml"))

# Every manifest but the refused ones below is bit-identical to ttsim, the Matrix Unit
# kernels (ELWADD / ELWSUB / MVMUL / GAPOOL) included since ttemu models the FPU
# datapath as ttsim does (ttemu/tensix/units/fpu_datapath.py).


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
    return require_ttsim("wormhole_b0")


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def run_both(path, lib, patch=()):
    """Run the manifest on ttemu (as `ttemu run` does) and on ttsim; -> [(expect,
    ttemu bytes, ttsim bytes, diff)]. ``patch``: {address: bytes} written to L1 after
    the manifest's inputs."""
    man = manifest_mod.load(str(path))
    tile = Tile(man.arch or "wormhole_b0", record=True)
    manifest_mod.load_into(man, tile)
    for addr, data in dict(patch).items():
        tile.write(addr, data)
    tile.release(man.release if man.release is not None else tile.default_release())
    until = man.until  # conditions (ttemu.condition.Condition)
    result = tile.run(max_steps=man.max_steps, until=until, idle_steps=man.idle_steps)
    assert result.exit_code == 0, f"{path.name}: ttemu {result.outcome}"
    regions = [(e.name, e.addr, tiles.nbytes(e.format, e.shape), e.format, e.shape) for e in man.expects]
    assert regions, f"{path.name}: no [[expect]] region to compare"
    diffs, res = cross_check(tile, lib, regions, until=until)
    return [(e, tile.read(e.addr, r[2]), theirs, d) for e, r, theirs, d in zip(man.expects, regions, res.regions, diffs)]


@pytest.mark.parametrize("path", MANIFESTS, ids=[p.stem for p in MANIFESTS])
def test_kernel_on_ttsim(path, lib):
    """Bit-identical, or the pinned refusal."""
    if path.stem in TTSIM_REFUSES:
        line, _page = TTSIM_REFUSES[path.stem]
        with pytest.raises(OracleUnable) as exc:
            run_both(path, lib)
        assert str(exc.value).endswith(line), str(exc.value)
        return
    for e, ours, theirs, d in run_both(path, lib):
        assert d.ok, f"{path.name}: {e.name} differs from ttsim\n{d.text()}"


def test_sfpu_exp_where_a_complete_fusion_rounds_otherwise(lib):
    """The sfpu_exp kernel on an input whose result depends on SFPMAD being partially
    fused (issue 22: one FP32 input in 2**20 between 64 and 72 is such):
    exp(64.46274566650390625) is 0x6e0001e6 on ttsim and on ttemu (the page's model;
    rounding the exact multiply-adds gave 0x6e0001e5), the first datum of input b
    (0x24000) and of its result exp_b."""
    path = ROOT / "firmware" / "sfpu_exp" / "sfpu_exp.toml"
    x = np.array([64.46274566650390625, -64.46274566650390625, 1.0, 0.0], dtype=np.float32)
    for e, ours, theirs, d in run_both(path, lib, {0x24000: x.tobytes()}):
        assert d.ok, d.text()
    out = np.frombuffer(ours, np.uint32)[:4]  # exp_b, at 0x54000
    assert out[0] == 0x6E0001E6 and out[2] == 0x402DF854 and out[3] == 0x3F800000
