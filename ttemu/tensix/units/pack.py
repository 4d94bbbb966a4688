"""Packers: PACR and PACR_SETREG, from Dst to L1.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/PACR.md, PACR_SETREG.md,
Packers/README.md, Packers/InputAddressGenerator.md, Packers/OutputAddressGenerator.md,
Packers/FormatConversion.md, Packers/EdgeMasking.md, Packers/ReLU.md,
Packers/ExponentHistogram.md, Packers/ExponentThresholding.md, Packers/Downsampling.md,
Packers/Compression.md, ../TDMA-RISC.md (packer metadata), ../L1.md (accumulation).
Instructions are methods named after their mnemonics (see ttemu.tensix.units).

Per-packer configuration (``Packers[i].Config[StateID].X``) is ``Config[StateID]``
``THCON_SEC0_REG1_X`` (packer 0), ``THCON_SEC0_REG8_X`` (1), ``THCON_SEC1_REG1_X`` (2),
``THCON_SEC1_REG8_X`` (3) (SETDMAREG_Special.md); ``Pack_limit_address`` /
``Pack_fifo_size`` are ``THCON_SEC0_REG9_Pack_0_2_*`` (0), ``THCON_SEC0_REG9_Pack_1_3_*``
(1), ``THCON_SEC1_REG9_Pack_0_2_*`` (2), ``THCON_SEC1_REG9_Pack_1_3_*`` (3); the 8-bit
``PCK_EDGE_TILE_FACE_SET_SELECT_select`` / ``PCK_EDGE_TILE_ROW_SET_SELECT_select`` hold
two bits per packer (packer i: bits 2i+1:2i); ``PACK_COUNTERS_SEC[i]`` and
``DEST_TARGET_REG_CFG_PACK_SEC[i]`` are per packer by name.

Model notes and decisions (where the pages leave a choice):

* A PACR completes as it issues: every selected packer reads Dst, converts and writes
  L1 before the next instruction. The output buffers before L1 (16 bytes per stream)
  and ``NeedsNewAddress`` persist between PACRs exactly as the output address
  generator page describes; BFP datums are held until a block of 16 is complete
  (a block split by ``Last`` / ``Flush`` is undefined).
* Pipeline order per datum: fetch from Dst (edge masking, early conversion), ReLU,
  exponent histogram, downsampling discards, exponent thresholding, late conversion,
  L1 (write or accumulate). The histogram counts the datums that pass the
  downsampling mask ("datums ... as they pass through the packer"); every fetched
  datum advances the edge-masking tile position generator.
* The tile position generator restarts at 0 when a PACR with ``Last`` or ``Flush``
  ends (the page does not say when it restarts; a tile is the natural unit).
* Edge masking's "-INFINITY": 0xff800000 for 8-bit-exponent intermediates; for
  5-bit-exponent ones (no infinity) the most negative value, sign + exponent 31 +
  all-ones mantissa (truncated to the intermediate's width); undefined for integers.
* ReLU on narrower float intermediates compares in FP32 and writes the threshold back
  truncated to the intermediate's mantissa. Integer intermediates support only
  ApplyRelu 0 / 1 ("should be set to zero or one"); 2 / 3 are undefined.
* ``In_data_format`` (LateFromFormat) must describe the early conversion's result:
  same exponent width and at least as many mantissa bits (BFP8 = e8m7, BFP8a = e5m7),
  or the same integer family; anything else is undefined. BFP4/BFP2 formats are only
  valid as ``Out_data_format``.
* Exponent histogram of INT8 / UINT8 intermediates is unspecified: they leave it alone.
* Stochastic rounding (``ALU_ROUNDING_MODE_Packer_srnd_en``), compression
  (``PerformingCompression``), packer 0 reading from L1 (``Source_interface_selection``)
  and ``INT_DESCALE_Mode`` = 1 (its ``z`` is not defined) raise Unimplemented.
* L1 accumulation (``Pack_L1_Acc``): every 16-byte write becomes L1 += data, in lanes
  of ``Out_data_format``. L1.md names the lane types but not the arithmetic; FP32, BF16
  and FP16 follow ttsim's packer (``_acc_fp32`` / ``_acc_bf16`` / ``_acc_fp16``:
  denormals as zeros, round to nearest even, NaN and saturation rules as ttsim),
  INT32 is sign-magnitude, saturating to +-(2**31 - 1), zero written as +0 (ttsim
  refuses it); other formats and the BFP exponent stream are undefined.
* ``LastTileSize`` counts the 16-byte L1 writes a packer made since its previous tile
  ended (both streams); the metadata FIFO holds 16 entries. Neither is defined by the
  pages.
* PACR_SETREG flushes the output buffers of the packers in its ``PackSel`` mask, then
  writes ``Value32`` at ``Addr`` through the tile's MMIO router.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

import numpy as np

from ...errors import GuestFault, UndefinedBehaviour, Unimplemented
from ..formats import (
    DataFormat,
    EarlyMode,
    Intermediate,
    Repr,
    early_from_config,
    exponent_threshold,
    fp16_to_fp8_e4m3,
    from_hw_code,
    is_bfp,
    packer_early,
    packer_late,
    round10_tf32,
    round_fp32_mantissa,
    tf32_to_fp16,
    to_fp16_round10,
    write_datums,
)
from ..regs.adc import PACKERS, WIDTHS
from ..regs.dst import adj16, adj16_row, adj_row, adj_rows
from . import Unit, op
from .fpu_native import load as _load_native

#: the data movers' compiled routes (movers_native.c), or None: the pure-Python path
_NATIVE = _load_native("_movers_native")

#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
#: TBUFCMD has no page in the ISA documentation.
PENDING = frozenset({'TBUFCMD'})

#: PACR.md: the documented PackerMask values (0 means packer 0).
VALID_MASKS = (0b0001, 0b0010, 0b0100, 0b1000, 0b0011, 0b1100, 0b1111)
METADATA_FIFO_DEPTH = 16
# ThreadConfig ADDR_MOD_PACK_SEC{n}_ field names per slot n, for channel 0 ("src") and
# channel 1 ("dst"): (YClear, YCR, YIncr, ZClear, ZIncr)
_ADDR_MOD_PACK_NAMES = tuple(tuple(tuple(f"ADDR_MOD_PACK_SEC{n}_{f}{side}{g}" for f, g in
                                         (("Y", "Clear"), ("Y", "CR"), ("Y", "Incr"), ("Z", "Clear"), ("Z", "Incr")))
                                   for side in ("src", "dst")) for n in range(4))
_ADDR_MOD_PACK_FLAT = tuple(names[0] + names[1] for names in _ADDR_MOD_PACK_NAMES)
_ADDR_MOD_KEYS = tuple(("pack_addr_mod", slot) for slot in range(4))  # (their derived values' keys)
_NO_REMAP = (0, 0)
_EDGE_MASK_NAMES = tuple(f"PCK_EDGE_OFFSET_SEC{c}_mask" for c in range(4))
_ROW_MAP_NAMES = tuple(f"TILE_ROW_SET_MAPPING_{b}_row_set_mapping_{j}" for b in range(4) for j in range(16))
_Y_MASK = (1 << WIDTHS["Y"]) - 1
_Z_MASK = (1 << WIDTHS["Z"]) - 1
#: every field Packers._edge_keeps_all reads
_EDGE_KEEP_NAMES = _EDGE_MASK_NAMES + _ROW_MAP_NAMES + ("PCK_EDGE_TILE_FACE_SET_SELECT_enable",
                                                        "PCK_EDGE_TILE_ROW_SET_SELECT_select")
U32 = np.uint32
_F = DataFormat
_I = Intermediate

#: In_data_format (LateFromFormat) -> the intermediate type it denotes
#: (Packers/FormatConversion.md encoding table, note (dagger)).
LATE_FROM = {
    _F.Float32: _I.FP32, _F.Tf32: _I.TF32, _F.Float16_b: _I.BF16, _F.Bfp8_b: _I.BF16,
    _F.Float16: _I.FP16, _F.Bfp8: _I.E5M7, _F.Fp8: _I.FP8,
    _F.Int32: _I.INT32, _F.UInt16: _I.INT16, _F.Int8: _I.INT8,
}
_FP16_RELU_CODES = (_F.Float16, _F.Fp8, _F.Bfp8, _F.Bfp4, _F.Bfp2)
#: The early "mode" of Blackhole's Round_10b_mant conversion to FP16 (to_fp16_round10).
ROUND10 = "round10"


# Plain classes, not dataclasses: each dataclass costs every process ~0.2 ms of import.
class Stream:
    """One output stream (RSI / exponents / data) of a packer: its L1 byte address,
    ``NeedsNewAddress`` and the bytes buffered before the next aligned 16-byte write."""

    def __init__(self):
        self.byte_address = 0
        self.needs_new = True
        self.buf = bytearray()


class PackerState:
    def __init__(self):
        self.exp = Stream()
        self.data = Stream()
        self.tpg = [0, 0, 0]  # TilePositionGenerator X, Y, Z
        self.pending = None  # intermediate bits of an incomplete BFP block (np.ndarray)
        self.pending_key = None
        self.writes = 0  # 16-byte L1 writes since the last tile ended


def _float_mask(inter: Intermediate) -> int:
    """Bits of the intermediate's layout that carry it (the rest are zero)."""
    if inter.exponent_bits == 8:
        return (~((1 << (23 - inter.mantissa_bits)) - 1)) & 0xFFFFFFFF
    return (~((1 << (10 - inter.mantissa_bits)) - 1)) & 0xFFFF


