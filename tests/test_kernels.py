"""Every shipped kernel manifest (firmware/*/*.toml) runs to completion and matches
its numpy reference: the project's LLK-style kernels (BRISC boot + unpack / math /
pack TRISCs, docs/llk-test-protocol.md) and the RISC-V-only examples.

Each manifest runs twice: with its own fixed seed, and with one random seed per test
session (from ``TTEMU_TEST_SEED`` if set, else os.urandom). The random seed is part
of the test ids and printed, so a failure can be reproduced with

    TTEMU_TEST_SEED=<seed> python -m pytest tests/test_kernels.py
    ttemu run firmware/<kernel>/<kernel>.toml --seed <seed>

Nothing is built here: the manifests use the committed ELFs in firmware/build.
"""

import json
import os
import pathlib

import pytest

from ttemu import cli

ROOT = pathlib.Path(__file__).resolve().parent.parent
MANIFESTS = sorted((ROOT / "firmware").glob("*/*.toml"))
RANDOM_SEED = int(os.environ.get("TTEMU_TEST_SEED") or int.from_bytes(os.urandom(4), "little"))


def _uses_llk_layout(manifest: pathlib.Path) -> bool:
    layout = manifest.parent / "layout"
    return layout.exists() and layout.read_text().strip() == "llk"


def _cases():
    for m in MANIFESTS:
        yield pytest.param(m, None, id=f"{m.stem}-fixed")
        yield pytest.param(m, RANDOM_SEED, id=f"{m.stem}-seed={RANDOM_SEED}")


def test_the_llk_kernels_are_found():
    names = {m.stem for m in MANIFESTS if _uses_llk_layout(m)}
    assert {"datacopy_bf16", "datacopy_fp32", "datacopy_bfp8b", "eltwise_add", "eltwise_sub",
            "eltwise_mul",
            "matmul_tile_lofi", "matmul_tile_hifi4", "matmul_block", "matmul_block_lofi",
            "reduce_row", "reduce_row_max", "reduce_row_scaled", "reduce_col", "reduce_col_max",
            "reduce_col_scaled", "reduce_scalar", "transpose"} <= names
    assert {"sfpu_relu", "sfpu_exp", "sfpu_scalar_add", "sfpu_scalar_mul", "sfpu_where", "tilize",
            "untilize"} <= names
    assert {"matmul_dotpv", "shiftxa", "sfpu_loadmacro"} <= names  # what ttsim does not model
    assert {p.stem for p in MANIFESTS} >= {"scalar_loadind", "shiftxb"}


@pytest.mark.parametrize("manifest, seed", list(_cases()))
def test_kernel_manifest(manifest, seed, capsys):
    argv = ["run", str(manifest), "--json"]
    if seed is not None:
        argv += ["--seed", str(seed)]
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    # shown with the failure (or with -s): how to reproduce this case
    print(f"reproduce: ttemu run {manifest.relative_to(ROOT)}"
          + (f" --seed {seed}   (or TTEMU_TEST_SEED={seed} pytest {__file__})" if seed is not None else ""))
    where = f"{manifest.relative_to(ROOT)} seed={seed if seed is not None else 'manifest'}"
    assert rc == 0, f"{where}: exit {rc}\n{err}{out[-4000:]}"
    doc = json.loads(out)
    assert doc["exit_code"] == 0, f"{where}: {doc['outcome']} {doc.get('detail')}"
    assert doc["expect"], f"{where}: the manifest checks nothing"
    bad = [e for e in doc["expect"] if not e["ok"]]
    assert not bad, f"{where}: {bad}\n{err}"
    # no behaviour the ISA documentation leaves undefined (docs/undefined-behaviour.md)
    assert doc["warning_count"] == 0 and doc["warnings"] == [], f"{where}: {doc['warnings']}"
    if _uses_llk_layout(manifest):
        # LLK kernels end by every TRISC reporting completion, not by going idle.
        assert doc["outcome"] == "until", f"{where}: outcome {doc['outcome']}"
