"""Numeric format conversions of the Tensix coprocessor, bit-exact, on numpy
arrays of raw bit patterns.

Sources: the Wormhole B0 ISA documentation, TensixTile/TensixCoprocessor/
(FloatBitPatterns.md, Dst.md, SrcASrcB.md, LReg.md, UNPACR_Regular.md,
Packers/FormatConversion.md, Packers/ExponentThresholding.md, SFPLOAD.md,
SFPSTORE.md, SFPLOADI.md, SFPSTOCHRND*.md, MOVD2A.md, MOVB2D.md, ELWMUL.md).
Each function names the page it follows.  Cases the docs leave undefined
raise :class:`ttemu.errors.UndefinedBehaviour`; choices the docs do not make
but that we had to make are listed in the docstrings that make them.

Conventions
-----------
* Every function takes array-likes of raw bits and returns ``np.uint32``
  arrays (16- and 19-bit values included), except byte buffers
  (``np.uint8``) and BFP exponents (``np.uint8``).  All work is vectorised.
* "IEEE layout" = sign, exponent, mantissa from the top bit down.  Register
  layouts differ (see :class:`Repr`): Dst16 and Src keep the exponent in the
  low bits, Dst32 FP32 is ``sign, man[22:16], exp, man[15:0]``.
* The emulator's internal values: LRegs hold IEEE FP32 / integers
  (:class:`Repr` FP32, INT32_SM, INT32, UINT32); ``DstBits`` hold Dst16
  storage bits (Dst32 values are two Dst16 halves, :func:`dst32_split`);
  SrcA/SrcB hold 19-bit Src values.

Format codes (:class:`DataFormat`, hardware 4-bit codes)
--------------------------------------------------------
====  ==========  ========  =========================================
code  name        docs      L1 datum
====  ==========  ========  =========================================
0     Float32     FP32      32b IEEE
1     Float16     FP16      16b, IEEE for normals; exp 31 is finite
2     Bfp8        BFP8a     8b sign+mag7, shared 5b exponent
3     Bfp4        BFP4a     4b sign+mag3, shared 5b exponent
4     Tf32        TF32      32b, low 13 bits zero
5     Float16_b   BF16      16b, top half of FP32
6     Bfp8_b      BFP8      8b sign+mag7, shared 8b exponent
7     Bfp4_b      BFP4      4b sign+mag3, shared 8b exponent
8     Int32       INT32     32b sign + 31b magnitude
9     UInt16      INT16     16b (sign + 15b magnitude, or opaque)
10    Fp8 (Lf8)   FP8       8b e5m2, top byte of FP16
11    Bfp2        BFP2a     2b sign+mag1, shared 5b exponent
12,13 -           -         unassigned (UndefinedBehaviour)
14    Int8        INT8      8b sign + 7b magnitude
15    Bfp2_b      BFP2      2b sign+mag1, shared 8b exponent
(30)  UInt8       UINT8     code 14 + the "unsigned" config bit
====  ==========  ========  =========================================

API
---
Codes and tiles (:mod:`.codes`):
  ``DataFormat``, ``Intermediate``, ``Repr``, ``from_hw_code(code, unsigned=False)``,
  ``is_bfp(fmt)``, ``datum_bits(fmt)``, ``bfp_exponent_bits(fmt)``,
  ``exponent_section_bytes(n)``, ``tile_bytes(fmt, n=1024)``,
  ``tile_to_faces(m32x32)``, ``faces_to_tile(v1024)``.
L1 layout (:mod:`.l1`):
  ``read_datums(buf, fmt, count, first=0)``, ``write_datums(datums, fmt)``,
  ``decode_l1(buf, fmt, count=1024) -> (datums, exps|None)``,
  ``encode_l1(datums, fmt, exps=None) -> bytes``, ``expand_exponents``,
  ``exponents_for(exp_section, first, count)``,
  ``bfp_to_bf16(datums, exps, fmt)``, ``bfp_to_fp16(datums, exps, fmt)``.
Register layouts and moves (:mod:`.layout`):
  ``dst16_{from,to}_{bf16,fp16}``, ``dst32_{from,to}_fp32``, ``dst32_split/join``,
  ``src_{from,to}_tf32``, ``src_from_bf16``, ``src_to_bf16``, ``src_{from,to}_fp16``,
  ``src_{from,to}_int16``, MOV*: ``src_from_dst16_bf16``, ``src_from_dst16_fp16``,
  ``src_from_dst32_tf32``, ``dst16_bf16_from_src``, ``dst16_fp16_from_src``,
  ``dst32_from_src_tf32``; FP32<->Src: ``fp32_to_src_tf32``, ``fp32_to_src_bf16``,
  ``src_to_fp32(src, style)``, ``src_int8_value``; FP32<->Dst16 (SFPU):
  ``fp32_from_dst16_fp16(x, enable_fp16a_inf)``, ``fp32_from_dst16_bf16``,
  ``fp32_to_dst16_fp16``, ``fp32_to_dst16_bf16``, ``fp32_to_fp16_sfpstore``,
  ``fp32_to_bf16_sfpstore``, ``fp32_from_fp16_sfploadi``;
  ``sfpload_convert(dst, mod0, old_lreg=, enable_fp16a_inf=)``,
  ``sfpstore_convert(lreg, mod0)``; integers: ``sign_mag_to_twos``,
  ``twos_to_sign_mag``, ``int_to_sign_mag``, ``sign_mag_to_int``.
Unpacker (:mod:`.unpack`):
  ``unpack_convert(datums, in_fmt, out_fmt, to_dst=, exps=, int8_unsigned=)``,
  ``unpack_writes_dst32(out_fmt)``.
Packer (:mod:`.pack` early, :mod:`.pack_late` late, :mod:`.rounding`):
  ``packer_early(dst_bits, src_repr, intermediate, EarlyMode, shift=, random=)``,
  ``early_from_config(read_32b_data=, read_raw=, round_10b_mant=, read_unsigned=,
  intermediate_code=, late_from=, late_to=) -> (Repr, Intermediate, EarlyMode)``,
  ``packer_late(bits, intermediate, fmt, random=, bfp_overflow=) -> (datums, exps|None)``,
  ``bfp_encode``, ``exponent_threshold``, ``round_up_mask``,
  ``round_fp32_mantissa``, ``round_fp16_mantissa``,
  ``encode_from_fp32(fp32, fmt, ...) -> bytes``.
Display (:mod:`.display`):
  ``to_float64(bits, fmt_or_repr, exps=None, mode="tensix")``,
  ``l1_to_float64(buf, fmt, count=1024, mode=...)``.

Stochastic rounding takes an explicit uint32 ``random`` array (one value per
datum, low 23 bits used) so results are deterministic.

Docs disagreements (each pinned by a test)
------------------------------------------
* Packer rounding is round-to-nearest, ties *away from zero*
  (Packers/FormatConversion.md), not IEEE ties-to-even.
* BFP8 value table vs ``BFP8ToBF16``: the routine's uint8 exponent wraps
  when the normalising shift exceeds the shared exponent; we follow the
  routine.
* MOVD2A.md ``ShuffleTF32`` mask ``0x3fc000`` contradicts its comment and
  the Src/Dst layouts; we follow the layouts.
* SFPSTORE flushes 2**-15 < |x| < 2**-14 to zero when making FP16, while the
  packer's late conversion "mishandles" that range (UndefinedBehaviour).

Undefined cases that raise UndefinedBehaviour
---------------------------------------------
Unassigned format codes 12/13; UNPACR FP32 -> FP16 (``FP32ToFP16`` is never
defined) and every unpacker/packer combination the tables mark "No";
BFP8a/4a/2a datums whose adjusted exponent leaves 5 bits; packer late
conversions of FP16-family denormals to a wider exponent without mantissa
narrowing, and of 2**-15 < |x| < 2**-14 to a 5-bit exponent; a BFP magnitude
rounding up to 128 (``bfp_overflow="saturate"`` opts into clamping); FP16 ->
E5M6/FP16 rounding that carries past exponent 31; exponent thresholding with
BFP2a; configuration combinations matching no documented recipe.
"""

