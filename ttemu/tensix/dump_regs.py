"""Readable dumps of Tensix GPRs (``--dump-gpr``) and configuration (``--dump-cfg``).

Each report returns ``(text, data)``: plain text for a terminal and a JSON-able
object for ``--json``.
"""

from __future__ import annotations


def gpr_report(tile):
    gprs = tile.tensix.gprs
    data = {f"t{t}": [f"0x{v:08x}" for v in gprs[t]] for t in range(3)}
    lines = []
    for t in range(3):
        lines.append(f"T{t} GPRs:")
        regs = gprs[t]
        for i in range(0, 64, 8):
            lines.append(f"  r{i:<2}-r{i + 7:<2}  " + " ".join(f"0x{v:08x}" for v in regs[i:i + 8]))
    return "\n".join(lines), data


def cfg_report(tile):
    """Non-zero configuration fields by name: Config banks 0/1 and each thread's."""
    rows = tile.tensix.config.nonzero_fields()
    data = {}
    for space, name, value in rows:
        data.setdefault(space, {})[name] = value
    width = max((len(n) for _, n, _ in rows), default=0)
    lines = [f"{space:8} {name:<{width}}  0x{value:x} ({value})" for space, name, value in rows]
    if not lines:
        lines = ["(every configuration field is zero)"]
    return "\n".join(["Tensix configuration (non-zero fields):"] + lines), data
