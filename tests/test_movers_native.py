"""The data movers' compiled routes (ttemu/tensix/units/movers_native.c) pinned bit for bit
against their pure-Python path, which runs without the extension or with
``TTEMU_NATIVE=off``:

* ``pack_rows`` against pack.py's row forms (FP32 / BF16 / FP16 from a 32- or 16-bit
  Dst, BF16 as FP32) and the histogram's largest exponent, on Dst bits with special
  values (NaN / infinity patterns, denormals, zeros of either sign, FP16's undefined
  2**-15 < |x| < 2**-14), partial, whole-row and several-interface spans, with and without
  Blackhole's Dst remap and swizzle;
* ``unpack_rows`` against unpack_convert and the row writes (BF16 / FP16 / FP32 / TF32 to
  Src, Dst16 and Dst32);
* ``move16`` against move16_rows (MOVA2D to a 16-bit Dst), Src bits above 18 included;
* whole kernels and the scaling benchmark's sets at small sizes, both arches: the same
  L1, Dst, Src, histogram, warnings and steps with the compiled routes as without them,
  and the compiled routes are the ones taken.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ttemu.tensix.formats import DataFormat, unpack_convert
from ttemu.tensix.units import pack as P
from ttemu.tensix.units.fpu_native import load
from ttemu.tensix.units.math import move16_rows

NATIVE = load("_movers_native")
needs_native = pytest.mark.skipif(NATIVE is None, reason="movers_native not built (no C compiler at install)")
ROOT = pathlib.Path(__file__).resolve().parent.parent
ARCHES = ("wormhole_b0", "blackhole")
_F = DataFormat


def _special16(rng, n, layout):
    """16-bit register patterns, a third of them special for ``layout`` ("bf16": Dst16 BF16,
    sign man7 exp8; "fp16": Dst16 FP16, sign man10 exp5; "ieee16" / "ieee32": L1 datums)."""
    v = rng.integers(0, 1 << 16, size=n, dtype=np.uint32)
    pick = rng.integers(0, 12, size=n)
    if layout == "bf16":
        exp_mask, exp_one, exp_112 = 0xFF, 0xFF, 112
    elif layout == "fp16":
        exp_mask, exp_one, exp_112 = 0x1F, 0x1F, 0x1F
    else:  # IEEE BF16 / FP16 / FP32 high half: exponent bits 14..7 (BF16) or 14..10 (FP16)
        exp_mask, exp_one, exp_112 = 0x7F80, 0x7F80, 112 << 7
    v = np.where(pick == 0, v & ~np.uint32(exp_mask), v)                  # exponent 0: zeros, denormals
    v = np.where(pick == 1, v | np.uint32(exp_one), v)                     # exponent all ones: inf / NaN
    v = np.where(pick == 2, np.uint32(0x8000), v)                          # -0
    v = np.where(pick == 3, np.uint32(0), v)                               # +0
    v = np.where(pick == 4, np.uint32(0xFFFF), v)
    v = np.where(pick == 5, (v & ~np.uint32(exp_mask)) | np.uint32(exp_112), v)  # FP32 exponent 112
    v = np.where(pick == 6, (v & ~np.uint32(exp_mask)) | np.uint32(1 if layout != "ieee16" else 0x80), v)
    return v.astype(np.uint16)


def _dst(rng, layout):
    bits = _special16(rng, 1024 * 16, layout).reshape(1024, 16)
    low = rng.integers(0, 3, size=(1024, 16))
    # low halves of Dst32 rows: some zero (exact values), some all ones, the rest random
    return np.where(low == 0, bits & 0, bits).astype(np.uint16)


# -- PACR's row forms -----------------------------------------------------------------------------
_PY_FORMS = {0: P.fp32_rows_bytes, 1: P.fp32_rows_bf16_bytes_ref, 2: P.fp32_rows_fp16_bytes,
             3: P._bf16_rows_form, 4: P._fp16_rows_form, 5: P._bf16_fp32_rows_form}
_LAYOUT = {0: "bf16", 1: "bf16", 2: "bf16", 3: "bf16", 4: "fp16", 5: "bf16"}


def test_native_forms_are_the_row_forms_named():
    """pack.py hands pack_rows the codes its row forms stand for (the Python form the
    tests below compare each code with)."""
    assert {k: v[0] for k, v in P._NATIVE_FORMS.items()} == {
        P.fp32_rows_bytes: 0, P.fp32_rows_bf16_bytes: 1, P.fp32_rows_fp16_bytes: 2, P._bf16_rows_form: 3,
        P._fp16_rows_form: 4, P._bf16_fp32_rows_form: 5}


spans_case = st.one_of(
    st.tuples(st.integers(0, 1023), st.integers(0, 15), st.integers(1, 16)).map(
        lambda s: ((s[0], s[1], min(s[2], 16 - s[1])),)),                                       # one span
    st.tuples(st.integers(0, 1023), st.integers(1, 64)).map(lambda s: P.whole_rows(*s)),     # whole rows
    st.lists(st.tuples(st.integers(0, 1023), st.integers(0, 15), st.integers(1, 16)), min_size=2, max_size=4).map(
        lambda ss: tuple((r, c, min(n, 16 - c)) for r, c, n in ss)),                          # interfaces
)


@needs_native
@settings(max_examples=300, deadline=None)
@given(form=st.integers(0, 5), spans=spans_case, remap=st.integers(0, 1), swizzle=st.integers(0, 1),
       seed=st.integers(0, 2**32 - 1), code_word=st.booleans())
def test_pack_rows_match_the_python_row_forms(form, spans, remap, swizzle, seed, code_word):
    rng = np.random.default_rng(seed)
    bits = _dst(rng, _LAYOUT[form])
    if form < 3:  # a 32-bit Dst's low halves: random bits too
        bits[rng.integers(0, 2, size=1024).astype(bool)] = rng.integers(0, 1 << 16, size=16, dtype=np.uint16)
    want = _PY_FORMS[form](bits, spans, (remap, swizzle))
    l1 = bytearray(rng.integers(0, 256, size=8192, dtype=np.uint8).tobytes())
    is_code = bytearray(2048)
    addr = 16 * int(rng.integers(0, 32))
    n = sum(k for _, _, k in spans)
    width = 4 if form in (0, 5) else 2
    if code_word:
        is_code[(addr >> 2) + int(rng.integers(0, (n * width + 3) >> 2))] = 1
    before = bytes(l1)
    got = NATIVE.pack_rows(form, bits, spans, remap, swizzle, l1, addr, is_code)
    if want is None:  # (FP16 output: a datum the chain reports as undefined)
        assert got == -1 and bytes(l1) == before
        return
    vals, data = want
    assert bytes(l1[addr:addr + len(data)]) == data
    assert bytes(l1[:addr]) == before[:addr] and bytes(l1[addr + len(data):]) == before[addr + len(data):]
    exps = (vals >> 10) & 0x1F if form == 4 else (vals & 0x7F80) >> 7
    assert got & 0xFFFF == int(exps.max())
    assert got >> 16 == int(code_word)


@needs_native
@pytest.mark.parametrize("form", range(6))
def test_pack_rows_on_every_16_bit_pattern(form):
    """Every Dst pattern (the high halves; low halves 0, 0x7fff, 0x8000, 0xffff for a 32-bit
    Dst) through whole rows, against the Python form (and the table form of
    fp32_rows_bf16_bytes)."""
    pats = np.arange(1 << 16, dtype=np.uint16)
    for low in ((0, 0x7FFF, 0x8000, 0xFFFF) if form < 3 else (None,)):
        for chunk in range(0, 1 << 16, 256 * 16):  # 256 rows of Dst at a time
            bits = np.zeros((1024, 16), dtype=np.uint16)
            if form < 3:  # Dst32 rows: high halves in AdjRow, low halves 8 rows further
                rows = np.arange(256)
                adj = ((rows & 0x1F8) << 1) | (rows & 0x207)
                bits[adj] = pats[chunk:chunk + 4096].reshape(256, 16)
                bits[adj + 8] = low
            else:
                bits[:256] = pats[chunk:chunk + 4096].reshape(256, 16)
            spans = P.whole_rows(0, 256)
            l1 = bytearray(4 * 4096)
            got = NATIVE.pack_rows(form, bits, spans, 0, 0, l1, 0, bytearray(4096))
            forms = [_PY_FORMS[form]] + ([P.fp32_rows_bf16_bytes] if form == 1 else [])
            for f in forms:
                want = f(bits, spans, (0, 0))
                if want is None:
                    assert got == -1
                    continue
                assert bytes(l1[:len(want[1])]) == want[1]


@needs_native
def test_pack_rows_refuses_what_it_cannot_do():
    bits = np.zeros((1024, 16), dtype=np.uint16)
    l1 = bytearray(64)
    for args in ((0, bits, ((0, 0, 16),), 0, 0, l1, 16, bytearray(16)),      # 64 bytes from 16: beyond L1
                 (9, bits, ((0, 0, 16),), 0, 0, l1, 0, bytearray(16)),       # no form 9
                 (3, bits, ((0, 8, 16),), 0, 0, l1, 0, bytearray(16)),       # a span across rows
                 (3, bits[:8], ((0, 0, 16),), 0, 0, l1, 0, bytearray(16))):  # not a whole Dst
        with pytest.raises((ValueError, TypeError, BufferError)):
            NATIVE.pack_rows(*args)
    assert not any(l1)


# -- UNPACR's conversions --------------------------------------------------------------------------
#: unpack_rows kind -> (InDataFormat, OutDataFormat, to Dst)
_KINDS = {0: (_F.Float16_b, _F.Float16_b, False), 1: (_F.Float16, _F.Float16, False),
          2: (_F.Float16_b, _F.Float16_b, True), 3: (_F.Float16, _F.Float16, True),
          4: (_F.Float32, _F.Float32, True), 5: (_F.Float32, _F.Tf32, False), 6: (_F.Float32, _F.Float16_b, False)}


def test_native_kinds_are_the_conversions_named():
    from ttemu.tensix.units.unpack import _NATIVE_KINDS

    for key, (kind, nbytes) in _NATIVE_KINDS.items():
        in_fmt, out_fmt, to_dst = _KINDS[kind]
        assert key[2] == to_dst and nbytes == (4 if in_fmt is _F.Float32 else 2)
        # (FP32 / TF32 -> Dst32 are one layout: dst32_from_fp32)
        assert key[:2] == (in_fmt, out_fmt) or (kind == 4 and _F.Tf32 in key[:2] and key[0] in (_F.Float32, _F.Tf32))


@needs_native
@settings(max_examples=300, deadline=None)
@given(kind=st.integers(0, 6), nrows=st.integers(1, 64), per=st.sampled_from([None, 16, 32]),
       gap=st.sampled_from([0, 4, 64]), seed=st.integers(0, 2**32 - 1))
def test_unpack_rows_match_unpack_convert(kind, nrows, per, gap, seed):
    """Datums one after the other (``per`` None) or in rows of ``per`` ``gap`` bytes apart
    (Tileize_mode's RowStride), as _read_l1_rows reads them."""
    in_fmt, out_fmt, to_dst = _KINDS[kind]
    rng = np.random.default_rng(seed)
    wide = in_fmt is _F.Float32
    n = 16 * nrows
    if per is not None and n % per:
        per = 16
    if wide:
        raw = (_special16(rng, n, "ieee32").astype(np.uint32) << 16) | rng.integers(0, 1 << 16, size=n, dtype=np.uint32)
        raw = np.where(rng.integers(0, 4, size=n) == 0, raw & np.uint32(0xFFFF0000), raw).astype("<u4")
    else:
        raw = _special16(rng, n, "ieee16").astype("<u2")
    start = 2 * int(rng.integers(0, 64))
    if per is None:
        l1 = bytearray(start) + bytearray(raw.tobytes()) + bytearray(32)
        per, stride = n, 0
    else:  # rows of per datums, each followed by gap bytes of noise
        stride = per * raw.itemsize + gap
        l1 = bytearray(rng.integers(0, 256, size=start + (n // per) * stride, dtype=np.uint8).tobytes())
        for r in range(n // per):
            at = start + r * stride
            l1[at:at + per * raw.itemsize] = raw[r * per:(r + 1) * per].tobytes()
    vals = unpack_convert(raw.astype(np.uint32), in_fmt, out_fmt, to_dst=to_dst)
    if kind == 4:  # the other conversions the unpackers route to the same kind
        for other in ((_F.Float32, _F.Tf32), (_F.Tf32, _F.Tf32)):
            assert np.array_equal(unpack_convert(raw.astype(np.uint32), *other, to_dst=True), vals)
    if not to_dst:
        dest = rng.integers(0, 1 << 32, size=(64, 16), dtype=np.uint32)
        row = int(rng.integers(0, 64 - nrows + 1))
        want = dest.copy()
        want[row:row + nrows] = (vals & 0x7FFFF).reshape(-1, 16)
    else:
        dest = rng.integers(0, 1 << 16, size=(1024, 16), dtype=np.uint16)
        row = int(rng.integers(0, 1024 - nrows + 1))
        want = dest.copy()
        if kind == 4:
            rows = np.arange(row, row + nrows)
            adj = ((rows & 0x1F8) << 1) | (rows & 0x207)
            want[adj] = (vals >> 16).reshape(-1, 16)
            want[adj + 8] = (vals & 0xFFFF).reshape(-1, 16)
        else:
            want[row:row + nrows] = vals.reshape(-1, 16)
    NATIVE.unpack_rows(kind, l1, start, n, dest, row, per, stride)
    assert np.array_equal(dest, want)


@needs_native
def test_unpack_rows_refuses_what_it_cannot_do():
    src = np.zeros((64, 16), dtype=np.uint32)
    for args in ((0, bytearray(64), 0, 64, src, 0, 64, 0),          # 128 bytes from a 64-byte L1
                 (0, bytearray(4096), 0, 32, src, 0, 16, 4090),     # the second row beyond L1
                 (0, bytearray(4096), 0, 16, src, 64, 16, 0),       # past the bank's 64 rows
                 (0, bytearray(4096), 0, 8, src, 0, 8, 0),          # not whole rows
                 (0, bytearray(4096), 0, 32, src, 0, 24, 48),       # rows of 24 do not make 32
                 (7, bytearray(4096), 0, 16, src, 0, 16, 0)):       # no kind 7
        with pytest.raises((ValueError, TypeError, BufferError)):
            NATIVE.unpack_rows(*args)
    assert not src.any()


# -- MOVA2D ----------------------------------------------------------------------------------------
@needs_native
@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([1, 8]), fp16=st.booleans(), flush=st.booleans())
def test_move16_matches_move16_rows(seed, n, fp16, flush):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 1 << 32, size=(64, 16), dtype=np.uint32)  # bits above 18 too: ignored
    pick = rng.integers(0, 4, size=(64, 16))
    src = np.where(pick == 0, src & ~np.uint32(0xFF), np.where(pick == 1, src | np.uint32(0xFF), src)).astype(np.uint32)
    src_row, dst_row = int(rng.integers(0, 65 - n)), int(rng.integers(0, 1025 - n))
    dst = rng.integers(0, 1 << 16, size=(1024, 16), dtype=np.uint16)
    want = dst.copy()
    want[dst_row:dst_row + n] = move16_rows(src[src_row:src_row + n].copy(), fp16, flush)
    NATIVE.move16(src, src_row, n, dst, dst_row, fp16, flush)
    assert np.array_equal(dst, want)


@needs_native
def test_move16_refuses_rows_outside():
    src, dst = np.zeros((64, 16), np.uint32), np.zeros((1024, 16), np.uint16)
    for args in ((src, 60, 8, dst, 0, 0, 0), (src, 0, 8, dst, 1020, 0, 0), (src[:8], 0, 8, dst, 0, 0, 0)):
        with pytest.raises((ValueError, TypeError, BufferError)):
            NATIVE.move16(*args)
    assert not dst.any()


# -- whole kernels ---------------------------------------------------------------------------------
class _Counting:
    """movers_native with its calls counted (the compiled routes are the ones taken)."""

    def __init__(self, module):
        self.module, self.calls = module, {}

    def __getattr__(self, name):
        fn = getattr(self.module, name)

        def counted(*args):
            self.calls[name] = self.calls.get(name, 0) + 1
            return fn(*args)
        return counted


def _diag(tile):
    return sorted((k, v[1]) for k, v in tile.diagnostics.sites.items())


def _run(path, arch, native):
    from ttemu import Tile
    from ttemu.cmd import manifest as manifest_mod

    man = manifest_mod.load(str(path), arch=arch)
    tile = Tile(arch)
    cop = tile.tensix
    counting = _Counting(NATIVE) if native else None
    cop.pack.native = cop.unpack.native = cop.math.movers = counting
    manifest_mod.load_into(man, tile)
    tile.release(man.release if man.release is not None else tile.default_release())
    res = tile.run(max_steps=man.max_steps, until=list(man.until), idle_steps=man.idle_steps)
    state = (res.outcome, res.steps, bytes(tile.l1), cop.dst.bits.tobytes(), cop.src.data["A"].tobytes(),
             cop.src.data["B"].tobytes(), cop.pack.exponent_histogram_max.tobytes(), _diag(tile),
             {k: (v.issued, v.held_steps) for k, v in enumerate(cop.threads)})
    return state, (counting.calls if counting else {})


KERNELS = {"datacopy_bf16/datacopy_bf16.toml": ("pack_rows", "unpack_rows", "move16"),
           "datacopy_fp32/datacopy_fp32.toml": ("pack_rows", "unpack_rows"),
           "tilize/tilize.toml": ("pack_rows", "unpack_rows", "move16"), "untilize/untilize.toml": ("pack_rows",),
           "eltwise_add/eltwise_add.toml": ("pack_rows", "unpack_rows"),
           "reduce_row/reduce_row_max.toml": ("pack_rows", "unpack_rows"),
           "transpose/transpose.toml": (), "sfpu_relu/sfpu_relu.toml": ("pack_rows", "unpack_rows", "move16"),
           "datacopy_bfp8b/datacopy_bfp8b.toml": ()}


@needs_native
@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("path", sorted(KERNELS))
def test_kernels_give_the_same_tile_with_the_compiled_routes(path, arch):
    (got, calls), (want, _) = _run(ROOT / "firmware" / path, arch, True), _run(ROOT / "firmware" / path, arch, False)
    assert got[0] == "until"
    for a, b in zip(got, want):
        assert a == b
    for name in KERNELS[path]:
        assert calls.get(name), (name, calls)


@needs_native
@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("family,size", [("untilize", 8), ("tilize", 8), ("datacopy", 6), ("sfpu_relu", 4),
                                         ("eltwise", 4), ("reduce", 4), ("matmul_lofi", 16)])
def test_scale_sets_give_the_same_tile_with_the_compiled_routes(family, size, arch, tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import bench_scale
    finally:
        sys.path.pop(0)
    path = tmp_path / f"{family}.toml"
    path.write_text(bench_scale.manifest(family, size, arch, wrap=2))
    (got, calls), (want, _) = _run(path, arch, True), _run(path, arch, False)
    assert got[0] == "until"
    for a, b in zip(got, want):
        assert a == b
    assert calls.get("pack_rows")


@needs_native
def test_json_says_which_form_ran():
    manifest = ROOT / "firmware" / "datacopy_bf16" / "datacopy_bf16.toml"
    out = []
    for native in (True, False):
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        if not native:
            env["TTEMU_NATIVE"] = "off"
        p = subprocess.run([sys.executable, "-m", "ttemu", "run", str(manifest), "--json", "--dump-dst"],
                           capture_output=True, text=True, env=env, cwd=ROOT)
        out.append(json.loads(p.stdout))
    got, want = out
    assert got.pop("kernels")["data_movers"] == "compiled"
    assert want.pop("kernels")["data_movers"] == "python"
    assert got == want


def test_built_finds_what_load_gives():
    from ttemu.tensix.units import fpu_native

    assert fpu_native.built("_movers_native") == (NATIVE is not None)
