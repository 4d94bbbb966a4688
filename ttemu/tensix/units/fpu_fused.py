"""MVMUL's products and their accumulation into Dst in one pass of float64 array
operations, for the 8-bit-exponent Src styles (BF16, TF32) with a BF16 (Dst16) or FP32
(Dst32) Dst: the numbers of ``fpu_datapath.dot`` followed by ``fpu_datapath.accumulate``
(the reference; tests/test_fpu_fused.py compares the two bit for bit), in about half the
numpy calls. FP16 and INT8 styles, broadcast rows and remapped Dst rows keep the
reference path (``MatrixUnit._matmul``).

How each step stays exact (every value below is an integer times a power of two with at
most 53 significant bits, so float64 holds it exactly):

* Src lookups: one table per (operand, fidelity part, BF16) maps a 19-bit Src value to
  the pair (signed fidelity bits x 2**exponent, 2**exponent x scale), 0 for a zero
  operand. The scales make the pair product of SrcA and SrcB ``2**(ea + eb + adj - 1)``
  (``adj``: fpu_datapath.prod_adj), so a group's largest one is ``Pg = 2**(E - 1)`` with
  ``E`` the group's exponent; a group of zero products gets ``2**(adj - 1)`` (the
  ``initial`` of the max).
* Group rounding (half away from zero): each product divided by ``2**emx`` is ``m x 2**-d``
  with ``m`` < 2**12; multiplied by ``1 + 2**-40`` (exact: 12 + 41 bits) it moves off every
  tie by less than any non-tie's distance to one, so round-half-even (``rint``) rounds it
  half away from zero.
* ``floor(Pg)`` is ``2**(E - 1)`` where ``E >= 1`` and 0 where ``E <= 0``: the group's
  sum scaled (``S x floor(Pg)``) is already zero where the reference drops it, and the
  largest of these and ``2**(ed - 1)`` (the Dst value's) is ``Pm = 2**(emax - 1)``.
* Alignment to ``emax``: ``floor(V / 2**(emax + 1) + 1/2)`` (then, for a 16-bit Dst, to a
  multiple of 2**13 half up: one floor of ``(V / 2**(emax + 1) + 4096.5) / 8192``); the
  Dst value (half away from zero) carries the reference's ``-1`` for a negative value in
  its table and, for a 16-bit Dst, ``4095.5`` for ``4096.5``.
* Normalising and rounding the sum: ``sum x Pm x 2**-k`` has the float64 exponent of the
  result's FP32 exponent field (less 127); adding half a unit of the kept precision to
  its bits and clearing the bits below rounds the magnitude half up, a carry moving into
  the exponent as in the reference; the cast to float32 is then exact, gives infinity for
  an exponent >= 255 (the reference's sign | 255 | 0) and a subnormal for an exponent <= 0,
  which the output tables flush to +0.
"""

from __future__ import annotations

import numpy as np

from ..formats import layout as L
from . import fpu_datapath as FD

_TABLES: dict = {}
_TIE = 1.0 + 2.0 ** -40  # moves products off ties (see the module docstring)
_C16 = 4096.5 / 8192  # rounding constant of a term / non-negative Dst value (Dst16)
_C16_NEG = 4095.5 / 8192  # ... of a negative Dst value
_GAMMA16 = 2.0 ** -136  # sum x Pm x this: float64 exponent = FP32 exponent field - 127
_GAMMA32 = 2.0 ** -149
_MINUS_ONE_32 = -2.0 ** 27  # a sum of -1 unit (FP32 Dst) renormalises as 28 bits long


def src_tables(bf16, operand, part):
    """Two float64 [2**19] tables: Src bits -> signed fidelity bits x 2**e, and -> 2**e x
    scale (both 0 for a zero operand), see the module docstring; SrcA's scale is
    2**(-128 - 5 part), SrcB's 2**(-7 part)."""
    key = ("src", bf16, operand, part)
    t = _TABLES.get(key)
    if t is None:
        man = np.arange(1 << 10, dtype=np.int64) | 0x400
        if bf16:
            man &= 0x7F8
        bits = FD.srca_bits(man, part) if operand == "A" else FD.srcb_bits(man, part << 1)
        pw = np.ldexp(1.0, np.arange(256))
        pw[0] = 0.0  # exponent 0: a zero operand
        value = np.empty((2, 1 << 10, 256))
        np.multiply.outer(bits, pw, out=value[0])
        np.negative(value[0], out=value[1])
        power = np.tile(pw * (2.0 ** (-128 - 5 * part) if operand == "A" else 2.0 ** (-7 * part)), 1 << 11)
        t = _TABLES[key] = (value.reshape(-1), power)
    return t


