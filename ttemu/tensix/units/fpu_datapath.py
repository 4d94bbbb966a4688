"""The Matrix Unit's (FPU's) floating-point datapath, bit for bit, on numpy arrays.

The ISA pages (MVMUL.md, ELWADD.md, ELWMUL.md, GAPOOL.md "Functional model") give float
arithmetic with one rounding into Dst and call it "a rough guide ... precision could be
either lower or higher". Tenstorrent's ttsim models the hardware's narrower datapath and
claims bit-exactness against silicon; where ttsim completes a run its results are the
reference (GUIDE.md), so this module follows what ttsim computes (its observable
behaviour, and its source read for the algorithm):

* Operands: sign, 8-bit exponent (FP16: 5-bit, bias 15), 11-bit mantissa with the hidden
  bit; exponent 0 is zero (``zero``), the top exponent is an ordinary number. BF16 drops
  the three low mantissa bits.
* Products (ELWMUL, MVMUL, GAPOOL, DOTPV): one fidelity phase multiplies 5 SrcA bits by 7
  SrcB bits (SrcASrcB.md), exactly; the product's exponent is ``ea + eb + adj``, ``adj``
  rebiasing to the Dst exponent (FP32: 127; FP16 kept in Dst16: 15) less 5 (SrcA low
  bits) / 7 (SrcB low bits) per phase (:func:`prod_adj`). A zero product takes exponent
  ``max(adj, 0)`` (it still counts in the shared exponent below).
* Dot products (MVMUL): the 16 products of one output are summed in two groups of eight
  (k = 0..7, 8..15). Each group aligns its products to its largest exponent, rounding
  each shifted mantissa half away from zero, and sums them exactly; a group whose
  largest exponent is <= 0 is zero.
* ELWADD / ELWSUB: the operand with the smaller magnitude is aligned to the larger's
  exponent (rounded half up, shifted out entirely at 12 places), then added.
* Accumulation into Dst (:func:`accumulate`): the (one or two) partial sums and the Dst
  value are aligned to the largest of their exponents (sums rounded half towards +inf,
  Dst half away from zero), and, unless Dst is FP32, each is first rounded to the Dst
  precision (13 low bits of 24 away, half towards +inf); their sum is normalised and
  rounded to the Dst precision (24 / BF16 8 / FP16 11 bits) half away from zero. A
  largest exponent <= 0, an exact cancellation or a result exponent <= 0 gives +0; FP32 /
  BF16 overflow gives sign|255|0, FP16 saturates at exponent 31, mantissa 1023. On
  Wormhole (``quirk``: ArchSpec.fpu_minus_one_quirk) a sum of exactly -1 unit (FP32 Dst
  only) comes out as sign|exponent+4|0 (the renormalisation of -1 counts one leading
  sign bit too many); Blackhole's is exact.

Partial sums travel as ``(exp, signed mantissa)`` int64 arrays (the mantissa at 2**23
per unit of exp, the Dst mantissa's scale) and Dst values as FP32-layout bits:
FP32 and BF16 (``bf16 << 16``) as IEEE, FP16 as sign[31] exp5[27:23] man10[22:13]
(:func:`dst_in_fp16` / :func:`dst_out_fp16`).
"""

from __future__ import annotations

import numpy as np

I64 = np.int64
_ONE = np.int64(1)
_POW2 = _ONE << np.arange(64, dtype=I64)  # 2**d by lookup (faster than a shift)
_POW2H = np.concatenate([[0], _POW2[:63]])  # 2**(d - 1)
_U32 = np.uint32

# SrcAStyle values (MVMUL.md "Determine the data formats"): the Matrix Unit's (math.py)
# and its runs' (math_batch.py) names for the Src number styles
BF16, FP16, TF32, INT8 = "BF16", "FP16", "TF32", "INT8"


