"""Fast forms in the Tensix frontend, configuration and data movers, each checked
against the slower exact form it replaced (kept here as the reference)."""

from __future__ import annotations

import difflib
import inspect

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tensix_harness import make
from ttemu import Tile
from ttemu.tensix import coprocessor as C
from ttemu.tensix.regs.config import ConfigSpace


# -- Coprocessor._params: handler parameter names from the code object ----------------------
def _params_inspect(handler):
    """The form _params replaced: inspect.signature without following __wrapped__."""
    try:
        params = list(inspect.signature(handler, follow_wrapped=False).parameters.values())[1:]
    except (TypeError, ValueError):
        return None
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD or p.default is not p.empty for p in params):
        return None
    return [p.name for p in params]


def test_params_match_inspect_for_every_handler_and_odd_callables():
    n = 0
    for arch in ("wormhole_b0", "blackhole"):
        for h in Tile(arch).tensix.handlers:
            if h is not None:
                n += 1
                assert C._params(h) == _params_inspect(h), (arch, h)
    assert n > 100

    class X:
        def a(self, t, x, y=1): pass
        def b(self, t, *, k): pass
        def c(self, *a): pass
        def d(self, t=0): pass
        def e(self, t, /, x): pass
        def f(self, t, x, y): pass

    def g(t, x): pass
    for h in (X().a, X().b, X().c, X().d, X().e, X().f, g, lambda t, **k: 0, print):
        assert C._params(h) == _params_inspect(h), h
    assert C._params(X().f) == ["x", "y"]


# -- ConfigSpace: field values cached, forgotten as words are written -------------------------
def _field(words, index, shift, width):
    return (int(words[index]) >> shift) & ((1 << width) - 1)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["wormhole_b0", "blackhole"]),
       st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10**6), st.integers(0, 0xFFFFFFFF)),
                min_size=1, max_size=40))
