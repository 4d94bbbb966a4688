"""scripts/profile_scale.py: shares of a scaling set's run time by component."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import profile_scale  # noqa: E402


@pytest.mark.parametrize("path, comp", [
    ("ttemu/tensix/frontend/thread.py", "push+frontend"), ("ttemu/tile.py", "push+frontend"),
    ("<block 0x00004164>", "riscv"), ("ttemu/riscv/hart.py", "riscv"),
    ("ttemu/tensix/units/pack.py", "pack"), ("ttemu/tensix/formats/pack_late.py", "pack"),
    ("ttemu/tensix/units/unpack.py", "unpack"), ("ttemu/tensix/units/math_batch.py", "matrix unit"),
    ("ttemu/tensix/units/sfpu/macro.py", "vector unit"), ("ttemu/tensix/regs/config.py", "config+scalar"),
    ("ttemu/cmd/manifest.py", "other"), ("~", None), ("numpy/_core/numeric.py", None)])
def test_component_of_a_file(path, comp):
    assert profile_scale.component(path) == comp


def test_samples_count_the_run_only_and_give_numpy_to_its_caller():
    run = "main (ttemu/cmd/cli.py:1);Session._run_phases (ttemu/cmd/session.py:443);run (ttemu/run.py:260)"
    text = "\n".join([
        f"{run};PACR (ttemu/tensix/units/pack.py:721);full (numpy/_core/numeric.py:323) 50",
        f"{run};pump (ttemu/tensix/frontend/thread.py:151) 25",
        "main (ttemu/cmd/cli.py:1);make_input (ttemu/cmd/manifest.py:371) 1000",  # start-up: not counted
        ""])
    parts = profile_scale.samples(text)
    rate = profile_scale.RATE
    assert parts == {"pack": 50 / rate, "push+frontend": 25 / rate}


def test_attribute_gives_builtins_to_callers():
    pack = ("ttemu/tensix/units/pack.py", 1, "PACR")
    pump = ("ttemu/tensix/frontend/thread.py", 1, "pump")
    take = ("~", 0, "<method 'take' of 'numpy.ndarray' objects>")
    stats = {pack: (1, 1, 2.0, 5.0, {}), pump: (1, 1, 1.0, 5.0, {}),
             take: (3, 3, 4.0, 4.0, {pack: (1, 1, 3.0, 3.0), pump: (2, 2, 1.0, 1.0)})}
    assert profile_scale.attribute(stats) == {"pack": 5.0, "push+frontend": 2.0}


def test_command_line_prints_a_row_per_family():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "profile_scale.py"), "datacopy", "untilize",
                          "--size", "4"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr
    head, *rows = out.stdout.strip().splitlines()
    assert head.split()[:3] == ["family", "size", "s"]
    assert [r.split()[:2] for r in rows] == [["datacopy", "4"], ["untilize", "4"]]
    for r in rows:
        shares = [float(x.rstrip("%")) for x in r.split()[3:]]
        assert len(shares) == len(profile_scale.COMPONENTS) + 1
        assert 95 <= sum(shares) <= 105  # whole percents, each rounded