def dst_tables():
    """Tables over the 2**16 Dst16 (BF16 layout) patterns h, which are also the high
    halves of Dst32 rows: the Dst value V (twice the signed 24-bit mantissa, less 1 when
    negative, x 2**(ed - 15)) of a 16-bit Dst, the factor of a Dst32's low half in it, its
    ``2**(ed - 1)`` and its rounding constant (16-bit Dst); and over IEEE BF16 / FP32
    high halves: the Dst16 pattern (0 for exponent 0) and the mask of the low half."""
    t = _TABLES.get("dst")
    if t is None:
        h = np.arange(1 << 16, dtype=np.uint32)
        ed, ds = FD.dst_decode(L.dst16_to_bf16(h).astype(np.uint32) << np.uint32(16))
        neg = ds < 0
        scale = np.ldexp(1.0, ed - 15)
        value = (ds - neg) * scale
        low = np.where(ed == 0, 0, np.where(neg, -2, 2)) * scale
        power = np.ldexp(1.0, ed - 1)
        const = np.where(neg, _C16_NEG, _C16)
        flush = (h & 0x7F80) == 0
        shuf = np.where(flush, 0, L.dst16_from_bf16(h)).astype(np.uint16)
        lo_mask = np.where(flush, 0, 0xFFFF).astype(np.uint16)
        t = _TABLES["dst"] = (value, low, power, const, shuf, lo_mask)
    return t


class FusedMvmul:
    """Preallocated buffers and the tables in use for ``dot_accumulate`` (one per Matrix
    Unit)."""

    def __init__(self):
        self._bufs = {}
        self._src = {}
        self._dst = None

    def _buffers(self, n):
        b = self._bufs.get(n)
        if b is None:
            b = self._bufs[n] = (np.empty((16, n, 16)), np.empty((16, n, 16)), np.empty((3, n, 16)),
                                 np.empty((3, n, 16)), np.full((3, n, 16), _C16))
        return b

    def _tables(self, bf16, phase):
        key = (bf16, phase)
        t = self._src.get(key)
        if t is None:
            t = self._src[key] = (src_tables(bf16, "A", phase & 1) + src_tables(bf16, "B", phase >> 1)
                                  + (2.0 ** (-128 - 5 * (phase & 1) - 7 * (phase >> 1)),))
        return t

    def dot_accumulate(self, a, b, bf16, phase, hi, lo=None):
        """Dst += SrcB rows ``b`` [n, 16] @ SrcA ``a`` [16, 16] (19-bit Src values, uint)
        for one fidelity phase, on Dst rows given as uint16 views: ``hi`` the Dst16 rows
        (BF16 layout) or, with ``lo``, the high and low halves of Dst32 (FP32) rows.
        Writes the result into ``hi`` (and ``lo``)."""
        n = b.shape[0]
        x, p, xs, ps, cs = self._buffers(n)
        va, pa, vb, pb, kappa = self._tables(bf16, phase)
        a = a.astype(np.intp)
        bt = b.T.astype(np.intp)
        np.multiply(vb[bt][:, :, None], va[a][:, None, :], out=x)  # [k, i, j]
        np.multiply(pb[bt][:, :, None], pa[a][:, None, :], out=p)
        pg = np.maximum.reduce(p.reshape(2, 8, n, 16), axis=1, initial=kappa)  # [group, i, j]
        x4 = x.reshape(2, 8, n, 16)
        np.multiply(x4, np.divide(_TIE * kappa, pg)[:, None], out=x4)
        np.rint(x, out=x)
        np.add.reduce(x4, axis=1, out=xs[1:])
        np.floor(pg, out=ps[1:])
        np.multiply(xs[1:], ps[1:], out=xs[1:])
        dst = self._dst
        if dst is None:
            dst = self._dst = dst_tables()
        value, low, power, const, shuf, lo_mask = dst
        h = hi.astype(np.intp)
        xs[0] = value[h]
        ps[0] = power[h]
        pm = np.maximum.reduce(ps, axis=0)
        if lo is None:
            cs[0] = const[h]
            np.divide(xs, pm, out=xs)
            xs += cs
            gamma = _GAMMA16
        else:
            t = low[h]
            t *= lo
            xs[0] += t
            np.multiply(xs, np.divide(8192.0, pm), out=xs)
            xs += 0.5
            gamma = _GAMMA32
        np.floor(xs, out=xs)
        w = np.add.reduce(xs, axis=0)
        if lo is not None:
            np.putmask(w, w == -1.0, _MINUS_ONE_32)
        w *= pm
        w *= gamma
        u = w.view(np.int64)
        if lo is None:  # keep 8 bits: round half up at float64 fraction bit 44
            u += 1 << 44
            u &= ~((1 << 45) - 1)
        else:  # keep 24 bits
            u += 1 << 28
            u &= ~((1 << 29) - 1)
        with np.errstate(over="ignore"):
            w32 = w.astype(np.float32).view(np.uint16)  # [n, 32]: low, high halves
        rhi = w32[:, 1::2].astype(np.intp)
        hi[...] = shuf[rhi]
        if lo is not None:
            np.bitwise_and(w32[:, 0::2], lo_mask[rhi], out=lo)
