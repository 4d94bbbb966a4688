"""ttemu.tensix.formats: codes, tiles, register layouts, L1 layout, BFP
decoding, the unpacker's conversion and to_float64.

References here are written independently of the module: bit fields are
placed one by one from the layout diagrams (SrcASrcB.md / Dst.md, the
Bits32 diagram sources), values are computed with Python integers,
fractions or numpy's float16/float32 casts.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ttemu.errors import UndefinedBehaviour
from ttemu.tensix import formats as F
from ttemu.tensix.formats import DataFormat as DF
from ttemu.tensix.formats import Repr

ALL16 = np.arange(1 << 16, dtype=np.uint32)
u32s = hnp.arrays(np.uint32, st.integers(1, 64), elements=st.integers(0, 2**32 - 1))


def f32_bits(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


def f32_val(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def put(*fields):
    """Place (value, lsb, width) fields into one integer."""
    out = 0
    for value, lsb, width in fields:
        assert 0 <= value < (1 << width)
        out |= value << lsb
    return out


# ---------------------------------------------------------------------------
# Codes
# ---------------------------------------------------------------------------


def test_format_codes_match_encoding_table():
    # Packers/FormatConversion.md encoding table (rows 0b00??..0b11??).
    expected = {
        0b0000: "FP32",
        0b0001: "FP16",
        0b0010: "BFP8a",
        0b0011: "BFP4a",
        0b0100: "TF32",
        0b0101: "BF16",
        0b0110: "BFP8",
        0b0111: "BFP4",
        0b1000: "INT32",
        0b1001: "INT16",
        0b1010: "FP8",
        0b1011: "BFP2a",
        0b1110: "INT8",
        0b1111: "BFP2",
    }
    for code, name in expected.items():
        assert F.from_hw_code(code).doc_name == name
        assert F.from_hw_code(code).hw_code == code
    stack = {
        "Float32": 0, "Float16": 1, "Bfp8": 2, "Bfp4": 3, "Tf32": 4, "Float16_b": 5, "Bfp8_b": 6,
        "Bfp4_b": 7, "Int32": 8, "UInt16": 9, "Fp8": 10, "Bfp2": 11, "Int8": 14, "Bfp2_b": 15,
    }
    for name, code in stack.items():
        assert DF[name] == code
    assert DF.Lf8 is DF.Fp8 and DF.Int16 is DF.UInt16


@pytest.mark.parametrize("code", [12, 13])
def test_unassigned_codes_raise(code):
    with pytest.raises(UndefinedBehaviour, match=str(code)):
        F.from_hw_code(code)


def test_uint8_is_int8_plus_flag():
    assert F.from_hw_code(14, unsigned=True) is DF.UInt8
    assert F.from_hw_code(14) is DF.Int8
    assert DF.UInt8.hw_code == 14


def test_datum_sizes_match_unpacker_switch():
    # UNPACR_Regular.md DatumSizeBytes switch, in bits.
    sizes = {2: [DF.Bfp2, DF.Bfp2_b], 4: [DF.Bfp4, DF.Bfp4_b], 8: [DF.Bfp8, DF.Bfp8_b, DF.Fp8, DF.Int8],
             16: [DF.Float16, DF.Float16_b, DF.UInt16], 32: [DF.Float32, DF.Tf32, DF.Int32]}
    for bits, fmts in sizes.items():
        for f in fmts:
            assert F.datum_bits(f) == bits


def test_tile_bytes():
    assert F.tile_bytes(DF.Float32) == 4096
    assert F.tile_bytes(DF.Tf32) == 4096
    assert F.tile_bytes(DF.Float16) == F.tile_bytes(DF.Float16_b) == 2048
    assert F.tile_bytes(DF.Int8) == F.tile_bytes(DF.UInt8) == F.tile_bytes(DF.Fp8) == 1024
    assert F.tile_bytes(DF.Bfp8_b) == F.tile_bytes(DF.Bfp8) == 64 + 1024
    assert F.tile_bytes(DF.Bfp4_b) == F.tile_bytes(DF.Bfp4) == 64 + 512
    assert F.tile_bytes(DF.Bfp2_b) == F.tile_bytes(DF.Bfp2) == 64 + 256


def test_exponent_section_padding():
    # ceil(ceil(n/16)/16)*16 bytes, as the unpacker skips it.
    assert F.exponent_section_bytes(16) == 16
    assert F.exponent_section_bytes(256) == 16
    assert F.exponent_section_bytes(257) == 32
    assert F.exponent_section_bytes(1024) == 64
    assert F.exponent_section_bytes(4096) == 256


# ---------------------------------------------------------------------------
# Tiles
# ---------------------------------------------------------------------------


def test_tile_face_order():
    m = np.arange(1024).reshape(32, 32)  # m[r, c] = 32 r + c
    d = F.tile_to_faces(m)
    for face, (r0, c0) in enumerate([(0, 0), (0, 16), (16, 0), (16, 16)]):
        for r in range(16):
            for c in range(16):
                assert d[face * 256 + r * 16 + c] == m[r0 + r, c0 + c]
    assert np.array_equal(F.faces_to_tile(d), m)


@settings(deadline=None)
@given(hnp.arrays(np.uint32, (3, 32, 32)))
def test_tile_round_trip_batched(m):
    assert np.array_equal(F.faces_to_tile(F.tile_to_faces(m)), m)
    assert np.array_equal(F.tile_to_faces(m)[1], F.tile_to_faces(m[1]))


# ---------------------------------------------------------------------------
# Register layouts (SrcASrcB.md, Dst.md data type bit layouts)
# ---------------------------------------------------------------------------


def test_dst16_bf16_layout_exhaustive():
    got = F.dst16_from_bf16(ALL16)
    ref = np.array([put((b >> 15, 15, 1), (b & 0x7F, 8, 7), ((b >> 7) & 0xFF, 0, 8)) for b in range(65536)])
    assert np.array_equal(got, ref)
    assert np.array_equal(F.dst16_to_bf16(got), ALL16)


def test_dst16_fp16_layout_exhaustive():
    got = F.dst16_from_fp16(ALL16)
    ref = np.array([put((b >> 15, 15, 1), (b & 0x3FF, 5, 10), ((b >> 10) & 0x1F, 0, 5)) for b in range(65536)])
    assert np.array_equal(got, ref)
    assert np.array_equal(F.dst16_to_fp16(got), ALL16)


@settings(deadline=None)
@given(u32s)
def test_dst32_layout(x):
    got = F.dst32_from_fp32(x)
    for xi, gi in zip(x.tolist(), got.tolist()):
        s, e, m = xi >> 31, (xi >> 23) & 0xFF, xi & 0x7FFFFF
        assert gi == put((s, 31, 1), (m >> 16, 24, 7), (e, 16, 8), (m & 0xFFFF, 0, 16))
    assert np.array_equal(F.dst32_to_fp32(got), x)
    hi, lo = F.dst32_split(got)
    assert np.array_equal(hi, F.dst16_from_bf16(x >> 16))  # high half is Dst16 BF16
    assert np.array_equal(F.dst32_join(hi, lo), got)


def test_dst32_int32_layout():
    # Dst.md: magnitude low [15:0], high [23:16], middle [30:24].
    mag = 0x5A3C_1234 & 0x7FFFFFFF
    got = int(F.dst32_from_fp32(np.array([0x80000000 | mag], np.uint32))[0])
    assert got == put((1, 31, 1), ((mag >> 16) & 0x7F, 24, 7), (mag >> 23, 16, 8), (mag & 0xFFFF, 0, 16))


def test_src_tf32_layout_exhaustive():
    x = np.arange(1 << 19, dtype=np.uint32)  # IEEE-order 19-bit TF32
    got = F.src_from_tf32(x)
    s, e, m = x >> 18, (x >> 10) & 0xFF, x & 0x3FF
    assert np.array_equal(got, (s << 18) | (m << 8) | e)
    assert np.array_equal(F.src_to_tf32(got), x)


def test_src_bf16_fp16_int16_layouts_exhaustive():
    b = ALL16
    s = b >> 15
    assert np.array_equal(F.src_from_bf16(b), (s << 18) | ((b & 0x7F) << 11) | ((b >> 7) & 0xFF))
    assert np.array_equal(F.src_to_bf16(F.src_from_bf16(b)), b)
    assert np.array_equal(F.src_from_fp16(b), (s << 18) | ((b & 0x3FF) << 8) | ((b >> 10) & 0x1F))
    assert np.array_equal(F.src_to_fp16(F.src_from_fp16(b)), b)
    assert np.array_equal(F.src_from_int16(b), ((b >> 8) << 11) | (b & 0xFF))
    assert np.array_equal(F.src_to_int16(F.src_from_int16(b)), b)


def test_mov_paths_agree_with_unpacker_paths():
    # MOVD2A/MOVD2B (Dst16 -> Src) must give what the unpacker would have
    # written to Src directly; MOVA2D/MOVB2D (Src -> Dst16) the inverse.
    b = ALL16
    assert np.array_equal(F.src_from_dst16_bf16(F.dst16_from_bf16(b)), F.src_from_bf16(b))
    assert np.array_equal(F.src_from_dst16_fp16(F.dst16_from_fp16(b)), F.src_from_fp16(b))
    assert np.array_equal(F.dst16_bf16_from_src(F.src_from_bf16(b)), F.dst16_from_bf16(b))
    assert np.array_equal(F.dst16_fp16_from_src(F.src_from_fp16(b)), F.dst16_from_fp16(b))


@settings(deadline=None)
@given(u32s)
def test_movd2a_tf32_follows_layouts_not_mask(x):
    # MOVD2A.md's ShuffleTF32 uses mask 0x3fc000 for sign+high mantissa, which
    # contradicts its own comment and the Src/Dst layouts.  Pinned: the move
    # is plain TF32 truncation (the same as the unpacker's FP32 -> TF32).
    got = F.src_from_dst32_tf32(F.dst32_from_fp32(x))
    assert np.array_equal(got, F.fp32_to_src_tf32(x))
    # And MOVA2D with TF32 restores FP32 with the low 13 bits cleared.
    assert np.array_equal(F.dst32_from_src_tf32(got), F.dst32_from_fp32(x & np.uint32(0xFFFFE000)))


def test_src_to_fp32_fpu_reading():
    one = f32_bits(1.5)
    assert int(F.src_to_fp32(F.fp32_to_src_tf32([one]), Repr.SRC_TF32)[0]) == one
    # exponent 0 reads as signed zero (FPU column)
    den = F.src_from_tf32([(1 << 18) | 5])
    assert int(F.src_to_fp32(den, Repr.SRC_TF32)[0]) == 0x80000000
    # FP16: rebias, exponent 31 is an ordinary exponent
    h = F.src_from_fp16([0x7FFF, 0x3C00, 0x8001])
    assert F.src_to_fp32(h, Repr.SRC_FP16).tolist() == [f32_bits(131008.0), f32_bits(1.0), 0x80000000]
    # BF16 style ignores the low three TF32 mantissa bits
    t = F.src_from_tf32([(127 << 10) | 0x3FF])
    assert int(F.src_to_fp32(t, Repr.SRC_BF16)[0]) == 0x3FFF0000


def test_src_int8_value():
    v = F.unpack_convert(np.arange(256), DF.Int8, DF.Int8, to_dst=False)
    ref = [(-(i & 0x7F) if i & 0x80 else i) for i in range(256)]
    assert F.src_int8_value(v).tolist() == ref


# ---------------------------------------------------------------------------
# L1 layout
# ---------------------------------------------------------------------------


def test_subbyte_order_lsb_first():
    assert F.read_datums(bytes([0x21, 0x43]), DF.Bfp4_b, 4).tolist() == [1, 2, 3, 4]
    assert F.read_datums(bytes([0b11100100]), DF.Bfp2_b, 4).tolist() == [0, 1, 2, 3]
    assert F.read_datums(bytes([0x21, 0x43]), DF.Bfp4, 2, first=1).tolist() == [2, 3]
    assert F.write_datums([1, 2, 3], DF.Bfp4).tolist() == [0x21, 0x03]


def test_little_endian():
    assert F.read_datums(bytes([1, 2, 3, 4]), DF.Float32, 1).tolist() == [0x04030201]
    assert F.read_datums(bytes([1, 2, 3, 4]), DF.Float16_b, 2).tolist() == [0x0201, 0x0403]
    assert F.write_datums([0x04030201], DF.Int32).tolist() == [1, 2, 3, 4]


@pytest.mark.parametrize("fmt", [f for f in DF if not F.is_bfp(f)] + [DF.Bfp8_b, DF.Bfp4, DF.Bfp2_b])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_l1_round_trip(fmt, data):
    n = 16 * data.draw(st.integers(1, 70))
    bits = F.datum_bits(fmt)
    d = data.draw(hnp.arrays(np.uint32, n, elements=st.integers(0, (1 << bits) - 1)))
    exps = data.draw(hnp.arrays(np.uint8, n // 16)) if F.is_bfp(fmt) else None
    buf = F.encode_l1(d, fmt, exps)
    assert buf.size == F.tile_bytes(fmt, n)
    d2, e2 = F.decode_l1(bytes(buf), fmt, n)
    assert np.array_equal(d2, d)
    if exps is not None:
        assert np.array_equal(e2, exps)


def test_bfp8_b_tile_layout():
    rng = np.random.default_rng(1)
    d = rng.integers(0, 256, 1024).astype(np.uint32)
    e = rng.integers(0, 256, 64).astype(np.uint8)
    buf = F.encode_l1(d, DF.Bfp8_b, e)
    assert buf.size == 1088
    assert np.array_equal(buf[:64], e)
    assert np.array_equal(buf[64:], d.astype(np.uint8))


def test_exponents_for_unaligned_reads():
    sec = np.array([10, 11, 12], np.uint8)
    assert F.exponents_for(sec, 14, 4).tolist() == [10, 10, 11, 11]
    assert F.exponents_for(bytes(sec), 40, 2).tolist() == [12, 12]
    with pytest.raises(ValueError):
        F.exponents_for(sec, 40, 9)


def test_exponent_section_padded_with_zeros():
    buf = F.encode_l1(np.zeros(32, np.uint32), DF.Bfp8_b, [7, 9])
    assert buf.tolist()[:16] == [7, 9] + [0] * 14
    assert buf.size == 16 + 32


# ---------------------------------------------------------------------------
# BFP -> BF16 / FP16 (FloatBitPatterns.md conversion routines)
# ---------------------------------------------------------------------------


def ref_bfp8_to_bf16(d: int, e: int) -> int:
    sign, mag = d >> 7, d & 0x7F
    if mag == 0:
        return 0xFF80 if sign else 0
    k = mag.bit_length() - 1  # value = mag/64 * 2**(e-127) = 1.f * 2**(e-127-(6-k))
    exp = (e - (6 - k)) % 256  # the routine works in uint8_t
    frac = (mag - (1 << k)) << (7 - k)
    return (sign << 15) | (exp << 7) | frac


def test_bfp8_to_bf16_exhaustive():
    d = np.tile(np.arange(256, dtype=np.uint32), 256)
    e = np.repeat(np.arange(256, dtype=np.uint32), 256)
    got = F.bfp_to_bf16(d, e, DF.Bfp8_b)
    ref = np.array([ref_bfp8_to_bf16(int(a), int(b)) for a, b in zip(d, e)])
    assert np.array_equal(got, ref)


def test_bfp8_value_table_when_no_wrap():
    # FloatBitPatterns.md BFP8 table: Mag/2**6 * 2**(Exp-127).  Exact in BF16
    # whenever the normalised exponent stays >= 1.
    d = np.tile(np.arange(1, 256, dtype=np.uint32), 256)
    d = d[(d & 0x7F) != 0]
    e = np.random.default_rng(0).integers(7, 256, d.size).astype(np.uint32)
    # The FPU reading, since the table gives exponent 255 its finite meaning.
    vals = F.to_float64(d, DF.Bfp8_b, exps=e, mode="fpu")
    mag = (d & 0x7F).astype(np.float64)
    ref = np.where(d >> 7, -1.0, 1.0) * np.ldexp(mag / 64.0, e.astype(np.int64) - 127)
    assert np.array_equal(vals, ref)


def test_bfp8_exponent_wrap_pinned():
    # Docs disagreement: the value table says datum 0x01 with exponent 0 is
    # 2**-6 * 2**-127, but BFP8ToBF16 subtracts the shift in uint8_t and
    # wraps.  We follow the routine (it states what hardware does).
    assert F.bfp_to_bf16([0x01], [0], DF.Bfp8_b).tolist() == [(250 << 7)]
    # shift equal to the exponent: exponent field 0 (read as zero by the FPU)
    assert F.bfp_to_bf16([0x01], [6], DF.Bfp8_b).tolist() == [0]


def test_bfp_negative_zero_is_minus_infinity():
    assert F.bfp_to_bf16([0x80], [100], DF.Bfp8_b).tolist() == [0xFF80]
    assert F.bfp_to_bf16([0x8], [100], DF.Bfp4_b).tolist() == [0xFF80]
    assert F.bfp_to_bf16([0x2], [100], DF.Bfp2_b).tolist() == [0xFF80]
    assert F.bfp_to_fp16([0x80], [3], DF.Bfp8).tolist() == [0xFC00]
    assert F.to_float64([0x80], DF.Bfp8, exps=[3]).tolist() == [-65536.0]  # -2**16 per the BFP8a table


def test_bfp4_bfp2_widen_to_bfp8():
    d4 = np.arange(16, dtype=np.uint32)
    e = np.full(16, 130, np.uint32)
    assert np.array_equal(F.bfp_to_bf16(d4, e, DF.Bfp4_b), F.bfp_to_bf16(d4 << 4, e, DF.Bfp8_b))
    d2 = np.arange(4, dtype=np.uint32)
    assert np.array_equal(F.bfp_to_fp16(d2, e[:4] - 110, DF.Bfp2), F.bfp_to_fp16(d2 << 6, e[:4] - 110, DF.Bfp8))
    # BFP2 magnitude 1 is 2**(Exp-127); BFP4 mag m is m/4 * 2**(Exp-127)
    assert F.to_float64([1, 3], DF.Bfp2_b, exps=[128, 128]).tolist() == [2.0, -2.0]
    assert F.to_float64([0x5], DF.Bfp4_b, exps=[127]).tolist() == [1.25]


def test_bfp8a_to_fp16_exhaustive_defined_range():
    d = np.tile(np.arange(256, dtype=np.uint32), 32)
    e = np.repeat(np.arange(32, dtype=np.uint32), 256)
    ok = np.array([(a & 0x7F) == 0 or b - (7 - (a & 0x7F).bit_length()) >= 0 for a, b in zip(d.tolist(), e.tolist())])
    got = F.bfp_to_fp16(d[ok], e[ok], DF.Bfp8)
    for a, b, g in zip(d[ok].tolist(), e[ok].tolist(), got.tolist()):
        sign, mag = a >> 7, a & 0x7F
        if mag == 0:
            assert g == (0xFC00 if sign else 0)
            continue
        k = mag.bit_length() - 1
        assert g == (sign << 15) | ((b - (6 - k)) << 10) | (((mag - (1 << k)) << (7 - k)) << 3)


def test_bfp8a_undefined_exponents_raise():
    with pytest.raises(UndefinedBehaviour, match="BFP8a"):
        F.bfp_to_fp16([0x40], [32], DF.Bfp8)  # shared exponent above 31
    with pytest.raises(UndefinedBehaviour):
        F.bfp_to_fp16([0x01], [3], DF.Bfp8)  # shift wraps below zero
    # magnitude zero never looks at the exponent
    assert F.bfp_to_fp16([0x00, 0x80], [200, 200], DF.Bfp8).tolist() == [0, 0xFC00]


# ---------------------------------------------------------------------------
# Unpacker (UNPACR_Regular.md FormatConversion)
# ---------------------------------------------------------------------------


def test_unpack_fp16_bf16_identity_paths():
    for fmt, to_src, to_dst in [
        (DF.Float16, F.src_from_fp16, F.dst16_from_fp16),
        (DF.Float16_b, F.src_from_bf16, F.dst16_from_bf16),
    ]:
        assert np.array_equal(F.unpack_convert(ALL16, fmt, fmt, to_dst=False), to_src(ALL16))
        assert np.array_equal(F.unpack_convert(ALL16, fmt, fmt, to_dst=True), to_dst(ALL16))
        assert not F.unpack_writes_dst32(fmt)


@settings(deadline=None)
@given(u32s)
def test_unpack_fp32(x):
    # to Src TF32: truncation to the top 19 bits
    s = F.unpack_convert(x, DF.Float32, DF.Tf32, to_dst=False)
    assert np.array_equal(F.src_to_tf32(s), x >> 13)
    # to Dst with OutDataFormat TF32: "TF32 means FP32", nothing dropped
    d = F.unpack_convert(x, DF.Float32, DF.Tf32, to_dst=True)
    assert np.array_equal(F.dst32_to_fp32(d), x)
    assert F.unpack_writes_dst32(DF.Tf32)
    d = F.unpack_convert(x, DF.Float32, DF.Float32, to_dst=True)
    assert np.array_equal(F.dst32_to_fp32(d), x)
    # to BF16: exponent 0 flushes to signed zero, then truncation
    for to_dst in (False, True):
        b = F.unpack_convert(x, DF.Float32, DF.Float16_b, to_dst=to_dst)
        back = F.dst16_to_bf16(b) if to_dst else F.src_to_bf16(b)
        for xi, bi in zip(x.tolist(), back.tolist()):
            if (xi >> 23) & 0xFF == 0:
                assert bi == (xi >> 31) << 15
            else:
                assert bi == xi >> 16


def test_unpack_fp32_to_fp16_follows_ttsim():
    """UNPACR_Regular.md calls FP32ToFP16 without defining it; ttsim's conversion
    (ttsim completes such runs): rebias, flush below range to signed zero, saturate
    above it to exponent 31 / mantissa all ones, truncate the mantissa. Reference:
    numpy's float16 for exactly representable values and the rules for the rest."""
    x = np.array([1.0, -2.5, 65504.0, 1e6, -1e6, 2.0**-14, 2.0**-16, -0.0, 1.0 + 2.0**-12], np.float32)
    got = F.fp32_to_fp16_ttsim(x.view(np.uint32))
    want = [np.float16(1.0).view(np.uint16), np.float16(-2.5).view(np.uint16), np.float16(65504.0).view(np.uint16),
            0x7FFF, 0xFFFF, 0x0400, 0x0000, 0x8000, 0x3C00]  # 1 + 2**-12 truncates to 1.0
    assert got.tolist() == [int(w) for w in want]
    src = F.unpack_convert(x.view(np.uint32), DF.Float32, DF.Float16, to_dst=False)
    assert np.array_equal(src, F.unpack_convert(got, DF.Float16, DF.Float16, to_dst=False))


