"""Both arches' multiply-add in float64 (sfpu/fma.py: ``fma``, ``fma_rows`` with its direct
and full forms, and ``fma_rows_into``, what the MAD instructions' runners use) against
the arch's step-by-step integer form (itself checked against ttsim's models in
test_sfpu_fma_ttsim.py), on the operand kinds of tests/fma_operands.py: random bit
patterns mixed with NaN, Inf, denormals, signed zeros, cancellations, ties, addends
shifted partly or wholly out (the semi-sticky shift), products that underflow or overflow
on their own, results near the smallest normal, Wormhole's normalisation by two;
hypothesis draws the seeds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fma_operands import KINDS, operands
from ttemu.tensix.units.sfpu.fma import (BLACKHOLE, WORMHOLE, _direct, _full, fma, fma_bh, fma_bh_plain, fma_rows,
                                         fma_rows_into, fma_wh, fma_wh_plain)

U32 = np.uint32
RULES = {"wormhole_b0": WORMHOLE, "blackhole": BLACKHOLE}
INTO = {arch: fma_rows_into(32, rules) for arch, rules in RULES.items()}  # (results in buffers of their own)
ARCHES = st.sampled_from(sorted(RULES))


def _bad(w, got, want):
    bad = np.nonzero(got != want)[0]
    return [(hex(w[0, i]), hex(w[1, i]), hex(w[2, i]), hex(got[i]), hex(want[i])) for i in bad[:4]]


@settings(max_examples=500, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.integers(0, KINDS - 1), arch=ARCHES)
def test_fma_matches_plain(seed, kind, arch):
    rules = RULES[arch]
    w = np.stack(operands(np.random.default_rng(seed), kind))
    got = fma(w[0], w[1], w[2], rules)
    assert got.dtype == U32 and got.shape == (32,)
    assert not _bad(w, got, rules.plain(w[0], w[1], w[2]))


def _cases(rows):
    return (np.array(col, dtype=U32) for col in zip(*rows))


def test_fma_bh_cases():
    """Hand-picked lanes of each path of Blackhole's model, the expected bits worked out
    from the model's rules (the page's FMA model), not taken from either implementation."""
    cases = [  # x, y, z, x * y + z as the model's rules give it
        # 0x813a77 * 0xc00000 ends exactly half an ulp up; the tiny addend is shifted out
        # without a sticky bit, so the tie goes to even
        (0xBD813A77, 0xB6C00000, 0x91C022EE, 0x34C1D7B2),
        # (1 + 2**-23) + 2**-25 (1 + 2**-23): a quarter ulp and a sticky bit, rounds down
        (0x3F800001, 0x3F800000, 0x33000001, 0x3F800001),
        (0x80000000, 0x3F800000, 0x80000000, 0x80000000),  # -0 * 1 + -0 = -0
        (0x3F800000, 0x807FFFFF, 0x80000000, 0x80000000),  # a denormal reads as -0: -0 + -0
        (0x3F800000, 0x80000000, 0x00000000, 0x00000000),  # -0 + +0 = +0
        (0x00800000, 0x00800000, 0xBF800000, 0xBF800000),  # 2**-252 counts as zero: -1
        (0x00800000, 0x3F7FFFFF, 0x00000000, 0x00800000),  # 2**-126 (1 - 2**-24) rounds up to normal
        (0x00800000, 0x3F000000, 0x00000000, 0x00000000),  # 2**-127: denormal, flushed
        (0x7F000000, 0x40800000, 0xFF7FFFFF, 0x7F800000),  # 2**129 overflows on its own: +inf
        (0x7F000000, 0x40800000, 0xFF800000, 0xFF800000),  # ... plus -inf: -inf
        (0x7F800000, 0x00000000, 0x3F800000, 0x7FC00000),  # inf * 0: the NaN
        (0x3FF80000, 0x3FF80000, 0x3E800009, 0x40802001),  # a shift by two: bit 1 is sticky
    ]
    x, y, z, want = _cases(cases)
    assert list(fma_bh(x, y, z)) == list(want)
    assert list(fma_bh_plain(x, y, z)) == list(want)


def test_fma_wh_cases():
    """Hand-picked lanes of each path of Wormhole's model where it differs from
    Blackhole's (the README's list), the expected bits worked out from the model's rules."""
    cases = [
        (0x80000000, 0x3F800000, 0x80000000, 0x00000000),  # -0 * 1 + -0: every zero is +0
        (0x3F800000, 0x807FFFFF, 0x80000000, 0x00000000),
        # 1.9375**2 + 2**-2 (1 + 9 * 2**-23): the sum 0x10040012 (units of 2**-26) is shifted
        # right by two, bit 1 dropped: a tie (Blackhole: 0x40802001), to even
        (0x3FF80000, 0x3FF80000, 0x3E800009, 0x40802000),
        # 2**-126 (1 - 2**-24): exponent 0 rounded as normal, no carry: flushed (Blackhole rounds
        # the denormal up to 2**-126); 2**-127 (2 - 2**-22) (1 + 2**-23): rounds up to 2**-126
        (0x00800000, 0x3F7FFFFF, 0x00000000, 0x00000000),
        (0x00FFFFFE, 0x3F000001, 0x00000000, 0x00800000),
        # 2**129 overflows on its own, plus -inf: NaN (0x7f800001 with the product's sign; the
        # parts cancel); plus +inf: +inf
        (0x7F000000, 0x40800000, 0xFF800000, 0x7F800001),
        (0x7F000000, 0x40800000, 0x7F800000, 0x7F800000),
        (0x7F800000, 0x3F800000, 0xFF800000, 0x7F800001),  # inf - inf: the parts cancel
        # inf * 0 + 1.5: NaN, and the product taken as zero leaves the addend's bits: 0x7f800001 | 1.5
        (0x7F800000, 0x00000000, 0x3FC00000, 0x7FC00001),
        # a NaN addend: 0x7f800001 with its sign; its exponent (255) makes the sum's too: the
        # payload is not OR-ed in
        (0x3F800000, 0x3F800000, 0xFFC00000, 0xFF800001),
        # a NaN factor times -2**-100: the sum's exponent is below 255, so the NaN's mantissa
        # bits are OR-ed into 0x7f800001 with the product's sign
        (0x7F812344, 0x8D800000, 0x00000000, 0xFF812345),
    ]
    x, y, z, want = _cases(cases)
    assert list(fma_wh(x, y, z)) == list(want)
    assert list(fma_wh_plain(x, y, z)) == list(want)