def test_config_field_cache_matches_the_words(arch, ops):
    tile = Tile(arch)
    cfg = tile.tensix.config
    names = sorted(cfg.fields)
    tnames = sorted(cfg.thread_fields)
    for kind, pick, value in ops:
        # read some fields first, so the caches hold values the writes must forget
        for name in names[pick % len(names)::97]:
            cfg.get(name, pick & 1)
        if kind == 0:  # a Config word (perhaps above the global base: both banks)
            cfg.write_word(pick & 1, pick % cfg.bank_words, value)
        elif kind == 1:  # a field through set()
            cfg.set(names[pick % len(names)], value, (pick >> 1) & 1)
        elif kind == 2:  # SETC16
            cfg.thread_set_word(pick % 3, pick % cfg.thread_words, value)
        else:  # RISC-V sw into the space, ConfigDualWrite included where the arch has it
            off = 4 * (pick % ((cfg.thread_base - cfg.base) // 4))
            cfg.write(None, cfg.base + off, 4, value)
        for bank in (0, 1):
            for name in names[pick % 7::13]:
                assert cfg.get(name, bank) == _field(cfg.cfg[bank], *cfg.fields[name]), (name, bank)
        for t in range(3):
            for name in tnames[pick % 5::11]:
                assert cfg.thread_get(t, name) == _field(cfg.thread_cfg[t], *cfg.thread_fields[name])


def test_config_reset_through_state_reset_en_forgets_cached_fields():
    tile, _ = make()
    cfg = tile.tensix.config
    name = "THCON_SEC0_REG2_Out_data_format"
    cfg.set(name, 5, 0)
    assert cfg.get(name, 0) == 5
    reset_index = cfg.fields["STATE_RESET_EN"][0]
    cfg.write_word(0, reset_index, 1)  # BackendConfiguration.md: zeroes bank 0 below the global base
    assert cfg.get(name, 0) == 0 == _field(cfg.cfg[0], *cfg.fields[name])


def test_config_space_built_without_a_tile_answers_like_its_words():
    tile = Tile("wormhole_b0")
    arch = tile.arch
    cfg = ConfigSpace(arch, arch.region("tensix_cfg").base)
    cfg.write_word(1, 3, 0xDEADBEEF)
    for name, (index, shift, width) in list(cfg.fields.items())[:200]:
        assert cfg.get(name, 1) == _field(cfg.cfg[1], index, shift, width)


# -- UNPACR: one L1 slice for whole-byte datums back to back ----------------------------------
@settings(max_examples=60, deadline=None)
@given(st.sampled_from([8, 16, 32]), st.integers(0, 4096), st.integers(1, 300), st.binary(min_size=64, max_size=64))
def test_unpack_l1_run_matches_the_gather(bits, start, n, seed):
    tile = Tile("wormhole_b0")
    unp = tile.tensix.unpack
    rng = np.random.default_rng(list(seed))
    l1 = np.frombuffer(tile.l1, dtype=np.uint8)
    l1[:8192] = rng.integers(0, 256, 8192, dtype=np.uint8)
    t = tile.tensix.threads[0]
    nbytes = bits // 8
    gathered = unp._read_l1(t, 0, start + nbytes * np.arange(n, dtype=np.int64), bits, 0)
    run = unp._read_l1_run(t, 0, start, n, bits)
    assert run.dtype == gathered.dtype == np.uint32
    assert np.array_equal(run, gathered)
    assert unp._read_l1_run(t, 0, start, n, bits, check_only=True).size == 0


def test_unpack_l1_run_stops_where_the_gather_stops():
    tile = Tile("wormhole_b0")
    unp = tile.tensix.unpack
    t = tile.tensix.threads[0]
    end = unp.l1_bytes
    for start, n, bits, faults in ((end - 4, 3, 16, True), (-2, 4, 16, True), (end - 6, 2, 32, True),
                                   (end - 8, 2, 32, False)):
        outcomes = []
        for fn in (lambda: unp._read_l1(t, 0, start + bits // 8 * np.arange(n), bits, 0),
                   lambda: unp._read_l1_run(t, 0, start, n, bits)):
            try:
                outcomes.append(fn().tolist())
            except Exception as e:  # noqa: BLE001 - the two must fail alike
                outcomes.append((type(e), str(e)))
        assert outcomes[0] == outcomes[1]
        assert isinstance(outcomes[0], tuple) == faults, outcomes


# -- PACR edge mask: the tile position generator advanced as scalars --------------------------
def _tpg_kyz(x0, y0, z0, n, reads, transposed):
    """The tile position generator's X, Y, Z after 0..n Advance()s, as arrays
    (EdgeMasking.md: the array form the scalar advance replaced)."""
    k = x0 + np.arange(n + 1, dtype=np.int64)
    rows = k >> 4
    inner, outer = (z0, y0) if transposed else (y0, z0)
    if reads and inner < reads:
        inner_k, outer_k = (inner + rows) % reads, outer + (inner + rows) // reads
    else:
        inner_k, outer_k = inner + rows, np.full(n + 1, outer, dtype=np.int64)
    y, z = (outer_k, inner_k) if transposed else (inner_k, outer_k)
    return k, y, z


def _tpg_arrays(x0, y0, z0, n, reads, transposed):
    """The array form the scalar advance replaced (EdgeMasking.md Advance() n times)."""
    k, y, z = _tpg_kyz(x0, y0, z0, n, reads, transposed)
    return [int(k[n] & 15), int(y[n]), int(z[n])]


def _keep_arrays(g, i, x0, y0, z0, n, col):
    """The array form of EdgeMasking.md's per-datum keep bits (what _edge_mask computed
    for every configuration before its early exits)."""
    reads = g(f"PACK_COUNTERS_SEC{i}_pack_reads_per_xy_plane")
    transposed = g(f"PACK_COUNTERS_SEC{i}_pack_yz_transposed")
    _, y, z = _tpg_kyz(x0, y0, z0, n, reads, transposed)
    y, z = y[:n], z[:n]
    masks = np.array([g(f"PCK_EDGE_OFFSET_SEC{c}_mask") for c in range(4)], dtype=np.int64)
    row_map = np.array([[g(f"TILE_ROW_SET_MAPPING_{b}_row_set_mapping_{j}") for j in range(16)]
                        for b in range(4)], dtype=np.int64)
    if g("PCK_EDGE_TILE_FACE_SET_SELECT_enable"):
        zz = g(f"DEST_TARGET_REG_CFG_PACK_SEC{i}_ZOffset") + z
        a_sel = (g("PCK_EDGE_TILE_FACE_SET_SELECT_select") >> (2 * i)) & 3
        face_map = np.array([g(f"TILE_FACE_SET_MAPPING_{a_sel}_face_set_mapping_{j}") for j in range(16)],
                            dtype=np.int64)
        b = face_map[zz & 15]
    else:
        b = np.full(n, (g("PCK_EDGE_TILE_ROW_SET_SELECT_select") >> (2 * i)) & 3, dtype=np.int64)
    c = row_map[b, y & 15]
    return ((masks[c] >> col) & 1).astype(bool)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 15), st.integers(0, 40), st.integers(0, 40), st.integers(0, 1100), st.integers(0, 20),
       st.booleans(), st.integers(0, 3), st.lists(st.sampled_from([0xFFFF, 0x00FF, 0x7FFF, 0]), min_size=4,
                                                  max_size=4),
       st.integers(0, 2**32 - 1), st.integers(0, 1), st.integers(0, 255), st.integers(0, 2**32 - 1))
def test_edge_mask_matches_the_array_form(x0, y0, z0, n, reads, transposed, i, masks, row_map_word, face_sets,
                                          select, face_word):
    tile = Tile("wormhole_b0")
    cop = tile.tensix
    cfg = cop.config
    cfg.set(f"PACK_COUNTERS_SEC{i}_pack_reads_per_xy_plane", reads)
    cfg.set(f"PACK_COUNTERS_SEC{i}_pack_yz_transposed", int(transposed))
    for c in range(4):
        cfg.set(f"PCK_EDGE_OFFSET_SEC{c}_mask", masks[c])
    for b in range(4):
        for j in range(16):
            cfg.set(f"TILE_ROW_SET_MAPPING_{b}_row_set_mapping_{j}", (row_map_word >> (2 * ((j + 3 * b) % 16))) & 3)
            cfg.set(f"TILE_FACE_SET_MAPPING_{b}_face_set_mapping_{j}", (face_word >> (2 * ((j + 5 * b) % 16))) & 3)
    cfg.set("PCK_EDGE_TILE_FACE_SET_SELECT_enable", face_sets)
    cfg.set("PCK_EDGE_TILE_FACE_SET_SELECT_select", select)
    cfg.set("PCK_EDGE_TILE_ROW_SET_SELECT_select", select)
    g = cfg.values[0].__getitem__
    col = np.arange(n, dtype=np.int64) & 15
    pack = cop.pack
    pack.state[i].tpg = [x0, y0, z0]
    keep = pack._edge_mask(i, g, n, col)
    want = _keep_arrays(g, i, x0, y0, z0, n, col)
    if keep is None:  # every datum kept, said without an array
        assert want.all()
        assert pack._edge_keeps_all(i, g)
    else:
        assert keep.dtype == bool and np.array_equal(keep, want)
    assert pack.state[i].tpg == _tpg_arrays(x0, y0, z0, n, reads, transposed)


# -- the wait gate: held threads are asked again after any change ------------------------------
def test_semwait_held_thread_released_by_a_direct_semaphore_change_and_kick():
    tile, issue = make()
    cop = tile.tensix
    issue(0, "SEMINIT", max_value=2, init_value=0, sem_sel=1)
    issue(1, "SEMWAIT", stall_res=0x1FF, sem_sel=1, wait_sem_cond=1)  # all: wait while sem0 == 0
    t = issue(1, "NOP")
    assert t.held is not None and "SEMWAIT" in t.held_reason
    cop.kick()
    assert t.held is not None  # nothing changed: still held
    cop.sync.semaphores[0].value = 1  # a change the coprocessor did not see ...
    cop.kick()  # ... is looked at by the next kick
    assert t.held is None and t.issued == 2


# -- PACR: FP32 from a 32-bit Dst through one row, without the conversion chain ------------------
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 1023), st.booleans(), st.booleans())
def test_adj_row_matches_adj_rows(row, remap, swizzle):
    from ttemu.tensix.regs.dst import adj_row, adj_rows
    assert adj_row(row, remap, swizzle) == int(adj_rows(np.array([row]), remap, swizzle)[0])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 1023), st.integers(0, 15), st.integers(1, 16), st.integers(0, 1), st.integers(0, 1),
       st.lists(st.sampled_from([0, 0x7F80, 0x7F81, 0xFF80, 0x80, 0x8000, 0x7FFF, 0xFFFF, 1, 0x1234]) |
                st.integers(0, 0xFFFF), min_size=64, max_size=64))
def test_fp32_row_bytes_matches_the_conversion_chain(row, c0, n, remap, swizzle, words):
    """The chain _pipeline ran for this case: adj_rows, Dst32b read, packer_early
    (DST32_FP32 -> FP32, identity), packer_late (FP32 -> Float32), write_datums; the
    histogram's exponents from the full values."""
    from ttemu.tensix.formats import DataFormat, Intermediate, Repr, write_datums
    from ttemu.tensix.formats.pack import EarlyMode, packer_early
    from ttemu.tensix.formats.pack_late import packer_late
    from ttemu.tensix.regs.dst import adj_rows
    from ttemu.tensix.units.pack import fp32_row_bytes
    n = min(n, 16 - c0)
    rng = np.random.default_rng(row * 977 + c0)
    bits = rng.integers(0, 1 << 16, size=(1024, 16), dtype=np.uint64).astype(np.uint16)
    adj = int(adj_rows(np.array([row]), bool(remap), bool(swizzle))[0])
    bits[adj, :] = words[:16]
    bits[adj + 8, :] = words[16:32]
    a = ((row << 4) + c0 + np.arange(n, dtype=np.int64)) & 0x3FFF
    r, col = a >> 4, a & 15
    ad = adj_rows(r, bool(remap), bool(swizzle))
    raw = (bits[ad, col].astype(np.uint32) << 16) | bits[ad + 8, col].astype(np.uint32)
    v = packer_early(raw, Repr.DST32_FP32, Intermediate.FP32, EarlyMode.IDENTITY)
    datums, _ = packer_late(v, Intermediate.FP32, DataFormat.Float32, bfp_overflow="saturate")
    want = write_datums(datums, DataFormat.Float32).tobytes()
    hb, data = fp32_row_bytes(bits, (row, c0, n), (remap, swizzle))
    assert data == want
    assert np.array_equal((hb >> 7) & 0xFF, (v >> 23) & 0xFF)


