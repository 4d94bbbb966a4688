#!/usr/bin/env python3
"""tt-llk's own pytest harness on a simulator library with ttsim's C ABI: ttemu's or ttsim's.

    python scripts/llk_harness.py                       # the default selection, both libraries, Wormhole
    python scripts/llk_harness.py --arch blackhole      # built for and run on Blackhole
    python scripts/llk_harness.py --lib ttsim           # one library (ttemu, ttsim, or a path to a .so)
    python scripts/llk_harness.py -t datacopy -t matmul # chosen entries of the catalogue (--list)
    python scripts/llk_harness.py --ci                  # the entries CI runs
    python scripts/llk_harness.py --markdown            # the table as Markdown (docs/llk-harness.md)
    python scripts/llk_harness.py --keep DIR            # keep the extracted tree, ELFs and reports

Nothing of tt-llk is committed: at run time the script

1. extracts tt-llk and tt-metal ``hw/`` from ``../shared/third_party/`` with
   ``scripts/llk_corpus.py`` (:class:`llk_corpus.Tree`: its adaptations and shim headers for
   Debian's ``riscv64-unknown-elf-g++``);
2. puts a stand-in for the SFPI compiler where the harness looks for it
   (``tests/sfpi/compiler/bin/riscv-tt-elf-g++``): a shell script that maps the harness's
   flags to the stock compiler (:func:`standin`), so the harness builds its own ELFs, in
   its own way, from its own ``build.h``;
3. puts the library in a directory with ``soc_descriptor.yaml`` beside it, as UMD needs;
4. runs ``pytest --compile-consumer --run-simulator`` in tt-llk's ``tests/python_tests`` with
   ``TT_METAL_SIMULATOR`` naming the library: the harness's own stimuli, goldens and
   checks; one pytest process per library and chip for all its variants, as on a device
   (BRISC booted once); when the library ends the process (ttsim and ttemu do on a
   refusal), the test it was in is recorded with the library's ERROR line and a new
   process runs the rest;
5. reads each test's outcome and seconds from ``llk_harness_plugin`` (loaded into the
   harness's session) and prints a table: entry, variants, passes on each library,
   seconds per variant.

Exit status: 0 when every variant that passes on ttsim passes on ttemu too (and, with
one library, every variant passes), 1 otherwise, 2 when something needed is missing
(the reason is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import llk_corpus as lc  # noqa: E402

ROOT = lc.ROOT
sys.path.insert(0, str(ROOT))
#: what the harness imports beyond pytest and numpy (tests/requirements.txt, the parts used
#: here; xdist for its worker_id fixture, which the harness's plugin asks for)
PACKAGES = ["tt-exalens==0.4.2", "torch==2.13.0", "pandas", "loguru", "ml_dtypes", "pytest-timeout", "pytest-xdist"]
MODULES = ["ttexalens", "torch", "pandas", "loguru", "ml_dtypes", "pytest_timeout", "xdist"]
#: the SFPI compiler's -mcpu names, by prefix, and the chip each builds for
MCPU = {"tt-wh": "wormhole_b0", "tt-bh": "blackhole"}
#: the SFPI compiler's options the stock one does not know (test_config.py)
DROPPED = ["-ftt-*", "-mno-tt-*"]
#: the other SFPI binutils the harness may call, and the stock tool for each
TOOLS = {"riscv-tt-elf-size": "riscv64-unknown-elf-size", "riscv-tt-elf-objcopy": "riscv64-unknown-elf-objcopy",
         "riscv-tt-elf-objdump": "riscv64-unknown-elf-objdump"}
LIB_NAMES = {"wormhole_b0": "libttsim_wh.so", "blackhole": "libttsim_bh.so"}
PYTEST_DIR = "tt-llk/tests/python_tests"


def standin(tree: lc.Tree) -> str:
    """The text of ``riscv-tt-elf-g++``: the harness's command line with each ``-mcpu=tt-*``
    as the stock compiler's ``-march``/``-mabi`` (:data:`llk_corpus.TARGETS`), the SFPI-only
    options dropped, and what the stock compiler needs added (llk_corpus's type fixes,
    warnings, shim and library headers, picolibc)."""
    import shlex

    cases = [f"    -mcpu={m}*) args+=(-march={lc.TARGETS[a].march} -mabi=ilp32) ;;" for m, a in MCPU.items()]
    cases.append(f"    {'|'.join(DROPPED)}) ;;")
    extra = lc.STOCK_WARNINGS + lc.TYPE_FIXES + tree.system_includes() + [f"-L{lc.LIBC_DIR}"]
    return "\n".join([
        "#!/bin/bash",
        "# riscv-tt-elf-g++ stand-in written by ttemu's scripts/llk_harness.py: the stock RISC-V cross",
        "# compiler with the SFPI compiler's options mapped (non-SFPU kernels only)",
        "args=()",
        'for a in "$@"; do',
        '  case "$a" in', *cases, '    *) args+=("$a") ;;', "  esac", "done",
        f'exec {lc.CXX} "${{args[@]}}" {" ".join(shlex.quote(x) for x in extra)}', ""])


def install_standin(tree: lc.Tree) -> pathlib.Path:
    """Write the stand-in compiler and tool links into the extracted tree. -> its bin dir."""
    bindir = tree.tests / "sfpi" / "compiler" / "bin"
    bindir.mkdir(parents=True, exist_ok=True)
    gxx = bindir / "riscv-tt-elf-g++"
    gxx.write_text(standin(tree))
    gxx.chmod(0o755)
    for name, stock in TOOLS.items():
        link = bindir / name
        if not link.exists() and shutil.which(stock):
            link.symlink_to(shutil.which(stock))
    return bindir


# -- the catalogue ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Entry:
    """A harness test function and the variants (pytest parameter ids) run of it."""
    name: str
    node: str  # tests/python_tests/FILE.py::FUNCTION
    ids: tuple  # parameter ids, as pytest prints them between the brackets
    archs: tuple = ("wormhole_b0", "blackhole")
    ci: tuple = ()  # indices in ``ids`` of the variants CI runs

    def nodes(self, ci=False):
        return [f"{self.node}[{self.ids[k]}]" for k in (self.ci if ci else range(len(self.ids)))]


WH = ("wormhole_b0",)

#: variants of the harness's non-SFPU tests (ids as the harness's parametrization names them;
#: an entry runs on both chips unless ``archs`` says otherwise, the parametrization differing)
CATALOGUE = [
    Entry("datacopy", "test_eltwise_unary_datacopy.py::test_eltwise_unary_datacopy", (
        "formats:Float16_b->Float16_b-dest_acc:No-num_faces:4-tilize:No-input_dimensions:[64, 64]",
        "formats:Float16->Float16-dest_acc:No-num_faces:4-tilize:No-input_dimensions:[64, 64]",
        "formats:Float32->Float32-dest_acc:Yes-num_faces:4-tilize:No-input_dimensions:[64, 64]",
        "formats:Bfp8_b->Float16_b-dest_acc:No-num_faces:4-tilize:No-input_dimensions:[64, 64]",
    ), ci=(0,)),
    Entry("eltwise_binary", "test_eltwise_binary.py::test_eltwise_binary", (
        "dest_acc:No-dest_sync:Half-unpack_to_dest:False-formats:Float16_b->Float16_b-math_op:Elwadd-math_fidelity:LoFi-transpose_srca:No-tile_dimensions:[32, 32]-input_dimensions:[32, 256]-acc_to_dest:False",
        "dest_acc:No-dest_sync:Half-unpack_to_dest:False-formats:Bfp8_b->Bfp8_b-math_op:Elwadd-math_fidelity:LoFi-transpose_srca:No-tile_dimensions:[32, 16]-input_dimensions:[256, 16]-acc_to_dest:True",
        "dest_acc:No-dest_sync:Half-unpack_to_dest:False-formats:Float16->Float16-math_op:Elwmul-math_fidelity:HiFi4-transpose_srca:No-tile_dimensions:[32, 16]-input_dimensions:[32, 128]-acc_to_dest:False",
    ), ci=(0,)),
    Entry("matmul", "test_matmul.py::test_matmul", (
        "math_fidelity:LoFi-format_dest_acc_and_dims:(InputOutputFormat[A:Float16_b,B:Float16_b,out:Float16_b], <DestAccumulation.No: False>, ([32, 64], [64, 32]))",
        "math_fidelity:HiFi2-format_dest_acc_and_dims:(InputOutputFormat[A:Float16,B:Float16,out:Float16_b], <DestAccumulation.No: False>, ([32, 32], [32, 32]))",
        "math_fidelity:HiFi2-format_dest_acc_and_dims:(InputOutputFormat[A:Float16_b,B:Float16_b,out:Bfp8_b], <DestAccumulation.Yes: True>, ([32, 32], [32, 32]))",
    ), ci=(0,)),
    Entry("reduce", "test_reduce.py::test_reduce", (
        "tile_dimensions:[32, 32]-formats:Float16_b->Float16_b-reduce_dim:Column-pool_type:Max-math_fidelity:HiFi2-is_reduce_to_one:False",
        "tile_dimensions:[32, 16]-formats:Bfp8_b->Float16_b-reduce_dim:Scalar-pool_type:Average-math_fidelity:HiFi4-is_reduce_to_one:False",
        "tile_dimensions:[32, 16]-formats:Float16_b->Float16_b-reduce_dim:Column-pool_type:Sum-math_fidelity:HiFi4-is_reduce_to_one:False",
    ), ci=(0,)),
    Entry("tilize", "test_unpack_tilize.py::test_unpack_tilize_float", (
        "formats:Float16_b->Float16_b-num_faces:4",
        "formats:Float16->Float16-num_faces:2",
        "formats:Float16_b->Float16_b-num_faces:2",
    ), ci=(0,)),
    Entry("untilize", "test_pack_untilize.py::test_pack_untilize", (
        "formats:Float16_b->Float16_b-dest_acc:No-input_dimensions:[32, 64]-dest_sync:Half-tile_dst_ct_offset:0",
        "formats:Float16_b->Float16-dest_acc:Yes-input_dimensions:[32, 64]-dest_sync:Half-tile_dst_ct_offset:0",
    ), ci=(0,)),
    Entry("pack", "test_pack.py::test_pack", (
        "formats:Float16_b->Float16_b-dest_acc:Yes-input_dimensions:[32, 64]-relu_type:MaxThresholdRelu-dest_sync:Half-dest_index:1",
        "formats:Float16->Float16-dest_acc:No-input_dimensions:[32, 32]-relu_type:ZeroRelu-dest_sync:Half-dest_index:0",
    )),
    Entry("unpack_A", "test_unpack_A.py::test_unpack_comprehensive", (
        "in_Float16_b-out_Float16-bcast_None_-disable_src_zero_False-acc_to_dest_False-stoch_rnd_No-reuse_dest_DEST_TO_SRCB-transpose_faces_No-within_face_transpose_No-num_faces_2-face_r_dim_4-input_dim_4x32",
        "in_Float16_b-out_Float16_b-bcast_None_-disable_src_zero_False-acc_to_dest_True-stoch_rnd_No-reuse_dest_DEST_TO_SRCB-transpose_faces_No-within_face_transpose_No-num_faces_2-face_r_dim_2-input_dim_2x32",
    ), archs=WH),
    Entry("transpose_dest", "test_transpose_dest.py::test_transpose_dest_float", (
        "fmt_dest_acc_math_transp_unpack_to_dest:(InputOutputFormat[A:Float16_b,B:Float16_b,out:Bfp8_b], <DestAccumulation.No: False>, <Transpose.Yes: True>, False)",
        "fmt_dest_acc_math_transp_unpack_to_dest:(InputOutputFormat[A:Bfp8_b,B:Bfp8_b,out:Float16], <DestAccumulation.Yes: True>, <Transpose.Yes: True>, False)",
    )),
    Entry("math_matmul", "test_math_matmul.py::test_math_matmul", (
        "MathFidelity.LoFi-matmul_config35-1",
        "MathFidelity.LoFi-matmul_config195-1",
    ), archs=WH),
    Entry("unpack_matmul", "test_unpack_matmul.py::test_unpack_matmul", (
        "math_fidelity:LoFi-matmul_config:MatmulConfig(tile_dimensions=TileDimensions(in0_dimensions=[32, 32], in1_dimensions=(32, 96), output_dimensions=(32, 96), rt_dim=1, ct_dim=3, kt_dim=1, tile_cnt=3, tile_cnt_in0=1, tile_cnt_in1=3, output_tile_cnt=3, in0_tile_r_dim=4, in0_tile_c_dim=32, in1_tile_r_dim=32, in1_tile_c_dim=32), face_layout_config=FaceLayoutConfig(unpack_transpose_faces=<Transpose.No: False>, unpack_transpose_within_face=<Transpose.No: False>, num_faces_in0=2, num_faces_in1=4, num_faces=2, partial_face_in0=True, partial_face_in1=False, partial_face_math=True, partial_face_pack=True), formats=InputOutputFormat[A:Float16_b,B:Float16_b,out:Float16_b], stochastic_rnd=<StochasticRounding.No: 'StochRndType::None'>, dst_index=0, dest_sync=<DestSync.Half: 'SyncHalf'>, dest_acc=<DestAccumulation.Yes: True>)",
        "math_fidelity:LoFi-matmul_config:MatmulConfig(tile_dimensions=TileDimensions(in0_dimensions=[32, 32], in1_dimensions=(32, 64), output_dimensions=(32, 64), rt_dim=1, ct_dim=2, kt_dim=1, tile_cnt=2, tile_cnt_in0=1, tile_cnt_in1=2, output_tile_cnt=2, in0_tile_r_dim=1, in0_tile_c_dim=32, in1_tile_r_dim=32, in1_tile_c_dim=32), face_layout_config=FaceLayoutConfig(unpack_transpose_faces=<Transpose.No: False>, unpack_transpose_within_face=<Transpose.No: False>, num_faces_in0=2, num_faces_in1=4, num_faces=2, partial_face_in0=True, partial_face_in1=False, partial_face_math=True, partial_face_pack=True), formats=InputOutputFormat[A:Float16_b,B:Float16_b,out:Float16_b], stochastic_rnd=<StochasticRounding.No: 'StochRndType::None'>, dst_index=0, dest_sync=<DestSync.Half: 'SyncHalf'>, dest_acc=<DestAccumulation.Yes: True>)",
    ), archs=WH),
    Entry("tilize_eltwise_untilize", "test_tilize_calculate_untilize_L1.py::test_tilize_calculate_untilize_L1", (
        "formats:Float16_b->Float16_b-mathop:Elwmul-dest_acc:No-math_fidelity:HiFi2",
        "formats:Float16->Float16-mathop:Elwsub-dest_acc:No-math_fidelity:HiFi4",
    )),
    Entry("reduce_block_max", "test_reduce_block_max.py::test_reduce_block_max", (
        "formats:Float16_b->Float16_b-block_ct_dim:3",
        "formats:Float16_b->Float16_b-block_ct_dim:2",
    )),
    Entry("reduce_block_max_runtime", "test_reduce_block_max.py::test_reduce_block_max_runtime", (
        "formats:Float16_b->Float16_b-block_ct_dim:8",
    )),
    Entry("reduce_block_max_reinit", "test_reduce_block_max.py::test_reduce_block_max_reinit_runtime", (
        "formats:Float16_b->Float16_b-block_ct_dim:2-reinit:full",
    )),
    Entry("pack_rows", "test_pack_rows.py::test_pack_rows", (
        "formats:Float16->Float16-dest_acc:No-num_rows_to_pack:50-dimensions:[32, 128]",
        "formats:Float16_b->Float16_b-dest_acc:Yes-num_rows_to_pack:50-dimensions:[32, 64]",
    )),
    Entry("matmul_pack_untilize", "test_matmul_pack_untilize.py::test_matmul_pack_untilize", (
        "formats:Bfp8_b->Float16-dest_acc:Yes-math_fidelity:LoFi",
        "formats:Bfp8_b->Float16_b-dest_acc:Yes-math_fidelity:LoFi",
    )),
    Entry("tilize_sweep", "test_unpack_tilize_sweep.py::test_unpack_tilize_comprehensive", (
        "formats:Float16->Float16_b-stoch_rnd_type:No-transpose:No-narrow_tile:Yes-dest_acc:Yes-num_faces:2-input_dimensions:[64, 16]",
        "formats:Float16_b->Bfp8_b-stoch_rnd_type:No-transpose:No-narrow_tile:No-dest_acc:No-num_faces:2-input_dimensions:[32, 128]",
    ), archs=WH),  # the harness skips both on Blackhole (narrow tiles; Bfp8_b output with 2 faces)
    Entry("eltwise_binary_broadcast", "test_eltwise_binary_broadcast.py::test_eltwise_binary_broadcast", (
        "dest_acc:Yes-dest_sync:Half-unpack_to_dest:False-formats:Float16_b->Float16-broadcast_type:Scalar-math_op:Elwmul-math_fidelity:HiFi2-transpose_srca:No-tile_dimensions:[32, 16]-input_dimensions:[128, 16]-acc_to_dest:True",
        "dest_acc:No-dest_sync:Half-unpack_to_dest:False-formats:Float16_b->Float16_b-broadcast_type:Scalar-math_op:Elwmul-math_fidelity:LoFi-transpose_srca:No-tile_dimensions:[32, 16]-input_dimensions:[32, 128]-acc_to_dest:True",
    ), archs=WH),
    Entry("unpack_bcast", "test_bcast.py::test_unpack_bcast", (
        "tile_dimensions:[32, 32]-formats:Bfp8_b->Bfp8_b-broadcast_type:None_-dest_acc:Yes",
        "tile_dimensions:[32, 32]-formats:Float16_b->Float16_b-broadcast_type:None_-dest_acc:No",
    )),
    Entry("fast_tilize", "test_fast_tilize.py::test_fast_tilize", (
        "formats:Float16_b->Bfp8_b-dest_acc:Yes-dimensions:(2, 10)",
        "formats:Float16_b->Bfp8_b-dest_acc:Yes-dimensions:(5, 3)",
    ), archs=WH),
    Entry("unpack_A_bcast_eltwise", "test_unpack_a_bcast_eltwise.py::test_unp_bcast_sub_sdpa", (
        "formats:Float16_b->Float16_b-mathop:Elwadd-dest_acc:No-srca_reuse_count:4-math_fidelity:LoFi-input_dimensions:[128, 32]",
        "formats:Float16_b->Float16_b-mathop:Elwmul-dest_acc:No-srca_reuse_count:4-math_fidelity:LoFi-input_dimensions:[64, 128]",
    ), archs=WH),
    Entry("reduce_col_tilize_strided", "test_unpack_reduce_col_tilizeA_strided.py::test_unpack_reduce_col_tilizeA_strided", (
        "formats:Float16_b->Float16_b-dest_acc:No-max_tiles_per_iter:8-num_faces:4-face_r_dim:16-pool_type:Max-dest_sync:Full",
        "formats:Float16_b->Float16_b-dest_acc:No-max_tiles_per_iter:8-num_faces:2-face_r_dim:16-pool_type:Max-dest_sync:Half",
    )),
    Entry("pack_dest_reinit", "test_pack_dest_reinit.py::test_pack_dest_reinit", (
        "formats:Bfp8_b->Bfp8_b-dest_acc:Yes-input_dimensions:[64, 512]",
        "formats:Float16_b->Float16_b-dest_acc:No-input_dimensions:[128, 128]",
    )),
    Entry("unpack_canonical_baseline", "test_unpack_canonical_baseline.py::test_unpack_canonical_baseline", (
        "formats:Float16_b->Float16_b-dest_acc:No-num_faces:4-face_r_dim:4",
        "formats:Float16->Float16-dest_acc:No-num_faces:4-face_r_dim:8",
    )),
]


def entries(names=(), ci=False, arch=None):
    out = [e for e in CATALOGUE if (not names or e.name in names) and (arch is None or arch in e.archs)
           and (not ci or e.ci)]
    unknown = set(names) - {e.name for e in CATALOGUE}
    if unknown:
        raise SystemExit(f"llk_harness: no entry named {', '.join(sorted(unknown))} (see --list)")
    return out


# -- libraries ----------------------------------------------------------------------------------

class Unavailable(Exception):
    """Something the run needs is missing (a reason, not a failure)."""


def missing_modules():
    import importlib.util

    absent = [m for m in MODULES if importlib.util.find_spec(m) is None]
    if absent:
        return f"python modules missing: {', '.join(absent)} (pip install {' '.join(PACKAGES)})"
    return None


def ttsim_library(arch: str, dest: pathlib.Path) -> pathlib.Path:
    """ttsim's library for ``arch`` (built from ../shared by tests/oracle_lib.py) copied into
    ``dest`` with the SoC descriptor ``ttemu simlib`` writes (ttemu's arch data) beside it.
    -> the .so's path."""
    if str(ROOT / "tests") not in sys.path:
        sys.path.insert(0, str(ROOT / "tests"))
    from oracle_lib import ttsim_lib

    from ttemu.chip.soc_descriptor import soc_descriptor

    path, why = ttsim_lib(arch)
    if path is None:
        raise Unavailable(why)
    dest.mkdir(parents=True, exist_ok=True)
    so = dest / LIB_NAMES[arch]
    shutil.copyfile(path, so)
    (dest / "soc_descriptor.yaml").write_text(soc_descriptor(arch))
    return so


def ttemu_library(arch: str, dest: pathlib.Path) -> pathlib.Path:
    """ttemu's library for ``arch`` (``ttemu simlib --arch ARCH DEST``). -> the .so's path."""
    proc = subprocess.run([sys.executable, "-m", "ttemu", "simlib", "--arch", arch, str(dest)], cwd=ROOT,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        why = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise Unavailable(f"ttemu simlib: {why}")
    return pathlib.Path(proc.stdout.split()[-1])


def library(kind: str, arch: str, work: pathlib.Path) -> pathlib.Path:
    """The library ``kind`` ("ttemu", "ttsim" or a path to a .so with its descriptor beside
    it) for ``arch``, ready for UMD."""
    if kind in ("ttemu", "ttsim"):
        return (ttemu_library if kind == "ttemu" else ttsim_library)(arch, work / "lib" / f"{kind}-{arch}")
    path = pathlib.Path(kind)
    if not path.is_file() or not (path.parent / "soc_descriptor.yaml").exists():
        raise Unavailable(f"{path}: no such library with soc_descriptor.yaml beside it")
    return path


# -- running the harness ------------------------------------------------------------------------

@dataclass
class Outcome:
    state: str  # passed, failed, error, skipped, not run
    seconds: float = 0.0
    why: str = ""


def harness_env(arch: str, build: pathlib.Path, lib: str | pathlib.Path, events: pathlib.Path) -> dict:
    env = dict(os.environ)
    env.update(CHIP_ARCH="wormhole" if arch == "wormhole_b0" else arch, TT_METAL_SIMULATOR=str(lib),
               RUNNER_TEMP=str(build), TMPDIR=str(build), LOGURU_LEVEL="WARNING", LLK_HARNESS_EVENTS=str(events),
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "scripts")]
                                          + [p for p in [env.get("PYTHONPATH")] if p]))
    env.pop("TT_UMD_SIMULATOR_PATH", None)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def pytest_argv(nodes, *extra):
    """The harness's pytest.ini asks for ``-s --maxschedchunk=200`` (xdist's); ``-s`` stays:
    a library that ends the process (``_Exit``) loses what pytest's capture holds, its ERROR
    line with it; ``stdbuf -oL`` makes ttsim's printf line-buffered into the log."""
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-s", "-q", "-p",
            "no:sugar", "-p", "llk_harness_plugin", "--run-simulator", "-o", "log_cli=false", *extra, *nodes]
    return (["stdbuf", "-oL"] if shutil.which("stdbuf") else []) + argv


