"""Run control: a deterministic scheduler over the tile's cores.

Cores take turns in a fixed order (brisc, trisc0, trisc1, trisc2, ncrisc); each turn
runs up to ``tile.quantum`` instructions (whole translated blocks). Cores talk only
through L1 and MMIO, so this interleaving is functionally sound, and since the order
and the quantum are fixed, the same inputs give the same run. After each round the
Tensix coprocessor retries instructions held at its wait gates.

A run ends when (checked in this order after every turn or round; Ctrl-C ends it from
outside, and the caller takes a :func:`snapshot` as "interrupted"):
  * every ``until`` condition holds                    -> "until"
  * every released core has halted (jal x0, 0)          -> "halted" ("hang" if a
    Tensix thread still holds an instruction nothing can release, or a core is
    paused by its debug interface: only a debugger can resume it)
  * ``max_steps`` instructions retired                   -> "step-limit" (exact)
  * a whole round retires nothing and moves no Tensix
    instruction while some core waits                    -> "hang"
  * no store, push or Tensix progress for ``idle_steps`` -> "idle"
"""

from __future__ import annotations

from .condition import as_condition
from .record import Factory, Record
from .riscv.hart import HALTED, PAUSED, RESET, RUNNING, STEPPING
from .riscv.translate import EXIT_HALT, EXIT_RESUME, EXIT_SYNC, MAX_BLOCK

DEFAULT_MAX_STEPS = 1_000_000_000
DEFAULT_IDLE_STEPS = 2_000_000
_BIG = 1 << 60

EXIT_CODES = {"halted": 0, "until": 0, "idle": 0, "hang": 3, "step-limit": 4, "interrupted": 130}


class CoreResult(Record):
    name: str
    state: str
    pc: int
    steps: int
    symbol: str | None = None
    waiting_on: str | None = None
    tensix_pushed: int = 0


class RunResult(Record):
    outcome: str
    steps: int
    cores: dict = Factory(dict)
    detail: str = ""
    blocked: list = Factory(list)  # hang diagnosis lines
    tensix: dict = Factory(dict)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.outcome]


def _run_blocks(tile, hart, budget, exact, tail=None):
    """Run ``hart`` for up to ``budget`` instructions (exactly, when ``exact``: the
    last ones through ``tail``, by default :func:`_run_single`), adding what retires
    to ``hart.steps`` and ``tile.steps``."""
    blocks = hart.blocks
    translate = tile.translators[hart.name].translate
    pc = hart.pc
    n = 0
    hart.stall = None
    lim = budget - MAX_BLOCK if exact else budget
    try:
        while True:
            try:
                while n < lim:
                    f, c = blocks[pc]
                    pc = f()
                    n += c
            except KeyError:
                if pc in blocks:
                    raise
                blocks[pc] = translate(pc)
                continue
            if pc >= 0:
                break
            kind = pc
            if n >= _BIG >> 1:  # the exit's entry ran (it counts _BIG); not when the budget ran out first
                n -= _BIG
            n += hart.exit_delta
            pc = hart.exit_pc
            if kind == EXIT_RESUME:
                continue
            if kind == EXIT_SYNC:  # bring the counters up to date for a CSR access
                hart.steps += n
                tile.steps += n
                budget -= n
                lim -= n
                n = 0
                hart.synced = pc
                continue
            if kind == EXIT_HALT:
                hart.state = HALTED
            hart.pc = pc
            return n
        hart.pc = pc
        if exact and n < budget:
            return n + (tail(tile, hart, budget - n) if tail else _run_single(tile, hart, budget - n, None))
        return n
    except KeyboardInterrupt:  # where Ctrl-C found it: the block it was in, or about to run
        hart.pc = pc if pc >= 0 else hart.exit_pc
        raise
    finally:
        hart.steps += n
        tile.steps += n


