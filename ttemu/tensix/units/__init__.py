"""Backend execution units and the dispatch from instruction to implementation.

Each unit is a class holding its state; each instruction it executes is a method
named after the ISA mnemonic, taking the issuing thread and then the instruction's
fields by their table names, and marked with :func:`op`. The dispatch table is built
from the arch's instruction table: an instruction with no implementation stops the
run as unimplemented, naming itself (``PENDING`` lists them explicitly, and a test
checks that every opcode is either implemented or listed).

An implementation returns None when done, or a :class:`Wait` when it cannot start
yet (the instruction then stays at the wait gate, with the reason shown in a hang
diagnosis). It must not change state before deciding to wait.
"""

from __future__ import annotations

from ...record import Record


class Wait(Record, frozen=True):
    """An instruction cannot start yet: ``reason`` words why. ``src_key``, when given, is
    the Src ownership state (``SrcState.ownership()``) the decision depended on alone:
    while that state is the same, asking again would give the same Wait, so the frontend
    does not ask (nor stop other threads' runs to let it ask)."""

    reason: str
    src_key: object = None

    def __init__(self, reason, src_key=None):
        object.__setattr__(self, "reason", reason)
        object.__setattr__(self, "src_key", src_key)


def raw_word(t) -> int:
    """The Tensix word thread ``t`` is executing, for the few bits the instruction
    table does not decode (0 when called without the frontend, as in unit tests)."""
    return getattr(t, "word", None) or 0


def op(fn):
    """Mark a unit method as the implementation of the instruction it is named after."""
    fn.tt_mnemonic = fn.__name__
    return fn


class Unit:
    name = "unit"

    def ops(self):
        """mnemonic -> bound method for every @op method of this unit."""
        out = {}
        for klass in reversed(type(self).__mro__):
            for attr, fn in vars(klass).items():
                if callable(fn) and getattr(fn, "tt_mnemonic", None):
                    out[fn.tt_mnemonic] = getattr(self, attr)
        return out

    def busy(self, thread: int) -> bool:
        """Has an instruction of ``thread`` in flight (STALLWAIT busy conditions).
        Units here complete instructions as they issue, so by default: no."""
        return False


def pending(arch_name: str) -> frozenset:
    """Every instruction explicitly listed as not implemented (all units)."""
    import importlib

    out = set()
    for mod in ("sync", "misc", "scalar", "cfg", "unpack", "math", "sfpu", "pack", "mover"):
        m = importlib.import_module(f"{__name__}.{mod}")
        out |= m.PENDING
        if arch_name == "blackhole":
            out |= getattr(m, "PENDING_BLACKHOLE", frozenset())
    if arch_name == "blackhole":
        out.add("RESOURCEDECL")
    return frozenset(out)
