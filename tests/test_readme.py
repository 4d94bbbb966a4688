"""README.md and docs/ say what ttemu does, and their examples run as shown.

- Every ```console block (README and docs/) is run line by line in bash (``ttemu`` is this
  checkout's ``python -m ttemu``) and its output compared with the one shown, modulo timings
  (``0.08 s``) and the order in which stdout and stderr interleave.
- README's two commands are what .ci/run does; ``ttemu run --help`` (and the other commands)
  offer exactly the options README lists.
- README's and docs' Python examples run; every other command line in a ```sh block is run
  here or by the test named for it in RUN_ELSEWHERE.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from oracle_lib import SHARED, ttsim_lib

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))


def blocks(path, lang=None):
    """[(lang, code)] of the fenced blocks in ``path``."""
    found = re.findall(r"^```(\w*)\n(.*?)^```", path.read_text(), re.S | re.M)
    return [(la, code) for la, code in found if lang is None or la == lang]


def section(path, title):
    text = path.read_text()
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 4)
    return text[start:end if end > 0 else None]


# -- console blocks ------------------------------------------------------------------------------

def console_examples():
    """[(id, [(command, [expected lines])])] of every ```console block."""
    out = []
    for path in [README, *DOCS]:
        for k, (_, code) in enumerate(blocks(path, "console")):
            steps = []
            for line in code.replace("\\\n", " ").splitlines():
                if line.startswith("$ "):
                    steps.append((line[2:], []))
                else:
                    assert steps, f"{path.name}: console block {k} starts without a '$ ' command"
                    steps[-1][1].append(line)
            out.append((f"{path.name}:{k}", steps))
    return out


TIMING = re.compile(r"\d+(\.\d+)? s\b")


def _norm(line):
    return TIMING.sub("N s", line.rstrip())


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    """A directory with a ``ttemu`` that runs this checkout's code."""
    d = tmp_path_factory.mktemp("bin")
    (d / "ttemu").write_text(f'#!/bin/sh\ncd "{ROOT}" && exec "{sys.executable}" -m ttemu "$@"\n')
    (d / "ttemu").chmod(0o755)
    return d


def _paths(text, tmp):
    """README's paths made real: ../shared, ttsim's library directory, other /tmp files."""
    text = re.sub(r"/tmp/(?!ttsim\b)(?=[\w.-])", f"{tmp}/", text)
    lib, _ = ttsim_lib("wormhole_b0")
    if lib:
        text = re.sub(r"/tmp/ttsim\b", str(Path(lib).parent), text)
    return text.replace("../shared/", f"{SHARED}/")


@pytest.mark.parametrize("name,steps", console_examples(), ids=[n for n, _ in console_examples()])
def test_console_example_runs_as_shown(name, steps, shim, tmp_path):
    text = "\n".join(cmd for cmd, _ in steps)
    if "--oracle" in text or "oracles/ttsim" in text:
        lib, why = ttsim_lib("wormhole_b0")
        if lib is None:
            pytest.skip(why)
    env = dict(os.environ, PATH=f"{shim}{os.pathsep}{os.environ['PATH']}")
    for cmd, shown in steps:
        proc = subprocess.run(["bash", "-c", _paths(cmd, tmp_path)], cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
        streams = [[_norm(ln) for ln in s.splitlines()] for s in (proc.stdout, proc.stderr)]
        want = [_norm(_paths(ln, tmp_path)) for ln in shown]
        got = sorted(streams[0] + streams[1])
        assert sorted(want) == got, f"{name}: $ {cmd}\nshown:\n" + "\n".join(want) + "\ngot:\n" + \
            proc.stdout + "\n--- stderr:\n" + proc.stderr
        for s in streams:  # each stream's lines in the order shown
            assert [ln for ln in want if ln in s] == [ln for ln in s if ln in want], f"{name}: $ {cmd}: order"
        if "echo \"exit $?\"" not in cmd:
            assert proc.returncode == 0, f"{name}: $ {cmd}: exit {proc.returncode}\n{proc.stderr}"


# -- the two commands ----------------------------------------------------------------------------

def _two_commands():
    (sh,) = [code for _, code in re.findall(r"```(\w*)\n(.*?)```", section(README, "Install and test"), re.S)]
    return sh.strip().splitlines()


def test_the_test_command_is_what_ci_runs():
    """README's second command installs the extras .ci/run installs and runs what it runs."""
    _, second = _two_commands()
    m = re.fullmatch(r"pip install -e '\.\[([\w,]+)\]' && (.+)", second)
    assert m, second
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    (pip,) = [ln for ln in ci if re.search(r"pip install .*-e ", ln)]
    assert re.search(rf"-e '\.\[{m.group(1)}\]'", pip), (pip, second)
    assert [ln for ln in ci if ln.strip() and not ln.startswith(("#", " ", "fi"))][-1] == m.group(2)


def test_the_first_command_runs_its_example():
    first, _ = _two_commands()
    m = re.fullmatch(r"pip install -e \. && ttemu (run \S+\.toml)", first)
    assert m, first
    proc = subprocess.run([sys.executable, "-m", "ttemu", *m.group(1).split()], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0 and "expect out: ok" in proc.stdout, proc.stdout + proc.stderr


# -- options: --help against README ----------------------------------------------------------------

def _cli():
    from ttemu.cmd.cli import cli

    return cli


def _options(command):
    opts = set()
    for p in command.params:
        if p.param_type_name == "option" and not getattr(p, "hidden", False):
            opts.update(o for o in p.opts + p.secondary_opts if o.startswith("--"))
    return opts - {"--help"}


def test_run_options_table_is_run_help():
    """Every option ``ttemu run --help`` shows is in README's table, and nothing else is."""
    table = section(README, "Commands").split("`ttemu run` options")[1].split("\n\n")[1]
    rows = [ln.split("|")[1] for ln in table.splitlines() if ln.startswith("| `")]
    listed = {o for r in rows for o in re.findall(r"--[a-z][a-z0-9-]*", r)}
    assert listed == _options(_cli().commands["run"])


