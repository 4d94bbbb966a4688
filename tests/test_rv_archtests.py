"""RISC-V architectural tests generated with riscv-ctg (scripts/rv_archtests.py) from
our coverage specifications, for every instruction of RV32I, M, Zba, Zbb, Zbkb (pack,
brev8) and Zaamo that Blackhole's baby RISC-V cores run: built here against our
trap-free env, run on BRISC, and each signature compared bit for bit with the
reference written from the RISC-V spec and with ttsim's library. Wormhole runs the
RV32I and M tests the same way and faults on every extension test.

The tests are generated, built and run once per session (a few tens of seconds).
"""

from __future__ import annotations

import os
import sys

import pytest

HERE = os.path.dirname(__file__)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))

import rv_archtests as rv  # noqa: E402
from oracle_lib import require_ttsim  # noqa: E402

from ttemu import GuestFault  # noqa: E402

EXTENSIONS = [s for s in rv.SETS if s not in rv.BASE_SETS]


@pytest.fixture(scope="session")
def suite(tmp_path_factory):
    why = rv.available()
    if why:
        pytest.skip(why)
    out = tmp_path_factory.mktemp("rv_archtests")
    names = rv.generate(out)
    rv.compile_all(out, names)
    base = [m for s in rv.BASE_SETS for m in rv.SETS[s]]
    return {"out": out, "names": names, "base": base,
            "blackhole": rv.link(out, names, "blackhole"), "wormhole_b0": rv.link(out, base, "wormhole_b0")}


@pytest.fixture(scope="session")
def runs(suite):
    """Each arch's ELF run once on ttemu (recorded for ttsim)."""
    cache = {}

    def get(arch):
        if arch not in cache:
            cache[arch] = rv.run(suite[arch], arch, record=True)
        return cache[arch]
    return get


def names_of(suite, arch):
    return suite["names"] if arch == "blackhole" else suite["base"]


def test_every_instruction_has_a_generated_test(suite):
    assert suite["names"] == [m for s in rv.SETS for m in rv.SETS[s]] and len(suite["names"]) >= 70
    text = (suite["out"] / "sh2add-01.S").read_text()
    assert "riscv_ctg" in text and "TEST_RR_OP(sh2add" in text


@pytest.mark.parametrize("arch", ["blackhole", "wormhole_b0"])
def test_signatures_match_the_reference(suite, runs, arch):
    tile, sym, before, after = runs(arch)
    bad = rv.mismatches(suite["out"], names_of(suite, arch), sym, before, after)
    checked = bad.pop(None)
    assert checked > (12_000 if arch == "blackhole" else 5_000)
    assert not bad, "\n".join(f"{m}: {len(d)} words differ, first at 0x{d[0][0]:x}: ttemu {d[0][1]}, "
                              f"reference {d[0][2]}" for m, d in bad.items())


@pytest.mark.parametrize("arch", ["blackhole", "wormhole_b0"])
def test_signatures_match_ttsim(suite, runs, arch):
    lib = require_ttsim(arch)
    tile, sym, _, _ = runs(arch)
    diff = rv.against_ttsim(tile, sym, lib)
    assert diff.ok, diff.text()


def test_reference_catches_a_wrong_result(suite, runs):
    """The comparison can fail: one flipped bit in one signature word is reported."""
    tile, sym, before, after = runs("blackhole")
    at = sym["t0_rvmodel_sig_begin"] + 8 - rv.DATA_BASE
    broken = after[:at] + bytes([after[at] ^ 1]) + after[at + 1:]
    bad = rv.mismatches(suite["out"], suite["names"], sym, before, broken)
    assert list(bad) == [suite["names"][0], None] and len(bad[suite["names"][0]]) == 1


@pytest.mark.parametrize("ext", EXTENSIONS)
def test_wormhole_faults_on_the_extension_tests(suite, ext):
    """Started at each extension test's entry on Wormhole, BRISC stops at that test's
    first instruction under test: an illegal instruction."""
    _, sym = rv.load(suite["blackhole"], "blackhole")
    for m in rv.SETS[ext]:
        k = suite["names"].index(m)
        tile, _ = rv.load(suite["blackhole"], "wormhole_b0", start=sym[f"t{k}_rvtest_entry_point"])
        with pytest.raises(GuestFault) as info:
            tile.run(max_steps=10_000)
        e = info.value
        assert "illegal instruction" in str(e), (m, str(e))
        assert sym[f"t{k}_rvtest_code_begin"] <= e.pc < sym[f"t{k}_rvtest_code_end"], m
