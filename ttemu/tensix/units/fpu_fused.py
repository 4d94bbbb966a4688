"""The Matrix Unit's products and their accumulation into Dst in one pass of float64
array operations, for the 8-bit-exponent Src styles (BF16, TF32) with a BF16 (Dst16) or
FP32 (Dst32) Dst: MVMUL / DOTPV / GAPOOL (``dot_accumulate``: the numbers of
``fpu_datapath.dot`` + ``accumulate``), ELWMUL (``elw_mul``) and ELWADD / ELWSUB in
fidelity phase 0 (``elw_add``), in about half the numpy calls of the reference forms
(tests/test_fpu_fused.py compares them bit for bit). FP16 and INT8 styles, broadcast
MVMUL rows and remapped or aliased Dst rows keep the reference path (math.py). The
Matrix Unit defers MVMULs and ELW*s (``defer`` / ``defer_elw``: up to ``CAPACITY``, the
operands copied) until Dst is next accessed (``flush``): each run of one kind and
configuration at once, then the accumulations in waves of distinct Dst blocks (the same
bits as ``dot_accumulate`` / ``elw_*`` one job after the other, tested). The batched
MVMUL aligns and rounds the products in int16 rather than float64: a product's mantissa
``m`` (sign and fidelity bits, ``|m| <= 31 x 127``) aligned ``d`` places below its group's
largest exponent and rounded half away from zero is ``(2m + 2**d - [m < 0]) >> (d + 1)``
(``d`` clipped at 13, where it is 0, as the reference's ``rint`` of ``m x 2**-d`` pushed
off ties); a group's eight sum to at most ``8 x 2**12`` in magnitude.

How each step stays exact (every value below is an integer times a power of two with at
most 53 significant bits, so float64 holds it exactly):

* Src lookups (small tables): the sign and mantissa (bits 18..8) give the signed
  fidelity bits, the exponent (bits 7..0) ``2**e x scale`` (0 for a zero operand). The
  scales make the product of SrcA's and SrcB's ``2**(ea + eb + adj - 1)`` (``adj``:
  fpu_datapath.prod_adj), so a group's largest one is ``Pg = 2**(E - 1)`` with ``E`` the
  group's exponent; a group of zero products gets ``2**(adj - 1)`` (the max's
  ``initial``).
* Group rounding (half away from zero): each product divided by ``2**emx`` is ``m x 2**-d``
  with ``m`` < 2**12; multiplied by ``1 + 2**-40`` (exact: 12 + 41 bits) it moves off every
  tie by less than any non-tie's distance to one, so round-half-even (``rint``) rounds it
  half away from zero. ELWADD's smaller operand is aligned the same way (11-bit
  mantissas), and the larger comes out exact.
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
  which the output tables flush to +0. A sum of -1 unit (FP32 Dst) is replaced by
  ``-2**27``, which renormalises as the reference's.
"""

from __future__ import annotations

import numpy as np

from ..formats import layout as L
from . import fpu_datapath as FD

_TIE = 1.0 + 2.0 ** -40  # moves products off ties (see the module docstring)
_ONE16 = np.int16(1)
_EMIN = 1023 - 128 - 5 - 7  # the float64 exponent field of the smallest scale (2**(adj - 1))
_C16 = 4096.5 / 8192  # rounding constant of a term / non-negative Dst value (Dst16)
_C16_NEG = 4095.5 / 8192  # ... of a negative Dst value
_GAMMA16 = 2.0 ** -136  # sum x Pm x this: float64 exponent = FP32 exponent field - 127
_GAMMA32 = 2.0 ** -149
_MINUS_ONE_32 = -2.0 ** 27  # a sum of -1 unit (FP32 Dst) renormalises as 28 bits long