def test_pack_store_writes_l1_and_drops_translated_code_like_the_array_form():
    """Packers._store's bytearray form against the numpy form it replaced: the same L1
    bytes, and every translated word it overwrites forgotten."""
    from ttemu.tensix.units.pack import Stream
    tile = Tile("wormhole_b0")
    pack = tile.tensix.pack
    dropped = []
    tile.invalidate_code = lambda addr: dropped.append(addr) or tile.is_code.__setitem__(addr >> 2, 0)
    tile.is_code[0x1004 >> 2] = 1
    tile.is_code[0x100C >> 2] = 1
    tile.is_code[0x1010 >> 2] = 1  # beyond the 16 bytes written
    s = Stream()
    s.byte_address = 0x1000
    payload = bytes(range(7, 7 + 20))
    s.buf.extend(payload)
    before = np.frombuffer(bytes(tile.l1), dtype=np.uint8).copy()
    pack._store(None, 0, s, None, False, "t")
    ref = before.copy()
    ref[0x1000:0x1010] = np.frombuffer(payload[:16], dtype=np.uint8)  # the array form's write
    assert np.array_equal(np.frombuffer(bytes(tile.l1), dtype=np.uint8), ref)
    assert dropped == [0x1004, 0x100C] and bytes(s.buf) == payload[16:] and s.byte_address == 0x1010
    assert pack.state[0].writes == 1


# -- Config derived values: kept until a word they read is written ---------------------------
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["wormhole_b0", "blackhole"]),
       st.lists(st.tuples(st.sampled_from(["PCK_EDGE_OFFSET_SEC0_mask", "PCK_EDGE_OFFSET_SEC1_mask",
                                           "PCK_EDGE_OFFSET_SEC3_mask", "TILE_ROW_SET_MAPPING_0_row_set_mapping_3",
                                           "TILE_ROW_SET_MAPPING_2_row_set_mapping_15",
                                           "PCK_EDGE_TILE_FACE_SET_SELECT_enable",
                                           "PCK_EDGE_TILE_ROW_SET_SELECT_select", "forget_all"]),
                          st.sampled_from([0, 1, 2, 3, 0xFF, 0xFFFF]), st.integers(0, 3), st.integers(0, 1)),
                max_size=25))
def test_edge_keeps_all_kept_value_matches_a_fresh_read(arch, writes):
    """Packers._edge_keeps_all keeps its answer in the bank's field values
    (_FieldValues.derived); after any sequence of writes it equals the answer computed
    from the fields afresh."""
    tile = Tile(arch)
    cop = tile.tensix
    cfg = cop.config
    pack = cop.pack
    n_packers = len(cop.arch.packers.sections)
    for c in range(4):
        if f"PCK_EDGE_OFFSET_SEC{c}_mask" in cfg.fields:
            cfg.set(f"PCK_EDGE_OFFSET_SEC{c}_mask", 0xFFFF)
    for name, value, i, bank in writes:
        i %= n_packers
        if name == "forget_all":
            cfg.cfg[bank, :] = 0
            cfg.forget_all()
        elif name in cfg.fields:
            cfg.set(name, value & ((1 << cfg.fields[name][2]) - 1), bank)
        for b in (0, 1):
            g = cfg.values[b].__getitem__
            assert pack._edge_keeps_all(i, g) == pack._edge_keeps_all_now(i, g), (name, i, b)


# -- the wait gate: a latched SEMWAIT re-checked in one pass ----------------------------------
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 255), st.integers(0, 3), st.lists(st.tuples(st.integers(0, 15), st.integers(0, 15)),
                                                        min_size=8, max_size=8))
def test_semwait_recheck_matches_refresh_then_hold_state(sem_mask, cond, sems):
    from ttemu.tensix.frontend.gate import WaitGate
    tile = Tile("wormhole_b0")
    cop = tile.tensix
    for sem, (value, top) in zip(cop.sync.semaphores, sems):
        sem.value, sem.max = value, top
    old, new = WaitGate(), WaitGate()
    for g in (old, new):
        g.latch_semwait(0x40, sem_mask, cond)
    old.refresh(cop, 0)
    want = old.hold_state(cop) if old.opcode is not None else None
    assert new.semwait_recheck(cop) == want
    assert (new.opcode, new.checked) == (old.opcode, old.checked)


# -- UNPACR: the configuration view kept until a word it read is written ----------------------
_VIEW_FIELDS = ["THCON_SEC{u}_REG0_TileDescriptor", "THCON_SEC{u}_REG2_Out_data_format",
                "THCON_SEC{u}_REG3_Base_address", "THCON_SEC{u}_REG7_Offset_address",
                "THCON_SEC{u}_REG2_Tileize_mode", "THCON_SEC{u}_REG2_Upsample_rate",
                "UNP{u}_ADDR_CTRL_XY_REG_1_Ystride", "THCON_SEC{u}_REG2_Unpack_limit_address",
                "THCON_SEC{u}_REG5_Tile_x_dim_cntx0", "THCON_SEC{u}_REG2_Disable_zero_compress_cntx0",
                "ALU_FORMAT_SPEC_REG0_SrcAUnsigned", "PCK_EDGE_OFFSET_SEC0_mask"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["wormhole_b0", "blackhole"]), st.integers(0, 1), st.integers(0, 1), st.booleans(),
       st.lists(st.tuples(st.sampled_from(_VIEW_FIELDS + ["descriptor_word1", "thread"]), st.integers(0, 2**32 - 1),
                          st.integers(0, 1)), min_size=1, max_size=12))
