"""Blackhole's multiply-add in float64 (sfpu/fp_bh.py ``fma_bh``) against its step-by-step
integer form ``fma_bh_plain`` (itself checked against ttsim's model in
test_bh_sfpu_mad.py), on random bit patterns mixed with NaN, Inf, denormals, signed
zeros, cancellations, ties, addends shifted partly or wholly out (the semi-sticky
shift), products that underflow or overflow on their own and results near the smallest
normal; hypothesis draws the seeds."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ttemu.tensix.units.sfpu.fp_bh import (_fma_bh_direct, _fma_bh_rows, fma_bh, fma_bh_plain, fma_bh_rows,
                                           fma_bh_rows_into)

FMA_BH32 = fma_bh_rows_into(32)  # (what the MAD instructions' runners use: its result in a buffer of its own)

U32 = np.uint32
SPECIAL = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 1, 0x807FFFFF,
                    0x00800000, 0x80800000, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x33800000,
                    0x5F800000, 0x1F800000, 0x00FFFFFF], dtype=U32)


def _with_exponent(rng, v, lo, hi):
    return (v & U32(0x807FFFFF)) | (rng.integers(lo, hi, v.size).astype(U32) << 23)


def _operands(rng, kind, special=0.15):
    a, b, c = (rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(U32) for _ in range(3))
    if kind == 1:  # few mantissa bits: exact products, ties at FP32's last bit
        keep = U32(0xFFFF0000) << rng.integers(0, 9, (3, 32)).astype(U32)
        a, b, c = a & keep[0], b & keep[1], c & keep[2]
    elif kind == 2:  # c ~ -(a * b): cancellation, results far below the operands
        a, b = _with_exponent(rng, a, 60, 190), _with_exponent(rng, b, 60, 190)
        with np.errstate(all="ignore"):
            prod = a.view(np.float32).astype(np.float64) * b.view(np.float32).astype(np.float64)
            c = (-prod).astype(np.float32).view(U32) ^ rng.integers(0, 16, 32).astype(U32)
    elif kind == 3:  # exponent of c around p_e - 40 .. p_e + 30: alignment shifts of every size
        a, b = _with_exponent(rng, a, 90, 160), _with_exponent(rng, b, 90, 160)
        p_e = ((a >> 23) & 255).astype(np.int64) + ((b >> 23) & 255) - 127
        c = (c & U32(0x807FFFFF)) | ((p_e - rng.integers(-30, 41, 32)).clip(1, 254).astype(U32) << 23)
    elif kind == 4:  # tiny products and addends: p_e < 0, results below 2**-126
        a, b = _with_exponent(rng, a, 1, 70), _with_exponent(rng, b, 1, 130)
        c = _with_exponent(rng, c, 0, 30)
    elif kind == 5:  # huge: products overflowing on their own, results rounding to infinity
        a, b = _with_exponent(rng, a, 120, 255), _with_exponent(rng, b, 120, 255)
        c = _with_exponent(rng, c, 200, 256)
    pick = rng.random((3, 32)) < special
    for v, p in zip((a, b, c), pick):
        v[p] = rng.choice(SPECIAL, int(p.sum()))
    return a, b, c


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.integers(0, 5))
def test_fma_bh_matches_plain(seed, kind):
    a, b, c = _operands(np.random.default_rng(seed), kind)
    got = fma_bh(a, b, c)
    assert got.dtype == U32 and got.shape == (32,)
    want = fma_bh_plain(a, b, c)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, [(hex(a[i]), hex(b[i]), hex(c[i]), hex(got[i]), hex(want[i])) for i in bad[:4]]


def test_fma_bh_cases():
    """Hand-picked lanes of each path, the expected bits worked out from the model's rules
    (the page's FMA model), not taken from either implementation."""
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
        (0x7F800000, 0x00000000, 0x3F800000, 0x7FC00000),  # inf * 0: the NaN
    ]
    x, y, z, want = (np.array(col, dtype=U32) for col in zip(*cases))
    assert list(fma_bh(x, y, z)) == list(want)
    assert list(fma_bh_plain(x, y, z)) == list(want)


def test_fma_bh_broadcasts():
    """Scalars and other shapes go through the same model."""
    a = np.array([[0x3F800000, 0x40000000], [0xC0400000, 0x00000001]], dtype=U32)
    assert np.array_equal(fma_bh(a, 0x40000000, 0x3F800000), fma_bh_plain(a, 0x40000000, 0x3F800000))
    assert fma_bh(a, 0x40000000, 0x3F800000).shape == (2, 2)


_LOW = np.array((np.float64(2.0 ** -126).view(np.uint64) << np.uint64(1)) - np.uint64(2), dtype=np.uint64)


def _fma_bh_rows_previous(w):
    """The previous spelling of fp_bh._fma_bh_rows (Python-scalar constants, the product's
    underflow test as floor(2**(p_e - 127) * 2**127)), kept as a reference."""
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
@given(seed=st.integers(0, 2**32 - 1), kind=st.integers(0, 5))
def test_fma_bh_rows_matches_previous_form(seed, kind):
    """fma_bh_rows (array constants, the underflow test folded into one scaling) against
    its previous spelling, bit for bit, on the same operand mixes."""
    w = np.stack(_operands(np.random.default_rng(seed), kind))
    before = w.copy()
    got = fma_bh_rows(w)
    assert np.array_equal(w, before)  # not modified
    want = _fma_bh_rows_previous(w.copy())
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, [(hex(w[0, i]), hex(w[1, i]), hex(w[2, i]), hex(got[i]), hex(want[i])) for i in bad[:4]]