def src_tables(bf16, operand, part):
    """Small float64 tables of one operand and fidelity part: Src bits >> 8 (sign,
    mantissa) -> the signed fidelity bits [2048], and the low 8 bits (the exponent) ->
    2**e x scale [256] (0 for a zero operand), see the module docstring; SrcA's scale is
    2**(-128 - 5 part), SrcB's 2**(-7 part)."""
    man = np.arange(1 << 10, dtype=np.int64) | 0x400
    if bf16:
        man &= 0x7F8
    bits = FD.srca_bits(man, part) if operand == "A" else FD.srcb_bits(man, part << 1)
    pw = np.ldexp(1.0, np.arange(256))
    pw[0] = 0.0  # exponent 0: a zero operand
    pw *= 2.0 ** (-128 - 5 * part) if operand == "A" else 2.0 ** (-7 * part)
    return np.concatenate([bits, -bits]).astype(np.float64), pw


def elw_tables(bf16):
    """Small float64 tables for ELWADD / ELWSUB: Src bits >> 8 (sign, mantissa) -> the
    signed 11-bit mantissa [2048]; the low 8 bits (the exponent) -> ``2**e`` (0 for a zero
    operand) and -> ``2**(e - 1)`` (a zero operand has exponent 0, fpu_datapath.elw_add)
    [256] each."""
    man = np.arange(1 << 10, dtype=np.int64) | 0x400
    if bf16:
        man &= 0x7F8
    sm = np.concatenate([man, -man]).astype(np.float64)
    pw = np.ldexp(1.0, np.arange(256))
    half = pw * 0.5
    pw[0] = 0.0
    return sm, pw, half


def dst_tables():
    """Tables over the 2**16 Dst16 (BF16 layout: sign, mantissa, exponent) patterns h,
    which are also the high halves of Dst32 rows: the Dst value V (twice the signed
    24-bit mantissa, less 1 when negative, x 2**(ed - 15)) of a 16-bit Dst, the factor of
    a Dst32's low half in it, its ``2**(ed - 1)`` and its rounding constant (16-bit Dst);
    and over IEEE BF16 / FP32 high halves (sign, exponent, mantissa): the Dst16 pattern
    (0 for exponent 0) and the mask of the low half. Built as outer products of
    [sign, mantissa] and [exponent] (tests compare them with fpu_datapath.dst_decode)."""
    e = np.arange(256)
    scale = np.ldexp(1.0, e - 15)
    scale[0] = 0.0  # exponent 0: zero
    m = (np.arange(128) | 128) << 17  # twice the 24-bit mantissa with the hidden bit
    sm = np.concatenate([m, -m - 1])  # [sign, mantissa]; less 1 when negative
    value = np.multiply.outer(sm, scale).reshape(-1)
    low = np.multiply.outer(np.repeat([2.0, -2.0], 128), scale).reshape(-1)
    power = np.tile(np.ldexp(1.0, e - 1), 256)
    const = np.empty(1 << 16)
    const[:1 << 15] = _C16  # sign clear
    const[1 << 15:] = _C16_NEG
    h = np.arange(1 << 16, dtype=np.uint32)
    flush = (h & 0x7F80) == 0
    shuf = L.dst16_from_bf16(h).astype(np.uint16)
    shuf[flush] = 0
    lo_mask = np.where(flush, 0, 0xFFFF).astype(np.uint16)
    return value, low, power, const, shuf, lo_mask