def test_unpack_view_kept_until_a_word_it_read_is_written(arch, u, bank, multi, steps):
    """Unpackers._view keeps its view in the bank's field values (_FieldValues.keep, with
    the fields it read and the TileDescriptor words); after any writes it equals a view
    built afresh."""
    from ttemu.errors import UndefinedBehaviour, Unimplemented
    tile = Tile(arch)
    cop = tile.tensix
    cfg = cop.config
    unp = cop.unpack
    for b in (0, 1):
        cfg.write_word(b, unp.descriptor_word[u], 1 << 4 | 5)  # uncompressed Float16_b
        cfg.set(f"THCON_SEC{u}_REG2_Out_data_format", 5, b)
        if f"THCON_SEC{u}_REG2_Disable_zero_compress_cntx0" in cfg.fields:
            cfg.set(f"THCON_SEC{u}_REG2_Disable_zero_compress_cntx0", 1, b)
    key = ("unpack_view", 0, u, multi, 0)
    for name, value, other_bank in steps:
        unp._view(0, u, bank, multi, 0)  # kept
        wbank = bank if other_bank == 0 else 1 - bank
        if name == "descriptor_word1":
            cfg.write_word(wbank, unp.descriptor_word[u] + 1, value)
        elif name == "thread":
            cfg.thread_set_word(0, 0, value & 0xFFFF)
        else:
            name = name.format(u=u)
            if name not in cfg.fields:
                continue
            index, shift, width = cfg.fields[name]
            if name.endswith("TileDescriptor"):
                value = value & ~0xF | 1 << 4 | 5
            cfg.set(name, value & ((1 << width) - 1), wbank)
        try:
            kept = unp._view(0, u, bank, multi, 0)
        except (Unimplemented, UndefinedBehaviour):  # (a view that stops the run is not kept)
            assert key not in cfg.values[bank]
            return
        cfg.values[bank].pop(key, None)
        fresh = unp._view(0, u, bank, multi, 0)
        assert vars(kept) == vars(fresh), name


# -- UNPACR: a waiting attempt checks its address bounds without making the addresses ---------
@settings(max_examples=200, deadline=None)
@given(st.integers(0, 1 << 24), st.integers(1, 1100), st.integers(0, 6), st.integers(0, 5000), st.integers(1, 64))
def test_span_bounds_match_the_address_arrays(dat_u, n, row_shift, row_stride_u, ds_u):
    """The lowest and highest address of the arrays _regular builds without FIFO wrapping
    (starts[idx >> row_shift] + (idx & mask) * ds_u)."""
    from ttemu.tensix.units.unpack import _span_bounds
    idx = np.arange(n, dtype=np.int64)
    nrows = (n + (1 << row_shift) - 1) >> row_shift
    starts = dat_u + np.arange(nrows, dtype=np.int64) * row_stride_u
    addr_u = starts[idx >> row_shift] + (idx & ((1 << row_shift) - 1)) * ds_u
    assert _span_bounds(dat_u, n, row_shift, row_stride_u, ds_u) == (int(addr_u.min()), int(addr_u.max()))


# -- PACR: BF16 from a 16-bit Dst through row spans, without the conversion chain -------------
def _bf16_chain(bits, spans, remap):
    from ttemu.tensix.formats import DataFormat, Intermediate, Repr, write_datums
    from ttemu.tensix.formats.pack import EarlyMode, packer_early
    from ttemu.tensix.formats.pack_late import packer_late
    from ttemu.tensix.regs.dst import adj16
    a = np.concatenate([((row << 4) + c0 + np.arange(n, dtype=np.int64)) for row, c0, n in spans]) & 0x3FFF
    raw = bits[adj16(a >> 4, remap), a & 15].astype(np.uint32)
    v = packer_early(raw, Repr.DST16_BF16, Intermediate.BF16, EarlyMode.ROUND)
    datums, _ = packer_late(v, Intermediate.BF16, DataFormat.Float16_b, bfp_overflow="saturate")
    return v, write_datums(datums, DataFormat.Float16_b).tobytes()


def test_bf16_rows_bytes_matches_the_conversion_chain_for_every_value():
    """Every 16-bit Dst value, in spans of two rows (two read interfaces) and one row."""
    from ttemu.tensix.units.pack import bf16_rows_bytes
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).reshape(4096, 16)
    for base in range(0, 4096, 1024):
        view = bits[base:base + 1024]
        for r in range(0, 1024, 2):
            for spans in ([(r, 0, 16), (r + 1, 0, 16)], [(r, 0, 16)]):
                v, want = _bf16_chain(view, spans, False)
                out, data = bf16_rows_bytes(view, spans, False)
                assert data == want, (base, spans)
                assert np.array_equal((out >> 7) & 0xFF, (v >> 23) & 0xFF)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1023), st.integers(0, 15)), min_size=1, max_size=4), st.integers(1, 16),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_bf16_rows_bytes_matches_the_chain_for_any_spans(starts, n, remap, seed):
    from ttemu.tensix.units.pack import bf16_rows_bytes
    bits = np.random.default_rng(seed).integers(0, 1 << 16, size=(1024, 16), dtype=np.uint64).astype(np.uint16)
    spans = [(row, c0, min(n, 16 - max(c for _, c in starts))) for row, c0 in starts]
    v, want = _bf16_chain(bits, spans, remap)
    out, data = bf16_rows_bytes(bits, spans, remap)
    assert data == want
    assert np.array_equal((out >> 7) & 0xFF, (v >> 23) & 0xFF)


def test_semwait_recheck_one_semaphore_matches_refresh_then_hold_state():
    """The one-semaphore path of semwait_recheck, for every index, condition and edge value."""
    from ttemu.tensix.frontend.gate import WaitGate
    tile = Tile("wormhole_b0")
    cop = tile.tensix
    for i in range(8):
        for cond in range(4):
            for value, top in ((0, 0), (0, 3), (1, 3), (3, 3), (5, 3), (15, 15)):
                cop.sync.semaphores[i].value, cop.sync.semaphores[i].max = value, top
                old, new = WaitGate(), WaitGate()
                for g in (old, new):
                    g.latch_semwait(0x40, 1 << i, cond)
                old.refresh(cop, 0)
                want = old.hold_state(cop) if old.opcode is not None else None
                assert new.semwait_recheck(cop) == want, (i, cond, value, top)
                assert (new.opcode, new.checked) == (old.opcode, old.checked)


# -- the Vector Unit's direct route: dispatch calls issue() instead of the forwarding @op --------
def test_sfpu_direct_route_makes_the_same_issue_call_as_the_op_method():
    from ttemu.isa.table import get_table
    n = 0
    for arch in ("wormhole_b0", "blackhole"):
        tile = Tile(arch)
        cop = tile.tensix
        sfpu = cop.sfpu
        table = get_table(arch)
        t = cop.threads[1]
        calls = []
        sfpu.issue = lambda t, mnemonic, values: calls.append((t, mnemonic, values))  # records, runs nothing
        for spec in table:
            handler = cop.handlers[spec.opcode]
            if getattr(handler, "__self__", None) is not sfpu:
                continue
            names = C._params(handler)
            args = tuple(range(3, 3 + len(names)))
            route = sfpu.direct_route(handler, args)
            assert route is not None, spec.mnemonic
            if spec.mnemonic == "SFPNOP":
                assert route == (sfpu.issue_nop, ())  # (checked below)
                continue
            calls.clear()
            handler(t, *args)  # the @op method (the old form)
            fn, rargs = route
            # issue(t, mnemonic, values) is issue_word(t, [None, None, None, mnemonic, values])
            assert fn == sfpu.issue_word and len(rargs) == 1
            slot = rargs[0]
            assert slot[:3] == [None, None, None]
            assert len(calls) == 1 and calls[0] == (t, *slot[3:]), (arch, spec.mnemonic, calls, slot)
            n += 1
        assert sfpu.direct_route(cop.handlers[table.by_mnemonic["SEMPOST"].opcode], (1,)) is None
    assert n > 60


