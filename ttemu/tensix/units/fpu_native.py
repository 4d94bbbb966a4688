"""The compiled Matrix Unit datapath (``fpu_native.c``, built at install when a C
compiler is present) or None: then the Matrix Unit takes its pure-Python path
(``fpu_fused.py``), with the same results (tests/test_fpu_native.py compares the two).
``TTEMU_NATIVE=off`` in the environment keeps the pure-Python path."""

from __future__ import annotations

import os


def load():
    """The ``_fpu_native`` extension module, or None (not built, or turned off)."""
    if os.environ.get("TTEMU_NATIVE", "").lower() in ("off", "0", "no"):
        return None
    try:
        from . import _fpu_native
    except ImportError:
        return None
    return _fpu_native


MODULE = load()
