"""Tiny Tensix programs without a compiler, for either arch: BRISC writes Config words with
``sw``, pushes Tensix instructions (encoded with ttemu's table of the arch) to its
instruction buffer, waits a fixed number of loop iterations, then writes a done flag. The
same tile runs on ttemu and, through ``ttemu.cmd.oracle.cross_check``, on ttsim.
(tests/bh_prog.py binds these to Blackhole.)"""

from __future__ import annotations

import importlib

from rv32asm import Program, t0, t1, t2
from ttemu import Tile
from ttemu.isa.table import get_table

CFG_BASE = 0xFFEF0000
PUSH = 0xFFE40000  # BRISC's instruction buffer: Tensix thread 0
FLAG = 0x1F000
DONE = [(FLAG, 1)]


def cfg_table(arch: str) -> dict:
    """{Config field name: (word index, shift, width)} of ``arch``."""
    return importlib.import_module(f"ttemu.arch.tables.{arch}_cfg").CFG


def cfg_words(fields: dict, arch: str = "blackhole") -> dict:
    """{Config word index: value} for {field name: value} (the arch's layout)."""
    table = cfg_table(arch)
    words: dict = {}
    for name, value in fields.items():
        index, shift, width = table[name]
        mask = ((1 << width) - 1) << shift
        words[index] = (words.get(index, 0) & ~mask) | ((value << shift) & mask)
    return words


def word(mnemonic: str, arch: str = "blackhole", **fields) -> int:
    return get_table(arch).encode(mnemonic, **fields)


def program(cfg: dict, insns, delay: int = 400, arch: str = "blackhole") -> bytes:
    """BRISC code: Config writes, then every Tensix word of ``insns`` (ints or
    (mnemonic, fields) pairs) pushed to thread 0, a delay loop, the done flag."""
    p = Program(base=0)
    for index, value in sorted(cfg_words(cfg, arch).items()):
        p.li(t0, CFG_BASE + 4 * index)
        p.li(t1, value)
        p.sw(t1, 0, t0)
    p.li(t0, PUSH)
    for insn in insns:
        w = insn if isinstance(insn, int) else word(insn[0], arch, **insn[1])
        p.li(t1, w)
        p.sw(t1, 0, t0)
    p.li(t2, delay)
    p.label("wait")
    p.addi(t2, t2, -1)
    p.bne(t2, 0, "wait")
    p.li(t0, FLAG)
    p.li(t1, 1)
    p.sw(t1, 0, t0)
    p.halt()
    return p.assemble()


def run(cfg: dict, insns, l1: dict = (), record: bool = True, max_steps: int = 200_000,
        arch: str = "blackhole") -> Tile:
    """A tile of ``arch`` that ran the program (``l1``: {address: bytes} written first)."""
    tile = Tile(arch, record=record)
    for addr, data in dict(l1).items():
        tile.write(addr, data)
    tile.write(0, program(cfg, insns, arch=arch))
    tile.release(["brisc"])
    res = tile.run(max_steps=max_steps, until=DONE)
    assert res.outcome == "until", res
    return tile