def test_sfpu_issue_is_issue_word_with_a_slot_per_instruction():
    """issue() keeps one slot per (mnemonic, values, thread, word) and runs issue_word with
    it; a slot's Insn is built once per thread (with the thread's word) and reused."""
    tile = Tile("wormhole_b0")
    sfpu = tile.tensix.sfpu
    seen = []
    sfpu.issue_word = lambda t, slot: seen.append(slot)
    t1, t2 = tile.tensix.threads[1], tile.tensix.threads[2]
    t1.word = t2.word = 0x1234
    fields = (0, 0, 0, 1)
    sfpu.issue(t1, "SFPLOAD", fields)
    sfpu.issue(t1, "SFPLOAD", fields)
    sfpu.issue(t2, "SFPLOAD", fields)
    t1.word = 0x5678
    sfpu.issue(t1, "SFPLOAD", fields)
    assert seen[0] is seen[1] and seen[2] is not seen[0] and seen[3] is not seen[0]
    assert all(s[3:] == ["SFPLOAD", fields] for s in seen)
    del sfpu.issue_word
    sfpu.issue(t2, "SFPLOAD", fields)
    slot = seen[2]
    assert slot[0] is slot[1] is None and slot[2][0].mnemonic == "SFPLOAD" and slot[2][0].thread == 2
    assert slot[2][0].vd == 1


def test_sfpu_issue_nop_matches_issue_of_an_sfpnop():
    """issue_nop (the SFPNOP route) against issue(t, "SFPNOP", ()), after instructions that
    leave nothing pending, a rule pending, an SFPSWAP stall and SFPLOADMACRO work."""
    from ttemu.isa.table import get_table
    for arch in ("wormhole_b0", "blackhole"):
        table = get_table(arch)
        before = [[], [("SFPMAD", dict(lreg_src_a=1, lreg_src_b=2, lreg_src_c=3, lreg_dest=4, instr_mod1=0))],
                  [("SFPSWAP", dict(lreg_src_c=1, lreg_dest=2, instr_mod1=0, imm12_math=0))],
                  [("SFPLOADMACRO", dict(lreg_ind=0, instr_mod0=0, sfpu_addr_mode=0, dest_reg_addr=0))]]
        for prefix in before:
            states = []
            for form in ("issue", "nop"):
                tile = Tile(arch)
                cop = tile.tensix
                t = cop.threads[2]
                for mnemonic, fields in prefix:
                    t.push(table.encode(mnemonic, **fields), "test", after_mop=True)
                    cop.kick()
                for thread in (2, 2, 1, 2):
                    t = cop.threads[thread]
                    t.issued += 1  # (as the frontend counts it, before the next issue)
                    if form == "issue":
                        cop.sfpu.issue(t, "SFPNOP", ())
                    else:
                        cop.sfpu.issue_nop(t)
                u = cop.sfpu
                states.append((u.hz_now, u.hz_last, u.swap_stall, len(u.scheduled), u.lreg.tobytes()))
            assert states[0] == states[1], (arch, prefix)


def test_issue_paths_cycle_matches_hz_cycle():
    """issue_word and issue_nop work out the cycle of an instruction from the thread that
    issued last themselves: hz_now / hz_last match HazardOps.hz_cycle's after every issue,
    with threads taking turns and other Tensix instructions counted in between."""
    from ttemu.isa.table import get_table
    rng = np.random.default_rng(3)
    for arch in ("wormhole_b0", "blackhole"):
        table = get_table(arch)
        loadi = table.encode("SFPLOADI", imm16=7, instr_mod0=0, lreg_ind=2)
        tile, ref = Tile(arch), Tile(arch)
        for step in range(60):
            thread = int(rng.choice([1, 1, 1, 0, 2]))
            extra = [int(n) for n in rng.integers(0, 3, 3) * (rng.random(3) < 0.3)]  # other instructions
            for cop in (tile.tensix, ref.tensix):
                for k in range(3):
                    cop.threads[k].issued += extra[k]
            t = tile.tensix.threads[thread]
            nop = step % 3 == 0
            t.push(table.encode("SFPNOP") if nop else loadi, "test", after_mop=True)
            tile.tensix.kick()
            r = ref.tensix.threads[thread]
            u = ref.tensix.sfpu
            u.hz_now = u.hz_cycle(r, False)
            r.issued += 1
            got = tile.tensix.sfpu
            assert (got.hz_now, got.hz_last) == (u.hz_now, u.hz_last), (arch, step)


def test_semwait_hold_kept_across_other_units_instructions_matches_a_recheck():
    """The frontend keeps a SEMWAIT hold found just before an instruction of a unit other
    than the Sync Unit without re-reading the semaphores: what it keeps is what a fresh
    check finds, and a SEMPOST (Sync Unit) releases the thread at once."""
    from ttemu.tensix.frontend.gate import WaitGate
    tile, issue = make()
    cop = tile.tensix
    issue(0, "SEMINIT", max_value=2, init_value=0, sem_sel=1)
    issue(1, "SEMWAIT", stall_res=0x1FF, sem_sel=1, wait_sem_cond=1)  # all: wait while sem0 == 0
    t = issue(1, "NOP")
    assert t.held is not None
    for k in range(6):
        issue(2, "SFPNOP" if k % 2 else "SFPLOADI", **({} if k % 2 else dict(imm16=k, instr_mod0=0, lreg_ind=1)))
        assert t.held is not None and t.gate.checked == cop.epoch == t._gate_epoch
        fresh = WaitGate()
        fresh.latch_semwait(0x1FF, 1, 1)
        assert fresh.semwait_recheck(cop) == t._held_why[1]
    assert "SEMWAIT" in t.held_reason
    issue(0, "SEMPOST", sem_sel=1)
    assert t.held is None and t.issued == 2
def test_packer_tables_match_their_arithmetic_forms_for_every_value():
    """fp32_row_bytes / bf16_rows_bytes unshuffle and round by table: every 16-bit Dst
    value (as both halves of an FP32 datum), against the arithmetic forms they replace."""
    from ttemu.tensix.units.pack import bf16_rows_bytes, bf16_rows_bytes_ref, fp32_row_bytes, fp32_row_bytes_ref
    values = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    rng = np.random.default_rng(7)
    for base in range(0, 4096, 512):
        bits = values[16 * base:16 * (base + 512)].reshape(512, 16)
        bits = np.concatenate([bits, bits[rng.permutation(512)]])  # 1024 rows: low halves differ from high
        for b in (bits, np.roll(bits, 8, axis=0)):  # each storage row as a high half and as a low half
            for row in range(1024):
                remap = (row & 1, row & 2)
                got, want = fp32_row_bytes(b, (row, 0, 16), remap), fp32_row_bytes_ref(b, (row, 0, 16), remap)
                assert got[1] == want[1] and np.array_equal(got[0], want[0]), (base, row, remap)
        for row in range(1024):
            spans = [(row, 0, 16), ((row + 5) & 0x3FF, 2, 9)]
            got, want = bf16_rows_bytes(bits, spans, row & 1), bf16_rows_bytes_ref(bits, spans, row & 1)
            assert got[1] == want[1] and np.array_equal(got[0], want[0]), (base, row)