def test_unpack_undefined_cases():
    one = np.array([0x3F800000], np.uint32)
    with pytest.raises(UndefinedBehaviour):
        F.unpack_convert(one, DF.Float32, DF.Float32, to_dst=False)
    with pytest.raises(UndefinedBehaviour):
        F.unpack_convert(one, DF.Int32, DF.Int32, to_dst=False)
    with pytest.raises(UndefinedBehaviour):
        F.unpack_convert(one, DF.Tf32, DF.Tf32, to_dst=False)
    with pytest.raises(UndefinedBehaviour):
        F.unpack_convert(one, DF.Float16_b, DF.Float16, to_dst=True)
    with pytest.raises(UndefinedBehaviour):
        F.unpack_convert(one, DF.Float32, DF.Int8, to_dst=True)


def test_unpack_tf32_to_dst_keeps_all_bits():
    x = np.array([0x3F812345], np.uint32)
    assert F.dst32_to_fp32(F.unpack_convert(x, DF.Tf32, DF.Tf32, to_dst=True)).tolist() == [0x3F812345]


def test_unpack_int8_signed_and_unsigned():
    d = np.arange(256, dtype=np.uint32)
    src = F.unpack_convert(d, DF.Int8, DF.Int8, to_dst=False)
    dst = F.unpack_convert(d, DF.Int8, DF.Int8, to_dst=True)
    for i in range(256):
        sign, mag = i >> 7, i & 0x7F
        lo5 = 16 if mag else 0  # "16 or 0"
        assert int(src[i]) == put((sign, 18, 1), (mag, 8, 10), (lo5, 0, 5))
        assert int(dst[i]) == put((sign, 15, 1), (mag, 5, 10), (lo5, 0, 5))
    usrc = F.unpack_convert(d, DF.Int8, DF.Int8, to_dst=False, int8_unsigned=True)
    assert np.array_equal(usrc, F.unpack_convert(d, DF.UInt8, DF.UInt8, to_dst=False))
    for i in range(256):
        assert int(usrc[i]) == put((i, 8, 10), (16 if i else 0, 0, 5))
    assert F.to_float64(dst, Repr.DST16_INT8).tolist() == F.to_float64(d, DF.Int8).tolist()


