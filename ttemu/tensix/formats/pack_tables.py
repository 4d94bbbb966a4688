"""Lookup tables for the packers' fast forms, made from the conversion chain itself.

A packer reading a 16-bit Dst (``Dst16b``) converts each datum on its own until the BFP
stage: the early conversion (:func:`~.pack.packer_early`), the late conversion
(:func:`~.pack_late.packer_late`) and the L1 datum layout (:func:`~.l1.write_datums`)
are functions of the datum's 16 storage bits. :func:`dst16_chain` runs that chain once
on every 16-bit pattern; a row of Dst then costs one gather. The BFP8 / BFP4 / BFP2
shared-exponent rounding (:func:`~.pack_late.bfp_encode`, Packers/FormatConversion.md)
of a BF16-layout datum depends on its sign, its 7 mantissa bits and how far its
exponent is below the block's shared one: :func:`bfp_tail` packs a block of 16 by a
table over those 16 bits. Every table is checked against the chain it replaces in
tests/test_pack_tables.py.
"""

from __future__ import annotations

import numpy as np

from ...errors import UndefinedBehaviour
from .codes import BFP_GROUP, DataFormat, Intermediate, datum_bits, is_bfp
from .l1 import write_datums
from .layout import U32
from .pack import packer_early
from .pack_late import late_undefined, packer_late
from .rounding import round_up_mask

__all__ = ["Dst16Chain", "dst16_chain", "bfp_tail", "bfp_tail_table", "BFP_TAIL_FORMATS"]

_F = DataFormat
_I = Intermediate
#: Out_data_format values :func:`bfp_tail` makes (8-bit shared exponents): bits per datum
BFP_TAIL_FORMATS = {_F.Bfp8_b: 8, _F.Bfp4_b: 4, _F.Bfp2_b: 2}


def _quiet(site, text):
    """The ``undefined`` callback of a table build: values it reports are flagged in
    ``Dst16Chain.warn`` instead (their entries are never used)."""


class Dst16Chain:
    """The chain's results for every 16-bit Dst storage pattern ``x``:

    * ``inter[x]``: the early conversion's intermediate value (uint32);
    * ``out[x]``: the L1 datum, little-endian, of ``datum_bits(out_fmt)`` bits (uint8 /
      ``<u2`` / ``<u4``), or for BFP formats None;
    * ``pre[x]``: for BFP formats with 8-bit exponents, the BF16 bits (uint16) the late
      conversion hands to the shared-exponent rounding, else None;
    * ``e16[x]`` / ``sm[x]``: for those, ``pre``'s exponent and sign-mantissa index bits
      (:func:`bfp_tail`'s ``exps`` / ``sm``), else None;
    * ``warn``: None when no value reaches an undefined case of the late conversion,
      else a bool table of the values that do (a row holding one must take the chain,
      which reports it).
    """

    __slots__ = ("inter", "out", "pre", "e16", "sm", "warn", "out_fmt")

    def __init__(self, inter, out, pre, warn, out_fmt):
        self.inter = inter
        self.out = out
        self.pre = pre
        self.warn = warn
        self.out_fmt = out_fmt
        self.e16 = self.sm = None
        if pre is not None:
            self.e16, self.sm = _bf16_fields(pre)


_CHAINS: dict = {}  # constant tables: the chain's arguments -> its Dst16Chain (or None)


def dst16_chain(early, late_inter: Intermediate, out_fmt: DataFormat, key=None):
    """The :class:`Dst16Chain` of the early conversion ``early`` (a function of Dst16b
    storage bits, uint32 array -> intermediate values: ``packer_early`` or
    ``to_fp16_round10`` with the configuration's arguments bound), the late conversion
    from ``late_inter`` to ``out_fmt`` and the L1 layout; None when the chain cannot be
    tabled (it raises for every value: the packer's own path reports it; BFP formats
    other than BFP8 / BFP4 / BFP2). ``key``: the arguments ``early`` stands for, under
    which the result is kept (the tables are constants of them)."""
    if key is not None and key in _CHAINS:
        return _CHAINS[key]
    out_fmt = DataFormat(out_fmt)
    chain = None
    if not is_bfp(out_fmt) or out_fmt in BFP_TAIL_FORMATS:
        x = np.arange(1 << 16, dtype=U32)
        try:
            inter = early(x)
            if is_bfp(out_fmt):  # what packer_late hands bfp_encode: _to_e8(v, src, 7), as BF16 bits
                pre, _ = packer_late(inter, late_inter, _F.Float16_b, undefined=_quiet)
                out, pre = None, pre.astype(np.uint16)
            else:
                datums, _ = packer_late(inter, late_inter, out_fmt, bfp_overflow="saturate", undefined=_quiet)
                nbytes = datum_bits(out_fmt) // 8
                out, pre = write_datums(datums, out_fmt).view(np.uint8 if nbytes == 1 else f"<u{nbytes}"), None
        except (UndefinedBehaviour, ValueError):
            pass
        else:
            warn = late_undefined(inter, late_inter, out_fmt)
            chain = Dst16Chain(inter, out, pre, warn if warn.any() else None, out_fmt)
    if key is not None:
        _CHAINS[key] = chain
    return chain


