"""``ttemu trace A B``: compare two trace files like diff(1) (exit 0 same, 1
different, 2 error). Filled in with the Tensix trace work."""

from __future__ import annotations


def is_trace_pair(a, b):
    import os

    def is_text(p):
        if not os.path.isfile(p):
            return False
        with open(p, "rb") as f:
            return f.read(4) != b"\x7fELF"

    return is_text(a) and is_text(b)


def compare_files(a, b, only=None, stage=None, context=3):
    raise NotImplementedError