class FusedMvmul:
    """Preallocated buffers and the tables in use for ``dot_accumulate`` (one per Matrix
    Unit)."""

    def __init__(self):
        self.minus_one_quirk = True  # ArchSpec.fpu_minus_one_quirk (fpu_datapath.accumulate's quirk)
        self._bufs = {}
        self._run_bufs = {}
        self._src = {}
        self._dst = None
        self._dst_scaled = {}  # gamma -> dst_tables with value, low, power times gamma
        self._elw = {}
        self._qa = self._qb = None  # the queue of deferred MVMULs' operands (``defer``)
        self._meta = []
        # a Src exponent as int16 for each fidelity part (+256 for part 1), with the parts'
        # scales' exponents (SrcA's also 1023, the float64 bias): ea + eb is the float64
        # exponent field of a product's 2**(ea + eb) x scale; -1024 for a zero operand
        # (any sum with it stays below every product's and _EMIN)
        e = np.arange(256)
        self._exp_a = np.concatenate([e + 1023 - 128, e + 1023 - 128 - 5]).astype(np.int16)
        self._exp_b = np.concatenate([e, e - 7]).astype(np.int16)
        self._exp_a[[0, 256]] = self._exp_b[[0, 256]] = -1024

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

    def _elw_tables(self, bf16):
        t = self._elw.get(bf16)
        if t is None:
            t = self._elw[bf16] = elw_tables(bf16)
        return t

    def dot_accumulate(self, a, b, bf16, phase, hi, lo=None):
        """Dst += SrcB rows ``b`` [n, 16] @ SrcA ``a`` [16, 16] (19-bit Src values, uint)
        for one fidelity phase, on Dst rows given as uint16 views: ``hi`` the Dst16 rows
        (BF16 layout) or, with ``lo``, the high and low halves of Dst32 (FP32) rows.
        Writes the result into ``hi`` (and ``lo``)."""
        n = b.shape[0]
        x, p, xs, ps, cs = self._buffers(n)
        sa, pa, sb, pb, kappa = self._tables(bf16, phase)
        a = a.astype(np.intp)
        bt = b.T.astype(np.intp)
        pa = pa[a & 0xFF]
        pb = pb[bt & 0xFF]
        np.multiply(pb[:, :, None], pa[:, None, :], out=p)  # [k, i, j]
        pa *= sa[a >> 8]  # the signed values x scale
        pb *= sb[bt >> 8]
        np.multiply(pb[:, :, None], pa[:, None, :], out=x)  # the products x 2**(adj - 1)
        pg = np.maximum.reduce(p.reshape(2, 8, n, 16), axis=1, initial=kappa)  # [group, i, j]
        x4 = x.reshape(2, 8, n, 16)
        np.multiply(x4, np.divide(_TIE, pg)[:, None], out=x4)
        np.rint(x, out=x)
        np.add.reduce(x4, axis=1, out=xs[1:])
        np.floor(pg, out=ps[1:])
        np.multiply(xs[1:], ps[1:], out=xs[1:])
        self._accumulate(xs, ps, cs, hi, lo)

    #: deferred MVMULs held at most (FusedMvmul.defer's caller applies them at this count)
    CAPACITY = 64

    def defer(self, a, b, bf16, phase, r, use32):
        """Queue one MVMUL (``a`` [16, 16] SrcA rows, ``b`` [n, 16] SrcB rows: Src bits,
        masked to 19 bits here; ``r`` the first DstBits row of the block, whose low halves
        are 8 rows further with ``use32``), copying the operands; -> the number queued
        (at most ``CAPACITY``: ``flush`` before that)."""
        k = len(self._meta)
        if self._qa is None:
            self._queues()
        self._qa[k] = a
        n = b.shape[0]
        if n == 8:
            self._qb[k] = b
        else:
            self._qb[k, :n] = b
        self._meta.append((("mvmul", bf16, use32, n), phase, r))
        return k + 1

    def defer_elw(self, a, b, kind, bf16, phase, r, use32, add_dst):
        """Queue one ELWADD / ELWSUB (``kind`` "add" / "sub", fidelity phase 0) or ELWMUL
        ("mul") of Src bit arrays ``a`` [8, 16], ``b`` [8 | 1, 16 | 1] (broadcast as copied) on
        the 8 Dst rows at DstBits row ``r`` (as ``defer``), with the numbers of
        ``elw_add`` / ``elw_mul``; -> the number queued."""
        k = len(self._meta)
        if self._qa is None:
            self._queues()
        self._qea[k] = a
        self._qeb[k] = b
        self._meta.append((("elw", kind, bf16, use32, add_dst, phase if kind == "mul" else 0), phase, r))
        return k + 1

    def _queues(self):
        cap = self.CAPACITY
        self._qa = np.empty((cap, 16, 16), np.uint32)
        self._qb = np.empty((cap, 8, 16), np.uint32)
        self._qea = np.empty((cap, 8, 16), np.uint32)
        self._qeb = np.empty((cap, 8, 16), np.uint32)

    def flush(self, bits):
        """Apply the queued instructions to DstBits ``bits``, in order: each run of
        consecutive ones of a kind and configuration together (``run``)."""
        meta, self._meta = self._meta, []
        i, count = 0, len(meta)
        while i < count:
            key = meta[i][0]
            j = i + 1
            while j < count and meta[j][0] == key:
                j += 1
            if key[0] == "mvmul":
                self._run(i, j, meta, bits, *key[1:])
            else:
                self._run_elw(i, j, meta, bits, *key[1:])
            i = j

    def run(self, jobs, bits):
        """Apply MVMULs ``jobs`` [(a, b, bf16, phase, r, use32), ...] (as ``defer`` takes
        them) to DstBits ``bits``, with the numbers of ``dot_accumulate`` one job after
        the other: the products of consecutive jobs with the same (bf16, use32, rows)
        together (each job with the tables of its fidelity phase), then their
        accumulations in waves, wave ``c`` taking every job that is the ``c``-th of the
        run on its Dst block (the blocks of such a run are aligned and of one size: two
        overlap only if equal)."""
        for job in jobs:
            if self.defer(*job) == self.CAPACITY:
                self.flush(bits)
        self.flush(bits)

    def _int_tables(self, bf16):
        """Both fidelity parts' signed fidelity bits as int16 (part 1 at +2048), SrcA's
        doubled (the batch works on twice each product)."""
        key = ("int", bf16)
        t = self._src.get(key)
        if t is None:
            t = self._src[key] = (
                (2 * np.concatenate([src_tables(bf16, "A", p)[0] for p in (0, 1)])).astype(np.int16),
                np.concatenate([src_tables(bf16, "B", p)[0] for p in (0, 1)]).astype(np.int16))
        return t

    def _run(self, s, e, meta, bits, bf16, use32, n):
        # arrays [k, i, j, job] (the job innermost: long inner loops)
        w = e - s
        jobs = meta[s:e]
        take, ip = np.take, np.intp
        a = self._qa[s:e].transpose(1, 2, 0).astype(ip, order="C")  # [k, j, job] (SrcA row k, column j)
        bt = self._qb[s:e, :n].transpose(2, 1, 0).astype(ip, order="C")  # [k, i, job] (SrcB row i, column k)
        sa, sb = self._int_tables(bf16)
        ia = a & 0xFF  # the exponents
        ib = bt & 0xFF
        sma = a >> 8  # sign and mantissa (the 19-bit mask)
        sma &= 0x7FF
        smb = bt >> 8
        smb &= 0x7FF
        phases = [m[1] for m in jobs]
        ph0 = phases[0]
        if phases.count(ph0) == w:  # one fidelity phase: its tables
            part_a, part_b = ph0 & 1, ph0 >> 1
            ya = take(sa[part_a << 11:(part_a + 1) << 11], sma)  # [k, j, job] int16
            yb = take(sb[part_b << 11:(part_b + 1) << 11], smb)
            ea = take(self._exp_a[part_a << 8:(part_a + 1) << 8], ia)
            eb = take(self._exp_b[part_b << 8:(part_b + 1) << 8], ib)
        else:
            part_a = np.array([ph & 1 for ph in phases], dtype=ip)  # per job
            part_b = np.array([ph >> 1 for ph in phases], dtype=ip)
            ya = take(sa, sma + (part_a << 11))
            yb = take(sb, smb + (part_b << 11))
            ea = take(self._exp_a, ia + (part_a << 8))
            eb = take(self._exp_b, ib + (part_b << 8))
        buf = self._run_bufs.get((n, w))
        if buf is None:
            self._run_bufs.clear()  # for the last batch size only (1 MiB for 64 MVMULs)
            buf = self._run_bufs[(n, w)] = (*(np.empty((16, n, 16, w), np.int16) for _ in range(3)),
                                            np.full((16, n, 16, w), 14, np.int16))
        ex, y, t, c14 = buf  # (numpy's minimum with a scalar runs ~15x slower than with an array)
        ex5, y5 = ex.reshape(2, 8, n, 16, w), y.reshape(2, 8, n, 16, w)
        # the group's largest product 2**(ea + eb) x scale (the reference's max of products)
        # from its float64 exponent field: the largest ea + eb of its non-zero products, or
        # _EMIN for none (a power below every non-zero product's, which floors to 0)
        np.add(eb[:, :, None], ea[:, None], out=ex)
        emax = np.maximum.reduce(ex5, axis=1, initial=_EMIN)  # [group, i, j, job]
        # each product's mantissa m (sign and fidelity bits, |m| < 2**12) aligned to it, d
        # places right, rounded half away from zero: (2m + 2**d - [m < 0]) >> (d + 1),
        # with d at most 13 (then 0: the reference's product over 2**emx is below 1/2)
        emax += 1
        np.subtract(emax[:, None], ex5, out=ex5)  # d + 1
        np.minimum(ex, c14, out=ex)
        np.multiply(yb[:, :, None], ya[:, None], out=y)  # 2m
        np.right_shift(y, 15, out=t)  # -[m < 0]
        y += t
        np.left_shift(_ONE16, ex, out=t)  # 2**(d + 1)
        t >>= 1
        y += t
        y >>= ex
        sums = np.add.reduce(y5, axis=1, dtype=np.int16)  # [group, i, j, job], |sum| <= 8 x 2**11
        emax -= 1
        powers = np.floor(np.left_shift(emax, 52, dtype=np.int64).view(np.float64))
        powers *= _GAMMA32 if use32 else _GAMMA16  # the accumulation's scale (``_accumulate`` scaled)
        terms = np.multiply(sums, powers)
        self._waves(jobs, bits, terms.transpose(0, 3, 1, 2), powers.transpose(0, 3, 1, 2), use32, n, True, True)

    def _run_elw(self, s, e, meta, bits, kind, bf16, use32, add_dst, phase):
        """``elw_mul`` / ``elw_add`` of queued jobs ``s``..``e`` (one kind and
        configuration) at once, then their accumulations in waves."""
        take, ip = np.take, np.intp
        a = self._qea[s:e].astype(ip)  # [job, i, j]
        b = self._qeb[s:e].astype(ip)
        ea = a & 0xFF
        eb = b & 0xFF
        a >>= 8  # sign and mantissa (the 19-bit mask)
        a &= 0x7FF
        b >>= 8
        b &= 0x7FF
        if kind == "mul":
            sa, pa, sb, pb, _ = self._tables(bf16, phase)
            p = take(pa, ea)
            p *= take(pb, eb)
            ps = np.floor(p)  # 2**(e - 1), 0 where e <= 0 (dropped)
            x = take(sa, a)
            x *= take(sb, b)
            x *= ps
        else:
            sm, pw, half = self._elw_tables(bf16)
            ps = np.maximum(take(half, ea), take(half, eb))
            r = np.divide(0.5 * _TIE, ps)
            x = take(sm, a)
            x *= take(pw, ea)
            x *= r
            y = take(sm, b)
            y *= take(pw, eb)
            y *= r
            np.rint(x, out=x)
            np.rint(y, out=y)
            if kind == "sub":
                x -= y
            else:
                x += y
            x *= ps
        self._waves(meta[s:e], bits, x[None], ps[None], use32, 8, add_dst, False)

    def _waves(self, jobs, bits, terms, powers, use32, n, add_dst, scaled):
        """Accumulate ``terms`` / ``powers`` [slot, job, i, j] (one or two slots: the
        groups of an MVMUL, the one term of an ELW*) of ``jobs`` into their Dst blocks in
        waves, wave ``c`` taking every job that is the ``c``-th on its Dst block (the
        blocks are aligned and of one size: two overlap only if equal)."""
        waves, seen = [], {}
        for k, job in enumerate(jobs):
            c = seen.get(job[2], 0)
            seen[job[2]] = c + 1
            if c == len(waves):
                waves.append([])
            waves[c].append(k)
        # the accumulation's buffers, contiguous per wave (numpy runs several times slower
        # on slices of a larger buffer): [wave, slot, job of the wave, i, j] with terms and
        # powers from slot 1, when every wave is the same number of consecutive jobs (as a
        # kernel's MOP issues them), else one wave's at a time
        w = len(jobs)
        slots = terms.shape[0] + 1
        m = len(waves[0])
        nw = len(waves)
        regular = m * nw == w and all(wave[0] == c * m and wave[-1] == c * m + m - 1 for c, wave in enumerate(waves))
        if regular:
            xs, ps, cs = self._wave_buffers(nw, slots, m, n)
            xs[:, 1:] = terms.reshape(slots - 1, nw, m, n, 16).transpose(1, 0, 2, 3, 4)
            ps[:, 1:] = powers.reshape(slots - 1, nw, m, n, 16).transpose(1, 0, 2, 3, 4)
        step = 16 if use32 else n
        for c, wave in enumerate(waves):
            m = len(wave)
            if regular:
                wx, wp, wc = xs[c], ps[c], cs[c]
            else:
                wx, wp, wc = self._wave_buffers(1, slots, m, n)
                wx, wp, wc = wx[0], wp[0], wc[0]
                wx[1:] = terms[:, wave]
                wp[1:] = powers[:, wave]
            k0 = wave[0]
            r0 = jobs[k0][2]
            span = 16 * m if use32 else n * m
            if r0 + span <= len(bits) and all(jobs[k][2] == r0 + step * c for c, k in enumerate(wave)):
                # consecutive blocks, all inside DstBits: views of Dst (a 4-row block at the
                # last Dst32b rows, 508..511, has its low halves at DstBits 1020..1023, within
                # 16 rows of its start but its view's slice would run past the end)
                if use32:
                    blk = bits[r0:r0 + 16 * m].reshape(m, 16, 16)
                    self._accumulate(wx, wp, wc, blk[:, :n], blk[:, 8:8 + n], add_dst, scaled)
                else:
                    self._accumulate(wx, wp, wc, bits[r0:r0 + n * m].reshape(m, n, 16), None, add_dst, scaled)
                continue
            rows = np.array([jobs[k][2] for k in wave])[:, None] + np.arange(n)  # [m, n]
            hi = bits[rows]
            lo = bits[rows + 8] if use32 else None
            self._accumulate(wx, wp, wc, hi, lo, add_dst, scaled)
            bits[rows] = hi
            if use32:
                bits[rows + 8] = lo

    def _wave_buffers(self, waves, slots, m, n):
        """[wave, slot, job, i, j] buffers of the accumulation: terms, powers, rounding
        constants (slot 0 the Dst value's)."""
        key = ("wave", waves, slots, m, n)
        b = self._bufs.get(key)
        if b is None:
            if len(self._bufs) > 16:
                self._bufs.clear()
            shape = (waves, slots, m, n, 16)
            b = self._bufs[key] = (np.empty(shape), np.empty(shape), np.full(shape, _C16))
        return b

    def _elw_buffers(self):
        b = self._bufs.get("elw")
        if b is None:
            b = self._bufs["elw"] = (np.empty((2, 8, 16)), np.empty((2, 8, 16)), np.full((2, 8, 16), _C16))
        return b

    def elw_mul(self, a, b, bf16, phase, hi, lo=None):
        """ELWMUL (one fidelity phase) of Src [8, 16] bit arrays ``a`` and ``b`` into Dst
        rows ``hi`` (``lo``) as ``dot_accumulate``: the numbers of fpu_datapath.elw_mul +
        accumulate."""
        xs, ps, cs = self._elw_buffers()
        sa, pa, sb, pb, kappa = self._tables(bf16, phase)
        a = a.astype(np.intp)
        b = b.astype(np.intp)
        p = pa[a & 0xFF]
        p *= pb[b & 0xFF]
        np.floor(p, out=ps[1])  # 2**(e - 1), 0 where e <= 0 (dropped)
        x = sa[a >> 8]
        x *= sb[b >> 8]
        np.multiply(x, ps[1], out=xs[1])
        self._accumulate(xs, ps, cs, hi, lo)

    def elw_add(self, a, b, sub, bf16, hi, lo=None, add_dst=True):
        """ELWADD / ELWSUB (fidelity phase 0) of Src [8, 16] bit arrays into Dst rows as
        ``dot_accumulate``: the numbers of fpu_datapath.elw_add + accumulate. The smaller
        operand aligned to the larger's exponent, rounded half away from zero, is
        ``rint`` of it over ``2**emax`` pushed off ties (as in ``dot_accumulate``); the
        larger's comes out exact, so both take the same steps."""
        xs, ps, cs = self._elw_buffers()
        sm, pw, half = self._elw_tables(bf16)
        a = a.astype(np.intp)
        b = b.astype(np.intp)
        ea = a & 0xFF
        eb = b & 0xFF
        pm = np.maximum(half[ea], half[eb], out=ps[1])
        r = np.divide(0.5 * _TIE, pm)
        x = sm[a >> 8]
        x *= pw[ea]
        x *= r
        y = sm[b >> 8]
        y *= pw[eb]
        y *= r
        np.rint(x, out=x)
        np.rint(y, out=y)
        if sub:
            x -= y
        else:
            x += y
        np.multiply(x, pm, out=xs[1])
        self._accumulate(xs, ps, cs, hi, lo, add_dst)

    def _accumulate(self, xs, ps, cs, hi, lo, add_dst=True, scaled=False):
        """Dst rows ``hi`` (``lo``) (+)= the terms ``xs[1:]`` (values x 2**-15) with powers
        ``ps[1:]`` (``2**(E - 1)``, 0 where dropped); ``xs[0]`` / ``ps[0]`` / ``cs[0]`` take
        the Dst value (zero without ``add_dst``). With ``scaled``, the terms and powers
        come multiplied by the final scale (_GAMMA16 / _GAMMA32: exact, powers of two,
        every value stays normal), the Dst value's too (tables times it): ``xs / pm`` is
        the same and ``w x pm`` needs no further multiply."""
        gamma = _GAMMA32 if lo is not None else _GAMMA16
        dst = self._dst_scaled.get(gamma) if scaled else self._dst
        if dst is None:
            dst = self._dst
            if dst is None:
                dst = self._dst = dst_tables()
            if scaled:
                dst = self._dst_scaled[gamma] = tuple(t * gamma for t in dst[:3]) + dst[3:]
        value, low, power, const, shuf, lo_mask = dst
        take = np.take
        if add_dst:
            h = hi.astype(np.intp)
            take(value, h, out=xs[0], mode="clip")
            take(power, h, out=ps[0], mode="clip")
        else:
            xs[0] = 0.0
            ps[0] = 0.5 * gamma if scaled else 0.5
        pm = np.maximum.reduce(ps, axis=0)
        if lo is None:
            if add_dst:
                take(const, h, out=cs[0], mode="clip")
            else:
                cs[0] = _C16
            np.divide(xs, pm, out=xs)
            xs += cs
        else:
            if add_dst:
                t = take(low, h)
                t *= lo
                xs[0] += t
            np.multiply(xs, np.divide(8192.0, pm), out=xs)
            xs += 0.5
        np.floor(xs, out=xs)
        w = np.add.reduce(xs, axis=0)
        if lo is not None and self.minus_one_quirk:
            np.putmask(w, w == -1.0, _MINUS_ONE_32)
        w *= pm
        if not scaled:
            w *= gamma
        u = w.view(np.int64)
        if lo is None:  # keep 8 bits: round half up at float64 fraction bit 44
            u += 1 << 44
            u &= ~((1 << 45) - 1)
        else:  # keep 24 bits
            u += 1 << 28
            u &= ~((1 << 29) - 1)
        with np.errstate(over="ignore"):
            w32 = w.astype(np.float32).view(np.uint16)  # [..., 32]: low, high halves
        if lo is None:
            take(shuf, w32[..., 1::2], out=hi, mode="clip")
        else:
            rhi = w32[..., 1::2].astype(np.intp)
            take(shuf, rhi, out=hi, mode="clip")
            np.bitwise_and(w32[..., 0::2], take(lo_mask, rhi), out=lo)