def test_unpack_fp8_int16_int32():
    d = np.arange(256, dtype=np.uint32)
    assert np.array_equal(F.unpack_convert(d, DF.Fp8, DF.Fp8, to_dst=True), F.dst16_from_fp16(d << 8))
    assert np.array_equal(F.unpack_convert(ALL16, DF.UInt16, DF.UInt16, to_dst=True), ALL16)
    assert np.array_equal(F.unpack_convert(ALL16, DF.UInt16, DF.UInt16, to_dst=False), F.src_from_int16(ALL16))
    x = np.array([0x80000005, 0x7FFFFFFF], np.uint32)
    assert np.array_equal(F.unpack_convert(x, DF.Int32, DF.Int32, to_dst=True), F.dst32_from_fp32(x))
    assert F.unpack_writes_dst32(DF.Int32)


def test_unpack_bfp_goes_through_bf16_fp16():
    rng = np.random.default_rng(5)
    d = rng.integers(0, 256, 64).astype(np.uint32)
    e = rng.integers(10, 250, 4).astype(np.uint32)
    got = F.unpack_convert(d, DF.Bfp8_b, DF.Bfp8_b, to_dst=False, exps=e)
    assert np.array_equal(got, F.src_from_bf16(F.bfp_to_bf16(d, e, DF.Bfp8_b)))
    ea = rng.integers(7, 32, 4).astype(np.uint32)
    got = F.unpack_convert(d, DF.Bfp8, DF.Bfp8, to_dst=True, exps=ea)
    assert np.array_equal(got, F.dst16_from_fp16(F.bfp_to_fp16(d, ea, DF.Bfp8)))


