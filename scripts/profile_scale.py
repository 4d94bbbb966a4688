"""Where the time of a scaling-benchmark set goes, by component of the model.

Runs a family of ``scripts/bench.py --scale`` (``bench_scale.manifest``) at one size in
this process under a profiler and sums the time spent in each function's own code
into the component its file belongs to: the path of a Tensix instruction from the TRISC's
store to its unit (push and frontend), the RISC-V cores, each backend unit, the config
and scalar registers, the run loop, and the rest (start-up among it); numpy's and C
functions' time goes to the component that called them. ``--marginal`` profiles the
size and twice it and shows the shares of the difference: where each further unit of
work goes, start-up left out.
The profiler is py-spy where it is installed (``pip install py-spy``: it samples, so
the shares are those of an unprofiled run), else cProfile (which slows Python calls more
than C code: its shares say where to look). Wall-clock ratios come from
``bench.py --scale``.

    python scripts/profile_scale.py datacopy --size 256 --arch wormhole_b0
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import shutil
import subprocess
import pathlib
import pstats
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import bench_scale  # noqa: E402

RATE = 250  # py-spy's samples per second
RUN_FRAME = "Session._run_phases"  # py-spy's name of the frame the run itself is under

#: (component, path fragments of its files): the first that matches a function's file wins
COMPONENTS = (
    ("push+frontend", ("tensix/frontend/", "tensix/coprocessor.py", "tensix/devices.py", "ttemu/tile.py",
                       "mmio/")),
    ("riscv", ("ttemu/riscv/", "<block")),
    ("unpack", ("units/unpack.py", "formats/unpack.py", "formats/l1.py")),
    ("pack", ("units/pack.py", "formats/pack")),
    ("matrix unit", ("units/math", "units/fpu_", "units/mover.py", "regs/dst.py", "regs/src.py")),
    ("vector unit", ("units/sfpu/",)),
    ("config+scalar", ("units/cfg.py", "units/scalar.py", "units/sync.py", "units/misc.py", "regs/")),
    ("run loop", ("ttemu/run.py", "ttemu/tiles.py")),
)


def component(filename: str) -> str | None:
    """The component of a function in ``filename``; None for numpy's and builtins (their
    time goes to their callers')."""
    if filename == "~" or "numpy" in filename:
        return None
    for comp, parts in COMPONENTS:
        if any(p in filename for p in parts):
            return comp
    return "other"


def attribute(stats: dict) -> dict:
    """Seconds per component from cProfile's ``stats``: each function's own time to its
    component, a numpy or builtin function's to its callers' (in the shares they called it),
    through numpy's own Python layers."""
    parts: dict[str, float] = {}

    def add(func, seconds, depth=0):
        comp = component(func[0])
        if comp is None and depth < 8:
            callers = stats[func][4]
            total = sum(v[2] for v in callers.values())
            if total > 0:
                for caller, v in callers.items():
                    if caller in stats:
                        add(caller, seconds * v[2] / total, depth + 1)
                return
        comp = comp or "other"
        parts[comp] = parts.get(comp, 0.0) + seconds

    for func, (_cc, _nc, tottime, _ct, _callers) in stats.items():
        add(func, tottime)
    return parts


def profile(family: str, size: int, arch: str) -> tuple[dict, float]:
    """Run ``family`` at ``size`` on ``arch`` under the profiler, in a process of its own
    whose disk cache of translated RISC-V code a small run of the same set filled first (as
    in a user's second run). -> (seconds per component, seconds)."""
    run = [sys.executable, __file__, "--run", family, str(size), arch]
    env = None
    with tempfile.TemporaryDirectory() as tmp:
        if "TTEMU_CACHE_DIR" not in os.environ:  # a disk cache of its own, filled by a first small run
            env = dict(os.environ, TTEMU_CACHE_DIR=str(pathlib.Path(tmp) / "cache"))
        per = bench_scale.steps_of(family, 16)[1]
        subprocess.run([*run[:-2], str(per), arch], capture_output=True, env=env)
        raw = pathlib.Path(tmp) / "stacks.txt"
        if shutil.which("py-spy"):
            cmd = ["py-spy", "record", "--rate", str(RATE), "--format", "raw", "--output", str(raw), "--", *run]
        else:
            cmd = [*run, "--cprofile", str(raw)]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if out.returncode != 0 or not raw.exists():
            lines = (out.stderr or out.stdout).strip().splitlines()
            raise SystemExit(f"{family} {size} {arch}: {lines[-1] if lines else f'exit {out.returncode}'}")
        text = raw.read_text()
    if shutil.which("py-spy"):
        parts = samples(text)
    else:
        parts = json.loads(text)
    return parts, sum(parts.values())


