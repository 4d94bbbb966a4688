"""The Matrix Unit's runs executed together (ttemu/tensix/units/math_batch.py): the pieces
a run replays from its plan, against what one instruction at a time does (whole runs
against one at a time: tests/test_frontend_fusion.py and tests/test_fpu_native.py)."""

from __future__ import annotations

from ttemu.tensix.units import math_batch


def _one_by_one(log, ti, issued, entries):
    """MatrixUnit._log_defer's log, one instruction after the other."""
    for i, (kind, row, n, word) in enumerate(entries):
        log.append((ti, issued + i, kind, row, n, word))
        if len(log) > 64:
            del log[:-32]


def test_log_of_a_run_is_the_log_one_at_a_time():
    """Every length of the log before a run (it never holds more than 64 entries) and
    runs of 1 to 200 instructions: the same entries, in order, as appending them one by
    one with the cut to the latest 32 whenever the log passes 64."""
    for have in range(65):
        before = [(0, 1000 + i, "16", i, 8, 0x100 + i) for i in range(have)]
        for n in list(range(1, 70)) + [96, 97, 128, 129, 130, 161, 200]:
            entries = [("32" if i % 3 else "16", 8 * i, 8 - (i & 4), 0x26000000 + i) for i in range(n)]
            want = list(before)
            _one_by_one(want, 1, 5000, entries)
            got = list(before)
            math_batch.extend_log(got, 1, 5000, tuple(map(tuple, zip(*entries))), n)
            assert got == want, (have, n)


def test_marks_as_ranges():
    assert math_batch._ranges([]) == []
    assert math_batch._ranges([5, 3, 4, 4, 9, 10, 12]) == [(3, 6), (9, 11), (12, 13)]
    rows = [r for r in range(0, 1024, 3)] + list(range(100, 140))
    ranges = math_batch._ranges(rows)
    assert sorted(r for lo, hi in ranges for r in range(lo, hi)) == sorted(set(rows))
