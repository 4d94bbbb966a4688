"""The Matrix Unit's runs of instructions executed together: consecutive MVMUL / DOTPV /
GAPOOL (without BroadcastSrcBRow) and ELWADD / ELWSUB / ELWMUL steps of a compiled MOP or
REPLAY expansion (frontend/body.py), which a thread hands over in one call where issuing
them one at a time would change nothing else in between (TensixThread.pump).

A run's *plan* is worked out once per starting state, by walking its instructions as
``MatrixUnit._matmul`` / ``_elw`` would: the thread's counters (RWCs) stepped by each
instruction's AddrMod, the configuration view (formats, Dst mode and base, fidelity
base), each instruction's Src rows, Dst block and fidelity phase, the Dst write log's
entries and the ZEROACC marks it clears. It is kept per (run, counters, Config and
ThreadConfig versions, Src formats, Dst mode) and replayed: the products through the
compiled datapath in one call per run (fpu_native's ``mvmul`` / ``elw``: one
instruction after the other, the same bits as one call each), or queued for
fpu_fused as ``_fused_mvmul`` / ``_fused_elw`` queue them; then the log, the marks,
the counters' final state and a last instruction's Src flip. The plan stops at the
first instruction that would do anything else (wait for a Src bank, warn, take the
reference datapath: FP16 / INT8 styles, remapped or aliased Dst rows, SrcA rows past
63, a Blackhole AddrMod with the bias bit): that one and the rest issue one at a time.
tests/test_frontend_fusion.py compares runs executed together with one at a time.
"""

from __future__ import annotations

from itertools import repeat

import numpy as np

from ...errors import TtemuError
from .fpu_datapath import BF16, TF32

_MM = {"MVMUL": 8, "DOTPV": 8, "GAPOOL": 4}  # mnemonic -> NumRows
_ELW = {"ELWADD": 0, "ELWSUB": 1, "ELWMUL": 2}  # mnemonic -> fpu_native's ELW kind
_KIND = ("add", "sub", "mul")
_MAX_PLANS = 64  # per body
_MAX_ADDR_MOD_IDS = 256  # per unit


class Plan:
    """What a run does from one starting state (see the module docstring): ``count``
    instructions; ``segments`` [(mvmul?, jobs int32 array)] in order; the counters after
    them; ``log``: the Dst write log's kinds, rows, row counts and words, a tuple each;
    ``marks``: the DstBits rows whose ZEROACC marks it clears, as [(start, end)]; SrcA's
    last starting row; ``flip`` (the last instruction's ClearDvalid); ``bf16`` /
    ``use32``, and ``mode`` (fpu_native's use32: 0, or the unit's Dst32 mode)."""

    __slots__ = ("count", "segments", "rwc", "log", "marks", "last_srca_row", "flip", "bf16", "use32", "mode")


def batch_runs(unit, words, entries):
    """The runs of ``entries`` (a body's dispatch entries) the Matrix Unit ``unit`` may
    take together: consecutive MVMUL / DOTPV / GAPOOL / ELW* bound to this unit's own
    methods (not through an arch adapter), MVMUL without BroadcastSrcBRow; a run ends
    with an instruction that flips a Src bank (ClearDvalid)."""
    table = unit.cop.table
    runs = []
    start = None
    for p, (word, entry) in enumerate(zip(words, entries)):
        spec, handler = entry[0], entry[1]
        ok = (spec is not None and getattr(handler, "__self__", None) is unit and entry[3] is None
              and (spec.mnemonic in _MM or spec.mnemonic in _ELW))
        fields = table.decode(word)[1] if ok else None
        if ok and spec.mnemonic == "MVMUL" and fields["instr_mod19"] & 1:
            ok = False  # BroadcastSrcBRow: the reference path
        if not ok:
            if start is not None:
                runs.append((start, p))
            start = None
            continue
        if start is None:
            start = p
        if fields["clear_dvalid"]:
            runs.append((start, p + 1))
            start = None
    if start is not None:
        runs.append((start, len(entries)))
    return runs


