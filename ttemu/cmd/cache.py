"""``ttemu cache info|clear``: the disk cache of translated RISC-V blocks and parsed
manifests (ttemu.riscv.codecache): where it is, how big, its cap; or empty it."""

from __future__ import annotations

import os
import shutil

from ..errors import UsageError
from ..riscv import codecache


def _mib(n):
    return f"{n / (1 << 20):.1f} MiB"


def info(as_json=False) -> str:
    root = codecache.cache_root()
    try:
        limit = codecache.cap()
    except ValueError:
        raise UsageError(f"TTEMU_CACHE_SIZE={os.environ.get('TTEMU_CACHE_SIZE')!r}: "
                         "expected bytes, optionally with K, M or G (e.g. 200M)") from None
    items = codecache.entries(root) if root else []
    total = sum(n for _, n, _ in items)
    if as_json:
        import json

        return json.dumps({"dir": root, "enabled": root is not None, "entries": len(items), "bytes": total,
                           "cap": limit})
    if root is None:
        return "cache: off (TTEMU_CACHE_DIR=off)"
    return (f"cache: {root}\n"
            f"entries: {len(items)}, {_mib(total)} on disk; cap {_mib(limit)} (TTEMU_CACHE_SIZE), "
            f"least recently used entries go first\n"
            "turn it off: TTEMU_CACHE_DIR=off; move it: TTEMU_CACHE_DIR=DIR; empty it: ttemu cache clear")


def clear() -> str:
    """Remove every entry (the kind directories and the ledger; nothing else in the
    directory, which may be the user's own)."""
    root = codecache.cache_root()
    if root is None:
        return "cache: off (TTEMU_CACHE_DIR=off); nothing to clear"
    items = codecache.entries(root)
    total = sum(n for _, n, _ in items)
    try:
        names = os.listdir(root)
    except FileNotFoundError:
        names = []
    for name in names:
        path = os.path.join(root, name)
        if os.path.isdir(path) and codecache.is_kind_dir(name):
            shutil.rmtree(path, ignore_errors=True)
        elif name == codecache.LEDGER:
            os.remove(path)
    return f"cache: removed {len(items)} entries ({_mib(total)}) from {root}"
