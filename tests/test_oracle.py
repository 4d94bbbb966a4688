"""The ttsim oracle client (``--oracle``): plans, bit-for-bit comparison, reports,
refusals and exit codes, against Tenstorrent's ttsim built from ../shared."""

import json
import os

import pytest

from oracle_lib import require_ttsim
from ttemu import Tile
from ttemu.cli import main
from ttemu.cmd.oracle import compare_region, plan_from_tile
from ttemu.cmd.oracle.plan import Plan

NEGATE = "firmware/negate/negate.toml"


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch):
    monkeypatch.chdir(os.path.join(os.path.dirname(__file__), ".."))


@pytest.fixture(scope="module")
def lib():
    return require_ttsim("wormhole_b0")


def run(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


# -- plans ---------------------------------------------------------------------------
def test_plan_holds_the_state_at_release():
    t = Tile("wormhole_b0", record=True)
    t.load_elf("firmware/build/negate/brisc.elf", core="brisc")
    t.write_u32(0x21000, 0x12345678)
    t.release(["brisc"])
    t.write_u32(0x30000, 5)  # after the release: not part of the state at release
    t.run(max_steps=10)
    plan = plan_from_tile(t, until=[(0x20000, 1, None)], reads=[(0x23000, 64, None)])
    assert plan.release_soft_reset == 0x47000 and plan.initial_soft_reset == 0x47800
    assert plan.writes[-1] == (0x21000, (0x12345678).to_bytes(4, "little"))
    assert plan.until == [(0x20000, 1, 4, 0xFFFFFFFF)] and plan.reads == [(0x23000, 64)]  # (addr, value, width, mask)
    again = Plan.from_json(json.loads(json.dumps(plan.to_json())))
    assert again == plan


def test_plan_skips_staged_local_data_but_refuses_other_local_writes():
    from ttemu.errors import OracleUnable

    t = Tile("wormhole_b0", record=True)
    t.load_elf("firmware/build/datacopy_bf16/trisc0.elf", core="trisc0")
    t.release(["trisc0"])
    plan = plan_from_tile(t)
    assert all(a < t.arch.l1_size for a, _ in plan.writes)  # the local segment went via its L1 copy
    t = Tile("wormhole_b0", record=True)
    t.write_u32(0xFFB00010, 1, "trisc0")
    t.release(["trisc0"])
    with pytest.raises(OracleUnable, match="trisc0-local 0xffb00010"):
        plan_from_tile(t)


def test_compare_region_reports_tiles_and_words():
    import numpy as np

    from ttemu import tiles

    a = (np.arange(32 * 32) % 64).astype(np.float64).reshape(32, 32)  # exact in bf16
    ours = tiles.encode(a, "bf16")
    b = a.copy()
    b[17, 3] = -1.0
    theirs = tiles.encode(b, "bf16")
    d = compare_region("out", 0x5000, ours, theirs, "bf16", (32, 32))
    assert not d.ok and d.differing_bytes == 2
    text = d.text()
    assert "tile (0,0): 1 differ; faces bottom-left; rows 17; cols 3" in text
    assert "ttemu 35, ttsim -1" in text
    raw = compare_region("dump", 0x100, b"\0" * 8, b"\0" * 4 + b"\1\0\0\0")
    assert "0x00000104: ttemu 0x00000000, ttsim 0x00000001" in raw.text()
    assert compare_region("same", 0, ours, ours).ok


# -- against ttsim -------------------------------------------------------------------
def test_negate_is_bit_identical_on_ttsim(capsys, lib):
    rc, out, err = run(capsys, "run", NEGATE, "--oracle", lib, "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["oracle"]["ok"] and doc["oracle"]["regions"][0]["differing_bytes"] == 0
    assert doc["oracle"]["regions"][0]["addr"] == 0x23000


def test_a_difference_is_reported_as_tiles_and_exit_7(capsys, lib, monkeypatch):
    import ttemu.cmd.oracle as oracle_pkg

    real = oracle_pkg.run_ttsim

    def flipped(path, plan, **kw):  # ttsim's answer with one bf16 datum's sign flipped
        res = real(path, plan, **kw)
        r = bytearray(res.regions[0])
        r[1] ^= 0x80
        res.regions[0] = bytes(r)
        return res

    monkeypatch.setattr(oracle_pkg, "run_ttsim", flipped)
    rc, out, err = run(capsys, "run", NEGATE, "--oracle", lib)
    assert rc == 7
    assert "oracle neg at 0x23000+4096: 1 bytes differ from ttsim" in out
    assert "tile (0,0): 1 differ; faces top-left; rows 0; cols 0" in out


def test_a_ttsim_refusal_quotes_its_error_and_exits_8(capsys, lib):
    # DBG_FEATURE_DISABLE bit 11 is modelled by ttemu (Dst.md); ttsim refuses any non-zero value
    rc, out, err = run(capsys, "run", NEGATE, "--oracle", lib, "--write", "0xFFB12068=0x800")
    assert rc == 8
    line = [ln for ln in err.splitlines() if ln.startswith("ttemu: error:")][0]
    assert line.startswith("ttemu: error: oracle: ttsim refused the run:")
    assert "ERROR: UnsupportedFunctionality" in line and "DBG_FEATURE_DISABLE" in line


def test_core_local_writes_cannot_be_compared(capsys, lib):
    rc, out, err = run(capsys, "run", NEGATE, "--oracle", lib, "--write", "brisc:0xFFB00400=1")
    assert rc == 8 and "brisc-local 0xffb00400" in err


def test_oracle_usage_errors(capsys, tmp_path):
    rc, out, err = run(capsys, "run", NEGATE, "--oracle", str(tmp_path / "nope.so"))
    assert rc == 1 and "nope.so: no such file" in err
    bogus = tmp_path / "bogus.so"
    bogus.write_bytes(b"not a library")
    rc, out, err = run(capsys, "run", NEGATE, "--oracle", str(bogus))
    assert rc == 1 and "not a loadable ttsim library" in err
    rc, out, err = run(capsys, "run", "firmware/build/hello/brisc.elf", "--oracle", str(bogus))
    assert rc == 2 and "nothing to compare" in err


def test_negate_on_blackhole_is_bit_identical_to_ttsims_blackhole_library(capsys):
    path = require_ttsim("blackhole")
    rc, out, err = run(capsys, "run", NEGATE, "--arch", "blackhole", "--oracle", path, "--json")
    assert rc == 0, err
    assert json.loads(out)["oracle"]["ok"]


def test_cross_check_from_python(lib):
    """The Python API: a tile built with record=True, run, then checked on ttsim."""
    import numpy as np

    from ttemu import tiles
    from ttemu.cmd.oracle import cross_check

    a = np.linspace(-3, 3, 32 * 64).reshape(32, 64)
    tile = Tile("wormhole_b0", record=True)
    tile.load_elf("firmware/build/negate/brisc.elf", core="brisc")
    tile.write(0x21000, tiles.encode(a, "bf16"))
    tile.release(["brisc"])
    assert tile.run(max_steps=200_000, until=[(0x20000, 1)]).outcome == "until"
    diffs, res = cross_check(tile, lib, [("neg", 0x23000, 4096, "bf16", (32, 64)), ("flag", 0x20000, 4)],
                             until=[(0x20000, 1)])
    assert [d.ok for d in diffs] == [True, True] and res.completed
    assert np.array_equal(tiles.decode(tile.read(0x23000, 4096), "bf16", (32, 64)), -tiles.quantize(a, "bf16"))
