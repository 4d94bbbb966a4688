#!/usr/bin/env python3
"""RISC-V architectural tests for the baby RISC-V cores, generated with riscv-ctg.

riscv-ctg (the RISC-V Compatibility Test Generator, on PyPI) turns coverage
specifications (CGF: which registers, register combinations and operand values an
instruction must be exercised with) into riscv-arch-test-style assembly files that
store each result in a signature region. The CGF nodes are ours (``cgf_node``: every
register as rs1/rs2/rd, the register-overlap combinations, corner values crossed,
walking ones and zeros); the env is ours too (``MODEL_TEST_H``): no traps and no CSRs,
the signatures in L1, each test's halt jumps to the next test and the last one sets a
done word.

    generate(out)                       -> out/<mnemonic>-01.S (riscv-ctg, one per instruction)
    compile_all(out, names)             -> out/<mnemonic>-01.o (riscv64-unknown-elf-gcc)
    link(out, names, "blackhole")       -> one BRISC ELF running them all (symbols t<k>_...)
    run(elf, "blackhole")               -> the data area before and after, from ttemu
    mismatches(...)                     -> the signature words that differ from ``REF``,
                                           the reference written from the RISC-V spec
    against_ttsim(tile, sym, lib)       -> the data area compared with ttsim's

Not covered: fence (nothing to observe here), ecall/ebreak (traps).
Run ``python scripts/rv_archtests.py [--arch ...] [--oracle LIB]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys

M32 = 0xFFFFFFFF
MARCH = "rv32ima_zba_zbb_zbkb"  # GCC 12 has no zaamo: A's amo*.w are Zaamo's (lr/sc are not generated)
DATA_BASE = 0x100000  # the signatures and test data, in L1 past the code (1 MiB)
MAX_STEPS = 2_000_000


def s32(v: int) -> int:
    v &= M32
    return v - (1 << 32) if v >> 31 else v

# ------------------------------------------------------------------ instruction sets
# mnemonic -> CGF recipe (see cgf_node); per extension. Blackhole's Zbkb is pack and
# brev8 only (InstructionSet.md: packh, zip, unzip are absent).
SETS = {
    "rv32i": {
        **dict.fromkeys(["add", "sub", "and", "or", "xor", "sll", "srl", "sra", "slt", "sltu"], "rr"),
        **dict.fromkeys(["addi", "andi", "ori", "xori", "slti", "sltiu"], "imm"),
        **dict.fromkeys(["slli", "srli", "srai"], "shamt"),
        **dict.fromkeys(["lui", "auipc"], "upper"),
        **dict.fromkeys(["beq", "bne", "blt", "bge", "bltu", "bgeu"], "branch"),
        "lw": "load4", "lh": "load2", "lhu": "load2", "lb": "load1", "lbu": "load1",
        "sw": "store4", "sh": "store2", "sb": "store1", "jal": "jal", "jalr": "jalr",
    },
    "rv32m": dict.fromkeys(["mul", "mulh", "mulhu", "mulhsu", "div", "divu", "rem", "remu"], "rr"),
    "zba": dict.fromkeys(["sh1add", "sh2add", "sh3add"], "rr"),
    "zbb": {
        **dict.fromkeys(["andn", "orn", "xnor", "min", "minu", "max", "maxu", "rol", "ror"], "rr"),
        "rori": "shamt",
        **dict.fromkeys(["clz", "ctz", "cpop", "sext.b", "sext.h", "zext.h", "orc.b", "rev8"], "unary"),
    },
    "zbkb": {"pack": "rr", "brev8": "unary"},
    "zaamo": dict.fromkeys(["amoadd.w", "amoswap.w", "amoxor.w", "amoand.w", "amoor.w", "amomin.w",
                            "amomax.w", "amominu.w", "amomaxu.w"], "amo"),
}
BASE_SETS = ("rv32i", "rv32m")  # what Wormhole's cores run

# ------------------------------------------------------------------ coverage (CGF)
CORNERS = [0, 1, 2, -1, 0x7FFFFFFF, -0x80000000, 0x7FFFFFFE, -0x7FFFFFFF, 0x55555555, -0x55555556,
           0x0000FFFF, -0x10000]
WALK = [s32(1 << i) for i in range(32)] + [s32(~(1 << i)) for i in range(32)]
REGS = [f"x{i}" for i in range(32)]
OPCOMB_RR = ["rs1 == rs2 != rd", "rs1 == rd != rs2", "rs2 == rd != rs1", "rs1 == rs2 == rd",
             "rs1 != rs2 and rs1 != rd and rs2 != rd"]
OPCOMB_AMO = ["rs1 == rd != rs2", "rs2 == rd != rs1", "rs1 != rs2 and rs1 != rd and rs2 != rd"]


def _points(exprs):
    """Value coverpoints with every operand given: ``#nosat`` makes riscv-ctg take the
    values as they are instead of searching its own datasets (slow, and it lacks some)."""
    return {f"{e} #nosat": 0 for e in exprs}


def cgf_node(mnemonic: str, recipe: str) -> dict:
    """The coverage node for one instruction: every register as each operand, the
    register-overlap combinations, corner values crossed, walking ones and zeros."""
    node = {"config": ["check ISA:=regex(.*I.*)"], "mnemonics": {mnemonic: 0}}
    regs = {r: 0 for r in REGS}
    nz = {r: 0 for r in REGS[1:]}
    if recipe in ("rr", "amo"):
        node |= {"rs1": nz if recipe == "amo" else regs, "rs2": regs, "rd": regs,
                 "op_comb": {c: 0 for c in (OPCOMB_AMO if recipe == "amo" else OPCOMB_RR)}}
        pairs = [(a, b) for a in CORNERS for b in CORNERS]
        if recipe == "rr":
            pairs += [(w, -0x5A5A5A5B) for w in WALK[:32]] + [(0x12345678, w) for w in WALK[32:]]
        if mnemonic in ("sll", "srl", "sra", "rol", "ror"):  # every shift amount
            pairs += [(-0x5555556, s) for s in range(32)] + [(0x12345678, s | 0x7FFFFFE0) for s in range(0, 32, 5)]
        node["val_comb"] = _points(f"rs1_val == {a} and rs2_val == {b}" for a, b in pairs)
    elif recipe in ("imm", "shamt"):
        node |= {"rs1": regs, "rd": regs, "op_comb": {"rs1 == rd": 0, "rs1 != rd": 0}}
        imms = [0, 1, -1, 2, 0x7FF, -0x800, 0x555, -0x556, 0x80] if recipe == "imm" else range(32)
        pairs = [(a, b) for a in CORNERS for b in imms] + [(w, imms[len(imms) // 2 + 1]) for w in WALK]
        node["val_comb"] = _points(f"rs1_val == {a} and imm_val == {b}" for a, b in pairs)
    elif recipe == "unary":
        node |= {"rs1": regs, "rd": regs, "op_comb": {"rs1 == rd": 0, "rs1 != rd": 0}}
        extra = [0x01020304, 0x00FF00FF, -0x0FF0100, 0x00010000, 0x00008000, 0x12345678, 0x00800000]
        node["val_comb"] = _points(f"rs1_val == {a}" for a in CORNERS + extra + WALK)
    elif recipe == "upper":
        node |= {"rd": regs}
        imms = [0, 1, 0x80000, 0xFFFFF, 0x7FFFF, 0x55555, 0xAAAAA] + [1 << i for i in range(20)]
        node["val_comb"] = _points(f"imm_val == {v}" for v in imms)
    elif recipe == "branch":  # riscv-ctg needs its solver for branches (it places the target by imm)
        node |= {"rs1": regs, "rs2": regs, "op_comb": {"rs1 == rs2": 0, "rs1 != rs2": 0}}
        # riscv-ctg searches its own datasets here (signed for blt/bge, unsigned for bltu/bgeu), which
        # is slow: a few relations, the signed/unsigned boundary among them
        mid = "0x7fffffff" if mnemonic in ("bltu", "bgeu") else "0"
        node["val_comb"] = {c: 0 for c in (
            "rs1_val == rs2_val", "rs1_val > rs2_val", "rs1_val < rs2_val", f"rs1_val > {mid} > rs2_val",
            f"rs2_val > {mid} > rs1_val", "rs1_val == rs2_val + 1", "rs1_val + 1 == rs2_val",
            f"rs1_val == {mid} + 1 and rs2_val == {mid}", f"rs1_val == {mid} and rs2_val == {mid} + 1",
            f"rs1_val > rs2_val > {mid}", f"{mid} > rs2_val > rs1_val", "rs1_val == rs2_val and rs1_val != 0")
        } | {"rs1_val == rs2_val and imm_val > 0" if mnemonic in ("beq", "bge", "bgeu")
             else f"rs2_val > rs1_val > {mid} and imm_val > 0": 0}  # one taken forward branch
    elif recipe.startswith("load"):
        width = int(recipe[-1])
        node |= {"rs1": nz, "rd": regs, "op_comb": {"rs1 == rd": 0, "rs1 != rd": 0}}
        node["val_comb"] = _points(f"rs1_val == 0 and imm_val == {i} and ea_align == {a}"
                                   for a in range(0, 4, width) for i in (0, 4, -4, 0x7F0, -0x800, 1, -3))
    elif recipe.startswith("store"):
        width = int(recipe[-1])
        node |= {"rs1": nz, "rs2": regs, "op_comb": {"rs1 != rs2": 0}}
        node["val_comb"] = _points(f"rs1_val == 0 and rs2_val == {v} and imm_val == {(-8, 0, 8, 0x7F0, -0x800)[k % 5]} "
                                   f"and ea_align == {(k * width) % 4}" for k, v in enumerate(CORNERS + WALK[::4]))
    elif recipe == "jal":
        # riscv-ctg's solver again, and it lays the code out by imm (2 * imm bytes of nops; a case
        # without a value coverpoint gets 2^19): the small immediates of its dataset, as many as rd's
        imms = [-10, -8, -6, -4, -2, 0, 2, 4, 6, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]
        node |= {"rd": {f"x{i}": 0 for i in (0, 1, 2, 3, 5, 7, 8, 10, 12, 15, 16, 19, 21, 24, 26, 28, 30, 31)}}
        assert len(node["rd"]) <= len(imms)
        node["val_comb"] = {f"imm_val == {v}": 0 for v in imms}
    elif recipe == "jalr":
        node |= {"rs1": nz, "rd": regs, "op_comb": {"rs1 == rd": 0, "rs1 != rd": 0}}
        node["val_comb"] = _points(f"rs1_val == 0 and imm_val == {i} and ea_align == 0"
                                   for i in (0, 4, -4, 0x7FC, -0x800, 0x555 & ~3, 0x100, -0x100))
    else:
        raise ValueError(recipe)
    return node


def write_cgf(path: pathlib.Path, sets) -> int:
    """One CGF file holding every instruction of ``sets``; returns how many."""
    import yaml

    nodes = {m: cgf_node(m, r) for s in sets for m, r in SETS[s].items()}
    path.write_text(yaml.safe_dump(nodes, sort_keys=False, width=1 << 16))
    return len(nodes)


# ------------------------------------------------------------------ the env (ours)
MODEL_TEST_H = r"""// ttemu's target for riscv-ctg tests: no traps, no CSRs; a done word ends the run.
#ifndef TTEMU_MODEL_TEST_H
#define TTEMU_MODEL_TEST_H
#define RVMODEL_BOOT
// Tests are linked one after another (symbols prefixed t<k>_): a test's halt goes
// on to the next one, the last one's to rvmodel_end (END_S), which sets the done word.
#define RVMODEL_HALT                          \
  la t0, rvmodel_next;                        \
  jr t0;