class _Tables:
    """Per-bit-pattern lookup tables of the packer's fast forms, built on first use
    (~0.1 ms once; a 16-datum row then costs one fancy index instead of five array ops)."""

    unshuffle = None  # Dst16b high half -> its IEEE BF16 bits (UnshuffleFP32's high half, UnshuffleBF16)
    bf16_round = None  # Dst16b BF16 -> the BF16 packer_early's round leaves (see bf16_rows_bytes)
    fp16_round = None  # Dst16b FP16 -> the FP16 packer_early's round leaves (see fp16_rows_bytes)

    @classmethod
    def get(cls):
        if cls.unshuffle is None:
            # a Dst16b value's high byte h holds the sign and 7 mantissa bits, its low
            # byte the exponent: table[h, low] = sign | exponent << 7 | mantissa
            h = np.arange(256, dtype=np.uint16)
            sign_mant = ((h & 0x80) << 8) | (h & 0x7F)
            table = (sign_mant[:, None] | (h << 7)[None, :]).astype("<u2")
            cls.unshuffle = table.reshape(-1)
            table = table.copy()
            table[:, 0] = 0  # exponent 0: +0
            table[:, 255] = (sign_mant & 0x8000) | 0x7F80  # exponent 255: an infinity of its sign
            cls.bf16_round = table.reshape(-1)
            # a Dst16b FP16 value's high byte h holds the sign and mantissa bits 9:3, its low
            # byte l mantissa bits 2:0 and the exponent: sign | exponent << 10 | mantissa
            l = h
            table = ((((h & 0x80) << 8) | ((h & 0x7F) << 3))[:, None]
                     | (((l & 0x1F) << 10) | (l >> 5))[None, :]).astype("<u2")
            table[:, (l & 0x1F) == 0] = 0  # exponent 0 (zeros, denormals): +0
            cls.fp16_round = table.reshape(-1)
        return cls

    bf16_of_fp32 = None  # [round up, IEEE BF16 high half] -> BF16 round_fp32_mantissa(., 7) leaves
    bf16_of_fp32_uses = 0  # fp32_rows_bf16_bytes calls before the table was built
    TABLE_AFTER = 32  # (a short run converts by arithmetic: the table costs ~1 ms)

    @classmethod
    def get_bf16_of_fp32(cls):
        """round_fp32_mantissa(x, 7) >> 16 for every IEEE BF16 high half of x, with the
        dropped low half below (row 0) or at least (row 1) 0x8000: the high half plus
        the round-up bit (a carry moves into the exponent), a result with exponent 0
        becomes +0, and exponent 255 (infinities, NaN) keeps its sign and exponent."""
        if cls.bf16_of_fp32 is None:
            hb = np.arange(1 << 16, dtype=U32)
            r = np.stack([hb, hb + U32(1)])
            r = np.where((r & U32(0x7F80)) == 0, U32(0), r)
            r = np.where((hb & U32(0x7F80)) == U32(0x7F80), hb & U32(0xFF80), r)
            cls.bf16_of_fp32 = r.astype("<u2")
        return cls.bf16_of_fp32


def fp32_row_bytes(bits, span, remap=(0, 0)):
    """FP32 values read from a 32-bit Dst (Dst.md's ``Dst32b``) through one row
    ``span`` (row, first column, count) and written out unchanged: -> (their high
    halves as IEEE BF16 bits, uint16; the L1 bytes, little-endian FP32). What
    ``packer_early`` (DST32_FP32 -> FP32, identity), ``packer_late`` (FP32 -> Float32)
    and ``write_datums`` make of ``(DstBits[AdjRow] << 16) | DstBits[AdjRow + 8]``
    (the unshuffle by table; ``fp32_row_bytes_ref`` is the arithmetic form): the
    one-span case of :func:`fp32_rows_bytes`."""
    return fp32_rows_bytes(bits, (span,), remap)


def _fp32_rows(bits, spans, remap):
    """The high halves (unshuffled: IEEE BF16 bits) and low halves of the FP32 values a
    32-bit Dst holds in row ``spans`` ((row, first column, count) each, in order)."""
    tab = _Tables.get().unshuffle
    if len(spans) == 1:
        (row, c0, n), = spans
        adj = adj_row(row, *remap)
        return tab[bits[adj, c0:c0 + n]], bits[adj + 8, c0:c0 + n]
    if all(c0 == 0 and n == 16 for _, c0, n in spans):  # whole rows: one gather
        adj = adj_rows(np.array([row for row, _, _ in spans], dtype=np.int64), *remap)
        return tab[bits[adj]].reshape(-1), bits[adj + 8].reshape(-1)
    adjs = [(adj_row(row, *remap), c0, n) for row, c0, n in spans]
    hi = np.concatenate([bits[a, c0:c0 + n] for a, c0, n in adjs])
    lo = np.concatenate([bits[a + 8, c0:c0 + n] for a, c0, n in adjs])
    return tab[hi], lo


def fp32_rows_bytes(bits, spans, remap=(0, 0)):
    """:func:`fp32_row_bytes` for several row ``spans`` ((row, first column, count)
    each, in order): -> (the high halves as IEEE BF16 bits; the L1 bytes, FP32)."""
    hb, lo = _fp32_rows(bits, spans, remap)
    out = np.empty((hb.size, 2), dtype="<u2")
    out[:, 0] = lo
    out[:, 1] = hb
    return hb, out.tobytes()


def fp32_rows_bf16_bytes(bits, spans, remap=(0, 0)):
    """FP32 values read from a 32-bit Dst through row ``spans``, rounded to BF16 and
    packed as Float16_b: -> (the BF16 bits, uint16; the L1 bytes). What
    ``packer_early`` (DST32_FP32 -> BF16, round: ``round_fp32_mantissa``),
    ``packer_late`` (BF16 -> Float16_b) and ``write_datums`` make of them: the rounding
    looks at the high half and whether the dropped low half is at least 0x8000 (ties
    away from zero), so it is one gather from a table of both (``_Tables.bf16_of_fp32``;
    ``fp32_rows_bf16_bytes_ref`` is the arithmetic form)."""
    table = _Tables.bf16_of_fp32
    if table is None:
        _Tables.bf16_of_fp32_uses += 1
        if _Tables.bf16_of_fp32_uses < _Tables.TABLE_AFTER:
            return fp32_rows_bf16_bytes_ref(bits, spans, remap)
        table = _Tables.get_bf16_of_fp32()
    hb, lo = _fp32_rows(bits, spans, remap)
    out = table[lo >> 15, hb]
    return out, out.tobytes()


def fp32_rows_bf16_bytes_ref(bits, spans, remap=(0, 0)):
    """:func:`fp32_rows_bf16_bytes` by arithmetic (the reference its table is tested against)."""
    hb, lo = _fp32_rows(bits, spans, remap)
    r = round_fp32_mantissa((hb.astype(U32) << 16) | lo, 7)
    out = (r >> 16).astype("<u2")
    return out, out.tobytes()


def fp32_rows_fp16_bytes(bits, spans, remap=(0, 0)):
    """FP32 values read from a 32-bit Dst through row ``spans``, written as Float16: ->
    (their high halves as IEEE BF16 bits, uint16; the L1 bytes), or None when one lies
    in 2**-15 < |x| < 2**-14 (the chain reports it: undefined). What ``packer_early``
    (DST32_FP32 -> FP32, identity), ``packer_late`` (FP32 -> Float16: at or below
    exponent 112 a zero of the datum's sign, above 143 sign | 0x7fff, else rebiased by
    112 with the mantissa truncated to ten bits) and ``write_datums`` make of them."""
    hb, lo = _fp32_rows(bits, spans, remap)
    exp = (hb >> 7) & 0xFF
    if (exp == 112).any() and ((exp == 112) & (((hb & 0x7F) | lo) != 0)).any():
        return None
    sign = hb & 0x8000
    normal = sign | ((exp - 112) << 10) | ((hb & 0x7F) << 3) | (lo >> 13)
    out = np.where(exp <= 112, sign, np.where(exp > 143, sign | 0x7FFF, normal)).astype("<u2")
    return hb, out.tobytes()


def fp32_row_bytes_ref(bits, span, remap=(0, 0)):
    """:func:`fp32_row_bytes` by arithmetic (the reference its table is tested against)."""
    row, c0, n = span
    adj = adj_row(row, *remap)
    hi = bits[adj, c0:c0 + n]
    hb = (hi & 0x8000) | ((hi & 0xFF) << 7) | ((hi & 0x7F00) >> 8)  # UnshuffleFP32's high half
    out = np.empty((n, 2), dtype="<u2")
    out[:, 0] = bits[adj + 8, c0:c0 + n]
    out[:, 1] = hb
    return hb, out.tobytes()


@lru_cache(maxsize=4096)
def whole_rows(row, k):
    """The row spans of ``k`` whole Dst rows from ``row`` on (row numbers wrap at 1024),
    one tuple kept per (row, k): :func:`dst16_spans` knows it by identity."""
    return tuple(((row + r) & 0x3FF, 0, 16) for r in range(k))


def dst16_spans(bits, spans, remap=False):
    """The 16-bit Dst datums of row ``spans`` ((row, first column, count) each, in order),
    end to end (uint16; a view when there is one span, or whole rows made by
    :func:`whole_rows` that do not wrap, without ``remap``)."""
    k = len(spans)
    if k > 1 and not remap:
        row = spans[0][0]
        if row + k <= 1024 and spans is whole_rows(row, k):
            return bits[row:row + k].reshape(-1)
    parts = [bits[adj16_row(row, remap), c0:c0 + n] for row, c0, n in spans]
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def bf16_rows_bytes(bits, spans, remap=False):
    """BF16 values read from a 16-bit Dst (``Dst16b``) through row ``spans`` ((row, first
    column, count) each, in order) and packed as BF16: -> (the values, uint16; the L1
    bytes, little-endian). What ``packer_early`` (DST16_BF16 -> BF16, round: there are
    no bits to drop, so exponent 0 becomes +0 and exponent 255 an infinity of its sign),
    ``packer_late`` (BF16 -> Float16_b) and ``write_datums`` make of them (by table;
    ``bf16_rows_bytes_ref`` is the arithmetic form)."""
    x = dst16_spans(bits, spans, remap)
    out = _Tables.get().bf16_round[x]
    return out, out.tobytes()


def bf16_rows_bytes_ref(bits, spans, remap=False):
    """:func:`bf16_rows_bytes` by arithmetic (the reference its table is tested against)."""
    x = dst16_spans(bits, spans, remap)
    b = (x & 0x8000) | ((x & 0xFF) << 7) | ((x & 0x7F00) >> 8)  # UnshuffleBF16
    e = b & 0x7F80
    out = np.where(e == 0, np.uint16(0), np.where(e == 0x7F80, b & 0xFF80, b)).astype("<u2")
    return out, out.tobytes()


def bf16_rows_bfp(bits, spans, remap, out_fmt):
    """BF16 values read from a 16-bit Dst through row ``spans`` (a multiple of 16 datums),
    rounded as :func:`bf16_rows_bytes` rounds them and packed as BFP8 / BFP4 / BFP2 (8-bit
    shared exponents): -> (the BF16 values, uint16; the datum section's bytes; the shared
    exponents, uint8). What ``packer_early`` (DST16_BF16 -> BF16, round), ``packer_late``
    (BF16 -> BFPx: ``bfp_encode``, saturating) and ``write_datums`` make of them."""
    from ..formats.pack_tables import bfp_tail  # (imported on first use: start-up)

    x = dst16_spans(bits, spans, remap)
    b = _Tables.get().bf16_round[x]
    datums, exps = bfp_tail(b, out_fmt)
    return b, datums.tobytes(), exps


def fp16_rows_bytes(bits, spans, remap=False):
    """FP16 values read from a 16-bit Dst through row ``spans`` and packed as FP16: ->
    (the values, uint16; the L1 bytes). What ``packer_early`` (DST16_FP16 -> FP16, round:
    no bits to drop, so exponent 0 becomes +0), ``packer_late`` (FP16 -> Float16,
    unchanged) and ``write_datums`` make of them (by table; ``fp16_rows_bytes_ref`` is
    the arithmetic form)."""
    x = dst16_spans(bits, spans, remap)
    out = _Tables.get().fp16_round[x]
    return out, out.tobytes()