def _run_single(tile, hart, budget, tracer):
    """One instruction per step (exact step limits and tracing); adds what retires
    to ``hart.steps`` and ``tile.steps``."""
    single = hart.single
    translate = tile.translators[hart.name].translate
    pc = hart.pc
    n = 0
    try:
        while n < budget:
            entry = single.get(pc)
            if entry is None:
                entry = single[pc] = translate(pc, 1)
            mark = tracer.mark() if tracer else 0
            npc = entry[0]()
            if npc < 0:
                kind = npc
                npc = hart.exit_pc
                if kind == EXIT_SYNC:
                    hart.steps += n
                    tile.steps += n
                    budget -= n
                    n = 0
                    hart.synced = npc
                    continue
                retired = hart.exit_delta + 1  # the instruction's own count, after correction
                if retired and tracer:
                    tracer.riscv(mark, hart, pc)
                n += retired
                if kind == EXIT_RESUME:
                    pc = npc
                    continue
                if kind == EXIT_HALT:
                    hart.state = HALTED
                hart.pc = npc
                return n
            if tracer:
                tracer.riscv(mark, hart, pc)
            n += 1
            pc = npc
        hart.pc = pc
        return n
    except KeyboardInterrupt:
        hart.pc = pc if pc >= 0 else hart.exit_pc
        raise
    finally:
        hart.steps += n
        tile.steps += n


def _run_steps(tile, hart, budget):
    """Exactly what :func:`_run_single` does without a tracer (the same instructions
    retire, the same exits, the same counts), through step blocks
    (``Translator.translate_steps``: one translation per block, not per pc): a host
    clock (:func:`advance`) retires one instruction or a few per core. ``hart.stepped``
    maps every pc of a translated step block to (function, index, count)."""
    stepped = hart.stepped
    pc = hart.pc
    n = 0
    try:
        while n < budget:
            entry = stepped.get(pc)
            if entry is None:
                entry = _translate_steps(tile, hart, pc)
            f, k, count = entry
            end = k + budget - n
            if end > count:
                end = count
            npc = f(k, end)
            if npc >= 0:
                n += end - k
                pc = npc
                continue
            kind = npc
            npc = hart.exit_pc
            if kind == EXIT_SYNC:
                hart.steps += n
                tile.steps += n
                budget -= n
                n = 0
                hart.synced = npc
                continue
            n += count + hart.exit_delta - k
            if kind == EXIT_RESUME:
                pc = npc
                continue
            if kind == EXIT_HALT:
                hart.state = HALTED
            hart.pc = npc
            return n
        hart.pc = pc
        return n
    finally:
        hart.steps += n
        tile.steps += n


def _translate_steps(tile, hart, pc):
    f, count = tile.translators[hart.name].translate_steps(pc)
    stepped = hart.stepped
    for k in range(count):
        p = (pc + 4 * k) & 0xFFFFFFFF
        if p not in stepped:  # (a pc another block covers keeps its entry)
            stepped[p] = (f, k, count)
    hart.step_spans[pc] = count
    return f, 0, count


def run(tile, *, max_steps=None, until=(), idle_steps=None) -> RunResult:
    """Run ``tile`` until one of the end conditions above. ``until`` is a sequence of
    :class:`~ttemu.condition.Condition` (a byte, halfword or word, optionally masked),
    or (address, value) / (address, value, core) tuples of 32-bit words. Errors (guest
    faults, unimplemented instructions) propagate as typed exceptions."""
    max_steps = DEFAULT_MAX_STEPS if max_steps is None else max_steps
    idle_steps = DEFAULT_IDLE_STEPS if idle_steps is None else idle_steps
    until = [as_condition(u) for u in until]
    harts = list(tile.harts.values())
    tracer = tile.tracer
    last_active = tile.steps
    tile.activity[0] = 0

    def holds():
        return until and all(c.holds(tile) for c in until)

    def done(outcome, detail=""):
        return _result(tile, outcome, detail)

    if tile.debug is not None:
        tile.debug.begin()  # a debugger (ttemu.debug) holds the tile before the first instruction
    if holds():
        return done("until")
    while True:
        progress = False
        for hart in harts:
            if hart.state != RUNNING:
                if hart.state == STEPPING and tile.riscv_debug.retry_step(hart):
                    progress = True
                continue
            left = max_steps - tile.steps
            if left <= 0:
                break
            budget = min(tile.quantum, left)
            before = hart.steps
            if tile.debug is not None:
                tile.debug.turn(hart, budget, left - budget < MAX_BLOCK)
            elif tracer is not None:
                _run_single(tile, hart, budget, tracer)
            else:
                _run_blocks(tile, hart, budget, exact=left - budget < MAX_BLOCK)
            if hart.steps != before:
                progress = True
            if until and holds():
                return done("until")
        if tile._tensix is not None and tile._tensix.step():
            progress = True
            tile.activity[0] = 1
        if tile.progress is not None:
            tile.progress(tile)
        released = [h for h in harts if h.released]
        running = [h for h in released if h.state == RUNNING or h.state == STEPPING]
        if until and holds():
            return done("until")
        if released and not running:
            if tile._tensix is not None and tile._tensix.blocked():
                return done("hang", "every released core halted, but the Tensix coprocessor still holds instructions")
            if any(h.state == PAUSED for h in released):
                return done("hang", "every released core halted or is paused by its debug interface")
            return done("halted")
        if not released:
            return done("halted", "no core was released")
        if tile.steps >= max_steps:
            return done("step-limit", f"{max_steps} instructions retired")
        if not progress:
            return done("hang")
        if tile.activity[0]:
            tile.activity[0] = 0
            last_active = tile.steps
        elif tile.steps - last_active >= idle_steps:
            return done("idle", f"no store or Tensix progress for {tile.steps - last_active} instructions")