def src_parts(x, fp16):
    """19-bit Src values (sign[18] man[17:8] exp[7:0]; FP16 exp[4:0]) -> (sign, exp,
    11-bit mantissa, zero) as int64 / bool arrays; the mantissa is 0 where zero. The
    caller masks BF16's low mantissa bits."""
    x = x.astype(I64)
    exp = x & (0x1F if fp16 else 0xFF)
    zero = exp == 0
    man = np.where(zero, 0, ((x >> 8) & 0x3FF) | 0x400)
    return x >> 18, exp, man, zero


def prod_adj(fp32_acc, phase, exp8):
    """Exponent added to ``ea + eb`` for a product of fidelity phase ``phase``."""
    adj = -127 if exp8 else (127 - 30 if fp32_acc else -15)
    if phase & 1:
        adj -= 5
    if phase & 2:
        adj -= 7
    return adj


def srca_bits(man, phase):
    """The 5 SrcA mantissa bits phase ``phase`` multiplies (SrcASrcB.md)."""
    return (man >> 1) & 31 if phase & 1 else man >> 6


def srcb_bits(man, phase):
    """The 7 SrcB mantissa bits phase ``phase`` multiplies."""
    return (man & 15) << 3 if phase & 2 else man >> 4


def dst_decode(dst):
    """FP32-layout Dst bits -> (exponent, twice the signed 24-bit mantissa with the
    hidden bit; 0 where the exponent is 0) as int64, what :func:`accumulate` takes."""
    dst = dst.astype(I64)
    ed = (dst >> 23) & 255
    md = ((dst & 0x7FFFFF) | 0x800000) * (ed != 0)
    return ed, np.where(dst >= 0x80000000, -md, md) << 1


def accumulate(terms, ed, ds, fp32_acc, exp8, quirk=True):
    """Sum the partial sums ``terms`` [(exp, 2 x man25), ...] (man signed, 2**23 per unit
    of exp, i.e. the Dst mantissa's scale; doubled) and the Dst values (``ed``, ``ds``: see
    :func:`dst_decode`), returning FP32-layout result bits (uint32), see the module
    docstring; :func:`accumulate_plain` step by step, here the Dst value and the terms
    stacked so each step is one array operation for all of them.

    Alignment by d places is ``(2 x + 2**d) >> (d + 1)``, with 2 x given (= floor(x / 2**d + 1/2): half
    towards +inf for the signed sums; for Dst, applied to the magnitude: half away from
    zero), exact to 0 from 31 places on; d is capped at 40 to stay in int64."""
    n = len(terms) + 1
    ev = np.empty((2, n) + np.shape(ed), I64)
    ev[0, 0] = ed
    ev[1, 0] = ds
    for i, (et, vt) in enumerate(terms, 1):
        ev[0, i] = et
        ev[1, i] = vt
    e_all, v_all = ev
    emax = np.maximum.reduce(e_all)  # (ufunc methods: no Python-level wrapper)
    d1 = np.subtract(emax + 1, e_all, out=e_all)  # d + 1
    np.minimum(d1, 41, out=d1)
    neg = ds >> 63  # -1 for a negative Dst: half away from zero is (2x + 2**d - 1) >> ...
    v_all += _POW2H[d1]
    v_all[0] += neg
    v_all >>= d1
    if not fp32_acc:
        v_all += 4096
        v_all[0] += neg
        v_all &= ~0x1FFF
    total = np.add.reduce(v_all)
    mag = np.abs(total)
    nb = np.frexp(mag)[1].astype(I64)  # bit length; 32 - nb = clz(mag) in 32 bits
    keep = 0 if fp32_acc else (16 if exp8 else 13)
    if fp32_acc and quirk:  # -1 renormalises as if 28 bits long (Wormhole)
        nb[total == -1] = 28
    # normalise to 24 bits (exponent emax + nb - 24), keep 24 - keep of them, round half
    # away from zero (magnitude half up), put back at 24 bits
    k = nb + keep  # 0 only where mag == 0 (result 0; _POW2[-1] harmless)
    man = mag << 24
    man += _POW2[k - 1]
    man >>= k
    if keep:
        man <<= keep
    e = emax + nb
    e += man >> 24
    e -= 24
    zero = (mag == 0) | (np.minimum(emax, e) <= 0)
    man &= 0x7FFFFF
    if fp32_acc or exp8:
        over = e >= 255
        out = (e << 23) | man
        out[over] = 255 << 23
    else:
        over = e >= 32
        out = (e << 23) | man
        out[over] = (31 << 23) | (0x3FF << 13)
    out |= (total >> 32) & 0x80000000
    out[zero] = 0
    return out.astype(_U32)


