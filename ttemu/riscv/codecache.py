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
(one subdirectory per kind and Python bytecode version); ``TTEMU_CACHE_DIR=off`` (or an
unwritable directory) turns the cache off. Entries are written whole (a temporary
file renamed into place), so parallel runs share a cache safely; a damaged or
foreign entry is ignored and rewritten.

Size: the whole cache is kept under a cap (``$TTEMU_CACHE_SIZE``, e.g. ``200M``,
``1G``; default :data:`DEFAULT_CAP`), least recently used entries first: a hit marks
its entry used (its mtime, at most once an hour), a process that adds entries adds
their size to a ledger file (``size``), and when the ledger passes the cap the oldest
entries are removed until the cache is at :data:`PRUNE_TO` of it. ``ttemu cache info``
shows it, ``ttemu cache clear`` empties it.
"""

from __future__ import annotations

import marshal
import os
import time
from importlib.util import MAGIC_NUMBER

try:  # CPython's own SHA-1: the same digests as hashlib's, without loading OpenSSL at start-up
    from _sha1 import sha1
except ImportError:  # pragma: no cover - other Python builds
    from hashlib import sha1


DEFAULT_CAP = 128 << 20
PRUNE_TO = 0.75
LEDGER = "size"
BLOCK = 4096  # an entry's size as the disk counts it: whole file-system blocks
TOUCH_AFTER = 3600.0  # seconds: a hit on an entry older than this marks it used


def _cache_dir():
    d = os.environ.get("TTEMU_CACHE_DIR")
    if d:
        return None if d.lower() in ("off", "0", "none") else d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ttemu")


def cache_root():
    """The cache's directory, or None when the cache is off."""
    return _cache_dir()


def cap() -> int:
    """The size cap in bytes: ``$TTEMU_CACHE_SIZE`` (a number, optionally with K, M or
    G), else DEFAULT_CAP. A value that does not parse is an error (ValueError)."""
    text = os.environ.get("TTEMU_CACHE_SIZE", "").strip()
    if not text:
        return DEFAULT_CAP
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    number = text[:-1] if scale > 1 else text
    value = int(float(number) * scale)
    if value < 0:
        raise ValueError(text)
    return value


def is_kind_dir(name):
    kind, _, magic = name.rpartition("-")
    return bool(kind) and len(magic) == 2 * len(MAGIC_NUMBER) and all(c in "0123456789abcdef" for c in magic)


def entries(root):
    """[(mtime, disk bytes, path)] of every entry under ``root`` (all kinds and Python
    versions); stale temporary files (an hour old: their writer died) included."""
    out = []
    try:
        kinds = [e.path for e in os.scandir(root) if e.is_dir() and is_kind_dir(e.name)]
    except OSError:
        return out
    now = time.time()
    for kind in kinds:
        for sub in _scan(kind):
            if not sub.is_dir():
                continue
            for f in _scan(sub.path):
                try:
                    st = f.stat()
                except OSError:
                    continue
                if f.name.endswith(".tmp") and now - st.st_mtime < 3600:
                    continue
                out.append((st.st_mtime, _disk(st.st_size), f.path))
    return out


def _scan(path):
    """os.scandir, or nothing when another process removed the directory meanwhile."""
    try:
        return list(os.scandir(path))
    except OSError:
        return []


def _disk(n):
    return -(-n // BLOCK) * BLOCK


def prune(root, limit=None):
    """Remove the least recently used entries until the cache holds at most ``limit``
    bytes (default: PRUNE_TO of the cap); writes the exact size to the ledger.
    Returns (entries left, bytes left, entries removed)."""
    limit = int(cap() * PRUNE_TO) if limit is None else limit
    items = sorted(entries(root))
    total = sum(n for _, n, _ in items)
    removed = 0
    for _, n, path in items:
        if total <= limit:
            break
        try:
            os.remove(path)
        except OSError:
            continue
        total -= n
        removed += 1
    _write_ledger(root, total)
    return len(items) - removed, total, removed


def _read_ledger(root):
    try:
        with open(os.path.join(root, LEDGER)) as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return None


def _write_ledger(root, total):
    try:
        tmp = os.path.join(root, f"{LEDGER}.{os.getpid()}.tmp")
        with open(tmp, "w") as f:
            f.write(f"{total}\n")
        os.replace(tmp, os.path.join(root, LEDGER))
    except OSError:
        pass


def account(root, added):
    """Add ``added`` bytes to the ledger; prune when it passes the cap. A missing
    ledger (a new cache, or one older than the cap) is made by counting."""
    total = _read_ledger(root)
    if total is None:
        total = sum(n for _, n, _ in entries(root))
    else:
        total += added
    if total > cap():
        prune(root)
    else:
        _write_ledger(root, total)


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
        self.root = d
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
        path = self._path(key)
        try:
            with open(path, "rb") as f:
                value = marshal.loads(f.read())
                if value is not None and time.time() - os.fstat(f.fileno()).st_mtime > TOUCH_AFTER:
                    os.utime(path)  # used: the last to go when the cache is pruned
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
            return
        try:
            account(self.root, _disk(len(data)))
        except ValueError:  # TTEMU_CACHE_SIZE does not parse: no cap (ttemu cache info says why)
            pass
