"""Shrinking a differing program to the operation groups the difference needs.

A candidate still shows the difference when some element that differed at first
(region, index) still differs; a ttemu error, when ttemu stops with the same error. Each round runs its candidates together (ttemu one by
one, ttsim in one batch): first every program keeping a single group (most differences
need one instruction), then delta debugging: drop chunks of the kept groups, halving
the chunk size when no drop keeps the difference, until no single group can go.
"""

from __future__ import annotations

from .runner import run_programs


def _still(out, wanted) -> bool:
    if isinstance(wanted, str):
        return out.status == "ttemu-error" and out.detail == wanted
    return out.status == "differ" and any((r.name, i) in wanted for r, i, _, _ in out.diffs)


def minimise(outcome, lib, *, max_rounds: int = 40, log=None):
    """-> the minimised Outcome (the original one when nothing could be dropped)."""
    prog = outcome.program
    wanted = outcome.detail if outcome.status == "ttemu-error" else {(r.name, i) for r, i, _, _ in outcome.diffs}
    best = outcome
    groups = prog.kept_groups
    if not groups:
        return best
    # one group alone
    singles = [prog.without([h for h in groups if h != g]) for g in groups]
    outs = run_programs(singles, lib)
    for out in outs:
        if _still(out, wanted):
            return out
    # delta debugging on the kept groups
    n = 2
    rounds = 0
    while len(best.program.kept_groups) >= 2 and rounds < max_rounds:
        kept = best.program.kept_groups
        size = max(1, len(kept) // n)
        chunks = [kept[i:i + size] for i in range(0, len(kept), size)]
        cands = [best.program.without(c) for c in chunks]
        outs = run_programs(cands, lib)
        rounds += 1
        hit = next((o for o in outs if _still(o, wanted)), None)
        if hit is not None:
            best = hit
            n = max(n - 1, 2)
            if log:
                log(f"  minimise: {len(best.program.kept_groups)} groups")
            continue
        if size == 1:
            break
        n = min(2 * n, len(kept))
    return best
