"""Format conversions done by lookup table (formats/layout.py ``_by_table``) against
their computed forms, on every pattern of the bits they depend on and on random
32-bit values (the other bits must not matter), keeping dtype and shape."""

import numpy as np

from ttemu.tensix.formats import layout as L

ALL16 = np.arange(1 << 16, dtype=np.uint32)
RNG32 = np.random.default_rng(7).integers(0, 1 << 32, 4096, dtype=np.uint64).astype(np.uint32)


def test_sfpload_bf16_table_matches_computed():
    for x in (ALL16, ALL16.reshape(256, 256), RNG32 & np.uint32(0xFFFF), np.uint16(0x8123)):
        got, want = L.fp32_from_dst16_bf16(x), L.fp32_from_dst16_bf16_plain(x)
        assert got.dtype == want.dtype == np.uint32 and got.shape == np.shape(want)
        np.testing.assert_array_equal(got, want)
    # the uint16 Dst rows SFPLOAD reads
    np.testing.assert_array_equal(L.fp32_from_dst16_bf16(ALL16.astype(np.uint16)), L.fp32_from_dst16_bf16_plain(ALL16))


def test_sfpstore_bf16_table_matches_computed():
    for x in (ALL16 << np.uint32(16), (ALL16 << np.uint32(16)) | np.uint32(0xFFFF), RNG32,
              RNG32.reshape(64, 64), np.uint32(0x00400000)):
        got, want = L.fp32_to_dst16_bf16(x), L.fp32_to_dst16_bf16_plain(x)
        assert got.dtype == want.dtype == np.uint32 and got.shape == np.shape(want)
        np.testing.assert_array_equal(got, want)
    # exponent-0 values flush to signed zero (SFPSTORE.md ToBF16)
    assert L.fp32_to_dst16_bf16(np.array([0x807FFFFF, 0x007FFFFF], dtype=np.uint32)).tolist() == [0x8000, 0]


def test_sfpu_bf16_grids_match_the_plain_conversions():
    """The Vector Unit's SFPLOAD / SFPSTORE BF16 tables, built as outer ORs of byte parts
    (sfpu/loadstore.py), against the computed conversions on every 16-bit pattern."""
    from ttemu.tensix.units.sfpu import loadstore as LS

    load = LS.load_bf16_grid()
    assert load.dtype == np.uint32 and load.shape == (1 << 16,)
    np.testing.assert_array_equal(load, L.fp32_from_dst16_bf16_plain(ALL16))
    store = LS.store_bf16_grid()
    assert store.dtype == np.uint16 and store.shape == (1 << 16,)
    np.testing.assert_array_equal(store, L.fp32_to_dst16_bf16_plain(ALL16 << np.uint32(16)))
    np.testing.assert_array_equal(LS.load_table(L.MOD0_FMT_BF16), load)
    np.testing.assert_array_equal(LS.store_bf16_table(), store)
