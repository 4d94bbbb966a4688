"""Compiled RISC-V blocks kept on disk between runs, like Python's ``__pycache__``.

Compiling a translated block's source is most of a short run's translation cost
(about 0.5 ms a block; a firmware boot translates a few hundred). The code object
depends only on the block's source text and name and on the Python version, so it is
stored under a hash of those (``marshal``) and loaded instead of compiled when the same
block is met again, in this run or a later one. Results are identical either way.

Where: ``$TTEMU_CACHE_DIR``, else ``$XDG_CACHE_HOME/ttemu``, else ``~/.cache/ttemu``;
``TTEMU_CACHE_DIR=off`` (or an unwritable directory) turns the cache off. Entries are
written whole (a temporary file renamed into place), so parallel runs share a cache
safely; a damaged entry is ignored and rewritten.
"""

from __future__ import annotations

import importlib.util
import marshal
import os

try:  # CPython's own SHA-1: the same digests as hashlib's, without loading OpenSSL at start-up
    from _sha1 import sha1
except ImportError:  # pragma: no cover - other Python builds
    from hashlib import sha1


def _cache_dir():
    d = os.environ.get("TTEMU_CACHE_DIR")
    if d:
        return None if d.lower() in ("off", "0", "none") else d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ttemu")


class CodeCache:
    """``compile(source, filename, "exec")`` with a disk cache (one per translator)."""

    def __init__(self, directory=None):
        d = _cache_dir() if directory is None else directory
        self.dir = os.path.join(d, "blocks-" + importlib.util.MAGIC_NUMBER.hex()) if d else None
        self.hits = 0
        self.misses = 0

    def compile(self, source: str, filename: str):
        if self.dir is None:
            return compile(source, filename, "exec")
        key = sha1(f"{filename}\0{source}".encode()).hexdigest()
        path = os.path.join(self.dir, key[:2], key)
        try:
            with open(path, "rb") as f:
                code = marshal.loads(f.read())
            if code.co_filename == filename:
                self.hits += 1
                return code
        except (OSError, ValueError, EOFError, TypeError, AttributeError):
            pass
        code = compile(source, filename, "exec")
        self.misses += 1
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                f.write(marshal.dumps(code))
            os.replace(tmp, path)
        except OSError:
            self.dir = None  # cannot write there: compile from now on
        return code
