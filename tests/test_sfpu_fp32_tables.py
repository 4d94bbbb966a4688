"""SFPLOAD / SFPSTORE's FP32-family conversions by table (sfpu/loadstore.py load_fp32 /
store_fp32, used by Wormhole's and Blackhole's SFPLOAD / SFPSTORE) against the
conversion functions they replace (formats/layout.py sfpload_convert / sfpstore_convert,
blackhole.py sfpload_convert_bh / sfpstore_convert_bh), bit for bit, on random patterns
mixed with zeros, denormals, infinities and NaNs; hypothesis draws the seeds."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ttemu.tensix.formats import layout as FL
from ttemu.tensix.units.sfpu.blackhole import (BH_FP32_LOAD_BY_TABLE, BH_FP32_STORE_BY_TABLE, MOD0_FMT_FP32,
                                               sfpload_convert_bh, sfpstore_convert_bh)
from ttemu.tensix.units.sfpu.loadstore import FP32_BY_TABLE, load_fp32, store_fp32

U32 = np.uint32
EDGES = np.array([0, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F800000, 0xFF800000, 0x7FC00000,
                  0xFFFFFFFF, 0x0000FFFF, 0x80010000, 0x3F800000], dtype=U32)


def _patterns(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(U32)
    denormal = rng.random(64) < 0.2
    x[denormal] &= U32(0x807FFFFF)
    return np.concatenate([x, EDGES])


def _halves(v):
    v = np.asarray(v, dtype=U32)
    return (v >> 16).astype(np.uint16), (v & 0xFFFF).astype(np.uint16)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_fp32_load_tables_match_conversions(seed):
    raw = _patterns(seed)
    hi, lo = _halves(raw)
    got = load_fp32(hi, lo)
    assert got.dtype == U32
    for mod0 in FP32_BY_TABLE:
        assert mod0 in FL.SFPLOAD_READS_DST32
        assert np.array_equal(got, FL.sfpload_convert(raw, mod0))
    for mod0 in BH_FP32_LOAD_BY_TABLE:
        assert np.array_equal(got, sfpload_convert_bh(raw, mod0, None, False))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_fp32_store_tables_match_conversions(seed):
    x = _patterns(seed)
    for mod0 in FP32_BY_TABLE:
        assert mod0 in FL.SFPSTORE_WRITES_DST32
        high, low = store_fp32(x)
        want_high, want_low = _halves(FL.sfpstore_convert(x, mod0))
        assert high.dtype == low.dtype == np.uint16
        assert np.array_equal(high, want_high) and np.array_equal(low, want_low)
    for mod0 in BH_FP32_STORE_BY_TABLE:
        high, low = store_fp32(x, mod0 == MOD0_FMT_FP32)
        want_high, want_low = _halves(sfpstore_convert_bh(x, mod0))
        assert np.array_equal(high, want_high) and np.array_equal(low, want_low)


def test_blackhole_fp32_store_flushes_denormals():
    """SFPSTORE.md (BlackholeA0): a denormal stores as a signed zero; Wormhole keeps its bits."""
    x = np.array([0x807FFFFF, 0x00000001], dtype=U32)
    high, low = store_fp32(x, flush=True)
    assert list(low) == [0, 0] and list(high) == [int(store_fp32(np.array([0x80000000], dtype=U32))[0][0]),
                                                   int(store_fp32(np.array([0], dtype=U32))[0][0])]
    assert list(store_fp32(x)[1]) == [0xFFFF, 1]
