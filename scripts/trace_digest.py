#!/usr/bin/env python3
"""Write the traces of shipped kernels and print one SHA-256 per trace, and one of the run's
results (``ttemu run --json --dump-dst --dump-src --dump-gpr --dump-cfg``: outcome, step
counts, dumps, expect errors, Dst/Src/GPR/config contents), to check that a change to
the emulator leaves traces byte-identical and results unchanged (run it with two
checkouts' code and compare the outputs):

    python scripts/trace_digest.py [--out DIR] [--arch ARCH] [--root CHECKOUT] [MANIFEST ...]

With no manifests: every shipped kernel (firmware/*/*.toml) and the corpus sets of the
arch (Wormhole by default; ``--arch blackhole`` runs every set on a Blackhole tile). Each
trace is written with ``python -m ttemu trace MANIFEST -o DIR/NAME.trace`` using this
interpreter and the checkout this script lives in, or ``--root CHECKOUT``'s code (to
digest an older checkout with the same script).
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


def default_manifests(arch="wormhole_b0"):
    out = sorted(ROOT.glob("firmware/*/*.toml"))
    out += sorted(p for p in ROOT.glob("corpus/*.toml") if ("blackhole" in p.name) == (arch == "blackhole"))
    return out


def _without_kernels(stdout: bytes) -> bytes:
    """``--json`` output without its ``kernels`` key (which form of a compiled kernel ran,
    compiled or pure Python: the same results either way), so that checkouts with and
    without compiled kernels give the same digests."""
    import json

    try:
        doc = json.loads(stdout)
    except ValueError:
        return stdout
    if not isinstance(doc, dict) or "kernels" not in doc:
        return stdout
    doc.pop("kernels")
    return (json.dumps(doc, indent=1) + "\n").encode()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=None, help="keep the traces here (default: a temporary directory)")
    ap.add_argument("--arch", default=None, choices=("wormhole_b0", "blackhole"),
                    help="run every set on this arch (default: the manifests' own)")
    ap.add_argument("--root", default=str(ROOT), help="the checkout whose code runs (default: this one)")
    ap.add_argument("manifests", nargs="*")
    args = ap.parse_args(argv)
    manifests = [pathlib.Path(m).resolve() for m in args.manifests] or default_manifests(args.arch or "wormhole_b0")
    root = pathlib.Path(args.root).resolve()
    arch = ["--arch", args.arch] if args.arch else []
    out = pathlib.Path(args.out) if args.out else pathlib.Path(tempfile.mkdtemp(prefix="ttemu-traces-"))
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(root)}
    for m in manifests:
        path = out / (m.stem + ".trace")
        p = subprocess.run([sys.executable, "-m", "ttemu", "trace", str(m), *arch, "-o", str(path)],
                           capture_output=True, text=True, env=env, cwd=root)
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "-"
        r = subprocess.run([sys.executable, "-m", "ttemu", "run", str(m), *arch, "--json", "--dump-dst",
                            "--dump-src", "--dump-gpr", "--dump-cfg"], capture_output=True, env=env, cwd=root)
        results = hashlib.sha256(_without_kernels(r.stdout)).hexdigest()
        print(f"{m.stem} exit {p.returncode} trace {digest} results exit {r.returncode} {results}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
