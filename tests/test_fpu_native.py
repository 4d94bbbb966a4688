"""The compiled Matrix Unit datapath (ttemu/tensix/units/fpu_native.c) against the
pure-Python one (fpu_fused.py, itself pinned to the reference fpu_datapath.py by
tests/test_fpu_fused.py), bit for bit:

* the kernels: one MVMUL / GAPOOL-sized block or ELW* at a time, and batches of jobs,
  on random Src values mixed with special patterns (zero, the top exponent, every
  mantissa bit, signed zeros), Dst values of every kind (zero, negative, exponent 255,
  the largest finite, exponent 0 with mantissa bits), exponents close together (ties,
  cancellation, flush to zero, overflow), all fidelity phases, BF16 and TF32 Src, 16-
  and 32-bit Dst;
* whole instruction streams on Wormhole and Blackhole tiles (tests/math_streams.py):
  MVMUL / DOTPV / GAPOOL / ELW* with broadcasts, counters moving, Src banks flipping,
  FP16 / INT8 styles and remapped Dst taking the other paths, compared in everything
  they change (Dst, ZEROACC marks, the Dst write log, counters, warnings).

Skipped where the extension is not built, except ``test_built_where_a_compiler_is``:
where a C compiler is present (CI), the install must have built it.
"""

from __future__ import annotations

import importlib.util
import shutil
import sysconfig

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import math_streams as MS
from ttemu import Tile
from ttemu.tensix.units import fpu_native
from ttemu.tensix.units.fpu_fused import FusedMvmul

NATIVE = fpu_native.load()
needs_native = pytest.mark.skipif(NATIVE is None, reason="the compiled datapath is not built")


def test_built_where_a_compiler_is():
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}): the pure-Python path is the only one")
    # (built, whether or not TTEMU_NATIVE=off turns it off for this run)
    assert importlib.util.find_spec("ttemu.tensix.units._fpu_native") is not None, \
        "a C compiler is present but ttemu.tensix.units._fpu_native was not built"


def _mix_src(rng, shape, exps):
    x = MS.mix(rng, shape, 1 << 19, MS.SRC_SPECIAL, np.uint32)
    if exps is not None:
        x = (x & ~np.uint32(0xFF)) | rng.integers(exps, exps + 4, size=shape).astype(np.uint32)
    # bits above the 19 of a Src value, which both paths ignore
    return x | (rng.integers(0, 2, size=shape).astype(np.uint32) << np.uint32(19 + int(rng.integers(0, 13))))


def _blocks(rng, count, rows, use32):
    """``count`` DstBits rows of blocks as MVMUL addresses them (aligned to the row count)."""
    out = []
    for _ in range(count):
        row = int(rng.integers(0, 512 if use32 else 1024)) & (0x400 - rows)
        out.append(((row & 0x1F8) << 1) | (row & 0x207) if use32 else row)
    return out


def _both_entry_points(batch, single, bits, a_bank, b_bank, jobs, bf16, mode, want):
    """The jobs through the batch entry point, and one at a time through the single one:
    each leaves ``want`` in Dst (from ``bits``)."""
    got = bits.copy()
    batch(got, a_bank, b_bank, np.array(jobs, np.int32), bf16, mode)
    np.testing.assert_array_equal(got, want)
    one = bits.copy()
    for job in jobs:
        single(one, a_bank, b_bank, *job, bf16, mode)
    np.testing.assert_array_equal(one, want)


@needs_native
@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), bf16=st.booleans(), use32=st.booleans(), quirk=st.booleans(), rows=st.sampled_from([8, 4]),
       count=st.integers(1, 24), exps=st.sampled_from([None, None, None, 1, 60, 120, 126, 127, 128, 190, 252]))
def test_mvmul_matches_python(seed, bf16, use32, quirk, rows, count, exps):
    """Jobs one after the other on a few Dst blocks (chains of accumulations), every
    phase, the whole batch (``mvmul``) and one call per job (``mvmul1``) alike."""
    rng = np.random.default_rng(seed)
    a_bank = _mix_src(rng, (64, 16), exps)
    b_bank = _mix_src(rng, (64, 16), exps)
    bits = MS.mix(rng, (1024, 16), 1 << 16, MS.DST_SPECIAL, np.uint16)
    blocks = _blocks(rng, int(rng.integers(1, 5)), rows, use32)
    jobs = [(int(rng.integers(0, 49)), int(rng.integers(0, 65 - rows)), rows, int(rng.choice(blocks)),
             int(rng.integers(0, 4))) for _ in range(count)]
    want = bits.copy()
    f = FusedMvmul()
    f.minus_one_quirk = quirk  # (Wormhole's; mode 1 / 2 below)
    mode = use32 and (1 if quirk else 2)
    a19, b19 = a_bank & np.uint32(0x7FFFF), b_bank & np.uint32(0x7FFFF)  # (dot_accumulate takes Src values)
    for arow, brow, n, r, phase in jobs:
        f.dot_accumulate(a19[arow:arow + 16], b19[brow:brow + n], bf16, phase, want[r:r + n],
                         want[r + 8:r + 8 + n] if use32 else None)
    _both_entry_points(NATIVE.mvmul, NATIVE.mvmul1, bits, a_bank, b_bank, jobs, bf16, mode, want)


