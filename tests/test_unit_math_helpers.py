"""Helpers shared by the Matrix Unit tests (tests/test_unit_math*.py); no tests here.

Values go into SrcA/SrcB through the formats module's register layouts
(SrcASrcB.md "Data type bit layout") and come out of Dst the same way (Dst.md);
references are numpy computations written in the tests.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from tensix_harness import make
from ttemu.isa.table import get_table
from ttemu.tensix.formats import layout as L

WH = get_table("wormhole_b0")

# Hardware data-format codes (formats.DataFormat)
FMT_FP32, FMT_FP16, FMT_TF32, FMT_BF16, FMT_INT8 = 0, 1, 4, 5, 14


def tset(cop, thread, name, value):
    """ThreadConfig[thread].<name> = value (as SETC16 would, one field)."""
    idx, sh, width = cop.config.thread_fields[name]
    mask = ((1 << width) - 1) << sh
    old = int(cop.config.thread_cfg[thread, idx])
    cop.config.thread_set_word(thread, idx, (old & ~mask) | ((value << sh) & mask))


def setup(fmt=FMT_BF16, fp32=False, int8=False, own=True, bank=0):
    """A tile with the SrcA format, Dst mode, and (own=True) both math banks owned by
    the Matrix Unit. Returns (tile, issue, cop)."""
    tile, issue = make()
    cop = tile.tensix
    cfg = cop.config
    cfg.set("ALU_FORMAT_SPEC_REG0_SrcA", fmt, bank)
    cfg.set("ALU_FORMAT_SPEC_REG1_SrcB", fmt, bank)
    cfg.set("ALU_ACC_CTRL_Fp32_enabled", int(fp32), bank)
    cfg.set("ALU_ACC_CTRL_INT8_math_enabled", int(int8), bank)
    if own:
        give(cop)
    return tile, issue, cop


def give(cop, which="AB"):
    """Give the Matrix Unit's current SrcA / SrcB banks to the Matrix Unit (SETDVALID)."""
    for w in which:
        cop.src.allowed[w][cop.src.math_bank[w]] = "math"


# ---- value <-> register bits --------------------------------------------------------

def f32_bits(values):
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def bf16_bits(values):
    """float values exactly representable in BF16 -> IEEE BF16 bits."""
    b = f32_bits(values)
    assert not np.any(b & 0xFFFF), "not exactly representable in BF16"
    return b >> 16


def src_bf16(values):
    return L.src_from_bf16(bf16_bits(values))


def src_tf32(values):
    b = f32_bits(values)
    assert not np.any(b & 0x1FFF), "not exactly representable in TF32"
    return L.src_from_tf32(b >> 13)


def src_fp16(values):
    h = np.asarray(values, dtype=np.float16)
    assert np.array_equal(h.astype(np.float64), np.asarray(values, dtype=np.float64))
    return L.src_from_fp16(h.view(np.uint16))


def src_int8(values):
    """Integer "8" in Src: sign, 10-bit magnitude, exponent 16 (0 when the magnitude is 0)."""
    v = np.asarray(values, dtype=np.int64)
    mag = np.abs(v)
    return (((v < 0).astype(np.int64) << 18) | (mag << 8) | np.where(mag == 0, 0, 16)).astype(np.uint32)


def put_src(cop, which, row, bits, bank=None):
    bits = np.asarray(bits, dtype=np.uint32).reshape(-1, 16)
    b = cop.src.math_bank[which] if bank is None else bank
    cop.src.data[which][b][row:row + bits.shape[0]] = bits


def dst_bf16(cop, row, n=1):
    return (L.dst16_to_bf16(cop.dst.read16(row, n)) << 16).astype(np.uint32).view(np.float32)


def dst_fp16(cop, row, n=1):
    return L.dst16_to_fp16(cop.dst.read16(row, n)).astype(np.uint16).view(np.float16)


def dst_fp32_bits(cop, row, n=1):
    return L.dst32_to_fp32(cop.dst.read32(row, n))


def dst_fp32(cop, row, n=1):
    return dst_fp32_bits(cop, row, n).view(np.float32)


def dst_int32(cop, row, n=1):
    sm = L.dst32_to_fp32(cop.dst.read32(row, n)).astype(np.int64)
    mag = sm & 0x7FFFFFFF
    return np.where(sm >> 31, -mag, mag)


def put_dst_fp32(cop, row, values):
    cop.dst.write32(row, L.dst32_from_fp32(f32_bits(values)))


def put_dst_bf16(cop, row, values):
    cop.dst.write16(row, L.dst16_from_bf16(bf16_bits(values)))


def put_dst_fp16(cop, row, values):
    cop.dst.write16(row, L.dst16_from_fp16(np.asarray(values, dtype=np.float16).view(np.uint16)))


def put_dst_int32(cop, row, values):
    v = np.asarray(values, dtype=np.int64)
    sm = np.where(v < 0, (1 << 31) | -v, v).astype(np.uint32)
    cop.dst.write32(row, L.dst32_from_fp32(sm))


def direct(tile, unit, mnemonic, word, thread=0):
    """Run ``word`` on the unit with ``t.word`` set (bits the table does not decode)."""
    spec, fields = WH.decode(word)
    assert spec.mnemonic == mnemonic
    stub = SimpleNamespace(index=thread, word=word)
    return getattr(getattr(tile.tensix, unit), mnemonic)(stub, **fields)


# ---- doc-literal fidelity references (ELWMUL.md SrcAFidelityBits / SrcBFidelityBits) ----

def srca_fidelity(x32, phase):
    """``SrcAFidelityBits`` on float32 values, with the page's float32 bit masks."""
    x32 = np.asarray(x32, dtype=np.float32)
    if phase & 1 == 0:
        return (x32.view(np.uint32) & np.uint32(0xFFF80000)).view(np.float32)
    return x32 - (x32.view(np.uint32) & np.uint32(0xFFF83FFF)).view(np.float32)


def srcb_fidelity(x32, phase):
    x32 = np.asarray(x32, dtype=np.float32)
    if phase & 2 == 0:
        return (x32.view(np.uint32) & np.uint32(0xFFFE0000)).view(np.float32)
    return x32 - (x32.view(np.uint32) & np.uint32(0xFFFE1FFF)).view(np.float32)


def mvmul_reference(a, b, phases, dst0=None, tf32_a_lsb=False):
    """Dst after MVMULs with each of ``phases``, FP32 Dst rounded (RNE) after each
    phase, the product itself exact (float64 of few-bit partial products)."""
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    d = np.zeros((b.shape[0], 16), np.float32) if dst0 is None else np.asarray(dst0, np.float32)
    for p in phases:
        ap = srca_fidelity(a, p).astype(np.float64)
        bp = srcb_fidelity(b, p).astype(np.float64)
        d = (d.astype(np.float64) + bp @ ap).astype(np.float32)
    return d
