"""Fast forms of the data movers, each pinned against the instruction-at-a-time form it
stands in for (kept in the code, switched on and off by a flag): MOVA2D's 16-bit rows
(``MatrixUnit.fast_moves``; by arithmetic and by table), UNPACR's whole-row writes (``Unpackers.fast_rows``), the
packers' deferred ExponentHistogramMaxExponent (``Packers.lazy_histogram``), their
unbuffered 16-byte stores and whole Dst rows read as one view. Random state with special values (exponent 0 and 255,
all-ones mantissas), partial LaneConfig column blocking, aliased / remapped Dst, both
arches."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensix_harness import make
from test_unit_math_helpers import tset
from ttemu.tensix.formats import DataFormat
from ttemu.tensix.units.math import MOVE16_TABLE_AFTER, move16_rows, move16_table

ARCHES = ("wormhole_b0", "blackhole")


def _src_values(rng, n, special):
    """19-bit Src values: random, with exponent 0 / 255 and extreme mantissas mixed in."""
    v = rng.integers(0, 1 << 19, size=n, dtype=np.uint32)
    if special:
        pick = rng.integers(0, 6, size=n)
        v = np.where(pick == 0, v & ~np.uint32(0xFF), v)          # exponent byte 0 (flushed)
        v = np.where(pick == 1, v | np.uint32(0xFF), v)           # exponent byte 255
        v = np.where(pick == 2, v | np.uint32(0x7FF00), v)        # every mantissa / high bit
        v = np.where(pick == 3, np.uint32(0), v)
    return v.astype(np.uint32)


def _diag(tile):
    return sorted((k, v[1]) for k, v in tile.diagnostics.sites.items())


# -- MOVA2D -------------------------------------------------------------------------------
move_case = st.fixed_dictionaries({
    "arch": st.sampled_from(ARCHES),
    "seed": st.integers(0, 2**32 - 1),
    "special": st.booleans(),
    "fmt": st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 15]),
    "override": st.sampled_from([None, 5, 1, 4, 0]),
    "fp16a": st.integers(0, 1),
    "zero_flag_off": st.integers(0, 1),
    "fp32": st.integers(0, 1),
    "offset": st.sampled_from([0, 8, 512, 1016, 333]),
    "regw_base": st.sampled_from([0, 16, 1000]),
    "lane_block": st.sampled_from([0, 0, 0x3, 0x1, 0x80]),  # BLOCK_DEST_MOV bits of LaneConfig[0..7]
    "aliased": st.sampled_from([False, False, True]),
    "remap": st.sampled_from([0, 0, 1]),
    "moves": st.lists(st.tuples(st.sampled_from([0, 2]), st.integers(0, 63), st.integers(0, 1023),
                                st.sampled_from([0, 0, 1]), st.integers(0, 3), st.integers(0, 200)),
                      min_size=1, max_size=4),
    "between": st.sampled_from([None, "zero_flag", "fmt", "lane", "offset"]),
    "marks": st.sampled_from([False, False, True]),  # Dst rows marked undefined (as by ZEROACC)
})


def _move_tile(c, fast):
    """``fast``: False (the general form), True (the fast form by arithmetic) or "table"
    (the fast form by move16_table from the first move)."""
    tile, issue = make(c["arch"])
    cop = tile.tensix
    cop.math.fast_moves = bool(fast)
    if fast == "table":
        cop.math.move16_uses = MOVE16_TABLE_AFTER
    cfg = cop.config
    rng = np.random.default_rng(c["seed"])
    cfg.set("ALU_FORMAT_SPEC_REG0_SrcA", c["fmt"])
    if c["override"] is not None:
        cfg.set("ALU_FORMAT_SPEC_REG_SrcA_override", 1)
        cfg.set("ALU_FORMAT_SPEC_REG_SrcA_val", c["override"])
    cfg.set("ALU_ACC_CTRL_Zero_Flag_disabled_src", c["zero_flag_off"])
    cfg.set("ALU_ACC_CTRL_Fp32_enabled", c["fp32"])
    cfg.set("DEST_REGW_BASE_Base", c["regw_base"])
    if c["remap"] and "DEST_ACCESS_CFG_remap_addrs" in cfg.fields:
        cfg.set("DEST_ACCESS_CFG_remap_addrs", 1)
    tset(cop, 0, "FP16A_FORCE_Enable", c["fp16a"])
    tset(cop, 0, "DEST_TARGET_REG_CFG_MATH_Offset", c["offset"])
    if c["lane_block"]:
        lc = cop.sfpu.lane_config
        lc[:8] = np.asarray(lc[:8]) | (np.uint32(c["lane_block"] & 3) << np.uint32(9))
    cop.dst.aliased16 = c["aliased"]
    for bank in (0, 1):
        cop.src.data["A"][bank][:] = _src_values(rng, 64 * 16, c["special"]).reshape(64, 16)
        cop.src.fmt["A"][bank] = int(rng.integers(0, 16))
    cop.dst.bits[:] = rng.integers(0, 1 << 16, size=(1024, 16), dtype=np.uint16)
    if c.get("marks"):
        cop.math.undefined[rng.random(1024) < 0.3] = True
        cop.math._marks = True
    cop.src.allowed["A"] = ["math", "math"]
    return tile, issue, cop


def _run_moves(c, fast):
    tile, issue, cop = _move_tile(c, fast)
    out = []
    for k, (instr_mod, src, dst, lo, addr_mode, rwc) in enumerate(c["moves"]):
        cop.rwcs[0].SrcA = rwc & 63
        cop.rwcs[0].Dst = rwc
        try:
            issue(0, "MOVA2D", dest_32b_lo=lo, src=src, addr_mode=addr_mode, instr_mod=instr_mod, dst=dst)
        except Exception as e:  # both forms must stop the same way
            out.append(("raised", type(e).__name__, str(e)))
            break
        if k == 0 and c["between"]:  # a change the fast form's kept view must see
            cfg = cop.config
            if c["between"] == "zero_flag":
                cfg.set("ALU_ACC_CTRL_Zero_Flag_disabled_src", 1 - c["zero_flag_off"])
            elif c["between"] == "fmt":
                cfg.set("ALU_FORMAT_SPEC_REG0_SrcA", 1 if c["fmt"] != 1 else 5)
            elif c["between"] == "lane":
                cop.sfpu.lane_config[3] = np.uint32(1 << 10)
            else:
                tset(cop, 0, "DEST_TARGET_REG_CFG_MATH_Offset", (c["offset"] + 64) & 1023)
        out.append((cop.dst.bits.copy(), cop.math.last_srca_row, cop.rwcs[0].SrcA, cop.rwcs[0].Dst,
                    [e[2:5] for e in cop.math.dst_log], cop.math.undefined.copy()))
    return out, _diag(tile)


@settings(max_examples=120, deadline=None)
@given(move_case)
def test_mova2d_fast_rows_match_the_general_form(c):
    ref = _run_moves(c, False)
    for form in (True, "table"):
        fast = _run_moves(c, form)
        assert fast[1] == ref[1]
        assert len(fast[0]) == len(ref[0])
        for a, b in zip(fast[0], ref[0]):
            if isinstance(a[0], str) or isinstance(b[0], str):
                assert a == b
                continue
            assert np.array_equal(a[0], b[0])
            assert a[1:5] == b[1:5]
            assert np.array_equal(a[5], b[5])


@pytest.mark.parametrize("fp16", [False, True])
@pytest.mark.parametrize("flush", [False, True])
def test_move16_table_matches_the_arithmetic_on_every_src_datum(fp16, flush):
    """Every 19-bit Src datum (and datums with bits above 18 set, which both ignore)."""
    x = np.arange(1 << 19, dtype=np.uint32)
    want = move16_rows(x.copy(), fp16, flush).astype(np.uint16)
    table = move16_table(fp16, flush)
    assert np.array_equal(table.take(x, mode="wrap"), want)
    assert np.array_equal(table.take(x | np.uint32(0xFFF80000), mode="wrap"),
                          move16_rows(x | np.uint32(0xFFF80000), fp16, flush).astype(np.uint16))
    assert not table.flags.writeable


@settings(max_examples=150, deadline=None)
@given(arch=st.sampled_from(ARCHES), seed=st.integers(0, 2**32 - 1), row=st.integers(0, 1100),
       n=st.integers(1, 64), remap=st.integers(0, 1), aliased=st.booleans(), density=st.sampled_from([0.0, 0.02, 0.5]))
def test_forget16_clears_the_rows_rows16_names(arch, seed, row, n, remap, aliased, density):
    """_forget16's slice form clears exactly the DstBits rows _rows16 names (Adj16,
    wrapping at 1024, no alias mapping), and leaves every other mark."""
    tile, _ = make(arch)
    cop = tile.tensix
    m = cop.math
    if remap and "DEST_ACCESS_CFG_remap_addrs" in cop.config.fields:
        cop.config.set("DEST_ACCESS_CFG_remap_addrs", 1)
    cop.dst.aliased16 = aliased
    marks = np.random.default_rng(seed).random(1024) < density
    m.undefined[:] = marks
    m._marks = bool(marks.any())
    want = marks.copy()
    want[m._rows16(row, n, alias=False)] = False
    m._forget16(row, n)
    assert np.array_equal(m.undefined, want)
    assert m._marks or not m.undefined.any()  # (False only when no row is marked)


def test_mova2d_fast_form_is_taken_for_the_common_case():
    """The kept view answers for a plain BF16 copy (so the test above compares two forms)."""
    c = dict(arch="wormhole_b0", seed=1, special=True, fmt=5, override=None, fp16a=0, zero_flag_off=0, fp32=0,
             offset=0, regw_base=0, lane_block=0, aliased=False, remap=0, moves=[(2, 0, 0, 0, 0, 0)],
             between=None)
    tile, issue, cop = _move_tile(c, True)
    assert cop.math._move_view(0) == (0, False, True)
    issue(0, "MOVA2D", dest_32b_lo=0, src=0, addr_mode=0, instr_mod=2, dst=0)
    assert cop.math._move_views[0][5] is not None


# -- UNPACR whole-row writes ----------------------------------------------------------------
row_case = st.fixed_dictionaries({
    "arch": st.sampled_from(ARCHES),
    "seed": st.integers(0, 2**32 - 1),
    "u": st.integers(0, 1),
    "to_dst": st.booleans(),
    "out_fmt": st.sampled_from([DataFormat.Float16_b, DataFormat.Float32, DataFormat.Float16, DataFormat.Tf32]),
    "row0": st.integers(0, 1100),
    "nrows": st.integers(1, 70),
    "transpose": st.booleans(),
    "col_shift": st.sampled_from([0, 0, 0, 3]),
    "src_row": st.integers(0, 63),
    "ovrd": st.integers(0, 1),
    "aliased": st.sampled_from([False, False, True]),
    "remap": st.sampled_from([0, 0, 1]),
    "unaligned": st.sampled_from([0, 0, 5]),
})


def _write_case(c, fast):
    tile, _ = make(c["arch"])
    cop = tile.tensix
    unp = cop.unpack
    unp.fast_rows = fast
    rng = np.random.default_rng(c["seed"])
    cop.src.data["A"][:] = rng.integers(0, 1 << 19, size=cop.src.data["A"].shape, dtype=np.uint32)
    cop.src.data["B"][:] = rng.integers(0, 1 << 19, size=cop.src.data["B"].shape, dtype=np.uint32)
    cop.dst.bits[:] = rng.integers(0, 1 << 16, size=(1024, 16), dtype=np.uint16)
    cop.dst.aliased16 = c["aliased"]
    if c["remap"] and "DEST_ACCESS_CFG_remap_addrs" in cop.config.fields:
        cop.config.set("DEST_ACCESS_CFG_remap_addrs", 1)
    tset(cop, 0, "SRCA_SET_SetOvrdWithAddr", c["ovrd"])
    n = 16 * c["nrows"]
    vals = rng.integers(0, 1 << 32, size=n, dtype=np.uint32)
    oaddr = 16 * c["row0"] + c["unaligned"]
    t = cop.threads[0]
    try:
        unp._write(t, c["u"], oaddr, vals, c["to_dst"] and c["u"] == 0, c["transpose"] and c["u"] == 0,
                   c["col_shift"], c["out_fmt"], c["src_row"])
    except Exception as e:
        return ("raised", type(e).__name__, str(e))
    return cop.src.data["A"].copy(), cop.src.data["B"].copy(), cop.dst.bits.copy(), _diag(tile)


@settings(max_examples=200, deadline=None)
@given(row_case)
def test_unpack_row_writes_match_the_datum_writes(c):
    a, b = _write_case(c, True), _write_case(c, False)
    if isinstance(a[0], str) or isinstance(b[0], str):
        assert a == b
        return
    for x, y in zip(a[:3], b[:3]):
        assert np.array_equal(x, y)
    assert a[3] == b[3]


def test_unpack_row_writes_take_the_fast_form_for_whole_srca_and_dst_rows():
    """The row form writes (returns True) for the kernels' usual cases."""
    tile, _ = make()
    cop = tile.tensix
    unp = cop.unpack
    t = cop.threads[0]
    vals = np.arange(1024, dtype=np.uint32).reshape(-1, 16)
    tset(cop, 0, "SRCA_SET_SetOvrdWithAddr", 1)
    assert unp._write_rows(t, 0, 4, vals, False, False, 0, DataFormat.Float16_b, 0)
    assert np.array_equal(cop.src.data["A"][cop.src.unpack_bank["A"]], vals)
    tset(cop, 0, "SRCA_SET_SetOvrdWithAddr", 0)
    assert unp._write_rows(t, 0, 4 + 256, vals, True, False, 0, DataFormat.Float32, 0)
    assert unp._write_rows(t, 1, 0, vals, False, False, 0, DataFormat.Float16_b, 0)


