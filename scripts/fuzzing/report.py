"""Reports: a minimised difference as a short listing with the differing elements and
both values."""

from __future__ import annotations


def fmt_value(v: int, width: int) -> str:
    return f"0x{v:0{2 * width}x}"


def describe(outcome, *, limit: int = 12, klass: str | None = None) -> str:
    prog = outcome.program
    lines = [f"{prog.name}: {outcome.status}" + (f" [{klass}]" if klass else "")
             + (f" ({len(prog.kept_groups)} of {len(prog.groups)} groups kept)" if prog.groups else "")]
    if outcome.detail:
        lines.append(f"  {outcome.detail}")
    lines += prog.listing()
    if outcome.diffs:
        lines.append(f"  {len(outcome.diffs)} elements differ (ttemu / ttsim):")
        for region, i, ours, theirs in outcome.diffs[:limit]:
            extra = prog.explain(region, i) if prog.explain else ""
            lines.append(f"    {region.describe(i)}: {fmt_value(ours, region.width)} / "
                         f"{fmt_value(theirs, region.width)}" + (f"   ({extra})" if extra else ""))
        if len(outcome.diffs) > limit:
            lines.append(f"    ... {len(outcome.diffs) - limit} more")
    return "\n".join(lines)