def run_batch(unit, t, body, start, end):
    """Execute steps ``start`` .. at most ``end`` of ``body`` on thread ``t`` as one at a
    time would; -> how many (0: none, they go one at a time)."""
    cop = unit.cop
    src = cop.src
    bank_a, bank_b = src.math_bank["A"], src.math_bank["B"]
    if src.allowed["A"][bank_a] != "math" or src.allowed["B"][bank_b] != "math":
        return 0  # (the first waits: one at a time)
    ti = t.index
    r = cop.rwcs.rwc[ti]
    cfg = cop.config
    v = unit._views[ti]  # (_view's first test, inline)
    if v is not None and v[0] == cfg.version and v[1] == cfg.thread_version and not v[4]:
        view = v[2]
    else:
        try:
            view = unit._view(ti, "MVMUL")
        except TtemuError:
            return 0  # (stops the run where it issues)
    key = ("math", start, end, ti, r.Dst, r.Dst_Cr, r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.FidelityPhase,
           r.ExtraAddrModBit, view, _addr_mods(unit, ti), unit._remap() if unit._has_remap else None,
           cop.dst.aliased16)
    cache = body.cache
    plan = cache.get(key)
    if plan is None:
        if len(cache) >= _MAX_PLANS:
            cache.clear()
        plan = cache[key] = _plan(unit, t, body, start, end)
    n = plan.count
    if not n:
        return 0
    a_bank = src.data["A"][bank_a]
    b_bank = src.data["B"][bank_b]
    native = unit.native
    if native is not None:
        bits = cop.dst.bits
        bf16, mode = plan.bf16, plan.mode
        for mvmul, jobs in plan.segments:
            (native.mvmul if mvmul else native.elw)(bits, a_bank, b_bank, jobs, bf16, mode)
    else:
        _queue(unit, plan, a_bank, b_bank)
    # what each instruction's _log_defer does, in order: the Dst write log, the ZEROACC marks
    log_run(unit, ti, t.issued, plan.log, n)
    if unit._marks:
        und = unit.undefined
        for lo, hi in plan.marks:
            und[lo:hi] = False
    unit.last_srca_row = plan.last_srca_row
    (r.Dst, r.Dst_Cr, r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.FidelityPhase, r.ExtraAddrModBit) = plan.rwc
    if plan.flip:
        unit._flip(ti, plan.flip)
    return n


def log_length(length, n):
    """The Dst write log's length after ``n`` appends to a log of ``length`` entries, each
    append cutting it to its latest 32 entries when it passes 64 (MatrixUnit._log_defer)."""
    return length + n if length + n <= 64 else 32 + (n - (65 - length)) % 33


def log_run(unit, ti, issued, columns, n):
    """Add to the Matrix Unit's Dst write log the entries of ``n`` instructions of thread
    ``ti`` issued from ``issued`` on (``columns``: their kinds, rows, row counts and
    words) as one at a time would, lazily: the run is kept (``unit._log_runs``) and its
    entries made when the log is next read (``MatrixUnit.dst_log``, apply_log_runs),
    only those the cuts leave. The log is always the latest entries of everything
    appended, so what a run leaves depends only on the lengths: a run at least as long
    as the log after it leaves none of what came before."""
    runs = unit._log_runs
    length = log_length(unit._log_len if runs else len(unit._log), n)
    unit._log_len = length
    if n >= length:
        unit._log.clear()
        runs.clear()
    elif len(runs) >= 4:  # (the runs the log still reaches, and the log only if they do not fill it)
        total = n
        for k in range(len(runs) - 1, -1, -1):
            total += runs[k][3]
            if total >= length:
                del runs[:k]
                unit._log.clear()
                break
    runs.append((ti, issued, columns, n))


def apply_log_runs(unit):
    """Make the entries of the runs ``log_run`` kept: the log becomes its latest
    ``unit._log_len`` entries."""
    runs = unit._log_runs
    log = unit._log
    need = unit._log_len
    parts = []
    for ti, issued, (kinds, rows, counts, words), n in reversed(runs):
        if need <= 0:
            break
        s = max(n - need, 0)
        parts.append(zip(repeat(ti, n - s), range(issued + s, issued + n), kinds[s:], rows[s:], counts[s:], words[s:]))
        need -= n - s
    runs.clear()
    if need > 0:
        del log[:len(log) - need]
    else:
        log.clear()
    for part in reversed(parts):
        log.extend(part)


def _addr_mods(unit, ti):
    """The thread's ADDR_MOD slots as ApplyAddrMod reads them (and ADDR_MOD_SET_Base), as
    a number that names their values (the same values, the same number, while the
    unit's table of them holds), kept until a ThreadConfig word holding one of them is
    written (a plan depends on them, not on the other fields: the Dst offset a kernel
    moves per tile is in the view). A number is never given to other values: a plan key
    holding it stays right."""
    cop = unit.cop
    values = cop.config.thread_values[ti]
    token = values.get(_ADDR_MODS_KEY)
    if token is None:
        rwcs = cop.rwcs
        slots = tuple(rwcs.slot_fields(ti, i) for i in range(8))
        names = [f"ADDR_MOD_{kind}_SEC{i}_{f}" for i in range(8) for kind, f in _SLOT_FIELDS]
        if "ADDR_MOD_SET_Base" in cop.config.thread_fields:
            slots += (values["ADDR_MOD_SET_Base"],)
            names.append("ADDR_MOD_SET_Base")
        known = unit.addr_mod_ids
        token = known.get(slots)
        if token is None:
            if len(known) >= _MAX_ADDR_MOD_IDS:
                known.clear()  # (numbers still in plan keys are not given out again)
            token = known[slots] = unit.addr_mod_next
            unit.addr_mod_next += 1
        values.keep(_ADDR_MODS_KEY, token, names)
    return token


_ADDR_MODS_KEY = ("math_batch", "addr_mods")
_SLOT_FIELDS = [("AB", f) for f in ("SrcAClear", "SrcACR", "SrcAIncr", "SrcBClear", "SrcBCR", "SrcBIncr")] + [
    ("DST", f) for f in ("DestClear", "DestCToCR", "DestCR", "DestIncr", "FidelityClear", "FidelityIncr")] + [
    ("BIAS", f) for f in ("BiasClear", "BiasIncr")]


