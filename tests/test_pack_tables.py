"""The packers' table forms (ttemu/tensix/formats/pack_tables.py) against the conversion
chain they replace: packer_early, packer_late and write_datums on every 16-bit Dst
pattern of every 16-bit-Dst early recipe with every late conversion it may feed;
the BFP shared-exponent table against bfp_encode for every entry; bfp_tail on random
and special blocks; late_undefined against what packer_late reports."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ttemu.errors import UndefinedBehaviour
from ttemu.tensix.formats import DataFormat, Intermediate, Repr, write_datums
from ttemu.tensix.formats.pack import EARLY_TABLE, EarlyMode, packer_early
from ttemu.tensix.formats.pack_late import _bfp_truncate, bfp_encode, late_undefined, packer_late
from ttemu.tensix.formats.pack_tables import BFP_TAIL_FORMATS, bfp_tail, bfp_tail_table, dst16_chain
from ttemu.tensix.units.pack import LATE_FROM, _late_source

F, I = DataFormat, Intermediate
ALL = np.arange(1 << 16, dtype=np.uint32)
_REPR = {"bf16": Repr.DST16_BF16, "fp16": Repr.DST16_FP16, "int16": Repr.DST16_INT16}
OUT_FORMATS = [f for f in F if f.value not in (12, 13)]


def _configs():
    """(Dst reading, intermediate, mode, late source, Out_data_format) for every 16-bit
    early-table cell and every In_data_format the packer accepts after it."""
    out = []
    for (kind, inter), modes in EARLY_TABLE.items():
        if kind not in _REPR:
            continue
        for mode in sorted(modes, key=lambda m: m.value):
            lates = set()
            for late_from in LATE_FROM:
                try:
                    lates.add(_late_source(inter, late_from))
                except Exception:
                    pass
            for late in sorted(lates, key=lambda x: x.name):
                out.extend((_REPR[kind], inter, mode, late, f) for f in OUT_FORMATS)
    return out


CONFIGS = _configs()


def _raise(site, text):
    raise UndefinedBehaviour(text)


def _chain_of(repr_, inter, mode, late, fmt):
    return dst16_chain(lambda x: packer_early(x, repr_, inter, mode), late, fmt)


def test_the_configurations_cover_the_packers_16_bit_recipes():
    names = {(c[0], c[1], c[4]) for c in CONFIGS}
    for want in [(Repr.DST16_FP16, I.FP16, F.Float16), (Repr.DST16_BF16, I.BF16, F.Bfp8_b),
                 (Repr.DST16_BF16, I.E8M6, F.Bfp4_b), (Repr.DST16_INT16, I.INT16, F.UInt16),
                 (Repr.DST16_FP16, I.E5M7, F.Float32)]:
        assert want in names


@pytest.mark.parametrize("repr_,inter,mode,late", sorted({c[:4] for c in CONFIGS}, key=str),
                         ids=lambda v: getattr(v, "name", str(v)))
def test_dst16_chain_matches_the_chain_for_every_value(repr_, inter, mode, late):
    """For each Out_data_format: the table's datum (or BFP pre-stage) for every value the
    chain converts without an undefined case equals the chain's; ``warn`` flags exactly
    the values packer_late reports; a chain that cannot be tabled raises for every value."""
    v = packer_early(ALL, repr_, inter, mode)
    for fmt in OUT_FORMATS:
        chain = _chain_of(repr_, inter, mode, late, fmt)
        if chain is None:
            if fmt.is_bfp and fmt not in BFP_TAIL_FORMATS:
                continue  # BFP 'a' formats: not tabled
            with pytest.raises((UndefinedBehaviour, ValueError)):
                packer_late(v[:1], late, fmt, bfp_overflow="saturate", undefined=_raise)
            continue
        assert np.array_equal(chain.inter, v)
        warn = late_undefined(v, late, fmt)
        assert (chain.warn is None) == (not warn.any())
        ok = ~warn
        if warn.any():
            assert np.array_equal(chain.warn, warn)
            for k in np.flatnonzero(warn)[::97]:  # each flagged value is reported on its own
                with pytest.raises(UndefinedBehaviour):
                    packer_late(v[k:k + 1], late, fmt, bfp_overflow="saturate", undefined=_raise)
        if fmt in BFP_TAIL_FORMATS:
            b, _ = packer_late(v[ok], late, F.Float16_b, undefined=_raise)  # raises if a kept value is flagged
            assert np.array_equal(chain.pre[ok], b)
            continue
        datums, _ = packer_late(v[ok], late, fmt, bfp_overflow="saturate", undefined=_raise)
        assert chain.out[ok].tobytes() == write_datums(datums, fmt).tobytes(), fmt


def test_bfp_tail_table_matches_bfp_encode_for_every_entry():
    """Every (sign, mantissa, exponent distance) index: blocks of 15 datums whose
    exponents lie d below an anchor at exponent 255 (d = 255: a datum with exponent 0)."""
    k = np.arange(1 << 16, dtype=np.uint32)
    sign, man7, d = k >> 15, (k >> 8) & 0x7F, k & 0xFF
    exp = np.where(d == 255, 0, 255 - d).astype(np.uint32)
    pad = (-k.size) % 15
    sign, man7, exp = (np.concatenate([a, np.zeros(pad, np.uint32)]).reshape(-1, 15) for a in (sign, man7, exp))
    blocks = lambda a, first: np.concatenate([np.full((a.shape[0], 1), first, np.uint32), a], axis=1).reshape(-1)
    got8, shared = bfp_encode(blocks(sign, 0), blocks(exp, 255), blocks(man7, 0x55), 8, overflow="saturate")
    assert (shared == 255).all()
    want8 = got8.reshape(-1, 16)[:, 1:].reshape(-1)[:k.size]
    for bits in (8, 4, 2):
        want = want8 if bits == 8 else _bfp_truncate(want8, bits)
        assert np.array_equal(bfp_tail_table(bits).astype(np.uint32), want), bits


_SPECIAL_BF16 = st.sampled_from([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFFF, 0x0001, 0x807F, 0x0080, 0x7F7F,
                                 0xFF7F, 0x3F80, 0x3FFF, 0x4000, 0x3F7F, 0xBFFF, 0x00FF, 0x0100])


@settings(max_examples=150, deadline=None)
@given(st.lists(_SPECIAL_BF16 | st.integers(0, 0xFFFF), min_size=16, max_size=64),
       st.sampled_from(sorted(BFP_TAIL_FORMATS)), st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_bfp_tail_matches_the_late_conversion(words, fmt, shape, seed):
    """BF16 datums (special values, blocks near one exponent, zero blocks, every
    exponent's neighbours) rounded to BFP8 / BFP4 / BFP2 as packer_late (BF16 -> BFPx)
    and write_datums make them."""
    rng = np.random.default_rng(seed)
    b = np.array(words[:len(words) // 16 * 16], dtype=np.uint32)
    if shape == 1:  # one exponent per block, give or take a few
        e = rng.integers(1, 255)
        b = (b & 0x807F) | ((np.clip(e + rng.integers(-3, 1, b.size), 0, 255).astype(np.uint32)) << 7)
    elif shape == 2:  # a zero block and a block of exponents 0 / 1 / 254 / 255
        b[:16] &= 0x807F
        b[-16:] = (b[-16:] & 0x807F) | (rng.choice([0, 1, 254, 255], 16).astype(np.uint32) << 7)
    want_d, want_e = packer_late(b << 16, I.BF16, fmt, bfp_overflow="saturate", undefined=_raise)
    got, exps = bfp_tail(b.astype(np.uint16), fmt)
    assert np.array_equal(exps, want_e)
    assert got.tobytes() == write_datums(want_d, fmt).tobytes()


def test_every_exponent_pair_of_a_block():
    """Blocks holding one datum at each exponent e0 (the shared one) and fifteen at e1,
    for every e0 >= e1, mantissas at the rounding boundaries."""
    e0, e1 = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    keep = e0 >= e1
    e0, e1 = e0[keep].astype(np.uint32), e1[keep].astype(np.uint32)
    mans = np.array([0x00, 0x01, 0x3F, 0x40, 0x41, 0x7F, 0x7E, 0x20, 0x5F, 0x60, 0x10, 0x08, 0x04, 0x02, 0x55],
                    np.uint32)
    signs = (np.arange(15, dtype=np.uint32) & 1) << 15
    b = np.empty((e0.size, 16), np.uint32)
    b[:, 0] = (e0 << 7) | 0x7F
    b[:, 1:] = signs | (e1[:, None] << 7) | mans
    b = b.reshape(-1)
    for fmt in BFP_TAIL_FORMATS:
        want_d, want_e = packer_late(b << 16, I.BF16, fmt, bfp_overflow="saturate", undefined=_raise)
        got, exps = bfp_tail(b.astype(np.uint16), fmt)
        assert np.array_equal(exps, want_e)
        assert got.tobytes() == write_datums(want_d, fmt).tobytes(), fmt


def test_late_undefined_flags_the_reported_ranges():
    fp16_denormals = np.array([0x0001, 0x83FF, 0x0200], np.uint32)
    assert late_undefined(fp16_denormals, I.E5M7, F.Float32).all()
    assert not late_undefined(fp16_denormals, I.E5M7, F.Float16).any()  # same exponent width
    assert not late_undefined(fp16_denormals, I.FP16, F.Float16_b).any()  # mantissa narrows: flushed
    e112 = np.array([(112 << 23) | 1, (112 << 23) | 0x7FFFFF, 0x80000000 | (112 << 23) | 5], np.uint32)
    assert late_undefined(e112, I.FP32, F.Float16).all()
    assert not late_undefined(np.array([112 << 23, 113 << 23], np.uint32), I.FP32, F.Float16).any()
    assert not late_undefined(e112, I.FP32, F.Float32).any()


@pytest.mark.parametrize("fmt", sorted(BFP_TAIL_FORMATS))
def test_bf16_rows_bfp_matches_the_chain_for_every_value(fmt):
    """bf16_rows_bfp (a 16-bit Dst's BF16 rows rounded and packed as BFPx): every 16-bit
    Dst value, in rows of similar values (sorted) and of mixed ones (shuffled), through
    row spans with and without Blackhole's remap."""
    from ttemu.tensix.units.pack import bf16_rows_bfp
    from ttemu.tensix.regs.dst import adj16_row
    rng = np.random.default_rng(11)
    for values in (ALL, rng.permutation(ALL)):
        for part in range(0, 1 << 16, 1 << 14):
            bits = values[part:part + (1 << 14)].astype(np.uint16).reshape(1024, 16)
            for remap in (False, True):
                spans = [(row, 0, 16) for row in range(1024)]
                b, data, exps = bf16_rows_bfp(bits, spans, remap, fmt)
                raw = np.concatenate([bits[adj16_row(r, remap)] for r, _, _ in spans]).astype(np.uint32)
                v = packer_early(raw, Repr.DST16_BF16, I.BF16, EarlyMode.ROUND)
                want_d, want_e = packer_late(v, I.BF16, fmt, bfp_overflow="saturate", undefined=_raise)
                assert np.array_equal(b.astype(np.uint32) << 16, v)
                assert np.array_equal(exps, want_e)
                assert data == write_datums(want_d, fmt).tobytes()


@pytest.mark.parametrize("fmt", [F.Bfp8_b, F.Bfp4_b, F.Bfp2_b])
@pytest.mark.parametrize("to_dst", [False, True])
def test_bfp_b_unpack_matches_bfp_to_bf16_for_every_datum_and_exponent(fmt, to_dst):
    """unpack_convert's BFP form (bfp_b_unpack) against BFP8ToBF16 (bfp_to_bf16) and the
    Dst16b / Src layout for every (datum, shared exponent) pair, per datum and per 16."""
    from ttemu.tensix.formats import bfp_to_bf16, datum_bits, dst16_from_bf16, src_from_bf16
    from ttemu.tensix.formats.unpack import bfp_b_unpack
    nbits = datum_bits(fmt)
    d = np.repeat(np.arange(1 << nbits, dtype=np.uint32), 256)
    e = np.tile(np.arange(256, dtype=np.uint32), 1 << nbits)
    b = bfp_to_bf16(d, e, fmt)
    want = dst16_from_bf16(b) if to_dst else src_from_bf16(b)
    assert np.array_equal(bfp_b_unpack(d, e, fmt, to_dst), want)
    groups = np.arange(256, dtype=np.uint8)  # one exponent per 16 datums
    d16 = np.random.default_rng(5).integers(0, 1 << nbits, 4096).astype(np.uint32)
    b = bfp_to_bf16(d16, groups, fmt)
    assert np.array_equal(bfp_b_unpack(d16, groups, fmt, to_dst), dst16_from_bf16(b) if to_dst else src_from_bf16(b))


def _fp32_to_fp16_chain(bits, spans):
    """What the pipeline's chain makes of FP32 in a 32-bit Dst packed as Float16: (the
    FP32 values, the L1 bytes, whether packer_late reported an undefined case)."""
    from ttemu.tensix.regs.dst import adj_rows
    a = np.concatenate([((row << 4) + c0 + np.arange(n, dtype=np.int64)) for row, c0, n in spans]) & 0x3FFF
    ad = adj_rows(a >> 4)
    raw = (bits[ad, a & 15].astype(np.uint32) << 16) | bits[ad + 8, a & 15].astype(np.uint32)
    v = packer_early(raw, Repr.DST32_FP32, I.FP32, EarlyMode.IDENTITY)
    reported = []
    datums, _ = packer_late(v, I.FP32, F.Float16, undefined=lambda site, text: reported.append(site))
    return v, write_datums(datums, F.Float16).tobytes(), bool(reported)


def test_fp32_rows_fp16_bytes_matches_the_chain_for_every_high_half():
    """Every 16-bit high half (so every exponent, NaN, infinity, denormal, both zeros)
    with low halves at the truncation boundaries; None exactly where the chain reports
    2**-15 < |x| < 2**-14."""
    from ttemu.tensix.regs.dst import adj_rows
    from ttemu.tensix.units.pack import fp32_rows_fp16_bytes
    values = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).reshape(-1, 16)
    rng = np.random.default_rng(9)
    for low in (0x0000, 0x1FFF, 0x2000, 0xFFFF, None):
        for base in range(0, 4096, 512):
            bits = np.zeros((1024, 16), dtype=np.uint16)
            adj = adj_rows(np.arange(512))
            bits[adj] = values[base:base + 512]
            bits[adj + 8] = rng.integers(0, 1 << 16, (512, 16)) if low is None else low
            for first in range(0, 512, 64):
                spans = [(r, 0, 16) for r in range(first, first + 64)]
                v, want, reported = _fp32_to_fp16_chain(bits, spans)
                got = fp32_rows_fp16_bytes(bits, spans)
                if reported:
                    assert got is None
                    continue
                assert got is not None and got[1] == want
                assert np.array_equal((got[0] >> 7) & 0xFF, (v >> 23) & 0xFF)  # the histogram's exponents


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1023), st.integers(0, 15), st.integers(1, 16)), min_size=1, max_size=5),
       st.integers(0, 2**32 - 1))
