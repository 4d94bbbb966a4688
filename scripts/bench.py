#!/usr/bin/env python3
"""Speed benchmarks, reported as ratios measured in one run (machines are shared and
noisy; absolute figures drift).

    python scripts/bench.py [--shared ../shared] [--only NAME ...] [--repeat N]

riscv      ttemu run on shared/bench/rv32/build/bench_tile_n256.elf (28,435,299
           instructions to bench_done, checksum 0x2153d178 at 0x100) against the
           reference shared/bench/pyinterp/blockjit.py on the same ELF, both as whole
           processes. Target: ttemu <= 1.2x blockjit's time.
startup    process start to first guest instruction, measured as a whole
           ``ttemu run ELF --max-steps 1`` process (an upper bound). Target < 0.3 s.

Each figure is the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def timed(cmd, ok=(0,)):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode not in ok:
        raise SystemExit(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    return dt, p.stdout


def best(n, fn):
    results = [fn() for _ in range(n)]
    return min(results, key=lambda r: r[0])


def bench_riscv(shared, repeat):
    elf = shared / "bench" / "rv32" / "build" / "bench_tile_n256.elf"
    ref = shared / "bench" / "pyinterp" / "blockjit.py"
    ttemu_cmd = [sys.executable, "-m", "ttemu", "run", str(elf), "--json", "--dump-l1", "0x100:4"]
    ref_cmd = [sys.executable, str(ref), str(elf)]
    t_ttemu, out = best(repeat, lambda: timed(ttemu_cmd))
    doc = json.loads(out)
    checksum = doc["dumps"][0]["values"][0]
    t_ref, ref_out = best(repeat, lambda: timed(ref_cmd))
    ref_doc = json.loads(ref_out)
    n = doc["steps"]
    ok = checksum == "0x2153d178"
    return {
        "name": "riscv",
        "instructions": n,
        "checksum": checksum,
        "checksum_ok": ok,
        "ttemu_seconds": round(t_ttemu, 3),
        "blockjit_seconds": round(t_ref, 3),
        "ratio_ttemu_over_blockjit": round(t_ttemu / t_ref, 3),
        "ttemu_mips_whole_process": round(n / t_ttemu / 1e6, 2),
        "blockjit_checksum": ref_doc["checksum"],
        "target": "ratio <= 1.2",
    }


def bench_startup(shared, repeat):
    elf = shared / "bench" / "rv32" / "build" / "bench_tile_n32.elf"
    cmd = [sys.executable, "-m", "ttemu", "run", str(elf), "--max-steps", "1", "--json"]
    t, _ = best(repeat, lambda: timed(cmd, ok=(4,)))  # exit 4: the step limit, as asked
    t_py, _ = best(repeat, lambda: timed([sys.executable, "-c", "pass"]))
    return {"name": "startup", "seconds": round(t, 3), "python_alone_seconds": round(t_py, 3),
            "target": "< 0.3 s"}


BENCHES = {"riscv": bench_riscv, "startup": bench_startup}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    shared = pathlib.Path(args.shared)
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    for name, fn in BENCHES.items():
        if args.only and name not in args.only:
            continue
        print(json.dumps(fn(shared, args.repeat)))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
