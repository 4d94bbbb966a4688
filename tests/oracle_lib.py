"""Where the shared material is (``../shared`` beside the checkout) and the ttsim
oracle libraries, built at test time with ``shared/oracles/ttsim/build.sh``."""

import functools
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("TTEMU_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"


@functools.lru_cache(maxsize=None)
def _build():
    script = SHARED / "oracles" / "ttsim" / "build.sh"
    if not script.exists():
        return None, f"no ttsim sources ({script} is missing)"
    out = pathlib.Path(os.environ.get("TTEMU_TTSIM_DIR", "/tmp/ttemu-ttsim-oracle"))
    proc = subprocess.run(["bash", str(script), str(out)], capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"ttsim did not build: {proc.stderr.strip()[-300:]}"
    libs = proc.stdout.split()
    return {"wormhole_b0": libs[0], "blackhole": libs[1]}, None


def require_ttsim(arch="wormhole_b0"):
    """The library's path, or skip the calling test with the reason it is unavailable."""
    import pytest

    path, why = ttsim_lib(arch)
    if path is None:
        pytest.skip(why)
    return path


def ttsim_lib(arch="wormhole_b0"):
    """(path, None) or (None, the reason it is unavailable)."""
    libs, why = _build()
    return (libs[arch], None) if libs else (None, why)