def fp16_rows_bytes_ref(bits, spans, remap=False):
    """:func:`fp16_rows_bytes` by arithmetic (the reference its table is tested against)."""
    x = dst16_spans(bits, spans, remap)
    f = (x & 0x8000) | ((x & 0x1F) << 10) | ((x >> 5) & 0x3FF)  # the Dst16b FP16 field move
    out = np.where((x & 0x1F) == 0, np.uint16(0), f).astype("<u2")
    return out, out.tobytes()


def bf16_rows_fp32_bytes(bits, spans, remap=False):
    """BF16 values read from a 16-bit Dst through row ``spans``, rounded as
    :func:`bf16_rows_bytes` rounds them and written as FP32: -> (the BF16 values, uint16;
    the L1 bytes). What ``packer_early`` (DST16_BF16 -> BF16, round), ``packer_late``
    (BF16 -> Float32: nothing to drop) and ``write_datums`` make of them."""
    x = dst16_spans(bits, spans, remap)
    b = _Tables.get().bf16_round[x]
    return b, (b.astype("<u4") << 16).tobytes()


def _bf16_fp32_rows_form(bits, spans, remap):
    return bf16_rows_fp32_bytes(bits, spans, remap[0])


def _fp16_rows_form(bits, spans, remap):
    return fp16_rows_bytes(bits, spans, remap[0])


def _bf16_rows_form(bits, spans, remap):
    return bf16_rows_bytes(bits, spans, remap[0])


def _rows_fast_form(read_32b, repr_, mode, inter, late_inter, out_fmt):
    """The function packing whole row spans of Dst without the conversion chain for this
    early / late conversion, or None: FP32 from a 32-bit Dst unchanged (untilize, reduce)
    or written as FP16 (fp32 accumulation, FP16 output), FP32 from a 32-bit Dst rounded to
    BF16 and written as BF16 (eltwise binaries), BF16 or FP16 from a 16-bit Dst rounded
    (no bits to drop) and written as BF16 / FP16 (BF16 also as FP32). Each takes (Dst bits, spans, remap) -> (the high halves
    / values, uint16; the L1 bytes), or None where the chain must report an undefined
    case; or _BF16_BFP (BF16 from a 16-bit Dst written as BFP8 / BFP4 / BFP2)."""
    if read_32b and mode is EarlyMode.IDENTITY and inter is _I.FP32 and late_inter is _I.FP32 \
            and out_fmt is _F.Float32:
        return fp32_rows_bytes
    if read_32b and repr_ is Repr.DST32_FP32 and mode is EarlyMode.IDENTITY and inter is _I.FP32 \
            and late_inter is _I.FP32 and out_fmt is _F.Float16:
        return fp32_rows_fp16_bytes
    if mode is EarlyMode.ROUND and inter is _I.FP16 and late_inter is _I.FP16 and out_fmt is _F.Float16 \
            and not read_32b and repr_ is Repr.DST16_FP16:
        return _fp16_rows_form
    if mode is EarlyMode.ROUND and inter is _I.BF16 and late_inter is _I.BF16 and out_fmt is _F.Float32 \
            and not read_32b and repr_ is Repr.DST16_BF16:
        return _bf16_fp32_rows_form
    if mode is EarlyMode.ROUND and inter is _I.BF16 and late_inter is _I.BF16 and out_fmt in _BFP_B \
            and not read_32b and repr_ is Repr.DST16_BF16:
        return _BF16_BFP
    if mode is not EarlyMode.ROUND or inter is not _I.BF16 or late_inter is not _I.BF16 or out_fmt is not _F.Float16_b:
        return None
    if read_32b and repr_ is Repr.DST32_FP32:
        return fp32_rows_bf16_bytes
    if not read_32b and repr_ is Repr.DST16_BF16:
        return _bf16_rows_form
    return None


_BFP_B = (_F.Bfp8_b, _F.Bfp4_b, _F.Bfp2_b)  # (pack_tables.BFP_TAIL_FORMATS)
_FIRST = (0,)  # the Dst read interfaces of a PACR that reads through the first one only
#: _rows_fast_form's answer for BF16 from a 16-bit Dst packed as BFP8 / BFP4 / BFP2
#: (bf16_rows_bfp: it writes both streams, so the caller runs it itself)
_BF16_BFP = "bf16_rows_bfp"
#: the row forms movers_native.pack_rows has (its form codes), and the log2 of the L1
#: bytes of one datum each writes
_NATIVE_FORMS = {fp32_rows_bytes: (0, 2), fp32_rows_bf16_bytes: (1, 1), fp32_rows_fp16_bytes: (2, 1),
                 _bf16_rows_form: (3, 1), _fp16_rows_form: (4, 1), _bf16_fp32_rows_form: (5, 2)}


def _hist_exps_of(inter: Intermediate, v):
    """The exponents the exponent histogram takes from intermediate values ``v`` (not
    INT8 / UINT8): FP16-family exponents, INT16's low byte, else bits 30:23 (8-bit
    exponents, and INT32 bitcast to FP32)."""
    if inter.is_float and inter.exponent_bits == 5:
        return (v >> 10) & 0x1F
    if inter is _I.INT16:
        return v & 0xFF
    return (v >> 23) & 0xFF


def _late_source(inter: Intermediate, late_from: DataFormat) -> Intermediate:
    """The intermediate type the late conversion reads (In_data_format), checked
    against what the early conversion produced."""
    want = LATE_FROM.get(late_from)
    if want is None:
        raise GuestFault(f"PACR: In_data_format {late_from.doc_name} is only valid as Out_data_format "
                         "(Packers/FormatConversion.md: not supported; no behaviour to model)")
    if want is _I.INT8 and inter in (_I.INT8, _I.UINT8):
        return inter
    if want.is_float and inter.is_float:
        if want.exponent_bits == inter.exponent_bits and inter.mantissa_bits <= want.mantissa_bits:
            return want
    elif want is inter:
        return want
    raise GuestFault(f"PACR: the early conversion produces {inter.name} but In_data_format is "
                     f"{late_from.doc_name} (Packers/FormatConversion.md: not supported; no behaviour to model)")


def _daz32(u: np.ndarray) -> np.ndarray:
    """FP32 bits with denormals (and zeros) replaced by a zero of the same sign."""
    return np.where((u & 0x7FFFFFFF) < 0x800000, u & U32(0x80000000), u).astype(U32)


def _acc_fp32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """FP32 lanes: denormal inputs and results are zeros (sign kept), the sum rounds to
    nearest even, every NaN becomes 0x7fc00000."""
    with np.errstate(all="ignore"):
        r = (_daz32(a).view(np.float32) + _daz32(b).view(np.float32)).view(U32)
    return np.where((r & 0x7FFFFFFF) > 0x7F800000, U32(0x7FC00000), _daz32(r)).astype(U32)


