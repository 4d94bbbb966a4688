"""Terminal output: rich tables on a TTY, plain aligned text otherwise (and with
NO_COLOR set, or when the caller asks for plain output)."""

from __future__ import annotations

import os
import sys


def use_rich(stream) -> bool:
    if os.environ.get("NO_COLOR") is not None:
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def plain_table(headers, rows) -> str:
    cols = [headers] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cols) for i in range(len(headers))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()]
    for r in cols[1:]:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)


def print_table(headers, rows, stream=None, title=None, plain=False) -> None:
    stream = stream or sys.stdout
    if not plain and use_rich(stream):
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, show_edge=False, pad_edge=False)
        for h in headers:
            table.add_column(h)
        for r in rows:
            table.add_row(*[str(c) for c in r])
        Console(file=stream).print(table)
        return
    if title:
        stream.write(title + "\n")
    stream.write(plain_table(headers, rows) + "\n")