# -- packers: ExponentHistogramMaxExponent taken late, unbuffered stores ----------------------
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(ARCHES), st.integers(0, 2**32 - 1),
       st.lists(st.tuples(st.integers(0, 3), st.integers(1, 80), st.sampled_from(["pack", "read", "clear", "set"])),
                min_size=1, max_size=150))
def test_lazy_histogram_max_matches_the_eager_form(arch, seed, ops):
    rng = np.random.default_rng(seed)
    results = []
    for lazy in (True, False):
        tile, _ = make(arch)
        pk = tile.tensix.pack
        pk.lazy_histogram = lazy
        seen = []
        r = np.random.default_rng(seed)
        for i, n, what in ops:
            if what == "pack":
                v = r.integers(0, 1 << 16, size=n, dtype=np.uint16)
                if r.integers(0, 4) == 0:
                    v = v[::2]  # a view: taken at once
                pk._histogram(i, _bf16_inter(), v, high=True)
            elif what == "read":
                seen.append(pk.exponent_histogram_max.copy())
            elif what == "clear":
                pk.clear_exponent_histograms()
            else:
                pk.exponent_histogram_max_exponent = int(r.integers(0, 256))
                seen.append(pk.exponent_histogram_max_exponent)
        seen.append(pk.exponent_histogram_max.copy())
        results.append(seen)
    del rng
    for a, b in zip(*results):
        assert np.array_equal(a, b)