@needs_native
@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), bf16=st.booleans(), use32=st.booleans(), quirk=st.booleans(), count=st.integers(1, 24),
       exps=st.sampled_from([None, None, 1, 60, 120, 127, 240]))
def test_elw_matches_python(seed, bf16, use32, quirk, count, exps):
    """ELWADD / ELWSUB (phase 0, with and without AddDst) and ELWMUL (any phase), SrcB
    broadcast by row and / or column 0, and exact cancellation (SrcB = +-SrcA)."""
    rng = np.random.default_rng(seed)
    a_bank = _mix_src(rng, (64, 16), exps)
    b_bank = _mix_src(rng, (64, 16), exps)
    if rng.random() < 0.3:
        b_bank = a_bank ^ (rng.integers(0, 2, size=a_bank.shape).astype(np.uint32) << np.uint32(18))
    bits = MS.mix(rng, (1024, 16), 1 << 16, MS.DST_SPECIAL, np.uint16)
    blocks = _blocks(rng, int(rng.integers(1, 5)), 8, use32)
    want = bits.copy()
    f = FusedMvmul()
    f.minus_one_quirk = quirk  # (Wormhole's; mode 1 / 2 below)
    mode = use32 and (1 if quirk else 2)
    jobs = []
    for _ in range(count):
        kind = int(rng.integers(0, 3))
        phase = int(rng.integers(0, 4)) if kind == 2 else 0
        add_dst = bool(rng.integers(0, 2)) or kind == 2
        brow_bc, col0 = int(rng.integers(0, 2)), int(rng.integers(0, 2))
        arow = int(rng.integers(0, 8)) * 8
        brow = int(rng.integers(0, 64)) if brow_bc else int(rng.integers(0, 8)) * 8
        r = int(rng.choice(blocks))
        jobs.append((arow, brow, r, phase, kind | add_dst << 2 | brow_bc << 3 | col0 << 4))
        a = a_bank[arow:arow + 8] & np.uint32(0x7FFFF)  # (elw_* take Src values)
        b = b_bank[brow:brow + 1] if brow_bc else b_bank[brow:brow + 8]
        b = b & np.uint32(0x7FFFF)
        if col0:
            b = b[:, :1]
        b = np.broadcast_to(b, (8, 16))
        lo = want[r + 8:r + 16] if use32 else None
        if kind == 2:
            f.elw_mul(a, b, bf16, phase, want[r:r + 8], lo)
        else:
            f.elw_add(a, b, kind == 1, bf16, want[r:r + 8], lo, add_dst)
    _both_entry_points(NATIVE.elw, NATIVE.elw1, bits, a_bank, b_bank, jobs, bf16, mode, want)


@needs_native
def test_refuses_out_of_range_operands():
    d = np.zeros((1024, 16), np.uint16)
    s = np.zeros((64, 16), np.uint32)
    for args in ((49, 0, 8, 0, 0), (0, 57, 8, 0, 0), (0, 0, 9, 0, 0), (0, 0, 8, 1017, 0), (0, 0, 8, 0, 4)):
        with pytest.raises(ValueError):
            NATIVE.mvmul1(d, s, s, *args, True, False)
    with pytest.raises(ValueError):
        NATIVE.mvmul1(d, s, s, 0, 0, 8, 1009, 0, True, True)  # the low halves past row 1023
    with pytest.raises(ValueError):
        NATIVE.elw1(d, s, s, 57, 0, 0, 0, 0, True, False)
    with pytest.raises(ValueError):
        NATIVE.elw1(d, s, s, 0, 0, 0, 0, 3, True, False)  # kind 3
    with pytest.raises((ValueError, TypeError, BufferError)):
        NATIVE.mvmul1(d[:10], s, s, 0, 0, 8, 0, 0, True, False)  # Dst too short


def _run(arch, seed, native, n, **kw):
    rng = np.random.default_rng(seed)
    tile = Tile(arch)
    MS.prepare(tile, rng, **kw)
    tile.tensix.math.native = native
    t = tile.tensix.threads[1]
    for w in MS.program(arch, rng, n):
        if not t.push(w, "test", after_mop=True):
            break
        tile.tensix.kick()
    return MS.state(tile)


@needs_native
@settings(max_examples=40, deadline=None)
@given(arch=st.sampled_from(["wormhole_b0", "blackhole"]), seed=st.integers(0, 2**32 - 1),
       exps=st.sampled_from([None, None, 120, 127]))
def test_instruction_streams_match_python(arch, seed, exps):
    """Random Matrix Unit programs on a tile with the compiled datapath and on one with
    the pure-Python datapath leave the same state."""
    MS.assert_same(_run(arch, seed, NATIVE, 60, exps=exps), _run(arch, seed, None, 60, exps=exps))