def samples(text: str) -> dict:
    """Seconds per component from py-spy's raw stacks (``frames count`` per line, the
    outermost frame first), of the run itself (start-up, loading and checks left out): each
    sample to the innermost frame of a model file (numpy's and the standard library's
    frames give theirs to their caller's)."""
    parts: dict[str, float] = {}
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if RUN_FRAME not in stack:
            continue
        comp = "other"
        for frame in reversed(stack.split(";")):
            path = frame[frame.rfind("(") + 1:]
            if "ttemu/" in path or "<block" in path or "scripts/" in path:
                comp = component(path) or "other"
                break
        parts[comp] = parts.get(comp, 0.0) + int(count) / RATE
    return parts


def run_here(family: str, size: int, arch: str, cprofile_to: str | None = None) -> None:
    """``profile``'s run, in this process (under cProfile when ``cprofile_to`` names the
    file for its seconds per component)."""
    from ttemu.cmd.cli import main as cli_main

    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / f"{family}_{size}.toml"
        path.write_text(bench_scale.manifest(family, size, arch))
        prof = cProfile.Profile()
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            if cprofile_to:
                prof.enable()
            try:
                rc = cli_main(["run", str(path), "--json", "--no-progress"])
            finally:
                prof.disable()
    doc = json.loads(out.getvalue())
    if rc != 0:
        raise SystemExit(f"{family} {size} {arch}: exit {rc} ({doc.get('outcome')})")
    if cprofile_to:
        pathlib.Path(cprofile_to).write_text(json.dumps(attribute(pstats.Stats(prof).stats)))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--run"]:
        run_here(argv[1], int(argv[2]), argv[3], argv[5] if argv[4:5] == ["--cprofile"] else None)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("families", nargs="+", choices=sorted(bench_scale.FAMILIES), metavar="FAMILY")
    ap.add_argument("--size", type=int, default=256, help="units of work (default 256)")
    ap.add_argument("--arch", default="wormhole_b0", choices=("wormhole_b0", "blackhole"))
    ap.add_argument("--marginal", action="store_true",
                    help="profile SIZE and 2 x SIZE; show the shares of the difference")
    args = ap.parse_args(argv)
    # this checkout's bytecode first: with PYTHONDONTWRITEBYTECODE set (as on some machines) a
    # run would compile the modules it imports late (the Tensix units) inside the profiled part
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "ttemu")], env=env,
                   stdout=subprocess.DEVNULL, check=False)
    names = [c for c, _ in COMPONENTS] + ["other"]
    unit = "ms/unit" if args.marginal else "s"
    print(f"{'family':14} {'size':>5} {unit:>8} " + " ".join(f"{n:>13}" for n in names))
    for family in args.families:
        per = bench_scale.steps_of(family, 16)[1]
        size = max(per, args.size - args.size % per)
        parts, total = profile(family, size, args.arch)
        if args.marginal:
            more, more_total = profile(family, 2 * size, args.arch)
            parts = {n: more.get(n, 0.0) - parts.get(n, 0.0) for n in names}
            total = more_total - total
        shown = 1000 * total / size if args.marginal else total
        print(f"{family:14} {size:>5} {shown:8.3f} " + " ".join(f"{100 * parts.get(n, 0.0) / total:12.0f}%"
                                                                 for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