from .codes import (
    BFP_GROUP,
    FACE_DATUMS,
    TILE_DATUMS,
    DataFormat,
    Intermediate,
    Repr,
    bfp_exponent_bits,
    datum_bits,
    exponent_section_bytes,
    faces_to_tile,
    from_hw_code,
    is_bfp,
    tile_bytes,
    tile_to_faces,
)
from .display import MODES, l1_to_float64, to_float64
from .l1 import (
    as_bytes,
    bfp_to_bf16,
    bfp_to_fp16,
    decode_l1,
    encode_l1,
    expand_exponents,
    exponents_for,
    read_datums,
    write_datums,
)
from .layout import (
    MOD0_FMT_BF16,
    MOD0_FMT_FP16,
    MOD0_FMT_FP32,
    MOD0_FMT_HI16,
    MOD0_FMT_HI16_ONLY,
    MOD0_FMT_INT8,
    MOD0_FMT_INT8_COMP,
    MOD0_FMT_INT16,
    MOD0_FMT_INT32,
    MOD0_FMT_INT32_ALL,
    MOD0_FMT_INT32_SM,
    MOD0_FMT_LO16,
    MOD0_FMT_LO16_ONLY,
    MOD0_FMT_SRCB,
    MOD0_FMT_UINT16,
    MOD0_FMT_ZERO,
    SFPLOAD_READS_DST32,
    SFPSTORE_WRITES_DST32,
    dst16_bf16_from_src,
    dst16_fp16_from_src,
    dst16_from_bf16,
    dst16_from_fp16,
    dst16_to_bf16,
    dst16_to_fp16,
    dst32_from_fp32,
    dst32_from_src_tf32,
    dst32_join,
    dst32_split,
    dst32_to_fp32,
    fp32_from_dst16_bf16,
    fp32_from_dst16_fp16,
    fp32_from_fp16_sfploadi,
    fp32_to_bf16_flush_trunc,
    fp32_to_bf16_sfpstore,
    fp32_to_dst16_bf16,
    fp32_to_dst16_fp16,
    fp32_to_fp16_sfpstore,
    fp32_to_src_bf16,
    fp32_to_src_tf32,
    int_to_sign_mag,
    sfpload_convert,
    sfpstore_convert,
    sign_mag11_to_dst16_int8,
    sign_mag_to_int,
    sign_mag_to_twos,
    src_from_bf16,
    src_from_dst16_bf16,
    src_from_dst16_fp16,
    src_from_dst32_tf32,
    src_from_fp16,
    src_from_int16,
    src_from_tf32,
    src_int8_value,
    src_to_bf16,
    src_to_fp16,
    src_to_fp32,
    src_to_int16,
    src_to_tf32,
    twos_to_sign_mag,
    u32,
)
from .pack import EARLY_TABLE, EarlyMode, early_from_config, packer_early, round10_tf32, tf32_to_fp16, to_fp16_round10
from .pack_late import DEFAULT_ROUTE, bfp_encode, encode_from_fp32, exponent_threshold, fp16_to_fp8_e4m3, packer_late
from .rounding import round_fp16_mantissa, round_fp32_mantissa, round_up_mask
from .unpack import fp32_to_fp16_ttsim, int8_to_fp16_overlay, unpack_convert, unpack_writes_dst32