def test_fma_broadcasts():
    """Scalars and other shapes go through the same model."""
    a = np.array([[0x3F800000, 0x40000000], [0xC0400000, 0x00000001]], dtype=U32)
    for rules in RULES.values():
        assert np.array_equal(fma(a, 0x40000000, 0x3F800000, rules), rules.plain(a, 0x40000000, 0x3F800000))
        assert fma(a, 0x40000000, 0x3F800000, rules).shape == (2, 2)


_LOW = np.array((np.float64(2.0 ** -126).view(np.uint64) << np.uint64(1)) - np.uint64(2), dtype=np.uint64)


def _fma_bh_rows_previous(w):
    """A previous spelling of Blackhole's full form (Python-scalar constants, the
    product's underflow test as floor(2**(p_e - 127) * 2**127)), kept as a reference."""
    with np.errstate(all="ignore"):
        ex = w & U32(0x7F800000)
        f = w.view(np.float32).astype(np.float64)
        g = ex.view(np.float32).astype(np.float64)
        np.multiply(f[0], f[1], out=f[1])
        np.multiply(g[0], g[1], out=g[1])
        big = np.maximum(g[1], g[2])
        ok = big < 2.0 ** 128
        np.maximum(big, 2.0 ** -900, out=big)
        inv = 2.0 ** 26 / big
        gp = g[1]
        gp *= 2.0 ** 127
        np.floor(gp, out=gp)
        v = f[1:]
        v *= np.sign(g[1:])
        q = np.abs(v)
        q *= inv
        e = q + 2.0 ** 53
        e -= 2.0 ** 53
        s = np.sign(q - e)
        np.minimum(s, np.floor(q), out=s)
        e += s
        np.copysign(e, v, out=e)
        total = e[0] + e[1]
        total /= inv
        r = total.astype(np.float32).view(U32)
        key = total.view(np.uint64) << np.uint64(1)
        key -= np.uint64(2)
        flag = np.less_equal(ok, key < _LOW)
        if np.count_nonzero(flag):
            r = np.where(flag, fma_bh_plain(w[0], w[1], w[2]), r)
        return r


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.integers(0, KINDS - 1))
def test_fma_bh_rows_matches_previous_form(seed, kind):
    """Blackhole's fma_rows (array constants, the underflow test folded into one scaling)
    against its previous spelling, bit for bit, on the same operand mixes."""
    w = np.stack(operands(np.random.default_rng(seed), kind))
    before = w.copy()
    got = fma_rows(w, BLACKHOLE)
    assert np.array_equal(w, before)  # not modified
    assert not _bad(w, got, _fma_bh_rows_previous(w.copy()))


