#!/usr/bin/env python3
"""Differential fuzzing of ttemu against Tenstorrent's ttsim (docs/fuzzing.md).

Seeded random Tensix programs, inside what the ISA pages define and ttsim accepts, run
on both simulators; result regions are compared bit for bit; a differing program is
minimised to the instructions the difference needs and named by class.

    python scripts/fuzz.py run [--arch A] [--family F] [--seeds 0:200] [--allow NAME]
    python scripts/fuzz.py campaign --log LOG.jsonl [--report R.txt] [--seeds 0:10000] ...
    python scripts/fuzz.py table LOG.jsonl [LOG2.jsonl ...]
    python scripts/fuzz.py show --arch A --family F --seed N [--keep 3,7] [--scaffold]
    python scripts/fuzz.py classes

``run`` exits 1 when a program differs in a class not known (scripts/fuzzing/classes.py),
ttemu fails, or a program is outside the pages (ttemu reports undefined behaviour) or
refused by ttsim (both are generator bugs); else 0. The ttsim libraries are built from
../shared/oracles/ttsim into /tmp/ttemu-ttsim-oracle (tests/oracle_lib.py), or taken
from ``--lib-dir``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from fuzzing import campaign as camp  # noqa: E402  (the package puts the checkout and tests/ on sys.path)
from fuzzing import classes  # noqa: E402
from fuzzing.generators import FAMILIES, generate  # noqa: E402

ARCHES = ("wormhole_b0", "blackhole")


def seeds_arg(text):
    if ":" in text:
        a, b = text.split(":")
        return list(range(int(a), int(b)))
    if "," in text:
        return [int(x) for x in text.split(",")]
    return list(range(int(text)))


def libs(lib_dir):
    if lib_dir:
        return {"wormhole_b0": os.path.join(lib_dir, "libttsim_wh.so"),
                "blackhole": os.path.join(lib_dir, "libttsim_bh.so")}
    from oracle_lib import ttsim_lib

    out = {}
    for arch in ARCHES:
        path, why = ttsim_lib(arch)
        if path is None:
            sys.exit(f"fuzz: error: {why}")
        out[arch] = path
    return out


def common(p):
    p.add_argument("--arch", action="append", choices=ARCHES, help="default: both")
    p.add_argument("--family", action="append", choices=list(FAMILIES), help="default: all")
    p.add_argument("--seeds", type=seeds_arg, default=list(range(20)), help="N, A:B or a,b,c (default 20)")
    p.add_argument("--allow", action="append", default=[], metavar="CLASS",
                   help="let a kept-out known class in (see 'classes'); 'all' for every one")
    p.add_argument("--lib-dir", help="directory with libttsim_wh.so / libttsim_bh.so")


def allowed(args):
    names = set(args.allow)
    if "all" in names:
        names = {k.name for k in classes.KNOWN}
    unknown = names - set(classes.BY_NAME)
    if unknown:
        sys.exit(f"fuzz: error: unknown class {', '.join(sorted(unknown))} (see 'fuzz.py classes')")
    return frozenset(names)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="fuzz.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run", help="run seeds, report differences (exit 1 on anything unexplained)")
    common(p)
    p.add_argument("--no-minimise", action="store_true")
    p = sub.add_parser("campaign", help="run seeds in chunks into a resumable JSON-lines log")
    common(p)
    p.add_argument("--log", required=True)
    p.add_argument("--report", help="append minimised listings here")
    p.add_argument("--chunk", type=int, default=64)
    p = sub.add_parser("table", help="summarise campaign logs")
    p.add_argument("log", nargs="+")
    p = sub.add_parser("show", help="print a program's listing")
    p.add_argument("--arch", choices=ARCHES, default="wormhole_b0")
    p.add_argument("--family", choices=list(FAMILIES), required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--allow", action="append", default=[])
    p.add_argument("--keep", help="group ids to keep (comma-separated; default all)")
    p.add_argument("--scaffold", action="store_true", help="list the scaffolding too")
    sub.add_parser("classes", help="the known classes (markdown)")
    args = ap.parse_args(argv)

    if args.cmd == "classes":
        print("| class | arches | what | page | resolution | kept out |\n|---|---|---|---|---|---|")
        for k in classes.KNOWN:
            kept = "no (resolved)" if k.resolved else "yes" if k.kept_out else "no"
            print(f"| `{k.name}` | {', '.join(k.arches)} | {k.what} | {k.page} | {k.resolution} | {kept} |")
        return 0
    if args.cmd == "table":
        print(camp.table([r for log in args.log for r in camp.read_log(log)]))
        return 0
    if args.cmd == "show":
        prog = generate(args.arch, args.family, args.seed, allowed(args))
        if args.keep is not None:
            keep = {int(x) for x in args.keep.split(",") if x}
            prog = prog.without([g for g in prog.groups if g not in keep])
        print(prog.name)
        for g, text in prog.groups.items():
            mark = " " if g in prog.dropped else "*"
            print(f" {mark}{g:3d} {text}")
        print("\n".join(prog.listing(scaffold=args.scaffold)))
        return 0

    arches = args.arch or list(ARCHES)
    families = args.family or list(FAMILIES)
    lib = libs(args.lib_dir)
    allow = allowed(args)
    if args.cmd == "campaign":
        camp.campaign(args.log, arches, families, args.seeds, lib, allow, chunk=args.chunk,
                      log=lambda s: print(s, flush=True), report_path=args.report)
        print(camp.table(camp.read_log(args.log)))
        return 0
    records, reports = [], []
    for arch in arches:
        for family in families:
            records += camp.run_chunk(arch, family, args.seeds, lib, allow, do_minimise=not args.no_minimise,
                                      reports=reports)
    for text in reports:
        print(text + "\n")
    print(camp.table(records))
    bad = [r for r in records if r["status"] in ("ttemu-error", "undefined", "refused")
           or (r["status"] == "differ" and not r["known"])]
    for r in bad:
        print(f"unexplained: {r['arch']} {r['family']} seed {r['seed']}: {r['status']} "
              f"{r['class'] or r['detail'][:200]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
