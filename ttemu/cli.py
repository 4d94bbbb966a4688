"""Entry point kept at its old place for ``ttemu.cli:main`` (the console script) and
``python -m ttemu.cli``; the command layer lives in ``ttemu.cmd``."""

import sys

from .cmd.cli import cli, main

__all__ = ["cli", "main"]

if __name__ == "__main__":
    sys.exit(main())
