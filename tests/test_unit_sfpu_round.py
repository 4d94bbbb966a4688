"""Vector Unit round sub-unit and the PRNG: SFPSTOCHRND.md (FloatFloat, FloatInt, IntInt
pages), SFPSHFT2.md, VectorUnit.md ("PRNG"), SFPMOV.md (PRNG read), SFPCAST.md
(stochastic rounding), BackendConfiguration.md (PRNG_SEED_Seed_Val)."""

from __future__ import annotations

import numpy as np
import pytest

from test_unit_sfpu import LANES, RNG, U32, b2f, f2b, mod1, put, random_bits, setup
from tensix_harness import warned
from ttemu import UndefinedBehaviour


def stoch(issue, mod, vd=1, vc=0, vb=0, imm5=0, rnd=0):
    issue(0, "SFP_STOCH_RND", instr_mod1=mod, lreg_dest=vd, lreg_src_c=vc, lreg_src_b=vb, imm8_math=imm5,
          rnd_mode=rnd)


# ------------------------------------------------------------------------------ PRNG
def advance(state: int):
    """VectorUnit.md AdvancePRNG for one lane: returns (result, new state)."""
    taps = bin(state & 0x80200003).count("1")
    return state, (((~taps) & 1) << 31) | (state >> 1)


def seeded_lanes(seed: int):
    """The seeding this model implements (see VectorState.seed_prng)."""
    s = seed
    for _ in range(32):
        s = advance(s)[1]
    lanes = [0] * 32
    for lane in range(31, -1, -1):
        s = advance(advance(s)[1])[1]
        lanes[lane] = s
    return lanes


def test_prng_sequence_via_sfpmov():
    """SFPMOV.md FROM_SPECIAL VC = 9 returns AdvancePRNG() per lane; the sequence follows
    VectorUnit.md's LFSR exactly, and a seed write (PRNG_SEED_Seed_Val) restarts it."""
    tile, issue, u = setup()
    tile.tensix.config.set("PRNG_SEED_Seed_Val", 0xC0FFEE)
    state = seeded_lanes(0xC0FFEE)
    for _ in range(40):
        mod1(issue, "SFPMOV", vd=0, vc=9, mod=8)
        want = []
        for lane in range(32):
            r, state[lane] = advance(state[lane])
            want.append(r)
        assert list(u.lreg[0]) == want
    first = u.lreg[0].copy()
    tile.tensix.config.set("PRNG_SEED_Seed_Val", 0xC0FFEE)
    for _ in range(40):
        mod1(issue, "SFPMOV", vd=0, vc=9, mod=8)
    assert np.array_equal(u.lreg[0], first)


def test_prng_adjacent_lanes_share_30_bits():
    """Seed text: adjacent lanes have 30 out of 32 bits in common (each is the next shifted by two)."""
    tile, issue, u = setup()
    tile.tensix.config.set("PRNG_SEED_Seed_Val", 0x1234567)
    p = u.prng.astype(np.uint64)
    assert np.all((p[:-1] & 0x3FFFFFFF) == (p[1:] >> 2))  # lane i-1 is lane i stepped twice


def test_prng_advances_only_in_enabled_lanes():
    """AdvancePRNG is called inside ``if (LaneEnabled)``: disabled lanes keep their state."""
    tile, issue, u = setup()
    u.seed_prng(99)
    before = u.prng.copy()
    u.use_flags[:] = True
    u.flags[:] = LANES < 8
    mod1(issue, "SFPMOV", vd=0, vc=9, mod=8)
    assert np.array_equal(u.prng[8:], before[8:]) and not np.array_equal(u.prng[:8], before[:8])
    assert np.array_equal(u.lreg[0][:8], before[:8]) and np.all(u.lreg[0][8:] == 0)


def test_prng_deterministic_across_tiles():
    vals = []
    for _ in range(2):
        tile, issue, u = setup()
        tile.tensix.config.set("PRNG_SEED_Seed_Val", 7)
        for _ in range(5):
            mod1(issue, "SFPMOV", vd=0, vc=9, mod=8)
        vals.append(u.lreg[0].copy())
    assert np.array_equal(vals[0], vals[1])