def read_events(path: pathlib.Path):
    """-> ({node: Outcome} of the tests that ended, the node that started and did not)."""
    out, started = {}, None
    lines = path.read_text().splitlines() if path.exists() else []
    for ev in map(json.loads, lines):
        node = ev["node"]
        if ev["event"] == "start":
            started = node
            continue
        o = out.setdefault(node, Outcome("passed"))
        o.seconds += ev["seconds"]
        if ev["outcome"] != "passed" and o.state == "passed":
            o.state = "error" if ev["outcome"] == "failed" and ev["event"] != "call" else ev["outcome"]
            o.why = _one_line(ev["why"])
        if ev["event"] == "teardown" and node == started:
            started = None
    return out, started


def _one_line(text, width=200):
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    pick = next((ln for ln in lines if "ERROR:" in ln), None) or next(
        (ln for ln in lines if ln.startswith("E ") or "Error" in ln or "assert" in ln.lower()), None)
    return (pick or (lines[-1] if lines else ""))[:width]


def run_pytest(tree: lc.Tree, nodes, extra, env_for, log: pathlib.Path, timeout: float) -> dict:
    """tt-llk's harness on ``nodes`` in one pytest process; when a library ends the process
    (ttsim and ttemu do on a refusal), the test that was running is recorded with the
    library's ERROR line and a new process goes on with the rest. -> {node: Outcome}."""
    results, remaining, attempt = {}, list(nodes), 0
    while remaining:
        attempt += 1
        events = log.with_suffix(f".{attempt}.jsonl")
        events.unlink(missing_ok=True)
        alog = log.with_suffix(f".{attempt}.log")
        t0 = time.perf_counter()
        with open(alog, "w") as f:
            try:
                subprocess.run(pytest_argv(remaining, *extra), cwd=tree.src / PYTEST_DIR, env=env_for(events),
                               stdout=f, stderr=subprocess.STDOUT, timeout=timeout)
            except subprocess.TimeoutExpired:
                f.write(f"\nllk_harness: pytest stopped after {timeout:.0f} s\n")
        done, crashed = read_events(events)
        results.update(done)
        text = alog.read_text(errors="replace")
        if crashed:
            errs = [ln for ln in text.splitlines() if "ERROR:" in ln]
            results[crashed] = Outcome("crashed", time.perf_counter() - t0 - sum(o.seconds for o in done.values()),
                                       _one_line(errs[-1] if errs else text[-2000:]))
        left = [n for n in remaining if n not in results]
        if len(left) == len(remaining):  # nothing ran: pytest itself failed
            for n in left:
                results[n] = Outcome("not run", 0.0, _one_line(text[-3000:]))
            break
        remaining = left
    log.with_suffix(".json").write_text(json.dumps({n: vars(o) for n, o in results.items()}, indent=1))
    return results


