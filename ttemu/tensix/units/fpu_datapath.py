"""The Matrix Unit's floating-point datapath, bit for bit as ttsim models it.

The ISA pages give a functional model that is "a rough guide": order, fusing and
precision may differ (MVMUL.md, ELWADD.md, ELWMUL.md, last paragraph), and
``RoundToBF16`` / ``RoundToFP16`` are left undefined. ttsim (Tenstorrent's own
functional simulator) pins one datapath down, and it is the reference where the pages
are silent (tt-llk's eltwise, matmul and reduce kernels, ``scripts/llk_corpus.py``,
come out bit-identical only with it). Its observable behaviour:

* operands: the 11-bit mantissa (hidden bit included) and the exponent of each Src
  value; exponent 0 is zero (SrcASrcB.md). A multiply uses the 5 SrcA bits and 7 SrcB
  bits of the fidelity phase (ELWMUL.md ``SrcAFidelityBits`` / ``SrcBFidelityBits``):
  the product is a 12-bit integer with exponent ``ea + eb + adj``, ``adj`` rebiasing to
  the Dst exponent (-127 for 8-bit exponents, -15 for FP16 into a 16-bit Dst, +97 for
  FP16 into FP32) and dropping 5 / 7 more for odd / high phases. A zero product takes
  exponent ``max(adj, 0)``; ELWMUL also zeroes a product whose exponent is <= 0;
* MVMUL: the 16 products of a dot product are summed in two groups of 8, each aligned
  to its largest exponent, rounding half up as it shifts;
* ELWADD / ELWSUB: the smaller operand is aligned to the larger, rounding half up;
* then the (one or two) sums and the old Dst value are aligned to the largest of their
  exponents (sums round half up in signed terms, Dst half up in magnitude); with a
  16-bit Dst each is first rounded to 10 mantissa bits; they are added, normalised, and
  rounded half up to the Dst mantissa width (23 / 7 / 10 bits). Results with exponent
  <= 0 are +0; overflow is sign|255|0 (8-bit exponents) or sign|31|0x3FF (FP16).
  Renormalising -1 (a sum whose magnitude is 1 ulp and negative) is off by 27 places:
  a Wormhole erratum ttsim mimics.

Everything is vectorised on int64 arrays; values travel as "FP32-layout" bits (sign 31,
exponent 30..23, mantissa 22..0; an FP16 Dst keeps its 5-bit exponent in 27..23).
"""

from __future__ import annotations

import numpy as np

I64 = np.int64


def operands(x, fp16: bool, bf16: bool):
    """ttemu Src values (SrcASrcB.md: sign[18] man[17:8] exp[7:0], FP16 exp[4:0]) ->
    (sign, exponent, 11-bit mantissa, zero) int64 arrays. BF16 drops the three low
    TF32 mantissa bits."""
    x = np.asarray(x).astype(I64)
    man = (x >> 8) & 0x3FF
    if bf16:
        man &= 0x3F8
    exp = x & (0x1F if fp16 else 0xFF)
    return (x >> 18) & 1, exp, man | 0x400, exp == 0


def product_adjust(fp32_acc: bool, phase: int, exp8: bool) -> int:
    adj = -127 if exp8 else (97 if fp32_acc else -15)
    if phase & 1:
        adj -= 5
    if phase & 2:
        adj -= 7
    return adj


def products(a, b, phase, adj, underflow_is_zero):
    """(sign, exponent, 12-bit mantissa) of SrcA x SrcB in fidelity ``phase``; a and b
    are ``operands`` tuples broadcastable against each other. ELWMUL flushes a product
    whose exponent is <= 0; MVMUL keeps it for the alignment to its group's largest."""
    sa, ea, ma, za = a
    sb, eb, mb, zb = b
    ma = ((ma >> 1) & 31) if phase & 1 else (ma >> 6)
    mb = ((mb & 15) << 3) if phase & 2 else (mb >> 4)
    exp = ea + eb + adj
    zero = za | zb | ((exp <= 0) & underflow_is_zero)
    return (np.where(zero, 0, sa ^ sb), np.where(zero, max(adj, 0), exp), np.where(zero, 0, ma * mb))


_ONE = np.int64(1)


def _shift_round(m, k, bias):
    """m >> k rounding half up (``bias`` 1 rounds a negative term's half down); k >= 31
    gives 0; k <= 0 gives m."""
    k = np.minimum(np.maximum(k, 0), 62)
    half = (_ONE << k) >> 1  # 0 for k == 0
    if isinstance(bias, np.ndarray):
        half = half - (bias & (k > 0))
    return np.where(k >= 31, 0, (m + half) >> k)


