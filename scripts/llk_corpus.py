#!/usr/bin/env python3
"""tt-llk's own test kernels as a corpus: build them here with the stock RISC-V cross
compiler and compare ttemu with ttsim (and a numpy golden) on each.

    python scripts/llk_corpus.py                      # every variant, table on stdout
    python scripts/llk_corpus.py -k matmul_test       # kernels whose name contains a word
    python scripts/llk_corpus.py --ci                 # the variants CI runs
    python scripts/llk_corpus.py --slow               # also the ones that take minutes
    python scripts/llk_corpus.py --markdown           # the table as Markdown (docs/llk-corpus.md)
    python scripts/llk_corpus.py --keep DIR           # build and manifests under DIR
    python scripts/llk_corpus.py --arch blackhole     # built for Blackhole (tt_llk_blackhole)
    python scripts/llk_corpus.py --arch blackhole --inventory   # + what ttemu still needs

At run time, nothing is committed from tt-llk: the script

1. extracts tt-llk and tt-metal ``hw/`` from ``../shared/third_party/`` into a
   temporary directory;
2. applies :data:`ADAPTATIONS` (substitutions in that copy) and writes :data:`SHIMS`
   (three small headers of our own) for Debian's ``riscv64-unknown-elf-g++`` 12 with
   picolibc and ``libstdc++-12-dev-riscv64-cross``, in place of Tenstorrent's SFPI
   compiler;
3. writes each variant's ``build.h`` the way tt-llk's python harness does
   (``tests/python_tests/helpers/test_config.py``: template constants, the
   ``FormatConfig``/``RuntimeParams`` structs, runtime formats) and the matching
   runtime-argument words for L1 0x20000;
4. compiles ``brisc.elf`` (tests/helpers/src/brisc.cpp) once and the three TRISC ELFs
   per variant with the harness's flags for the chip (:class:`Target`; ``-mcpu=tt-wh*``
   becomes ``-march=rv32im``, ``-mcpu=tt-bh*`` ``-march=rv32im_zicsr``;
   ``-ftt-*`` and ``-mno-tt-fix-whbhebreak`` are dropped; ``-DTT_METAL_TTSIM`` as the
   harness passes for a simulator target);
5. writes a manifest per variant (inputs at the harness's stimulus addresses, the
   runtime arguments, the TRISC start PCs as the chip's host writes them, the BRISC
   command handshake as a ``when`` write, the three mailboxes as the done condition, the
   result as an ``[[expect]]`` with a numpy reference) and runs it with ``ttemu run
   --oracle``; for Blackhole (or ``--split``) ttsim and ttemu each on their own
   (:func:`run_split`), ttsim's result checked against the golden too.

Exit status: 0 when every variant that was built matches ttsim where ttsim
completed (and, split, ttsim and ttemu match the golden where they complete; a ttemu
stop is not a failure), 1 otherwise, 2 when the shared sources or the compiler are
missing.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import io
import json
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field, replace

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("TTEMU_SHARED", ROOT.parent / "shared"))
TARBALLS = ("tt-llk-from-ttnn-0.81.1.tar.gz", "tt-metal-hw-from-ttnn-0.81.1.tar.gz")
CXX = "riscv64-unknown-elf-g++"
PICOLIBC = pathlib.Path("/usr/lib/picolibc/riscv64-unknown-elf")
LIBSTDCXX = pathlib.Path("/usr/riscv64-linux-gnu/include/c++/12")
LIBC_DIR = PICOLIBC / "lib/release/rv32im/ilp32"

# -- build-time adaptations -----------------------------------------------------------------

#: (file in the extracted tree, text, replacement, why). Each must match exactly once.
ADAPTATIONS = [
    (f"tt-llk/{root}/common/inc/ckernel_ops.h", old, new, why)
    for root, ext in (("tt_llk_wormhole_b0", "wh"), ("tt_llk_blackhole", "bh"))
    for old, new, why in [
        (f"#if __riscv_xtttensix{ext} || (__clang__",
         f"#if __riscv_xtttensix{ext} || defined(COMPILE_FOR_TRISC) || (__clang__",
         "TRISC code takes the Tensix branch (TTI_ as an instruction word, TT_ as a store to "
         f"instrn_buffer) although the stock compiler does not define __riscv_xtttensix{ext}"),
        ('".ttinsn %0" ::"n"(unsigned(ENCODING))',
         '".4byte %0" ::"n"(unsigned((((ENCODING) >> 30) & 3) | (((ENCODING) & 0x3fffffff) << 2)))',
         "stock binutils has no .ttinsn: the header's own BRISC form, the word rotated left by 2"),
    ]
]

#: headers of our own, first on the system include path
SHIMS = {
    # picolibc has no features.h macro that libstdc++'s riscv64-linux-gnu config asks for
    "features.h": "#pragma once\n#define __GLIBC_PREREQ(maj, min) 0\n",
    # tt-llk includes the SFPI compiler's header from non-SFPU code that uses none of it but
    # (Blackhole's ckernel_sfpu_load_config.h) one SFPLOADI mode, valued as SFPLOADI.md defines it
    "sfpi.h": "#pragma once\n/* non-SFPU kernels include sfpi.h but use none of it */\n"
              "namespace sfpi { constexpr unsigned SFPLOADI_MOD0_FLOATB = 0; }\n",
    # the SFPI compiler's replay-buffer helpers, as REPLAY instruction words (REPLAY.md:
    # Index bits 14+, Count bits 4+, Exec bit 1, Load bit 0) pushed like a TT_ store
    "lltt.h": """#pragma once
