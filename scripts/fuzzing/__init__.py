"""Differential fuzzing of ttemu against ttsim (scripts/fuzz.py is the command).

Data flow: a family's generator (``gen_*.py``) turns (arch, seed) into a
:class:`~.program.Program`: per Tensix thread a list of operations a tiny RISC-V
interpreter on that thread's TRISC carries out (push a Tensix word, write a Config word,
copy a word to L1, wait for a word), input bytes for L1, and the L1 regions that hold
the results. :mod:`.runner` runs programs on ttemu and, batched on the worker tiles of
one ttsim process (``ttemu.cmd.oracle.batch``), on ttsim, and compares the result
regions bit for bit; :mod:`.report` says which lanes differ and how; :mod:`.minimise`
drops the operation groups a difference does not need; :mod:`.classes` names known
differences (and keeps suppressed ones out of the generators).
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
ROOT_TESTS = ROOT / "tests"
for _p in (str(ROOT_TESTS), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)
