"""``ttemu simlib``: ttemu as a drop-in for ttsim's library, driven by Tenstorrent's own
clients (tt-umd's Python API, the tt-exalens command line) and by a C host, on both
arches; every client test runs the same way on ttsim's library (with the SoC
descriptor ttemu writes) where ttsim can be built.

Each library instance runs in a process of its own (ttsim's state is process-global).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from oracle_lib import ttsim_lib
from simlib_umd_client import expected, program

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ARCHS = ("wormhole_b0", "blackhole")
TILE = {"wormhole_b0": (1, 1), "blackhole": (1, 2)}
SHORT = {"wormhole_b0": "wh", "blackhole": "bh"}
SOFT_RESET = 0x47800  # both arches: every core held
# ttsim's fatal-error line, which its clients (tt-llk's test harness) parse
ERROR_LINE = re.compile(r"^\[\d+\] ERROR: (\w+): (\w+)(?:[: \t]+(.*?))?[ \t]*$", re.MULTILINE)


def _need_gcc():
    if not (os.environ.get("CC") or shutil.which("gcc")):
        pytest.skip("no C compiler (gcc): ttemu simlib compiles its library with one")


@pytest.fixture(scope="module")
def ttemu_libs(tmp_path_factory):
    _need_gcc()
    out = {}
    for arch in ARCHS:
        d = tmp_path_factory.mktemp(f"ttemu-{SHORT[arch]}")
        proc = subprocess.run([sys.executable, "-m", "ttemu", "simlib", "--arch", arch, str(d)], cwd=ROOT,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        out[arch] = proc.stdout.strip()
    return out


@pytest.fixture(scope="module")
def ttsim_libs(tmp_path_factory, ttemu_libs):
    """ttsim's libraries, each copied beside the SoC descriptor ttemu wrote (None, and the
    reason, where ttsim is unavailable)."""
    out = {}
    for arch in ARCHS:
        path, why = ttsim_lib(arch)
        if path is None:
            out[arch] = (None, why)
            continue
        d = tmp_path_factory.mktemp(f"ttsim-{SHORT[arch]}")
        shutil.copy(path, d / Path(ttemu_libs[arch]).name)
        shutil.copy(Path(ttemu_libs[arch]).parent / "soc_descriptor.yaml", d)
        out[arch] = (str(d / Path(ttemu_libs[arch]).name), None)
    return out


def _lib(impl, arch, ttemu_libs, ttsim_libs):
    if impl == "ttemu":
        return ttemu_libs[arch]
    path, why = ttsim_libs[arch]
    if path is None:
        pytest.skip(why)
    return path


def _need(module, what):
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{what} is not installed (the test extra has it: pip install -e '.[test]')")


def _run(cmd, timeout=300, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=HERE, **kw)


# -- tt-umd's Python API ------------------------------------------------------------------------
@pytest.mark.parametrize("impl", ["ttemu", "ttsim"])
@pytest.mark.parametrize("arch", ARCHS)
def test_umd_python_api(arch, impl, ttemu_libs, ttsim_libs):
    """L1 round trip, another tile, a DRAM node, soft reset and a BRISC program through
    tt_umd.create_simulation_tt_device. The program's done flag shows at the poll the
    clock definition predicts: one instruction per clock, a clock after each read."""
    _need("tt_umd", "tt-umd")
    lib = _lib(impl, arch, ttemu_libs, ttsim_libs)
    x, y = TILE[arch]
    n = 40
    proc = _run([sys.executable, str(HERE / "simlib_umd_client.py"), lib, str(x), str(y), str(n)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ERROR" not in proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["arch"] == arch
    assert got["word"] == 0xCAFE and got["block_ok"]
    assert got["far_tile"][2] == 0x5EED and tuple(got["far_tile"][:2]) != (x, y)
    assert got["dram"][2] == 0xD7A3
    assert got["reset_initial"] == SOFT_RESET and got["reset_asserted"] == SOFT_RESET
    assert got["reset_released"] == SOFT_RESET & ~(1 << 11)
    assert got["result"] == expected(n)
    # 5 instructions, 5 a loop iteration, the last compare and 3 stores: the done flag's
    # store is instruction 5n + 9, one clock ran after the reset-state read
    assert got["polls"] == 5 * n + 8


# -- the tt-exalens command line -----------------------------------------------------------------
def _exalens():
    exe = Path(sys.executable).with_name("tt-exalens")
    if exe.exists():
        return [str(exe)]
    _need("ttexalens", "tt-exalens")
    return [sys.executable, "-m", "ttexalens.cli"]


EXALENS_COMMANDS = "wxy {x}-{y} 0x100 0xcafe; brxy {x}-{y} 0x100 2; x"


@pytest.fixture(scope="module")
def exalens_runs(ttemu_libs, ttsim_libs):
    """The tt-exalens command line on every library, started at once (its start-up, about
    5 s, mostly waits): (arch, impl) -> (return code, output), or the reason it cannot run."""
    _need("ttexalens", "tt-exalens")
    procs = {}
    for arch in ARCHS:
        for impl in ("ttemu", "ttsim"):
            lib = ttemu_libs[arch] if impl == "ttemu" else ttsim_libs[arch][0]
            if lib is None:
                procs[(arch, impl)] = ttsim_libs[arch][1]
                continue
            x, y = TILE[arch]
            cmd = _exalens() + ["-s", lib, "--commands=" + EXALENS_COMMANDS.format(x=x, y=y)]
            procs[(arch, impl)] = subprocess.Popen(cmd, cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                   text=True)
    out = {}
    for key, proc in procs.items():
        if isinstance(proc, str):
            out[key] = proc
            continue
        try:
            text, _ = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            text, _ = proc.communicate()
        out[key] = (proc.returncode, text)
    return out


@pytest.mark.parametrize("impl", ["ttemu", "ttsim"])
@pytest.mark.parametrize("arch", ARCHS)
def test_exalens_cli(arch, impl, exalens_runs):
    got = exalens_runs[(arch, impl)]
    if isinstance(got, str):
        pytest.skip(got)
    rc, text = got
    assert rc == 0, text
    assert re.search(r"0x00000100:\s+0000cafe\s+00000000", text), text


# -- a C host --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    _need_gcc()
    d = tmp_path_factory.mktemp("driver")
    exe = d / "simlib_driver"
    proc = subprocess.run([os.environ.get("CC") or "gcc", "-O1", "-Wall", "-o", str(exe),
                           str(HERE / "simlib_driver.c"), "-ldl"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (d / "program.bin").write_bytes(program())
    return exe, d / "program.bin"


@pytest.mark.parametrize("impl", ["ttemu", "ttsim"])
@pytest.mark.parametrize("arch", ARCHS)
def test_c_host(arch, impl, ttemu_libs, ttsim_libs, driver):
    """A C program with no Python in it: the library starts an interpreter itself."""
    lib = _lib(impl, arch, ttemu_libs, ttsim_libs)
    exe, prog = driver
    x, y = TILE[arch]
    n = 30
    proc = _run([str(exe), lib, SHORT[arch], str(x), str(y), str(prog), str(n)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    device = {"wormhole_b0": 0x401E, "blackhole": 0xB140}[arch]
    assert int(got["id"], 16) == 0x1E52 | device << 16
    assert got["absent"] == "0xffffffff"
    assert got["bar0"] == "0x0000000100000004"
    assert got["block"] == "ok"
    assert int(got["reset"], 16) == SOFT_RESET
    assert int(got["result"]) == expected(n)
    assert int(got["polls"]) == 5 * n + 9  # the first poll comes right after the release


def test_c_host_refusal_is_ttsims_error_line(ttemu_libs, driver, tmp_path):
    """An access the chip refuses ends the process with one line in ttsim's shape."""
    exe, _ = driver
    bad = tmp_path / "big.bin"
    bad.write_bytes(b"\0" * 4096)
    # a TLB window onto (40, 40): outside the grid
    proc = _run([str(exe), ttemu_libs["wormhole_b0"], "wh", "40", "40", str(bad), "1"])
    assert proc.returncode == 5, proc.stdout + proc.stderr
    m = ERROR_LINE.search(proc.stderr)
    assert m and m.group(1) == "HostFault" and m.group(2) == "ttemu", proc.stderr
    assert "(40, 40)" in m.group(3)
    assert ERROR_LINE.search(proc.stdout).group(0) == m.group(0)  # on stdout too, as ttsim prints it