def test_fp32_rows_fp16_bytes_matches_the_chain_for_any_spans(spans, seed):
    from ttemu.tensix.units.pack import fp32_rows_fp16_bytes
    spans = [(row, c0, min(n, 16 - c0)) for row, c0, n in spans]
    bits = np.random.default_rng(seed).integers(0, 1 << 16, size=(1024, 16), dtype=np.uint64).astype(np.uint16)
    v, want, reported = _fp32_to_fp16_chain(bits, spans)
    got = fp32_rows_fp16_bytes(bits, spans)
    assert (got is None) == reported
    if got is not None:
        assert got[1] == want


def test_fp16_rows_bytes_matches_its_arithmetic_form_and_the_chain_for_every_value():
    """fp16_rows_bytes (a 16-bit Dst's FP16 rows packed as FP16, by table): every 16-bit
    Dst value, through whole and partial row spans with and without Blackhole's remap,
    against fp16_rows_bytes_ref and the chain (packer_early, packer_late, write_datums)."""
    from ttemu.tensix.regs.dst import adj16_row
    from ttemu.tensix.units.pack import fp16_rows_bytes, fp16_rows_bytes_ref
    for part in range(0, 1 << 16, 1 << 14):
        bits = ALL[part:part + (1 << 14)].astype(np.uint16).reshape(1024, 16)
        for remap in (False, True):
            for spans in ([(row, 0, 16) for row in range(1024)], [(row, 3, 9) for row in range(0, 1024, 3)]):
                got = fp16_rows_bytes(bits, spans, remap)
                assert got[1] == fp16_rows_bytes_ref(bits, spans, remap)[1]
                raw = np.concatenate([bits[adj16_row(r, remap), c0:c0 + n] for r, c0, n in spans]).astype(np.uint32)
                v = packer_early(raw, Repr.DST16_FP16, I.FP16, EarlyMode.ROUND)
                datums, _ = packer_late(v, I.FP16, F.Float16, undefined=_raise)
                assert got[1] == write_datums(datums, F.Float16).tobytes()
                assert np.array_equal(got[0], v)  # the histogram reads the values