def saved(path: pathlib.Path) -> dict | None:
    """The outcomes a run saved (``run_pytest``) in a kept work directory, or None."""
    if not path.exists():
        return None
    return {n: Outcome(**o) for n, o in json.loads(path.read_text()).items()}


def build(tree: lc.Tree, arch: str, nodes, work: pathlib.Path, timeout: float) -> dict:
    """The harness builds the variants' ELFs (``--compile-producer``) with the stand-in
    compiler into ``work/build-ARCH``. -> {node: Outcome} (a build failure fails its node)."""
    bdir = work / f"build-{arch}"
    bdir.mkdir(parents=True, exist_ok=True)
    # a path ending in .so: the harness then compiles for ttsim's ABI (-DTT_METAL_TTSIM)
    return run_pytest(tree, nodes, ["--compile-producer", "--no-debug-symbols"],
                      lambda ev: harness_env(arch, bdir, work / "lib" / "none.so", ev), work / f"build-{arch}.log",
                      timeout)


def run(tree: lc.Tree, arch: str, nodes, lib: pathlib.Path, tag: str, work: pathlib.Path,
        timeout: float, per_test: float, steps_per_clock: int | None = None) -> dict:
    """The harness runs the prebuilt variants (``--compile-consumer``) on ``lib``, one
    process for all (as on a device: BRISC booted once) until a library ends it;
    ``steps_per_clock``: ttemu's library retires that many instructions per core and
    ``libttsim_clock`` (``TTEMU_STEPS_PER_CLOCK``; the harness only polls, so fewer polls).
    -> {node: Outcome}."""
    def env(ev):
        e = harness_env(arch, work / f"build-{arch}", lib, ev)
        if steps_per_clock:
            e["TTEMU_STEPS_PER_CLOCK"] = str(steps_per_clock)
        return e

    return run_pytest(tree, nodes, ["--compile-consumer", f"--timeout={per_test:.0f}"], env,
                      work / f"run-{tag}-{arch}.log", timeout)


