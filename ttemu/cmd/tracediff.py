"""``ttemu trace A B``: compare two trace files like diff(1).

Lines are normalised (trailing blanks dropped, blank lines ignored) and optionally
filtered (``--only riscv|tensix|t0|t1|t2|<core>``, ``--stage STAGE``), then compared:
a unified diff with ``--context`` lines whose ``---``/``+++`` headers name the files
and whose hunk headers give the lines' numbers in the files (filtered-out lines are
not shown, so a hunk's count is the lines it shows), and a final ``N matched, M
mismatch`` line; ``--json`` gives the same as one document. Exit 0 when the filtered
traces are the same, 1 when they differ, 2 on trouble.
"""

from __future__ import annotations

import difflib
import os
import sys

from ..arch import CORE_IDS
from ..errors import UsageError
from .specs import TRACE_STAGES


def is_trace_pair(a, b):
    """Two positional arguments mean "compare" unless one of them is an ELF; a missing
    file then makes the comparison fail with exit 2, like diff(1)."""
    def is_elf(p):
        if not os.path.isfile(p):
            return False
        with open(p, "rb") as f:
            return f.read(4) == b"\x7fELF"

    return not is_elf(a) and not is_elf(b) and (os.path.isfile(a) or os.path.isfile(b))


def line_filter(only=None, stage=None):
    """-> predicate(line) selecting the lines to compare."""
    tests = []
    if only:
        if only == "riscv":
            tests.append(lambda ln: ln.startswith("core "))
        elif only == "tensix":
            tests.append(lambda ln: ln.startswith("tensix "))
        elif only in ("t0", "t1", "t2"):
            prefix = f"tensix {only} "
            tests.append(lambda ln: ln.startswith(prefix))
        elif only in CORE_IDS:
            prefix = f"core {CORE_IDS[only]:3d}:"
            tests.append(lambda ln: ln.startswith(prefix))
        else:
            raise UsageError(f"--only {only!r}: expected riscv, tensix, t0, t1, t2 or a core name "
                             f"({', '.join(CORE_IDS)})")
    if stage:
        if stage not in TRACE_STAGES:
            raise UsageError(f"--stage {stage!r}: one of {', '.join(TRACE_STAGES)}")
        tests.append(lambda ln: ln.startswith("tensix ") and ln.split(" ", 3)[2] == stage)
    return lambda ln: all(t(ln) for t in tests)


def normalise(text, keep):
    """-> [(line number in the file, line)] of the lines compared."""
    out = []
    for no, ln in enumerate(text.splitlines(), 1):
        ln = ln.rstrip()
        if ln and keep(ln):
            out.append((no, ln))
    return out


def _opcodes(a, b):
    """difflib's opcodes over whole sequences, found on what lies between the common
    prefix and suffix (traces are long and mostly equal)."""
    pre = 0
    n = min(len(a), len(b))
    while pre < n and a[pre] == b[pre]:
        pre += 1
    suf = 0
    while suf < n - pre and a[-1 - suf] == b[-1 - suf]:
        suf += 1
    ops = [("equal", 0, pre, 0, pre)] if pre else []
    sm = difflib.SequenceMatcher(None, a[pre:len(a) - suf], b[pre:len(b) - suf], autojunk=False)
    ops += [(tag, i1 + pre, i2 + pre, j1 + pre, j2 + pre) for tag, i1, i2, j1, j2 in sm.get_opcodes()]
    if suf:
        ops.append(("equal", len(a) - suf, len(a), len(b) - suf, len(b)))
    return ops


class _Grouper(difflib.SequenceMatcher):
    """difflib's grouping of opcodes into hunks with context, over opcodes found
    elsewhere (:func:`_opcodes`)."""

    def __init__(self, ops):
        super().__init__(None, [], [])
        self._ops = ops

    def get_opcodes(self):
        return self._ops


def compare(a_lines, b_lines, context=3, names=("a", "b")):
    """``a_lines``/``b_lines``: [(line number, text)] -> (diff lines, matched,
    mismatched, hunks as JSON-able dicts, the first difference or None)."""
    a = [t for _, t in a_lines]
    b = [t for _, t in b_lines]
    ops = _opcodes(a, b)
    matched = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
    mismatched = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")
    if not mismatched:
        return [], matched, 0, [], None
    _, i1, i2, j1, j2 = next(op for op in ops if op[0] != "equal")
    first = {"a_line": a_lines[i1][0] if i2 > i1 else None, "a": a[i1] if i2 > i1 else None,
             "b_line": b_lines[j1][0] if j2 > j1 else None, "b": b[j1] if j2 > j1 else None}
    diff = [f"--- {names[0]}", f"+++ {names[1]}"]
    hunks = []
    for group in _Grouper(ops).get_grouped_opcodes(context):
        lines = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + t for t in a[i1:i2]]
                continue
            lines += ["-" + t for t in a[i1:i2]]
            lines += ["+" + t for t in b[j1:j2]]
        a_lo, a_hi = group[0][1], group[-1][2]
        b_lo, b_hi = group[0][3], group[-1][4]
        h = {"a_start": _start(a_lines, a_lo, a_hi), "a_count": a_hi - a_lo,
             "b_start": _start(b_lines, b_lo, b_hi), "b_count": b_hi - b_lo, "lines": lines}
        hunks.append(h)
        diff.append(f"@@ -{_range(h['a_start'], h['a_count'])} +{_range(h['b_start'], h['b_count'])} @@")
        diff += lines
    return diff, matched, mismatched, hunks, first


def _start(numbered, lo, hi):
    """The file line number of a hunk side's first line (of the line before, when the
    side is empty, as diff(1) does)."""
    if hi > lo:
        return numbered[lo][0]
    return numbered[lo - 1][0] if lo else 0


def _range(start, count):
    return f"{start}" if count == 1 else f"{start},{count}"


def compare_files(a, b, only=None, stage=None, context=3, out=None, as_json=False) -> int:
    out = out or sys.stdout
    keep = line_filter(only, stage)
    try:
        texts = []
        for p in (a, b):
            with open(p) as f:
                texts.append(f.read())
    except OSError as e:
        sys.stderr.write(f"ttemu: error: trace: {e.filename}: {e.strerror}\n")
        return 2
    except UnicodeDecodeError:
        sys.stderr.write(f"ttemu: error: trace: {p}: not a text file\n")
        return 2
    a_lines, b_lines = (normalise(t, keep) for t in texts)
    diff, matched, mismatched, hunks, first = compare(a_lines, b_lines, context, (a, b))
    if as_json:
        import json

        json.dump({"a": a, "b": b, "same": not mismatched, "matched": matched, "mismatched": mismatched,
                   "first_difference": first, "hunks": hunks}, out, indent=1)
        out.write("\n")
        return 1 if mismatched else 0
    for ln in diff:
        out.write(ln + "\n")
    out.write(f"{matched} matched, {mismatched} mismatch\n")
    return 1 if mismatched else 0