def accumulate_plain(terms, ed, ds, fp32_acc, exp8, quirk=True):
    """The plain form of :func:`accumulate` (tests compare the two). Sum the partial sums ``terms`` [(exp, 2 x man25), ...] (man signed, 2**23 per unit
    of exp, i.e. the Dst mantissa's scale; doubled) and the Dst values (``ed``, ``ds``: see
    :func:`dst_decode`), returning FP32-layout result bits (uint32), see the module
    docstring.

    Alignment by d places is ``(2 x + 2**d) >> (d + 1)``, with 2 x given (= floor(x / 2**d + 1/2): half
    towards +inf for the signed sums; for Dst, applied to the magnitude: half away from
    zero), exact to 0 from 31 places on; d is capped at 40 to stay in int64."""
    emax = ed
    for et, _ in terms:
        emax = np.maximum(emax, et)
    emax1 = emax + 1
    d1 = np.minimum(emax1 - ed, 41)  # d + 1
    neg = ds >> 63  # -1 for a negative Dst: half away from zero is (2x + 2**d - 1) >> ...
    total = (ds + _POW2H[d1] + neg) >> d1
    if not fp32_acc:
        total = (total + 4096 + neg) & ~0x1FFF
    for et, vt in terms:
        d1 = np.minimum(emax1 - et, 41)
        vt = (vt + _POW2H[d1]) >> d1
        if not fp32_acc:
            vt = (vt + 4096) & ~0x1FFF
        total = total + vt
    mag = np.abs(total)
    nb = np.frexp(mag)[1]  # bit length; 32 - nb = clz(mag) in 32 bits
    keep = 0 if fp32_acc else (16 if exp8 else 13)
    if fp32_acc and quirk:  # -1 renormalises as if 28 bits long (Wormhole)
        nb = np.where(total == -1, 28, nb)
    # normalise to 24 bits (exponent emax + nb - 24), keep 24 - keep of them, round half
    # away from zero (magnitude half up), put back at 24 bits
    k = nb + keep  # 0 only where mag == 0 (result 0; _POW2[-1] harmless)
    man = (((mag << 24) + _POW2[k - 1]) >> k) << keep
    e = emax + nb - 24 + (man >> 24)
    man = man & 0x7FFFFF
    if fp32_acc or exp8:
        over = e >= 255
        out = np.where(over, 255 << 23, (e << 23) | man)
    else:
        over = e >= 32
        out = np.where(over, (31 << 23) | (0x3FF << 13), (e << 23) | man)
    out = out | ((total >> 32) & 0x80000000)
    out = np.where((np.minimum(emax, e) <= 0) | (mag == 0), 0, out)
    return out.astype(_U32)


def dst_in_fp16(h):
    """IEEE half bits -> the FP32-layout form :func:`accumulate` takes."""
    h = h.astype(I64)
    return ((h & 0x8000) << 16) | ((h & 0x7FFF) << 13)


def dst_out_fp16(bits):
    """:func:`accumulate` result for an FP16 Dst -> IEEE half bits."""
    bits = bits.astype(I64)
    return (((bits >> 16) & 0x8000) | ((bits >> 13) & 0x7FFF)).astype(_U32)