# ------------------------------------------------------------------ SFPSTOCHRND float
def ref_float_float(x, mod, rnd=0x400000):
    e = (x >> 23) & 0xFF
    if e == 0:
        return 0
    if e == 255:
        return x & 0xFF800000
    drop = 13 if mod == 0 else 16
    low = x & ((1 << drop) - 1)
    x -= low
    if (low << (23 - drop)) >= rnd:
        x += 1 << drop
    return x


@pytest.mark.parametrize("mod", [0, 1])
def test_stochrnd_float_float_nearest(mod):
    """SFPSTOCHRND_FloatFloat.md: keep 10 (FP16A) or 7 (FP16B) mantissa bits, round to
    nearest with ties away from zero; denormals and -0 -> +0; NaN -> Inf of the same sign."""
    _, issue, u = setup()
    for _ in range(10):
        x = random_bits()
        x[:4] = [0x3F808000, 0xBF808000, 0x3F807FFF, 0x7F7FFFFF]  # ties away from zero; carry into Inf
        put(u, 0, x)
        stoch(issue, mod)
        assert [hex(v) for v in u.lreg[1]] == [hex(ref_float_float(int(v), mod)) for v in x]
    put(u, 0, 0x3F808000)
    stoch(issue, 1)
    assert np.all(u.lreg[1] == 0x3F810000)


def test_stochrnd_float_float_stochastic_uses_prng():
    """Stochastic: the discarded bits (as a 23-bit fraction) >= AdvancePRNG() & 0x7fffff."""
    _, issue, u = setup()
    u.seed_prng(0xABCDEF)
    state = list(map(int, u.prng))
    x = random_bits()
    put(u, 0, x)
    stoch(issue, 1, rnd=1)
    want = []
    for lane in range(32):
        r, state[lane] = advance(state[lane])
        want.append(ref_float_float(int(x[lane]), 1, r & 0x7FFFFF))
    assert list(u.lreg[1]) == want


def ref_float_int(c, mod, rnd=0x400000):
    keep_sign = mod in (3, 7)
    max_mag = {2: 255, 3: 127, 6: 65535, 7: 32767}[mod]
    sign = c & 0x80000000 if keep_sign else 0
    exp = ((c >> 23) & 0xFF) - 127
    if exp < -1:
        return 0
    if exp >= 16:
        mag = max_mag
    else:
        mag = 0x800000 | (c & 0x7FFFFF)
        mag = mag << exp if exp >= 0 else mag >> -exp
        mag = (mag >> 23) + ((mag & 0x7FFFFF) >= rnd)
        mag = min(mag, max_mag)
        if mag == 0:
            sign = 0
    return sign + mag


@pytest.mark.parametrize("mod", [2, 3, 6, 7])
def test_stochrnd_float_int(mod):
    """SFPSTOCHRND_FloatInt.md: FP32 -> sign-magnitude integer clamped to +-127 / 0..255 /
    +-32767 / 0..65535; |x| < 0.5 -> 0; |x| >= 2**16 and NaN -> the maximum."""
    _, issue, u = setup()
    xs = [0.49, 0.5, -0.5, 1.5, 2.5, -2.5, 126.6, 127.5, -300.0, 255.5, 256.0, 40000.0, -70000.0, 3e9, 65535.4,
          65535.6]
    for _ in range(6):
        x = f2b(np.concatenate([np.array(xs, np.float32), RNG.normal(size=16).astype(np.float32) * 200]))
        x[-1] = 0xFFC00000
        put(u, 0, x)
        stoch(issue, mod)
        assert [int(v) for v in u.lreg[1]] == [ref_float_int(int(v), mod) for v in x]


def test_stochrnd_float_int_values():
    _, issue, u = setup()
    put(u, 0, f2b(np.array([2.5, -2.5, 0.49, 1000.0] * 8, np.float32)))
    stoch(issue, 3)  # FP32_TO_INT8
    assert list(u.lreg[1][:4]) == [3, 0x80000003, 0, 127]
    stoch(issue, 2)  # FP32_TO_UINT8: absolute value
    assert list(u.lreg[1][:4]) == [3, 3, 0, 255]


