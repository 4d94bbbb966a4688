"""The Matrix Unit's BF16 Dst lookup tables (units/math.py, built on a grid at start-up)
against their definitions: layout.py's field moves and fpu_datapath.dst_decode, over
every 16-bit value, dtype included."""

import numpy as np

from ttemu.tensix.formats import layout as L
from ttemu.tensix.units import fpu_datapath as FD
from ttemu.tensix.units import math as M

U32 = np.uint32


def _defined():
    unshuf = (L.dst16_to_bf16(np.arange(1 << 16, dtype=U32)) << U32(16)).astype(U32)
    shuf = L.dst16_from_bf16(np.arange(1 << 16, dtype=U32)).astype(np.uint16)
    e, m = FD.dst_decode(unshuf)
    sign = np.where(e == 0, 0, np.where(m < 0, -2, 2)).astype(np.int64)
    return unshuf, shuf, e, m, sign


def test_tables_as_defined():
    built = (M._UNSHUF_BF16, M._SHUF_BF16, M._DST_EXP, M._DST_MAN, M._DST_SIGN)
    for name, got, want in zip(("unshuf", "shuf", "exp", "man", "sign"), built, _defined()):
        assert got.dtype == want.dtype and got.shape == want.shape == (1 << 16,), name
        assert np.array_equal(got, want), name


def test_shuffles_are_inverse():
    h = np.arange(1 << 16, dtype=U32)
    assert np.array_equal(M._SHUF_BF16[M._UNSHUF_BF16[h] >> U32(16)], h)
