"""Compiled expansions: what a MOP (or a REPLAY playback) sends to the wait gate, worked
out once per (instruction word, MopCfg as sampled, replay buffer contents) and reused.

The expansion of a MOP depends on nothing but those (MOPExpander.md, REPLAY.md), so a
:class:`Body` holds its whole stream: each step's ``(word, origin)`` item and dispatch
entry (no generator, no replay bookkeeping, no decode per instruction), and the state
the expanders would be in after each step (the MOP expander's position in its own word
stream, the replay expander's ``play_left`` / ``play_index``), which the thread writes
back as it goes, so that anything looking at the expanders (TTSync's done checks, a
trace, a soft reset, the general path taking over) finds them exactly as the
generators would have left them. Expansions that record into the replay buffer, or
are longer than ``MAX_STEPS``, are not compiled (the generators run them).

A body also marks runs of consecutive steps a backend unit can execute together
(``batches``: the unit's ``batch_runs``, e.g. the Matrix Unit's MVMULs): the thread
hands such a run to the unit in one call where issuing them one at a time would have
changed nothing else in between (TensixThread.pump).
"""

from __future__ import annotations

from .mop import MOP_OPCODE, expand_template0, expand_template1
from .replay import REPLAY_OPCODE

#: longest expansion compiled (template 1's hardware-bug case can emit ~33,000 words)
MAX_STEPS = 4096
#: bodies kept per thread (a kernel uses a handful)
MAX_BODIES = 256


class Cursor:
    """The MOP expander's ``active`` iterator while a body runs: the MOP-level words
    (what the template generator yields), read from position ``i``."""

    __slots__ = ("words", "i")

    def __init__(self, words):
        self.words = words
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        i = self.i
        if i >= len(self.words):
            raise StopIteration
        self.i = i + 1
        return self.words[i]


class Body:
    """One compiled expansion (see the module docstring).

    ``items[p]`` / ``entries[p]``: step p's (word, origin) and dispatch entry;
    ``mop_i[p]``, ``play_left[p]``, ``play_index[p]``: the expanders' state once p steps
    have left (p = 0 .. len(items)); ``mop_words``: the MOP-level words (None for a
    plain REPLAY playback); ``batch[p]``: None, or ``(unit, end, specs)`` when steps p ..
    end - 1 lie in a run the unit executes together (any tail of a run is one too),
    ``specs`` the run's distinct instruction specs (built by :meth:`plan_batches`);
    ``cache``: the units' plans for its runs (keyed as they choose)."""

    __slots__ = ("items", "entries", "mop_i", "play_left", "play_index", "mop_words", "batch", "cache")

    def __init__(self, items, entries, mop_i, play_left, play_index, mop_words):
        self.items = items
        self.entries = entries
        self.mop_i = mop_i
        self.play_left = play_left
        self.play_index = play_index
        self.mop_words = mop_words
        self.batch = [None] * len(items)
        self.cache = {}

    def plan_batches(self, units):
        """Ask each unit offering ``batch_runs(words, entries)`` (-> [(start, end), ...]:
        runs of steps it can execute together) which runs of this body it takes; runs
        shorter than two steps, or overlapping one already taken, are dropped."""
        words = [item[0] for item in self.items]
        batch = self.batch
        for unit in units:
            runs = getattr(unit, "batch_runs", None)
            if runs is None:
                continue
            for start, end in runs(words, self.entries):
                if end - start < 2 or any(b is not None for b in batch[start:end]):
                    continue
                specs = tuple({e[0] for e in self.entries[start:end]})
                for p in range(start, end - 1):
                    batch[p] = (unit, end, specs)


def compile_mop(word, cfg, mask_hi, replay, dispatch):
    """The Body of MOP ``word`` expanded with MopCfg ``cfg`` (a tuple, as sampled),
    MOP_CFG's ``mask_hi`` and the replay expander ``replay`` in its current state
    (not changed here), or None when it is not compiled. ``dispatch(word)`` gives a
    word's dispatch entry."""
    template = (word >> 23) & 1
    if template == 0:
        gen = expand_template0((mask_hi << 16) | (word & 0xFFFF), (word >> 16) & 0x7F, cfg)
    else:
        gen = expand_template1(cfg)
    mop_words = []
    for w in gen:
        mop_words.append(w)
        if len(mop_words) > MAX_STEPS:
            return None
    return _compile(mop_words, replay, dispatch)


def compile_replay(word, replay, dispatch):
    """The Body of a REPLAY playback ``word`` (Load clear) taken by ``replay`` in its
    current state, or None."""
    if word & 1:
        return None
    return _compile(None, replay, dispatch, first=word)


def _compile(mop_words, replay, dispatch, first=None):
    if replay.record_left or replay.play_left:
        return None
    buffer = replay.buffer
    play_left = 0
    play_index = replay.play_index
    mi = 0
    if first is not None:  # a REPLAY playback word (ReplayExpander.take without Load)
        play_index = (first >> 14) & 0x1F
        play_left = ((first >> 4) & 0x3F) or 64
    items, entries = [], []
    mop_i, lefts, indices = [mi], [play_left], [play_index]
    n_mop = len(mop_words) if mop_words is not None else 0
    while True:
        if play_left:
            item = buffer[play_index % 32]
            play_index += 1
            play_left -= 1
        elif mi < n_mop:
            w = mop_words[mi]
            mi += 1
            if w >> 24 == REPLAY_OPCODE:
                if w & 1:  # Load: the expansion records into the buffer (not compiled)
                    return None
                play_index = (w >> 14) & 0x1F
                play_left = ((w >> 4) & 0x3F) or 64
                continue
            item = (w, "mop")
        else:
            break
        items.append(item)
        entries.append(dispatch(item[0]))
        mop_i.append(mi)
        lefts.append(play_left)
        indices.append(play_index)
        if len(items) > MAX_STEPS:
            return None
    if not items:
        return None
    return Body(items, entries, mop_i, lefts, indices, mop_words)


def is_mop(word) -> bool:
    return word >> 24 == MOP_OPCODE