def _queue(unit, plan, a_bank, b_bank):
    """The pure-Python datapath: the plan's jobs queued for fpu_fused, as _fused_mvmul /
    _fused_elw queue them one instruction at a time."""
    dst = unit.cop.dst
    fused = unit._fused
    bf16, use32 = plan.bf16, plan.use32
    for mvmul, jobs in plan.segments:
        for job in jobs.tolist():
            if dst.pending is None:
                dst.pending = unit._apply_deferred
            if mvmul:
                arow, brow, n, r, phase = job
                k = fused.defer(a_bank[arow:arow + 16], b_bank[brow:brow + n], bf16, phase, r, use32)
            else:
                arow, brow, r, phase, flags = job
                b = b_bank[brow:brow + 1] if flags & 8 else b_bank[brow:brow + 8]
                if flags & 16:
                    b = b[:, :1]
                k = fused.defer_elw(a_bank[arow:arow + 8], b, _KIND[flags & 3], bf16, phase, r, use32,
                                    bool(flags & 4))
            if k >= fused.CAPACITY:
                dst.bits  # applies them


def _plan(unit, t, body, start, end):
    """Walk the run from the thread's current state (nothing changed: the counters are
    stepped on a copy)."""
    cop = unit.cop
    rwcs = cop.rwcs
    ti = t.index
    real = rwcs.rwc[ti]
    r = type(real)(*real._values())
    table = cop.table
    plan = Plan()
    segments, log, marks = [], [], []
    jobs, mvmul_seg = [], None
    plan.flip = 0
    plan.last_srca_row = unit.last_srca_row
    plan.bf16 = plan.use32 = False
    count = 0
    rwcs.rwc[ti] = r  # (apply_addr_mod steps the copy)
    try:
        for p in range(start, end):
            word = body.items[p][0]
            spec = body.entries[p][0]
            m = spec.mnemonic
            f = table.decode(word)[1]
            try:
                _, style, use32, dst_base, fid_base = unit._view(ti, m)
            except TtemuError:
                break  # (stops the run where it issues)
            if style != BF16 and style != TF32:
                break
            phase = (r.FidelityPhase + fid_base) & 3
            srca_row = r.SrcA & 0x38
            if m in _MM:
                n = _MM[m]
                srcb_row = r.SrcB & 0x38
                dst_row = (f["dst"] + dst_base + r.Dst) & (0x400 - n)
                if srca_row + 16 > 64:
                    break  # (warns: one at a time)
                rr = unit._plain_block(dst_row, n, use32)
                if rr is None:
                    break
                job, is_mm = (srca_row, srcb_row, n, rr, phase), True
            else:
                kind = _ELW[m]
                if kind != 2 and phase != 0:
                    break  # (the reference datapath)
                n = 8
                mod = f["instr_mod19"]
                bcast_row = (mod >> 1) & 1
                srcb_row = r.SrcB & (0x3F if bcast_row else 0x38)
                dst_row = (f["dst"] + dst_base + r.Dst) & 0x3F8
                rr = unit._plain_block(dst_row, 8, use32)
                if rr is None:
                    break
                add_dst = 1 if kind == 2 else int(bool(f["dest_accum_en"]))
                job, is_mm = (srca_row, srcb_row, rr, phase, kind | add_dst << 2 | bcast_row << 3 | (mod & 1) << 4), False
            if rwcs.addr_mod_bits == 3 and r.ExtraAddrModBit:
                break  # (stops the run where it issues)
            if count == 0:
                plan.bf16, plan.use32 = style == BF16, use32
            if is_mm is not mvmul_seg and jobs:
                segments.append((mvmul_seg, np.array(jobs, np.int32)))
                jobs = []
            mvmul_seg = is_mm
            jobs.append(job)
            log.append(("32" if use32 else "16", dst_row, n, word))
            marks.extend(range(rr, rr + n))
            if use32:
                marks.extend(range(rr + 8, rr + 8 + n))
            plan.last_srca_row = srca_row
            rwcs.apply_addr_mod(ti, f["addr_mode"])
            count += 1
            if f["clear_dvalid"]:
                plan.flip = f["clear_dvalid"]
                break  # (batch_runs ends runs here)
    finally:
        rwcs.rwc[ti] = real
    if jobs:
        segments.append((mvmul_seg, np.array(jobs, np.int32)))
    plan.count = count
    plan.segments = segments
    plan.rwc = (r.Dst, r.Dst_Cr, r.SrcA, r.SrcA_Cr, r.SrcB, r.SrcB_Cr, r.FidelityPhase, r.ExtraAddrModBit)
    plan.log = tuple(map(tuple, zip(*log))) if log else ((), (), (), ())
    plan.marks = _ranges(marks)
    plan.mode = unit._native32 if plan.use32 else 0
    return plan


def _ranges(rows):
    """The distinct ``rows`` as [(start, end)] runs of consecutive rows."""
    out = []
    for row in sorted(set(rows)):
        if out and out[-1][1] == row:
            out[-1][1] = row + 1
        else:
            out.append([row, row + 1])
    return [tuple(x) for x in out]
