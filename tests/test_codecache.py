"""Translated RISC-V blocks are kept on disk (ttemu/riscv/codecache.py): a later run
loads them instead of translating, with the same results; a block whose instruction
words changed, or a changed translator, is translated afresh."""

import marshal
import os
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))

from rv32asm import Program, a0, gp, li, t0  # noqa: E402

from ttemu import Tile  # noqa: E402
from ttemu.riscv import translate as translate_mod  # noqa: E402
from ttemu.riscv.codecache import CodeCache  # noqa: E402

RES = 0x40000


def _program(value, step=-1):
    """A store of ``value`` to RES, a counted loop (a block that starts with a CSR read
    and steps the counter by ``step``), a halt."""
    p = Program(0)
    p.la(gp, RES)
    p.emit(li(a0, value))
    p.sw(a0, 0, gp)
    p.addi(a0, 0, 3 * -step)
    p.label("loop")
    p.csrrs(t0, 0xC02, 0)  # rdinstret: a CSR access starts a block
    p.addi(a0, a0, step)
    p.bne(a0, 0, "loop")
    p.sw(t0, 4, gp)
    p.halt()
    return p


def _run(value, step=-1):
    tile = Tile("wormhole_b0")
    tile.write(0, _program(value, step).assemble())
    tile.release(["brisc"])
    res = tile.run(max_steps=10_000)
    cache = tile.translators["brisc"].code_cache
    return (res.outcome, res.steps, tile.read_u32(RES), tile.read_u32(RES + 4)), cache.hits, cache.misses


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TTEMU_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_second_run_loads_what_the_first_translated(cache_dir):
    first, hits, misses = _run(5)
    assert first[0] == "halted" and first[2] == 5
    assert hits == 0 and misses > 1
    again, hits2, misses2 = _run(5)
    assert again == first
    assert (hits2, misses2) == (misses, 0)


def test_changed_instruction_words_are_translated_afresh(cache_dir):
    _run(5)
    changed, hits, misses = _run(0x1234)  # only the li words differ: that block is new
    assert changed[2] == 0x1234
    assert misses == 1 and hits > 0


def test_a_block_starting_with_a_csr_access_is_keyed_by_the_words_after_it(cache_dir):
    """The block is the CSR read and what follows it: other words after the CSR read
    are another block (here: the loop steps by 2, from 6; the first program's block
    would loop six times)."""
    first, _, _ = _run(5)
    other, hits, misses = _run(5, step=-2)
    assert misses >= 1
    assert other == first  # three rounds either way


def test_changed_translator_translates_afresh(cache_dir, monkeypatch):
    first, _, misses = _run(5)
    monkeypatch.setattr(translate_mod, "_translator_digest", lambda: b"another translator")
    again, hits, misses2 = _run(5)
    assert again == first and hits == 0 and misses2 == misses


def test_damaged_entries_are_ignored(cache_dir):
    first, _, misses = _run(5)
    for f in cache_dir.rglob("*"):
        if f.is_file():
            f.write_bytes(b"garbage")
    again, hits, misses2 = _run(5)
    assert again == first and hits == 0 and misses2 == misses
    third, hits3, _ = _run(5)  # rewritten
    assert third == first and hits3 == misses


def test_off(monkeypatch):
    monkeypatch.setenv("TTEMU_CACHE_DIR", "off")
    assert CodeCache().dir is None
    result, hits, misses = _run(5)
    assert result[2] == 5 and hits == misses == 0


def test_values_round_trip(tmp_path):
    cache = CodeCache(str(tmp_path))
    assert cache.get(b"k") is None
    code = compile("x = 1", "<b>", "exec")
    cache.put(b"k", (3, code))
    count, back = CodeCache(str(tmp_path)).get(b"k")
    assert count == 3 and back == code


# words of every kind a block meets: plain ops, loads/stores, CSR accesses, branches,
# jumps, system, illegal and unmodelled encodings, .ttinsn pushes, fence
WORDS = [0x00000013, 0x00150513, 0x0002A283, 0x00A2A023, 0xC02022F3, 0xF1402573, 0x34102573,
         0x00050463, 0xFE051EE3, 0x0080006F, 0x0000006F, 0x000280E7, 0x00000073, 0x00100073,
         0x00000000, 0xFFFFFFFF, 0x00003003, 0x0000000F, 0x00000007, 0x40C0D0B3, 0x02B50533,
         0x12345678 << 2 & 0xFFFFFFFC, 0x000012B7, 0x0000100F]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12),
       st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), st.sampled_from([1, 64]))
def test_a_cached_block_is_the_block_translation_gives(tmp_path, monkeypatch, first, second, max_len):
    """Whatever the words after a shared start, the block a translator takes from the
    cache is the block it would translate itself (same count, same compiled code)."""
    monkeypatch.setenv("TTEMU_CACHE_DIR", str(tmp_path))
    start = 0x100

    def block(words, cached):
        if not cached:
            monkeypatch.setenv("TTEMU_CACHE_DIR", "off")
        tile = Tile("wormhole_b0")
        tile.write(start, b"".join(w.to_bytes(4, "little") for w in words))
        tr = tile.translators["brisc"]
        code, count = tr._compile(start, words[0], max_len)
        monkeypatch.setenv("TTEMU_CACHE_DIR", str(tmp_path))
        return tr, (count, marshal.dumps(code))

    tr, _ = block(first, True)
    tr.translate(start, max_len)  # stores the first program's block
    tr2, _ = block(second, True)
    key, _ = tr2._cache_key(start, second[0], max_len)
    hit = tr2.code_cache.get(key)
    _, fresh = block(second, False)
    if hit is not None:
        assert (hit[0], marshal.dumps(hit[1])) == fresh
