"""Test helper: drive Tensix units directly, without RISC-V code.

    tile, issue = make()
    issue(0, "SEMINIT", max_value=2, init_value=1, sem_sel=1)   # thread 0

``issue`` encodes the instruction with the arch's table and pushes it to the thread
after the MOP expander (as RISCV B would), then lets the coprocessor run it. It
returns the thread, so a test can look at ``thread.held`` / ``thread.held_reason``.
"""

from __future__ import annotations

from ttemu import Tile
from ttemu.isa.table import get_table


def make(arch="wormhole_b0"):
    tile = Tile(arch)
    table = get_table(arch)

    def issue(thread, mnemonic, /, **fields):
        word = table.encode(mnemonic, **fields)
        t = tile.tensix.threads[thread]
        assert t.push(word, "test", after_mop=True), "thread FIFO full"
        tile.tensix.kick()
        return t

    return tile, issue


def push_word(tile, thread, word, before_mop=False):
    t = tile.tensix.threads[thread]
    assert t.push(word, "test", after_mop=not before_mop)
    tile.tensix.kick()
    return t


def warned(tile, key, times=1):
    """The one undefined-behaviour site whose key contains ``key`` fired ``times`` times;
    returns its text (docs/undefined-behaviour.md)."""
    sites = {s: v for s, v in tile.diagnostics.sites.items() if key in s}
    assert len(sites) == 1, f"sites matching {key!r}: {list(tile.diagnostics.sites)}"
    (text, count, kind), = sites.values()
    assert kind == "undefined behaviour" and count == times, (kind, count)
    return text


def make_strict(arch="wormhole_b0"):
    """make(), with the tile's diagnostics strict (ttemu run --strict)."""
    tile, issue = make(arch)
    tile.diagnostics.strict = True
    return tile, issue
