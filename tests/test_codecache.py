"""Compiled RISC-V blocks are kept on disk (ttemu/riscv/codecache.py): a later run loads
them instead of compiling, with the same results."""

from ttemu.riscv.codecache import CodeCache

SRC = "def _blk(x):\n    return x * 3 + 1\n"


def _run(code):
    ns = {}
    exec(code, ns)
    return ns["_blk"](5)


def test_second_cache_loads_what_the_first_compiled(tmp_path):
    first = CodeCache(str(tmp_path))
    assert _run(first.compile(SRC, "<block 0x00000010>")) == 16
    assert (first.hits, first.misses) == (0, 1)
    second = CodeCache(str(tmp_path))
    code = second.compile(SRC, "<block 0x00000010>")
    assert (second.hits, second.misses) == (1, 0)
    assert _run(code) == 16 and code.co_filename == "<block 0x00000010>"
    # another name or other source is another entry
    second.compile(SRC, "<block 0x00000020>")
    second.compile(SRC.replace("3", "4"), "<block 0x00000010>")
    assert second.misses == 2


def test_damaged_entry_is_recompiled(tmp_path):
    CodeCache(str(tmp_path)).compile(SRC, "<b>")
    for f in tmp_path.rglob("*"):
        if f.is_file():
            f.write_bytes(b"garbage")
    again = CodeCache(str(tmp_path))
    assert _run(again.compile(SRC, "<b>")) == 16 and again.misses == 1


def test_off(monkeypatch):
    monkeypatch.setenv("TTEMU_CACHE_DIR", "off")
    cache = CodeCache()
    assert cache.dir is None
    assert _run(cache.compile(SRC, "<b>")) == 16
