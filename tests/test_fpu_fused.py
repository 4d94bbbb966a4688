"""The fused MVMUL datapath (fpu_fused.FusedMvmul.dot_accumulate) against the reference
fpu_datapath.dot + fpu_datapath.accumulate, bit for bit: random Src values mixed with
special patterns (zero, the top exponent, all mantissa bits, signed zeros), Dst values
(zero, negative, exponent 255, exponent 0 with mantissa bits, the largest finite,
denormal-like and NaN / Inf patterns), all four fidelity phases, BF16 and TF32 Src,
16-bit (BF16) and 32-bit (FP32) Dst, 8 (MVMUL) and 4 (GAPOOL) rows; hypothesis draws the
seeds (and shrinks to a failing one)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ttemu.tensix.formats import layout as L
from ttemu.tensix.units import fpu_datapath as FD
from ttemu.tensix.units import math as M
from ttemu.tensix.units.fpu_fused import FusedMvmul, dst_tables

SRC_SPECIAL = np.array([0, 0xFF, 0x1, 0x40000, 0x3FFFF, 0x7FFFF, 0x400FF, 0x3FF00, 0x7F, 0x80, 0x101,
                        0x40101, 0x3F801, 0x7FFFE, 0x000FE, 0x40080, 0x00180, 0x7FF80])
DST_SPECIAL = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FFFFF, 0x3F800000, 0x00800000, 0x80000001,
                        0xBF800000, 0xC0001000, 0x7F7FFFFF, 0x7FC00000, 0x807FFFFF, 0x00000001, 0x3F801000,
                        0xBF801000, 0x00FFFFFF, 0x80800000], dtype=np.uint32)


def _mix(rng, shape, hi, special, dtype):
    x = rng.integers(0, hi, size=shape, dtype=np.uint64).astype(dtype)
    pick = rng.random(shape) < rng.random()  # from none to all special values
    x[pick] = rng.choice(special, size=int(pick.sum())).astype(dtype)
    return x




def _check(seed, phase, bf16, fp32, rows, exps=None):
    rng = np.random.default_rng(seed)
    a = _mix(rng, (16, 16), 1 << 19, SRC_SPECIAL, np.uint32)
    b = _mix(rng, (rows, 16), 1 << 19, SRC_SPECIAL, np.uint32)
    if exps is not None:  # operands within a few exponents of each other: more rounding ties, cancellation
        a = (a & ~np.uint32(0xFF)) | rng.integers(exps, exps + 4, size=a.shape).astype(np.uint32)
        b = (b & ~np.uint32(0xFF)) | rng.integers(exps, exps + 4, size=b.shape).astype(np.uint32)
    ieee = _mix(rng, (rows, 16), 1 << 32, DST_SPECIAL, np.uint32)
    if not fp32:
        ieee &= np.uint32(0xFFFF0000)
    # the reference, as MatrixUnit._fpu_accumulate runs it
    terms = FD.dot(a, b, False, bf16, fp32, phase)
    hi = L.dst16_from_bf16(ieee >> np.uint32(16)).astype(np.uint16)
    lo = (ieee & np.uint32(0xFFFF)).astype(np.uint16)
    dst_exp, dst_man, dst_sign = M.dst_decode_tables()
    ed = dst_exp[hi]
    ds = dst_man[hi] + (dst_sign[hi] * lo if fp32 else 0)
    want = FD.accumulate(terms, ed, ds, fp32, True)
    want_hi = M._SHUF_BF16[want >> np.uint32(16)]
    want_lo = (want & np.uint32(0xFFFF)).astype(np.uint16)
    FusedMvmul().dot_accumulate(a, b, bf16, phase, hi, lo if fp32 else None)
    np.testing.assert_array_equal(hi, want_hi)
    if fp32:
        np.testing.assert_array_equal(lo, want_lo)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), phase=st.integers(0, 3), bf16=st.booleans(), fp32=st.booleans(),
       rows=st.sampled_from([8, 4]))
def test_fused_matches_reference(seed, phase, bf16, fp32, rows):
    _check(seed, phase, bf16, fp32, rows)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), phase=st.integers(0, 3), bf16=st.booleans(), fp32=st.booleans(),
       exps=st.sampled_from([1, 2, 60, 61, 62, 63, 64, 120, 126, 127, 128, 190, 250, 252]))
def test_fused_matches_reference_near_exponents(seed, phase, bf16, fp32, exps):
    """Src exponents close together (many exact ties and cancellations) and at the ends
    of the range (results that flush to zero or overflow to infinity)."""
    _check(seed, phase, bf16, fp32, 8, exps)


def test_dst_tables_flush_and_zero():
    """The output table writes +0 for every pattern whose exponent field is 0 (a result
    the reference flushes), and Dst16 pattern 0 is the BF16 +0 the reference writes."""
    value, low, power, const, shuf, lo_mask = dst_tables()
    h = np.arange(1 << 16)
    flush = (h & 0x7F80) == 0
    assert (shuf[flush] == M._SHUF_BF16[0]).all() and M._SHUF_BF16[0] == 0
    np.testing.assert_array_equal(shuf[~flush], M._SHUF_BF16[~flush])
    assert (lo_mask[flush] == 0).all() and (lo_mask[~flush] == 0xFFFF).all()


def test_dst_tables_match_decode():
    """The Dst tables (outer products) against fpu_datapath.dst_decode of every Dst16
    pattern, as MatrixUnit decodes Dst (value less 1 when negative, 2**-15 scaled)."""
    value, low, power, const, shuf, lo_mask = dst_tables()
    ed, ds, sign = M.dst_decode_tables()
    np.testing.assert_array_equal(value, (ds - (ds < 0)) * np.ldexp(1.0, ed - 15) * (ed != 0))
    np.testing.assert_array_equal(low, sign * np.ldexp(1.0, ed - 15))
    np.testing.assert_array_equal(power, np.ldexp(1.0, ed - 1))
    np.testing.assert_array_equal(const[ds < 0], 4095.5 / 8192)
    np.testing.assert_array_equal(const[ds > 0], 4096.5 / 8192)


def _check_elw(seed, kind, phase, bf16, fp32, add_dst=True, exps=None):
    rng = np.random.default_rng(seed)
    a = _mix(rng, (8, 16), 1 << 19, SRC_SPECIAL, np.uint32)
    b = _mix(rng, (8, 16), 1 << 19, SRC_SPECIAL, np.uint32)
    if exps is not None:
        a = (a & ~np.uint32(0xFF)) | rng.integers(exps, exps + 14, size=a.shape).astype(np.uint32)
        b = (b & ~np.uint32(0xFF)) | rng.integers(exps, exps + 14, size=b.shape).astype(np.uint32)
    if rng.random() < 0.3:  # equal magnitudes, either sign: exact cancellation
        b = a ^ (rng.integers(0, 2, size=a.shape).astype(np.uint32) << np.uint32(18))
    ieee = _mix(rng, (8, 16), 1 << 32, DST_SPECIAL, np.uint32)
    if not fp32:
        ieee &= np.uint32(0xFFFF0000)
    if kind == "mul":
        term = FD.elw_mul(a, b, False, bf16, fp32, phase)
    else:
        term = FD.elw_add(a, b, kind == "sub", False, bf16, fp32, 0)
    hi = L.dst16_from_bf16(ieee >> np.uint32(16)).astype(np.uint16)
    lo = (ieee & np.uint32(0xFFFF)).astype(np.uint16)
    if add_dst:
        dst_exp, dst_man, dst_sign = M.dst_decode_tables()
        ed = dst_exp[hi]
        ds = dst_man[hi] + (dst_sign[hi] * lo if fp32 else 0)
    else:
        ed = ds = np.zeros((8, 16), np.int64)
    want = FD.accumulate((term,), ed, ds, fp32, True)
    f = FusedMvmul()
    if kind == "mul":
        f.elw_mul(a, b, bf16, phase, hi, lo if fp32 else None)
    else:
        f.elw_add(a, b, kind == "sub", bf16, hi, lo if fp32 else None, add_dst)
    np.testing.assert_array_equal(hi, M._SHUF_BF16[want >> np.uint32(16)])
    if fp32:
        np.testing.assert_array_equal(lo, (want & np.uint32(0xFFFF)).astype(np.uint16))


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["mul", "add", "sub"]), phase=st.integers(0, 3),
       bf16=st.booleans(), fp32=st.booleans(), add_dst=st.booleans(),
       exps=st.sampled_from([None, None, 1, 60, 120, 127, 240]))
def test_fused_elw_matches_reference(seed, kind, phase, bf16, fp32, add_dst, exps):
    """ELWMUL (any fidelity phase), ELWADD / ELWSUB (phase 0, with and without AddDst),
    exponents spread and close together (ties, cancellation, flush to zero, overflow)."""
    _check_elw(seed, kind, phase, bf16, fp32, add_dst or kind == "mul", exps)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 70), blocks=st.integers(1, 9),
       use32=st.booleans(), rows=st.sampled_from([8, 4]), phases=st.sampled_from([1, 2, 4]),
       consecutive=st.booleans())
def test_deferred_run_matches_one_by_one(seed, count, blocks, use32, rows, phases, consecutive):
    """FusedMvmul.run (deferred MVMULs: products together, accumulations in waves) leaves
    DstBits as dot_accumulate applied one job after the other does: jobs on a few Dst
    blocks in any order (repeats: chains of accumulations), fidelity phases and BF16 /
    TF32 changing within the run; with ``consecutive``, the blocks taken in turn from
    consecutive Dst rows (the waves run on views of Dst). The queued Src words carry
    bits above the 19 of a Src value, which the run ignores as _matmul's mask did."""
    rng = np.random.default_rng(seed)
    bits = _mix(rng, (1024, 16), 1 << 16, np.array([0, 0x8000, 0x7FFF, 0x00FF, 0x80FF, 0x3F80]), np.uint16)
    step = 16 if use32 else rows
    if consecutive:
        first = int(rng.integers(0, 1024 // step - blocks + 1))
        starts = (first + np.arange(blocks)) * step
    else:
        starts = rng.choice(np.arange(0, 1024 - 16, step if use32 else 8), size=blocks, replace=False)
    jobs, queued = [], []
    for c in range(count):
        a = _mix(rng, (16, 16), 1 << 19, SRC_SPECIAL, np.uint32)
        b = _mix(rng, (rows, 16), 1 << 19, SRC_SPECIAL, np.uint32)
        r = int(starts[c % blocks]) if consecutive else int(rng.choice(starts))
        job = (a, b, bool(rng.integers(0, 2)) if phases > 1 else True, int(rng.integers(0, phases)), r, use32)
        jobs.append(job)
        high = [(x | (rng.integers(0, 1 << 13, size=x.shape).astype(np.uint32) << np.uint32(19))) for x in (a, b)]
        queued.append((*high, *job[2:]))
    want = bits.copy()
    one = FusedMvmul()
    for a, b, bf16, phase, r, u in jobs:
        one.dot_accumulate(a, b, bf16, phase, want[r:r + rows], want[r + 8:r + 8 + rows] if u else None)
    FusedMvmul().run(queued, bits)
    np.testing.assert_array_equal(bits, want)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 70), blocks=st.integers(1, 9), use32=st.booleans(),
       consecutive=st.booleans(), mix=st.sampled_from(["elw", "elw+mvmul"]))