def ref_int_int(c, mod, shift, rnd=0x400000):
    sign = c & 0x80000000
    mag = ((c & 0x7FFFFFFF) << 23) >> shift
    mag = (mag >> 23) + ((mag & 0x7FFFFF) >= rnd)
    if mod == 4:
        return min(mag, 255)
    mag = min(mag, 127)
    return (sign if mag else 0) + mag


@pytest.mark.parametrize("mod", [4, 5])
def test_stochrnd_int_int(mod):
    """SFPSTOCHRND_IntInt.md: sign-magnitude >> (Imm5 with UseImm5, else VB & 31), rounded
    (ties away from zero), clamped to 0..255 (sign dropped) or +-127 (-0 -> +0)."""
    _, issue, u = setup()
    for _ in range(5):
        c = RNG.integers(0, 1 << 32, 32, dtype=np.uint64).astype(U32) >> RNG.integers(0, 31, 32).astype(U32)
        c[:3] = [0x80000000, 0x80000001, 6]
        shifts = RNG.integers(0, 64, 32).astype(U32)
        put(u, 0, c)
        put(u, 2, shifts)
        stoch(issue, mod, vb=2)
        assert list(u.lreg[1]) == [ref_int_int(int(x), mod, int(s) & 31) for x, s in zip(c, shifts)]
        stoch(issue, mod | 8, imm5=3)
        assert list(u.lreg[1]) == [ref_int_int(int(x), mod, 3) for x in c]


def test_stochrnd_use_imm5_with_float_mode_warns():
    """Mod1 bit 3 outside the IntInt modes: undefined, a warning; bit 3 is ignored (the
    FloatInt page's Mod1 is a u3)."""
    results = []
    for mod in (2, 8 | 2):
        tile, issue, u = setup()
        put(u, 0, f2b(np.linspace(-300, 300, 32)))
        put(u, 2, 5)
        stoch(issue, mod, vb=2, imm5=3)
        results.append(u.lreg[1].copy())
    warned(tile, "SFPSTOCHRND Mod1=10")
    assert np.array_equal(results[0], results[1]) and results[0].any()
    tile.diagnostics.strict = True
    with pytest.raises(UndefinedBehaviour, match="UseImm5"):
        stoch(issue, 8 | 2)


# --------------------------------------------------------------------------- SFPCAST
def test_cast_stochastic():
    """SFPCAST.md RND_STOCH: round up when (Norm & 0xfe) > ((AdvancePRNG() >> 9) & 0xfe)."""
    _, issue, u = setup()
    u.seed_prng(4242)
    state = list(map(int, u.prng))
    mags = RNG.integers(1 << 24, 1 << 31, 32)
    put(u, 1, mags)
    issue(0, "SFPCAST", instr_mod1=1, lreg_dest=2, lreg_src_c=1)
    for lane in range(32):
        r, state[lane] = advance(state[lane])
        m = int(mags[lane])
        lz = 32 - m.bit_length()
        norm = (m << lz) & 0xFFFFFFFF
        d = ((157 - lz) << 23) + (norm >> 8)
        if (norm & 0xFE) > ((r >> 9) & 0xFE):
            d += 1
        assert u.lreg[2][lane] == d


# --------------------------------------------------------------------------- SFPSHFT2
def shft2(issue, mod, vd=0, vc=0, imm=0):
    issue(0, "SFPSHFT2", instr_mod1=mod, lreg_dest=vd, lreg_src_c=vc, imm12_math=imm)


def ror8(v):
    return np.array([v[i - 1] if i & 7 else v[i + 7] for i in range(32)], dtype=U32)


def fill(u):
    orig = RNG.integers(0, 1 << 32, (8, 32), dtype=np.uint64).astype(U32)
    u.lreg[0:8] = orig
    return orig


def test_shft2_copy4():
    """SFPSHFT2.md COPY4: L0, L1, L2, L3 = L1, L2, L3, 0."""
    _, issue, u = setup()
    o = fill(u)
    shft2(issue, 0)
    assert np.array_equal(u.lreg[0:3], o[1:4]) and np.all(u.lreg[3] == 0)


