"""The compiled form of the Vector Unit's runs (ttemu/tensix/units/sfpu/sfpu_native.c,
native.py) against the pure-Python form (batch.py's, each instruction by its executor),
bit for bit:

* the multiply-add alone, both arches, against fma.py's forms (``fma_rows``, what the
  executors use, and the step-by-step models): random FP32 patterns mixed with special
  values (signed zeros, infinities, NaNs, denormals, the extremes), exponents close
  together (cancellation, ties), products near overflow and underflow; the C float64
  form and the C step-by-step model each;
* whole runs (tests/test_sfpu_batch.py's scripts: random Vector Unit programs and
  kernel-shaped bodies played by MOPs and REPLAYs, from random state and configuration,
  partial lane masks included) on Wormhole and Blackhole, compiled against the Python
  form and against one instruction at a time, in everything they change;
* the shipped SFPU kernels: ``--json`` says which form ran (``kernels.vector_unit``), and
  both forms give the same document.

Skipped where the extension is not built, except ``test_built_where_a_compiler_is``:
where a C compiler is present (CI), the install must have built it.
"""

from __future__ import annotations

import contextlib

import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sfpu_streams as SS
import test_sfpu_batch as TB
from ttemu.tensix.units.sfpu import native as NV
from ttemu.tensix.units.sfpu.fma import BLACKHOLE, WORMHOLE, fma_bh_plain, fma_rows, fma_wh_plain

NATIVE = NV.MODULE
needs_native = pytest.mark.skipif(NATIVE is None, reason="the compiled Vector Unit form is not built")
ROOT = pathlib.Path(__file__).resolve().parent.parent
ARCHES = ("wormhole_b0", "blackhole")


def test_built_where_a_compiler_is():
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}): the pure-Python path is the only one")
    # (built, whether or not TTEMU_NATIVE=off turns it off for this run)
    assert importlib.util.find_spec("ttemu.tensix.units.sfpu._sfpu_native") is not None, \
        "a C compiler is present but ttemu.tensix.units.sfpu._sfpu_native was not built"


def _operands(rng, n, exps):
    w = SS.mix32(rng, (3, n))
    if exps is not None:  # exponents close together: cancellation, ties, flushes, overflow
        e = rng.integers(exps, exps + 3, (3, n)).astype(np.uint32) & 0xFF
        keep = rng.random((3, n)) < 0.8
        w[keep] = (w[keep] & np.uint32(0x807FFFFF)) | (e[keep] << np.uint32(23))
    if rng.random() < 0.3:  # z close to -(x * y): exact and near cancellations
        p = fma_rows(np.stack([w[0], w[1], np.zeros(n, np.uint32)]), WORMHOLE)
        w[2] = (p ^ np.uint32(0x80000000)) + rng.integers(-2, 3, n).astype(np.uint32)
    return w


@needs_native
@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), bh=st.booleans(),
       exps=st.sampled_from([None, None, 1, 2, 60, 100, 126, 127, 128, 190, 253, 254]))
def test_fma_matches_python(seed, bh, exps):
    rng = np.random.default_rng(seed)
    w = _operands(rng, 4099, exps)  # (not a multiple of 32: the tail too)
    rules, plain = (BLACKHOLE, fma_bh_plain) if bh else (WORMHOLE, fma_wh_plain)
    want = fma_rows(w, rules)
    np.testing.assert_array_equal(plain(w[0], w[1], w[2]), want)
    for model, simd in ((False, "sse2"), (False, "avx2"), (True, "sse2")):
        got = np.empty(w.shape[1], np.uint32)
        with _simd(simd):
            NATIVE.fma(w[0].copy(), w[1].copy(), w[2].copy(), got, bh, model)
        bad = np.flatnonzero(got != want)
        assert not len(bad), [(simd, hex(w[0][i]), hex(w[1][i]), hex(w[2][i]), hex(got[i]), hex(want[i]))
                              for i in bad[:5]]


@contextlib.contextmanager
def _simd(name):
    """The compiled multiply-add's vector form ``name`` ("sse2", "avx2": where the CPU has
    it, else SSE2) while the block runs."""
    before = NATIVE.simd(None)
    try:
        NATIVE.simd(name)
        yield
    finally:
        NATIVE.simd(before)


@needs_native
def test_fma_special_operands_exhaustively():
    """Every combination of three special patterns (and small neighbourhoods), both arches."""
    s = np.unique(np.concatenate([SS.SPECIAL32, SS.SPECIAL32 + 1, SS.SPECIAL32 - 1]).astype(np.uint32))
    x, y, z = (a.ravel() for a in np.meshgrid(s, s, s, indexing="ij"))
    w = np.stack([x, y, z]).astype(np.uint32)
    for bh, rules in ((False, WORMHOLE), (True, BLACKHOLE)):
        want = fma_rows(w, rules)
        for simd in ("sse2", "avx2"):  # (both vector forms of the float64 one)
            got = np.empty(w.shape[1], np.uint32)
            with _simd(simd):
                NATIVE.fma(w[0].copy(), w[1].copy(), w[2].copy(), got, bh, False)
            np.testing.assert_array_equal(got, want, err_msg=simd)


