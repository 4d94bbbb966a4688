#!/usr/bin/env python3
"""Write the traces of shipped kernels and print one SHA-256 per trace, and one of the run's
results (``ttemu run --json --dump-dst --dump-src --dump-gpr --dump-cfg``: outcome, step
counts, dumps, expect errors, Dst/Src/GPR/config contents), to check that a change to
the emulator leaves traces byte-identical and results unchanged (run it with two
checkouts' code and compare the outputs):

    python scripts/trace_digest.py [--out DIR] [MANIFEST ...]

With no manifests: every shipped kernel (firmware/*/*.toml) and the Wormhole corpus
sets. Each trace is written with ``python -m ttemu trace MANIFEST -o DIR/NAME.trace``
using this interpreter and the checkout this script lives in.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def default_manifests():
    out = sorted(ROOT.glob("firmware/*/*.toml"))
    out += sorted(p for p in ROOT.glob("corpus/*.toml") if "blackhole" not in p.name)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=None, help="keep the traces here (default: a temporary directory)")
    ap.add_argument("manifests", nargs="*")
    args = ap.parse_args(argv)
    manifests = [pathlib.Path(m) for m in args.manifests] or default_manifests()
    out = pathlib.Path(args.out) if args.out else pathlib.Path(tempfile.mkdtemp(prefix="ttemu-traces-"))
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for m in manifests:
        path = out / (m.stem + ".trace")
        p = subprocess.run([sys.executable, "-m", "ttemu", "trace", str(m), "-o", str(path)],
                           capture_output=True, text=True, env=env, cwd=ROOT)
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "-"
        r = subprocess.run([sys.executable, "-m", "ttemu", "run", str(m), "--json", "--dump-dst", "--dump-src",
                            "--dump-gpr", "--dump-cfg"], capture_output=True, env=env, cwd=ROOT)
        results = hashlib.sha256(r.stdout).hexdigest()
        print(f"{m.stem} exit {p.returncode} trace {digest} results exit {r.returncode} {results}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
