"""The Matrix Unit datapath (ttemu/tensix/units/fpu_datapath.py) in its faster form gives
exactly the bits of its earlier, plainer form (kept here as the reference), for MVMUL and
the shared finishing step on random operands, every fidelity phase and Dst mode. The
datapath itself is checked against ttsim by the kernel and tt-llk corpus tests."""

import numpy as np
import pytest

from ttemu.tensix.units import fpu_datapath as F
from ttemu.tensix.units.fpu_datapath import I64, product_adjust, products

# -- the reference form (the datapath as first written) --------------------------------------

def _ref_shift_round(m, k, bias):
    """m >> k rounding half up (``bias`` 1 rounds a negative term's half down); k >= 31
    gives 0."""
    k = np.minimum(k, 62)
    half = np.where(k > 0, np.left_shift(np.int64(1), np.maximum(k - 1, 0)), 0)
    out = np.where(k > 0, (m + half - np.where(k > 0, bias, 0)) >> k, m)
    return np.where(k >= 31, 0, out)


def _ref_finish(sops, dst, fp32_acc: bool, exp8: bool):
    """Add the sums ``sops`` [(sign, exponent, 25-bit-scale mantissa)] to ``dst``
    (FP32-layout bits) and round to the Dst format. -> FP32-layout bits (int64)."""
    dst = np.asarray(dst).astype(I64)
    sd = (dst >> 31) & 1
    ed = (dst >> 23) & 0xFF
    md = np.where(ed == 0, 0, (dst & 0x7FFFFF) | 0x800000)
    big = ed
    for _, e, _ in sops:
        big = np.maximum(big, e)
    md = np.where(ed < big, _ref_shift_round(md, big - ed, 0), md)
    if not fp32_acc:
        md = (md + (1 << 12)) & ~0x1FFF
    total = md
    for s, e, m in sops:
        m = np.where(e < big, _ref_shift_round(m, big - e, s), m)
        if not fp32_acc:
            m = (m + (1 << 12) - s) & ~0x1FFF
        total = total + np.where(s == sd, m, -m)
    sign = np.where(total < 0, sd ^ 1, sd)
    man = np.abs(total)
    lead = np.frexp(man.astype(np.float64))[1] - 1  # position of the leading one (exact below 2**53)
    shift = 23 - lead
    shift = np.where((sign == 1) & (man == 1), shift - 27, shift)  # Wormhole renormalisation erratum
    exp = big - shift
    keep = 16 if exp8 else 13
    if not fp32_acc:
        shift = shift - keep
    right = np.clip(-shift, 0, 62)
    half = np.where(right > 0, np.left_shift(np.int64(1), np.maximum(right - 1, 0)), 0)
    man = np.where(shift < 0, (man + half) >> right, man << np.clip(shift, 0, 40))
    if not fp32_acc:
        man = man << keep
    exp = np.where(man & 0x1000000, exp + 1, exp)
    man &= 0x7FFFFF
    if fp32_acc or exp8:
        out = np.where(exp >= 255, (sign << 31) | (255 << 23), (sign << 31) | (exp << 23) | man)
    else:
        out = np.where(exp >= 32, (sign << 31) | (31 << 23) | (0x3FF << 13), (sign << 31) | (exp << 23) | man)
    return np.where((big <= 0) | (total == 0) | (exp <= 0), 0, out)


def _ref_mvmul(a, b, dst, fp32_acc, phase, exp8):
    """``dst[r, c] += sum_k b[r, k] * a[k, c]``; a: operands of SrcA [16 k, 16 c],
    b: operands of SrcB [R, 16 k], dst [R, 16]. Two groups of 8 k."""
    adj = product_adjust(fp32_acc, phase, exp8)
    A = tuple(x.T.reshape(1, 16, 2, 8) for x in a)  # [1, c, group, k]
    B = tuple(x.reshape(-1, 1, 2, 8) for x in b)  # [R, 1, group, k]
    s, e, m = products(A, B, phase, adj, False)
    top = e.max(axis=-1)  # [R, c, group]
    d = np.minimum(top[..., None] - e, 30)
    part = ((m << 1) + (np.int64(1) << d)) >> (d + 1)
    total = np.where(s == 1, -part, part).sum(axis=-1)
    live = top > 0
    sign = (live & (total < 0)).astype(I64)
    mag = np.where(live, np.abs(total), 0) << 13
    top = np.where(live, top, 0)
    return _ref_finish([(sign[..., 0], top[..., 0], mag[..., 0]), (sign[..., 1], top[..., 1], mag[..., 1])],
                  dst, fp32_acc, exp8)


def _src(rng, shape, fp16):
    x = rng.integers(0, 1 << 19, shape).astype(np.int64)
    e = rng.integers(8, 22, shape) if fp16 else rng.integers(118, 136, shape)
    x = (x & ~0xFF) | e
    x[rng.random(shape) < 0.1] &= ~0xFF  # zeros
    return x


@pytest.mark.parametrize("mode", range(12))
def test_datapath_equals_reference_form(mode):
    rng = np.random.default_rng(mode)
    fp16, bf16 = mode % 3 == 2, mode % 3 == 0
    exp8, fp32 = not fp16, bool(mode & 4)
    for trial in range(12):
        phase = trial % 4
        a, b = _src(rng, (16, 16), fp16), _src(rng, (8, 16), fp16)
        dst = rng.integers(0, 1 << 32, (8, 16)).astype(np.int64)
        dst = (dst & ~(0xFF << 23)) | (rng.integers(100, 150, (8, 16)) << 23)
        dst[rng.random((8, 16)) < 0.2] = 0
        ao, bo = F.operands(a, fp16, bf16), F.operands(b, fp16, bf16)
        assert (F.mvmul(ao, bo, dst, fp32, phase, exp8) == _ref_mvmul(ao, bo, dst, fp32, phase, exp8)).all()
        a8 = F.operands(a[:8], fp16, bf16)
        s, e, m = products(a8, bo, phase, product_adjust(fp32, phase, exp8), True)
        assert (F.finish([(s, e, m << 13)], dst, fp32, exp8) == _ref_finish([(s, e, m << 13)], dst, fp32, exp8)).all()
        k = rng.integers(-5, 70, 256)
        m = rng.integers(-(1 << 40), 1 << 40, 256)
        sign = rng.integers(0, 2, 256)
        assert (F._shift_round(m, k, sign) == _ref_shift_round(m, k, sign)).all()
        assert (F._shift_round(m, k, 0) == _ref_shift_round(m, k, 0)).all()
