"""Entry points: ``ttemu`` (the console script) and ``python -m ttemu`` run
:func:`console` and exit with its code through :func:`exit_fast`; ``ttemu.cli:main``
stays importable (the command layer lives in ``ttemu.cmd``)."""

import os
import sys

from .cmd.cli import main

__all__ = ["cli", "console", "entry", "exit_fast", "main"]


def __getattr__(name):
    """``cli``: the click group (ttemu.cmd.cli builds it, importing click, when asked)."""
    if name == "cli":
        from .cmd import cli as _cli

        return _cli.cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def console() -> int:
    """A process of its own: numpy's BLAS needs no thread pool (ttemu's datapaths do not
    call BLAS; only a manifest's float64 reference may, on small matrices), and starting
    one thread per CPU costs about 40 ms of CPU time at ``import numpy`` (imported only
    when a run first touches the Tensix, after this). A value the user set wins.
    Returns the exit code."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    return main()


def exit_fast(code: int):
    """End the process with ``code`` without tearing the interpreter down: freeing every
    module and object of a Tensix run costs about 20 ms of CPU that nothing needs.
    What a normal exit does first is done here too: the ``atexit`` callbacks run, and
    standard output and error are flushed. When another thread is alive, or this
    Python lacks what that needs, or a flush fails, it exits the normal way
    (``sys.exit``)."""
    import atexit

    threading = sys.modules.get("threading")
    run_callbacks = getattr(atexit, "_run_exitfuncs", None)
    if run_callbacks is None or (threading is not None and (
            threading.active_count() > 1 or getattr(threading, "_threading_atexits", None))):
        sys.exit(code)
    run_callbacks()  # (they run once: a fallback below does not repeat them)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        sys.exit(code)
    os._exit(code)


def entry():
    """The ``ttemu`` console script and ``python -m ttemu``. The cyclic garbage collector
    runs a young collection every 100,000 new objects instead of 700: start-up (numpy's
    import above all) makes hundreds of thousands of long-lived objects, and collecting
    them over and over costs several ms a run, while a run makes little cyclic garbage
    (peak memory is unchanged on the shipped kernels)."""
    import gc

    gc.set_threshold(100_000)
    exit_fast(console())


if __name__ == "__main__":
    entry()
