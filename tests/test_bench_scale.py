"""The scaling benchmark's kernel sets (``scripts/bench.py --scale``, built from
scripts/bench_scale.py and firmware/scale_*) still run, at the quick mode's small sizes
with steps repeating over two L1 slots: every family on both arches reaches its done
condition, its output matches the numpy reference of its manifest, and it is
bit-identical to ttsim (where ttsim can be built). Not timed: the timings are the
benchmark's."""

import pathlib
import sys

import pytest

from oracle_lib import ttsim_lib

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import bench_scale  # noqa: E402

CASES = [(f, a) for f in bench_scale.FAMILIES for a in ("wormhole_b0", "blackhole")]


@pytest.mark.parametrize("family,arch", CASES, ids=[f"{f}-{a}" for f, a in CASES])
def test_scale_set_runs_and_matches(family, arch, tmp_path):
    lib, _why = ttsim_lib(arch)
    counts = []
    for size in bench_scale.QUICK_SIZES[family]:
        row = bench_scale.check(family, size, arch, lib, tmp_path, bench_scale.QUICK_WRAP)
        assert row["outcome"] == "until", row
        assert row["numpy_ok"], row
        if lib is not None:
            assert row["ttsim_identical"], row
        counts.append(row["tensix_instructions"])
    assert counts[1] > counts[0], counts  # the larger size's steps do run


def test_manifest_refuses_sizes_that_are_not_whole_steps():
    with pytest.raises(ValueError, match="multiple of 16"):
        bench_scale.manifest("matmul_hifi4", 24, "wormhole_b0")