#define RVMODEL_DATA_BEGIN                    \
  .data; .align 4; rvmodel_sig_begin:
#define RVMODEL_DATA_END                      \
  .align 4; rvmodel_sig_end:
#define RVMODEL_IO_INIT
#define RVMODEL_IO_WRITE_STR(_R, _STR)
#define RVMODEL_IO_CHECK()
#define RVMODEL_IO_ASSERT_GPR_EQ(_S, _R, _I)
#define RVMODEL_SET_MSW_INT
#define RVMODEL_CLEAR_MSW_INT
#define RVMODEL_CLEAR_MTIMER_INT
#define RVMODEL_CLEAR_MEXT_INT
// An AMO on a signature word: it holds the original value, then the operation's
// result; the next word gets the value the AMO returned.
#define TEST_AMO_OP(inst, destreg, origptr, reg2, origval, updval, sigptr, _OFF) \
  LI(reg2, MASK_XLEN(origval));               \
  RVTEST_SIGUPD(sigptr, reg2, _OFF);          \
  addi origptr, sigptr, offset-REGWIDTH;      \
  LI(reg2, MASK_XLEN(updval));                \
  inst destreg, reg2, (origptr);              \
  RVTEST_SIGUPD(sigptr, destreg)
#endif
"""

END_S = """// after the last test: the done word, then park
.section .text.init
.global rvmodel_end
rvmodel_end:
  li t1, 1
  la t0, rvmodel_done
  sw t1, 0(t0)
