"""Many plans in one ttsim process, each on a worker tile of its own.

ttsim models a whole chip (80 Tensix tiles on Wormhole, 140 on Blackhole), and every
tile has its own L1, cores and coprocessor state, so independent plans can run side by
side: each is written to its own tile (:data:`~.ttsim.WORKERS`) and released, the chip
is clocked until every plan's done condition holds (a finished tile is read back at
once and put back into soft reset, so it stops costing clocks), and the library is
loaded once for all of them. This is what a fuzzing campaign needs: the library's
start-up (about 0.1 s) would otherwise dominate a small program.

A refusal (``ERROR: ...``, exit 1) ends the whole process without saying which tile
caused it. The child reports each plan as it finishes, so :func:`run_ttsim_batch` keeps
those and runs the unfinished ones again, split in halves, until the plan that refuses
is alone; its result is then the :class:`~ttemu.errors.OracleUnable` a single run
would raise. Plans with host phases (writes after release) are not supported here.

    results = run_ttsim_batch(lib, plans)   # TtsimResult or OracleUnable per plan
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from ...errors import BadInput, OracleUnable
from .plan import Plan
from .ttsim import SOFT_RESET, WORKERS, Chip, TtsimResult, _last_line, _package_root


def execute_batch(lib_path: str, plans: list, out) -> None:
    """Run ``plans`` (at most one per worker tile) in this process; write one JSON line
    per finished plan to ``out`` (flushed at once: ttsim may exit at any moment)."""
    if not plans:
        return
    arch = plans[0].arch
    tiles = WORKERS[arch]
    if len(plans) > len(tiles):
        raise ValueError(f"{len(plans)} plans, but only {len(tiles)} worker tiles")
    t0 = time.perf_counter()
    chip = Chip(lib_path, arch)
    for plan, (x, y) in zip(plans, tiles):
        if plan.phases or plan.arch != arch:
            raise ValueError("a batch takes plans of one arch without host phases")
        chip.select(x, y)
        chip.write_u32(SOFT_RESET, plan.initial_soft_reset)
        for addr, data in plan.writes:
            chip.write(addr, data)
    for plan, (x, y) in zip(plans, tiles):
        chip.select(x, y)
        chip.write_u32(SOFT_RESET, plan.release_soft_reset)
    pending = dict(enumerate(plans))
    clocks = 0
    poll = min(p.poll_clocks for p in plans)

    def finish(i, completed):
        plan = pending.pop(i)
        chip.select(*tiles[i])
        regions = [chip.read(a, n).hex() for a, n in plan.reads] if completed else []
        chip.write_u32(SOFT_RESET, plan.initial_soft_reset)  # its cores stop here
        out.write(json.dumps({"i": i, "completed": completed, "clocks": clocks, "regions": regions,
                              "seconds": time.perf_counter() - t0}) + "\n")
        out.flush()

    while pending:
        for i, plan in list(pending.items()):
            if plan.until:
                chip.select(*tiles[i])
                if all(int.from_bytes(chip.read(a, w), "little") & m == v for a, v, w, m in plan.until):
                    finish(i, True)
                    continue
                if clocks >= plan.clock_limit:
                    finish(i, False)
            elif clocks >= plan.clocks_when_no_until:
                finish(i, True)
        if pending:
            chip.clock(poll)
            clocks += poll


def run_ttsim_batch(lib_path: str, plans: list, *, timeout: float | None = None) -> list:
    """Run ``plans`` (one arch) on the ttsim library at ``lib_path``, as many per child
    process as there are worker tiles. Returns, per plan in order, a
    :class:`~.ttsim.TtsimResult` or the :class:`~ttemu.errors.OracleUnable` naming why
    ttsim could not make the comparison (its ERROR line, or the done condition not
    reached). Raises :class:`BadInput` when the library cannot be loaded."""
    if not os.path.isfile(lib_path):
        raise BadInput(f"--oracle {lib_path}: no such file")
    results: list = [None] * len(plans)
    todo = [list(range(len(plans)))]
    if plans:
        per = len(WORKERS[plans[0].arch])
        todo = [list(range(k, min(k + per, len(plans)))) for k in range(0, len(plans), per)]
    while todo:
        group = todo.pop()
        done, error = _child(lib_path, [plans[i] for i in group], timeout)
        for k, res in done.items():
            results[group[k]] = res
        left = [group[k] for k in range(len(group)) if k not in done]
        if not left:
            continue
        if len(left) == 1:
            results[left[0]] = OracleUnable(error)
        else:
            half = len(left) // 2
            todo += [left[:half], left[half:]]
    return results


def _child(lib_path, plans, timeout):
    """-> ({index in plans: result}, the reason the rest did not finish)."""
    with tempfile.TemporaryDirectory(prefix="ttemu-oracle-batch-") as tmp:
        plan_path = os.path.join(tmp, "plans.json")
        out_path = os.path.join(tmp, "results.jsonl")
        with open(plan_path, "w") as f:
            json.dump([p.to_json() for p in plans], f)
        try:
            proc = subprocess.run([sys.executable, "-m", "ttemu.cmd.oracle.batch", lib_path, plan_path, out_path],
                                  capture_output=True, text=True, timeout=timeout,
                                  env={**os.environ, "PYTHONPATH": _package_root() + os.pathsep
                                       + os.environ.get("PYTHONPATH", "")})
            text, status = proc.stdout + proc.stderr, proc.returncode
        except subprocess.TimeoutExpired:
            text, status = f"no result in {timeout} s", None
        done = {}
        if os.path.exists(out_path):
            with open(out_path) as f:
                for line in f:
                    if not line.endswith("\n"):
                        break  # cut short by the exit
                    d = json.loads(line)
                    if d["completed"]:
                        done[d["i"]] = TtsimResult(True, d["clocks"], [bytes.fromhex(r) for r in d["regions"]],
                                                   d["seconds"])
                    else:
                        conds = ", ".join(f"0x{a:x}=0x{v:x}" for a, v, *_ in plans[d["i"]].until)
                        done[d["i"]] = OracleUnable(f"ttsim did not reach the done condition ({conds}) "
                                                    f"in {d['clocks']} clocks")
    if status == 0 and len(done) == len(plans):
        return done, ""
    error = next((ln.strip() for ln in text.splitlines() if "ERROR:" in ln), None)
    if error:
        return done, f"ttsim refused the run: {error}"
    if status is not None and ("OSError" in text or "cannot open shared object" in text):
        raise BadInput(f"--oracle {lib_path}: not a loadable ttsim library ({_last_line(text)})")
    return done, f"ttsim stopped with status {status}: {_last_line(text)}"


def main(argv):
    lib, plan_path, out_path = argv
    with open(plan_path) as f:
        plans = [Plan.from_json(d) for d in json.load(f)]
    with open(out_path, "w") as out:
        execute_batch(lib, plans, out)
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
