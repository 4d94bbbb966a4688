"""The Matrix Unit datapath's fast forms (dot, accumulate) against their plain ones
(dot_plain, accumulate_plain in fpu_datapath.py), on
random bit patterns: Src values of every exponent (zero, the top exponent), Dst values
(zero, exponent-0 patterns, 255, negative), all four fidelity phases, mixed with
special values; hypothesis draws the seeds (and shrinks to a failing one)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ttemu.tensix.units import fpu_datapath as FD

SRC_SPECIAL = np.array([0, 0xFF, 0x1F, 0x40000, 0x3FFFF, 0x7FFFF, 0x400FF, 0x3FF00, 0x7F, 0x80, 0x101, 0x40101])
DST_SPECIAL = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FFFFF, 0x3F800000, 0x00800000, 0x80000001,
                        0xBF800000, 0xC0001000, 0x7F7FFFFF], dtype=np.uint32)


def _mix(rng, shape, hi, special, dtype):
    x = rng.integers(0, hi, size=shape, dtype=np.uint64).astype(dtype)
    pick = rng.random(shape) < rng.random()  # from none to all special values
    x[pick] = rng.choice(special, size=int(pick.sum())).astype(dtype)
    return x


def _both(terms, ed, ds, fp32_acc, exp8):
    got = FD.accumulate(terms, ed, ds, fp32_acc, exp8)
    want = FD.accumulate_plain(terms, ed, ds, fp32_acc, exp8)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def _dst(rng, fp32_acc, fp16, rows=8):
    dst = _mix(rng, (rows, 16), 1 << 32, DST_SPECIAL, np.uint32)
    if not fp32_acc:  # a 16-bit Dst: BF16 (<< 16) or FP16 in the FP32 layout
        dst = FD.dst_in_fp16(dst & np.uint32(0xFFFF)).astype(np.uint32) if fp16 else dst & np.uint32(0xFFFF0000)
    return FD.dst_decode(dst)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), phase=st.integers(0, 3),
       style=st.sampled_from([(False, True), (False, False), (True, False)]), fp32_acc=st.booleans())
def test_mvmul_accumulate_matches_plain(seed, phase, style, fp32_acc):
    rng = np.random.default_rng(seed)
    fp16, bf16 = style
    a = _mix(rng, (16, 16), 1 << 19, SRC_SPECIAL, np.int64)
    b = _mix(rng, (8, 16), 1 << 19, SRC_SPECIAL, np.int64)
    ed, ds = _dst(rng, fp32_acc, fp16)
    terms = FD.dot(a, b, fp16, bf16, fp32_acc, phase)
    for (e, m), (e0, m0) in zip(terms, FD.dot_plain(a, b, fp16, bf16, fp32_acc, phase)):
        np.testing.assert_array_equal(e, e0)
        np.testing.assert_array_equal(m, m0)
    _both(terms, ed, ds, fp32_acc, not fp16)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), phase=st.integers(0, 3), rows=st.sampled_from([1, 4]),
       style=st.sampled_from([(False, True), (False, False), (True, False)]), fp32_acc=st.booleans())
def test_dot_fewer_rows_matches_plain(seed, phase, rows, style, fp32_acc):
    """GAPOOL (4 SrcB rows) and broadcast MVMUL (1 row) take the same path."""
    rng = np.random.default_rng(seed)
    a = _mix(rng, (16, 16), 1 << 19, SRC_SPECIAL, np.int64)
    b = _mix(rng, (rows, 16), 1 << 19, SRC_SPECIAL, np.int64)
    for (e, m), (e0, m0) in zip(FD.dot(a, b, *style, fp32_acc, phase), FD.dot_plain(a, b, *style, fp32_acc, phase)):
        assert e.shape == e0.shape == (rows, 16)
        np.testing.assert_array_equal(e, e0)
        np.testing.assert_array_equal(m, m0)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), nterms=st.integers(1, 2), fp32_acc=st.booleans(), exp8=st.booleans())
def test_accumulate_raw_terms_match_plain(seed, nterms, fp32_acc, exp8):
    """Partial sums of any exponent (negative: below the Dst's range) and mantissa, the
    Dst 16- or 32-bit, including rounding ties and sums that cancel to -1."""
    rng = np.random.default_rng(seed)
    e = rng.integers(-40, 300, size=(2, 8, 16))
    v = rng.integers(-(1 << 28), 1 << 28, size=(2, 8, 16))
    v[rng.random((2, 8, 16)) < 0.2] = rng.choice([0, -1, 1, -2, 2, 4096, -4096, 8192, -8192])
    v[rng.random((2, 8, 16)) < 0.2] &= ~0xFFF  # low bits clear: ties after alignment
    ed, ds = _dst(rng, fp32_acc, not exp8)
    same = rng.random((2, 8, 16)) < 0.3  # some terms at the Dst's exponent
    e[same] = np.broadcast_to(ed, (2, 8, 16))[same]
    _both([(e[i], v[i]) for i in range(nterms)], ed, ds, fp32_acc, exp8)


def test_accumulate_negative_dst_tie():
    """A negative 16-bit Dst value aligned onto a tie (low 13 bits 0x1000) rounds half
    away from zero before the sum (fpu_datapath module docstring)."""
    ed = np.array([[120] * 16], np.int64)
    ds = -(np.arange(16, dtype=np.int64) + 1) << 17  # 2 x BF16 mantissas, negative
    terms = [(np.full((1, 16), 125, np.int64), np.zeros((1, 16), np.int64))]
    for fp32_acc in (False, True):
        _both(terms, ed, ds, fp32_acc, True)


def test_accumulate_minus_one_unit():
    """A sum of exactly -1 unit with an FP32 Dst comes out as sign | exponent + 4 | 0."""
    ed = np.zeros((1, 16), np.int64)
    ds = np.zeros((1, 16), np.int64)
    terms = [(np.full((1, 16), 100, np.int64), np.full((1, 16), -2, np.int64))]
    got = FD.accumulate(terms, ed, ds, True, True)
    np.testing.assert_array_equal(got, FD.accumulate_plain(terms, ed, ds, True, True))
    assert (got == np.uint32(0x80000000 | 104 << 23)).all()


@pytest.mark.parametrize("fp16", [False, True])
def test_lookup_tables_match_plain(fp16):
    """The Src value and exponent tables (built as outer products) equal the ones built
    from src_parts of every 19-bit pattern, bit for bit (signed zeros included)."""
    got = FD._exp_table(fp16)
    want = FD._exp_table_plain(fp16)
    assert got.dtype == want.dtype and got.shape == want.shape == (1 << 19,)
    np.testing.assert_array_equal(got, want)
    for bf16 in (False, True):
        for operand in "AB":
            for part in (0, 1):
                got = FD._value_table(fp16, bf16, operand, part)
                want = FD._value_table_plain(fp16, bf16, operand, part)
                assert got.dtype == want.dtype == np.float64 and got.shape == want.shape
                np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