def _bf16_inter():
    from ttemu.tensix.formats import Intermediate
    return Intermediate.BF16


@pytest.mark.parametrize("chunks", [[16, 32], [5, 11, 16], [48], [3, 3, 3, 7, 16], [0, 16]])
def test_unbuffered_stores_write_what_the_buffer_writes(chunks):
    """_emit of whole 16-byte units with an empty buffer goes straight to L1; any mix of
    chunks writes the same bytes at the same addresses as buffering every one."""
    from ttemu.tensix.units.pack import Stream
    images = []
    for direct in (True, False):
        tile, _ = make()
        pk = tile.tensix.pack
        s = Stream()
        s.byte_address = 0x30000
        t = tile.tensix.threads[2]
        data = bytes(range(256)) * 2
        pos = 0
        for n in chunks:
            chunk = data[pos:pos + n]
            pos += n
            if direct:
                pk._emit(t, 0, s, chunk, DataFormat.Float16_b, False, "test")
            else:
                s.buf.extend(chunk)
                if len(s.buf) >= 16:
                    pk._store(t, 0, s, DataFormat.Float16_b, False, "test")
        images.append((bytes(tile.l1[0x30000:0x30100]), s.byte_address, bytes(s.buf), pk.state[0].writes))
    assert images[0] == images[1]


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 1023), st.integers(1, 80), st.booleans(), st.integers(0, 2**32 - 1))
def test_whole_row_spans_read_what_the_spans_read(row, k, remap, seed):
    """dst16_spans of whole_rows' kept tuple (one view of Dst where the rows do not wrap)
    reads the datums the same spans read one by one (a new tuple: the general form), and
    the Dst rows numpy's reference names (Adj16 with remap, wrapping at 1024)."""
    from ttemu.tensix.regs.dst import adj16
    from ttemu.tensix.units.pack import dst16_spans, whole_rows
    bits = np.random.default_rng(seed).integers(0, 1 << 16, size=(1024, 16), dtype=np.uint16)
    spans = whole_rows(row, k)
    assert spans is whole_rows(row, k)
    fast = dst16_spans(bits, spans, remap)
    general = dst16_spans(bits, tuple(list(spans)), remap)
    rows = (row + np.arange(k)) & 0x3FF
    want = bits[adj16(rows, 1) if remap else rows].reshape(-1)
    assert np.array_equal(fast, general) and np.array_equal(fast, want)