def elw_add(a, b, sub, fp16, bf16, fp32_acc, phase):
    """ELWADD / ELWSUB of Src bit arrays -> one partial sum (exp, 2 x signed man25). A
    non-zero fidelity phase scales the sum by 2**-5 / 2**-7 as ELWADD.md's model
    divides it (ttsim refuses that case)."""
    sa, ea, ma, _ = src_parts(a, fp16)
    sb, eb, mb, _ = src_parts(b, fp16)
    if bf16:
        ma, mb = ma & 0x7F8, mb & 0x7F8
    if sub:
        sb = sb ^ 1
    ka = (ea << 10) | (ma & 0x3FF)
    kb = (eb << 10) | (mb & 0x3FF)
    swap = ka < kb
    sa, sb = np.where(swap, sb, sa), np.where(swap, sa, sb)
    ea, eb = np.where(swap, eb, ea), np.where(swap, ea, eb)
    ma, mb = np.where(swap, mb, ma), np.where(swap, ma, mb)
    d = ea - eb
    dc = np.clip(d, 1, 11)
    mb = np.where(d <= 0, mb, np.where(d >= 12, 0, (mb + (I64(1) << (dc - 1))) >> dc))
    man = np.where(sa == sb, ma + mb, ma - mb) << 14  # doubled, see accumulate
    e = ea
    if fp32_acc and fp16:
        e = np.where(ea != 0, ea + (127 - 15), 127 - 30)
    if phase & 1:
        e = e - 5
    if phase & 2:
        e = e - 7
    return e, np.where(sa == 1, -man, man)


def elw_mul(a, b, fp16, bf16, fp32_acc, phase):
    """ELWMUL of Src bit arrays (one fidelity phase) -> one partial sum."""
    sa, ea, ma, za = src_parts(a, fp16)
    sb, eb, mb, zb = src_parts(b, fp16)
    if bf16:
        ma, mb = ma & 0x7F8, mb & 0x7F8
    adj = prod_adj(fp32_acc, phase, not fp16)
    e = ea + eb + adj
    zero = za | zb | (e <= 0)
    man = (srca_bits(ma, phase) * srcb_bits(mb, phase)) << 14  # doubled
    man = np.where(zero, 0, np.where(sa == sb, man, -man))
    return np.where(zero, max(adj, 0), e), man


_ZERO_EXP = -16000  # exponent-table entry of a zero operand (int16; two still fit)
_TABLES: dict = {}
# 2**-i for an int16 group exponent i >= 0 (all-zero groups are negative: 1.0, times 0)
_INV_POW2 = np.ones(1 << 16)
_INV_POW2[:1100] = np.ldexp(1.0, -np.arange(1100))


def _value_table(fp16, bf16, operand, part):
    """float64[2**19]: every Src bit pattern -> its signed fidelity-phase bits (SrcA: 5,
    SrcB: 7) times 2**exponent (0 for a zero operand), built on first use (4 MiB): as
    [sign, mantissa, exponent] = (+-bits[mantissa]) x 2**exponent, an outer product
    (:func:`_value_table_plain` the same, element by element)."""
    key = (fp16, bf16, operand, part)
    t = _TABLES.get(key)
    if t is None:
        man = np.arange(1 << 10, dtype=I64) | 0x400
        if bf16:
            man &= 0x7F8
        bits = srca_bits(man, part) if operand == "A" else srcb_bits(man, part << 1)
        e = np.arange(256, dtype=I64) & (0x1F if fp16 else 0xFF)
        scale = np.ldexp(1.0, e)
        t = np.empty((2, 1 << 10, 256))
        np.multiply.outer(bits, scale, out=t[0])
        np.multiply.outer(-bits, scale, out=t[1])
        t[:, :, e == 0] = 0.0  # a zero operand (exponent 0)
        t = _TABLES[key] = t.reshape(-1)
    return t


def _value_table_plain(fp16, bf16, operand, part):
    """:func:`_value_table` from :func:`src_parts` of every pattern (tests compare them)."""
    s, e, m, _ = src_parts(np.arange(1 << 19), fp16)
    if bf16:
        m = m & 0x7F8
    bits = srca_bits(m, part) if operand == "A" else srcb_bits(m, part << 1)
    return np.where(s == 1, -bits, bits) * np.ldexp(1.0, e)