def _fp32_rows_chain(bits, spans, remap, swizzle, inter, out_fmt, mode):
    """The chain _pipeline runs for FP32 read from a 32-bit Dst through row spans."""
    from ttemu.tensix.formats import Repr, write_datums
    from ttemu.tensix.formats.pack import packer_early
    from ttemu.tensix.formats.pack_late import packer_late
    from ttemu.tensix.regs.dst import adj_rows
    a = np.concatenate([((row << 4) + c0 + np.arange(n, dtype=np.int64)) for row, c0, n in spans]) & 0x3FFF
    ad = adj_rows(a >> 4, remap, swizzle)
    raw = (bits[ad, a & 15].astype(np.uint32) << 16) | bits[ad + 8, a & 15].astype(np.uint32)
    v = packer_early(raw, Repr.DST32_FP32, inter, mode)
    datums, _ = packer_late(v, inter, out_fmt, bfp_overflow="saturate")
    return v, write_datums(datums, out_fmt).tobytes()


_SPECIAL16 = st.sampled_from([0, 0x7F80, 0x7F81, 0xFF80, 0x80, 0x8000, 0x7FFF, 0xFFFF, 1, 0x1234, 0x807F, 0xFF7F])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1023), st.integers(0, 15), st.integers(1, 16)), min_size=1, max_size=5),
       st.booleans(), st.integers(0, 1), st.integers(0, 1), st.lists(_SPECIAL16 | st.integers(0, 0xFFFF),
                                                                     min_size=32, max_size=32), st.integers(0, 2**32 - 1))
def test_fp32_rows_forms_match_the_conversion_chain(spans, whole, remap, swizzle, words, seed):
    """fp32_rows_bytes (FP32 unchanged) and fp32_rows_bf16_bytes (rounded to BF16) for
    any row spans (whole rows, or parts), against the chain; histogram exponents too."""
    from ttemu.tensix.formats import DataFormat, Intermediate
    from ttemu.tensix.formats.pack import EarlyMode
    from ttemu.tensix.units.pack import fp32_rows_bf16_bytes, fp32_rows_bytes
    spans = [(row, 0, 16) if whole else (row, c0, min(n, 16 - c0)) for row, c0, n in spans]
    bits = np.random.default_rng(seed).integers(0, 1 << 16, size=(1024, 16), dtype=np.uint64).astype(np.uint16)
    w = np.array(words, dtype=np.uint16)
    for row, c0, n in spans[:2]:  # special values where the spans read
        from ttemu.tensix.regs.dst import adj_row
        adj = adj_row(row, remap, swizzle)
        bits[adj, c0:c0 + n] = w[c0:c0 + n]
        bits[adj + 8, c0:c0 + n] = w[16 + c0:16 + c0 + n]
    v, want = _fp32_rows_chain(bits, spans, bool(remap), bool(swizzle), Intermediate.FP32, DataFormat.Float32,
                               EarlyMode.IDENTITY)
    hb, data = fp32_rows_bytes(bits, spans, (remap, swizzle))
    assert data == want
    assert np.array_equal((hb >> 7) & 0xFF, (v >> 23) & 0xFF)
    v, want = _fp32_rows_chain(bits, spans, bool(remap), bool(swizzle), Intermediate.BF16, DataFormat.Float16_b,
                               EarlyMode.ROUND)
    out, data = fp32_rows_bf16_bytes(bits, spans, (remap, swizzle))
    assert data == want
    assert np.array_equal((out >> 7) & 0xFF, (v >> 23) & 0xFF)


def test_fp32_rows_bf16_bytes_matches_the_chain_for_every_high_half():
    """Every 16-bit high half, with low halves at the rounding boundaries and random."""
    from ttemu.tensix.formats import DataFormat, Intermediate
    from ttemu.tensix.formats.pack import EarlyMode
    from ttemu.tensix.units.pack import fp32_rows_bf16_bytes
    rng = np.random.default_rng(3)
    values = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).reshape(-1, 16)
    for low in (0x0000, 0x7FFF, 0x8000, 0x8001, 0xFFFF, None):
        for base in range(0, 4096, 512):
            bits = np.zeros((1024, 16), dtype=np.uint16)
            from ttemu.tensix.regs.dst import adj_rows
            adj = adj_rows(np.arange(512), False, False)
            bits[adj] = values[base:base + 512]
            bits[adj + 8] = rng.integers(0, 1 << 16, size=(512, 16)) if low is None else low
            spans = [(r, 0, 16) for r in range(512)]
            v, want = _fp32_rows_chain(bits, spans, False, False, Intermediate.BF16, DataFormat.Float16_b,
                                       EarlyMode.ROUND)
            out, data = fp32_rows_bf16_bytes(bits, spans)
            assert data == want, (low, base)


# -- the frontend: a thread issues on while the other two have nothing to do ---------------------
_PUSHER = 0x02000123  # a NOP word the tests below bind to _pusher


def _pusher_tile(arch, one_per_pass):
    """A tile whose word _PUSHER, as it issues, pushes NOPs to the other two threads after
    their MOP expanders (a push from inside a pump: the re-entrant kick asks the outer
    one for another pass)."""
    tile = Tile(arch)
    cop = tile.tensix
    cop.one_per_pass = one_per_pass
    nop = cop.table.encode("NOP")
    spec = cop.dispatch_entry(nop)[0]

    def pusher(t):
        for k, other in enumerate(o for o in cop.threads if o is not t):
            for _ in range(k + 1):
                cop.push_from_core(None, 0xFFE40000 + (other.index << 16), nop, "pusher")
    cop.dispatch[_PUSHER] = (spec, pusher, (), None, False)
    return tile


def _trace_of(tile):
    import io

    from ttemu.trace import Tracer
    out = io.StringIO()
    tile.tracer = Tracer(out, tile, ("push", "issue", "replay"))
    return out