_TAIL: dict = {}  # constant tables of bfp_tail_table, by bits per datum


def bfp_tail_table(bits: int = 8):
    """The shared-exponent rounding of one datum as a table (uint8, 2**16 entries):
    index ``sign << 15 | mantissa7 << 8 | d`` (``d``: the block's shared exponent minus
    the datum's, at most 255) -> the datum's sign-magnitude field of ``bits`` bits, as
    :func:`~.pack_late.bfp_encode` (deterministic rounding, magnitudes saturating at
    127) and, for BFP4 / BFP2, the truncation after it make it. A datum with exponent 0
    takes ``d`` = 255 (its magnitude is 0 whatever the shared exponent)."""
    t = _TAIL.get(bits)
    if t is None:
        # d >= 39 shifts 1.mmmmmmm (< 2**8) right by 40 (bfp_encode's cap): magnitude 0
        man7, d = np.meshgrid(np.arange(128, dtype=np.uint64), np.arange(40, dtype=np.uint64), indexing="ij")
        shift = np.minimum(d + np.uint64(1), np.uint64(40))
        full = man7 | np.uint64(0x80)
        low = full & ((np.uint64(1) << shift) - np.uint64(1))
        up = round_up_mask(low.reshape(-1), shift.reshape(-1)).reshape(low.shape).astype(np.uint64)
        mag = np.minimum((full >> shift) + up, np.uint64(127)).astype(np.uint8)
        if bits < 8:
            mag >>= np.uint8(8 - bits)
        t = np.zeros((2, 128, 256), dtype=np.uint8)
        t[0, :, :40] = mag
        t[1, :, :40] = np.where(mag == 0, np.uint8(0), mag | np.uint8(1 << (bits - 1)))
        t = t.reshape(-1)
        t.setflags(write=False)
        _TAIL[bits] = t
    return t


def _bf16_fields(b):
    """BF16 bits ``b`` (uint16) -> (their exponents, -256 for exponent 0, int16; their
    sign and mantissa as :func:`bfp_tail_table` index bits, uint16)."""
    e16 = ((b >> 7) & 0xFF).astype(np.int16)
    e16[e16 == 0] = -256
    return e16, (b & 0x8000) | ((b & 0x7F) << 8)


def bfp_tail(b, out_fmt: DataFormat, exps=None, sm=None):
    """BF16-layout datums ``b`` (uint16, a multiple of 16, in blocks of 16) rounded to a
    shared exponent per block and written as ``out_fmt`` (BFP8 / BFP4 / BFP2): -> (the
    datum section's bytes, as :func:`~.l1.write_datums` lays them out; the shared
    exponents, uint8). What ``bfp_encode`` (after ``packer_late``'s ``_to_e8``) and the
    BFP4 / BFP2 truncation make of them. ``exps`` / ``sm``: the datums' exponent
    (int16, -256 for exponent 0) and sign-mantissa index bits when already looked up
    (see :func:`bfp_tail_table`)."""
    bits = BFP_TAIL_FORMATS[DataFormat(out_fmt)]
    if exps is None:
        exps, sm = _bf16_fields(b)
    g = exps.reshape(-1, BFP_GROUP)
    shared = g.max(axis=1)
    np.maximum(shared, 0, out=shared)
    d = shared[:, None] - g
    np.minimum(d, 255, out=d)
    datums = bfp_tail_table(bits)[sm.reshape(-1, BFP_GROUP) | d.view(np.uint16)].reshape(-1)
    if bits < 8:
        per = 8 // bits
        q = datums.reshape(-1, per)
        out = q[:, 0].copy()
        for j in range(1, per):
            out |= q[:, j] << np.uint8(j * bits)
        datums = out
    return datums, shared.astype(np.uint8)