1: j 1b
.data
.align 4
.global rvmodel_done
rvmodel_done: .word 0
"""


def link_ld(n: int) -> str:
    """BRISC at its reset PC (0 on both arches): the start stub, then the n tests' code
    from 0, their data in L1 at DATA_BASE; each test's halt jumps to the next."""
    chain = "".join(f"  t{k}_rvmodel_next = {f't{k + 1}_rvtest_entry_point' if k + 1 < n else 'rvmodel_end'};\n"
                    for k in range(n))
    return f"""ENTRY(t0_rvtest_entry_point)
SECTIONS
{{
  . = 0;
  .text : {{ *(.text.init) *(.text .text.*) }}
  . = 0x{DATA_BASE:x};
  .data : {{ *(.data .data.* .sdata .sdata.* .bss .bss.* .sbss .sbss.*) }}
  /DISCARD/ : {{ *(.riscv.attributes) *(.comment) }}
{chain}}}
"""


def available() -> str | None:
    """Why the tests cannot be generated and built here, or None."""
    if importlib.util.find_spec("riscv_ctg") is None or importlib.util.find_spec("riscv_isac") is None:
        return "riscv-ctg is not installed (pip install --no-deps riscv-ctg riscv-isac; see .ci/run)"
    if shutil.which("riscv64-unknown-elf-gcc") is None:
        return "no riscv64-unknown-elf-gcc"
    return None


