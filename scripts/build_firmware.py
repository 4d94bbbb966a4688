#!/usr/bin/env python3
"""Build ttemu's firmware: every ``firmware/<prog>/<core>.c`` (or ``.S``) becomes
``firmware/build/<prog>/<core>.elf`` (Wormhole B0) and
``firmware/build/blackhole/<prog>/<core>.elf`` (Blackhole).

    python scripts/build_firmware.py            # build everything, both arches
    python scripts/build_firmware.py hello      # only these programs
    python scripts/build_firmware.py --arch blackhole   # only one arch
    python scripts/build_firmware.py --check    # rebuild into a temp dir; exit 1 if
                                                # any committed ELF differs

Each ELF is crt0 plus the core's source, linked with <layout>/<core>.ld. The layout
directory is firmware/common (everything in L1 from the core's reset PC) unless the
program directory has a file ``layout`` naming another one under firmware/ (e.g.
``llk``: tt-llk's scheme, with local data staged at __loader_init_start). Include
path: firmware/common (tile.h), firmware/llk (the LLK-style library),
firmware/include (generated Tensix encoders and config fields), and the program's
own directory.

Per arch (``ARCHES`` below): the LLK-style library's arch header is
firmware/llk/<arch>/llk_arch.h (the only place a library header may name arch
data; quoted includes search the including file's directory first, so no arch file
sits in firmware/llk itself). Blackhole puts firmware/common/blackhole (tile.h)
before firmware/common and uses firmware/include/blackhole (the Blackhole encoders
and config fields) instead of firmware/include; its linker scripts are
<layout>/blackhole/<core>.ld (Blackhole's larger local data RAM), crt0 and
sections.ld are shared. A program builds for every arch unless its directory has a
file ``arches`` listing the ones it supports (one name per line).

The output is byte-reproducible for a given compiler: the compiler runs from the
repository root on relative paths, file prefixes are mapped to ``.``, there is no
debug info, no build id and no .comment section, and the environment is pinned
(LC_ALL=C, SOURCE_DATE_EPOCH=0). ``--check`` therefore only makes sense with the
toolchain the committed ELFs were built with (riscv64-unknown-elf-gcc 12.2 from
Debian 12 at the time of writing).

Exit codes: 0 ok, 1 check found differences (or a build failed), 2 no compiler.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIRMWARE = pathlib.Path("firmware")  # relative to ROOT: paths in commands stay fixed
COMMON = FIRMWARE / "common"
BUILD = FIRMWARE / "build"
NOT_PROGRAMS = {"common", "include", "build", "llk"}
CORES = ("brisc", "trisc0", "trisc1", "trisc2", "ncrisc")
CC = "riscv64-unknown-elf-gcc"
INCLUDE = FIRMWARE / "include"
LLK = FIRMWARE / "llk"
# arch -> (output root, include directories (the program's own comes last), the
# subdirectory of the layout directory holding its linker scripts, or None)
ARCHES = {
    "wormhole_b0": (BUILD, (COMMON, LLK / "wormhole_b0", LLK, INCLUDE), None),
    "blackhole": (BUILD / "blackhole",
                  (COMMON / "blackhole", COMMON, LLK / "blackhole", LLK, INCLUDE / "blackhole"), "blackhole"),
}

CFLAGS = [
    "-march=rv32im", "-mabi=ilp32", "-O2",
    "-nostdlib", "-nostartfiles", "-ffreestanding",
    "-msmall-data-limit=0",  # no gp-relative data: crt0 does not set gp
    "-fno-tree-loop-distribute-patterns",  # no calls to memset/memcpy (there is no libc)
    "-Wall", "-Wextra",
    # reproducibility
    "-g0", "-fno-ident", "-ffile-prefix-map={root}=.", "-Wl,--build-id=none",
]


def program_arches(prog_dir):
    marker = prog_dir / "arches"
    if not marker.exists():
        return set(ARCHES)
    names = set(marker.read_text().split())
    if names - set(ARCHES):
        raise SystemExit(f"build_firmware: {prog_dir.name}/arches: unknown arch(es) "
                         f"{', '.join(sorted(names - set(ARCHES)))}")
    return names


def find_sources(programs=None, arch="wormhole_b0"):
    """-> [(prog, core, source path relative to ROOT)], sorted."""
    out = []
    for prog_dir in sorted((ROOT / FIRMWARE).iterdir()):
        prog = prog_dir.name
        if not prog_dir.is_dir() or prog in NOT_PROGRAMS or prog.startswith("."):
            continue
        if programs and prog not in programs:
            continue
        if arch not in program_arches(prog_dir):
            continue
        for core in CORES:
            found = [prog_dir / f"{core}{ext}" for ext in (".c", ".S") if (prog_dir / f"{core}{ext}").exists()]
            if len(found) > 1:
                raise SystemExit(f"build_firmware: {prog}: both {core}.c and {core}.S")
            if found:
                out.append((prog, core, found[0].relative_to(ROOT)))
    if programs:
        missing = {p for p in set(programs) - {p for p, _, _ in out} if not (ROOT / FIRMWARE / p).is_dir()}
        if missing:
            raise SystemExit(f"build_firmware: no such program(s): {', '.join(sorted(missing))}")
    return out


def layout_dir(prog):
    marker = ROOT / FIRMWARE / prog / "layout"
    if marker.exists():
        name = marker.read_text().strip()
        if not (ROOT / FIRMWARE / name).is_dir():
            raise SystemExit(f"build_firmware: {prog}/layout names {name!r}, which is not a directory")
        return FIRMWARE / name
    return COMMON


def command(cc, prog, core, src, out, arch="wormhole_b0"):
    flags = [f.format(root=ROOT) for f in CFLAGS]
    layout = layout_dir(prog)
    _, incs, sub = ARCHES[arch]
    libs = [layout] if sub is None else [layout / sub, layout]
    script = libs[0] / (core + ".ld")
    return [cc, *flags,
            *(f"-I{d}" for d in incs), f"-I{FIRMWARE / prog}",
            *(f"-L{d}" for d in libs), f"-T{script}",
            str(layout / "crt0.S"), str(src), "-o", str(out)]


def build(cc, out_root: pathlib.Path, programs=None, verbose=False, arch="wormhole_b0") -> list[pathlib.Path]:
    """Build ``arch``'s ELFs into ``out_root/<prog>/<core>.elf`` (out_root absolute or
    relative to ROOT). Returns the outputs relative to out_root."""
    env = dict(os.environ, LC_ALL="C", LANG="C", SOURCE_DATE_EPOCH="0")
    built = []
    for prog, core, src in find_sources(programs, arch):
        rel = pathlib.Path(prog) / f"{core}.elf"
        out = out_root / rel
        (ROOT / out).parent.mkdir(parents=True, exist_ok=True)
        cmd = command(cc, prog, core, src, out, arch)
        if verbose:
            print(" ".join(cmd))
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        if proc.returncode:
            sys.stderr.write(proc.stdout + proc.stderr)
            raise SystemExit(f"build_firmware: {src}: compiler failed (exit {proc.returncode})")
        built.append(rel)
    return built


def committed_elfs(arch):
    """The ELFs under arch's output root (another arch's subdirectory excluded)."""
    root = ROOT / ARCHES[arch][0]
    others = {ROOT / r for a, (r, *_) in ARCHES.items() if a != arch and (ROOT / r).is_relative_to(root)}
    if not root.exists():
        return []
    return sorted(p.relative_to(root) for p in root.rglob("*.elf")
                  if not any(p.is_relative_to(o) for o in others))


def check(cc, programs=None, arches=tuple(ARCHES)) -> int:
    bad, n = [], 0
    for arch in arches:
        out_root = ARCHES[arch][0]
        with tempfile.TemporaryDirectory(prefix="ttemu-fw-") as tmp:
            tmp = pathlib.Path(tmp)
            built = build(cc, tmp, programs, arch=arch)
            n += len(built)
            for rel in built:
                committed = ROOT / out_root / rel
                if not committed.exists():
                    bad.append(f"{out_root / rel}: missing (not built/committed)")
                elif committed.read_bytes() != (tmp / rel).read_bytes():
                    bad.append(f"{out_root / rel}: differs from a fresh build")
            if not programs:
                fresh = set(built)
                for rel in committed_elfs(arch):
                    if rel not in fresh:
                        bad.append(f"{out_root / rel}: no source for it any more")
    for line in bad:
        print(line)
    print(f"build_firmware --check: {n} ELF(s), {len(bad)} problem(s)")
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("programs", nargs="*", help="program directories under firmware/ (default: all)")
    ap.add_argument("--check", action="store_true", help="rebuild into a temp dir and compare with firmware/build")
    ap.add_argument("--arch", choices=(*ARCHES, "all"), default="all",
                    help="build (or check) this arch's ELFs only (default: all)")
    ap.add_argument("--cc", default=CC, help=f"compiler (default {CC})")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the compiler commands")
    args = ap.parse_args(argv)
    if shutil.which(args.cc) is None:
        print(f"build_firmware: {args.cc} not found", file=sys.stderr)
        return 2
    arches = tuple(ARCHES) if args.arch == "all" else (args.arch,)
    if args.check:
        return check(args.cc, args.programs, arches)
    for arch in arches:
        out_root = ARCHES[arch][0]
        for rel in build(args.cc, out_root, args.programs, args.verbose, arch):
            print(out_root / rel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