def test_deferred_elw_matches_one_by_one(seed, count, blocks, use32, consecutive, mix):
    """Queued ELWADD / ELWSUB / ELWMUL (with and without AddDst, any ELWMUL fidelity phase,
    broadcast SrcB views), alone or between MVMULs on the same Dst blocks, flushed
    together, leave DstBits as elw_add / elw_mul / dot_accumulate one after the other do
    (runs of one kind and configuration computed together, accumulations in waves)."""
    rng = np.random.default_rng(seed)
    bits = _mix(rng, (1024, 16), 1 << 16, np.array([0, 0x8000, 0x7FFF, 0x00FF, 0x80FF, 0x3F80]), np.uint16)
    step = 16 if use32 else 8
    if consecutive:
        first = int(rng.integers(0, 1024 // step - blocks + 1))
        starts = (first + np.arange(blocks)) * step
    else:
        starts = rng.choice(np.arange(0, 1024 - 16, step), size=blocks, replace=False)
    kinds = [("add", True), ("sub", True), ("add", False), ("mul", True)]
    uniform = rng.integers(0, 2) == 1  # one kind and configuration throughout (an eltwise kernel's run)
    k0, bf0, ph0 = kinds[int(rng.integers(0, 4))], bool(rng.integers(0, 2)), int(rng.integers(0, 4))
    want = bits.copy()
    one, queued = FusedMvmul(), FusedMvmul()
    for c in range(count):
        r = int(starts[c % blocks]) if consecutive else int(rng.choice(starts))
        lo = (lambda x: x[r + 8:r + 16]) if use32 else (lambda x: None)
        if mix == "elw+mvmul" and rng.random() < 0.4:
            a = _mix(rng, (16, 16), 1 << 19, SRC_SPECIAL, np.uint32)
            b = _mix(rng, (8, 16), 1 << 19, SRC_SPECIAL, np.uint32)
            bf16, phase = bool(rng.integers(0, 2)), int(rng.integers(0, 4))
            one.dot_accumulate(a, b, bf16, phase, want[r:r + 8], lo(want))
            n = queued.defer(a, b, bf16, phase, r, use32)
        else:
            (kind, add_dst), bf16, phase = (k0, bf0, ph0) if uniform else (
                kinds[int(rng.integers(0, 4))], bool(rng.integers(0, 2)), int(rng.integers(0, 4)))
            if kind != "mul":
                phase = 0
            a = _mix(rng, (8, 16), 1 << 19, SRC_SPECIAL, np.uint32)
            b = _mix(rng, (8, 16), 1 << 19, SRC_SPECIAL, np.uint32)
            if rng.random() < 0.3:  # BroadcastSrcBRow
                b = np.broadcast_to(b[:1], (8, 16))
            if kind == "mul":
                one.elw_mul(a, b, bf16, phase, want[r:r + 8], lo(want))
            else:
                one.elw_add(a, b, kind == "sub", bf16, want[r:r + 8], lo(want), add_dst)
            n = queued.defer_elw(a, b, kind, bf16, phase, r, use32, add_dst)
        if n == FusedMvmul.CAPACITY:
            queued.flush(bits)
    queued.flush(bits)
    np.testing.assert_array_equal(bits, want)


def test_deferred_four_rows_at_the_end_of_dst32():
    """A GAPOOL-sized block (4 rows) in the upper half of Dst32's last group of 8 rows
    (Dst32 row 508: DstBits rows 1012..1015 and 1020..1023) ends 12 rows past its first:
    the deferred run takes it row by row, as dot_accumulate does (it once sliced 16 rows
    past it and stopped the run)."""
    rng = np.random.default_rng(5)
    bits = _mix(rng, (1024, 16), 1 << 16, np.array([0, 0x8000, 0x3F80]), np.uint16)
    a = _mix(rng, (16, 16), 1 << 19, SRC_SPECIAL, np.uint32)
    b = _mix(rng, (4, 16), 1 << 19, SRC_SPECIAL, np.uint32)
    r = ((508 & 0x1F8) << 1) | (508 & 0x207)
    assert r == 1012
    want = bits.copy()
    FusedMvmul().dot_accumulate(a, b, True, 0, want[r:r + 4], want[r + 8:r + 12])
    FusedMvmul().run([(a, b, True, 0, r, True)], bits)
    np.testing.assert_array_equal(bits, want)
