"""Building small multi-core test programs: RV32 code (tests/rv32asm.py) with Tensix
instructions inline as .ttinsn words, loaded straight into a tile."""

from __future__ import annotations

from rv32asm import Program, a0, t0, t1, t2  # noqa: F401
from ttemu import Tile
from ttemu.isa.table import get_table, rotl2

TABLE = get_table("wormhole_b0")
RESET_PC = {"brisc": 0x0, "trisc0": 0x6000, "trisc1": 0xA000, "trisc2": 0xE000}


def tt(p: Program, mnemonic: str, **fields) -> Program:
    """Append a .ttinsn carrying the Tensix instruction."""
    return p.word(rotl2(TABLE.encode(mnemonic, **fields)))


def word(mnemonic: str, **fields) -> int:
    return TABLE.encode(mnemonic, **fields)


def store_const(p: Program, addr: int, value: int, tmp_a=t0, tmp_v=t1) -> Program:
    """sw value -> addr (via two temporaries)."""
    p.li(tmp_a, addr)
    p.li(tmp_v, value)
    p.sw(tmp_v, 0, tmp_a)
    return p


def load(p: Program, rd: int, addr: int, tmp=t0) -> Program:
    p.li(tmp, addr)
    p.lw(rd, 0, tmp)
    return p


def tile_with(programs: dict, release=None, **kw) -> Tile:
    """A tile with each core's Program loaded at its base; releases ``release``
    (default: every core given)."""
    tile = Tile("wormhole_b0", **kw)
    for core, p in programs.items():
        tile.write(p.base, p.assemble())
        if p.base != RESET_PC.get(core, p.base):
            tile.set_start_pc(core, p.base)
    tile.release(release or list(programs))
    return tile