def finish(sops, dst, fp32_acc: bool, exp8: bool):
    """Add the sums ``sops`` [(sign, exponent, 25-bit-scale mantissa)] to ``dst``
    (FP32-layout bits) and round to the Dst format. -> FP32-layout bits (int64)."""
    dst = np.asarray(dst).astype(I64)
    sd = (dst >> 31) & 1
    ed = (dst >> 23) & 0xFF
    md = np.where(ed == 0, 0, (dst & 0x7FFFFF) | 0x800000)
    big = ed
    for _, e, _ in sops:
        big = np.maximum(big, e)
    md = _shift_round(md, big - ed, 0)  # unchanged where ed >= big
    if not fp32_acc:
        md = (md + (1 << 12)) & ~0x1FFF
    total = md
    for s, e, m in sops:
        m = _shift_round(m, big - e, s)  # unchanged where e >= big
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
    right = np.minimum(np.maximum(-shift, 0), 62)
    half = (_ONE << right) >> 1  # 0 where right == 0
    man = np.where(shift < 0, (man + half) >> right, man << np.minimum(np.maximum(shift, 0), 40))
    if not fp32_acc:
        man = man << keep
    exp = np.where(man & 0x1000000, exp + 1, exp)
    man &= 0x7FFFFF
    if fp32_acc or exp8:
        out = np.where(exp >= 255, (sign << 31) | (255 << 23), (sign << 31) | (exp << 23) | man)
    else:
        out = np.where(exp >= 32, (sign << 31) | (31 << 23) | (0x3FF << 13), (sign << 31) | (exp << 23) | man)
    return np.where((big <= 0) | (total == 0) | (exp <= 0), 0, out)


def elwadd(a, b, dst, fp32_acc, accumulate, exp8, subtract=False):
    """ELWADD / ELWSUB of ``operands`` a, b onto ``dst`` (FP32-layout bits)."""
    sa, ea, ma, za = a
    sb, eb, mb, zb = b
    if subtract:
        sb = sb ^ 1
    ma = np.where(za, 0, ma)
    ea = np.where(za, 0, ea)
    sa = np.where(za, 0, sa)
    mb = np.where(zb, 0, mb)
    eb = np.where(zb, 0, eb)
    sb = np.where(zb, 0, sb)
    if not accumulate:
        dst = np.zeros(np.broadcast(ea, eb).shape, dtype=I64)
    # the larger magnitude first (exponent, then mantissa)
    swap = (ea * 2048 + (ma & 0x3FF)) < (eb * 2048 + (mb & 0x3FF))
    swap = np.where(za & ~zb, True, np.where(zb, False, swap))
    s1, e1, m1 = np.where(swap, sb, sa), np.where(swap, eb, ea), np.where(swap, mb, ma)
    s2, e2, m2 = np.where(swap, sa, sb), np.where(swap, ea, eb), np.where(swap, ma, mb)
    d = e1 - e2
    m2 = np.where(d >= 12, 0, np.where(d > 0, _shift_round(m2, d, 0), m2))
    man = np.where(s1 == s2, m1 + m2, m1 - m2) << 13
    exp = e1
    if fp32_acc and not exp8:
        exp = np.where(exp != 0, exp + 112, 97)
    return finish([(s1, exp, man)], dst, fp32_acc, exp8)


def elwmul(a, b, dst, fp32_acc, phase, exp8):
    """ELWMUL (always accumulating) of ``operands`` a, b onto ``dst``."""
    s, e, m = products(a, b, phase, product_adjust(fp32_acc, phase, exp8), True)
    return finish([(s, e, m << 13)], dst, fp32_acc, exp8)


def mvmul(a, b, dst, fp32_acc, phase, exp8):
    """``dst[r, c] += sum_k b[r, k] * a[k, c]``; a: operands of SrcA [16 k, 16 c],
    b: operands of SrcB [R, 16 k], dst [R, 16]. Two groups of 8 k."""
    adj = product_adjust(fp32_acc, phase, exp8)
    # products(A, B, phase, adj, False), with the fidelity bits taken and zero operands
    # cleared before broadcasting: a zero product's mantissa is 0 either way, and its
    # sign does not matter here (it adds 0 to the sum below).
    sa, ea, ma, za = a
    sb, eb, mb, zb = b
    ma = np.where(za, 0, ((ma >> 1) & 31) if phase & 1 else (ma >> 6))
    mb = np.where(zb, 0, ((mb & 15) << 3) if phase & 2 else (mb >> 4))
    A = tuple(x.T.reshape(1, 16, 2, 8) for x in (sa, ea, ma, za))  # [1, c, group, k]
    B = tuple(x.reshape(-1, 1, 2, 8) for x in (sb, eb, mb, zb))  # [R, 1, group, k]
    s = A[0] ^ B[0]
    e = np.where(A[3] | B[3], max(adj, 0), A[1] + B[1] + adj)
    m = A[2] * B[2]
    top = e.max(axis=-1)  # [R, c, group]
    d = np.minimum(top[..., None] - e, 30)
    part = ((m << 1) + (np.int64(1) << d)) >> (d + 1)
    total = np.where(s == 1, -part, part).sum(axis=-1)
    live = top > 0
    sign = (live & (total < 0)).astype(I64)
    mag = np.where(live, np.abs(total), 0) << 13
    top = np.where(live, top, 0)
    return finish([(sign[..., 0], top[..., 0], mag[..., 0]), (sign[..., 1], top[..., 1], mag[..., 1])],
                  dst, fp32_acc, exp8)