def test_fma_bh_rows_skipped_steps_each_lane_kind():
    """fma_bh_rows skips its flush step and its search for the lanes fma_bh_plain
    computes when tests show they change nothing: ordinary lanes with one lane of each
    kind that must not be skipped (a product underflowing on its own, alone or next to
    zero products; a denormal factor or addend; zero factors and addends, which may be
    skipped; NaN, infinity, a product overflowing on its own; results that are zero,
    denormal, 2**-126 or just above) against fma_bh_plain, lane by lane."""
    rng = np.random.default_rng(3)
    base = ((rng.integers(0, 1 << 23, (3, 32)) | (rng.integers(110, 140, (3, 32)) << 23)
             | (rng.integers(0, 2, (3, 32)) << 31)).astype(U32))
    lanes = [  # (x, y, z) for lanes 5 and 21, optionally lane 9 too
        [(0x20000000, 0x1F000000, 0x3F800000)],  # p_e < 0 (2**-64 * 2**-65)
        [(0x20000000, 0x1F000000, 0x3F800000), (0, 0x3F800000, 0x3F800000)],  # ... and a zero product
        [(0, 0x40000000, 0x3F800000), (0x80000000, 0x3F800000, 0)],  # zero products and addends only
        [(0x3F800000, 0x3F800000, 0x00000001)], [(0x80000003, 0x7F000000, 0x3F800000)],  # denormals
        [(0x7FC00000, 0x3F800000, 0)], [(0x7F800000, 0, 0x3F800000)], [(0x7F000000, 0x7F000000, 0)],
        [(0x3F800000, 0x3F800000, 0xBF800000)],  # 1 - 1 = +0
        [(0x00800000, 0x3F000000, 0)], [(0x00800000, 0x3F7FFFFF, 0)], [(0x00800000, 0x40000000, 0)],
        [(0x01000000, 0x3F800000, 0x80800000)],  # 2**-125 - 2**-126
    ]
    for group in lanes:
        w = base.copy()
        for lane, (x, y, z) in zip((5, 21, 9), group * 2):
            w[:, lane] = (x, y, z)
        got = fma_bh_rows(w)
        want = fma_bh_plain(w[0], w[1], w[2])
        assert np.array_equal(got, want), [(hex(a), hex(b)) for a, b in zip(got, want) if a != b]
        assert np.array_equal(FMA_BH32(w), want)
        assert np.array_equal(got, _fma_bh_rows_previous(w.copy()))


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.integers(0, 5), special=st.sampled_from([0.0, 0.01, 0.15]))
def test_fma_bh_direct_and_full_forms_match_plain(seed, kind, special):
    """Both forms fma_bh_rows chooses between, each on its own: the direct form where it
    gives a result (operand mixes with few or no special values, so that it often does),
    and the full form always, against fma_bh_plain bit for bit."""
    rng = np.random.default_rng(seed)
    w = np.stack(_operands(rng, kind, special))
    if kind == 0 and special == 0.0:  # ordinary exponents: the direct form's usual case
        w = (w & U32(0x807FFFFF)) | (rng.integers(100, 150, (3, 32)).astype(U32) << 23)
    want = fma_bh_plain(w[0], w[1], w[2])
    with np.errstate(all="ignore"):
        direct = _fma_bh_direct(w)
        full = _fma_bh_rows(w)
    assert np.array_equal(full, want)
    assert np.array_equal(FMA_BH32(w), want)
    if direct is not None:
        assert np.array_equal(direct, want)
    if kind == 0 and special == 0.0:
        assert direct is not None


def test_fma_bh_rows_into_zero_results_and_unit_parts():
    """FMA_BH32 keeps exactly-zero results where the product is not zero (exact
    cancellations, +0 whatever the signs) and falls back for a zero sum of zero parts
    (its sign is the AND of theirs) and for denormal results; it looks for parts with
    0 < |v| < 1 where v's nearest even integer is 0 (so |v| = 1 exactly, in units of
    g = 2**(max exponent - 153), takes that test too); products at the bound of its joint
    range test (p_e = 0 kept, p_e = -1 flushed): each against fma_bh_plain, lane by lane,
    amid ordinary lanes."""
    rng = np.random.default_rng(11)
    base = ((rng.integers(0, 1 << 23, (3, 32)) | (rng.integers(120, 135, (3, 32)) << 23)
             | (rng.integers(0, 2, (3, 32)) << 31)).astype(U32))
    groups = [
        [(0x3FC00000, 0x40000000, 0xC0400000), (0xBF800000, 0x4B400005, 0x4B400005)],  # 1.5*2 - 3, -x + x: +0
        [(0x3F800000, 0xBF800000, 0x3F800000)],  # -1 + 1 = +0 (opposite signs)
        [(0x80000000, 0x3F800000, 0x80000000)],  # -0 * 1 + -0 = -0
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
    ]
    for group in groups:
        w = base.copy()
        for lane, (x, y, z) in zip((3, 17, 30), group * 2):
            w[:, lane] = (x, y, z)
        want = fma_bh_plain(w[0], w[1], w[2])
        got = FMA_BH32(w)
        assert np.array_equal(got, want), [(hex(a), hex(b)) for a, b in zip(got, want) if a != b]
        assert np.array_equal(got, _fma_bh_rows(w))