def generate(out: pathlib.Path, sets=tuple(SETS), procs: int = 2) -> list[str]:
    """Generate the tests of ``sets`` into ``out`` with riscv-ctg; returns the mnemonics."""
    out.mkdir(parents=True, exist_ok=True)
    write_cgf(out / "ttemu.cgf", sets)
    (out / "model_test.h").write_text(MODEL_TEST_H)
    (out / "end.S").write_text(END_S)
    cmd = [sys.executable, "-c", "from riscv_ctg.main import cli; cli()", "-v", "error", "-d", str(out),
           "-bi", "rv32i", "-cf", str(out / "ttemu.cgf"), "-p", str(procs)]
    # riscv-ctg walks sets of strings: a fixed hash seed makes the same tests every time
    proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED="0"))
    if proc.returncode != 0:
        raise RuntimeError(f"riscv-ctg failed: {proc.stderr.strip()[-500:]}")
    names = [m for s in sets for m in SETS[s]]
    missing = [m for m in names if not (out / f"{m}-01.S").exists()]
    if missing:
        raise RuntimeError(f"riscv-ctg generated no test for {', '.join(missing)}")
    return names


def compile_all(out: pathlib.Path, names) -> None:
    """Assemble every generated test (one gcc run) and prefix each object's symbols
    with t<k>_ (k: its place in ``names``) so that any subset links together."""
    srcs = [f"{m}-01.S" for m in names] + ["end.S"]
    cmd = ["riscv64-unknown-elf-gcc", f"-march={MARCH}", "-mabi=ilp32", "-mno-relax", "-c", "-DXLEN=32",
           "-DTEST_CASE_1=True", "-I.", "-Ienv", *srcs]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=out)
    if proc.returncode != 0:
        raise RuntimeError(f"the build failed: {proc.stderr.strip()[-800:]}")