def snapshot(tile, outcome, detail=""):
    """A :class:`RunResult` of the tile as it is now (a run ended from outside it, e.g.
    ``interrupted``: every core's pc and state, the Tensix threads' counts)."""
    return _result(tile, outcome, detail)


def advance(tile, steps: int) -> bool:
    """One host clock of ``tile`` (``ttemu.chip``): every running core retires up to
    ``steps`` instructions, one core after another in the fixed order, then the Tensix
    coprocessor retries what waits at its gates (one scheduler round of :func:`run`
    with a quantum of ``steps``). Returns :func:`busy`."""
    for hart in tile.harts.values():
        if hart.state != RUNNING:
            if hart.state == STEPPING:  # a debugger's single step waiting to retire
                tile.riscv_debug.retry_step(hart)
            continue
        if tile.debug is not None:
            tile.debug.turn(hart, steps, True)
        elif tile.tracer is not None:
            _run_single(tile, hart, steps, tile.tracer)
        elif steps < MAX_BLOCK:
            hart.stall = None
            _run_steps(tile, hart, steps)
        else:
            _run_blocks(tile, hart, steps, True, _run_steps)
    if tile._tensix is not None and tile._tensix.step():
        tile.activity[0] = 1
    return busy(tile)


def busy(tile) -> bool:
    """Whether a clock could change ``tile``: a core runs (or single-steps for a
    debugger, ttemu.mmio.riscv_debug), or a Tensix thread holds an instruction (which
    something else may release)."""
    for h in tile.harts.values():  # (loops, not any(): this runs on every host clock)
        if h.state == RUNNING or h.state == STEPPING:
            return True
    cop = tile._tensix
    if cop is not None:
        for t in cop.threads:
            if t.held is not None:
                return True
    return False


def _result(tile, outcome, detail):
    cores = {}
    blocked = []
    for hart in tile.harts.values():
        if not hart.released and hart.state == RESET:
            state = "reset"
        else:
            state = hart.state
        waiting = hart.stall if hart.state == RUNNING or hart.state == STEPPING else None
        cores[hart.name] = CoreResult(hart.name, state, hart.pc, hart.steps,
                                      tile.symbolize(hart.name, hart.pc), waiting)
        if outcome == "hang" and hart.state == RUNNING:
            blocked.append(f"{hart.name} {hart.stall or f'running at pc 0x{hart.pc:x}'}")
        elif outcome == "hang" and hart.state in (PAUSED, STEPPING):
            blocked.append(f"{hart.name} {tile.riscv_debug.describe(hart)}")
    cop = tile._tensix  # None if nothing ever touched the coprocessor
    if outcome == "hang" and cop is not None:
        blocked.extend(cop.blocked())
    return RunResult(outcome, tile.steps, cores, detail, blocked, cop.summary() if cop is not None else {})