#include <cstdint>
extern volatile std::uint32_t __instrn_buffer[];
namespace lltt {
enum ExecBool : bool { NoExec, Exec };
constexpr std::uint32_t replay_insn(unsigned start, unsigned length)
{ return (0x04u << 24) | (start << 14) | (length << 4); }
inline void push_(std::uint32_t w) { asm volatile("sw %0, 0(%1)" ::"r"(w), "r"(__instrn_buffer) : "memory"); }
template <ExecBool E = NoExec> inline void record(unsigned start, unsigned length)
{ push_(replay_insn(start, length) | (unsigned(E) << 1) | 1u); }
inline void replay(unsigned start, unsigned length) { push_(replay_insn(start, length)); }
}
""",
}

#: the harness's compile options (test_config.py) for the stock compiler
OPTIONS_ALL = ["-O3", "-std=c++17", "-ffast-math", "-fno-finite-math-only", "-fsigned-zeros",
               "-fno-associative-math", "-fno-exceptions", "-fno-rtti", "-fno-use-cxa-atexit"]
OPTIONS_LINK = ["-nostdlib", "-nostartfiles", "-Wl,-z,max-page-size=16", "-Wl,-z,common-page-size=16"]
#: what the stock compiler needs that the SFPI compiler does not
STOCK_WARNINGS = ["-Wno-attributes"]  # rvtt_l1_ptr / rvtt_reg_ptr are SFPI-compiler attributes
WARNINGS = ["-Wall", "-Werror", "-Wno-error=deprecated-declarations", "-Wunused-parameter",
            "-Wfloat-equal", "-Wpointer-arith", "-Wnull-dereference", "-Wredundant-decls",
            "-Wuninitialized", "-Wmaybe-uninitialized", *STOCK_WARNINGS]
#: picolibc's rv32 uint32_t is ``long unsigned int``; tt-llk is written for the SFPI
#: toolchain's ``unsigned int`` (overloads and -Werror=sign-compare depend on it)
TYPE_FIXES = ["-U__INT32_TYPE__", "-D__INT32_TYPE__=int", "-U__UINT32_TYPE__", "-D__UINT32_TYPE__=unsigned int",
              "-U__INT_LEAST32_TYPE__", "-D__INT_LEAST32_TYPE__=int", "-U__UINT_LEAST32_TYPE__",
              "-D__UINT_LEAST32_TYPE__=unsigned int"]
DEFINES = ["-DTENSIX_FIRMWARE", "-DENV_LLK_INFRA", "-DKERNEL_BUILD", "-DENABLE_LLK_ASSERT",
           "-DLLK_BOOT_MODE_BRISC", "-DTT_METAL_TTSIM", "-DLLK_PERF_L1_MUX_GROUP=0"]
INCLUDES = ["../common", "../tools/include", "../../hw/inc", "firmware/riscv/common", "helpers/include",
            "../../hostdevcommon/api"]
COMPONENTS = ("unpack", "math", "pack")

# -- harness facts (tests/python_tests/helpers, tests/helpers) ---------------------------------

RUNTIME_ARGS = 0x20000
STIMULI = 0x21000  # StimuliConfig.STIMULI_L1_ADDRESS_PERF
TRISC_START = 0x16DFF0  # boot.h TRISC_START_BASE
MAILBOXES = 0x1FFB8  # unpack, math, pack; +12/+16 command slots, +20 counter
BOOT_READY = 0xB001CAFE  # brisc.cpp BRISC_BOOT_READY_SENTINEL
START_TRISCS = 1
UPDATE_START_ADDR_CACHE_AND_START = 3
KERNEL_COMPLETE = 0xFF
#: Blackhole's TRISC reset-PC registers (tensix.h RISCV_DEBUG_REG_TRISC0_RESET_PC, +4 per TRISC)
#: and their override enables (RISCV_DEBUG_REG_TRISC_RESET_PC_OVERRIDE, bit i for TRISC i)
BH_TRISC_RESET_PC = 0xFFB12228
BH_TRISC_RESET_PC_OVERRIDE = 0xFFB12234


@dataclass(frozen=True)
class Target:
    """What the harness does differently per chip (test_config.py setup_arch and
    setup_compilation_options, the memory.<arch>.ld layout, device.py's start)."""
    arch: str  # ttemu's name
    llk_root: str  # ARCH_LLK_ROOT
    define: str  # ARCH_DEFINE
    hw_includes: tuple  # hw_specific_includes
    memory_ld: str
    ttsim: str  # ttsim's library for the chip
    march: str  # -mcpu=tt-wh / tt-bh for the stock compiler

    # how the host starts the TRISCs: it writes each ELF's entry at ``start_pcs`` (Wormhole:
    # TRISC_START_BASE, which BRISC copies to the reset-PC config registers on command
    # UPDATE_START_ADDR_CACHE_AND_START; Blackhole: tt-exalens' load_elf writes the reset-PC
    # registers and sets their override bits, set_code_start_address), then sends ``command``
    start_pcs: int
    start_note: str
    override: tuple | None  # (address, value) written with the PCs
    command: int

    def includes(self):
        r = f"../{self.llk_root}"
        return [f"{r}/llk_lib", f"{r}/llk_lib/hal", f"{r}/common/inc", f"{r}/common/inc/sfpu", *INCLUDES,
                *self.hw_includes]

    def start(self, entries):
        """-> the manifest lines writing the TRISC start PCs."""
        lines = [f"[[write]]  # {self.start_note}", f"addr = 0x{self.start_pcs:x}",
                 f"values = [{', '.join(f'0x{e:x}' for e in entries)}]"]
        if self.override:
            lines += ["", "[[write]]  # ... and their reset-PC override bits", f"addr = 0x{self.override[0]:x}",
                      f"value = 0x{self.override[1]:x}"]
        return lines


TARGETS = {
    "wormhole_b0": Target("wormhole_b0", "tt_llk_wormhole_b0", "-DARCH_WORMHOLE",
                          ("../../hw/inc/internal/tt-1xx/wormhole", "../../hw/inc/internal/tt-1xx/wormhole/wormhole_b0_defines",
                           "../../hw/ckernels/wormhole_b0/metal/llk_api",
                           "../../hw/ckernels/wormhole_b0/metal/llk_api/llk_sfpu"),
                          "memory.wormhole.ld", "libttsim_wh.so", "rv32im", TRISC_START,
                          "TRISC start PCs for BRISC's UPDATE_START_ADDR_CACHE_AND_START", None,
                          UPDATE_START_ADDR_CACHE_AND_START),
    "blackhole": Target("blackhole", "tt_llk_blackhole", "-DARCH_BLACKHOLE",
                        ("../../hw/inc/internal/tt-1xx/blackhole", "../../hw/ckernels/blackhole/metal/llk_api",
                         "../../hw/ckernels/blackhole/metal/llk_api/llk_sfpu"),
                        # boot.h's configure_gathering writes the cfg0 CSR (0x7C0) on Blackhole
                        "memory.blackhole.ld", "libttsim_bh.so", "rv32im_zicsr", BH_TRISC_RESET_PC,
                        "TRISC reset PCs, as tt-exalens' load_elf sets them", (BH_TRISC_RESET_PC_OVERRIDE, 0x7),
                        START_TRISCS),
}


@dataclass(frozen=True)
class Fmt:
    name: str  # tt-llk DataFormat
    enum: int  # WORMHOLE_DATA_FORMAT_ENUM_VALUES
    tile_bytes: int  # format_tile_sizes
    manifest: str | None  # ttemu's name (None: register-only)
    exp_b: bool
    size16: int  # TILE_SIZES (16-byte units) as the harness passes them

    @property
    def is32(self):
        return self.name in ("Float32", "Int32", "Tf32")


F = {f.name: f for f in [
    Fmt("Float32", 0, 4096, "fp32", True, 256),
    Fmt("Float16", 1, 2048, "fp16", False, 128),
    Fmt("Tf32", 4, 3072, None, True, 128),
    Fmt("Float16_b", 5, 2048, "bf16", True, 128),
    Fmt("Bfp8_b", 6, 1088, "bfp8_b", True, 68),
    Fmt("Int32", 8, 4096, "int32", False, 128),
]}


@dataclass
class Formats:
    """tt-llk's FormatConfig, from data_format_inference.infer_data_formats (the cases used here)."""
    unpack_A_src: Fmt
    unpack_B_src: Fmt
    unpack_A_dst: Fmt
    unpack_B_dst: Fmt
    math: Fmt
    pack_src: Fmt
    pack_dst: Fmt

    def words(self):
        a, b = self.unpack_A_src, self.unpack_B_src
        return [e.enum for e in (a, b, a, self.unpack_A_dst, self.unpack_B_dst, self.unpack_A_dst, self.math,
                                 self.math, self.math, self.pack_src, self.pack_dst, self.pack_src, self.pack_dst)]


def _unpack_out(inp: Fmt, out: Fmt, acc: bool, to_dest: bool) -> Fmt:
    if inp.name == "Float32" and not to_dest:
        return F["Tf32"] if acc else (F["Float16_b"] if out.exp_b else F["Float16"])
    return inp


def outlier(inp: Fmt, out: Fmt, acc: bool) -> bool:
    """is_format_combination_outlier: an exponent-B input packed to Float16 needs a 32-bit Dst."""
    return inp.exp_b and inp.name != "Float32" and out.name == "Float16" and not acc


def infer_formats(inp: Fmt, out: Fmt, acc: bool, to_dest=False, inp_b: Fmt | None = None,
                  wormhole=True) -> Formats:
    """``wormhole``: Wormhole's packer gasket cannot convert FP32 Dst datums to Float16, so the
    packer takes Float32 (on Blackhole the gasket converts: pack_src is the output format)."""
    ua = _unpack_out(inp, out, acc, to_dest)
    ub = ua if inp_b is None else _unpack_out(inp_b, out, acc, to_dest)
    math = ua
    if wormhole and acc and out.name == "Float16":
        pack = F["Float32"]
    elif ua.name == "Float32" and not to_dest:
        pack = out if (acc or out.exp_b and out.name != "Float32") else ua
    elif ua.name == "Float16" and out.name == "Bfp8_b" and not acc:
        pack = F["Bfp8_b"]  # harness: Bfp8 (not modelled here)
    elif outlier(ua, out, acc):
        pack = F["Float32"] if wormhole else out
    else:
        pack = out if acc else ua
    return Formats(inp, inp_b or inp, ua, ub, math, pack, out)


# -- variants ----------------------------------------------------------------------------------

#: the harness's parameter names and their C++ types (test_variant_parameters.py); a
#: parameter the kernel reads as ``params.NAME`` goes in RuntimeParams, any other it
#: names becomes a ``constexpr`` in build.h, as the test's python file would put it
TYPES = {
    **dict.fromkeys("FULL_RT_DIM FULL_CT_DIM BLOCK_CT_DIM BLOCK_RT_DIM LOOP_FACTOR TILE_CNT NUM_TILES_IN_BLOCK "
                    "INPUT_NUM_TILES_IN_BLOCK OUTPUT_NUM_TILES_IN_BLOCK num_faces num_faces_A num_faces_B "
                    "TEST_FACE_R_DIM TEST_FACE_C_DIM CT_DIM RT_DIM KT_DIM NUM_ROWS_TO_PACK in0_tile_r_dim "
                    "in0_tile_c_dim in1_tile_r_dim in1_tile_c_dim NUM_GUARD_TILES TILE_DST_CT_OFFSET "
                    "REDUCE_BLOCK_CT_DIM".split(), "std::uint32_t"),
    **dict.fromkeys("REINIT_MODE CLOBBER_OP".split(), "int"),
    **dict.fromkeys("USE_RUNTIME RESPECT_TRIGGER OVERLAP_FIRST_HALF".split(), "bool"),
    **dict.fromkeys("DST_INDEX NUM_BLOCKS INPUT_NUM_BLOCKS OUTPUT_NUM_BLOCKS num_faces_r_dim_A num_faces_r_dim_B "
                    "num_faces_c_dim_A num_faces_c_dim_B in0_face_r_dim in0_face_c_dim in1_face_r_dim "
                    "in1_face_c_dim INPUT_TILE_CNT OUTPUT_TILE_CNT RELU_CONFIG SRCA_REUSE_COUNT THROTTLE_LEVEL".split(),
                    "int"),
    **dict.fromkeys("UNPACK_TRANSPOSE_FACES UNPACK_TRANSPOSE_WITHIN_FACE IS_REDUCE_TO_ONE PARTIAL_FACE_A "
                    "PARTIAL_FACE_B PARTIAL_FACE_MATH PARTIAL_FACE_PACK NARROW_TILE MATH_TRANSPOSE_FACES "
                    "ACC_TO_DEST tilize_en".split(), "bool"),
}


def default_params(shape, acc):
    """Values for every parameter, from the input shape (rows, cols) and Dst width."""
    rt, ct = shape[0] // 32, shape[1] // 32
    tiles = rt * ct
    nb, per = split_blocks(tiles, acc)
    return dict(
        FULL_RT_DIM=rt, FULL_CT_DIM=ct, BLOCK_CT_DIM=ct, BLOCK_RT_DIM=rt, LOOP_FACTOR=1, TILE_CNT=tiles,
        NUM_BLOCKS=nb, INPUT_NUM_BLOCKS=nb, OUTPUT_NUM_BLOCKS=nb, NUM_TILES_IN_BLOCK=per,
        INPUT_NUM_TILES_IN_BLOCK=per, OUTPUT_NUM_TILES_IN_BLOCK=per, num_faces=4, num_faces_A=4, num_faces_B=4,
        num_faces_r_dim_A=2, num_faces_r_dim_B=2, num_faces_c_dim_A=2, num_faces_c_dim_B=2,
        TEST_FACE_R_DIM=16, TEST_FACE_C_DIM=16, in0_face_r_dim=16, in0_face_c_dim=16, in1_face_r_dim=16,
        in1_face_c_dim=16, in0_tile_r_dim=32, in0_tile_c_dim=32, in1_tile_r_dim=32, in1_tile_c_dim=32,
        DST_INDEX=0, INPUT_TILE_CNT=tiles, OUTPUT_TILE_CNT=tiles, RELU_CONFIG=0, THROTTLE_LEVEL=0,
        UNPACK_TRANSPOSE_FACES=False, UNPACK_TRANSPOSE_WITHIN_FACE=False, IS_REDUCE_TO_ONE=False,
        PARTIAL_FACE_A=False, PARTIAL_FACE_B=False, PARTIAL_FACE_MATH=False, PARTIAL_FACE_PACK=False,
        NARROW_TILE=False, MATH_TRANSPOSE_FACES=False, ACC_TO_DEST=False, tilize_en=False, TILE_DST_CT_OFFSET=0,
        MATH_FIDELITY="ckernel::MathFidelity::LoFi", dest_sync="ckernel::DstSync::SyncHalf",
        BROADCAST_TYPE="ckernel::BroadcastType::NONE",
        REUSE_DEST_TYPE="ckernel::EltwiseBinaryReuseDestType::NONE", STOCHASTIC_RND="ckernel::StochRndType::None",
        PERF_RUN_TYPE="PerfRunType::L1_TO_L1", RT_DIM=rt, KT_DIM=ct, CT_DIM=1, NUM_ROWS_TO_PACK=32,
        SRCA_REUSE_COUNT=4, REDUCE_BLOCK_CT_DIM=ct, REINIT_MODE=0, CLOBBER_OP=0, USE_RUNTIME=False,
        RESPECT_TRIGGER=False, OVERLAP_FIRST_HALF=False, ELTWISE_BINARY_OP="ckernel::EltwiseBinaryType::ELWADD", REDUCE_DIM="ckernel::ReduceDim::REDUCE_ROW", POOL_TYPE="ckernel::PoolType::SUM",
    )


@dataclass
class Variant:
    kernel: str  # tests/sources/<kernel>.cpp
    label: str  # formats and options, for the table
    inp: Fmt
    out: Fmt
    acc: bool
    a_shape: tuple
    params: dict = field(default_factory=dict)  # overrides of default_params
    b_shape: tuple | None = None  # None: same as A
    res_tiles: int | None = None  # None: as many as A
    inp_b: Fmt | None = None
    to_dest: bool = False
    reference: str | None = None  # numpy expression over a, b (None: ttsim only)
    ref_shape: tuple | None = None
    a_range: tuple = (-1.0, 1.0)
    b_range: tuple = (-1.0, 1.0)
    a_generate: str = "uniform"
    b_generate: str = "uniform"
    b_values: list | None = None  # explicit B (row-major numbers) instead of b_generate
    atol: float | None = None
    rtol: float | None = None
    slow: bool = False  # minutes, not seconds: only with --slow
    self_check: bool = False  # no golden: the kernel checks itself with LLK_ASSERT (ebreak)
    iterations: int = 1  # L1_to_L1_iterations: one FormatConfig per fused L1-to-L1 run
    ci: bool = False
    max_steps: int = 30_000_000
    arch: str = "wormhole_b0"

    @property
    def target(self):
        return TARGETS[self.arch]

    @property
    def name(self):
        return f"{self.kernel}-{self.label}"

    def dest_acc(self):
        return self.acc or outlier(self.inp, self.out, self.acc)

    def formats(self):
        return infer_formats(self.inp, self.out, self.dest_acc(), self.to_dest, self.inp_b, self.wormhole)

    @property
    def wormhole(self):
        return self.arch == "wormhole_b0"

    def all_params(self):
        p = default_params(self.a_shape, self.dest_acc())
        p.update(self.params)
        return p

    # stimuli layout (StimuliConfig._calculate_tile_sizes)
    @staticmethod
    def tiles(shape):
        return shape[0] // 32 * (shape[1] // 32)

    def layout(self):
        a_tiles = self.tiles(self.a_shape)
        b_shape = self.b_shape or self.a_shape
        b_fmt = self.inp_b or self.inp
        b_tiles = self.tiles(b_shape)
        buf_a = STIMULI
        buf_b = buf_a + self.inp.tile_bytes * a_tiles
        res = buf_b + b_fmt.tile_bytes * b_tiles
        return dict(a=(buf_a, self.inp.tile_bytes, a_tiles), b=(buf_b, b_fmt.tile_bytes, b_tiles),
                    res=(res, self.out.tile_bytes, self.res_tiles or a_tiles))

    def split(self, source: str):
        """-> (runtime names, template names) the kernel source uses, in a fixed order."""
        runtime = set(re.findall(r"params\.(\w+)", source))
        words = set(re.findall(r"\b\w+\b", source))
        words -= set(re.findall(r"(?:int|uint32_t|auto|bool)\s+(\w+)\s*[=;({]", source))  # its own
        words -= set(re.findall(r"constexpr[^;=(]*?\b(\w+)\s*=", source))
        p = self.all_params()
        return ([n for n in p if n in runtime], [n for n in p if n in words and n not in runtime])

    def runtime_struct(self, source: str):
        """-> (the RuntimeParams lines of build.h, the words at 0x20000), in the harness's
        order: tile sizes, FormatConfig, buffer_A/B/Res operands, the test's runtimes."""
        lay = self.layout()
        fields = [("std::uint32_t", "TILE_SIZE_PACK", self.out.size16),
                  ("std::uint32_t", "TILE_SIZE_UNPACK_A", self.inp.size16),
                  ("std::uint32_t", "TILE_SIZE_UNPACK_B", (self.inp_b or self.inp).size16)]
        lines = [f"{t} {n};" for t, n, _ in fields]
        fmt = "@III"
        values = [v for _, _, v in fields]
        n = self.iterations
        lines.append("FormatConfig formats;" if n == 1 else f"FormatConfig formats[{n}];")
        fmt += "I" * 13 * n
        # data_formats(): the runs before the last convert input -> input, the last input -> output
        values += infer_formats(self.inp, self.inp, self.dest_acc(), self.to_dest, self.inp_b,
                                self.wormhole).words() * (n - 1)
        values += self.formats().words()
        for op in ("a", "b", "res"):
            lines.append(f"Operand buffer_{'Res' if op == 'res' else op.upper()};")
            fmt += "II"
            values += [lay[op][0], lay[op][1]]
        codes = {"std::uint32_t": "I", "int": "i", "bool": "?"}
        p = self.all_params()
        for name in self.split(source)[0]:
            ctype = TYPES[name]
            lines.append(f"{ctype} {name};")
            fmt += codes[ctype]
            values.append(p[name])
        blob = struct.pack(fmt, *values)
        blob += b"\0" * (-len(blob) % 4)
        return lines, list(struct.unpack(f"<{len(blob) // 4}I", blob))

    def build_h(self, source: str):
        lines, _ = self.runtime_struct(source)
        p = self.all_params()
        consts = []
        for name in self.split(source)[1]:
            value = p[name]
            if isinstance(value, str):
                consts.append(f"constexpr auto {name} = {value};")
            elif isinstance(value, bool):
                consts.append(f"constexpr bool {name} = {str(value).lower()};")
            else:
                consts.append(f"constexpr {TYPES[name]} {name} = {value};")
        return "\n".join([
            "// build.h for ttemu's tt-llk corpus (scripts/llk_corpus.py), as tt-llk's harness writes it",
            "#pragma once", "", "#include <array>", "#include <type_traits>", "",
            '#include "operand.h"', '#include "llk_defs.h"', '#include "llk_sfpu_types.h"', '#include "perf.h"',
            '#include "tensix_types.h"',
            "#define RUNTIME_PARAMETERS  [[maybe_unused]] const struct RuntimeParams&",
            "constexpr bool l1_acc_en = false;",
            f"constexpr bool unpack_to_dest = {str(self.to_dest).lower()};",
            "struct FormatConfig", "{",
            *[f"    std::uint32_t {n} = 0;" for n in FORMAT_FIELDS], "};",
            f"constexpr bool is_fp32_dest_acc_en = {str(self.dest_acc()).lower()};",
            *consts,
            "// Struct containing runtime parameter layout", "struct RuntimeParams {", *lines, "};", ""])


FORMAT_FIELDS = ["unpack_A_src", "unpack_B_src", "unpack_S_src", "unpack_A_dst", "unpack_B_dst", "unpack_S_dst",
                 "math", "sfpu_src", "sfpu_dst", "pack_src", "pack_dst", "pack_S_src", "pack_S_dst"]


def fid(name):
    return f"ckernel::MathFidelity::{name}"


def dest_capacity(acc):
    """Tiles per Dst half (SyncHalf): 8 for 16-bit Dst, 4 for 32-bit."""
    return 4 if acc else 8


def split_blocks(tiles, acc):
    cap = dest_capacity(acc)
    per = min(tiles, cap)
    while tiles % per:
        per -= 1
    return tiles // per, per


# -- the catalogue -----------------------------------------------------------------------------

def V(kernel, inp, out, acc=False, shape=(32, 64), label="", **kw):
    """A variant named by its formats (and ``label``)."""
    name = f"{inp}->{out}{'-fp32acc' if acc else ''}{'-' + label if label else ''}"
    return Variant(kernel, name, F[inp], F[out], acc, shape, **kw)


def catalogue(arch="wormhole_b0"):
    """The variants for ``arch``: Blackhole runs the Wormhole set (the same kernels, built
    with tt_llk_blackhole) and the kernels only Blackhole's headers have."""
    common = [replace(v, arch=arch, ci=v.name in BH_CI if arch == "blackhole" else v.ci) for v in _common()
              if arch == "wormhole_b0" or v.kernel not in WORMHOLE_ONLY]
    return common + ([replace(v, arch=arch, ci=v.name in BH_CI) for v in _blackhole_only()]
                     if arch == "blackhole" else [])


#: kernels the harness skips on Blackhole (skip_for_blackhole) whose LLK calls only Wormhole has
#: (test_unpack_a_bcast_eltwise: _llk_unpack_bcastA_B_)
WORMHOLE_ONLY = {"unpack_a_bcast_eltwise_test"}

#: the Blackhole variants CI runs (those ttemu completes, bit-identical to ttsim)
BH_CI = {
    "eltwise_unary_datacopy_test-Float16_b->Float16_b", "eltwise_unary_datacopy_test-Float16->Float16",
    "transpose_dest_test-Float32->Float32-fp32acc", "eltwise_binary_test-Float16_b->Float16_b-elwadd",
    "matmul_test-Float16_b->Float32-fp32acc-HiFi4-2x2x2",
    "unpack_reduce_col_tilizeA_strided_test-Float16_b->Float16_b-COL-MAX-4tiles",
    "eltwise_mul_scalar_block_test-Float16_b->Float32-fp32acc-block3-dst1-SyncHalf",
    "pack_untilize_test-Float16_b->Float16_b",
}


def _blackhole_only():
    """Kernels whose LLK headers exist only for Blackhole (their python tests skip Wormhole)."""
    scalars = [1.5, -0.5, 0.0, 2.0]
    return [
        # experimental/llk_unpack_A_custom.h + llk_math_eltwise_unary_datacopy_custom.h
        # (test_unary_datacopy_custom: 128 x 256, Float16_b, 16-bit Dst)
        V("eltwise_unary_datacopy_custom_test", "Float16_b", "Float16_b", shape=(128, 256), reference="a"),
        # one SrcB scalar (datum 0 of each B tile; the rest -17, poison) multiplies a block of
        # A tiles; products exact in either Dst width (test_eltwise_mul_scalar_block)
        *[V("eltwise_mul_scalar_block_test", "Float16_b", "Float32", acc, shape=(32, 32 * 4 * bs),
            label=f"block{bs}-dst{dst}-{sync}", b_shape=(32, 128),
            b_values=[scalars[c // 32] if r == 0 and c % 32 == 0 else -17.0 for r in range(32) for c in range(128)],
            a_generate="randint", a_range=(-31, 31), atol=0, rtol=0,
            reference=f"(a.reshape(32, 4, {32 * bs}) * np.array({scalars})[None, :, None]).reshape(32, {128 * bs})",
            params=dict(NUM_BLOCKS=4, NUM_TILES_IN_BLOCK=bs, DST_INDEX=dst, TILE_CNT=4 * bs,
                        dest_sync=f"ckernel::DstSync::{sync}"))
          for bs, dst, acc, sync in [(1, 0, False, "SyncHalf"), (3, 1, True, "SyncHalf"), (4, 0, False, "SyncFull")]],
        # experimental/llk_{unpack,math,pack}_hw_cleanup.h: a datacopy of one tile, the three
        # threads' teardown rendezvous, a pack re-init, the pack (test_hw_cleanup: identity)
        V("hw_cleanup_test", "Float16_b", "Float16_b", shape=(32, 32), reference="a"),
    ]


def _common():
    dc = "eltwise_unary_datacopy_test"
    eb = "eltwise_binary_test"
    mm = "matmul_test"
    return [
        V(dc, "Float16_b", "Float16_b", shape=(64, 64), reference="a", ci=True),
        V(dc, "Float16", "Float16", shape=(64, 64), reference="a"),
        V(dc, "Float32", "Float32", True, shape=(64, 64), reference="a", to_dest=True, ci=True),
        V(dc, "Bfp8_b", "Float16_b", shape=(64, 64), reference="a", ci=True),
        *[V(dc, i, o, acc, shape=shape, reference="a") for i, o, acc, shape in
          [("Float16_b", "Bfp8_b", False, (32, 256)), ("Float32", "Float16", False, (64, 64)),
           ("Float16", "Float32", False, (64, 64)), ("Bfp8_b", "Float32", True, (32, 256))]],
        V(eb, "Float16_b", "Float16_b", label="elwadd", reference="a + b", ci=True,
          params=dict(ELTWISE_BINARY_OP="ckernel::EltwiseBinaryType::ELWADD")),
        V(eb, "Float16", "Float16", label="elwsub", reference="a - b", ci=True,
          params=dict(ELTWISE_BINARY_OP="ckernel::EltwiseBinaryType::ELWSUB")),
        V(eb, "Float16_b", "Float16_b", label="elwmul-HiFi4", reference="a * b", ci=True,
          params=dict(ELTWISE_BINARY_OP="ckernel::EltwiseBinaryType::ELWMUL", MATH_FIDELITY=fid("HiFi4"))),
        V(eb, "Float16_b", "Float16_b", label="elwmul-LoFi", reference=ELWMUL_LOFI_BF16,
          params=dict(ELTWISE_BINARY_OP="ckernel::EltwiseBinaryType::ELWMUL")),
        *[V(mm, i, o, acc, shape=(32 * rt, 32 * kt), label=f"{f}-{rt}x{kt}x{ct}", b_shape=(32 * kt, 32 * ct),
            res_tiles=rt * ct, reference="a @ b", ref_shape=(32 * rt, 32 * ct), rtol=0.05, atol=0.1, ci=ci,
            params=dict(MATH_FIDELITY=fid(f), TILE_CNT=rt * ct, RT_DIM=rt, CT_DIM=ct, KT_DIM=kt))
          for i, o, acc, f, rt, kt, ct, ci in [("Float16_b", "Float16_b", False, "HiFi4", 1, 2, 1, True),
                                               ("Float16", "Float16", False, "HiFi2", 1, 2, 1, True),
                                               ("Float16_b", "Float32", True, "HiFi4", 2, 2, 2, True),
                                               ("Float16_b", "Float16_b", False, "HiFi3", 2, 3, 2, False),
                                               ("Float16", "Float16", True, "HiFi4", 1, 4, 3, False)]],
        # experimental/llk_math_matmul_custom_no_mop.h (test_matmul_custom: inputs in [0, 1))
        *[V("matmul_custom_test", i, o, acc, shape=(32 * rt, 32 * kt), label=f"{f}-{rt}x{kt}x{ct}",
            b_shape=(32 * kt, 32 * ct), res_tiles=rt * ct, reference="a @ b", ref_shape=(32 * rt, 32 * ct),
            rtol=0.05, atol=0.1, a_range=(0.0, 1.0), b_range=(0.0, 1.0),
            params=dict(MATH_FIDELITY=fid(f), TILE_CNT=rt * ct, RT_DIM=rt, CT_DIM=ct, KT_DIM=kt))
          for i, o, acc, f, rt, kt, ct in [("Float16_b", "Float16_b", False, "HiFi4", 1, 2, 2),
                                           ("Float16", "Float32", True, "HiFi2", 2, 1, 2)]],
        *[V("reduce_test", i, o, False, shape=(256, 32), label=f"{dim}-{pool}", b_shape=(32, 32), b_generate="ones",
            ci=ci, reference=reduce_ref(dim, pool, 8), atol=tol[0], rtol=tol[1], params=dict(REDUCE_DIM=f"ckernel::ReduceDim::REDUCE_{dim}", POOL_TYPE=f"ckernel::PoolType::{pool}",
                               MATH_FIDELITY=fid("HiFi4")))
          for i, o, dim, pool, ci, tol in [("Float16_b", "Float16_b", "ROW", "SUM", True, SUM32_BF16),
                                           ("Float16_b", "Float16_b", "COL", "MAX", True, (0, 0)),
                                           ("Float16", "Float16", "SCALAR", "SUM", False, (0.1, 0.01)),
                                           ("Bfp8_b", "Float16_b", "COL", "SUM", False, SUM32_BF16)]],
        *[V("transpose_dest_test", i, o, acc, shape=(32, 64), reference=TRANSPOSE, ci=ci, to_dest=td,
            params=dict(MATH_TRANSPOSE_FACES=True))
          for i, o, acc, td, ci in [("Float16_b", "Float16_b", False, False, True), ("Float16", "Float16", False, False, False),
                                    ("Float32", "Float32", True, True, False)]],
        *[V("unpack_tilize_test", i, o, shape=(32, 64), ci=ci, reference=TILIZE) for i, o, ci in
          [("Float16_b", "Float16_b", True), ("Float16", "Float16", False), ("Float32", "Float16_b", False)]],
        *[V("unpack_tilize_sweep_test", i, o, shape=(64, 64), atol=0, rtol=0,
            reference="a.reshape(2, 2, 16, 2, 2, 16).transpose(0, 3, 1, 4, 2, 5).reshape(64, 64)") for i, o in
          [("Float16_b", "Float16_b"), ("Float16", "Float16")]],
        *[V("pack_untilize_test", i, o, shape=(32, 64), ci=ci, reference=UNTILIZE) for i, o, ci in
          [("Float16_b", "Float16_b", True), ("Float16", "Float16", False), ("Float16_b", "Float32", False)]],
        *[V("pack_test", i, o, acc, shape=(32, 64), reference="a", ci=ci) for i, o, acc, ci in
          [("Float16_b", "Float16_b", False, False), ("Float16", "Float16", False, False),
           ("Float16_b", "Bfp8_b", False, True), ("Float32", "Float16_b", True, False)]],
        # the first n 16-datum rows of each tile (PackRowsGolden); the rest of the output stays as it was (0)
        *[V("pack_rows_test", i, o, shape=(32, 64), label=f"{n}rows", params=dict(NUM_ROWS_TO_PACK=n),
            reference=PACK_ROWS.format(n=n), atol=0, rtol=0) for i, o, n in
          [("Float16_b", "Float16_b", 16), ("Float16", "Float16", 50)]],
        *[V("unpack_A_test", i, o, shape=(32, 64), reference=BCAST[b], label=f"bcast{b}",
            atol=None if b == "NONE" else 0, rtol=None if b == "NONE" else 0, ci=b == "COL", params=dict(BROADCAST_TYPE=f"ckernel::BroadcastType::{b}")) for i, o, b in
          [("Float16_b", "Float16_b", "NONE"), ("Float16", "Float16", "NONE"), ("Float16_b", "Float16_b", "COL"),
           ("Float16_b", "Float16_b", "ROW"), ("Float16_b", "Float16_b", "SCALAR")]],
        *[V(k, i, o, acc, shape=(32, 64), label=f"{f}", b_shape=(64, 32), res_tiles=1,
            reference="a @ b" if f != "LoFi" else MATMUL_LOFI_FP16,
            ref_shape=(32, 32), rtol=0.05 if f != "LoFi" else 0.01, atol=0.1 if f != "LoFi" else 0.02,
            params=dict(MATH_FIDELITY=fid(f), TILE_CNT=1, RT_DIM=1, CT_DIM=1, KT_DIM=2, NUM_BLOCKS=1,
                        NUM_TILES_IN_BLOCK=1))
          for k in ("math_matmul_test", "unpack_matmul_test")
          for i, o, acc, f in [("Float16_b", "Float16_b", False, "HiFi4"), ("Float16", "Float16", False, "LoFi")]],
        *[V("matmul_pack_untilize_test", i, o, acc, shape=(32, 32), res_tiles=32, ref_shape=(32, 1024),
            reference=f"np.tile({untilize_1('a @ b')}, (1, 32))", rtol=0.05, atol=0.1,
            params=dict(NUM_BLOCKS=32, NUM_TILES_IN_BLOCK=1, TILE_CNT=1, MATH_FIDELITY=fid("HiFi4")))
          for i, o, acc in [("Float16_b", "Float16_b", False), ("Float16", "Float16", False)]],
        # the kernel counts, per thread, the cycles in which it saw MATH's dest-acc change: all 256
        V("fp32_dest_acc_release_order_test", "Int32", "Int32", shape=(32, 32),
          reference="np.pad(np.full((1, 5), 256), ((0, 31), (0, 27)))"),
        # on-device checks only: the kernel LLK_ASSERTs each canonical SrcA register (ebreak on failure)
        *[V("unpack_canonical_baseline_check_test", i, o, acc, shape=(32, 64), self_check=True,
            label=f"{nf}faces-r{r}", params=dict(num_faces=nf, TEST_FACE_R_DIM=r))
          for i, o, acc, nf, r in [("Float16_b", "Float16_b", False, 4, 16), ("Float16", "Float16", False, 4, 16),
                                   ("Float32", "Float16_b", True, 2, 8), ("Bfp8_b", "Float16", False, 1, 4)]],
        # a re-init of the math/pack Dst handshake between blocks: at least two blocks
        *[V("pack_dest_reinit_test", i, o, False, shape=shape, reference="a")
          for i, o, shape in [("Float16_b", "Float16_b", (128, 128)), ("Bfp8_b", "Bfp8_b", (64, 512))]],
        *[V("reduce_block_max_test", i, o, acc, shape=(32, 32 * ct), b_shape=(32, 32), b_generate="ones",
            res_tiles=1, label=f"ct{ct}" + ("-runtime" if rt else ""), params=dict(USE_RUNTIME=rt), a_range=(0.0, 1.0),
            reference="np.pad(a.max(1)[:, None], ((0, 0), (0, 31)))", ref_shape=(32, 32), atol=0, rtol=0)
          for i, o, acc, ct, rt in [("Float16_b", "Float16_b", False, 4, False), ("Float16_b", "Float16_b", True, 2, True),
                                    ("Float16", "Float16", False, 2, False)]],
        # A's first row broadcast against SRCA_REUSE_COUNT tiles of B each (test_unpack_a_bcast_eltwise)
        *[V("unpack_a_bcast_eltwise_test", i, o, shape=(32, 32 * (bs[0] * bs[1] // 1024 // n)),
            label=f"{op.lower()}-reuse{n}-{bs[0]}x{bs[1]}", b_shape=bs, res_tiles=bs[0] * bs[1] // 1024,
            reference=bcast_eltwise_ref(bs, n, sign), ci=ci,
            params=dict(SRCA_REUSE_COUNT=n, ELTWISE_BINARY_OP=f"ckernel::EltwiseBinaryType::{op}",
                        TILE_CNT=bs[0] * bs[1] // 1024, **dict(zip(("NUM_BLOCKS", "NUM_TILES_IN_BLOCK"),
                                                                 split_blocks(bs[0] * bs[1] // 1024, False)))))
          for i, o, n, bs, op, sign, ci in [("Float16_b", "Float16_b", 4, (128, 32), "ELWSUB", "-", True),
                                            ("Float16_b", "Float16_b", 2, (64, 128), "ELWADD", "+", False)]],
        *[V("unpack_reduce_col_tilizeA_strided_test", i, o, acc, shape=(32, 32 * n), label=f"COL-{pool}-{n}tiles",
            b_shape=(32, 32), b_values=face0(1.0 if pool == "MAX" else 1 / 32), res_tiles=n, ci=pool == "MAX",
            reference=f"np.concatenate([{tilize(n)}.{'max' if pool == 'MAX' else 'mean'}(0)[None], np.zeros((31, {32 * n}))])",
            a_range=(-1.1, -0.1) if pool == "MAX" else (-1.0, 1.0),
            params=dict(REDUCE_DIM="ckernel::ReduceDim::REDUCE_COL", POOL_TYPE=f"ckernel::PoolType::{pool}",
                        MATH_FIDELITY=fid("LoFi" if pool == "MAX" else "HiFi4")))
          for i, o, acc, pool, n in [("Float16_b", "Float16_b", False, "MAX", 4),
                                     ("Float16_b", "Float16_b", False, "AVG", 8)]],
        *[V("tilize_calculate_untilize_L1", i, o, acc, shape=(32, 32), label=op.lower(), iterations=2, res_tiles=32,
            reference=f"np.tile({tilize(1)} {sign} {tilize(1, 'b')}, (1, 32))", ref_shape=(32, 1024), ci=ci,
            params=dict(ELTWISE_BINARY_OP=f"ckernel::EltwiseBinaryType::{op}", NUM_BLOCKS=32, NUM_TILES_IN_BLOCK=1,
                        TILE_CNT=1))
          for i, o, acc, op, sign, ci in [("Float16_b", "Float16_b", False, "ELWADD", "+", False),
                                          ("Float16", "Float16", True, "ELWSUB", "-", True),
                                          ("Float16_b", "Float16_b", True, "ELWADD", "+", False)]],
        # ~86,000 mailbox round trips between MATH and PACK: about five minutes on ttemu (--slow)
        V("fp32_dest_acc_cfg_occupancy_test", "Int32", "Int32", shape=(32, 32), max_steps=2_000_000_000, slow=True),
    ]


def face0(x):
    """A 32 x 32 tile, row-major, holding ``x`` in face 0 and zeros elsewhere (the reduce scaler)."""
    return [x if r < 16 and c < 16 else 0.0 for r in range(32) for c in range(32)]


#: The manifest stores ``a`` tile by tile (faces in order); a tilize kernel reads those
#: bytes as a row-major matrix, an untilize kernel writes ``a`` row-major (32 x 64 here)
TILIZE = "a.reshape(1, 2, 16, 2, 2, 16).transpose(0, 3, 1, 4, 2, 5).reshape(32, 64)"
UNTILIZE = "a.reshape(1, 2, 2, 2, 16, 16).transpose(0, 2, 4, 1, 3, 5).reshape(32, 64)"
#: unpack_A's broadcasts on a row of two tiles (BroadcastGolden): COL repeats each tile's first
#: column, ROW its first row, SCALAR its first datum (exact copies)
BCAST = {
    "NONE": "a",
    "COL": "np.repeat(a.reshape(32, 2, 32)[:, :, :1], 32, 2).reshape(32, 64)",
    "ROW": "np.broadcast_to(a.reshape(32, 2, 32)[:1], (32, 2, 32)).reshape(32, 64)",
    "SCALAR": "np.broadcast_to(a.reshape(32, 2, 32)[:1, :, :1], (32, 2, 32)).reshape(32, 64)",
}
#: LoFi is one fidelity phase: FidelityMasking's Wormhole phase 0 keeps the hidden bit and the
#: top 4 mantissa bits of SrcA and the top 6 of SrcB (of the 10-bit Src mantissa). A matmul
#: puts its left operand in SrcB and its right one in SrcA (MatmulGolden); FP16 inputs clear
#: 4 / 6 low mantissa bits, BF16's 7-bit mantissa (top of the 10) clears 1 / 3
MATMUL_LOFI_FP16 = ("(a.astype(np.float16).view(np.uint16) & 0xFFF0).view(np.float16).astype(np.float64)"
                    " @ (b.astype(np.float16).view(np.uint16) & 0xFFC0).view(np.float16).astype(np.float64)")
ELWMUL_LOFI_BF16 = ("(a.astype(np.float32).view(np.uint32) & 0xFFF80000).view(np.float32).astype(np.float64)"
                    " * (b.astype(np.float32).view(np.uint32) & 0xFFFE0000).view(np.float32).astype(np.float64)")


def bcast_eltwise_ref(b_shape, reuse, sign):
    """Tile t of A's first row, broadcast down the tile, ``sign`` each of B's tiles
    reuse*t .. reuse*t+reuse-1 (B's tiles in row-major tile order); outputs in a row."""
    rt, ct = b_shape[0] // 32, b_shape[1] // 32
    n = rt * ct
    b_tiles = f"b.reshape({rt}, 32, {ct}, 32).transpose(0, 2, 1, 3).reshape({n}, 32, 32)"
    a_rows = f"np.repeat(a.reshape(32, {n // reuse}, 32)[0], {reuse}, 0)[:, None, :]"
    return f"np.hstack({a_rows} {sign} {b_tiles})"


#: datum k of a tile (faces in order, 16-datum rows) is kept when k < 16 n: face f, row r of a
#: 32 x 64 matrix's tiles is row 16 f + r of the tile's data
PACK_ROWS = ("np.where(((np.arange(32)[:, None] // 16) * 2 + np.arange(64) % 32 // 16) * 16"
             " + np.arange(32)[:, None] % 16 < {n}, a, 0)")


def reduce_ref(dim, pool, tiles):
    """tt-llk's ReduceGolden on a column of ``tiles`` 32 x 32 tiles: each output tile is zero but
    for its first column (ROW), first row (COL) or first datum (SCALAR)."""
    t = f"a.reshape({tiles}, 32, 32)"
    op = "max" if pool == "MAX" else "sum"
    if dim == "ROW":
        body = f"np.concatenate([{t}.{op}(2, keepdims=True), np.zeros(({tiles}, 32, 31))], 2)"
    elif dim == "COL":
        body = f"np.concatenate([{t}.{op}(1, keepdims=True), np.zeros(({tiles}, 31, 32))], 1)"
    else:
        body = f"np.pad({t}.{op}((1, 2))[:, None, None], ((0, 0), (0, 31), (0, 31)))"
    return f"{body}.reshape({32 * tiles}, 32)"


#: a sum of 32 values in [-1, 1] kept in a 16-bit BF16 Dst: each of the 32 additions rounds to
#: 8 significant bits (half a unit is 2**-9 relative), so the error grows to a few units
SUM32_BF16 = (0.06, 0.02)


def untilize_1(m):
    """A 32 x 32 matrix written row-major (an untilizing pack) read back as one tile."""
    return f"({m}).reshape(2, 2, 16, 16).transpose(0, 2, 1, 3).reshape(32, 32)"


def tilize(n, var="a"):
    """The tile-ordered bytes of a 32 x 32n input read as a row-major matrix (a tilizing kernel's view)."""
    return f"{var}.reshape(1, 2, 16, {n}, 2, 16).transpose(0, 3, 1, 4, 2, 5).reshape(32, {32 * n})"


#: per-tile transpose of a one-tile-high matrix
TRANSPOSE = "a.reshape(32, -1, 32).transpose(2, 1, 0).reshape(32, -1)"


# -- extraction and builds ---------------------------------------------------------------------

class Unavailable(Exception):
    """The shared sources or the compiler are missing (a reason, not a failure)."""


def missing():
    """None, or why the corpus cannot be built here."""
    for t in TARBALLS:
        if not (SHARED / "third_party" / t).exists():
            return f"no {SHARED / 'third_party' / t}"
    if shutil.which(CXX) is None:
        return f"no {CXX} (apt-get install g++-riscv64-unknown-elf)"
    if not (PICOLIBC / "include").exists():
        return "no picolibc (apt-get install picolibc-riscv64-unknown-elf)"
    if not LIBSTDCXX.exists():
        return "no C++ headers (apt-get install libstdc++-12-dev-riscv64-cross)"
    return None


class Tree:
    """tt-llk + tt-metal hw/ extracted under ``work`` with the adaptations applied."""

    def __init__(self, work: pathlib.Path):
        why = missing()
        if why:
            raise Unavailable(why)
        self.work = work
        self.src = work / "src"
        self.tests = self.src / "tt-llk" / "tests"
        self.shim = work / "shim"
        if not (self.src / ".adapted").exists():
            if self.src.exists():
                shutil.rmtree(self.src)
            self.src.mkdir(parents=True)
            for t in TARBALLS:
                with tarfile.open(SHARED / "third_party" / t) as tar:
                    tar.extractall(self.src, filter="data")
            for rel, old, new, _why in ADAPTATIONS:
                p = self.src / rel
                text = p.read_text()
                if text.count(old) != 1:
                    raise RuntimeError(f"adaptation no longer applies to {rel}: {old!r}")
                p.write_text(text.replace(old, new))
            self.shim.mkdir(exist_ok=True)
            for name, text in SHIMS.items():
                (self.shim / name).write_text(text)
            (self.src / ".adapted").touch()
        self._brisc = None

    def system_includes(self):
        """-isystem flags: our shims, then libstdc++'s and picolibc's headers."""
        sysinc = [self.shim, LIBSTDCXX, LIBSTDCXX / "riscv64-linux-gnu", PICOLIBC / "include"]
        return [x for p in sysinc for x in ("-isystem", str(p))]

    def flags(self, t: Target):
        return ([f"-march={t.march}", "-mabi=ilp32", "-g0"] + OPTIONS_ALL + WARNINGS + DEFINES + [t.define] + TYPE_FIXES
                + [f"-I{i}" for i in t.includes()] + self.system_includes())

    def link(self, t: Target, ld):
        return (OPTIONS_LINK + [f"-L{LIBC_DIR}",
                                f"-Thelpers/ld/{t.memory_ld}", f"-Thelpers/ld/{ld}.ld", "-Thelpers/ld/sections.ld"])

    def _compile(self, argv, stdin=None):
        proc = subprocess.run([CXX] + argv, cwd=self.tests, input=stdin, capture_output=True, text=True)
        if proc.returncode:
            errs = [ln for ln in proc.stderr.splitlines() if "error" in ln.lower()]
            raise BuildError("; ".join(dict.fromkeys(errs[:40])) or proc.stderr[-400:])

    def brisc(self, t: Target):
        out = self.work / "brisc" / t.arch / "brisc.elf"
        if not out.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_suffix(".elf.tmp")
            self._compile(self.flags(t) + self.link(t, "brisc") + ["-o", str(tmp), "helpers/src/brisc.cpp"])
            tmp.rename(out)
        return out

    def source(self, kernel):
        return (self.tests / "sources" / f"{kernel}.cpp").read_text()

    def build(self, v: Variant):
        """-> {component: elf path} (cached by the build header's hash)."""
        header = v.build_h(self.source(v.kernel))
        t = v.target
        key = hashlib.sha256((v.kernel + header + " ".join(self.flags(t) + self.link(t, ""))).encode()).hexdigest()[:16]
        d = self.work / "variants" / f"{v.kernel}-{key}"
        elfs = {c: d / f"{c}.elf" for c in COMPONENTS}
        if all(p.exists() for p in elfs.values()):
            return elfs
        d.mkdir(parents=True, exist_ok=True)
        (d / "build.h").write_text(header)
        src = f'#include "sources/{v.kernel}.cpp"\n#include <trisc.cpp>\n'

        def one(i, comp):
            tmp = d / f"{comp}.elf.tmp"
            self._compile(self.flags(t) + ["-I.", "-Ihelpers/src", f"-I{d}", f"-DCOMPILE_FOR_TRISC={i}",
                                           "-DRUNTIME_FORMATS", f"-DLLK_TRISC_{comp.upper()}"]
                          + self.link(t, comp) + ["-x", "c++", "-", "-lc", "-lgcc", "-o", str(tmp)], src)
            tmp.rename(elfs[comp])

        with concurrent.futures.ThreadPoolExecutor(max_workers=3) as ex:
            for f in [ex.submit(one, i, c) for i, c in enumerate(COMPONENTS)]:
                f.result()
        return elfs


class BuildError(Exception):
    pass


def _entry(elf):
    with open(elf, "rb") as f:
        head = f.read(28)
    return struct.unpack_from("<I", head, 24)[0]


# -- manifests and runs ------------------------------------------------------------------------

def manifest(v: Variant, source, brisc, elfs, out_dir=pathlib.Path(".")) -> str:
    lay = v.layout()
    _, words = v.runtime_struct(source)
    b_shape = v.b_shape or v.a_shape
    res_addr, _, res_tiles = lay["res"]
    out_shape = v.ref_shape or (v.a_shape if res_tiles == v.tiles(v.a_shape) else (32, 32 * res_tiles))
    lines = [
        f"# tt-llk tests/sources/{v.kernel}.cpp, {v.label}: generated by scripts/llk_corpus.py",
        f'name = "{v.name}"', f'arch = "{v.arch}"', f"max_steps = {v.max_steps}", "seed = 7", "",
        "[cores]", f'brisc = "{brisc}"', *[f'trisc{i} = "{elfs[c]}"' for i, c in enumerate(COMPONENTS)], "",
        "[[input]]", 'name = "a"', f"addr = 0x{lay['a'][0]:x}", f'format = "{v.inp.manifest}"',
        f"shape = {list(v.a_shape)}", f'generate = "{v.a_generate}"', f"range = {list(v.a_range)}", "",
        "[[input]]", 'name = "b"', f"addr = 0x{lay['b'][0]:x}", f'format = "{(v.inp_b or v.inp).manifest}"',
        f"shape = {list(b_shape)}",
        *([f"values = [{', '.join(repr(float(x)) for x in v.b_values)}]"] if v.b_values is not None else
          [f'generate = "{v.b_generate}"', f"range = {list(v.b_range)}"]), "",
        "[[write]]  # RuntimeParams (build.h)", f"addr = 0x{RUNTIME_ARGS:x}",
        f"values = [{', '.join(f'0x{w:x}' for w in words)}]", "",
        *v.target.start([_entry(elfs[c]) for c in COMPONENTS]), "",
        "[[write]]  # BRISC counter: 0 before release, as the harness writes it", f"addr = 0x{MAILBOXES + 20:x}",
        "value = 0", "",
        "[[write]]  # the first command, once BRISC published its boot-ready sentinel",
        f"addr = 0x{MAILBOXES + 12:x}", f"value = {v.target.command}",
        f"when = {{addr = 0x{MAILBOXES + 20:x}, value = 0x{BOOT_READY:X}}}", "",
        *[x for k in range(3) for x in ("[[until]]", f"addr = 0x{MAILBOXES + 4 * k:x}", f"value = 0x{KERNEL_COMPLETE:x}")],
        "", "[[expect]]", 'name = "res"', f"addr = 0x{res_addr:x}", f'format = "{v.out.manifest}"',
        f"shape = {list(out_shape)}",
    ]
    if v.reference is None:  # no golden: the result is dumped, and compared with ttsim's (--oracle)
        res_bytes = res_tiles * v.out.tile_bytes
        lines = lines[:-6]
        lines.insert(4, f'dump = ["0x{res_addr:x}:{res_bytes}={out_dir / (v.name + ".res.bin")}"]')
        return "\n".join(lines) + "\n"
    lines.append(f'reference = "{v.reference}"')
    if v.atol is not None:
        lines.append(f"atol = {v.atol}")
    if v.rtol is not None:
        lines.append(f"rtol = {v.rtol}")
    return "\n".join(lines) + "\n"


@dataclass
class Row:
    variant: Variant
    built: str = "no"
    ttsim: str = "-"  # ttemu vs ttsim: bit-identical, DIFFERS, ttsim refuses: ERROR...
    golden: str = "-"  # ttemu vs the golden
    seconds: float = 0.0
    detail: str = ""
    ttsim_run: str = "-"  # ttsim on its own (run_split): completes, refuses: ERROR..., hangs
    ttsim_golden: str = "-"  # ttsim's result vs the golden
    ttemu: str = "-"  # ttemu on its own: completes, or the error it stops with
    dry: dict = field(default_factory=dict)  # skipped_stops() where ttemu stops (--inventory)
    dry_end: str = ""
    warnings: list = field(default_factory=list)  # ttemu's warnings (undefined behaviour) in its own run


def _load_tile(path: pathlib.Path, record=False):
    """A tile prepared as ``ttemu run`` prepares it for a variant's manifest, released."""
    from ttemu import Tile
    from ttemu.cmd import manifest as mf

    man = mf.load(str(path))
    tile = Tile(man.arch, record=record)
    mf.load_into(man, tile)
    tile.release(["brisc"])
    return tile, man


def _ttsim_alone(v: Variant, path: pathlib.Path, lib: str):
    """Run a variant's manifest on ttsim without a ttemu run first: the host writes (ELFs,
    inputs, ``[[write]]``s) as ttemu would make them before release, the ``when`` writes as
    phases, the mailboxes as the done condition. -> (result bytes or None, the manifest,
    why not)."""
    from ttemu.cmd.oracle import plan_from_tile, run_ttsim
    from ttemu.errors import TtemuError

    tile, man = _load_tile(path, record=True)
    res_addr, tile_bytes, res_tiles = v.layout()["res"]
    plan = plan_from_tile(tile, until=man.until,
                          reads=[(res_addr, tile_bytes * res_tiles, None)])
    plan.phases = [([cond.as_plan()], [(addr, struct.pack("<I", value))]) for cond, addr, value, _ in man.later]
    plan.clock_limit = v.max_steps
    try:
        return run_ttsim(lib, plan).regions[0], man, ""
    except TtemuError as e:
        return None, man, str(e)


def skipped_stops(v: Variant, path: pathlib.Path, max_steps=5_000_000):
    """Every unimplemented instruction and configuration field a variant meets: a ttemu dry
    run in which each is recorded and then issued as if it did nothing (for a field an
    implemented instruction reads: as if the instruction ended there), so each thread goes
    on. A skipped UNPACR with SetDatValid still hands its Src bank to the Matrix Unit (as
    SETDVALID does), once the bank is the unpacker's, so MATH and PACK reach their own
    instructions. Results are meaningless; the list is what real Blackhole code asks of
    the model. -> ({(thread, mnemonic, fields, why): times}, how the run ended)."""
    from ttemu.errors import TtemuError, Unimplemented
    from ttemu.tensix.regs.src import MATH, UNPACK
    from ttemu.tensix.units import Wait

    tile, man = _load_tile(path)
    cop = tile.tensix
    seen = {}
    orig = cop.dispatch_entry

    def note(th, spec, kw, why):
        fields = " ".join(f"{k}={val}" for k, val in kw.items() if val)
        key = (th.index, spec.mnemonic, fields, why)
        seen[key] = seen.get(key, 0) + 1

    def entry(word):
        spec, handler, args, kwargs, fence = orig(word)
        if spec is None or spec.unit == "frontend":
            return spec, handler, args, kwargs, fence
        kw = dict(cop.table.decode(word)[1])
        if handler is None:
            why = f"not implemented by the {spec.unit} unit yet"

            def run(th, **f):
                if spec.mnemonic == "UNPACR" and f.get("SetDatValid"):
                    src, which = cop.src, "AB"[f.get("Unpack_block_selection", 0)]
                    if src.allowed[which][src.unpack_bank[which]] != UNPACK:
                        return Wait(f"Src{which} bank {src.unpack_bank[which]} (dry run)")
                    src.allowed[which][src.unpack_bank[which]] = MATH
                    src.unpack_bank[which] ^= 1
                note(th, spec, f, why)
        else:
            def run(th, __h=handler, **f):
                try:
                    return __h(th, **f)
                except Unimplemented as e:
                    note(th, spec, f, str(e))
        new = (spec, run, None, kw, fence)
        cop.dispatch[word] = new
        return new

    cop.dispatch_entry = entry
    cop.dispatch.clear()
    try:
        for cond, addr, value, core in man.later:
            r = tile.run(max_steps=max_steps, until=[cond], idle_steps=200_000)
            if r.outcome != "until":
                return seen, r.outcome
            tile.write_u32(addr, value, core)
        r = tile.run(max_steps=max_steps, until=man.until, idle_steps=200_000)
        return seen, ("completes" if r.outcome == "until" else r.outcome)
    except TtemuError as e:
        return seen, f"{e.category}: {e}"


def _write_manifest(tree: Tree, v: Variant, out_dir: pathlib.Path, row: Row):
    """Build ``v`` and write its manifest into ``out_dir``: the manifest's path, or None
    with ``row.detail`` saying why the build failed (``row.built`` "yes" otherwise)."""
    try:
        elfs = tree.build(v)
        brisc = tree.brisc(v.target)
    except BuildError as e:
        row.detail = str(e)
        return None
    row.built = "yes"
    path = out_dir / f"{v.name}.toml"
    path.write_text(manifest(v, tree.source(v.kernel), brisc, elfs, out_dir))
    return path


def run_split(tree: Tree, v: Variant, oracle: str | None, out_dir: pathlib.Path, dry=False, ttemu=True) -> Row:
    """ttsim and ttemu each on their own, then compared: for a chip whose ttemu model is
    incomplete (Blackhole), ttsim's result is checked against the golden whether or not
    ttemu completes, and where ttemu stops is recorded (``Row.ttemu``). ``ttemu=False``:
    ttsim only; ``dry``: also :func:`skipped_stops` where ttemu stops."""
    from ttemu import tiles
    from ttemu.cmd.cli import main as ttemu_main
    from ttemu.cmd.expect import compare

    row, t0 = Row(v), time.perf_counter()
    path = _write_manifest(tree, v, out_dir, row)
    if path is None:
        row.seconds = time.perf_counter() - t0
        return row
    res_addr, tile_bytes, res_tiles = v.layout()["res"]
    nbytes = tile_bytes * res_tiles

    def golden(data, man):
        if not man.expects:
            return "own asserts pass" if v.self_check else "-"
        e = man.expects[0]
        c = compare(tiles.decode(data, e.format, e.shape), e.expected, e.atol, e.rtol)
        return "match" if c.ok else f"differs (max abs {c.max_abs:.3g})"

    theirs = None
    if oracle:
        theirs, man, why = _ttsim_alone(v, path, oracle)
        if theirs is None:
            refused = why.split("ERROR: ", 1)[1] if "ERROR: " in why else None
            row.ttsim_run = f"refuses: {refused}" if refused else why
        else:
            row.ttsim_run = "completes"
            row.ttsim_golden = golden(theirs, man)
    if not ttemu:
        row.seconds = time.perf_counter() - t0
        return row
    ours_path = out_dir / f"{v.name}.ttemu.bin"
    argv = ["run", str(path), "--json", "--no-progress", "--dump", f"0x{res_addr:x}:{nbytes}={ours_path}"]
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        ttemu_main(argv)
    finally:
        sys.stdout, sys.stderr = old
    try:
        doc = json.loads(out.getvalue())
    except json.JSONDecodeError:
        doc = {}
    errline = next((ln for ln in err.getvalue().splitlines() if ln.startswith("ttemu: error")), "")
    row.warnings = [f"{w['kind']}: {w['text']}" for w in doc.get("warnings", [])]
    if doc.get("outcome") != "until":
        if doc.get("outcome") == "error":
            row.ttemu = f"{doc.get('category', 'error')}: {doc.get('message', '')}"
        elif doc.get("outcome"):  # idle, hang, step-limit, ebreak...: and where each core is
            where = [f"{c} {st.get('waiting_on') or ('at ' + (st.get('symbol') or hex(st['pc'])))}"
                     for c, st in doc.get("cores", {}).items() if c.startswith("trisc")]
            row.ttemu = f"{doc['outcome']}: {doc.get('detail', '')}" + (f" ({'; '.join(where)})" if where else "")
        else:
            row.ttemu = errline.removeprefix("ttemu: error: ") or "error"
        row.golden = f"ttemu: {doc.get('outcome', 'error')}"
        if dry:
            row.dry, row.dry_end = skipped_stops(v, path)
    else:
        row.ttemu = "completes"
        if v.self_check:
            row.golden = "own asserts pass"
        if v.reference is not None:
            exp = doc["expect"][0]
            row.golden = "match" if exp["ok"] else f"differs (max abs {exp.get('max_abs_error', '?')})"
        if theirs is not None:
            diff = sum(a != b for a, b in zip(ours_path.read_bytes(), theirs))
            row.ttsim = "bit-identical" if diff == 0 else "DIFFERS"
            row.detail = f"{diff} bytes differ" if diff else ""
        elif row.ttsim_run.startswith("refuses"):
            row.ttsim = "ttsim " + row.ttsim_run
    row.seconds = time.perf_counter() - t0
    return row


def run_variant(tree: Tree, v: Variant, oracle: str | None, out_dir: pathlib.Path) -> Row:
    from ttemu.cmd.cli import main as ttemu_main

    row, t0 = Row(v), time.perf_counter()
    path = _write_manifest(tree, v, out_dir, row)
    if path is None:
        row.seconds = time.perf_counter() - t0
        return row
    argv = ["run", str(path), "--json", "--no-progress"]
    if oracle:
        argv += ["--oracle", oracle]
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        rc = ttemu_main(argv)
    finally:
        sys.stdout, sys.stderr = old
    row.seconds = time.perf_counter() - t0
    try:
        doc = json.loads(out.getvalue())
    except json.JSONDecodeError:
        doc = {}
    errline = next((ln for ln in err.getvalue().splitlines() if "error" in ln), "")
    if oracle and "ttsim refused the run" in errline:  # ttsim's refusal; ttemu's own result without it
        row_from = run_variant(tree, v, None, out_dir)
        row_from.ttsim = "ttsim refuses: " + errline.split("ERROR: ", 1)[-1]
        row_from.seconds = time.perf_counter() - t0
        return row_from
    if doc.get("outcome") != "until":
        row.ttsim = "-"
        row.golden = f"ttemu: {doc.get('outcome', 'error')}"
        row.detail = errline or doc.get("message", "")
        return row
    if v.self_check:
        row.golden = "own asserts pass"
    if v.reference is not None:
        exp = doc["expect"][0]
        row.golden = "match" if exp["ok"] else f"differs (max abs {exp.get('max_abs_error', '?')})"
    orc = doc.get("oracle")
    if orc is not None:
        same = orc["ok"] and all(r["differing_bytes"] == 0 for r in orc["regions"])
        row.ttsim = "bit-identical" if same else "DIFFERS"
        if not same:
            row.detail = "; ".join(f"{r['name']}: {r.get('differing_bytes')} bytes" for r in orc["regions"]
                                   if r["differing_bytes"])
    elif oracle:
        row.ttsim = "ttsim: " + (errline.split("error:", 1)[-1].strip()[:80] or f"exit {rc}")
    return row


def table(rows, markdown=False, split=False):
    head = ["kernel", "formats", "built", "ttemu vs ttsim", "vs golden", "time (s)"]
    body = [[r.variant.kernel, r.variant.label, r.built, r.ttsim, r.golden, f"{r.seconds:.1f}"] for r in rows]
    if split:
        head = ["kernel", "formats", "built", "ttsim", "ttsim vs golden", "ttemu", "ttemu vs ttsim", "ttemu vs golden",
                "time (s)"]
        body = [[r.variant.kernel, r.variant.label, r.built, r.ttsim_run, r.ttsim_golden, r.ttemu, r.ttsim,
                 r.golden, f"{r.seconds:.1f}"] for r in rows]
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(b) + " |" for b in body]
        return "\n".join(out)
    widths = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    return "\n".join("  ".join(x[i].ljust(widths[i]) for i in range(len(head))) for x in [head] + body)


def inventory(rows):
    """What real Blackhole code asks of ttemu (Markdown): each variant's first stop, and from
    the dry runs (:func:`skipped_stops`) every unimplemented instruction and configuration
    field, by how many variants meet it, with the field values they use."""
    import collections

    stopped = [r for r in rows if r.ttemu not in ("-", "completes")]
    out = [f"{len(stopped)} of {len(rows)} variants stop; {sum(r.ttemu == 'completes' for r in rows)} complete.", ""]
    first = collections.Counter(_stop_key(r.ttemu) for r in stopped)
    out += ["### First stop (the run as `ttemu run` makes it)", "", "| stops on | variants |", "|---|---|"]
    out += [f"| {k} | {n} |" for k, n in first.most_common()]
    what = collections.defaultdict(set)  # (mnemonic, why) -> variants
    issues = collections.Counter()
    values = collections.defaultdict(lambda: collections.defaultdict(set))  # mnemonic -> fields -> variants
    threads = collections.defaultdict(set)
    for r in stopped:
        for (th, mnem, fields, why), n in r.dry.items():
            what[mnem, why].add(r.variant.name)
            issues[mnem, why] += n
            values[mnem][fields or "(all zero)"].add(r.variant.name)
            threads[mnem, why].add(f"T{th}")
    if what:
        out += ["", "### Everything the dry runs meet (each unimplemented instruction skipped)", "",
                "| instruction | why it stops | threads | variants | times issued |", "|---|---|---|---|---|"]
    for (mnem, why), names in sorted(what.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        out.append(f"| {mnem} | {why} | {', '.join(sorted(threads[mnem, why]))} | {len(names)} | "
                   f"{issues[mnem, why]} |")
    if values:
        out += ["", "### Field values (non-zero fields of each unimplemented instruction word)", "",
                "| instruction | fields | variants |", "|---|---|---|"]
    for mnem in sorted(values):
        for fields, names in sorted(values[mnem].items(), key=lambda kv: -len(kv[1])):
            out.append(f"| {mnem} | {fields} | {len(names)} |")
    differs = [r for r in rows if r.ttsim == "DIFFERS"]
    if differs:
        out += ["", "### Completes, but differs from ttsim (ttsim's result is the reference)", "",
                "| variant | ttemu vs ttsim | ttemu vs golden | ttsim vs golden |", "|---|---|---|---|"]
        out += [f"| {r.variant.name} | {r.detail} | {r.golden} | {r.ttsim_golden} |" for r in differs]
    warned = collections.defaultdict(set)
    for r in rows:
        for w in r.warnings:
            warned[re.sub(r"pushed by [^)]*", "pushed by ...", w)].add(r.variant.name)
    if warned:
        out += ["", "### Warnings ttemu gives on this code (a check real Tenstorrent code trips is suspect)", "",
                "| warning | variants |", "|---|---|"]
        out += [f"| {w} | {len(n)} |" for w, n in sorted(warned.items(), key=lambda kv: -len(kv[1]))]
    ends = collections.Counter(r.dry_end for r in stopped)
    out += ["", "Dry runs ended: " + ", ".join(f"{k or '-'} {n}" for k, n in ends.most_common()) + ".", "",
            "### Per variant", "", "| variant | first stop (ttemu's message) | dry run: instructions met | dry run ends |",
            "|---|---|---|---|"]
    for r in stopped:
        met = sorted({f"{m}" + (" (cfg)" if "field" in w else "") for _, m, _, w in r.dry})
        out.append(f"| {r.variant.name} | `{r.ttemu}` | {', '.join(met)} | {r.dry_end} |")
    return "\n".join(out)


def _stop_key(msg):
    """A stop without where it happened: 'unimplemented: trisc0 pc 0x...: t0: ttunpacr 0,1,...
    (pushed by mop): why' -> 'unimplemented: UNPACR: why'; 'unimplemented: trisc2 pc 0x...:
    t2 PACR ...' -> 'unimplemented: PACR ...'."""
    m = re.match(r"([\w ]+: )?\w+ pc 0x[0-9a-f]+: t\d: tt(\w+)[^:]*: (.*)", msg)
    if m:
        return f"{m.group(1) or ''}{m.group(2).upper()}: {m.group(3)}"
    return re.sub(r"\w+ pc 0x[0-9a-f]+: (t\d )?", "", msg)


def default_oracle(arch="wormhole_b0"):
    p = pathlib.Path(os.environ.get("TTEMU_TTSIM_DIR", "/tmp/ttemu-ttsim-oracle")) / TARGETS[arch].ttsim
    return str(p) if p.exists() else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", dest="select", action="append", default=[], help="variants whose name contains this")
    ap.add_argument("--ci", action="store_true", help="only the variants CI runs")
    ap.add_argument("--slow", action="store_true", help="also the variants that take minutes")
    ap.add_argument("--arch", default="wormhole_b0", choices=sorted(TARGETS), help="the chip to build for")
    ap.add_argument("--oracle", default=None,
                    help="libttsim_wh.so / libttsim_bh.so (default: /tmp/ttemu-ttsim-oracle's, if built)")
    ap.add_argument("--no-oracle", action="store_true")
    ap.add_argument("--split", action="store_true",
                    help="run ttsim and ttemu each on their own, then compare (the default for blackhole)")
    ap.add_argument("--keep", default=None, help="work directory to keep (default: a temporary one)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--inventory", action="store_true",
                    help="also where ttemu stops, aggregated by instruction / configuration field (Markdown)")
    a = ap.parse_args(argv)
    vs = [v for v in catalogue(a.arch) if (not a.ci or v.ci) and (a.slow or not v.slow)
          and (not a.select or any(s in v.name for s in a.select))]
    if a.list:
        print("\n".join(v.name for v in vs))
        return 0
    oracle = None if a.no_oracle else (a.oracle or default_oracle(a.arch))
    work = pathlib.Path(a.keep) if a.keep else pathlib.Path(tempfile.mkdtemp(prefix="ttemu-llk-corpus-"))
    try:
        tree = Tree(work)
    except Unavailable as e:
        print(f"llk_corpus: {e}", file=sys.stderr)
        return 2
    out_dir = work / "manifests"
    out_dir.mkdir(exist_ok=True)
    rows = []
    split = a.split or a.arch != "wormhole_b0"
    for v in vs:
        if split:
            r = run_split(tree, v, oracle, out_dir, dry=a.inventory)
            print(f"{v.name}: built {r.built}, ttsim {r.ttsim_run}, ttsim vs golden {r.ttsim_golden}, "
                  f"ttemu {r.ttemu}, ttemu vs ttsim {r.ttsim}, {r.seconds:.1f} s"
                  + (f" ({r.detail})" if r.detail else ""), file=sys.stderr)
        else:
            r = run_variant(tree, v, oracle, out_dir)
            print(f"{v.name}: built {r.built}, ttsim {r.ttsim}, golden {r.golden}, {r.seconds:.1f} s"
                  + (f" ({r.detail})" if r.detail else ""), file=sys.stderr)
        rows.append(r)
    print(table(rows, a.markdown, split))
    if a.inventory:
        print("\n" + inventory(rows))
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    if split:  # a ttemu stop is what is left to build, not a failure; a wrong result is
        bad = [r for r in rows if r.built != "yes" or r.ttsim == "DIFFERS"
               or r.golden.startswith("differs") or r.ttsim_golden.startswith("differs")]
    else:
        bad = [r for r in rows if r.ttsim == "DIFFERS" or r.golden.startswith("differs")
               or r.golden.startswith("ttemu")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
