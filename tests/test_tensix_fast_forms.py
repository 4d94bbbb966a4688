"""Fast forms in the Tensix frontend, configuration and data movers, each checked
against the slower exact form it replaced (kept here as the reference)."""

from __future__ import annotations

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
def _tpg_arrays(x0, y0, z0, n, reads, transposed):
    """The array form the scalar advance replaced (EdgeMasking.md Advance() n times)."""
    k = x0 + np.arange(n + 1, dtype=np.int64)
    rows = k >> 4
    inner, outer = (z0, y0) if transposed else (y0, z0)
    if reads and inner < reads:
        inner_k, outer_k = (inner + rows) % reads, outer + (inner + rows) // reads
    else:
        inner_k, outer_k = inner + rows, np.full(n + 1, outer, dtype=np.int64)
    y, z = (outer_k, inner_k) if transposed else (inner_k, outer_k)
    return [int(k[n] & 15), int(y[n]), int(z[n])]


def _keep_arrays(g, i, x0, y0, z0, n, col):
    """The array form of EdgeMasking.md's per-datum keep bits (what _edge_mask computed
    for every configuration before its early exits)."""
    reads = g(f"PACK_COUNTERS_SEC{i}_pack_reads_per_xy_plane")
    transposed = g(f"PACK_COUNTERS_SEC{i}_pack_yz_transposed")
    k = x0 + np.arange(n + 1, dtype=np.int64)
    rows = k >> 4
    inner, outer = (z0, y0) if transposed else (y0, z0)
    if reads and inner < reads:
        inner_k, outer_k = (inner + rows) % reads, outer + (inner + rows) // reads
    else:
        inner_k, outer_k = inner + rows, np.full(n + 1, outer, dtype=np.int64)
    y, z = (outer_k, inner_k) if transposed else (inner_k, outer_k)
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
    assert keep.dtype == bool and np.array_equal(keep, _keep_arrays(g, i, x0, y0, z0, n, col))
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