def test_a_push_from_inside_a_pump_ends_a_thread_issuing_alone():
    """Thread 1 issues alone: ATRELM (which picks thread 2 to go first in the next pass),
    a NOP, then a word whose handler pushes to threads 0 and 2. From there the threads
    take turns as the one-per-pass reference has them; and a kick that ends on an ATRELM
    leaves no choice of first thread to the next kick."""
    traces = []
    for reference in (True, False):
        tile = _pusher_tile("wormhole_b0", reference)
        out = _trace_of(tile)
        cop = tile.tensix
        t = cop.threads[1]
        for word in (cop.table.encode("ATGETM", mutex_index=0), cop.table.encode("ATRELM", mutex_index=0),
                     cop.table.encode("NOP"), _PUSHER, cop.table.encode("NOP")):
            t.push(word, "test", after_mop=True)
        cop.kick()
        assert [t.issued for t in cop.threads] == [1, 5, 2]
        # ATRELM the last to issue: the pass after it (that moves nothing) forgets its choice,
        # so the next kick starts with thread 0 again
        t.push(cop.table.encode("ATGETM", mutex_index=0), "test", after_mop=True)
        t.push(cop.table.encode("ATRELM", mutex_index=0), "test", after_mop=True)
        cop.kick()
        for other in (0, 2):
            cop.threads[other].push(cop.table.encode("NOP"), "test", after_mop=True)
        cop.kick()
        tile.tracer.flush()
        traces.append(out.getvalue())
    assert traces[0] == traces[1]
    assert traces[1].splitlines()[-1].startswith("tensix t2 issue")


def test_a_thread_issues_alone_only_in_passes_ordered_as_the_next():
    """Thread 1's ATRELM hands mutex 2 to thread 0 and has the next pass start with
    thread 2: thread 0 issues its ATGETM there, then (alone) a word that pushes to threads
    1 and 2, which the one-per-pass reference issues in a pass starting with thread 0."""
    traces = []
    for reference in (True, False):
        tile = _pusher_tile("wormhole_b0", reference)
        out = _trace_of(tile)
        cop = tile.tensix
        enc = cop.table.encode
        cop.threads[1].push(enc("ATGETM", mutex_index=2), "test", after_mop=True)
        cop.kick()
        for word in (enc("ATGETM", mutex_index=2), _PUSHER, enc("NOP")):
            cop.threads[0].push(word, "test", after_mop=True)
        cop.kick()
        assert cop.threads[0].held is not None
        cop.threads[1].push(enc("ATRELM", mutex_index=2), "test", after_mop=True)
        cop.kick()
        tile.tracer.flush()
        traces.append(out.getvalue())
    assert traces[0] == traces[1]
    assert [ln.split()[1] for ln in traces[0].splitlines() if " issue " in ln][-4:] == ["t1", "t2", "t0", "t2"]


def _frontend_program(table, draw):
    """(thread, word) pushes from hypothesis' choices: waits, semaphores, mutexes, replays."""
    forms = [lambda: table.encode("NOP"), lambda: table.encode("SFPNOP"),
             lambda: table.encode("SEMPOST", sem_sel=1 << draw(st.integers(0, 1))),
             lambda: table.encode("SEMGET", sem_sel=1 << draw(st.integers(0, 1))),
             lambda: table.encode("SEMWAIT", stall_res=draw(st.sampled_from([0, 0x1FF, 2])),
                                  sem_sel=1 << draw(st.integers(0, 1)), wait_sem_cond=draw(st.integers(1, 3))),
             lambda: table.encode("STALLWAIT", stall_res=draw(st.sampled_from([0, 0x1FF])),
                                  wait_res=draw(st.sampled_from([0, 1, 0x80]))),
             lambda: table.encode("ATGETM", mutex_index=draw(st.sampled_from([0, 2]))),
             lambda: table.encode("ATRELM", mutex_index=draw(st.sampled_from([0, 2]))),
             lambda: table.encode("REPLAY", load_mode=1, execute_while_loading=draw(st.integers(0, 1)),
                                  len=draw(st.integers(1, 4)), start_idx=draw(st.integers(0, 3))),
             lambda: table.encode("REPLAY", load_mode=0, execute_while_loading=0, len=draw(st.integers(1, 6)),
                                  start_idx=draw(st.integers(0, 3))),
             lambda: _PUSHER]
    return [(draw(st.integers(0, 2)), draw(st.sampled_from(forms))(), draw(st.integers(0, 3)) == 0)
            for _ in range(draw(st.integers(1, 60)))]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["wormhole_b0", "blackhole"]), st.data())
def test_a_thread_alone_issues_on_as_the_one_per_pass_form_does(arch, data):
    """TensixThread.pump keeps issuing while both other threads have nothing to do; the
    reference (Coprocessor.one_per_pass) issues one instruction per thread per pass:
    both give the same trace (every push and issue, in order), holds and state."""
    from ttemu.errors import GuestFault
    from ttemu.isa.table import get_table
    table = get_table(arch)
    program = _frontend_program(table, data.draw)
    inits = [table.encode("SEMINIT", sem_sel=1, init_value=0, max_value=2),  # sem0 empty, sem1 full
             table.encode("SEMINIT", sem_sel=2, init_value=2, max_value=2)]
    runs = []
    for reference in (True, False):
        tile = _pusher_tile(arch, reference)
        cop = tile.tensix
        out = _trace_of(tile)
        for word in inits:
            cop.threads[0].push(word, "test", after_mop=True)
        fault = None
        try:
            for thread, word, before_mop in program:
                cop.threads[thread].push(word, "test", after_mop=not before_mop)
                if thread != 1:  # (thread 1's pushes wait for the next kick: more threads with work at once)
                    cop.kick()
            cop.kick()
        except GuestFault as e:  # (a REPLAY recorded into the buffer reaches the gate when played back)
            fault = str(e)
        tile.tracer.flush()
        runs.append((out.getvalue(), fault, [(t.issued, t.held, t.held_reason, t.gate.opcode) for t in cop.threads],
                     [(s.value, s.max) for s in cop.sync.semaphores], dict(cop.sync.mutex_holder)))
    assert runs[0][0] == runs[1][0], "\n".join(difflib.unified_diff(runs[0][0].splitlines(),
                                                                    runs[1][0].splitlines(), n=1000))
    assert runs[0] == runs[1]


def test_shipped_kernels_trace_the_same_issuing_one_per_pass(tmp_path, monkeypatch):
    """Real kernels (replays, MOPs, semaphore handshakes between threads): the frontend's
    trace and results match the one-instruction-per-pass reference byte for byte."""
    import pathlib

    from ttemu.cmd.cli import main
    root = pathlib.Path(__file__).resolve().parent.parent
    for name in ("sfpu_exp/sfpu_exp", "matmul_block/matmul_block", "untilize/untilize"):
        outs = []
        for reference in (True, False):
            monkeypatch.setattr(C.Coprocessor, "one_per_pass", reference)
            path = tmp_path / f"{reference}.trace"
            main(["trace", str(root / "firmware" / f"{name}.toml"), "-o", str(path)])
            outs.append(path.read_bytes())
        assert outs[0] == outs[1] and b" issue " in outs[0], name


