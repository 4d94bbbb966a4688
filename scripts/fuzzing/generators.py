"""The unit families and their generators: ``generate(arch, family, seed, allow)``."""

from __future__ import annotations

import importlib

from . import classes

#: family -> module (each has ``generate(arch, seed, allow) -> Program``)
FAMILIES = {
    "sfpu": "gen_sfpu",
    "fpu": "gen_fpu",
    "cfg": "gen_cfg",
    "sync": "gen_sync",
    "counters": "gen_counters",
    "mop": "gen_mop",
    "pack": "gen_pack",
}


def generate(arch: str, family: str, seed: int, allow=frozenset()):
    """Program ``seed`` of ``family`` on ``arch``. ``allow``: names of known classes let
    in (the rest of the kept-out classes are left out)."""
    allow = frozenset(allow) | frozenset(k.name for k in classes.KNOWN if not k.kept_out or k.resolved)
    mod = importlib.import_module(f"{__package__}.{FAMILIES[family]}")
    return mod.generate(arch, seed, allow)