# -- the table ----------------------------------------------------------------------------------

@dataclass
class Row:
    entry: Entry
    arch: str
    nodes: list
    built: dict = field(default_factory=dict)  # node -> Outcome of the build
    ran: dict = field(default_factory=dict)  # library tag -> {node: Outcome}

    def passes(self, tag):
        res = self.ran.get(tag)
        if res is None:
            return None
        return sum(res.get(n, Outcome("not run")).state == "passed" for n in self.nodes)

    def seconds(self, tag):
        """Mean seconds per variant the harness spent on the library (setup, run, checks)."""
        res = self.ran.get(tag) or {}
        times = [res[n].seconds for n in self.nodes if n in res and res[n].state in ("passed", "failed")]
        return sum(times) / len(times) if times else None


def table(rows, tags, markdown=False):
    head = ["test", "arch", "variants", "built"] + [f"passes on {t}" for t in tags] + [f"s/variant {t}" for t in tags]
    body = []
    for r in rows:
        built = sum(r.built.get(n, Outcome("not run")).state in ("passed", "skipped") for n in r.nodes)
        cells = [r.entry.name, r.arch, str(len(r.nodes)), str(built)]
        cells += ["-" if r.passes(t) is None else f"{r.passes(t)}/{len(r.nodes)}" for t in tags]
        cells += ["-" if r.seconds(t) is None else f"{r.seconds(t):.1f}" for t in tags]
        body.append(cells)
    if len(rows) > 1:
        total = ["total", "", str(sum(len(r.nodes) for r in rows)), ""]
        total += [f"{sum(r.passes(t) or 0 for r in rows)}" for t in tags] + [""] * len(tags)
        body.append(total)
    if markdown:
        return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                         + ["| " + " | ".join(b) + " |" for b in body])
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    return "\n".join("  ".join(x[i].ljust(widths[i]) for i in range(len(head))).rstrip() for x in [head] + body)


