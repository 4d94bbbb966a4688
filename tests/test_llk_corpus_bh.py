"""tt-llk's own test kernels built for Blackhole (scripts/llk_corpus.py --arch blackhole):
a few variants in CI, the whole set through the script.

- ttsim's Blackhole library runs the harness's boot (BRISC from tt-llk's brisc.cpp, TRISC
  reset PCs as tt-exalens sets them, START_TRISCS) and each result matches its numpy golden:
  the build, the manifest and the golden are right for Blackhole independently of ttemu.
- ttemu --arch blackhole completes the CI variants, matches the golden and ttsim bit for bit,
  without a warning.
- ttsim's refusals are pinned with its exact ERROR line (facts about ttsim only)."""

import os
import pathlib
import sys

import pytest

from oracle_lib import ROOT, require_ttsim

sys.path.insert(0, str(ROOT / "scripts"))
import llk_corpus  # noqa: E402

WHY = llk_corpus.missing()
BY_NAME = {v.name: v for v in llk_corpus.catalogue("blackhole")}
CI = [v for v in BY_NAME.values() if v.ci]
#: ttsim's refusals (its ERROR line): GMPOOL on FP16 operands (reduce_block_max's MAX pool);
#: ttemu runs it and matches the golden exactly
REFUSED = {
    "reduce_block_max_test-Float16->Float16-ct2": "UnsupportedFunctionality: tensix_gmpool: src_a_fmt=1 src_b_fmt=1",
}

#: ttsim's refusal of hw_cleanup, whose three-thread teardown rendezvous also goes idle on ttemu
#: (and, tt-llk's test says, wedges real Blackhole hardware): pinned on ttsim only
TTSIM_REFUSES = {"hw_cleanup_test-Float16_b->Float16_b": "UnimplementedFunctionality: tensix_cfg_wr32: reg=281"}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    if WHY:
        pytest.skip(WHY)
    work = os.environ.get("TTEMU_LLK_CORPUS_DIR") or tmp_path_factory.mktemp("llk-corpus-bh")
    return llk_corpus.Tree(pathlib.Path(work))


@pytest.fixture(scope="module")
def lib():
    return require_ttsim("blackhole")


def test_every_ci_name_is_a_variant():
    assert {v.name for v in CI} == llk_corpus.BH_CI


def test_the_blackhole_set():
    """The Wormhole kernels but the one the harness skips on Blackhole, plus the three whose
    LLK headers only Blackhole has; every variant starts its TRISCs the Blackhole way."""
    kernels = {v.kernel for v in BY_NAME.values()}
    wh = {v.kernel for v in llk_corpus.catalogue()}
    assert kernels - wh == {"eltwise_unary_datacopy_custom_test", "eltwise_mul_scalar_block_test", "hw_cleanup_test"}
    assert wh - kernels == llk_corpus.WORMHOLE_ONLY
    assert all(v.target.command == llk_corpus.START_TRISCS for v in BY_NAME.values())


def test_blackhole_format_inference_differs_where_the_harness_says():
    """An exponent-B input packed to Float16 forces a 32-bit Dst on both chips; Wormhole's
    packer then reads Float32, Blackhole's gasket converts (pack_src = Float16)."""
    F = llk_corpus.F
    wh = llk_corpus.infer_formats(F["Float16_b"], F["Float16"], True)
    bh = llk_corpus.infer_formats(F["Float16_b"], F["Float16"], True, wormhole=False)
    assert wh.pack_src.name == "Float32" and bh.pack_src.name == "Float16"


@pytest.mark.parametrize("name", list(TTSIM_REFUSES))
def test_ttsim_refusal_pinned(tree, lib, name, tmp_path):
    row = llk_corpus.run_split(tree, BY_NAME[name], lib, tmp_path, ttemu=False)
    assert row.built == "yes", row.detail
    assert row.ttsim_run == "refuses: " + TTSIM_REFUSES[name]


@pytest.mark.parametrize("name", list(REFUSED))
def test_what_ttsim_refuses_ttemu_runs_to_the_golden(tree, lib, name, tmp_path):
    row = llk_corpus.run_split(tree, BY_NAME[name], lib, tmp_path)
    assert row.ttsim_run == "refuses: " + REFUSED[name]
    assert row.ttemu == "completes" and row.golden == "match", (row.ttemu, row.golden)
    assert row.warnings == []


@pytest.mark.parametrize("variant", CI, ids=[v.name for v in CI])
def test_ttemu_blackhole_matches_ttsim_and_golden(tree, lib, variant, tmp_path):
    row = llk_corpus.run_split(tree, variant, lib, tmp_path)
    assert row.built == "yes", row.detail
    assert row.ttsim_run == "completes" and row.ttsim_golden == "match", (row.ttsim_run, row.ttsim_golden)
    assert row.ttemu == "completes", row.ttemu
    assert row.golden == "match", row.golden
    assert row.ttsim == "bit-identical", row.detail
    # tt-llk writes Blackhole config words past Wormhole's bank (SCRATCH_SEC*, DEST_ACCESS_CFG
    # at 209..220; cfg_defines.h CFG_STATE_SIZE 56): real code trips no undefined-behaviour check
    assert row.warnings == []