# -- unpack_convert: the 16-bit register layouts and FP32 -> Dst32 by table ---------------------
def test_unpack_layout_tables_match_the_layout_functions_on_every_pattern():
    """Before and after the tables are built (TABLE_AFTER conversions of each)."""
    from ttemu.tensix.formats import layout as L
    from ttemu.tensix.formats import unpack as U
    x = np.arange(1 << 16, dtype=np.uint32)
    rng = np.random.default_rng(3)
    w = np.concatenate([rng.integers(0, 1 << 32, size=1 << 16, dtype=np.uint32), x << 16, x, x | 0xFFFF0000])
    for _ in range(U.TABLE_AFTER + 2):
        for fmt, to_src, to_dst in ((DataFormat.Float16_b, L.src_from_bf16, L.dst16_from_bf16),
                                    (DataFormat.Float16, L.src_from_fp16, L.dst16_from_fp16)):
            assert np.array_equal(U.unpack_convert(x, fmt, fmt, to_dst=False), to_src(x))
            assert np.array_equal(U.unpack_convert(x, fmt, fmt, to_dst=True), to_dst(x))
        for fmt in (DataFormat.Float32, DataFormat.Int32):
            assert np.array_equal(U.unpack_convert(w, fmt, fmt, to_dst=True), L.dst32_from_fp32(w))
    assert all(U._LAYOUT_USES[f] == U.TABLE_AFTER for f in (L.src_from_bf16, L.dst16_from_bf16, L.src_from_fp16,
                                                             L.dst16_from_fp16))


