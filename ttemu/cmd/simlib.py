"""``ttemu simlib``: put a ttsim-ABI library running ttemu, and the SoC descriptor
tt-umd reads beside it, in a directory (see docs/simlib.md)."""

from __future__ import annotations

import sys


def simlib_command(arch: str, directory: str, steps_per_clock: int = 1) -> int:
    from ..chip.build import build

    lib = build(arch, directory, steps_per_clock=steps_per_clock)
    sys.stdout.write(f"{lib}\n")
    sys.stderr.write(f"ttemu: {arch} library and soc_descriptor.yaml in {lib.parent}; e.g.\n"
                     f"  tt-exalens -s {lib}\n")
    return 0
