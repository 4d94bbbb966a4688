"""``ttemu simlib``: build the ttsim-ABI library for one arch into a directory.

Writes ``DIR/libttsim_wh.so`` (or ``libttsim_bh.so``), the name ttsim's library has,
and ``DIR/soc_descriptor.yaml`` beside it (tt-umd reads it from there). The library is
``simlib.c`` compiled with gcc; what it needs to find this ttemu is compiled into it
(UMD may load a copy of the file from elsewhere): the package's directory, the arch,
the shared libpython of the running interpreter and its ``sys.path`` (for a C/C++ host,
which gets a new interpreter).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from ..arch import get_arch
from ..arch.chip import get_chip
from ..errors import BadInput, UsageError
from .soc_descriptor import soc_descriptor

SOURCE = Path(__file__).with_name("simlib.c")

_BOOT = """\
import sys

def _ttemu_simlib_boot(root, arch, steps, paths, version):
    import os
    if embedded:  # set by the shim: this interpreter was started for the library
        sys.path[:0] = [p for p in paths if p not in sys.path]
    elif tuple(sys.version_info[:2]) == version:
        # a Python host (another venv, say): what ttemu needs and the host lacks is found
        # where the interpreter that built the library found it, after the host's own
        sys.path.extend(p for p in paths if p not in sys.path)
    mod = sys.modules.get("ttemu")
    if mod is None:
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "ttemu", os.path.join(root, "ttemu", "__init__.py"),
            submodule_search_locations=[os.path.join(root, "ttemu")])
        mod = importlib.util.module_from_spec(spec)
        sys.modules["ttemu"] = mod
        spec.loader.exec_module(mod)
    elif os.path.dirname(os.path.dirname(os.path.realpath(mod.__file__))) != root:
        print(f"ttemu: note: this process had imported ttemu from {os.path.dirname(mod.__file__)}; "
              f"the library (built from {root}) uses that one", file=sys.stderr)
    from ttemu.chip.host import Host
    return Host(arch, root=root, steps_per_clock=steps)

host = _ttemu_simlib_boot(%(root)r, %(arch)r, %(steps)r, %(paths)r, %(version)r)
"""


def _c_string(text: str) -> str:
    out = ['"']
    for ch in text:
        if ch == "\n":
            out.append("\\n")
        elif ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) > 0x7E:
            out.extend(f"\\{b:03o}" for b in ch.encode())
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def libpython() -> str:
    """The running interpreter's shared libpython, or "" when it is linked statically."""
    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        return ""
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    for name in (sysconfig.get_config_var("INSTSONAME"), sysconfig.get_config_var("LDLIBRARY")):
        if name and os.path.exists(os.path.join(libdir, name)):
            return os.path.join(libdir, name)
    return ""


def config_header(arch: str, steps_per_clock: int = 1) -> str:
    root = str(Path(__file__).resolve().parents[2])
    paths = [os.path.abspath(p) for p in sys.path if p and os.path.isdir(p)]
    boot = _BOOT % {"root": root, "arch": arch, "steps": steps_per_clock, "paths": paths,
                    "version": tuple(sys.version_info[:2])}
    return (f"/* written by `ttemu simlib` */\n#define TTEMU_BOOT {_c_string(boot)}\n"
            f"#define TTEMU_LIBPYTHON {_c_string(libpython())}\n")


def compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if not cc:
        raise BadInput("ttemu simlib compiles a small C library and needs a C compiler: none found "
                       "(install gcc, or name one in $CC)")
    return cc


def build(arch: str, directory: str, *, steps_per_clock: int = 1) -> Path:
    """Write the library and the SoC descriptor into ``directory``; return the library's path."""
    spec = get_arch(arch)
    chip = get_chip(spec.name)
    if steps_per_clock < 1:
        raise UsageError(f"--steps-per-clock {steps_per_clock}: at least 1")
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{directory}: not a directory")
    out.mkdir(parents=True, exist_ok=True)
    for other in ("wormhole_b0", "blackhole"):
        name = get_chip(other).lib_name
        if other != spec.name and (out / name).exists():
            raise UsageError(f"{directory} already holds {name} ({other}): its soc_descriptor.yaml would be "
                             f"replaced; use one directory per arch")
    lib = out / chip.lib_name
    with tempfile.TemporaryDirectory(prefix="ttemu-simlib-") as tmp:
        Path(tmp, "simlib_config.h").write_text(config_header(spec.name, steps_per_clock))
        built = Path(tmp, chip.lib_name)
        cmd = [compiler(), "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-Wall", "-Wl,-z,nodelete",
               "-I", tmp, "-o", str(built), str(SOURCE), "-ldl"]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode:
            raise BadInput(f"compiling the library failed ({' '.join(cmd)}):\n{res.stderr.strip()}")
        staged = out / f".{chip.lib_name}.{os.getpid()}"
        shutil.copyfile(built, staged)  # then renamed: a process using the old file keeps it
        os.chmod(staged, 0o755)
        os.replace(staged, lib)
    (out / "soc_descriptor.yaml").write_text(soc_descriptor(spec.name))
    return lib