def link(out: pathlib.Path, names, tag: str) -> pathlib.Path:
    """Link the tests ``names`` (compiled by :func:`compile_all`) into one BRISC ELF,
    run one after another; their symbols are t<k>_<name>, k their place here."""
    objs = []
    for k, m in enumerate(names):
        obj = out / f"{tag}.{k}.o"
        subprocess.run(["riscv64-unknown-elf-objcopy", f"--prefix-symbols=t{k}_", str(out / f"{m}-01.o"), str(obj)],
                       check=True)
        objs.append(str(obj))
    (out / f"{tag}.ld").write_text(link_ld(len(names)))
    elf = out / f"{tag}.elf"
    cmd = ["riscv64-unknown-elf-gcc", "-march=" + MARCH, "-mabi=ilp32", "-nostdlib", "-nostartfiles",
           "-Wl,--no-relax", f"-T{out / f'{tag}.ld'}", "-o", str(elf), *objs, str(out / "end.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"the link failed: {proc.stderr.strip()[-800:]}")
    return elf


# ------------------------------------------------------------------ running
def load(elf: pathlib.Path, arch: str, record: bool = False, start: int | None = None):
    """A tile with the ELF loaded for BRISC and released (at ``start`` when given, else
    at the reset PC); returns (tile, symbols)."""
    from ttemu import Tile

    tile = Tile(arch, record=record)
    tile.load_elf(str(elf), "brisc")
    if start is not None:
        tile.set_start_pc("brisc", start)
    tile.release(["brisc"])
    return tile, tile.images["brisc"].symbols


def run(elf: pathlib.Path, arch: str = "blackhole", record: bool = False):
    """Run a linked set of tests on ttemu to the done word; returns (tile, symbols, the
    data area before the run, after it). A fault raises ttemu's GuestFault."""
    tile, sym = load(elf, arch, record)
    n = sym["rvmodel_done"] + 4 - DATA_BASE
    before = tile.read(DATA_BASE, n)
    res = tile.run(max_steps=MAX_STEPS, until=[(sym["rvmodel_done"], 1)])
    if res.outcome != "until":
        raise RuntimeError(f"{elf.name}: the run ended with {res.outcome} {getattr(res, 'detail', '')}")
    return tile, sym, before, tile.read(DATA_BASE, n)


def mismatches(out: pathlib.Path, names, sym: dict, before: bytes, after: bytes) -> dict:
    """Per test, the signature words that differ from the reference's: {mnemonic:
    [(address, got, expected)]}, and the number of words checked (key None)."""
    bad, checked = {}, 0
    for k, m in enumerate(names):
        prefixed = {name[len(f"t{k}_"):]: a for name, a in sym.items() if name.startswith(f"t{k}_")}
        lo, hi = prefixed["rvmodel_sig_begin"], prefixed["rvmodel_sig_end"]
        exp = expected_image(out / f"{m}-01.S", before[lo - DATA_BASE:hi - DATA_BASE], lo, prefixed)
        got = after[lo - DATA_BASE:hi - DATA_BASE]
        checked += len(got) // 4
        diff = [(lo + i, got[i:i + 4].hex(), exp[i:i + 4].hex()) for i in range(0, len(got), 4)
                if got[i:i + 4] != exp[i:i + 4]]
        if diff:
            bad[m] = diff
    bad[None] = checked
    return bad


# ------------------------------------------------------------------ the reference
# Each instruction's result from the definitions in the RISC-V unprivileged spec (RV32I,
# M, Zba, Zbb, Zbkb, Zaamo), over unsigned 32-bit operands a, b (the immediate as b).
def _div(a, b):
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def _bytes(v):
    return list(v.to_bytes(4, "little"))


REF = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b, "sll": lambda a, b: a << (b & 31), "srl": lambda a, b: a >> (b & 31),
    "sra": lambda a, b: s32(a) >> (b & 31), "slt": lambda a, b: int(s32(a) < s32(b)), "sltu": lambda a, b: int(a < b),
    "mul": lambda a, b: a * b, "mulh": lambda a, b: (s32(a) * s32(b)) >> 32, "mulhu": lambda a, b: (a * b) >> 32,
    "mulhsu": lambda a, b: (s32(a) * b) >> 32,
    "div": lambda a, b: -1 if b == 0 else _div(s32(a), s32(b)),
    "divu": lambda a, b: M32 if b == 0 else a // b,
    "rem": lambda a, b: a if b == 0 else s32(a) - s32(b) * _div(s32(a), s32(b)),
    "remu": lambda a, b: a if b == 0 else a % b,
    "sh1add": lambda a, b: (a << 1) + b, "sh2add": lambda a, b: (a << 2) + b, "sh3add": lambda a, b: (a << 3) + b,
    "andn": lambda a, b: a & ~b, "orn": lambda a, b: a | ~b, "xnor": lambda a, b: ~(a ^ b),
    "min": lambda a, b: min(s32(a), s32(b)), "max": lambda a, b: max(s32(a), s32(b)),
    "minu": min, "maxu": max,
    "rol": lambda a, b: (a << (b & 31)) | (a >> ((32 - (b & 31)) & 31)),
    "ror": lambda a, b: (a >> (b & 31)) | (a << ((32 - (b & 31)) & 31)),
    "clz": lambda a, _: 32 - a.bit_length(),
    "ctz": lambda a, _: next((i for i in range(32) if a >> i & 1), 32),
    "cpop": lambda a, _: bin(a).count("1"),
    "sext.b": lambda a, _: s32(a << 24) >> 24, "sext.h": lambda a, _: s32(a << 16) >> 16,
    "zext.h": lambda a, _: a & 0xFFFF,
    "orc.b": lambda a, _: int.from_bytes(bytes(0xFF if x else 0 for x in _bytes(a)), "little"),
    "rev8": lambda a, _: int.from_bytes(bytes(reversed(_bytes(a))), "little"),
    "brev8": lambda a, _: int.from_bytes(bytes(int(f"{x:08b}"[::-1], 2) for x in _bytes(a)), "little"),
    "pack": lambda a, b: (a & 0xFFFF) | (b & 0xFFFF) << 16,
    "amoadd.w": lambda m, b: m + b, "amoswap.w": lambda m, b: b, "amoxor.w": lambda m, b: m ^ b,
    "amoand.w": lambda m, b: m & b, "amoor.w": lambda m, b: m | b,
    "amomin.w": lambda m, b: min(s32(m), s32(b)), "amomax.w": lambda m, b: max(s32(m), s32(b)),
    "amominu.w": min, "amomaxu.w": max,
}
for _i, _r in (("addi", "add"), ("andi", "and"), ("ori", "or"), ("xori", "xor"), ("slti", "slt"),
               ("sltiu", "sltu"), ("slli", "sll"), ("srli", "srl"), ("srai", "sra"), ("rori", "ror")):
    REF[_i] = REF[_r]
BRANCH = {"beq": lambda a, b: a == b, "bne": lambda a, b: a != b, "blt": lambda a, b: s32(a) < s32(b),
          "bge": lambda a, b: s32(a) >= s32(b), "bltu": lambda a, b: a < b, "bgeu": lambda a, b: a >= b}
LOADS = {"lw": (4, False), "lh": (2, True), "lhu": (2, False), "lb": (1, True), "lbu": (1, False)}
STORES = {"sw": 4, "sh": 2, "sb": 1}

_MACRO = re.compile(r"^\s*(TEST_\w+|RVTEST_SIGBASE|RVTEST_SIGUPD)\((.*)\)\s*$")
_OPCODE = re.compile(r"//\s*opcode:\s*([\w.]+)\s*;.*?op1:(\w+);.*?dest:(\w+);\s*op1val:([-\w]+);")


def _num(text: str) -> int:
    return int(text.strip(), 0)


def _off(text: str) -> int:
    return int(eval(text.replace("XLEN", "32"), {}))  # "5*XLEN/8"


def expected(src: pathlib.Path) -> dict:
    """The signature writes a generated test makes, from the reference: {(label, byte
    offset): (width, value)}, read from its macro invocations (their operands are
    literal) and the definitions above."""
    base, writes = {}, {}
    pending = None  # an inline template's "// opcode:" comment (rev8, brev8)
    lines = src.read_text().splitlines()
    at = lines.index("rvtest_data:")  # the words the load tests read
    data = b"".join(struct.pack("<I", _num(w.split()[1])) for w in lines[at + 1:at + 5])
    for line in lines:
        m = _OPCODE.search(line)
        if m and "TEST_" not in line:
            pending = m.groups()
        m = _MACRO.match(line)
        if not m:
            continue
        name, args = m.group(1), [a.strip() for a in m.group(2).split(",")]
        if name == "RVTEST_SIGBASE":
            base[args[0]] = args[1]
            continue
        val = {}

        def reg(r, v):  # the value an operand register holds after the test's LIs
            return 0 if r == "x0" else _num(v) & M32

        if name == "RVTEST_SIGUPD":  # an inline template: LI(rs1, op1val); op rd, rs1
            op, rs1, rd, v = pending
            sw, off, value = args[0], _off(args[2]), REF[op](reg(rs1, v), 0)
            writes[(base[sw], off)] = (4, 0 if rd == "x0" else value & M32)
            continue
        if name == "TEST_RR_OP":
            op, rd, rs1, rs2, _, v1, v2, sw, off = args[:9]
            val = {rs1: v1, rs2: v2}  # a later LI of the same register wins
            value = REF[op](reg(rs1, val[rs1]), reg(rs2, val[rs2]))
        elif name in ("TEST_IMM_OP", "TEST_RD_OP"):
            if name == "TEST_IMM_OP":
                op, rd, rs1, _, v1, imm, sw, off = args[:8]
                b = _num(imm) & (31 if op in ("slli", "srli", "srai", "rori") else M32)
                b = b if b < 0x800 or op in ("slli", "srli", "srai", "rori") else b | 0xFFFFF000
            else:
                op, rd, rs1, _, v1, sw, off = args[:7]
                b = 0
            value = REF[op](reg(rs1, v1), b & M32)
        elif name == "TEST_CASE":  # lui: TEST_CASE(testreg, rd, correctval, swreg, offset, lui rd, imm)
            _, rd, _, sw, off, insn, imm = args[:7]
            assert insn.split()[0] == "lui", line
            value = _num(imm) << 12
        elif name == "TEST_AUIPC":  # the macro stores rd - (the auipc's own address)
            _, rd, _, imm, sw, off = args[:6]
            value = _num(imm) << 12
        elif name == "TEST_BRANCH_OP":
            op, _, rs1, rs2, v1, v2, _, label, sw, off = args[:10]
            val = {rs1: v1, rs2: v2}
            taken = BRANCH[op](reg(rs1, val[rs1]), reg(rs2, val[rs2]))
            writes[(base[sw], _off(off))] = (4, (1 if label == "1b" else 3) if taken else 2)
            continue
        elif name == "TEST_LOAD":
            sw, _, index, _, rd, _, off, op, adj = args[:9]
            width, signed = LOADS[op]
            at = 4 * _num(index) + _num(adj)
            raw = data[at:at + width]
            assert len(raw) == width, f"{src.name}: a load past rvtest_data"
            value = int.from_bytes(raw, "little", signed=signed)
        elif name == "TEST_STORE":
            sw, _, _, _, rs2, v2, _, off, op, adj = args[:10]
            writes[(base[sw], _off(off) + _num(adj))] = (STORES[op], reg(rs2, v2) & ((1 << 8 * STORES[op]) - 1))
            continue
        elif name == "TEST_JAL_OP":
            # arch_test.h's layout: 5: la; jr 2f; 6: la; jr 4f; 1: xori rd, 1; beq 6b; nops; 2: jal rd, <label>;
            # ...; 3: xori rd, 3; ...; 4: rd -= 5b. The link is 2f + 4 (all instructions are 4 bytes)
            _, rd, imm, label, sw, off, adj = args[:7]
            assert _num(adj) == 0, line
            nops = max(_num(imm) // 2 - 2, 0) if label == "1b" else 0
            link = 32 + 4 * nops + 4
            value = link ^ (1 if label == "1b" else 3)
        elif name == "TEST_JALR_OP":  # 5: la rd; la rs1; jalr rd, imm(rs1) -> 3: xori rd, 3; 4: rd -= 5b
            _, rd, _, _, sw, off, adj = args[:7]
            assert _num(adj) == 0, line
            value = (16 + 4) ^ 3
        elif name == "TEST_AMO_OP":  # the word holds the original value, then the result; rd follows
            op, rd, _, rs2, orig, upd, sw, off = args[:8]
            a, b = reg(rs2, orig), reg(rs2, upd)
            writes[(base[sw], _off(off))] = (4, REF[op](a, b) & M32)
            writes[(base[sw], _off(off) + 4)] = (4, 0 if rd == "x0" else a)
            continue
        else:
            raise ValueError(f"{src.name}: no reference for {name}")
        writes[(base[sw], _off(off))] = (4, 0 if rd == "x0" else value & M32)
    return writes


def expected_image(src: pathlib.Path, initial: bytes, begin: int, symbols: dict) -> bytes:
    """The whole signature region as the reference has it: the ELF's initial contents
    (fill words and canaries) with the writes of :func:`expected` applied."""
    img = bytearray(initial)
    for (label, off), (width, value) in expected(src).items():
        at = symbols[label] + off - begin
        img[at:at + width] = value.to_bytes(width, "little")
    return bytes(img)


def against_ttsim(tile, sym: dict, lib: str):
    """Run on ttsim's library what ``tile`` (loaded with ``record=True`` and run by
    :func:`run`) ran; returns the comparison of the data area (a RegionDiff)."""
    from ttemu.cmd.oracle import cross_check

    n = sym["rvmodel_done"] + 4 - DATA_BASE
    diffs, _ = cross_check(tile, lib, [("signatures", DATA_BASE, n)], until=[(sym["rvmodel_done"], 1)])
    return diffs[0]


# ------------------------------------------------------------------ command line
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="/tmp/ttemu-rv-archtests", help="where the tests are generated and built")
    ap.add_argument("--arch", choices=["blackhole", "wormhole_b0"], default="blackhole")
    ap.add_argument("--oracle", metavar="LIB", help="also compare with this ttsim library (libttsim_bh.so ...)")
    ap.add_argument("--regenerate", action="store_true", help="run riscv-ctg even if --out holds the tests")
    args = ap.parse_args(argv)
    why = available()
    if why:
        print(f"error: {why}", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out)
    sets = tuple(SETS) if args.arch == "blackhole" else BASE_SETS
    names = [m for s in sets for m in SETS[s]]
    if args.regenerate or not all((out / f"{m}-01.S").exists() for m in names):
        generate(out, tuple(SETS))
    compile_all(out, [m for s in SETS for m in SETS[s]])
    elf = link(out, names, args.arch)
    tile, sym, before, after = run(elf, args.arch, record=bool(args.oracle))
    bad = mismatches(out, names, sym, before, after)
    checked = bad.pop(None)
    cases = sum(len(re.findall(r"^inst_\d+:", (out / f"{m}-01.S").read_text(), re.M)) for m in names)
    for m, d in bad.items():
        print(f"{m}: {len(d)} signature words differ from the reference, first at 0x{d[0][0]:08x}: "
              f"ttemu {d[0][1]}, reference {d[0][2]}")
    print(f"{args.arch}: {len(names)} tests, {cases} cases, {checked} signature words; "
          f"{len(names) - len(bad)} match the reference, {len(bad)} differ")
    ok = not bad
    if args.oracle:
        diff = against_ttsim(tile, sym, args.oracle)
        print(f"ttsim: {'identical' if diff.ok else diff.text()}")
        ok = ok and diff.ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