def _exp_table(fp16):
    """int16[2**19]: every Src bit pattern -> its exponent, _ZERO_EXP for a zero (the low
    8 bits decide: one 256-entry row repeated)."""
    t = _TABLES.get(fp16)
    if t is None:
        e = np.arange(256, dtype=np.int16) & (0x1F if fp16 else 0xFF)
        e[e == 0] = _ZERO_EXP
        t = _TABLES[fp16] = np.tile(e, 1 << 11)
    return t


def _exp_table_plain(fp16):
    """:func:`_exp_table` from :func:`src_parts` (tests compare them)."""
    _, e, _, z = src_parts(np.arange(1 << 19), fp16)
    return np.where(z, _ZERO_EXP, e).astype(np.int16)


def dot(a, b, fp16, bf16, fp32_acc, phase):
    """MVMUL's products of SrcB rows ``b`` [n, 16] with SrcA ``a`` [16, 16] (19-bit Src
    values, one fidelity phase) -> two partial sums (exp, 2 x signed man25) per output [n, 16].

    Products are formed in float64 (5 x 7 bits times a power of two: exact) and scaled
    by 2**-(the group's largest ea + eb), so rounding to the group's unit is rounding to
    an integer: ``trunc(x + copysign(0.5, x))``, half away from zero (exact: the scaled
    terms have at most ~40 significant bits; beyond that they are < 1/2 and give 0).
    Arrays are laid out [k, i, j] (k, the summed index, outermost), so the per-group
    maximum and sum are element-wise operations over whole [i, j] planes."""
    ex = _exp_table(fp16)
    bt = b.T
    n = bt.shape[1]
    x = np.empty((16, n, 16))
    np.multiply(_value_table(fp16, bf16, "B", phase >> 1)[bt][:, :, None],
                _value_table(fp16, bf16, "A", phase & 1)[a][:, None, :], out=x)
    e = np.empty((16, n, 16), np.int16)
    np.add(ex[bt][:, :, None], ex[a][:, None, :], out=e)
    x = x.reshape(2, 8, n, 16)
    emx = np.maximum.reduce(e.reshape(2, 8, n, 16), axis=1)  # [group, i, j]
    x *= _INV_POW2[emx][:, None]
    x += np.copysign(0.5, x)
    sums = np.add.reduce(np.trunc(x, out=x), axis=1)
    adj = prod_adj(fp32_acc, phase, not fp16)
    esop = emx.astype(I64)
    esop += adj
    zte = max(adj, 0)
    if zte > 0:  # a group of zero products takes the zero products' exponent
        esop[emx < _ZERO_EXP // 2] = zte
    sums *= 16384.0  # doubled, see accumulate (<< 14; exact)
    sums[esop <= 0] = 0.0
    man = sums.astype(I64)
    return (esop[0], man[0]), (esop[1], man[1])


def dot_plain(a, b, fp16, bf16, fp32_acc, phase):
    """:func:`dot` step by step on [i, j, group, k] arrays (tests compare the two)."""
    ex = _exp_table(fp16)
    fa = _value_table(fp16, bf16, "A", phase & 1)[a].T   # [j, k]
    fb = _value_table(fp16, bf16, "B", phase >> 1)[b]    # [i, k]
    n = fb.shape[0]
    v = (fb[:, None, :] * fa[None, :, :]).reshape(n, 16, 2, 8)
    e = (ex[b][:, None, :] + ex[a].T[None, :, :]).reshape(n, 16, 2, 8)
    emx = e.max(axis=3)
    x = v * _INV_POW2[emx][..., None]
    sums = np.trunc(x + np.copysign(0.5, x)).sum(axis=3)
    adj = prod_adj(fp32_acc, phase, not fp16)
    esop = emx.astype(I64) + adj
    zte = max(adj, 0)
    if zte > 0:  # a group of zero products takes the zero products' exponent
        esop = np.where(emx < _ZERO_EXP // 2, zte, esop)
    man = np.where(esop > 0, sums, 0.0).astype(I64) << 14  # doubled, see accumulate
    return (esop[..., 0], man[..., 0]), (esop[..., 1], man[..., 1])
