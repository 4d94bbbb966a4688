"""Bit patterns -> float64 values, for dumps and tests."""

from __future__ import annotations

import numpy as np

from .codes import DataFormat, Repr
from .l1 import bfp_to_bf16, bfp_to_fp16, decode_l1
from .layout import (
    dst16_to_bf16,
    dst16_to_fp16,
    dst32_to_fp32,
    src_to_bf16,
    src_to_fp16,
    src_to_int16,
    src_to_tf32,
    u32,
)

__all__ = ["to_float64", "l1_to_float64", "MODES"]

MODES = ("tensix", "ieee", "fpu")


def _f32(x: np.ndarray, mode: str) -> np.ndarray:
    x = x.astype(np.uint32)
    with np.errstate(invalid="ignore"):  # signalling NaNs
        val = x.view(np.float32).astype(np.float64)
    if mode != "fpu":
        return val
    sign = np.where(x >> 31, -1.0, 1.0)
    exp = ((x >> 23) & 0xFF).astype(np.int64)
    man = (x & 0x7FFFFF).astype(np.float64)
    big = sign * np.ldexp(1.0 + man / 2.0**23, exp - 127)
    val = np.where(exp == 255, big, val)
    return np.where(exp == 0, sign * 0.0, val)


def _f16(x: np.ndarray, mode: str) -> np.ndarray:
    x = (x & 0xFFFF).astype(np.uint16)
    if mode == "ieee":
        return x.view(np.float16).astype(np.float64)
    sign = np.where(x >> 15, -1.0, 1.0)
    exp = ((x >> 10) & 0x1F).astype(np.int64)
    man = (x & 0x3FF).astype(np.float64)
    normal = sign * np.ldexp(1.0 + man / 1024.0, exp - 15)
    sub = sign * 0.0 if mode == "fpu" else sign * np.ldexp(man, -24)
    return np.where(exp == 0, sub, normal)


def _sm(x: np.ndarray, nbits: int) -> np.ndarray:
    mag = (x & ((1 << (nbits - 1)) - 1)).astype(np.float64)
    return np.where((x >> (nbits - 1)) & 1, -mag, mag)


def to_float64(bits, fmt, *, exps=None, mode: str = "tensix") -> np.ndarray:
    """Bit patterns -> float64 values.

    ``fmt`` is a :class:`DataFormat` (raw L1 datums; BFP formats need
    ``exps``, per group of 16 or per datum) or a :class:`Repr` (register
    contents).  Integer types give their integer value (sign-magnitude types
    decoded as such, so -0 gives -0.0; UInt16 / INT16 L1 data are shown
    unsigned, Dst/Src integer "16" as sign-magnitude).

    ``mode`` chooses the reading of float bit patterns (FloatBitPatterns.md):
      * ``"ieee"``: the IEEE 754 column (FP16 exponent 31 is Inf/NaN).
      * ``"tensix"`` (default): IEEE for 8-bit-exponent types; FP16-family
        exponent 31 is an ordinary number (1 + m/1024) * 2**16, since no unit
        gives FP16 a NaN and only SFPLOAD can optionally give it infinity.
      * ``"fpu"``: the Matrix Unit (FPU) column: exponent 0 is signed zero,
        8-bit exponent 255 is the finite (1 + m) * 2**128.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    x = u32(bits).reshape(-1)
    if isinstance(fmt, Repr):
        r = fmt
        if r is Repr.SRC_TF32:
            return _f32(src_to_tf32(x) << 13, mode)
        if r is Repr.SRC_BF16:
            return _f32(src_to_bf16(x) << 16, mode)
        if r is Repr.SRC_FP16:
            return _f16(src_to_fp16(x), mode)
        if r is Repr.SRC_INT8:
            return _sm(((x >> 18) << 10) | ((x >> 8) & 0x3FF), 11)
        if r is Repr.SRC_INT16:
            return _sm(src_to_int16(x), 16)
        if r is Repr.DST16_BF16:
            return _f32(dst16_to_bf16(x) << 16, mode)
        if r is Repr.DST16_FP16:
            return _f16(dst16_to_fp16(x), mode)
        if r is Repr.DST16_INT8:
            return _sm(((x >> 15) << 10) | ((x >> 5) & 0x3FF), 11)
        if r is Repr.DST16_INT16:
            return _sm(x & 0xFFFF, 16)
        if r is Repr.DST32_FP32:
            return _f32(dst32_to_fp32(x), mode)
        if r is Repr.DST32_INT32:
            return _sm(dst32_to_fp32(x), 32)
        if r is Repr.FP32:
            return _f32(x, mode)
        if r is Repr.INT32_SM:
            return _sm(x, 32)
        if r is Repr.INT32:
            return x.view(np.int32).astype(np.float64)
        return x.astype(np.float64)  # UINT32
    f = DataFormat(fmt)
    F = DataFormat
    if f in (F.Float32, F.Tf32):
        return _f32(x, mode)
    if f is F.Float16_b:
        return _f32(x << 16, mode)
    if f is F.Float16:
        return _f16(x, mode)
    if f is F.Fp8:
        return _f16(x << 8, mode)
    if f in (F.Bfp8_b, F.Bfp4_b, F.Bfp2_b):
        if exps is None:
            raise ValueError("BFP formats need exps")
        return _f32(bfp_to_bf16(x, exps, f) << 16, mode)
    if f in (F.Bfp8, F.Bfp4, F.Bfp2):
        if exps is None:
            raise ValueError("BFP formats need exps")
        return _f16(bfp_to_fp16(x, exps, f), mode)
    if f is F.Int32:
        return _sm(x, 32)
    if f is F.Int8:
        return _sm(x & 0xFF, 8)
    if f is F.UInt8:
        return (x & 0xFF).astype(np.float64)
    return (x & 0xFFFF).astype(np.float64)  # UInt16


def l1_to_float64(buf, fmt: DataFormat, count: int = 1024, *, mode: str = "tensix") -> np.ndarray:
    """L1 bytes holding ``count`` datums of ``fmt`` -> float64 values (datum order)."""
    datums, exps = decode_l1(buf, fmt, count)
    return to_float64(datums, fmt, exps=exps, mode=mode)