def test_fp32_rows_bf16_table_matches_its_arithmetic_form():
    """Every high half, with low halves around the rounding boundary and random ones."""
    from ttemu.tensix.regs.dst import adj_rows
    from ttemu.tensix.units.pack import _Tables, fp32_rows_bf16_bytes, fp32_rows_bf16_bytes_ref
    _Tables.get_bf16_of_fp32()  # (the table, whether or not a run built it yet)
    rng = np.random.default_rng(5)
    values = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).reshape(-1, 16)
    adj = adj_rows(np.arange(512), False, False)
    spans = [(r, 0, 16) for r in range(512)]
    for low in (0x0000, 0x7FFF, 0x8000, 0x8001, 0xFFFF, None):
        for base in range(0, 4096, 512):
            bits = np.zeros((1024, 16), dtype=np.uint16)
            bits[adj] = values[base:base + 512]
            bits[adj + 8] = rng.integers(0, 1 << 16, size=(512, 16)) if low is None else low
            a, b = fp32_rows_bf16_bytes(bits, spans), fp32_rows_bf16_bytes_ref(bits, spans)
            assert np.array_equal(a[0], b[0]) and a[1] == b[1]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(ARCHES), st.sampled_from([8, 16, 32]), st.integers(0, 1600 * 1024), st.integers(1, 40),
       st.sampled_from([16, 32]), st.integers(0, 4096), st.integers(0, 2**32 - 1))
