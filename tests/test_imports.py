"""The package has no import cycles (project rule), and the model never imports the
command layer (``ttemu.cmd``). Imports are read from the source with ast, including
those inside functions: a lazy import is still a dependency."""

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "ttemu"


def _module_name(path):
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _graph():
    modules = {_module_name(p): p for p in PKG.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                # `from pkg import sub` names a submodule when one exists
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod for a in node.names]
            for t in targets:
                while t and t not in modules:  # a name inside a module -> the module
                    t = t.rsplit(".", 1)[0] if "." in t else ""
                if t and t != name and t.startswith("ttemu"):
                    deps.add(t)
        graph[name] = deps
    return graph


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_graph_sees_known_edges():
    g = _graph()
    assert "ttemu.cmd.specs" in g["ttemu.cmd.session"]
    assert "ttemu.tile" in g["ttemu.cmd.session"]  # a lazy import inside a method


def test_cycle_detector_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles():
    assert _cycles(_graph()) == []


def test_model_does_not_import_command_layer():
    g = _graph()
    bad = sorted((m, d) for m, deps in g.items() for d in deps
                 if d.startswith("ttemu.cmd") and not m.startswith("ttemu.cmd") and m != "ttemu.cli"
                 and m != "ttemu.__main__")
    assert bad == []


def test_riscv_only_run_imports_no_numpy():
    """A run that never touches the Tensix coprocessor (BRISC-only negate boot code, no
    manifest, nothing to check) does not import numpy: start-up stays small."""
    import subprocess
    import sys

    elf = PKG.parent / "firmware" / "build" / "negate" / "brisc.elf"
    code = ("import sys\n"
            "from ttemu.cmd.cli import main\n"
            f"rc = main(['run', {str(elf)!r}, '--json', '--dump-l1', '0x0:16:hex32'])\n"
            "print(rc, 'numpy' in sys.modules, 'ttemu.tensix.coprocessor' in sys.modules, file=sys.stderr)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PKG.parent)
    assert p.stderr.strip().splitlines()[-1] == "0 False False", p.stderr
