"""The compiled kernels (C extensions built at install when a C compiler is present), or
None: then each unit takes its pure-Python path, with the same results. ``MODULE``: the
Matrix Unit's datapath (``fpu_native.c``; its Python path is ``fpu_fused.py``,
tests/test_fpu_native.py compares the two); the Vector Unit loads its runs' form
(``sfpu/sfpu_native.c``, sfpu/native.py) with :func:`load` too. ``TTEMU_NATIVE=off`` in
the environment keeps every pure-Python path."""

from __future__ import annotations

import importlib
import os


def load(name: str = "_fpu_native", package: str = __package__):
    """The extension module ``package.name``, or None (not built, or turned off)."""
    if os.environ.get("TTEMU_NATIVE", "").lower() in ("off", "0", "no"):
        return None
    try:
        return importlib.import_module(f"{package}.{name}")
    except ImportError:
        return None


MODULE = load()
