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


_FMA_DRIVER = r"""
#include <cstdint>
#include <cstdio>
uint32_t fma_model_wh(uint32_t, uint32_t, uint32_t);
uint32_t fma_model_bh(uint32_t, uint32_t, uint32_t);
int main(int argc, char **argv) {  // binary triples of uint32 on stdin -> results on stdout
  bool bh = argc > 1;
  uint32_t t[3];
  while (fread(t, 4, 3, stdin) == 3) {
    uint32_t r = bh ? fma_model_bh(t[0], t[1], t[2]) : fma_model_wh(t[0], t[1], t[2]);
    fwrite(&r, 4, 1, stdout);
  }
}
"""


@functools.lru_cache(maxsize=None)
def _fma_exe():
    """ttsim's bit-perfect multiply-add models (its src/fma.cpp: ``fma_model_wh``,
    ``fma_model_bh``, the models the SFPMAD pages link), compiled from the tarball with a
    driver of ours: (path, None) or (None, the reason it is unavailable)."""
    import hashlib
    import shutil
    import tarfile

    tar_path = SHARED / "oracles" / "ttsim" / "ttsim-v1.10.0-56694c8.tar.gz"
    if not tar_path.exists() or shutil.which("g++") is None:
        return None, "no ttsim sources or no g++"
    with tarfile.open(tar_path) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("src/fma.cpp"))
        source = tar.extractfile(member).read()
    out = pathlib.Path(os.environ.get("TTEMU_TTSIM_DIR", "/tmp/ttemu-ttsim-oracle")) / "fma-model"
    exe = out / f"fma-{hashlib.sha256(source + _FMA_DRIVER.encode()).hexdigest()[:16]}"
    if exe.exists():
        return exe, None
    work = out / f"build-{os.getpid()}"
    work.mkdir(parents=True, exist_ok=True)
    (work / "fma.cpp").write_bytes(source)
    (work / "main.cpp").write_text(_FMA_DRIVER)
    proc = subprocess.run(["g++", "-O1", "-o", str(work / "fma"), str(work / "main.cpp"), str(work / "fma.cpp")],
                          capture_output=True, text=True)
    if proc.returncode:
        return None, f"ttsim's fma.cpp did not build: {proc.stderr[-200:]}"
    os.replace(work / "fma", exe)  # (atomic: a concurrent build replaces it with the same program)
    shutil.rmtree(work, ignore_errors=True)
    return exe, None


def ttsim_fma(arch="wormhole_b0"):
    """A function ``f(x, y, z)`` (uint32 arrays of one shape) giving ttsim's multiply-add
    model of ``arch`` lane by lane, or skip the calling test with the reason it is
    unavailable."""
    import numpy as np
    import pytest

    exe, why = _fma_exe()
    if exe is None:
        pytest.skip(why)

    def run(x, y, z):
        triples = np.stack(np.broadcast_arrays(x, y, z), axis=-1).astype(np.uint32)
        out = subprocess.run([str(exe)] + (["bh"] if arch == "blackhole" else []), input=triples.tobytes(),
                             capture_output=True, check=True).stdout
        return np.frombuffer(out, dtype=np.uint32).reshape(triples.shape[:-1])
    return run