def test_push_from_core_queues_as_thread_push_does():
    """push_from_core appends to the routed queue itself (TensixThread.push's work without
    its call) and leaves a full FIFO to push: the same queues, counts, refusals and stall
    text as pushing through TensixThread.push."""
    states = []
    for form in ("core", "thread"):
        tile = Tile("wormhole_b0")
        cop = tile.tensix
        cop._pumping = True  # queue without pumping
        results = []
        for k in range(34):
            for core, addr in (("trisc1", 0xFFE40000), ("brisc", 0xFFE60000), (None, 0xFFE50000)):
                word = 0x02000000 | k
                if form == "core":
                    results.append(cop.push_from_core(core, addr, word, f"o{k}"))
                else:
                    thread, after_mop = cop.route(core, addr)
                    results.append(cop.threads[thread].push(word, f"o{k}", after_mop))
        states.append((results, tile.last_stall, [(list(t.fifo), list(t.mid), t.pushed, t.fed) for t in cop.threads]))
    assert states[0] == states[1]
    assert states[0][0].count(False) == 6 and "FIFO full" in states[0][1]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["wormhole_b0", "blackhole"]), st.data())
def test_frontend_fast_fetch_matches_next_for_mops_replays_and_both_queues(arch, data):
    """TensixThread.pump takes words from BRISC's queue, the FIFO, a replay and a MOP
    expansion itself while tracing is off; with a tracer it asks _next() (the general
    form). Both issue the same words from the same origins in the same order."""
    from ttemu.errors import GuestFault
    from ttemu.isa.table import get_table
    table = get_table(arch)
    draw = data.draw
    nops = [0x02000000 | k for k in range(1, 48)]

    def replay():
        return table.encode("REPLAY", load_mode=draw(st.integers(0, 1)), execute_while_loading=draw(st.integers(0, 1)),
                            len=draw(st.integers(1, 5)), start_idx=draw(st.integers(0, 7)))
    cfgs = [[draw(st.integers(0, 3)), draw(st.integers(0, 3))]
            + [draw(st.sampled_from(nops[:7] + [0x02000000, table.encode("SFPNOP")])) for _ in range(7)]
            for _ in range(3)]
    for cfg in cfgs:
        if draw(st.booleans()):
            cfg[draw(st.integers(2, 8))] = replay()
    program = []
    for k in range(draw(st.integers(1, 40))):
        kind = draw(st.sampled_from(["nop", "replay", "mop", "mop_cfg"]))
        if kind == "nop":
            word = nops[k]
        elif kind == "replay":
            word = replay()
        elif kind == "mop":
            # MOP: template (bit 23), count (16..22), mask (low 16 bits); MOP_CFG: mask's high half
            word = 0x01000000 | draw(st.integers(0, 1)) << 23 | draw(st.integers(0, 3)) << 16 | draw(st.integers(0, 15))
        else:
            word = 0x03000000 | draw(st.integers(0, 3))
        # (MOP words go before the expander only: after it they stop the run at the gate)
        before_mop = kind.startswith("mop") or draw(st.booleans())
        program.append((draw(st.integers(0, 2)), word, before_mop, draw(st.booleans())))
    runs = []
    for traced in (True, False):
        tile = Tile(arch)
        cop = tile.tensix
        if traced:
            _trace_of(tile)
        issued = []
        orig = cop.dispatch_entry

        def entry(word, orig=orig, issued=issued):
            spec, handler, args, kwargs, fence = orig(word)
            if handler is not None:
                def logged(t, *a, __h=handler, **k):
                    issued.append((t.index, t.word, t.origin))
                    return __h(t, *a, **k)
                handler = logged
            cop.dispatch[word] = (spec, handler, args, kwargs, fence)
            return cop.dispatch[word]
        cop.dispatch_entry = entry
        for t, cfg in zip(cop.threads, cfgs):
            t.mop.cfg[:] = cfg
        fault = None
        try:
            for thread, word, before_mop, kick in program:
                cop.threads[thread].push(word, "test", after_mop=not before_mop)
                if kick:
                    cop.kick()
            cop.kick()
        except GuestFault as e:  # (a REPLAY recorded into the buffer reaches the gate when played back)
            fault = str(e)
        runs.append((issued, fault, [t.issued for t in cop.threads]))
    assert runs[0] == runs[1]


def _dispatch_entry_reference(cop, word):
    """Coprocessor.dispatch_entry as it was written before its per-opcode call plans: the
    fields through table.decode's mapping, the parameter check per word."""
    spec, fields = cop.table.decode(word)
    handler = args = kwargs = None
    fence = False
    if spec is not None:
        handler = None if spec.unit == "frontend" else cop.handlers[spec.opcode]
        if handler is not None:
            names = C._params(handler)
            if names is not None and sorted(names) == sorted(fields):
                args = tuple(fields[n] for n in names)
                direct = getattr(getattr(handler, "__self__", None), "direct_route", None)
                if direct is not None:
                    route = direct(handler, args)
                    if route is not None:
                        handler, args = route
            else:
                kwargs = dict(fields)
        if spec.mnemonic == "STALLWAIT":
            fence = bool((fields["stall_res"] >> 8) & (fields["wait_res"] >> cop._fpu_busy_bit) & 1)
    return spec, handler, args, kwargs, fence


def test_dispatch_entry_matches_the_decoded_fields_on_every_opcode():
    """dispatch_entry's per-opcode call plan (arguments extracted from the word by (shift,
    mask)) gives the entries the decoded mapping gave, for random words of every opcode on
    both arches (the Vector Unit's slots compared by their mnemonic and fields)."""
    rng = np.random.default_rng(5)
    checked_positional = set()
    for arch in ("wormhole_b0", "blackhole"):
        cop = Tile(arch).tensix
        for opcode in range(256):
            for low in rng.integers(0, 1 << 24, 24).tolist() + [0, (1 << 24) - 1]:
                word = (opcode << 24) | low
                got = cop.dispatch_entry(word)
                want = _dispatch_entry_reference(cop, word)
                if want[3] is not None and got[3] is None:
                    # a handler taking the fields (and defaults for the other arch's) positionally:
                    # the positional call binds what the call by keywords bound
                    assert got[1] == want[1], hex(word)
                    fn = getattr(want[1].__func__, "tt_positional", want[1].__func__)
                    sig = inspect.signature(fn)
                    a = sig.bind(cop.units[0], cop.threads[0], *got[2])
                    b = sig.bind(cop.units[0], cop.threads[0], **want[3])
                    a.apply_defaults()
                    b.apply_defaults()
                    assert a.arguments == b.arguments, hex(word)
                    checked_positional.add((arch, want[0].mnemonic))
                    continue
                assert got[0] is want[0] and got[3] == want[3] and got[4] == want[4], hex(word)
                assert got[1] == want[1], hex(word)
                if got[2] and isinstance(got[2][0], list):  # a Vector Unit slot: [.., mnemonic, fields]
                    assert got[2][0][3:] == want[2][0][3:], hex(word)
                else:
                    assert got[2] == want[2], hex(word)
    # the handlers called by keywords before: the Scalar Unit's, those with the other arch's fields
    assert {("wormhole_b0", m) for m in ("PACR", "UNPACR", "ZEROACC", "SETDMAREG", "DMANOP")} <= checked_positional
    assert {("blackhole", m) for m in ("PACR", "UNPACR", "SETDMAREG")} <= checked_positional
