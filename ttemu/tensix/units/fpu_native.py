"""The compiled kernels (C extensions built at install when a C compiler is present), or
None: then each unit takes its pure-Python path, with the same results. ``MODULE``: the
Matrix Unit's datapath (``fpu_native.c``; its Python path is ``fpu_fused.py``,
tests/test_fpu_native.py compares the two); the Vector Unit loads its runs' form
(``sfpu/sfpu_native.c``, sfpu/native.py) with :func:`load` too. ``TTEMU_NATIVE=off`` in
the environment keeps every pure-Python path."""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import pathlib


def _off() -> bool:
    return os.environ.get("TTEMU_NATIVE", "").lower() in ("off", "0", "no")


def load(name: str = "_fpu_native", package: str = __package__):
    """The extension module ``package.name``, or None (not built, or turned off)."""
    if _off():
        return None
    try:
        return importlib.import_module(f"{package}.{name}")
    except ImportError:
        return None


MODULE = load()


def built(name: str, subdir: str = "") -> bool:
    """Whether :func:`load` would give the extension ``name`` of this package (or of its
    subpackage ``subdir``), found without importing it or its package (for a run that
    made no unit: the Vector Unit's package imports numpy)."""
    if _off():
        return False
    folder = pathlib.Path(__file__).parent / subdir
    return any((folder / (name + suffix)).is_file() for suffix in importlib.machinery.EXTENSION_SUFFIXES)