# -- a Tensix kernel set through the library ---------------------------------------------------------
@pytest.mark.parametrize("arch", ARCHS)
def test_kernel_set_through_the_library_is_bit_identical(arch, ttemu_libs):
    """``ttemu run --oracle`` (a ctypes host: BRISC boot code and three TRISC kernels,
    inputs written through TLB windows, release, clock(n) between polls) on ttemu's
    library gives the bytes ttemu's own run gives, and the manifest's numpy check passes."""
    proc = subprocess.run([sys.executable, "-m", "ttemu", "run", "firmware/eltwise_add/eltwise_add.toml", "--arch",
                           arch, "--oracle", ttemu_libs[arch], "--json"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["outcome"] == "until" and all(e["ok"] for e in doc["expect"])
    assert doc["oracle"]["ok"] and doc["oracle"]["regions"]
    assert all(r["differing_bytes"] == 0 for r in doc["oracle"]["regions"])


# -- README.md's section runs as written ---------------------------------------------------------
README_DIRS = {"/tmp/ttemu-wh": "wormhole_b0", "/tmp/ttemu-bh": "blackhole"}


def _readme_blocks():
    text = (ROOT / "README.md").read_text()
    start = text.index("## Using ttemu from tt-exalens, tt-umd and tt-llk's tests")
    section = text[start:text.index("\n## ", start + 3)]
    return re.findall(r"```(\w+)\n(.*?)```", section, re.S)


def _swap(text, dirs):
    for readme_dir, real in dirs.items():
        text = text.replace(readme_dir, str(real))
    return text


def test_readme_simlib_and_umd_example(tmp_path):
    """The README's ``ttemu simlib`` lines (into temporary directories) and its tt-umd
    snippet, run as written."""
    _need_gcc()
    dirs = {d: tmp_path / Path(d).name for d in README_DIRS}
    blocks = _readme_blocks()
    lines = [ln for lang, code in blocks if lang == "sh" for ln in code.splitlines() if ln.startswith("ttemu simlib")]
    assert len(lines) == 2
    for line in lines:
        cmd, _, comment = _swap(line, dirs).partition("#")
        proc = subprocess.run([sys.executable, "-m", "ttemu", *cmd.split()[1:]], cwd=ROOT, capture_output=True,
                              text=True)
        assert proc.returncode == 0, proc.stderr
        assert comment.split()[-1] == proc.stdout.strip()  # "prints PATH"
    (snippet,) = [code for lang, code in blocks if lang == "python"]
    _need("tt_umd", "tt-umd")
    proc = _run([sys.executable, "-c", _swap(snippet, dirs)])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0x47800" in proc.stdout.split()  # (tt-umd logs to stdout too)


def test_readme_exalens_line_is_the_tested_command():
    """test_exalens_cli runs exactly the README's tt-exalens line (Wormhole, worker 1-1)."""
    import shlex

    (line,) = [ln for lang, code in _readme_blocks() if lang == "sh" for ln in code.splitlines()
               if ln.startswith("tt-exalens")]
    words = shlex.split(line)
    assert words[:2] == ["tt-exalens", "-s"] and words[2] == "/tmp/ttemu-wh/libttsim_wh.so"
    assert words[3:] == [f"--commands={EXALENS_COMMANDS.format(x=1, y=1)}"]