def test_bf16_rows_fp32_bytes_matches_the_chain_for_every_value():
    """bf16_rows_fp32_bytes (a 16-bit Dst's BF16 rows rounded and written as FP32): every
    16-bit Dst value, whole and partial row spans, with and without Blackhole's remap."""
    from ttemu.tensix.regs.dst import adj16_row
    from ttemu.tensix.units.pack import bf16_rows_fp32_bytes
    for part in range(0, 1 << 16, 1 << 14):
        bits = ALL[part:part + (1 << 14)].astype(np.uint16).reshape(1024, 16)
        for remap in (False, True):
            for spans in ([(row, 0, 16) for row in range(1024)], [(row, 5, 7) for row in range(1, 1024, 3)]):
                b, data = bf16_rows_fp32_bytes(bits, spans, remap)
                raw = np.concatenate([bits[adj16_row(r, remap), c0:c0 + n] for r, c0, n in spans]).astype(np.uint32)
                v = packer_early(raw, Repr.DST16_BF16, I.BF16, EarlyMode.ROUND)
                datums, _ = packer_late(v, I.BF16, F.Float32, undefined=_raise)
                assert data == write_datums(datums, F.Float32).tobytes()
                assert np.array_equal(b.astype(np.uint32) << 16, v)  # the histogram's high halves
