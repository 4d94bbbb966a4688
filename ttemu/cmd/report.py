"""What a run reports when it ends: the human summary (outcome line, core table,
warnings, checks, the Tensix threads) or the ``--json`` document, and the one
outcome line ``ttemu trace`` prints on stderr."""

from __future__ import annotations

import sys


def until_report(tile, conditions):
    """-> [{"condition", "addr", "type", "mask", "value", "final", "held"}]: each done
    condition with the value it ended with (None when it cannot be read now)."""
    from ..condition import TYPE_OF_WIDTH

    out = []
    for c in conditions:
        try:
            final = c.read(tile)
        except Exception:  # a register that refuses a host read now: say so, not fail
            final = None
        held = final is not None and final & c.bits == c.expected
        out.append({"condition": c.text(), "addr": c.addr, "core": c.core, "type": TYPE_OF_WIDTH[c.width],
                    "mask": c.bits, "value": c.expected, "final": final, "held": held})
    return out


def condition_line(c):
    final = "unreadable" if c["final"] is None else f"0x{c['final']:x}"
    if c["final"] is not None and c["mask"] != (1 << int(c["type"][1:])) - 1:
        final += f" (masked 0x{c['final'] & c['mask']:x})"
    return f"until {c['condition']}: {'held' if c['held'] else 'NOT MET'}, final value {final}"


def print_outcome(result, conditions, stream):
    """``ttemu trace``: one line (and unmet conditions) on stderr, the trace being stdout's."""
    head = f"ttemu: {result.outcome} after {result.steps} instructions"
    stream.write(head + (f" ({result.detail})" if result.detail else "") + "\n")
    for c in conditions:
        if not c["held"]:
            stream.write(f"  {condition_line(c)}\n")


def tolerance_text(c):
    """The errors beside the tolerances that judged them."""
    return (f"max abs error {c.max_abs:.3g}, max rel error {c.max_rel:.3g} "
            f"(tolerance: atol {c.atol:g} + rtol {c.rtol:g} x |expected|)")


def print_summary(session, tile, result, dumped, checks=(), exit_code=None, oracle=None, conditions=()):
    from .ui import print_table

    o = session.o
    out = session.out
    if o.as_json:
        doc = {
            "outcome": result.outcome, "exit_code": result.exit_code if exit_code is None else exit_code,
            "steps": result.steps,
            "detail": result.detail, "arch": tile.arch.name,
            "cores": {n: {"state": c.state, "pc": c.pc, "steps": c.steps, "symbol": c.symbol,
                          "waiting_on": c.waiting_on}
                      for n, c in result.cores.items() if c.state != "reset" or n in tile.images},
            "blocked": result.blocked, "tensix": result.tensix, "kernels": _kernels(tile), "dumps": dumped,
            "warning_count": len(tile.diagnostics.sites),
            "warnings": tile.diagnostics.as_json(),
            "expect": [{"name": n, "ok": c.ok, "mismatched": c.mismatched, "total": c.total,
                        "max_abs_error": c.max_abs, "max_rel_error": c.max_rel, "atol": c.atol, "rtol": c.rtol,
                        "vacuous": vac} for n, c, vac in checks],
        }
        if conditions:
            doc["until"] = list(conditions)
            doc["until_failed"] = [c["condition"] for c in conditions if not c["held"]]
        if oracle is not None:
            doc["oracle"] = {"ok": oracle["ok"], "clocks": oracle["clocks"], "seconds": oracle["seconds"],
                             "regions": [{"name": d.name, "addr": d.addr, "len": d.length,
                                          "differing_bytes": d.differing_bytes} for d in oracle["diffs"]]}
        if session.manifest is not None:
            doc["manifest"] = session.manifest.name
            doc["seed"] = session.manifest.seed
        import json

        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    head = f"ttemu: {result.outcome} after {result.steps} instructions"
    if result.detail:
        head += f" ({result.detail})"
    out.write(head + "\n")
    rows = []
    for n, c in result.cores.items():
        if c.state == "reset" and n not in tile.images:
            continue
        where = c.symbol or ""
        if c.waiting_on:
            where = (where + ": " if where else "") + c.waiting_on
        rows.append((n, c.state, f"0x{c.pc:08x}", c.steps, where))
    print_table(("core", "state", "pc", "steps", "where"), rows, out)
    for line in result.blocked:
        out.write(f"  blocked: {line}\n")
    for c in conditions:
        if not c["held"]:
            out.write(f"  {condition_line(c)}\n")
    if tile.diagnostics.sites:
        n = sum(c for _, c, _ in tile.diagnostics.sites.values())
        out.write(f"  warnings: {len(tile.diagnostics.sites)} sites, {n} occurrences\n")
        for line in tile.diagnostics.lines():
            out.write(f"    {line}\n")
    for name, c, vac in checks:
        verdict = "ok" if c.ok else f"MISMATCH ({c.mismatched} of {c.total})"
        out.write(f"  expect {name}: {verdict}; {tolerance_text(c)}\n")
        if vac:
            out.write(f"  expect {name}: the tolerance is vacuous: {vac}\n")
    if oracle is not None:
        same = sum(d.ok for d in oracle["diffs"])
        out.write(f"  oracle ttsim: {same} of {len(oracle['diffs'])} regions bit-identical "
                  f"({oracle['clocks']} clocks, {oracle['seconds']:.2f} s)\n")
    if any(v.get("pushed") for v in result.tensix.values()):
        trows = [(t, *vals.values()) for t, vals in result.tensix.items()]
        heads = ("thread",) + tuple(next(iter(result.tensix.values())).keys())
        print_table(heads, trows, out)


def _kernels(tile):
    """Which form of each compiled kernel ran (``--json``'s ``kernels``): ``compiled``, or
    ``python`` when the extension is not built or ``TTEMU_NATIVE=off`` (the same results).
    ``data_movers``: the packers', unpackers' and MOVA2D's common routes (movers_native.c)."""
    cop = tile._tensix
    if cop is not None:
        native, vector = cop.math.native is not None, cop.sfpu.native is not None
        movers = cop.pack.native is not None
    else:  # (no coprocessor made: what it would take, without importing the units)
        from ..tensix.units import fpu_native

        native, vector = fpu_native.MODULE is not None, fpu_native.built("_sfpu_native", "sfpu")
        movers = fpu_native.built("_movers_native")
    return {"matrix_unit": "compiled" if native else "python", "vector_unit": "compiled" if vector else "python",
            "data_movers": "compiled" if movers else "python"}
