"""Running seeds in chunks, minimising and classifying what differs, logging results.

One JSON line per program in the log (resumable: seeds already logged are skipped):
``{"arch", "family", "seed", "status", "class", "known", "detail", "kept", "diffs"}``
with ``class`` set for differing programs (after minimisation) and ``kept`` the
minimised program's group count. :func:`table` summarises a log by family and arch.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter, defaultdict

from . import classes, report
from .generators import FAMILIES, generate
from .minimise import minimise
from .runner import run_programs


def run_chunk(arch, family, seeds, lib, allow, *, do_minimise=True, log=None, reports=None) -> list:
    """Run ``seeds`` of one family and arch -> [record dict]."""
    progs = [generate(arch, family, s, allow) for s in seeds]
    outs = run_programs(progs, lib)
    records = []
    for out in outs:
        rec = {"arch": arch, "family": family, "seed": out.program.seed, "status": out.status,
               "detail": out.detail[:500], "class": None, "known": None, "kept": None, "diffs": []}
        if out.status in ("differ", "ttemu-error"):
            m = minimise(out, lib) if do_minimise else out
            name, known = classes.classify(m.program)
            if out.status == "ttemu-error":
                name, known = "ttemu-error:" + classes.signature(m.program), False
            rec.update({"class": name, "known": known, "kept": len(m.program.kept_groups),
                        "dropped": sorted(m.program.dropped),
                        "diffs": [[r.describe(i), ours, theirs] for r, i, ours, theirs in m.diffs[:8]]})
            if reports is not None:
                reports.append(report.describe(m, klass=name))
            if log:
                log(f"{arch} {family} {out.program.seed}: {out.status} [{name}{'' if known else ', NEW'}]")
        elif out.status != "same" and log:
            log(f"{arch} {family} {out.program.seed}: {out.status}: {out.detail[:200]}")
        records.append(rec)
    return records


def read_log(path) -> list:
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def campaign(path, arches, families, seeds, lib, allow, *, chunk=64, log=print, report_path=None):
    """Run every (arch, family, seed) not in the log at ``path`` yet, ``chunk`` seeds at
    a time, the families taking turns (so a campaign cut short still covers them all),
    appending to the log."""
    done = {(r["arch"], r["family"], r["seed"]) for r in read_log(path)}
    t0 = time.time()
    n = 0
    todo = {(a, f): [s for s in seeds if (a, f, s) not in done] for a in arches for f in families}
    while any(todo.values()):
        for (arch, family), left in todo.items():
            if not left:
                continue
            part, todo[(arch, family)] = left[:chunk], left[chunk:]
            reports = []
            recs = run_chunk(arch, family, part, lib, allow, log=log, reports=reports)
            with open(path, "a") as f:
                for rec in recs:
                    f.write(json.dumps(rec) + "\n")
            if report_path and reports:
                with open(report_path, "a") as f:
                    f.write("\n\n".join(reports) + "\n\n")
            n += len(recs)
            rate = n / (time.time() - t0)
            log(f"{arch} {family}: {len(todo[(arch, family)])} left ({rate:.2f} programs/s overall)")


def table(records) -> str:
    """Markdown table: programs per family and arch, by status, and the classes seen."""
    by = defaultdict(Counter)
    cls = defaultdict(Counter)
    for r in records:
        key = (r["family"], r["arch"])
        by[key][r["status"]] += 1
        if r["class"]:
            cls[key][r["class"]] += 1
    statuses = ["same", "differ", "ttemu-error", "undefined", "refused"]
    lines = ["| family | arch | programs | " + " | ".join(statuses) + " | classes (programs) |",
             "|---|---|---:|" + "---:|" * len(statuses) + "---|"]
    order = {f: i for i, f in enumerate(FAMILIES)}
    for (family, arch) in sorted(by, key=lambda k: (order.get(k[0], 99), k[1])):
        c = by[(family, arch)]
        named = ", ".join(f"{k} ({v})" for k, v in cls[(family, arch)].most_common())
        lines.append(f"| {family} | {arch} | {sum(c.values())} | " + " | ".join(str(c[s]) for s in statuses)
                     + f" | {named or '-'} |")
    total = Counter()
    for c in by.values():
        total.update(c)
    lines.append("| all | | " + str(sum(total.values())) + " | " + " | ".join(str(total[s]) for s in statuses)
                 + " | |")
    return "\n".join(lines)