def failures(rows, tags):
    """One line per variant that did not pass somewhere: where and why."""
    out = []
    for r in rows:
        for n in r.nodes:
            b = r.built.get(n, Outcome("not run"))
            if b.state not in ("passed", "skipped"):
                out.append(f"{r.arch} {n}: build {b.state}: {b.why}")
                continue
            for t in tags:
                o = r.ran.get(t, {}).get(n, Outcome("not run"))
                if o.state != "passed":
                    out.append(f"{r.arch} {t} {n}: {o.state}" + (f": {o.why}" if o.why else ""))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-t", dest="names", action="append", default=[], help="a catalogue entry (repeatable; --list)")
    ap.add_argument("--arch", action="append", choices=sorted(lc.TARGETS), help="default: wormhole_b0")
    ap.add_argument("--lib", action="append", help="ttemu, ttsim, or a .so with soc_descriptor.yaml beside it "
                    "(repeatable; default: ttemu and ttsim)")
    ap.add_argument("--ci", action="store_true", help="only the variants CI runs")
    ap.add_argument("--keep", help="work directory to keep (default: a temporary one)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--list", action="store_true", help="the catalogue's node ids")
    ap.add_argument("--timeout", type=float, default=600, help="seconds one variant may take (default 600)")
    ap.add_argument("--skip-build", action="store_true", help="run the ELFs a previous --keep run built in DIR")
    ap.add_argument("--report", action="store_true", help="only the table of what a previous --keep run saved in DIR")
    ap.add_argument("--steps-per-clock", type=int, help="instructions per core and clock on ttemu's library "
                    "(TTEMU_STEPS_PER_CLOCK; default: the library's, 1 as ttsim)")
    a = ap.parse_args(argv)
    archs = a.arch or ["wormhole_b0"]
    libs = a.lib or ["ttemu", "ttsim"]
    if a.list:
        for arch in archs:
            for e in entries(a.names, a.ci, arch):
                print("\n".join(f"{arch} {e.name} {n}" for n in e.nodes(a.ci)))
        return 0
    if a.report:
        if not a.keep:
            ap.error("--report needs --keep DIR")
        return report(pathlib.Path(a.keep), archs, libs, a)
    why = lc.missing() or missing_modules()
    if why:
        print(f"llk_harness: {why}", file=sys.stderr)
        return 2
    work = pathlib.Path(a.keep) if a.keep else pathlib.Path(tempfile.mkdtemp(prefix="ttemu-llk-harness-"))
    work.mkdir(parents=True, exist_ok=True)
    tree = lc.Tree(work)
    install_standin(tree)
    rows = []
    for arch in archs:
        es = entries(a.names, a.ci, arch)
        arch_rows = [Row(e, arch, e.nodes(a.ci)) for e in es]
        nodes = [n for r in arch_rows for n in r.nodes]
        t0 = time.perf_counter()
        built = (dict.fromkeys(nodes, Outcome("passed")) if a.skip_build
                 else build(tree, arch, nodes, work, a.timeout * len(nodes)))
        print(f"{arch}: built {len(nodes)} variants in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        for r in arch_rows:
            r.built = built
        ok = [n for n in nodes if built.get(n, Outcome("not run")).state in ("passed", "skipped")]
        for kind in libs:
            tag = kind if kind in ("ttemu", "ttsim") else pathlib.Path(kind).stem
            try:
                lib = library(kind, arch, work)
            except Unavailable as e:
                print(f"{arch}: {tag} unavailable: {e}", file=sys.stderr)
                continue
            t0 = time.perf_counter()
            res = run(tree, arch, ok, lib, tag, work, a.timeout * len(ok) + 120, a.timeout, a.steps_per_clock)
            print(f"{arch}: ran {len(ok)} variants on {tag} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
            for r in arch_rows:
                r.ran[tag] = res
        rows += arch_rows
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return summary(rows, a.markdown)


def report(work: pathlib.Path, archs, libs, a):
    """The table from the outcomes a kept run saved."""
    rows = []
    for arch in archs:
        arch_rows = [Row(e, arch, e.nodes(a.ci)) for e in entries(a.names, a.ci, arch)]
        built = saved(work / f"build-{arch}.json") or {}
        for r in arch_rows:
            r.built = built
            for kind in libs:
                tag = kind if kind in ("ttemu", "ttsim") else pathlib.Path(kind).stem
                ran = saved(work / f"run-{tag}-{arch}.json")
                if ran is not None:
                    r.ran[tag] = ran
        rows += arch_rows
    return summary(rows, a.markdown)


def summary(rows, markdown=False):
    """Print the table and what did not pass. -> the exit status."""
    tags = sorted({t for r in rows for t in r.ran}, key=lambda t: (t != "ttemu", t))
    print(table(rows, tags, markdown))
    bad = failures(rows, tags)
    if bad:
        print("\nnot passing:\n" + "\n".join(bad))
    passed = {t: {(r.arch, n) for r in rows for n in r.nodes if r.ran.get(t, {}).get(n, Outcome("")).state == "passed"}
              for t in tags}
    if len(tags) > 1 and "ttemu" in passed and "ttsim" in passed:
        return 1 if passed["ttsim"] - passed["ttemu"] else 0
    return 1 if bad or not tags else 0


if __name__ == "__main__":
    sys.exit(main())
