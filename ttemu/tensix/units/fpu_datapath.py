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
  BF16 overflow gives sign|255|0, FP16 saturates at exponent 31, mantissa 1023. A sum of
  exactly -1 unit (FP32 Dst only) comes out as sign|exponent+4|0 (the renormalisation
  of -1 counts one leading sign bit too many on Wormhole).

Values travel as ``(sign, exp, man)`` int64 arrays and Dst values as FP32-layout bits:
FP32 and BF16 (``bf16 << 16``) as IEEE, FP16 as sign[31] exp5[27:23] man10[22:13]
(:func:`dst_in_fp16` / :func:`dst_out_fp16`).
"""

from __future__ import annotations

import numpy as np

I64 = np.int64
_U32 = np.uint32


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


def _align(man, sign, d):
    """``man`` shifted right ``d`` places (d >= 0), rounded half up (``sign`` 0) or half
    down (``sign`` 1, i.e. half towards +inf for a negative term); 0 from 31 places."""
    dc = np.clip(d, 1, 30)
    r = (man + (I64(1) << (dc - 1)) - sign) >> dc
    return np.where(d <= 0, man, np.where(d >= 31, 0, r))


def accumulate(terms, dst, fp32_acc, exp8):
    """Sum the partial sums ``terms`` [(sign, exp, man25), ...] (man at 2**23 per unit of
    exp, i.e. the Dst mantissa's scale) and the Dst values ``dst`` (FP32-layout bits),
    returning FP32-layout result bits (uint32), see the module docstring."""
    dst = np.asarray(dst).astype(I64)
    sd = dst >> 31
    ed = (dst >> 23) & 255
    md = np.where(ed == 0, 0, (dst & 0x7FFFFF) | 0x800000)
    e = ed
    for _, et, _ in terms:
        e = np.maximum(e, et)
    emax = e
    md = _align(md, 0, e - ed)
    if not fp32_acc:
        md = (md + 4096) & ~0x1FFF
    total = np.where(sd == 1, -md, md)
    for st, et, mt in terms:
        mt = _align(mt, st, e - et)
        if not fp32_acc:
            mt = (mt + 4096 - st) & ~0x1FFF
        total = total + np.where(st == 1, -mt, mt)
    neg = total < 0
    mag = np.abs(total)
    shift = 24 - np.frexp(mag.astype(np.float64))[1]  # clz(mag) - 8 in 32 bits
    if fp32_acc:
        shift = np.where(neg & (mag == 1), -4, shift)
    e = e - shift
    keep = 0 if fp32_acc else (16 if exp8 else 13)
    shift = shift - keep
    rs = np.clip(-shift, 1, 62)
    man = np.where(shift < 0, (mag + (I64(1) << (rs - 1))) >> rs, mag << np.clip(shift, 0, 40))
    man = man << keep
    e_out = e + ((man >> 24) & 1)
    man = man & 0x7FFFFF
    sign = neg.astype(I64) << 31
    if fp32_acc or exp8:
        out = np.where(e_out >= 255, sign | (255 << 23), sign | (e_out << 23) | man)
    else:
        out = np.where(e_out >= 32, sign | (31 << 23) | (0x3FF << 13), sign | (e_out << 23) | man)
    out = np.where((emax <= 0) | (mag == 0) | (e_out <= 0), 0, out)
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
    """ELWADD / ELWSUB of Src bit arrays -> one partial sum (sign, exp, man25)."""
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
    man = np.where(sa == sb, ma + mb, ma - mb) << 13
    e = ea
    if fp32_acc and fp16:
        e = np.where(ea != 0, ea + (127 - 15), 127 - 30)
    if phase & 1:
        e = e - 5
    if phase & 2:
        e = e - 7
    return sa, e, man


def elw_mul(a, b, fp16, bf16, fp32_acc, phase):
    """ELWMUL of Src bit arrays (one fidelity phase) -> one partial sum."""
    sa, ea, ma, za = src_parts(a, fp16)
    sb, eb, mb, zb = src_parts(b, fp16)
    if bf16:
        ma, mb = ma & 0x7F8, mb & 0x7F8
    adj = prod_adj(fp32_acc, phase, not fp16)
    e = ea + eb + adj
    zero = za | zb | (e <= 0)
    man = (srca_bits(ma, phase) * srcb_bits(mb, phase)) << 13
    return (np.where(zero, 0, sa ^ sb), np.where(zero, max(adj, 0), e), np.where(zero, 0, man))


def dot(a, b, fp16, bf16, fp32_acc, phase):
    """MVMUL's products of SrcB rows ``b`` [n, 16] with SrcA ``a`` [16, 16] (one
    fidelity phase) -> two partial sums (sign, exp, man25) per output [n, 16]."""
    sa, ea, ma, za = src_parts(a, fp16)
    sb, eb, mb, zb = src_parts(b, fp16)
    if bf16:
        ma, mb = ma & 0x7F8, mb & 0x7F8
    adj = prod_adj(fp32_acc, phase, not fp16)
    big = I64(1) << 40
    # signed mantissa parts; zero operands get a very small exponent and mantissa 0
    pa = np.where(sa == 1, -srca_bits(ma, phase), srca_bits(ma, phase)).T  # [j, k]
    pb = np.where(sb == 1, -srcb_bits(mb, phase), srcb_bits(mb, phase))    # [i, k]
    xa = np.where(za, -big, ea).T
    xb = np.where(zb, -big, eb + adj)
    n = b.shape[0]
    m = (pb[:, None, :] * pa[None, :, :]).reshape(n, 16, 2, 8)
    e = (xb[:, None, :] + xa[None, :, :]).reshape(n, 16, 2, 8)
    esop = e.max(axis=3)
    zte = max(adj, 0)
    if zte > 0:  # zero products' exponent takes part in the group's exponent
        anyzero = (e < -(big >> 1)).any(axis=3)
        esop = np.where(anyzero, np.maximum(esop, zte), esop)
    d = np.minimum(esop[..., None] - e, 30)
    r = ((m << 1) + (I64(1) << d) + (m >> 63)) >> (d + 1)
    s = r.sum(axis=3)
    live = esop > 0
    s = np.where(live, s, 0)
    neg = (s < 0).astype(I64)
    return ((neg[..., 0], np.where(live[..., 0], esop[..., 0], 0), np.abs(s[..., 0]) << 13),
            (neg[..., 1], np.where(live[..., 1], esop[..., 1], 0), np.abs(s[..., 1]) << 13))