# ---------------------------------------------------------------------------
# to_float64
# ---------------------------------------------------------------------------


def test_to_float64_ieee_matches_numpy():
    h = ALL16.astype(np.uint16)
    ref16 = h.view(np.float16).astype(np.float64)
    got = F.to_float64(ALL16, DF.Float16, mode="ieee")
    assert np.array_equal(got, ref16, equal_nan=True)
    bf = F.to_float64(ALL16, DF.Float16_b, mode="ieee")
    with np.errstate(invalid="ignore"):
        refbf = (ALL16 << 16).view(np.float32).astype(np.float64)
    assert np.array_equal(bf, refbf, equal_nan=True)
    assert np.array_equal(F.to_float64(ALL16, Repr.DST16_BF16), F.to_float64(F.dst16_to_bf16(ALL16), DF.Float16_b),
                          equal_nan=True)


def test_to_float64_tensix_fp16_has_no_inf_nan():
    v = F.to_float64(ALL16, DF.Float16)
    assert np.all(np.isfinite(v))
    assert F.to_float64([0x7C00, 0x7FFF, 0xFC00], DF.Float16).tolist() == [65536.0, 131008.0, -65536.0]
    normal = ((ALL16 >> 10) & 0x1F) < 31
    assert np.array_equal(v[normal], F.to_float64(ALL16, DF.Float16, mode="ieee")[normal])
    assert np.array_equal(F.to_float64(F.dst16_from_fp16(ALL16), Repr.DST16_FP16), v)
    assert np.array_equal(F.to_float64(F.src_from_fp16(ALL16), Repr.SRC_FP16), v)


