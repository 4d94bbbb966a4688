"""Every shipped kernel manifest (firmware/*/*.toml) on Blackhole: its [cores.blackhole]
ELFs (the LLK-style library built with firmware/llk/blackhole/llk_arch.h) run on ttemu's
Blackhole tile and on ttsim's Blackhole library (tests/oracle_lib.py). Where ttsim
completes the run, its output regions match the manifest's numpy reference (which
validates the library's Blackhole configuration independently of ttemu) and ttemu's
are bit-identical to ttsim's. Where ttsim refuses, the refusal is pinned (its exact
ERROR line) and ttemu's output is checked against numpy, following the page cited.
Skipped when ttsim cannot be built from ../shared.
"""

import pytest

from bh_kernels import MANIFESTS, check_numpy, load, prepared_tile, regions, until
from oracle_lib import require_ttsim
from ttemu.cmd.oracle import cross_check
from ttemu.errors import OracleUnable

# The kernels of their own for instructions ttsim does not model (as on Wormhole,
# tests/test_kernels_ttsim.py): ttsim's Blackhole library refuses them with these lines.
TTSIM_REFUSES = {
    "matmul_dotpv": ("ERROR: UnsupportedFunctionality: tensix_decode_dotpv", "DOTPV.md"),
    "shiftxa": ("ERROR: UnsupportedFunctionality: tensix_decode_shiftxa", "SHIFTXA.md"),
    "shiftxb": ("ERROR: UnsupportedFunctionality: tensix_decode_shiftxb", "SHIFTXB.md"),
    "scalar_loadind": ("ERROR: UnsupportedFunctionality: tensix_decode_loadind", "LOADIND.md, STOREIND.md"),
    "sfpu_loadmacro": ("ERROR: UnsupportedFunctionality: tensix_sfploadmacro: explicitly out of scope: "
                       "set TT_METAL_DISABLE_SFPLOADMACRO=1 to disable usage", "BlackholeA0 SFPLOADMACRO.md"),
}


@pytest.fixture(scope="module")
def lib():
    return require_ttsim("blackhole")


def test_every_manifest_has_blackhole_elfs():
    for path in MANIFESTS:
        man = load(path)
        assert man.cores, path.name
        for core, elf in man.cores:
            assert "/build/blackhole/" in elf, (path.name, core, elf)


@pytest.mark.parametrize("path", MANIFESTS, ids=[p.stem for p in MANIFESTS])
def test_kernel_blackhole_ttemu_ttsim_numpy(path, lib):
    man = load(path)
    tile = prepared_tile(man)
    result = tile.run(max_steps=man.max_steps, until=until(man), idle_steps=man.idle_steps)
    assert result.outcome == "until", f"{path.stem}: ttemu {result.outcome}: {result.detail}"
    ours = [tile.read(a, n) for _, a, n, _, _ in regions(man)]
    refusal = TTSIM_REFUSES.get(path.stem)
    if refusal is not None:
        with pytest.raises(OracleUnable) as e:
            cross_check(tile, lib, regions(man), until=until(man))
        assert str(e.value).endswith(refusal[0]), str(e.value)
        reference = ours  # ttemu follows the page; numpy is the reference
    else:
        diffs, res = cross_check(tile, lib, regions(man), until=until(man))
        bad = [d.text() for d in diffs if not d.ok]
        assert not bad, "\n".join(bad)
        reference = res.regions  # ttsim's own bytes against numpy
    for e, ok, text in check_numpy(man, reference):
        assert ok, f"{path.stem} {e.name}: {text}"
