"""Readable state of the three Tensix threads' frontends (a debugger's ``monitor
tensix``): each thread's queues, MOP expander, replay expander, latched wait and the
instruction held at its gate (the same words as the hang diagnosis), and the
semaphores. ``frontend_report`` returns ``(text, data)`` like the other dumps."""

from __future__ import annotations

from .frontend.thread import FIFO_DEPTH


def _items(cop, queue):
    return [(word, cop.table.disasm(word), origin) for word, origin in queue]


def _thread(cop, t):
    gate = t.gate
    rep = t.replay
    data = {
        "pushed": t.pushed, "issued": t.issued,
        "fifo": [f"0x{w:08x} {d} ({o})" for w, d, o in _items(cop, t.fifo)],
        "after_mop": [f"0x{w:08x} {d} ({o})" for w, d, o in _items(cop, t.mid)],
        "mop": {"expanding": t.mop.active is not None, "cfg": [f"0x{v:08x}" for v in t.mop.cfg],
                "mask_hi": t.mop.mask_hi},
        "replay": {"recording_left": rep.record_left, "record_index": rep.record_index % 32,
                   "playing_left": rep.play_left, "play_index": rep.play_index % 32},
        "wait": None if gate.opcode is None else gate.describe(cop, t.index),
        "held": t.held_reason,
    }
    core = f"trisc{t.index}"
    hart = cop.tile.harts.get(core)
    lines = [f"T{t.index} ({core}): {t.pushed} pushed, {t.issued} issued"
             + (f"; {core} {hart.state}" + (f", {hart.stall}" if hart and hart.stall else "") if hart else "")]
    for label, queue in (("FIFO", t.fifo), ("after MOP (BRISC's pushes)", t.mid)):
        lines.append(f"  {label}: {len(queue)} of {FIFO_DEPTH}")
        lines += [f"    0x{w:08x} {d}  ({o})" for w, d, o in _items(cop, queue)]
    cfg = " ".join(f"{v:08x}" for v in t.mop.cfg)
    lines.append(f"  MOP expander: {'expanding' if t.mop.active is not None else 'idle'}; "
                 f"MopCfg {cfg}; MOP_CFG mask high 0x{t.mop.mask_hi:04x}")
    if rep.record_left:
        state = f"recording, {rep.record_left} left, next slot {rep.record_index % 32}"
    elif rep.play_left:
        state = f"playing back, {rep.play_left} left, next slot {rep.play_index % 32}"
    else:
        state = "idle"
    lines.append(f"  replay expander: {state}")
    lines.append(f"  wait gate: {data['wait'] or 'no latched wait'}")
    if t.held_reason:
        lines.append(f"  held: {t.held_reason}")
    return lines, data


def frontend_report(cop):
    lines, data = [], {}
    for t in cop.threads:
        tl, td = _thread(cop, t)
        lines += tl
        data[f"t{t.index}"] = td
    sems = cop.sync.semaphores
    lines.append("semaphores: " + "  ".join(f"sem{i} {s.value}/{s.max}" for i, s in enumerate(sems)))
    data["semaphores"] = [{"value": s.value, "max": s.max} for s in sems]
    return "\n".join(lines), data
