"""ttemu.cmd.rng.uniform (a manifest's uniform inputs without numpy.random) gives
numpy's default_rng(seed).uniform numbers bit for bit."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ttemu.cmd import rng

BOUND = st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False))


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.integers(0, 2**32), st.integers(0, 2**300)), BOUND, BOUND, st.integers(0, 300))
def test_uniform_matches_numpy(seed, low, high, n):
    ours = rng.uniform(seed, low, high, n)
    try:
        ref = np.random.default_rng(seed).uniform(low, high, n)
    except ValueError:  # high - low has its sign bit set (high < low, or -0.0): numpy says so, and is asked
        assert ours is None and math.copysign(1.0, float(high) - float(low)) < 0
        return
    assert ours is not None
    assert np.array_equal(ours.view(np.uint64), ref.view(np.uint64))


def test_negative_zero_range_is_left_to_numpy():
    """numpy refuses a range whose sign bit is set, -0.0 included (high=-0.0, low=0)."""
    for low, high in ((0, -0.0), (0.0, -0.0), (1.0, 0.5)):
        try:
            np.random.default_rng(0).uniform(low, high, 3)
        except ValueError:
            pass
        else:
            raise AssertionError(f"numpy took uniform({low}, {high})")
        assert rng.uniform(0, low, high, 3) is None
    assert rng.uniform(0, -0.0, 0.0, 3) is not None  # (a range of +0.0: numpy gives low)
    ours, ref = rng.uniform(0, -0.0, 0.0, 3), np.random.default_rng(0).uniform(-0.0, 0.0, 3)
    assert np.array_equal(ours.view(np.uint64), ref.view(np.uint64))


def test_seed_sequence_matches_numpy():
    for seed in (0, 1, 7, 2**32 - 1, 2**32, 2**64 + 3, 2**200 + 12345):
        ref = np.random.SeedSequence(seed).generate_state(8, np.uint32)
        assert rng.seed_sequence_state(seed, 8) == ref.tolist()


def test_a_large_input_matches_numpy():
    ours = rng.uniform(12345, -4, 4, rng.MAX_PLAIN)
    ref = np.random.default_rng(12345).uniform(-4, 4, rng.MAX_PLAIN)
    assert ours.dtype == np.float64 and np.array_equal(ours.view(np.uint64), ref.view(np.uint64))


def test_unusual_cases_are_left_to_numpy():
    assert rng.uniform(-1, 0.0, 1.0, 4) is None
    assert rng.uniform(True, 0.0, 1.0, 4) is None
    assert rng.uniform(1, "a", 1.0, 4) is None
    assert rng.uniform(1, -1e308, 1e308, 4) is None  # range overflows
    assert rng.uniform(1, 0.0, 1.0, rng.MAX_PLAIN + 1) is None
    assert rng.uniform(1, 1.0, 0.0, 4) is None