def test_unpack_strided_rows_read_what_the_gather_reads(arch, bits, start, nrows, per_row, stride, seed):
    """Tileize_mode's rows (whole-byte datums, RowStride apart) as one strided view of L1:
    the same datums as the per-datum gather, and the same refusal past the end of L1."""
    from ttemu.errors import GuestFault
    tile, _ = make(arch)
    unp = tile.tensix.unpack
    l1 = np.frombuffer(tile.l1, dtype=np.uint8)
    l1[:] = np.random.default_rng(seed).integers(0, 256, size=l1.size, dtype=np.uint8)
    t = tile.tensix.threads[0]
    nbytes = bits // 8
    k = np.arange(nrows * per_row, dtype=np.int64)
    addrs = start + (k // per_row) * stride + (k % per_row) * nbytes
    try:
        want = unp._read_l1(t, 0, addrs, bits, 0)
    except GuestFault as e:
        with pytest.raises(GuestFault) as got:
            unp._read_l1_rows(t, 0, start, nrows, per_row, stride, bits)
        assert str(got.value) == str(e)
        return
    assert np.array_equal(unp._read_l1_rows(t, 0, start, nrows, per_row, stride, bits), want)


# -- whole kernels: the fast forms on and off give the same tile --------------------------------
KERNELS = ["datacopy_bf16/datacopy_bf16.toml", "datacopy_fp32/datacopy_fp32.toml", "tilize/tilize.toml",
           "untilize/untilize.toml", "eltwise_add/eltwise_add.toml", "reduce_row/reduce_row_max.toml",
           "transpose/transpose.toml", "sfpu_relu/sfpu_relu.toml", "datacopy_bfp8b/datacopy_bfp8b.toml"]


def _run_kernel(path, arch, fast):
    import pathlib

    from ttemu import Tile
    from ttemu.cmd import manifest as manifest_mod
    root = pathlib.Path(__file__).resolve().parent.parent / "firmware"
    man = manifest_mod.load(str(root / path), arch=arch)
    tile = Tile(arch)
    cop = tile.tensix
    cop.math.fast_moves = cop.unpack.fast_rows = cop.pack.lazy_histogram = fast
    if fast:  # MOVA2D by its table from the first move
        cop.math.move16_uses = MOVE16_TABLE_AFTER
    manifest_mod.load_into(man, tile)
    tile.release(man.release if man.release is not None else tile.default_release())
    res = tile.run(max_steps=man.max_steps, until=list(man.until), idle_steps=man.idle_steps)
    return (res.outcome, res.steps, bytes(tile.l1), cop.dst.bits.tobytes(), cop.src.data["A"].tobytes(),
            cop.src.data["B"].tobytes(), cop.pack.exponent_histogram_max.tobytes(), _diag(tile),
            {k: (v.issued, v.held_steps) for k, v in enumerate(cop.threads)})


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("path", KERNELS)
def test_kernels_give_the_same_tile_with_the_fast_forms_off(path, arch):
    fast, plain = _run_kernel(path, arch, True), _run_kernel(path, arch, False)
    assert fast[0] == "until"
    for a, b in zip(fast, plain):
        assert a == b