def test_to_float64_fpu_mode():
    assert F.to_float64([0x00000001, 0x80000001], DF.Float32, mode="fpu").tolist() == [0.0, -0.0]
    assert math.copysign(1, F.to_float64([0x80000001], DF.Float32, mode="fpu")[0]) == -1
    assert F.to_float64([0x7F800000, 0xFFC00000], DF.Float32, mode="fpu").tolist() == [2.0**128, -1.5 * 2.0**128]
    assert F.to_float64([0x0001], DF.Float16, mode="fpu").tolist() == [0.0]
    assert F.to_float64([0x0001], DF.Float16).tolist() == [2.0**-24]


def test_to_float64_integers():
    assert F.to_float64([0x85, 0x05, 0x80], DF.Int8).tolist() == [-5.0, 5.0, -0.0]
    assert F.to_float64([0x85], DF.UInt8).tolist() == [133.0]
    assert F.to_float64([0x80000007], DF.Int32).tolist() == [-7.0]
    assert F.to_float64([0xFFFF], DF.UInt16).tolist() == [65535.0]
    assert F.to_float64([0xFFFFFFFF], Repr.INT32).tolist() == [-1.0]
    assert F.to_float64([0x80000003], Repr.INT32_SM).tolist() == [-3.0]
    assert F.to_float64(F.dst32_from_fp32([0x80000009]), Repr.DST32_INT32).tolist() == [-9.0]
    assert F.to_float64([0x8005], Repr.DST16_INT16).tolist() == [-5.0]
    assert F.to_float64(F.src_from_int16([0x8105]), Repr.SRC_INT16).tolist() == [-261.0]


@settings(deadline=None)
@given(u32s)
def test_to_float64_fp32_reprs(x):
    ref = x.view(np.float32).astype(np.float64)
    assert np.array_equal(F.to_float64(x, Repr.FP32), ref, equal_nan=True)
    assert np.array_equal(F.to_float64(F.dst32_from_fp32(x), Repr.DST32_FP32), ref, equal_nan=True)
    t = F.fp32_to_src_tf32(x)
    assert np.array_equal(F.to_float64(t, Repr.SRC_TF32), (x & np.uint32(0xFFFFE000)).view(np.float32),
                          equal_nan=True)


def test_l1_to_float64_bfp8_b_tile():
    e = np.full(64, 127, np.uint8)
    d = np.tile(np.array([0x40, 0xC0, 0x20, 0x00], np.uint32), 256)
    buf = F.encode_l1(d, DF.Bfp8_b, e)
    v = F.l1_to_float64(buf, DF.Bfp8_b)
    assert v[:4].tolist() == [1.0, -1.0, 0.5, 0.0]