def test_commands_block_names_every_command_and_option():
    """The Commands block: one line per command; each command's own options, as ``--help`` has them."""
    cli = _cli()
    code = re.findall(r"```\n(.*?)```", section(README, "Commands"), re.S)[0]
    usage = {}
    for line in code.splitlines():
        words = line.split()
        usage.setdefault(words[1], []).append(line.split("  ")[0])
    assert set(usage) == set(cli.commands)
    run_opts = _options(cli.commands["run"])
    for name, lines in usage.items():
        listed = {o for ln in lines for o in re.findall(r"--[a-z][a-z0-9-]*", ln)}
        own = _options(cli.commands[name]) - (run_opts if name in ("run", "trace") else set())
        if name == "trace":
            own |= {"--json"}  # the comparison honours --json too
            assert "-o FILE" in lines[0]  # the short form of --output
            listed |= {"--output"}
        assert listed == own, (name, listed, own)


# -- Python and the commands other tests run ----------------------------------------------------------

def _exec(code, where, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(code, where, "exec"), {})


def test_python_api_example(monkeypatch):
    (code,) = [c for la, c in re.findall(r"```(\w*)\n(.*?)```", section(README, "Python API"), re.S) if la == "python"]
    _exec(code, "README.md (Python API)", monkeypatch)


def test_docs_python_examples(monkeypatch):
    """The docs' Python blocks that stand alone (their own imports and tile)."""
    ran = 0
    for path in DOCS:
        for code in (c for _, c in blocks(path, "python")):
            if "Tile(" not in code:
                continue
            _exec(code, str(path), monkeypatch)
            ran += 1
    assert ran >= 1