def _base(rng, lo, hi):
    return ((rng.integers(0, 1 << 23, (3, 32)) | (rng.integers(lo, hi, (3, 32)) << 23)
             | (rng.integers(0, 2, (3, 32)) << 31)).astype(U32))


@pytest.mark.parametrize("arch", sorted(RULES))
def test_fma_rows_skipped_steps_each_lane_kind(arch):
    """fma_rows skips its flush step and its search for the lanes the step-by-step form
    computes when tests show they change nothing: ordinary lanes with one lane of each
    kind that must not be skipped (a product underflowing on its own, alone or next to
    zero products; a denormal factor or addend; zero factors and addends, which may be
    skipped; NaN, infinity, a product overflowing on its own; results that are zero,
    denormal, 2**-126 or just above; Wormhole's normalisation by two) against the
    step-by-step form, lane by lane."""
    rules = RULES[arch]
    base = _base(np.random.default_rng(3), 110, 140)
    lanes = [  # (x, y, z) for lanes 5 and 21, optionally lane 9 too
        [(0x20000000, 0x1F000000, 0x3F800000)],  # p_e < 0 (2**-64 * 2**-65)
        [(0x20000000, 0x1F000000, 0x3F800000), (0, 0x3F800000, 0x3F800000)],  # ... and a zero product
        [(0, 0x40000000, 0x3F800000), (0x80000000, 0x3F800000, 0)],  # zero products and addends only
        [(0x3F800000, 0x3F800000, 0x00000001)], [(0x80000003, 0x7F000000, 0x3F800000)],  # denormals
        [(0x7FC00000, 0x3F800000, 0)], [(0x7F800000, 0, 0x3F800000)], [(0x7F000000, 0x7F000000, 0)],
        [(0x3F800000, 0x3F800000, 0xBF800000)],  # 1 - 1 = +0
        [(0x00800000, 0x3F000000, 0)], [(0x00800000, 0x3F7FFFFF, 0)], [(0x00800000, 0x40000000, 0)],
        [(0x00FFFFFE, 0x3F000001, 0)],  # exponent 0 rounding up to 2**-126
        [(0x01000000, 0x3F800000, 0x80800000)],  # 2**-125 - 2**-126
        [(0x3FF80000, 0x3FF80000, 0x3E800009), (0xBFF80000, 0x3FF80000, 0xBE800009)],  # shifts by two
    ]
    for group in lanes:
        w = base.copy()
        for lane, (x, y, z) in zip((5, 21, 9), group * 2):
            w[:, lane] = (x, y, z)
        want = rules.plain(w[0], w[1], w[2])
        got = fma_rows(w, rules)
        assert not _bad(w, got, want)
        assert not _bad(w, INTO[arch](w), want)
        if rules is BLACKHOLE:
            assert np.array_equal(got, _fma_bh_rows_previous(w.copy()))


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.integers(0, KINDS - 1), special=st.sampled_from([0.0, 0.01, 0.15]),
       arch=ARCHES)
def test_fma_direct_and_full_forms_match_plain(seed, kind, special, arch):
    """Both forms fma_rows chooses between, each on its own, and fma_rows_into: the
    direct form where it gives a result (operand mixes with few or no special values, so
    that it often does), and the full form always, against the step-by-step form bit for
    bit; fma_rows_into leaves its operands alone."""
    rules = RULES[arch]
    rng = np.random.default_rng(seed)
    w = np.stack(operands(rng, kind, special=special))
    if kind == 0 and special == 0.0:  # ordinary exponents: the direct form's usual case
        w = (w & U32(0x807FFFFF)) | (rng.integers(100, 150, (3, 32)).astype(U32) << 23)
    before = w.copy()
    want = rules.plain(w[0], w[1], w[2])
    with np.errstate(all="ignore"):
        direct = _direct(w, rules)
        full = _full(w, rules)
    assert not _bad(w, full, want)
    assert not _bad(w, INTO[arch](w), want)
    assert np.array_equal(w, before)
    if direct is not None:
        assert not _bad(w, direct, want)
    if kind == 0 and special == 0.0:
        assert direct is not None


