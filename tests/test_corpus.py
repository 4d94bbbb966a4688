"""Tenstorrent-built binaries (../shared/corpus) run to their done condition, and
where ttsim completes the same set its memory is the reference, bit for bit.
Manifests: corpus/*.toml. Skipped, with the reason, when ../shared is absent."""

import json
import os

import pytest

from oracle_lib import CORPUS, ROOT, require_ttsim
from ttemu.cli import main

pytestmark = pytest.mark.skipif(not CORPUS.exists(), reason=f"no corpus at {CORPUS}")

#: manifests ttsim runs to the end: results must be bit-identical
IDENTICAL = ["exalens_datacopy", "metal_fw_wormhole_b0_a", "metal_fw_wormhole_b0_b", "metal_fw_blackhole_a",
             "metal_fw_blackhole_b"]
#: extra regions compared with ttsim: tt-metal's mailbox area (MEM_MAILBOX_BASE, 13 KiB; Blackhole:
#: 0x60 + 13440 bytes, then MEM_ZEROS), and on Blackhole all of L1 below the BRISC firmware
EXTRA_DUMPS = {"metal_fw_wormhole_b0_a": ["0x10:0x3400"], "metal_fw_wormhole_b0_b": ["0x10:0x3400"],
               "metal_fw_blackhole_a": ["0x60:0x3480", "0x0:0x3AE0"],
               "metal_fw_blackhole_b": ["0x60:0x3480", "0x0:0x3AE0"]}
#: subordinate_sync (mailboxes_t, dev_msgs.h) per arch: its address in L1
SUBORDINATE_SYNC = {"wormhole_b0": 0x18, "blackhole": 0x68}
#: manifests ttsim refuses: (name, ttsim's ERROR text, why ttemu's behaviour is right)
REFUSED = [
    ("exalens_unhalt", "UnimplementedFunctionality: riscv_debug_regs_wr32: SOFT_RESET_0=0x4",
     # SoftReset.md: bit 2 is packer 0's soft reset, a documented bit ttemu models;
     # the store also clears every core bit, releasing all five cores.
     "SoftReset.md"),
]


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def manifest(name):
    return os.path.join("corpus", f"{name}.toml")


def run_json(capsys, *args):
    rc = main(list(args) + ["--json"])
    out, err = capsys.readouterr()
    return rc, json.loads(out), err


@pytest.mark.parametrize("name", IDENTICAL + [n for n, _, _ in REFUSED])
def test_corpus_set_reaches_its_done_condition(capsys, name):
    rc, doc, err = run_json(capsys, "run", manifest(name), "--strict")
    assert rc == 0, err
    assert doc["outcome"] == ("idle" if name.startswith("metal_fw") else "until")
    assert all(e["ok"] for e in doc["expect"])
    assert doc["warning_count"] == 0 and doc["warnings"] == []  # no undefined behaviour (also --strict)


def arch_of(name):
    return "blackhole" if "blackhole" in name else "wormhole_b0"


@pytest.mark.parametrize("arch", ["wormhole_b0", "blackhole"])
@pytest.mark.parametrize("variant", ["a", "b"])
def test_metal_firmware_boots_all_cores_to_the_go_message_poll(capsys, variant, arch):
    """tt-metal's BRISC reports RUN_MSG_DONE (0) in go_messages[0] only after NCRISC
    and the three TRISCs cleared their subordinate_sync bytes (L1 0x18-0x1B on
    Wormhole, 0x68-0x6B on Blackhole)."""
    sync = SUBORDINATE_SYNC[arch]
    rc, doc, err = run_json(capsys, "run", manifest(f"metal_fw_{arch}_{variant}"), "--dump-l1", f"{sync:#x}:4:hex32")
    assert rc == 0, err
    go, sync = doc["dumps"][0]["values"], doc["dumps"][1]["values"]
    assert go == ["0x00000000"] and sync == ["0x00000000"]
    assert set(doc["cores"]) == {"brisc", "ncrisc", "trisc0", "trisc1", "trisc2"}
    assert all(c["state"] == "running" for c in doc["cores"].values())
    assert doc["arch"] == arch


def test_exalens_datacopy_rounds_fp32_to_fp16_like_numpy(capsys):
    rc, doc, err = run_json(capsys, "run", manifest("exalens_datacopy"))
    assert rc == 0 and doc["expect"][0]["ok"] and doc["expect"][0]["max_rel_error"] > 0  # rounding happened


@pytest.mark.parametrize("name", IDENTICAL)
def test_corpus_set_is_bit_identical_to_ttsim(capsys, name, tmp_path):
    lib = require_ttsim(arch_of(name))
    extra = []
    for k, region in enumerate(EXTRA_DUMPS.get(name, [])):
        extra += ["--dump", f"{region}={tmp_path / f'region{k}.bin'}"]
    rc, doc, err = run_json(capsys, "run", manifest(name), "--oracle", lib, *extra)
    assert rc == 0, err
    assert doc["oracle"]["ok"] and len(doc["oracle"]["regions"]) >= 1 + len(extra) // 2


@pytest.mark.parametrize("name,refusal,page", REFUSED)
def test_ttsim_refusals_are_pinned(capsys, name, refusal, page):
    lib = require_ttsim("wormhole_b0")
    rc = main(["run", manifest(name), "--oracle", lib])
    out, err = capsys.readouterr()
    assert rc == 8
    assert refusal in err
