"""``ttemu trace A B``: compare two trace files like diff(1).

Lines are normalised (trailing blanks dropped, blank lines ignored) and optionally
filtered (``--only riscv|tensix|t0|t1|t2|<core>``, ``--stage STAGE``), then compared:
a unified diff with ``--context`` lines, and a final ``N matched, M mismatch`` line.
Exit 0 when the filtered traces are the same, 1 when they differ, 2 on trouble.
"""

from __future__ import annotations

import difflib
import os
import sys

from ..arch import CORE_IDS


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
            raise ValueError(f"--only {only!r}: expected riscv, tensix, t0, t1, t2 or a core name")
    if stage:
        tests.append(lambda ln: ln.startswith("tensix ") and ln.split(" ", 3)[2] == stage)
    return lambda ln: all(t(ln) for t in tests)


def normalise(text, keep):
    out = []
    for ln in text.splitlines():
        ln = ln.rstrip()
        if ln and keep(ln):
            out.append(ln)
    return out


def compare(a_lines, b_lines, context=3):
    """-> (diff lines, matched, mismatched)."""
    # Trim the common prefix and suffix first: traces are long and mostly equal.
    pre = 0
    n = min(len(a_lines), len(b_lines))
    while pre < n and a_lines[pre] == b_lines[pre]:
        pre += 1
    suf = 0
    while suf < n - pre and a_lines[-1 - suf] == b_lines[-1 - suf]:
        suf += 1
    a_mid = a_lines[pre:len(a_lines) - suf]
    b_mid = b_lines[pre:len(b_lines) - suf]
    matched = pre + suf
    mismatched = 0
    sm = difflib.SequenceMatcher(None, a_mid, b_mid, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            matched += i2 - i1
        else:
            mismatched += max(i2 - i1, j2 - j1)
    if not mismatched:
        return [], matched, 0
    lo = max(0, pre - context)
    a_win = a_lines[lo:len(a_lines) - max(0, suf - context)]
    b_win = b_lines[lo:len(b_lines) - max(0, suf - context)]
    diff = list(difflib.unified_diff(a_win, b_win, "a", "b", n=context, lineterm=""))
    return diff, matched, mismatched


def compare_files(a, b, only=None, stage=None, context=3, out=None) -> int:
    out = out or sys.stdout
    try:
        keep = line_filter(only, stage)
        with open(a) as fa, open(b) as fb:
            a_lines = normalise(fa.read(), keep)
            b_lines = normalise(fb.read(), keep)
    except (OSError, ValueError, UnicodeDecodeError) as e:
        sys.stderr.write(f"ttemu: error: trace: {e}\n")
        return 2
    diff, matched, mismatched = compare(a_lines, b_lines, context)
    for ln in diff:
        out.write(ln + "\n")
    out.write(f"{matched} matched, {mismatched} mismatch\n")
    return 1 if mismatched else 0
