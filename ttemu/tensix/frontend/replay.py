"""Replay expander (one per thread): a 32-entry buffer with no CPU address.

Follows the functional model of tt-isa-documentation
WormholeB0/TensixTile/TensixCoprocessor/REPLAY.md (and seed 000): REPLAY with Load
records the next Count instructions at (Index + i) % 32 (also passing them on when
Exec is set); without Load it emits Count instructions from the buffer; Count 0 means
64. Recording captures the post-MOP stream.
"""

from __future__ import annotations

REPLAY_OPCODE = 0x04


class ReplayExpander:
    def __init__(self):
        self.buffer = [(0x02000000, "reset")] * 32  # (word, origin)
        self.record_left = 0
        self.record_index = 0
        self.record_exec = False
        self.play_left = 0
        self.play_index = 0
        self.version = 0  # moved on by every write into the buffer (for compiled expansions)

    @property
    def busy(self) -> bool:
        return bool(self.play_left)

    def playback(self):
        """The next buffered item to emit, or None when not playing back."""
        if not self.play_left:
            return None
        item = self.buffer[self.play_index % 32]
        self.play_index += 1
        self.play_left -= 1
        return item

    def take(self, item):
        """Feed one incoming item. Returns the item to pass on, or None when the
        expander consumed it (a REPLAY, or a recorded-only instruction)."""
        word = item[0]
        if self.record_left:
            self.buffer[self.record_index % 32] = item
            self.version += 1
            self.record_index += 1
            self.record_left -= 1
            return item if self.record_exec else None
        if word >> 24 != REPLAY_OPCODE:
            return item
        index = (word >> 14) & 0x1F
        count = ((word >> 4) & 0x3F) or 64
        if word & 1:  # Load
            self.record_left = count
            self.record_index = index
            self.record_exec = bool(word & 2)
        else:
            self.play_index = index
            self.play_left = count
        return None

    def reset(self) -> None:
        self.record_left = 0
        self.play_left = 0