def _acc_bf16(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """BF16 lanes (a: L1, b: the packer's datum; 16-bit patterns in uint32): +inf + -inf
    is 0x7fc0; denormal inputs are zeros (sign kept); a NaN counts as a huge finite value
    (in L1: the largest FP64 magnitude; from the packer: 2**128 times its mantissa), so
    a NaN input gives an infinity; the exact sum rounds to nearest even, results below
    2**-126 become zeros (sign kept) and above the range infinities."""
    inf_minus_inf = ((a == 0x7F80) & (b == 0xFF80)) | ((a == 0xFF80) & (b == 0x7F80))
    a = np.where((a & 0x7FFF) < 0x80, a & 0x8000, a)
    b = np.where((b & 0x7FFF) < 0x80, b & 0x8000, b)
    sa = np.where(a & 0x8000, -1.0, 1.0)
    sb = np.where(b & 0x8000, -1.0, 1.0)
    with np.errstate(all="ignore"):
        fa = np.where((a & 0x7FFF) > 0x7F80, sa * np.finfo(np.float64).max,
                      ((a << 16).astype(U32)).view(np.float32).astype(np.float64))
        fb = np.where((b & 0x7FFF) > 0x7F80, sb * np.ldexp(1.0 + (b & 0x7F) / 128.0, 128),
                      ((b << 16).astype(U32)).view(np.float32).astype(np.float64))
        r = (fa + fb).view(np.uint64)
    sign = ((r >> np.uint64(63)) << np.uint64(15)).astype(np.int64)
    e = ((r >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64) - 1023 + 127
    m = r & np.uint64((1 << 52) - 1)
    rounded = ((m + np.uint64((1 << 44) - 1) + ((m >> np.uint64(45)) & np.uint64(1))) >> np.uint64(45)).astype(np.int64)
    out = np.where(e <= 0, sign, np.where(e >= 255, sign | 0x7F80, sign | ((np.clip(e, 0, 255) << 7) + rounded)))
    return np.where(inf_minus_inf, 0x7FC0, out).astype(U32)


def _acc_fp16(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Tensix FP16 lanes (no infinity or NaN): each input widened to FP32 (exponent 0,
    denormals included, as a zero of its sign), added in FP32, then back: exponent
    underflow below FP16's exponent 0 saturates to 0x7fff, exponent 0 is a zero, the
    mantissa rounds to nearest even and overflow saturates to 0x7fff (sign kept); an
    exact cancellation gives a zero, or 0x7fff when L1's exponent was 30 or 31."""
    def widen(h):
        w = ((h & 0x7FFF) << 13) + (112 << 23)
        return (((h & 0x8000) << 16) | np.where((h & 0x7FFF) >= 0x400, w, 0)).astype(U32)

    r = (widen(a).view(np.float32) + widen(b).view(np.float32)).view(U32)
    sign = (r >> 16) & 0x8000
    e = ((r >> 23) & 0xFF).astype(np.int64) - 112
    m = r & 0x7FFFFF
    packed = (np.clip(e, 0, 255) << 10) + ((m + (1 << 12) - 1 + ((m >> 13) & 1)) >> 13).astype(np.int64)
    out = np.where(e <= 0, np.where(e < 0, sign | 0x7FFF, sign),
                   sign | np.where(packed < 0x8000, packed, 0x7FFF))
    cancel = (r & 0x7FFFFFFF) == 0
    big = ((a >> 10) & 31) >= 30
    return np.where(cancel, sign | np.where(big, 0x7FFF, 0), out).astype(U32)


def accumulate(old: np.ndarray, new: np.ndarray, fmt: DataFormat, what: str) -> np.ndarray:
    """``L1 += data`` for aligned 16-byte units (L1.md "near-memory accumulate");
    returns the bytes to store. L1.md names the lane types but not the arithmetic: the
    FP32, BF16 and FP16 lanes follow ttsim's packer (``_acc_*``); INT32 is sign-magnitude,
    saturating (ttsim refuses INT32 accumulation)."""
    fmt = DataFormat(fmt)
    if fmt is _F.Float32:
        return _acc_fp32(old.view(U32), new.view(U32)).view(np.uint8)
    if fmt is _F.Int32:
        a, b = old.view(U32), new.view(U32)
        va = np.where(a >> 31, -(a & 0x7FFFFFFF).astype(np.int64), (a & 0x7FFFFFFF).astype(np.int64))
        vb = np.where(b >> 31, -(b & 0x7FFFFFFF).astype(np.int64), (b & 0x7FFFFFFF).astype(np.int64))
        s = np.clip(va + vb, -0x7FFFFFFF, 0x7FFFFFFF)
        out = np.where(s < 0, U32(0x80000000) | (-s).astype(U32), s.astype(U32)).astype(U32)
        return out.view(np.uint8)
    if fmt in (_F.Float16_b, _F.Float16):
        f = _acc_bf16 if fmt is _F.Float16_b else _acc_fp16
        r = f(old.view(np.uint16).astype(U32), new.view(np.uint16).astype(U32))
        return r.astype(np.uint16).view(np.uint8)
    raise GuestFault(f"{what}: L1 accumulation of {fmt.doc_name} (L1.md lists FP32, INT32, FP16, BF16; "
                     "no behaviour to model)")


class _PackerFields:
    """The Config field names of packer ``i`` (section prefix ``pc``, limit section
    ``lim``) that every PACR reads, made once instead of per read."""

    def __init__(self, pc, i, lim):
        for suffix in _PACKER_SUFFIXES:
            setattr(self, suffix, pc + suffix)
        self.Offset = f"DEST_TARGET_REG_CFG_PACK_SEC{i}_Offset"
        self.pack_reads_per_xy_plane = f"PACK_COUNTERS_SEC{i}_pack_reads_per_xy_plane"
        self.pack_yz_transposed = f"PACK_COUNTERS_SEC{i}_pack_yz_transposed"
        self.limit_address = None if lim is None else lim + "limit_address"
        self.fifo_size = None if lim is None else lim + "fifo_size"
        # every field a _Plan (with its span choice: Packers._span_choice) reads
        self.plan_names = tuple(pc + x for x in _PACKER_SUFFIXES if x != "L1_Dest_addr") + (
            "PCK0_ADDR_BASE_REG_0_Base", "PCK0_ADDR_CTRL_XY_REG_0_Xstride", "PCK0_ADDR_CTRL_XY_REG_0_Ystride",
            "PCK0_ADDR_CTRL_ZW_REG_0_Zstride", "PCK0_ADDR_CTRL_ZW_REG_0_Wstride", "PCK0_ADDR_BASE_REG_1_Base",
            "PCK0_ADDR_CTRL_XY_REG_1_Ystride", "PCK0_ADDR_CTRL_ZW_REG_1_Zstride", "PCK0_ADDR_CTRL_ZW_REG_1_Wstride",
            "THCON_SEC0_REG1_All_pack_disable_zero_compress_ovrd", "THCON_SEC0_REG1_All_pack_disable_zero_compress",
            "PCK_DEST_RD_CTRL_Read_32b_data", "PCK_DEST_RD_CTRL_Read_int8", "PCK_DEST_RD_CTRL_Round_10b_mant",
            "PCK_DEST_RD_CTRL_Read_unsigned", "ALU_FORMAT_SPEC_REG_Dstacc_override", "ALU_FORMAT_SPEC_REG_Dstacc_val",
            "ALU_FORMAT_SPEC_REG2_Dstacc", "STACC_RELU_ApplyRelu") + _EDGE_KEEP_NAMES + tuple(
            x for x in (self.limit_address, self.fifo_size) if x is not None)


_PACKER_SUFFIXES = ("In_data_format", "Source_interface_selection", "L1_Dest_addr", "Sub_l1_tile_header_size",
                    "Add_l1_dest_addr_offset", "Disable_zero_compress", "Out_data_format", "Exp_section_size",
                    "Pack_L1_Acc", "Add_tile_header_size", "Enable_out_fifo", "Downsample_mask", "Exp_threshold_en")


class _Plan:
    """A packer's configuration as PACR reads it (InputAddressGenerator.md,
    OutputAddressGenerator.md, the formats), kept as a Config derived value until one of
    the fields it is made from (``_PackerFields.plan_names``) is written.
    ``L1_Dest_addr`` and the Dst ``Offset``, which untilize and tilize rewrite every PACR
    or two, are read each time."""

    __slots__ = ("base0", "xstride", "ystride", "zstride", "wstride", "in_code", "bpd", "xmask", "l1_source",
                 "hdr", "base1", "ystride1", "zstride1", "wstride1", "add_offset", "limit", "fifo",
                 "no_compress", "out_code", "out_fmt", "exp_section", "acc", "fast", "nm")

    def __init__(self, g, nm, spec, i):
        self.nm = nm  # the packer's _PackerFields
        self.base0 = g("PCK0_ADDR_BASE_REG_0_Base")
        self.xstride = g("PCK0_ADDR_CTRL_XY_REG_0_Xstride") & 0xF
        self.ystride = g("PCK0_ADDR_CTRL_XY_REG_0_Ystride")
        self.zstride = g("PCK0_ADDR_CTRL_ZW_REG_0_Zstride")
        self.wstride = g("PCK0_ADDR_CTRL_ZW_REG_0_Wstride")
        self.in_code = g(nm.In_data_format)
        self.bpd, self.xmask = {0: (4, 0x3), 1: (2, 0x7)}.get(self.in_code & 3, (1, 0xF))
        self.l1_source = i == 0 and g(nm.Source_interface_selection) == 1
        self.hdr = 0 if g(nm.Sub_l1_tile_header_size) else 1
        self.base1 = g("PCK0_ADDR_BASE_REG_1_Base")
        self.ystride1 = g("PCK0_ADDR_CTRL_XY_REG_1_Ystride")
        self.zstride1 = g("PCK0_ADDR_CTRL_ZW_REG_1_Zstride")
        self.wstride1 = g("PCK0_ADDR_CTRL_ZW_REG_1_Wstride")
        self.add_offset = bool(g(nm.Add_l1_dest_addr_offset))
        self.limit = self.fifo = None
        if spec.limit_sections is not None:
            self.limit, self.fifo = g(nm.limit_address) * 2 + 1, g(nm.fifo_size) * 2
        if g("THCON_SEC0_REG1_All_pack_disable_zero_compress_ovrd"):
            self.no_compress = (g("THCON_SEC0_REG1_All_pack_disable_zero_compress") >> i) & 1
        else:
            self.no_compress = g(nm.Disable_zero_compress)
        self.out_code = g(nm.Out_data_format)
        try:
            self.out_fmt = from_hw_code(self.out_code)
        except (UndefinedBehaviour, GuestFault, ValueError):
            self.out_fmt = None  # raised where PACR asks for it (from_hw_code again)
        self.exp_section = g(nm.Exp_section_size)
        self.acc = bool(g(nm.Pack_L1_Acc))
        self.fast = None  # Packers._span_choice, made on first use


class Packers(Unit):
    name = "pack"

    def __init__(self, cop):
        self.cop = cop
        self.state = [PackerState() for _ in range(4)]
        # Sideband state (TDMA-RISC.md, SETDMAREG_Special.md, ExponentHistogram.md).
        self.acc_tile_size = [[0, 0, 0] for _ in range(4)]
        self.last_tile_size = [0, 0, 0, 0]
        self.last_thread = [None, None, None, None]
        self.all_zero_flags = [0, 0, 0, 0]  # compression is not modelled
        self.metadata_fifo = [deque() for _ in range(4)]
        self.l1_dest_addr_offset = [0, 0, 0, 0]
        self.exponent_histogram = np.zeros((4, 32), dtype=np.uint8)
        self._hist_max = np.zeros(4, dtype=np.uint32)
        # per packer: value arrays (BF16 / FP32 high halves) whose largest exponent
        # ExponentHistogramMaxExponent has yet to take (_histogram; read through
        # exponent_histogram_max)
        self._hist_pending = [[], [], [], []]
        self.lazy_histogram = True  # (tests compare it with the eager form)
        self._whats = {}  # (thread, packer) -> "tN PACR (packer i)" for messages
        #: ``Packers.SetRegBase[2]`` / ``Packers.SetRegHiScaler[4]`` (set via TDMA-RISC).
        self.set_reg_base = [0, 0]
        self.set_reg_hi_scaler = [0, 0, 0, 0]
        self._row_map_cache = None  # (field values, array): see _row_map
        self._early = {}  # early_from_config's arguments -> its result (see _early_config)
        self._fields = {}  # packer index -> its _PackerFields
        self._chains = {}  # _dst16_form's configuration -> (its Dst16Chain, histogram exponents) or None
        self._chain_uses = {}  # _dst16_form's configuration -> PACRs that took the chain before its tables
        #: the compiled row forms (movers_native.c), or None: the pure-Python ones
        self.native = _NATIVE

    #: PACRs of one configuration through the chain before _dst16_form builds its tables
    TABLE_AFTER = 48

    def _fields_of(self, i):
        f = self._fields.get(i)
        if f is None:
            spec = self.cop.arch.packers
            lim = spec.limit_sections[i] if spec.limit_sections is not None else None
            f = self._fields[i] = _PackerFields(spec.sections[i], i, lim)
        return f

    # -- sideband interface ------------------------------------------------------------
    @property
    def exponent_histogram_max(self):
        """``ExponentHistogramMaxExponent`` per packer (uint32[4]; read it here, after the
        values still pending are taken in)."""
        for i, pending in enumerate(self._hist_pending):
            if pending:
                self._take_pending_max(i)
        return self._hist_max

    def _take_pending_max(self, i):
        pending = self._hist_pending[i]
        v = pending[0] if len(pending) == 1 else np.concatenate(pending)
        pending.clear()
        top = int((v & 0x7F80).max()) >> 7
        if top > self._hist_max[i]:
            self._hist_max[i] = top

    @property
    def exponent_histogram_max_exponent(self) -> int:
        """Packer 0's ``ExponentHistogramMaxExponent`` (SETDMAREG mode 9)."""
        return int(self.exponent_histogram_max[0])

    @exponent_histogram_max_exponent.setter
    def exponent_histogram_max_exponent(self, value: int) -> None:
        self.exponent_histogram_max[0] = value

    def clear_exponent_histograms(self) -> None:
        """ExponentHistogram.md ``Reset`` for every packer (what CLREXPHIST does)."""
        self.exponent_histogram[:] = 0
        for pending in self._hist_pending:
            pending.clear()
        self._hist_max[:] = 0

    def reset_acc_tile_size(self, i: int) -> None:
        """``Packers[i].ResetAccTileSize()`` (SETDMAREG_Special.md mode 8)."""
        self.acc_tile_size[i] = [0, 0, 0]

    def reset_acc_tile_size_mmio(self, new_val: int) -> None:
        """``ResetPackerAccTileSize`` (TDMA-RISC.md)."""
        for i in range(4):
            if (new_val >> (16 + i)) & 1:
                self.acc_tile_size[i] = [0, 0, 0]
                self.l1_dest_addr_offset[i] = new_val & 0xFFFF

    def set_pack_reg_addr(self, new_val: int) -> None:
        """``SetPackRegAddr`` (TDMA-RISC.md)."""
        for i in range(2):
            mid = (new_val >> (10 * i)) & 0x3FF
            hi = (new_val >> (20 + 2 * i)) & 3
            self.set_reg_base[i] = (hi << 18) + (mid << 2)

    def set_scaler(self, starting_index: int, values: int) -> None:
        """``SetScaler`` (TDMA-RISC.md)."""
        if starting_index == 3:
            values >>= 16
        for k in range(3):
            if starting_index + k >= 4:
                break
            self.set_reg_hi_scaler[starting_index + k] = values & 0x1FF
            values >>= 9

    # -- PACR ----------------------------------------------------------------------------
    @op
    def PACR(self, t, AddrMode, ZeroWrite, OvrdThreadId, Concat, Flush, Last, PackSel=0, ReadIntfSel=None,
             AddrCntContext=None, CtxtCtrl=0, DstAccessMode=0, RowPadZero=0, CfgContext=0):
        """PACR.md with Packers/InputAddressGenerator.md, OutputAddressGenerator.md and
        the pipeline pages (see the module docstring). ``Concat`` only matters with
        compression, which is not modelled.

        The packers are data (``ArchSpec.packers``): Wormhole's PACR selects packers
        with ``PackSel``; Blackhole's one packer reads through up to four Dst read
        interfaces, selected by ``ReadIntfSel`` (0: all four; assembly.yaml), each reading
        the datum range from its own Dst row, packed one after the other; with
        ``OvrdThreadId`` its ADC is ``AddrCntContext`` (an instruction field there).
        ``DstAccessMode`` 1 (strided) puts the interfaces ``interface_rows[1]`` rows apart
        (with the Dst remap configuration set, as tt-llk's untilize has it). Blackhole's
        ``CtxtCtrl``, ``CfgContext`` and ``RowPadZero`` are described only by
        assembly.yaml's one-line notes (ttsim refuses them too): non-zero values stop the
        run as unimplemented."""
        cop = self.cop
        cfg = cop.config
        spec = cop.arch.packers
        thread = t.index
        if CtxtCtrl or CfgContext or RowPadZero:
            for name, value in (("CtxtCtrl", CtxtCtrl), ("CfgContext", CfgContext), ("RowPadZero", RowPadZero)):
                if value:
                    raise Unimplemented(f"t{thread} PACR {name}={value} is not modelled (no functional description "
                                        "beyond assembly.yaml)")
        bank = cfg.bank_of(thread)
        remap = (cfg.get(spec.dst_access_cfg[0], bank), cfg.get(spec.dst_access_cfg[1], bank)) \
            if spec.dst_access_cfg else _NO_REMAP
        if DstAccessMode >= len(spec.interface_rows) or (DstAccessMode and not all(remap)):
            raise Unimplemented(f"t{thread} PACR DstAccessMode={DstAccessMode} (strided Dst reads) is not modelled"
                                + (" without DEST_ACCESS_CFG_remap_addrs and swizzle_32b" if spec.dst_access_cfg
                                   else ""))
        n_packers = len(spec.sections)
        mask = PackSel or 1
        if mask not in VALID_MASKS or mask >> n_packers:
            cop.undefined(f"PACR PackerMask={PackSel:#06b}",
                          f"PackerMask {PackSel:#06b} is not one of the documented masks (PACR.md: undefined, work "
                          "goes to at least one packer of the mask); ttemu issues it to every packer in the mask")
            mask &= (1 << n_packers) - 1
        all_intf = (1 << spec.read_interfaces) - 1
        intf = (ReadIntfSel or all_intf) & all_intf
        # ZeroWrite with ReadIntfSel = 0 (assembly.yaml): "(x_end+1) ... is the total amount of
        # data packed" instead of the range times the active interfaces
        zero_special = bool(ZeroWrite) and ReadIntfSel == 0

        g = cfg.values[bank].__getitem__  # cfg.get(name, bank)

        if g("ALU_ROUNDING_MODE_Packer_srnd_en"):
            raise Unimplemented(f"t{thread} PACR: stochastic rounding (ALU_ROUNDING_MODE_Packer_srnd_en) is not "
                                "modelled")
        # Output address generator: Packer0InitialAddr (computed for packer 0 always).
        p0_initial = (g(spec.sections[0] + "L1_Dest_addr") + (0 if g(spec.sections[0] + "Sub_l1_tile_header_size")
                                                             else 1))
        p0_initial &= 0xFFFFFFFF
        if mask == 1 and not OvrdThreadId:  # (one packer, the thread's own ADC: the loop below, shorter)
            self._pack_one(t, 0, g, bank, thread, p0_initial, bool(ZeroWrite), bool(Flush), bool(Last),
                           intf, spec.interface_rows[DstAccessMode], zero_special, remap)
            self._advance_adcs(thread, AddrMode, (thread,))
            return None
        adcs_in = set()
        for i in range(n_packers):
            if not (mask >> i) & 1:
                continue
            which_adc = thread
            if OvrdThreadId:
                which_adc = AddrCntContext if AddrCntContext is not None else g(spec.sections[i] + "Addr_cnt_context")
                if which_adc == 3:
                    which_adc = 0
            self._pack_one(t, i, g, bank, which_adc, p0_initial, bool(ZeroWrite), bool(Flush), bool(Last),
                           intf, spec.interface_rows[DstAccessMode], zero_special, remap)
            adcs_in.add(which_adc)
        self._advance_adcs(thread, AddrMode, adcs_in)
        return None

    def _advance_adcs(self, thread, addr_mod, which):
        """The AddrMod updates at the end of both address generator pages (the slot's
        ThreadConfig fields kept until one of them is written)."""
        tv = self.cop.config.thread_values[thread]  # cfg.thread_get(thread, name)
        slot = addr_mod & 3
        modes = tv.get(_ADDR_MOD_KEYS[slot])  # (the derived value, without a lambda per PACR)
        if modes is None:
            modes = tv.derived(_ADDR_MOD_KEYS[slot], _ADDR_MOD_PACK_FLAT[slot],
                               lambda: tuple(tuple(map(tv.__getitem__, names)) for names in _ADDR_MOD_PACK_NAMES[slot]))
        adc = self.cop.adcs.adc
        for i in (sorted(which) if len(which) > 1 else which):
            for ch, (y_clear, y_cr, y_incr, z_clear, z_incr) in zip(adc[i][PACKERS].channel, modes):
                # (Channel.set's truncation to the counter widths, inline)
                if y_clear:
                    ch.Y = ch.Y_Cr = 0
                elif y_cr:
                    ch.Y = ch.Y_Cr = (ch.Y_Cr + y_incr) & _Y_MASK
                else:
                    ch.Y = (ch.Y + y_incr) & _Y_MASK
                if z_clear:
                    ch.Z = ch.Z_Cr = 0
                else:
                    ch.Z = (ch.Z + z_incr) & _Z_MASK

    def _pack_one(self, t, i, g, bank, which_adc, p0_initial, zero_write, flush, last, intf=1, intf_rows=1,
                  zero_special=False, remap=(0, 0)):
        """One packer's share of a PACR: both address generators, then the pipeline.
        ``intf``: the Dst read interfaces to read through (interface k starts
        ``k * intf_rows`` rows after the input address); ``remap``: Dst.md's
        (remap_addrs, swizzle_32b). The configuration fields come from the packer's
        :class:`_Plan` (kept until one of them is written)."""
        cop = self.cop
        thread = t.index
        st = self.state[i]
        spec = cop.arch.packers
        p = g.__self__.get(("pack_plan", i))  # (the derived value, without a lambda per PACR)
        if p is None:
            nm = self._fields_of(i)
            p = g.__self__.derived(("pack_plan", i), nm.plan_names, lambda: _Plan(g, nm, spec, i))
        nm = p.nm
        what = self._whats.get((thread, i))
        if what is None:
            what = self._whats[(thread, i)] = f"t{thread} PACR (packer {i})"

        # ---- input address generator (Packers/InputAddressGenerator.md) ----
        adc, oadc = cop.adcs.adc[which_adc][PACKERS].channel  # channels 0 and 1
        addr = p.base0 + adc.X * p.xstride + adc.Y * p.ystride + adc.Z * p.zstride + adc.W * p.wstride
        in_code = p.in_code
        xmask = p.xmask
        if flush:
            n = 0
        else:
            n = oadc.X - adc.X + 1
            if n < 0:
                raise GuestFault(f"{what}: InputNumDatums = Channel[1].X - Channel[0].X + 1 is negative (it wraps "
                                 "around 2**32: billions of datums)")
        interfaces = [k for k in range(spec.read_interfaces) if (intf >> k) & 1] if intf != 1 else _FIRST
        if zero_special:
            interfaces = _FIRST
            n = oadc.X + 1
        from_dst = not (zero_write or flush)
        if from_dst and p.l1_source:
            raise Unimplemented(f"{what}: packer 0 reading from L1 (Source_interface_selection = 1) is not "
                                "modelled")
        src_addr = 0
        if from_dst:
            src_addr = ((addr // p.bpd) & ~xmask) + (adc.X & xmask)
            src_addr += g(nm.Offset) << 4
            src_addr &= 0x3FFF
        span = None
        if from_dst and 0 < n and interfaces is _FIRST:  # (one interface: the form below, shorter)
            if n <= 16 - (src_addr & 15):
                span = ((src_addr >> 4, src_addr & 15, n),)
            elif not (n | src_addr) & 15:
                span = whole_rows(src_addr >> 4, n >> 4)
        elif from_dst and 0 < n and interfaces:
            starts = [(src_addr + 16 * intf_rows * k) & 0x3FFF for k in interfaces]
            if n <= 16 and all((start & 15) + n <= 16 for start in starts):
                # each interface's datums sit in one Dst row, in order: (row, first column, count)
                span = tuple((start >> 4, start & 15, n) for start in starts)
            elif not n & 15 and not any(start & 15 for start in starts):
                # whole Dst rows (row numbers wrap at 1024, as the addresses at 0x4000)
                span = tuple((((start >> 4) + r) & 0x3FF, 0, 16) for start in starts for r in range(n >> 4))
        if span is not None:
            dst_addrs = None
        elif len(interfaces) == 1:
            dst_addrs = (src_addr + 16 * intf_rows * interfaces[0] + np.arange(n, dtype=np.int64)) & 0x3FFF
        else:
            dst_addrs = np.concatenate([src_addr + 16 * intf_rows * k + np.arange(n, dtype=np.int64)
                                        for k in interfaces]) & 0x3FFF if interfaces else np.zeros(0, dtype=np.int64)

        # ---- output address generator (Packers/OutputAddressGenerator.md) ----
        out_addr = g(nm.L1_Dest_addr) + p.hdr
        if i and (p0_initial >> 31) & 1:
            out_addr += p0_initial
        yzw = p.base1 + oadc.Y * p.ystride1 + oadc.Z * p.zstride1 + oadc.W * p.wstride1
        out_addr += (yzw & ~0xF) >> spec.out_yzw_shift
        if p.add_offset:
            out_addr += self.l1_dest_addr_offset[i]
        out_addr &= 0xFFFFFFFF
        if p.limit is not None:
            if out_addr > p.limit:
                out_addr = (out_addr - p.fifo) & 0xFFFFFFFF
        if not p.no_compress:
            raise Unimplemented(f"{what}: compression (Disable_zero_compress = 0) is not modelled; "
                                "Packers/Compression.md does not specify the compression logic")
        out_code = p.out_code
        out_fmt = p.out_fmt if p.out_fmt is not None else from_hw_code(out_code)
        if out_code & 2:
            if st.exp.needs_new:
                st.exp.byte_address = (out_addr & 0x1FFFF) << 4
                st.exp.needs_new = False
            out_addr += p.exp_section
        if st.data.needs_new:
            st.data.byte_address = (out_addr & 0x1FFFF) << 4
            st.data.needs_new = False

        # ---- the pipeline ----
        acc = p.acc
        if span is not None:
            fast = p.fast
            if fast is None:
                fast = p.fast = self._span_choice(i, g, in_code, out_fmt, what)
            if not (fast and self._span_fast(t, i, g, st, fast, span, remap, out_fmt, acc, what,
                                             n * len(interfaces))):
                self._pipeline(t, i, g, bank, what, from_dst, None, in_code, out_fmt, acc, remap, span)
        elif dst_addrs.size:
            self._pipeline(t, i, g, bank, what, from_dst, dst_addrs, in_code, out_fmt, acc, remap)
        if last or flush:
            if st.pending is not None and st.pending.size:
                self._flush_partial_block(t, i, st, acc, what)
            st.pending = st.pending_key = None
            for s in (st.exp, st.data):
                if s.buf:
                    s.buf.extend(bytes(16 - len(s.buf)))
                    self._store(t, i, s, out_fmt, acc and s is st.data, what, exp_stream=s is st.exp)
                s.needs_new = True
            st.tpg = [0, 0, 0]
        if last:
            self._tile_done(thread, i, g, nm)

    def _span_choice(self, i, g, in_code, out_fmt, what):
        """For Dst row spans: () when ReLU, downsampling, thresholding or edge masking
        may change a datum (the pipeline's general path), else (the row-span fast form
        or None, and the early / late conversion: read_32b, Dst reading, intermediate,
        mode, late source) for :meth:`_span_fast`. Kept in the packer's _Plan (every
        field it reads is one of the plan's); raises as the pipeline would."""
        read_32b, inter_code, late_from, repr_, inter, mode = self._early_config(g, in_code, out_fmt, what)
        late_inter = _late_source(inter, late_from)
        nm = self._fields_of(i)
        if (g("STACC_RELU_ApplyRelu") & 3 or (g(nm.Downsample_mask) or 0xFFFF) != 0xFFFF
                or g(nm.Exp_threshold_en) or not self._edge_keeps_all(i, g)):
            return ()
        return (_rows_fast_form(read_32b, repr_, mode, inter, late_inter, out_fmt), read_32b, repr_, inter, mode,
                late_inter)

    def _span_fast(self, t, i, g, st, fast, span, remap, out_fmt, acc, what, n):
        """The pipeline for Dst row ``span`` (``n`` datums) without the conversion chain
        (see :meth:`_span_choice`): -> False when neither fast form applies."""
        rows_form, read_32b, repr_, inter, mode, late_inter = fast
        if rows_form is _BF16_BFP:
            if n & 15 or (st.pending is not None and st.pending.size):
                return False
            self._tpg_advance(i, g, n)
            b, data, exps = bf16_rows_bfp(self.cop.dst.bits, span, remap[0], out_fmt)
            self._histogram(i, inter, b, high=True)
            st.pending, st.pending_key = np.zeros(0, dtype=U32), (late_inter, out_fmt)
            self._emit(t, i, st.exp, exps, out_fmt, acc, what, exp_stream=True)
            self._emit(t, i, st.data, data, out_fmt, acc, what)
            return True
        if rows_form is not None:
            native = self.native
            if native is not None and not acc and not st.data.buf:
                form = _NATIVE_FORMS.get(rows_form)
                if form is not None and self._span_native(native, i, g, st, form, span, remap, n):
                    return True
            done = rows_form(self.cop.dst.bits, span, remap)
            if done is None:
                return False
            out, data = done
            self._tpg_advance(i, g, n)
            self._histogram(i, inter, out, high=rows_form is not _fp16_rows_form)  # (FP16: the values)
            self._emit(t, i, st.data, data, out_fmt, acc, what)
            return True
        if read_32b:
            return False
        return self._dst16_form(t, i, g, st, span, remap, repr_, inter, mode, late_inter, out_fmt, acc, what)

    def _span_native(self, native, i, g, st, form, span, remap, n):
        """The row form ``form`` of :meth:`_span_fast` compiled (movers_native.pack_rows):
        convert, take the largest histogram exponent and write whole 16-byte units to L1
        in one call, as the Python forms, ``_histogram`` and ``_store`` do: -> False
        (nothing done) where it does not apply: the histogram counts (ENABLE_ACC_STATS),
        output that leaves a partial unit or lies beyond L1, or an undefined datum."""
        tv = self.cop.config.thread_values
        if tv[0]["ENABLE_ACC_STATS_Enable"] or tv[1]["ENABLE_ACC_STATS_Enable"] or tv[2]["ENABLE_ACC_STATS_Enable"]:
            return False
        code, shift = form
        nbytes = n << shift
        stream = st.data
        addr = stream.byte_address
        cop = self.cop
        if nbytes & 15 or addr < 0 or addr + nbytes > cop.arch.l1_size:
            return False
        tile = cop.tile
        r = native.pack_rows(code, cop.dst.bits, span, remap[0], remap[1], tile.l1, addr, tile.is_code)
        if r < 0:
            return False
        self._tpg_advance(i, g, n)
        top = r & 0xFFFF
        if top > self._hist_max[i]:
            self._hist_max[i] = top
        if r >> 16:  # (as _store: translated code there is stale)
            for w, c in enumerate(tile.is_code[addr >> 2:(addr + nbytes + 3) >> 2]):
                if c:
                    tile.invalidate_code(((addr >> 2) + w) << 2)
        tile.activity[0] = 1
        stream.byte_address = addr + nbytes
        st.writes += nbytes >> 4
        return True

    def _tile_done(self, thread, i, g, nm):
        """TDMA-RISC.md: AccTileSize / metadata FIFO at the end of a PACR with Last."""
        st = self.state[i]
        self.last_tile_size[i] = st.writes & 0xFFFF
        self.last_thread[i] = thread
        acc = self.acc_tile_size[i][thread] + self.last_tile_size[i]
        if g(nm.Add_tile_header_size):
            acc += 1
        self.acc_tile_size[i][thread] = acc & 0xFFFF
        fifo = self.metadata_fifo[i]
        if g(nm.Enable_out_fifo) and len(fifo) < METADATA_FIFO_DEPTH:
            fifo.append((self.last_tile_size[i], self.all_zero_flags[i]))
        st.writes = 0

    # -- pipeline stages -------------------------------------------------------------------
    def _early_config(self, g, in_code, out_fmt, what):
        read_32b = bool(g("PCK_DEST_RD_CTRL_Read_32b_data"))
        if g("ALU_FORMAT_SPEC_REG_Dstacc_override"):
            inter_code = g("ALU_FORMAT_SPEC_REG_Dstacc_val")
        else:
            inter_code = g("ALU_FORMAT_SPEC_REG2_Dstacc")
        late_from = from_hw_code(in_code)
        round10 = bool(g("PCK_DEST_RD_CTRL_Round_10b_mant"))
        if (self.cop.arch.packers.fp16_round10 and round10 and (inter_code & 0xF) == _F.Float16
                and not g("PCK_DEST_RD_CTRL_Read_int8")):
            return read_32b, inter_code, late_from, (Repr.DST32_FP32 if read_32b else Repr.DST16_BF16), _I.FP16, \
                ROUND10
        key = (read_32b, bool(g("PCK_DEST_RD_CTRL_Read_int8")), bool(g("PCK_DEST_RD_CTRL_Round_10b_mant")),
               bool(g("PCK_DEST_RD_CTRL_Read_unsigned")), inter_code, late_from, out_fmt)
        early = self._early.get(key)
        if early is None:  # early_from_config is a function of these alone (one that raises is asked again)
            early = self._early[key] = early_from_config(
                read_32b_data=key[0], read_raw=key[1], round_10b_mant=key[2], read_unsigned=key[3],
                intermediate_code=inter_code, late_from=late_from, late_to=out_fmt)
        repr_, inter, mode = early
        return read_32b, inter_code, late_from, repr_, inter, mode

    def _pipeline(self, t, i, g, bank, what, from_dst, a, in_code, out_fmt, acc, remap=(0, 0), span=None):
        """The pipeline for the datums at Dst addresses ``a`` (row * 16 + column), or
        (``a`` None) the ``span`` (row, first column, count) of one Dst row."""
        cop = self.cop
        st = self.state[i]
        pc = cop.arch.packers.sections[i]
        read_32b, inter_code, late_from, repr_, inter, mode = self._early_config(g, in_code, out_fmt, what)
        late_inter = _late_source(inter, late_from)
        if a is None:  # (the fast forms for spans were tried: _pack_one, _span_fast)
            a = np.concatenate([((row << 4) + c0 + np.arange(k, dtype=np.int64)) for row, c0, k in span]) & 0x3FFF
        n = a.size

        if from_dst:
            # Fetch from Dst (EdgeMasking.md FetchFromDst) and early conversion.
            row, col = a >> 4, a & 15
            bits = cop.dst.bits
            if read_32b:
                # Dst32b[Row] with the 10-bit Row (Dst.md: "Row remains a 10-bit index, though
                # the mapping down to AdjRow can only yield 512 distinct values", which is what
                # EdgeMasking.md's "Row will be reduced from 10 bits to 9" refers to): tt-llk's
                # second Dst half starts at row 512 for the Matrix Unit and the packers alike
                adj = adj_rows(row, *remap)
                raw = (bits[adj, col].astype(U32) << 16) | bits[adj + 8, col].astype(U32)
            else:
                raw = bits[adj16(row, remap[0]), col].astype(U32)
            shift = 0
            if mode is EarlyMode.ROUND and inter in (_I.INT8, _I.UINT8) and g("INT_DESCALE_Enable"):
                if g("INT_DESCALE_Mode"):
                    raise Unimplemented(f"{what}: INT_DESCALE_Mode = 1 (the ShiftAmount's z is not defined by "
                                        "Packers/FormatConversion.md)")
                shift = g("INT_DESCALE_VALUES_SEC0_Value") & 31
            relu_done = False
            if mode is ROUND10 and read_32b:
                # ReLU applies to the rounded 19-bit value, its threshold aligned as a BF16's
                # bits (ttsim's Blackhole packer; no page covers this conversion)
                v = tf32_to_fp16(self._relu19(g, round10_tf32(raw)))
                relu_done = True
            elif mode is ROUND10:
                v = to_fp16_round10(raw, repr_)
            else:
                v = packer_early(raw, repr_, inter, mode, shift=shift)
            keep_bit = self._edge_mask(i, g, n, col)
            if keep_bit is not None and not keep_bit.all():
                if g("PCK_EDGE_MODE_mode"):
                    if not inter.is_float:
                        raise UndefinedBehaviour(f"{what}: edge masking to -infinity with the integer intermediate "
                                                 f"{inter.name}")
                    neg_inf = 0xFF800000 if inter.exponent_bits == 8 else (0xFFFF & _float_mask(inter))
                    v = np.where(keep_bit, v, U32(neg_inf)).astype(U32)
                else:
                    v = np.where(keep_bit, v, U32(0)).astype(U32)
            if not relu_done:
                v = self._relu(g, inter_code, inter, v, what)
        else:
            v = np.zeros(n, dtype=U32)  # /dev/null

        # Downsampling.md
        dmask = g(pc + "Downsample_mask") or 0xFFFF
        if dmask != 0xFFFF:
            sel = ((dmask >> (np.arange(n) & 15)) & 1).astype(bool)
            v = v[sel]
        if from_dst:
            self._histogram(i, inter, v)
        # ExponentThresholding.md
        if g(pc + "Exp_threshold_en"):
            v = exponent_threshold(v, late_from, g(pc + "Exp_threshold"))
        # Late conversion and output.
        if is_bfp(out_fmt):
            key = (late_inter, out_fmt)
            if st.pending is not None and st.pending.size:
                if st.pending_key != key:
                    raise UndefinedBehaviour(f"{what}: a BFP block of 16 continues with a different format")
                v = np.concatenate([st.pending, v])
            full = (v.size // 16) * 16
            st.pending, st.pending_key = v[full:].copy(), key
            v = v[:full]
            if not v.size:
                return
            datums, exps = packer_late(v, late_inter, out_fmt, bfp_overflow="saturate",
                                         undefined=self.cop.undefined)
            self._emit(t, i, st.exp, exps.astype(np.uint8), out_fmt, acc, what, exp_stream=True)
        elif out_fmt is _F.Fp8 and self._e4m3(g, pc):
            if late_inter is not _I.FP16:
                raise UndefinedBehaviour(f"{what}: FP8 E4M3 output (Pac_LF8_4b_exp) from {late_inter.name} "
                                         "(tt-llk feeds it FP16 only)")
            datums = fp16_to_fp8_e4m3(v)
        else:
            datums, _ = packer_late(v, late_inter, out_fmt, bfp_overflow="saturate",
                                         undefined=self.cop.undefined)
        self._emit(t, i, st.data, write_datums(datums, out_fmt), out_fmt, acc, what)

    def _dst16_form(self, t, i, g, st, span, remap, repr_, inter, mode, late_inter, out_fmt, acc, what):
        """The pipeline for row ``span`` of a 16-bit Dst by the tables of the conversion
        chain (:func:`~ttemu.tensix.formats.pack_tables.dst16_chain`): one gather for
        the L1 datums and one for the histogram's exponents, and for BFP8 / BFP4 / BFP2
        outputs the shared-exponent rounding by table (``bfp_tail``). The caller has
        checked that ReLU, downsampling, thresholding and edge masking change nothing.
        Built once a configuration has taken the chain ``TABLE_AFTER`` times (building one
        costs about 2 ms, what 40 to 50 PACRs save); -> False (nothing done)
        without tables, for INT8 / UINT8 intermediates (descaling), E4M3 output, an
        incomplete BFP block pending or a row a block would be split by, or when a
        datum reaches an undefined case of the late conversion (the chain reports it)."""
        if inter in (_I.INT8, _I.UINT8) or (out_fmt is _F.Fp8 and self._e4m3(g, self.cop.arch.packers.sections[i])):
            return False
        key = (repr_, inter, mode, late_inter, out_fmt)
        chain = self._chains.get(key, 0)
        if chain is None:
            return False
        if chain == 0:
            uses = self._chain_uses[key] = self._chain_uses.get(key, 0) + 1
            if uses < self.TABLE_AFTER:
                return False
            from ..formats.pack_tables import dst16_chain  # (imported on first use: start-up)

            if mode is ROUND10:
                def early(x):
                    return to_fp16_round10(x, repr_)
            else:
                def early(x):
                    return packer_early(x, repr_, inter, mode)
            chain = dst16_chain(early, late_inter, out_fmt, key=key)
            if chain is not None:  # with the histogram's exponent of every value
                chain = (chain, _hist_exps_of(inter, chain.inter).astype(np.uint8))
            self._chains[key] = chain
            if chain is None:
                return False
        chain, hexp = chain
        bfp = chain.pre is not None
        bits = self.cop.dst.bits
        x = dst16_spans(bits, span, remap[0])
        if bfp and (x.size & 15 or (st.pending is not None and st.pending.size)):
            return False
        if chain.warn is not None and chain.warn[x].any():
            return False
        self._tpg_advance(i, g, x.size)
        if x.size:
            self._hist_exponents(i, hexp[x])
        if bfp:
            from ..formats.pack_tables import bfp_tail

            datums, exps = bfp_tail(None, out_fmt, chain.e16[x], chain.sm[x])
            st.pending, st.pending_key = np.zeros(0, dtype=U32), (late_inter, out_fmt)
            if not exps.size:
                return True
            self._emit(t, i, st.exp, exps, out_fmt, acc, what, exp_stream=True)
            self._emit(t, i, st.data, datums.tobytes(), out_fmt, acc, what)
        else:
            self._emit(t, i, st.data, chain.out[x].tobytes(), out_fmt, acc, what)
        return True

    def _e4m3(self, g, pc):
        field = self.cop.arch.packers.fp8_e4m3_field
        return bool(field and g(pc + field))

    def _flush_partial_block(self, t, i, st, acc, what):
        """Last/Flush with fewer than 16 datums of a BFP block: undefined (no page says how
        a block is completed). Like the output buffers (OutputAddressGenerator.md: "padded
        with zeroes"), ttemu pads the block with zero datums, which take no part in the
        shared exponent, and writes it."""
        late_inter, out_fmt = st.pending_key
        self.cop.undefined("PACR partial BFP block",
                           f"{what}: Last/Flush with {st.pending.size} datums of an incomplete BFP block of 16 "
                           "(undefined); ttemu pads it with zero datums and writes it")
        v = np.concatenate([st.pending, np.zeros(16 - st.pending.size, dtype=U32)])
        datums, exps = packer_late(v, late_inter, out_fmt, bfp_overflow="saturate", undefined=self.cop.undefined)
        self._emit(t, i, st.exp, exps.astype(np.uint8), out_fmt, acc, what, exp_stream=True)
        self._emit(t, i, st.data, write_datums(datums, out_fmt), out_fmt, acc, what)

    def _tpg_advance(self, i, g, n):
        """Advance the packer's tile position generator once per datum, ``n`` times
        (EdgeMasking.md); -> the state before: (x0, inner, outer, reads, transposed)."""
        st = self.state[i]
        x0, y0, z0 = st.tpg
        nm = self._fields_of(i)
        reads = g(nm.pack_reads_per_xy_plane)
        transposed = g(nm.pack_yz_transposed)
        inner, outer = (z0, y0) if transposed else (y0, z0)
        # The state Advance() n times leaves for the next datum.
        rows_n = (x0 + n) >> 4
        if reads and inner < reads:
            inner_n, outer_n = (inner + rows_n) % reads, outer + (inner + rows_n) // reads
        else:
            inner_n, outer_n = inner + rows_n, outer
        st.tpg = [(x0 + n) & 15, outer_n, inner_n] if transposed else [(x0 + n) & 15, inner_n, outer_n]
        return x0, inner, outer, reads, transposed

    def _edge_keeps_all(self, i, g):
        """Does every EdgeMask a datum can reach keep every column (no arrays needed)?
        True when all four masks are 0xFFFF, or (without face sets) every row of the
        packer's row set maps to a mask that is. Kept with the bank's field values until
        one of the fields it reads is written."""
        return g.__self__.derived(("edge_keeps_all", i), _EDGE_KEEP_NAMES, lambda: self._edge_keeps_all_now(i, g))

    def _edge_keeps_all_now(self, i, g):
        mask_values = tuple(map(g, _EDGE_MASK_NAMES))
        if mask_values == (0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF):
            return True
        self._row_map(g)
        if g("PCK_EDGE_TILE_FACE_SET_SELECT_enable"):
            return False
        row_set = (g("PCK_EDGE_TILE_ROW_SET_SELECT_select") >> (2 * i)) & 3
        return all(mask_values[c] == 0xFFFF for c in self._row_map_cache[0][16 * row_set:16 * row_set + 16])

    def _edge_mask(self, i, g, n, col):
        """EdgeMasking.md: per datum, whether its EdgeMask bit keeps it (None: every
        datum is kept); advances the packer's tile position generator once per datum."""
        x0, inner, outer, reads, transposed = self._tpg_advance(i, g, n)
        if self._edge_keeps_all(i, g):
            return None
        mask_values = tuple(map(g, _EDGE_MASK_NAMES))
        row_map = self._row_map(g)
        face_sets = g("PCK_EDGE_TILE_FACE_SET_SELECT_enable")
        if not face_sets:
            row_set = (g("PCK_EDGE_TILE_ROW_SET_SELECT_select") >> (2 * i)) & 3
        # Advance() n times from (x0, y0, z0): entry k is the state before datum k
        # (entry n, the state left for the next datum, is st.tpg above).
        k = x0 + np.arange(n + 1, dtype=np.int64)
        rows = k >> 4
        if reads and inner < reads:  # the inner counter wraps at pack_reads_per_xy_plane
            inner_k, outer_k = (inner + rows) % reads, outer + (inner + rows) // reads
        else:  # it never equals pack_reads_per_xy_plane again: no wrap
            inner_k, outer_k = inner + rows, np.full(n + 1, outer, dtype=np.int64)
        y, z = (outer_k, inner_k) if transposed else (inner_k, outer_k)
        y, z = y[:n], z[:n]
        masks = np.array(mask_values, dtype=np.int64)
        if face_sets:
            zz = g(f"DEST_TARGET_REG_CFG_PACK_SEC{i}_ZOffset") + z
            a_sel = (g("PCK_EDGE_TILE_FACE_SET_SELECT_select") >> (2 * i)) & 3
            face_map = np.array([g(f"TILE_FACE_SET_MAPPING_{a_sel}_face_set_mapping_{j}") for j in range(16)],
                                dtype=np.int64)
            b = face_map[zz & 15]
        else:
            b = np.full(n, row_set, dtype=np.int64)
        c = row_map[b, y & 15]
        return ((masks[c] >> col) & 1).astype(bool)

    def _row_map(self, g):
        """TILE_ROW_SET_MAPPING_{b}_row_set_mapping_{j} as an int64 array [b, j], kept
        for the values last read (reading 64 fields is most of an edge mask's cost)."""
        key = tuple(map(g, _ROW_MAP_NAMES))
        hit = self._row_map_cache
        if hit is not None and hit[0] == key:
            return hit[1]
        row_map = np.array(key, dtype=np.int64).reshape(4, 16)
        self._row_map_cache = (key, row_map)
        return row_map

    def _relu(self, g, inter_code, inter, v, what):
        """ReLU.md ``ReLUStage`` on intermediate bit patterns."""
        relu = g("STACC_RELU_ApplyRelu") & 3
        if relu == 0:
            return v
        thr = g("STACC_RELU_ReluThreshold") & 0xFFFF
        fp16_thr = inter_code in _FP16_RELU_CODES
        if not inter.is_float:
            if relu != 1:
                raise UndefinedBehaviour(f"{what}: ReLU mode {relu} with the integer intermediate {inter.name} "
                                         "(ReLU.md: use 0 or 1)")
            sign_bit = {_I.INT32: 31, _I.INT16: 15, _I.INT8: 7}.get(inter)
            if sign_bit is None:  # UINT8: never negative
                return v
            return np.where((v >> sign_bit) & 1, U32(0), v).astype(U32)
        negative_thr = relu >= 2 and thr & 0x8000
        if negative_thr:
            self.cop.undefined(f"PACR ReLU mode {relu} negative threshold",
                               f"{what}: ReLU threshold 0x{thr:04x} is negative (ReLU.md: undefined); ttemu does "
                               "what ttsim does: the threshold is compared as an unsigned bit pattern, above "
                               "every positive value (mode 2 writes zeros, mode 3 is plain ReLU)")
        if (inter.exponent_bits == 5) != fp16_thr:
            raise UndefinedBehaviour(f"{what}: IntermediateFormat code {inter_code} and the early conversion's "
                                     f"{inter.name} disagree on the exponent width")
        if inter.exponent_bits == 8:
            with np.errstate(invalid="ignore"):
                x = v.view(np.float32)
                t32 = np.array([thr << 16], dtype=U32).view(np.float32)[0]
                le0 = x <= 0
                le_t = x <= t32
                gt_t = x > t32
        else:
            sign = (v >> 15) & 1
            mag = v & 0x7FFF
            le0 = (sign == 1) | (mag == 0)
            le_t = (sign == 1) | (mag <= thr)
            gt_t = (sign == 0) & (mag > thr)
        if negative_thr:  # every value is <= the threshold, none above it
            le_t = np.ones(v.shape, dtype=bool)
            gt_t = np.zeros(v.shape, dtype=bool)
        clamp = U32((thr << 16) & _float_mask(inter)) if inter.exponent_bits == 8 else U32(thr & _float_mask(inter))
        if relu == 1:
            return np.where(le0, U32(0), v).astype(U32)
        if relu == 2:
            return np.where(le_t, U32(0), v).astype(U32)
        return np.where(le0, U32(0), np.where(gt_t, clamp, v)).astype(U32)

    def _relu19(self, g, v):
        """ReLU (ReLU.md's modes) on Round_10b_mant's 19-bit values (sign at bit 18): a
        negative value becomes 0, then unsigned compares with ReluThreshold << 3."""
        relu = g("STACC_RELU_ApplyRelu") & 3
        if relu == 0:
            return v
        raw_thr = g("STACC_RELU_ReluThreshold") & 0xFFFF
        if relu >= 2 and raw_thr & 0x8000:
            self.cop.undefined(f"PACR ReLU mode {relu} negative threshold",
                               f"ReLU threshold 0x{raw_thr:04x} is negative (ReLU.md: undefined); ttemu does what "
                               "ttsim does: the threshold is compared as an unsigned bit pattern")
        thr = U32(raw_thr << 3)
        v = np.where(v & 0x40000, U32(0), v).astype(U32)
        if relu == 2:
            v = np.where(v <= thr, U32(0), v)
        elif relu == 3:
            v = np.where(v > thr, thr, v)
        return v.astype(U32)

    def _histogram(self, i, inter, v, high=False):
        """ExponentHistogram.md ``Update`` for each datum. ``high``: ``v`` holds only the
        high 16 bits of FP32-layout values."""
        if v.size == 0 or inter in (_I.INT8, _I.UINT8):
            return
        tv = self.cop.config.thread_values  # ThreadConfig[k].ENABLE_ACC_STATS_Enable for any thread k
        stats = tv[0]["ENABLE_ACC_STATS_Enable"] or tv[1]["ENABLE_ACC_STATS_Enable"] or tv[2]["ENABLE_ACC_STATS_Enable"]
        if high and not stats:  # the largest exponent only: max(v & 0x7F80) >> 7 is max((v >> 7) & 0xFF)
            pending = self._hist_pending[i]
            if self.lazy_histogram and v.flags.owndata:  # (an array no one writes again)
                pending.append(v)
                if len(pending) >= 64:
                    self._take_pending_max(i)
                return
            if pending:
                self._take_pending_max(i)
            top = int((v & 0x7F80).max()) >> 7
            if top > self._hist_max[i]:
                self._hist_max[i] = top
            return
        self._hist_exponents(i, (v >> 7) & 0xFF if high else _hist_exps_of(inter, v), stats)

    def _hist_exponents(self, i, e, stats=None):
        """ExponentHistogram.md ``Update`` with the datums' exponents ``e``."""
        if stats is None:
            tv = self.cop.config.thread_values
            stats = (tv[0]["ENABLE_ACC_STATS_Enable"] or tv[1]["ENABLE_ACC_STATS_Enable"]
                     or tv[2]["ENABLE_ACC_STATS_Enable"])
        if stats:
            counts = np.bincount((e & 31).astype(np.int64), minlength=32)
            h = self.exponent_histogram[i].astype(np.int64) + counts
            self.exponent_histogram[i] = np.minimum(h, 255).astype(np.uint8)
        self.exponent_histogram_max[i] = max(int(self.exponent_histogram_max[i]), int(e.max()))

    # -- output --------------------------------------------------------------------------
    def _emit(self, t, i, stream, data, out_fmt, acc, what, exp_stream=False):
        """Append bytes to a stream's buffer; write out every complete 16 bytes."""
        if type(data) is not bytes:
            data = np.asarray(data, dtype=np.uint8).tobytes()
        if not stream.buf and not len(data) & 15:  # whole 16-byte units: no buffering
            if data:
                self._store(t, i, stream, out_fmt, acc, what, exp_stream, data)
            return
        stream.buf.extend(data)
        if len(stream.buf) >= 16:
            self._store(t, i, stream, out_fmt, acc, what, exp_stream)

    def _store(self, t, i, stream, out_fmt, acc, what, exp_stream=False, chunk=None):
        """Write the stream's complete 16-byte units (or ``chunk``, whole units, with the
        buffer empty) at its address."""
        if chunk is None:
            full = (len(stream.buf) // 16) * 16
            chunk = stream.buf[:full]
            del stream.buf[:full]
        else:
            full = len(chunk)
        addr = stream.byte_address
        if addr < 0 or addr + full > self.cop.arch.l1_size:
            raise GuestFault(f"{what}: writes L1 bytes {addr:#x}..{addr + full - 1:#x}, beyond L1 (there is no "
                             "memory there)")
        tile = self.cop.tile
        if acc:
            if exp_stream:
                raise UndefinedBehaviour(f"{what}: L1 accumulation of a BFP exponent stream")
            l1 = np.frombuffer(tile.l1, dtype=np.uint8)
            l1[addr:addr + full] = accumulate(l1[addr:addr + full].copy(), np.frombuffer(bytes(chunk), dtype=np.uint8),
                                              out_fmt, what)
        else:
            tile.l1[addr:addr + full] = chunk
        code = tile.is_code[addr >> 2:(addr + full + 3) >> 2]
        if code.count(0) != len(code):
            for w, c in enumerate(code):
                if c:
                    tile.invalidate_code(((addr >> 2) + w) << 2)
        tile.activity[0] = 1
        stream.byte_address = addr + full
        self.state[i].writes += full // 16

    # -- PACR_SETREG -------------------------------------------------------------------------
    @op
    def PACR_SETREG(self, t, Last, Flush, StreamId, PackSel, WrData, AddrSel, Push):
        """PACR_SETREG.md: ``TT_PACR_SETREG(1, AddrSel, Value10, 0xf, AddrMid, 1, 0)``:
        Push = 1, WrData = Value10, PackSel = 0xf, StreamId = AddrMid, Flush = 1,
        Last = 0 (other values of the fixed fields are undefined)."""
        thread = t.index
        if not (Push == 1 and PackSel == 0xF and Flush == 1 and Last == 0):
            self.cop.undefined("PACR_SETREG fixed fields",
                               f"Push={Push} PackSel={PackSel:#x} Flush={Flush} Last={Last}; the syntax fixes them to "
                               "1, 0xf, 1, 0 (PACR_SETREG.md: other values undefined); ttemu runs the page's model, "
                               "which reads none of them")
        cfg = self.cop.config
        bank = cfg.bank_of(thread)
        sections = self.cop.arch.packers.sections
        out0 = cfg.get(sections[0] + "Out_data_format", bank)
        # Flush the output buffers of the packers (all four).
        for i, sec in enumerate(sections):
            st = self.state[i]
            out_fmt_code = cfg.get(sec + "Out_data_format", bank)
            acc = bool(cfg.get(sec + "Pack_L1_Acc", bank))
            for s in (st.exp, st.data):
                if s.buf:
                    s.buf.extend(bytes(16 - len(s.buf)))
                    self._store(t, i, s, from_hw_code(out_fmt_code), acc and s is st.data,
                                f"t{thread} PACR_SETREG (packer {i})", exp_stream=s is st.exp)
        addr = 0xFFB00000 + self.set_reg_base[AddrSel] + (StreamId << 12)
        hi = WrData * self.set_reg_hi_scaler[out0 & 3]
        value = (WrData + ((hi & 0x1FFFF) << 12)) & 0xFFFFFFFF
        if addr < 0xFFB11000:
            raise GuestFault(f"t{thread} PACR_SETREG: address {addr:#010x} is below 0xFFB11000 (undefined; the "
                             "packers cannot reach it) "
                                     f"(SetRegBase[{AddrSel}] = {self.set_reg_base[AddrSel]:#x})")
        if addr < 0xFFB80000:
            tile = self.cop.tile
            entry = tile.router.lookup(addr)
            if entry is None or entry[1] is None:
                raise Unimplemented(f"t{thread} PACR_SETREG: write to {addr:#010x}"
                                    f"{' in ' + entry[0].name if entry else ''}, which is not modelled")
            if not entry[1].write(None, addr, 4, value):
                raise Unimplemented(f"t{thread} PACR_SETREG: the write to {addr:#010x} would block; blocking "
                                    "writes from the packers are not modelled")
            tile.activity[0] = 1
        return None
