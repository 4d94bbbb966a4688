"""Tiny Blackhole programs without a compiler (tests/tile_prog.py bound to Blackhole):
BRISC writes Config words with ``sw``, pushes Tensix instructions (encoded with ttemu's
Blackhole table) to its instruction buffer, waits, then writes a done flag. The same tile
runs on ttemu and, through ``ttemu.cmd.oracle.cross_check``, on ttsim."""

from __future__ import annotations

from tile_prog import CFG_BASE, DONE, FLAG, PUSH, cfg_words, program, run, word  # noqa: F401
from ttemu.isa.table import get_table

TABLE = get_table("blackhole")
