"""Entry points: ``ttemu`` (the console script) and ``python -m ttemu`` run
:func:`console`; ``ttemu.cli:main`` stays importable (the command layer lives in
``ttemu.cmd``)."""

import os
import sys

from .cmd.cli import main

__all__ = ["cli", "console", "main"]


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
    when a run first touches the Tensix, after this). A value the user set wins."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    return main()


if __name__ == "__main__":
    sys.exit(console())
