"""Typed errors. Each carries a category (printed by the CLI as
``ttemu: error: <category>: <details>``) and the documented exit code.

Nothing in the library calls ``sys.exit``; the CLI maps these to exit codes.

Exit codes (README.md, "Exit codes"):
  0 finished (halted, until, idle)   1 bad input (file, ELF)   2 usage
  3 hang                             4 step limit              5 guest fault or assertion
  6 unimplemented instruction or feature                       7 output mismatch
  8 the oracle (ttsim) could not make the comparison
  9 the run finished (halted, idle) without its --until conditions holding
  130 interrupted (Ctrl-C, gdb's kill)
"""

from __future__ import annotations


class TtemuError(Exception):
    """Base class. ``category`` and ``exit_code`` are class attributes."""

    category = "error"
    exit_code = 1

    def one_line(self) -> str:
        text = " ".join(str(self).split())
        return f"{self.category}: {text}"


class BadInput(TtemuError):
    """A file the user gave us is unusable (missing, not an ELF, wrong machine...)."""

    category = "bad input"
    exit_code = 1


class ElfError(BadInput):
    category = "bad ELF"


class UsageError(TtemuError):
    category = "usage"
    exit_code = 2


class GuestFault(TtemuError):
    """The guest program did something the model refuses: unmapped or misaligned
    access, ecall, illegal instruction, a write that hangs real hardware..."""

    category = "guest fault"
    exit_code = 5

    def __init__(self, message: str, core: str | None = None, pc: int | None = None):
        where = ""
        if core is not None:
            where = f"{core}"
            if pc is not None:
                where += f" pc 0x{pc:08x}"
            where += ": "
        super().__init__(where + message)
        self.core = core
        self.pc = pc


class GuestAssertion(GuestFault):
    """``ebreak``: tt-llk's LLK_ASSERT."""

    category = "assertion"


class Unimplemented(TtemuError):
    """An instruction or feature the model does not implement. The run stops and
    names it; nothing is silently dropped."""

    category = "unimplemented"
    exit_code = 6


class HostFault(TtemuError):
    """The host (a program driving ``ttemu simlib``'s library) made an access the chip
    refuses: outside every BAR and node, an access shape a register does not take."""

    category = "host fault"
    exit_code = 5


class UndefinedBehaviour(GuestFault):
    """The ISA documentation leaves this case undefined. Normally a warning
    (:mod:`ttemu.diagnostics`); raised with ``--strict``, and by the few cases with no
    behaviour to continue with (docs/undefined-behaviour.md)."""

    category = "undefined behaviour"


class UnfinishedWork(GuestFault):
    """The run finished with Tensix work left (queued, held, expanding); normally a
    counted warning, an error with ``--strict``."""

    category = "unfinished Tensix work"


class OutputMismatch(TtemuError):
    category = "mismatch"
    exit_code = 7


class OracleUnable(TtemuError):
    """The oracle (ttsim) could not make the comparison: it refused the run (its ERROR
    line is in the message), never reached the done condition, or the run needs what
    it cannot be given (core-local memory). Says nothing about ttemu's correctness."""

    category = "oracle"
    exit_code = 8