def test_readme_gdb_lines(tmp_path):
    """README's two gdb lines: ttemu waits for gdb, gdb attaches (batch mode) and detaches,
    and the run goes on to its end."""
    from gdb_harness import GDB, Ttemu

    if GDB is None:
        pytest.skip("gdb-multiarch is not installed")
    (code,) = [c for la, c in re.findall(r"```(\w*)\n(.*?)```", section(README, "Debugging with gdb"), re.S)]
    serve, attach = [ln.split("#")[0] for ln in code.strip().splitlines()]
    args = shlex.split(serve)
    assert args[:2] == ["ttemu", "run"] and args[-2:] == ["--gdb", "3333"]
    with Ttemu(*args[2:-2]) as t:
        words = shlex.split(attach.replace(":3333", f":{t.port}"))
        assert words[0] == "gdb-multiarch"
        proc = subprocess.run([GDB, "-batch", "-nx", *words[1:]], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert "[Inferior 1 (Remote target) detached]" in proc.stdout, proc.stdout + proc.stderr
        rc, out, err = t.finish()
    assert rc == 0 and "expect out: ok" in out, out + err


# Command lines in ```sh blocks that this file does not run, and the test that does.
RUN_ELSEWHERE = {
    "pip install -e ": "test_the_test_command_is_what_ci_runs / test_the_first_command_runs_its_example",
    "ttemu run firmware/matmul_block/matmul_block.toml --gdb": "test_readme_gdb_lines",
    "gdb-multiarch ": "test_readme_gdb_lines",
    "ttemu simlib --arch ": "tests/test_simlib.py::test_readme_simlib_and_umd_example",
    "tt-exalens -s ": "tests/test_simlib.py::test_readme_exalens_line_is_the_tested_command",
    "python scripts/llk_corpus.py": "tests/test_llk_corpus.py, test_llk_corpus_bh.py (the --ci variants)",
    "python scripts/llk_harness.py": "tests/test_llk_harness.py (the CI subset)",
    "export TT_METAL_SIMULATOR": "tests/test_llk_harness.py (tt-llk's harness on the library)",
    "pytest --run-simulator": "tests/test_llk_harness.py",
    "pip install --no-deps riscv-ctg": ".ci/run",
    "python scripts/rv_archtests.py": "tests/test_rv_archtests.py",
    "python scripts/fuzz.py ": "tests/test_fuzz.py::test_command_line (each subcommand, short seed ranges)",
}
RUN_HERE = ["ttemu run firmware/eltwise_add/eltwise_add.toml --arch blackhole"]


def test_every_sh_line_is_run_somewhere():
    for path in [README, *DOCS]:
        for _, code in blocks(path, "sh"):
            for line in code.replace("\\\n", " ").splitlines():
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                assert any(line.startswith(p) for p in [*RUN_ELSEWHERE, *RUN_HERE]), \
                    f"{path.name}: no test runs `{line}`"


def test_docs_blackhole_oracle_example():
    """docs/blackhole.md's Blackhole run of a shipped manifest against ttsim, as written."""
    lib, why = ttsim_lib("blackhole")
    if lib is None:
        pytest.skip(why)
    (code,) = [c for _, c in blocks(ROOT / "docs" / "blackhole.md", "sh") if RUN_HERE[0] in c.replace("\\\n", " ")]
    args = shlex.split(code.replace("\\\n", " ").replace("/tmp/ttemu-ttsim-oracle/libttsim_bh.so", lib))
    proc = subprocess.run([sys.executable, "-m", "ttemu", *args[1:]], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0 and re.search(r"oracle ttsim: (\d+) of \1 regions bit-identical", proc.stdout), \
        proc.stdout + proc.stderr


def test_manifest_example_names_every_key_and_only_real_ones():
    """README's manifest block: each key it sets is one the checker accepts for its table,
    and every key the checker knows appears in it (set, or named in a comment)."""
    import tomllib

    from ttemu.cmd.manifest import SCHEMA

    (code,) = [c for la, c in re.findall(r"```(\w*)\n(.*?)```", section(README, "Manifests"), re.S) if la == "toml"]
    doc = tomllib.loads(code)
    assert set(doc) <= set(SCHEMA[""])
    for table in ("input", "write", "until", "expect"):
        for entry in doc[table]:
            assert set(entry) <= set(SCHEMA[table]), table
    assert set(doc["write"][0]["when"]) <= set(SCHEMA["when"])
    words = set(re.findall(r"\b[a-z_0-9]+\b", code))
    for table, keys in SCHEMA.items():
        assert set(keys) <= words, (table, set(keys) - words)


def test_exit_code_table_is_every_code_ttemu_uses():
    """README's exit codes: the typed errors', the run outcomes', 9, 70 and 130, and no other."""
    import ttemu.errors as errors
    from ttemu.cmd import cli, session
    from ttemu.run import EXIT_CODES

    table = section(README, "Commands").split("### Exit codes")[1]
    listed = {int(m) for m in re.findall(r"^\| (\d+) \|", table, re.M)}
    used = {c.exit_code for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.TtemuError)}
    used |= set(EXIT_CODES.values()) | {session.UNTIL_NOT_MET, session.INTERRUPTED, cli.INTERNAL_ERROR, 7, 2}
    assert listed == used


def _anchor(title):
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def test_links_between_readme_and_docs_resolve():
    """Every relative link in README.md and docs/ names a file that exists (and a heading in it)."""
    for path in [README, *DOCS]:
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
            if re.match(r"\w+://", target):
                continue
            file, _, frag = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            assert dest.exists(), f"{path.name}: link to {target}"
            if frag and dest.suffix == ".md":
                heads = {_anchor(h) for h in re.findall(r"^#+ (.*)$", dest.read_text(), re.M)}
                assert frag in heads, f"{path.name}: no heading #{frag} in {file}"
