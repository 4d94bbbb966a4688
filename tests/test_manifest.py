"""Manifests (README.md "Manifests") and output checks (--expect, exit 7)."""

import json
import os

import numpy as np
import pytest

from ttemu import tiles
from ttemu.cli import main
from ttemu.errors import BadInput
from ttemu.cmd.expect import compare
from ttemu.cmd.manifest import load

ROOT = os.path.join(os.path.dirname(__file__), "..")
NEGATE = os.path.join(ROOT, "firmware", "negate", "negate.toml")


def run(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def write_manifest(tmp_path, text, name="k.toml"):
    path = tmp_path / name
    path.write_text(text.replace("@ELF@", os.path.abspath(os.path.join(ROOT, "firmware/build/negate/brisc.elf"))))
    return str(path)


BASE = """
max_steps = 200_000
[cores]
brisc = "@ELF@"
[[input]]
name = "a"
addr = 0x21000
format = "bf16"
shape = [32, 64]
seed = 3
[[until]]
addr = 0x20000
value = 1
"""


def test_shipped_negate_manifest_passes(capsys):
    rc, out, err = run(capsys, "run", NEGATE, "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["expect"][0]["ok"] and doc["manifest"] == "negate_bf16"


def test_wrong_reference_exits_7_with_tile_diff(capsys, tmp_path):
    m = write_manifest(tmp_path, BASE + """
[[expect]]
addr = 0x23000
format = "bf16"
shape = [32, 64]
reference = "np.where(np.arange(64) == 40, a, -a)"
atol = 0
rtol = 0
""")
    rc, out, err = run(capsys, "run", m)
    assert rc == 7
    assert "MISMATCH (32 of 2048)" in out
    assert "tile (0,1): 32 differ; faces top-left, bottom-left; rows 0-31; cols 8" in out
    assert "tile (0,0)" not in out.split("values differ")[1]


def test_generated_inputs_follow_the_seed(tmp_path):
    m = write_manifest(tmp_path, BASE)
    a1 = load(m).inputs[0]
    a2 = load(m).inputs[0]
    a3 = load(m, seed_override=11).inputs[0]
    assert a1.data == a2.data and a1.data != a3.data
    # what the kernel sees is the input after conversion to the format
    assert np.array_equal(a1.values, tiles.quantize(a1.values, "bf16"))


def test_reference_comes_from_numpy_over_the_inputs(tmp_path):
    m = write_manifest(tmp_path, BASE + """
[[expect]]
addr = 0x23000
format = "bf16"
shape = [32, 64]
reference = "np.abs(a) * 2"
""")
    man = load(m)
    assert np.array_equal(man.expects[0].expected, np.abs(man.inputs[0].values) * 2)


@pytest.mark.parametrize("text,msg", [
    ("bogus = 1\n" + BASE, "unknown key"),
    (BASE.replace('format = "bf16"', 'format = "bf17"'), "unknown tile format"),
    (BASE.replace("shape = [32, 64]", "shape = [30, 64]"), "multiples of 32"),
    (BASE.replace('brisc = "@ELF@"', 'brissc = "@ELF@"'), "unknown core"),
    (BASE + '[[expect]]\naddr = 0x23000\nformat = "bf16"\nreference = "a +"\n', "failed"),
    ("[cores\n", "not valid TOML"),
])
def test_schema_errors_are_one_line_bad_input(tmp_path, capsys, text, msg):
    m = write_manifest(tmp_path, text)
    rc, out, err = run(capsys, "run", m)
    assert rc in (1, 2) and msg in err and "Traceback" not in err


def test_cli_options_override_the_manifest(capsys, tmp_path):
    m = write_manifest(tmp_path, BASE)
    rc, out, err = run(capsys, "run", m, "--max-steps", "10", "--json")
    assert rc == 4 and json.loads(out)["steps"] == 10


def test_expect_option_with_raw_file_and_tolerance(capsys, tmp_path):
    man = load(NEGATE)
    expected = -man.inputs[0].values
    raw = tmp_path / "neg.bin"
    raw.write_bytes(tiles.encode(expected, "bf16"))
    rc, out, err = run(capsys, "run", NEGATE, "--expect", f"0x23000:bf16:32x64={raw}")
    assert rc == 0
    off = tmp_path / "off.npy"
    np.save(off, expected + 0.001)
    rc, out, err = run(capsys, "run", NEGATE, "--expect", f"0x23000:bf16={off}", "--atol", "0", "--rtol", "0")
    assert rc == 7
    rc, out, err = run(capsys, "run", NEGATE, "--expect", f"0x23000:bf16={off}", "--atol", "0.01")
    assert rc == 0


def test_compare_nan_and_inf_by_class():
    a = np.array([[np.nan, np.inf, -np.inf, 1.0]])
    assert compare(a, a.copy()).ok
    assert not compare(a, np.array([[np.nan, -np.inf, -np.inf, 1.0]])).ok


def test_tiles_layout_faces_and_tile_order():
    m = np.arange(32 * 64, dtype=np.float64).reshape(32, 64)
    data = tiles.encode(m, "fp32")
    words = np.frombuffer(data, dtype=np.float32)
    assert words[0] == 0 and words[15] == 15 and words[16] == 64  # face 0 row 1
    assert words[256] == 16  # face 1 (top-right) starts at column 16
    assert words[512] == 16 * 64  # face 2 (bottom-left)
    assert words[1024] == 32  # second tile starts at column 32
    assert np.array_equal(tiles.decode(data, "fp32", m.shape), m)
    with pytest.raises(Exception):
        load_bad = BadInput  # noqa: F841
        tiles.decode(data[:100], "fp32", m.shape)


def test_reports_the_largest_error_even_when_within_tolerance():
    c = compare(np.array([[1.0, 2.0]]), np.array([[1.0, 2.01]]), atol=0.1)
    assert c.ok and abs(c.max_abs - 0.01) < 1e-12 and abs(c.max_rel - 0.01 / 2.01) < 1e-12


def test_reference_may_use_array_methods(tmp_path):
    m = write_manifest(tmp_path, BASE + """
[[expect]]
addr = 0x23000
format = "bf16"
shape = [32, 64]
reference = "-a + 0 * a.sum(axis=0, keepdims=True)"
""")
    man = load(m)
    assert np.array_equal(man.expects[0].expected, -man.inputs[0].values)


def test_parsed_manifest_is_cached_and_follows_the_file(tmp_path, monkeypatch):
    """A manifest's parsed TOML is kept in the disk cache (key: the file's bytes): the
    second load reads it from there, an edited file is parsed afresh, and a document
    with a TOML date (which the cache cannot store) still loads."""
    from ttemu.cmd import manifest as manifest_mod
    from ttemu.riscv.codecache import CodeCache

    monkeypatch.setenv("TTEMU_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "k.toml"
    path.write_text('name = "k"\nmax_steps = 5\n[cores]\nbrisc = "b.elf"\n')
    first = manifest_mod.load(str(path))
    cache = CodeCache(kind="toml")
    key = b"toml-1:" + path.read_bytes()
    assert cache.get(key) == first.raw
    cache.put(key, {**first.raw, "name": "from the cache"})  # what a second load uses
    assert manifest_mod.load(str(path)).name == "from the cache"
    path.write_text('name = "k2"\nmax_steps = 6\n[cores]\nbrisc = "b.elf"\n')
    again = manifest_mod.load(str(path))
    assert (again.name, again.max_steps) == ("k2", 6)
    path.write_text('name = "k3"\nwhen = 1979-05-27\n[cores]\nbrisc = "b.elf"\n')
    with pytest.raises(BadInput, match="unknown key"):
        manifest_mod.load(str(path))
    assert not list((tmp_path / "cache").rglob("*.tmp"))
