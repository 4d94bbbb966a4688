"""Translated RISC-V blocks kept on disk between runs, like Python's ``__pycache__``.

Translating a block (decoding its words, writing its Python source, compiling it) is
most of a short run's RISC-V cost: about 0.4 ms a block, and a kernel set translates
a few dozen, a firmware boot a few hundred. What a block becomes depends only on the
instruction words it covers, its start pc, the translator's settings (memory layout
constants, the arch's extensions) and the translator's own code, so the compiled
block and its instruction count are stored (``marshal``) under a hash of those and
loaded instead of translated when the same block is met again, in this run or a later
one. Results are identical either way.

Where: ``$TTEMU_CACHE_DIR``, else ``$XDG_CACHE_HOME/ttemu``, else ``~/.cache/ttemu``
(one subdirectory per Python bytecode version); ``TTEMU_CACHE_DIR=off`` (or an
unwritable directory) turns the cache off. Entries are written whole (a temporary
file renamed into place), so parallel runs share a cache safely; a damaged or
foreign entry is ignored and rewritten.
"""

from __future__ import annotations

import marshal
import os
from importlib.util import MAGIC_NUMBER

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


def source_digest(*paths) -> bytes:
    """A digest of the translator's own source files: a changed translator never loads
    blocks an older one stored (b"" when a file cannot be read: no cache)."""
    h = sha1()
    for p in paths:
        try:
            with open(p, "rb") as f:
                h.update(f.read())
        except OSError:
            return b""
    return h.digest()


class CodeCache:
    """Values (marshal-able: code objects, tuples, numbers) on disk under a key of bytes,
    in the subdirectory ``kind`` (``blocks``: translated blocks; ``toml``: parsed
    manifests, see ttemu.cmd.manifest)."""

    def __init__(self, directory=None, kind="blocks"):
        d = _cache_dir() if directory is None else directory
        self.dir = os.path.join(d, f"{kind}-" + MAGIC_NUMBER.hex()) if d else None
        self.hits = 0
        self.misses = 0

    def _path(self, key: bytes) -> str:
        name = sha1(key).hexdigest()
        return os.path.join(self.dir, name[:2], name)

    def get(self, key: bytes):
        """The value stored under ``key``, or None (none stored, unreadable, damaged)."""
        if self.dir is None:
            return None
        try:
            with open(self._path(key), "rb") as f:
                value = marshal.loads(f.read())
        except (OSError, ValueError, EOFError, TypeError):
            value = None
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def put(self, key: bytes, value) -> None:
        """Store ``value`` (ValueError if marshal cannot store it)."""
        if self.dir is None:
            return
        data = marshal.dumps(value)
        path = self._path(key)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except OSError:
            self.dir = None  # cannot write there: translate from now on
