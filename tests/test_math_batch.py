"""The Matrix Unit's runs executed together (ttemu/tensix/units/math_batch.py): the pieces
a run replays from its plan, against what one instruction at a time does (whole runs
against one at a time: tests/test_frontend_fusion.py and tests/test_fpu_native.py)."""

from __future__ import annotations

import numpy as np

from ttemu import Tile
from ttemu.tensix.units import math_batch


def _append(log, entry):
    """What MatrixUnit._log_defer does with one instruction's entry."""
    log.append(entry)
    if len(log) > 64:
        del log[:-32]


def _entries(ti, issued, n, salt):
    return [(ti, issued + i, "32" if (i + salt) % 3 else "16", 8 * i + salt, 8 - (i & 4), 0x26000000 + salt + i)
            for i in range(n)]


def _columns(entries):
    return tuple(tuple(e[k] for e in entries) for k in range(2, 6))


def test_log_of_a_run_is_the_log_one_at_a_time():
    """Every length of the log before a run (it never holds more than 64 entries) and
    runs of 1 to 200 instructions: read after the run, the same entries, in order, as
    appending them one by one with the cut to the latest 32 whenever the log passes 64."""
    unit = Tile("wormhole_b0").tensix.math
    for have in range(65):
        before = _entries(0, 1000, have, 7)
        for n in list(range(1, 70)) + [96, 97, 128, 129, 130, 161, 200]:
            entries = _entries(1, 5000, n, n)
            want = list(before)
            for e in entries:
                _append(want, e)
            unit.dst_log[:] = before
            math_batch.log_run(unit, 1, 5000, _columns(entries), n)
            assert unit.dst_log == want, (have, n)


def test_log_of_runs_kept_lazily():
    """Runs, single instructions' entries and reads of the log in random order (several
    runs kept before a read, some longer than the log, some not): every read sees what
    one at a time gives."""
    rng = np.random.default_rng(5)
    unit = Tile("wormhole_b0").tensix.math
    for trial in range(300):
        want = []
        unit.dst_log.clear()
        issued = 0
        for step in range(int(rng.integers(1, 40))):
            what = rng.random()
            if what < 0.5:
                n = int(rng.choice([1, 2, 7, 16, 16, 31, 33, 64, 64, 65, 100]))
                entries = _entries(int(rng.integers(0, 3)), issued, n, step)
                for e in entries:
                    _append(want, e)
                math_batch.log_run(unit, entries[0][0], issued, _columns(entries), n)
                issued += n
            elif what < 0.8:
                e = _entries(int(rng.integers(0, 3)), issued, 1, step)[0]
                _append(want, e)
                _append(unit.dst_log, e)
                issued += 1
            else:
                assert unit.dst_log == want, (trial, step)
        assert unit.dst_log == want, trial
        assert len(unit._log_runs) == 0


def test_marks_as_ranges():
    assert math_batch._ranges([]) == []
    assert math_batch._ranges([5, 3, 4, 4, 9, 10, 12]) == [(3, 6), (9, 11), (12, 13)]
    rows = [r for r in range(0, 1024, 3)] + list(range(100, 140))
    ranges = math_batch._ranges(rows)
    assert sorted(r for lo, hi in ranges for r in range(lo, hi)) == sorted(set(rows))