@pytest.mark.parametrize("arch", sorted(RULES))
def test_fma_rows_into_zero_results_and_unit_parts(arch):
    """fma_rows_into keeps exactly-zero results where the product is not zero (exact
    cancellations, +0 whatever the signs; on Wormhole every zero result, +0) and
    otherwise falls back for a zero sum of zero parts (Blackhole: its sign is the AND of
    theirs) and for denormal results; it looks for parts with 0 < |v| < 1 where v's
    nearest even integer is 0 (so |v| = 1 exactly, in units of g = 2**(max exponent -
    153), takes that test too); products at the bound of its joint range test (p_e = 0
    kept, p_e = -1 flushed): each against the step-by-step form, lane by lane, amid
    ordinary lanes; its result buffer is reused (copy it at once)."""
    rules = RULES[arch]
    into = INTO[arch]
    base = _base(np.random.default_rng(11), 120, 135)
    groups = [
        [(0x3FC00000, 0x40000000, 0xC0400000), (0xBF800000, 0x4B400005, 0x4B400005)],  # 1.5*2 - 3, -x + x: +0
        [(0x3F800000, 0xBF800000, 0x3F800000)],  # -1 + 1 = +0 (opposite signs)
        [(0x80000000, 0x3F800000, 0x80000000)],  # -0 * 1 + -0 = -0 (Wormhole: +0)
        [(0x80000000, 0x3F800000, 0x80000000), (0x3F800000, 0x3F800000, 0xBF800000)],  # -0 and a cancellation
        [(0, 0xBF800000, 0x80000000)], [(0, 0x3F800000, 0)],  # +0 * -1 + -0 = -0; +0
        [(0x00800000, 0x3F800000, 0x80800001)],  # 2**-126 - (2**-126 + 1 ulp): a denormal result
        [(0x3F800000, 0x3F800000, 0x33800000)],  # 1 + 2**-24: |C / g| = 2**2
        [(0x3F800000, 0x3F800000, 0x32800000)],  # 1 + 2**-26: |C / g| = 1 exactly
        [(0x3F800000, 0x3F800000, 0xB2800000)],  # 1 - 2**-26
        [(0x3F800000, 0x3F800000, 0x32000000), (0x3F800001, 0x3F800000, 0x32800000)],  # 2**-27 (|v| < 1) and 1
        [(0x3F800000, 0x3F800000, 0x32400000)],  # 1 + 1.5 * 2**-27: 0 < |v| < 1
        # P = 1 + 2**-11 + 2**-24, half way between FP32 neighbours: an addend of 2**-27 (|v| < 1)
        # must leave the tie (to even), one of 2**-26 (|v| = 1) breaks it upwards
        [(0x3F800800, 0x3F800800, 0x32000000)], [(0x3F800800, 0x3F800800, 0x32800000)],
        [(0x20000000, 0x1F800000, 0x01000000)], [(0x20400000, 0x9F800000, 0x01000000)],  # p_e = 0: kept
        [(0x20000000, 0x1F000000, 0x01000000), (0x20000000, 0x1F800000, 0x01000000)],  # p_e = -1: flushed
        [(0x3F800800, 0xBF800800, 0xB2000000), (0x3F800800, 0x3F800800, 0x32800000)],
        [(0x3FF80000, 0x3FF80000, 0x3E800009)],  # a shift by two deciding the rounding
    ]
    for group in groups:
        w = base.copy()
        for lane, (x, y, z) in zip((3, 17, 30), group * 2):
            w[:, lane] = (x, y, z)
        want = rules.plain(w[0], w[1], w[2])
        got = into(w)
        assert not _bad(w, got, want)
        assert np.array_equal(got, _full(w, rules))
    got = into(base)
    first = got.copy()
    into(base[::-1].copy())
    assert np.array_equal(first, rules.plain(*base))
    assert got is into(base) and got.dtype == U32
