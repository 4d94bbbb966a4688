"""tt-llk's own pytest harness on ttemu's library and on ttsim's (scripts/llk_harness.py).

The harness (from ../shared/third_party, extracted at test time) builds the CI subset's
ELFs with the stand-in for the SFPI compiler, then runs them on each library: its own
stimuli, goldens and checks decide. Each variant is a test per chip and library; a
library that cannot be had (no ttsim build, no ``ttemu simlib``) or a missing Python
package skips with the reason."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import llk_corpus as lc  # noqa: E402
import llk_harness as lh  # noqa: E402

ARCHS = ("wormhole_b0", "blackhole")
CASES = [(arch, e.name, node) for arch in ARCHS for e in lh.entries(ci=True, arch=arch) for node in e.nodes(ci=True)]
#: seconds one variant may take in the harness (the build and each library's run)
PER_VARIANT = 300
#: ttemu's library runs 16 instructions per core and clock here: the harness only polls
#: (wall-clock timeouts), and the run takes about a third of the time it takes with 1
STEPS_PER_CLOCK = 16


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    why = lc.missing() or lh.missing_modules()
    if why:
        pytest.skip(why)
    work = tmp_path_factory.mktemp("llk-harness")
    tree = lc.Tree(work)
    lh.install_standin(tree)
    return tree, work, {}


def _results(harness, arch, kind):
    """The build of ``arch``'s CI subset and its run on library ``kind``, once per module:
    -> (built, ran or the reason the library is unavailable)."""
    tree, work, cache = harness
    nodes = [n for a, _, n in CASES if a == arch]
    if ("build", arch) not in cache:
        cache["build", arch] = lh.build(tree, arch, nodes, work, PER_VARIANT * len(nodes))
    built = cache["build", arch]
    if (kind, arch) not in cache:
        try:
            lib = lh.library(kind, arch, work)
        except lh.Unavailable as e:
            cache[kind, arch] = str(e)
        else:
            ok = [n for n in nodes if built.get(n, lh.Outcome("")).state == "passed"]
            cache[kind, arch] = lh.run(tree, arch, ok, lib, kind, work, PER_VARIANT * len(ok) + 120, PER_VARIANT,
                                       STEPS_PER_CLOCK if kind == "ttemu" else None)
    return built, cache[kind, arch]


def test_standin_maps_the_sfpi_compilers_options(tmp_path):
    """The stand-in takes the harness's -mcpu and SFPI-only options: a TRISC build is
    rv32im with 32-bit ints as the SFPI compiler has them, a Blackhole one has Zicsr."""
    why = lc.missing()
    if why:
        pytest.skip(why)
    tree = lc.Tree.__new__(lc.Tree)
    tree.shim = tmp_path / "shim"
    tree.shim.mkdir()
    for name, text in lc.SHIMS.items():
        (tree.shim / name).write_text(text)
    gxx = tmp_path / "riscv-tt-elf-g++"
    gxx.write_text(lh.standin(tree))
    gxx.chmod(0o755)
    src = tmp_path / "t.cpp"
    src.write_text("#include <cstdint>\n#include <type_traits>\n"
                   "static_assert(std::is_same_v<std::uint32_t, unsigned int>);\n"
                   "unsigned f(unsigned a, unsigned b) { return a * b; }\n"
                   "unsigned g() { unsigned v; asm volatile(\"csrr %0, 0x7c0\" : \"=r\"(v)); return v; }\n")

    def build(mcpu):
        return subprocess.run([str(gxx), f"-mcpu={mcpu}", "-ftt-nttp", "-ftt-constinit", "-mno-tt-fix-whbhebreak",
                               "-O2", "-c", str(src), "-o", str(tmp_path / "t.o")], capture_output=True, text=True)

    assert build("tt-bh-tensix").returncode == 0
    wh = build("tt-wh-tensix")
    assert wh.returncode != 0 and "zicsr" in wh.stderr.lower()  # Wormhole has no Zicsr (llk-test-protocol §5)
    src.write_text(src.read_text().rsplit("unsigned g()", 1)[0])
    assert build("tt-wh").returncode == 0
    dis = subprocess.run(["riscv64-unknown-elf-objdump", "-d", str(tmp_path / "t.o")], capture_output=True, text=True)
    assert "\tmul\t" in dis.stdout  # rv32im: the multiply is an instruction, not a libgcc call


def test_events_outcomes(tmp_path):
    """The runner's reading of its plugin's events: phases merged per test, the failing
    phase's reason, and the test a library's exit cut short."""
    import json

    def ev(node, event, outcome="passed", seconds=1.0, why=""):
        return json.dumps(dict(node=node, event=event, outcome=outcome, seconds=seconds, why=why))

    a, b, c, d = "t.py::a[x:1-y:[32, 32]]", "t.py::b", "t.py::c", "t.py::d"
    path = tmp_path / "e.jsonl"
    path.write_text("\n".join([
        ev(a, "start"), ev(a, "setup", seconds=0.5), ev(a, "call", seconds=2), ev(a, "teardown", seconds=0.25),
        ev(b, "start"), ev(b, "setup"), ev(b, "call", "failed", why="tb\nE   AssertionError: 3 of 1024 differ\nmore"),
        ev(b, "teardown"),
        ev(c, "start"), ev(c, "setup", "skipped", why="not on this chip"), ev(c, "teardown"),
        ev(d, "start"), ev(d, "setup")]) + "\n")
    got, crashed = lh.read_events(path)
    assert got[a] == lh.Outcome("passed", 2.75, "")
    assert got[b].state == "failed" and got[b].why == "E   AssertionError: 3 of 1024 differ"
    assert got[c].state == "skipped" and got[c].why == "not on this chip"
    assert crashed == d


@pytest.mark.parametrize("kind", ["ttemu", "ttsim"])
@pytest.mark.parametrize("arch,name,node", CASES, ids=[f"{a}-{n}" for a, n, _ in CASES])
def test_ci_variant_passes_the_harness(harness, arch, name, node, kind):
    built, ran = _results(harness, arch, kind)
    b = built.get(node, lh.Outcome("not built"))
    assert b.state == "passed", f"build {b.state}: {b.why}"
    if isinstance(ran, str):
        pytest.skip(ran)
    o = ran.get(node, lh.Outcome("not run"))
    assert o.state == "passed", f"{kind}: {o.state}: {o.why}"


def test_catalogue_names_and_ids_are_distinct():
    """Each entry is one table row: names distinct, every variant listed once, CI indices in range."""
    names = [e.name for e in lh.CATALOGUE]
    assert len(set(names)) == len(names)
    for arch in ARCHS:
        nodes = [n for e in lh.entries(arch=arch) for n in e.nodes()]
        assert len(set(nodes)) == len(nodes)
    assert all(0 <= k < len(e.ids) for e in lh.CATALOGUE for k in e.ci)