def _compare(arch, seed, body=None, lanes=True):
    got, _, n = TB.play(arch, seed, "batch", body, lanes, native=NATIVE)
    want, _, m = TB.play(arch, seed, "batch", body, lanes, native=None)
    SS.assert_same(got, want)
    assert n == m
    ref, _, _ = TB.play(arch, seed, "reference", body, lanes)
    SS.assert_same(got, ref)
    return n


@needs_native
@settings(max_examples=120, deadline=None)
@given(arch=st.sampled_from(ARCHES), seed=st.integers(0, 2**31))
def test_runs_match_python(arch, seed):
    _compare(arch, seed)


@needs_native
@settings(max_examples=80, deadline=None)
@given(arch=st.sampled_from(ARCHES), seed=st.integers(0, 2**31), lanes=st.booleans())
def test_compiled_instructions_match_python(arch, seed, lanes):
    """Programs of the instructions the compiled form covers, with random fields."""
    weights = {m: k for m, k in SS.WEIGHTS.items() if m in SS.NATIVE_KINDS}
    _compare(arch, seed, body=lambda a, rng: SS.program(a, rng, int(rng.integers(3, 31)), weights), lanes=lanes)


@needs_native
@settings(max_examples=40, deadline=None)
@given(arch=st.sampled_from(ARCHES), seed=st.integers(0, 2**31), fmt=st.sampled_from([3, 2, 0, 1]),
       lanes=st.booleans())
def test_kernel_bodies_match_python(arch, seed, fmt, lanes):
    _compare(arch, seed, body=lambda a, rng: SS.kernel_body(a, rng, fmt), lanes=lanes)


@needs_native
@pytest.mark.parametrize("arch", ARCHES)
def test_kernel_body_runs_compiled(arch, monkeypatch):
    """A kernel's body played by MOPs runs through the compiled form."""
    calls = []
    real = type(TB.Tile(arch).tensix.sfpu)._run_native

    def counted(self, t, prog):
        ok = real(self, t, prog)
        calls.append(ok)
        return ok

    monkeypatch.setattr(type(TB.Tile(arch).tensix.sfpu), "_run_native", counted)
    for seed in range(4):
        _compare(arch, seed, body=lambda a, rng: SS.kernel_body(a, rng, 3), lanes=False)
    assert calls and sum(calls) > len(calls) // 2


@needs_native
def test_refuses_bad_operations():
    lreg = np.zeros((17, 32), np.uint32)
    f = np.zeros(32, bool)
    dst = np.zeros(1024 * 16, np.uint16)
    rwc = np.zeros(6, np.int64)
    ok = np.ones(32, bool)
    for op in ([99, 0, 0, 0, 0, 0, 0, 0], [NV.OP_MAD, 17, 0, 0, 0, 0, 0, 0], [NV.OP_LOAD, 0, 0, 0, 0, 0, 0, 0]):
        with pytest.raises(ValueError):
            NATIVE.run(np.array([op], np.int32), lreg, f, f.copy(), dst, rwc, ok, (), 0)
    with pytest.raises((ValueError, TypeError, BufferError)):
        NATIVE.run(np.zeros((1, 8), np.int32), lreg[:8], f, f.copy(), dst, rwc, ok, (), 0)
    assert not lreg.any() and not dst.any()


def _json(manifest, native):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not native:
        env["TTEMU_NATIVE"] = "off"
    p = subprocess.run([sys.executable, "-m", "ttemu", "run", str(manifest), "--json", "--dump-dst"],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    return json.loads(p.stdout)


@needs_native
@pytest.mark.parametrize("name", ["sfpu_exp", "sfpu_relu"])
def test_kernels_say_which_form_ran(name):
    manifest = ROOT / "firmware" / name / f"{name}.toml"
    got, want = _json(manifest, True), _json(manifest, False)
    assert got.pop("kernels")["vector_unit"] == "compiled"
    assert want.pop("kernels")["vector_unit"] == "python"
    assert got == want


def test_built_finds_what_load_gives():
    """fpu_native.built (what ``--json``'s ``kernels`` says for a run that made no
    coprocessor) agrees with load, without importing the Vector Unit's package."""
    from ttemu.tensix.units import fpu_native

    assert fpu_native.built("_sfpu_native", "sfpu") == (NATIVE is not None)
    assert fpu_native.built("_fpu_native") == (fpu_native.MODULE is not None)
    assert not fpu_native.built("_no_such_extension")