def test_shft2_chained_copy4():
    """SUBVEC_CHAINED_COPY4: L3 = original L0 moved up eight lanes (lanes 24..31 get 0)."""
    _, issue, u = setup()
    o = fill(u)
    shft2(issue, 1)
    assert np.array_equal(u.lreg[0:3], o[1:4])
    assert np.array_equal(u.lreg[3], np.concatenate([o[0][8:], np.zeros(8, U32)]))


def test_shft2_shflror1_and_copy4():
    """SUBVEC_SHFLROR1_AND_COPY4: shift L0..L3 and L3 = VC rotated right by one lane in each
    group of eight (VC read before the shift)."""
    _, issue, u = setup()
    o = fill(u)
    shft2(issue, 2, vc=1)
    assert np.array_equal(u.lreg[0:3], o[1:4])
    assert np.array_equal(u.lreg[3], ror8(o[1]))


def test_shft2_shflror1_and_shflshr1_bug():
    """SUBVEC_SHFLROR1: VD = ror8(VC). SUBVEC_SHFLSHR1 is meant to shift in zeros, but lane
    8k gets vc0[8k + 7] of the VC the last ROR mode saw (documented hardware bug); running
    SHFLROR1 with VD = VC = 9 makes vc0 zero, as the page suggests. (The seed text says the
    lane gets "whatever the most recent RotateLanesRight wrote to that lane"; the page says
    vc0[Lane + 7] of the VC that instruction read - the same value for SHFLROR1 - and the
    page is followed.)"""
    _, issue, u = setup()
    o = fill(u)
    shft2(issue, 3, vd=5, vc=2)
    assert np.array_equal(u.lreg[5], ror8(o[2]))
    shft2(issue, 4, vd=6, vc=3)
    want = np.array([o[3][i - 1] if i & 7 else o[2][i + 7] for i in range(32)], dtype=U32)
    assert np.array_equal(u.lreg[6], want)
    shft2(issue, 3, vd=9, vc=9)
    shft2(issue, 4, vd=6, vc=3)
    want = np.array([o[3][i - 1] if i & 7 else 0 for i in range(32)], dtype=U32)
    assert np.array_equal(u.lreg[6], want)


def test_shft2_shift_modes():
    """SHFT_LREG: VD = VB shifted by VC (signed); SHFT_IMM: VB = Imm12 & 15 shifted by the
    signed Imm12 (so only L0 << 0, L1 << 1, ... are expressible, as the seed text notes)."""
    _, issue, u = setup()
    o = fill(u)
    amounts = RNG.integers(-40, 40, 32).astype(np.int32)
    u.lreg[2] = amounts.view(U32)
    shft2(issue, 5, vd=7, vc=2, imm=4)  # VB = 4
    v = o[4].astype(np.uint64)
    want = np.where(amounts >= 0, (v << (amounts & 31).astype(np.uint64)) & 0xFFFFFFFF,
                    v >> ((-amounts.astype(np.int64)) & 31).astype(np.uint64))
    assert np.array_equal(u.lreg[7], want.astype(U32))
    shft2(issue, 6, vd=6, imm=3)  # L3 << 3
    assert np.array_equal(u.lreg[6], (o[3] << 3).astype(U32))
    shft2(issue, 6, vd=6, imm=(-13) & 0xFFF)  # VB = -13 & 15 = 3, >> 13
    assert np.array_equal(u.lreg[6], o[3] >> 13)


def test_shft2_respects_lane_enables():
    _, issue, u = setup()
    o = fill(u)
    u.use_flags[:] = True
    u.flags[:] = LANES >= 16
    shft2(issue, 0)
    assert np.array_equal(u.lreg[0], np.where(LANES >= 16, o[1], o[0]))
    assert np.array_equal(u.lreg[3], np.where(LANES >= 16, 0, o[3]))


def test_stochrnd_lane_enable():
    _, issue, u = setup()
    put(u, 0, f2b(2.6))
    u.use_flags[:] = True
    u.flags[:] = LANES == 3
    stoch(issue, 3)
    assert u.lreg[1][3] == 3 and np.count_nonzero(u.lreg[1]) == 1
    assert b2f(u.lreg[0])[0] == np.float32(2.6)
