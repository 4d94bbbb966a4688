"""Running programs on ttemu and on ttsim, and comparing their result regions.

ttemu runs each program in this process (a fresh :class:`ttemu.Tile` with its host
writes recorded); the recorded writes become an oracle plan
(``ttemu.cmd.oracle.plan_from_tile``), and the plans of many programs run together in
one ttsim process, one worker tile each (``ttemu.cmd.oracle.batch``).

Outcomes (:class:`Outcome.status`):
    same        every result region is bit-identical
    differ      some region differs (``diffs``: (region, element index, ttemu, ttsim))
    ttemu-error ttemu stopped with an error or did not finish (``detail``)
    undefined   ttemu reported behaviour the ISA documentation leaves undefined: the
                program is outside what the pages define (a generator bug), not compared
    refused     ttsim refused the program or did not finish (``detail``): nothing compared
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field

import numpy as np

from ttemu import Tile
from ttemu.cmd.oracle import plan_from_tile
from ttemu.cmd.oracle.batch import run_ttsim_batch

from .program import FLAG, MAX_STEPS, interpreter_code, LIST_BASE, RESET_PC, Program


@dataclass
class Outcome:
    program: Program
    status: str
    detail: str = ""
    diffs: list = field(default_factory=list)  # (Region, element index, ttemu value, ttsim value)
    ours: list = field(default_factory=list)  # region bytes (ttemu)
    theirs: list = field(default_factory=list)  # region bytes (ttsim)
    warnings: list = field(default_factory=list)
    seconds: float = 0.0


_CODE = {}


def _code(t):
    if t not in _CODE:
        _CODE[t] = interpreter_code(t)
    return _CODE[t]


def until_of(prog: Program) -> list:
    return [(FLAG + 4 * t, 1) for t in prog.threads()]


def run_ttemu(prog: Program, max_steps: int = MAX_STEPS):
    """-> (Outcome with ttemu's regions, or its error; the oracle plan or None)."""
    t0 = time.perf_counter()
    try:
        tile = Tile(prog.arch, record=True)
        lists = prog.op_lists()
        for t, data in lists.items():
            tile.write(RESET_PC[t], _code(t))
            tile.write(LIST_BASE[t], data)
        for addr, data in prog.inputs:
            tile.write(addr, data)
        tile.release([f"trisc{t}" for t in lists])
        until = until_of(prog)
        res = tile.run(max_steps=max_steps, until=until)
    except Exception as e:  # noqa: BLE001 - every ttemu failure is a finding
        return Outcome(prog, "ttemu-error", _error_text(e), seconds=time.perf_counter() - t0), None
    warnings = [f"{kind}: {text}" for text, _, kind in tile.diagnostics.sites.values()]
    if res.outcome != "until":
        detail = f"{res.outcome}: {res.detail}" + "".join(f"; {b}" for b in res.blocked)
        return Outcome(prog, "ttemu-error", detail, warnings=warnings, seconds=time.perf_counter() - t0), None
    ours = [tile.read(r.addr, r.nbytes) for r in prog.outputs]
    out = Outcome(prog, "same", ours=ours, warnings=warnings, seconds=time.perf_counter() - t0)
    if any(w.startswith("undefined behaviour") for w in warnings):
        out.status = "undefined"
        out.detail = next(w for w in warnings if w.startswith("undefined behaviour"))
        return out, None
    plan = plan_from_tile(tile, until=[(a, v, None) for a, v in until],
                          reads=[(r.addr, r.nbytes, None) for r in prog.outputs])
    plan.bound_clocks(max(h.steps for h in tile.harts.values()))
    return out, plan


def _error_text(e: Exception) -> str:
    if hasattr(e, "one_line"):
        return e.one_line()
    tb = traceback.extract_tb(e.__traceback__)
    where = f" at {tb[-1].filename.rsplit('/ttemu/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
    return f"internal error: {type(e).__name__}: {e}{where}"


def compare(out: Outcome, theirs: list) -> Outcome:
    out.theirs = theirs
    diffs = []
    for region, a, b in zip(out.program.outputs, out.ours, theirs):
        if a == b:
            continue
        dt = {4: "<u4", 2: "<u2", 1: "u1"}[region.width]
        x, y = np.frombuffer(a, dt), np.frombuffer(b, dt)
        for i in np.flatnonzero(x != y):
            diffs.append((region, int(i), int(x[i]), int(y[i])))
    out.diffs = diffs
    out.status = "differ" if diffs else "same"
    return out


def run_programs(programs: list, lib: str, *, timeout: float = 600) -> list:
    """Run every program on both simulators -> [Outcome], in order."""
    outcomes, plans, index = [], [], []
    for prog in programs:
        out, plan = run_ttemu(prog)
        outcomes.append(out)
        if plan is not None:
            plans.append(plan)
            index.append(len(outcomes) - 1)
    by_arch: dict = {}
    for k, plan in zip(index, plans):
        by_arch.setdefault(plan.arch, []).append((k, plan))
    for arch, items in by_arch.items():
        results = run_ttsim_batch(lib[arch] if isinstance(lib, dict) else lib, [p for _, p in items],
                                  timeout=timeout)
        for (k, _), res in zip(items, results):
            out = outcomes[k]
            if isinstance(res, Exception):
                out.status = "refused"
                out.detail = str(res)
            else:
                compare(out, res.regions)
    return outcomes
