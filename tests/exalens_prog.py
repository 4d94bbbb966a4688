"""A small BRISC program for the debugger tests, built at test time with the stock
cross compiler (``riscv64-unknown-elf-gcc``; the test skips without it).

``_start`` (section ``.init`` at 0, where tt-exalens's loader starts BRISC) sets the
stack in BRISC's local data RAM and calls ``main``; ``main`` writes a Tensix GPR of
thread 1 and a Config word (what ``get_tensix_state`` shows), then calls ``middle`` ->
``leaf``, which stops at an ``ebreak`` (a call stack two frames deep); after it the
result ``(5 + 1) * 3 + 1 = 19`` goes to ``result`` (L1 0x10000) and ``main`` loops,
counting in ``ticks`` (0x10004).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ttemu.arch import get_arch

RESULT, TICKS = 0x10000, 0x10004
GPR_T1_5 = 0x1234ABCD  # Tensix GPR 5 of thread 1
CFG_FIELD = "ALU_FORMAT_SPEC_REG2_Dstacc"  # set to 5 (Float16_b) by the program
CFG_VALUE = 5

SOURCE = r"""
volatile unsigned int result;
volatile unsigned int ticks;

__attribute__((noinline)) int leaf(int x) {
    __asm__ volatile("ebreak");
    return x * 3;
}

__attribute__((noinline)) int middle(int x) { return leaf(x + 1) + 1; }

int main(void) {
    ((volatile unsigned int *)0xFFE00000)[64 + 5] = GPR_VALUE;  /* RISCV B sees T0, T1, T2's GPRs */
    volatile unsigned int *cfg = (volatile unsigned int *)(0xFFEF0000 + 4 * CFG_WORD);
    *cfg = (*cfg & ~CFG_MASK) | (CFG_VALUE << CFG_SHIFT);
    result = middle(5);
    for (;;) ticks++;
}

__attribute__((section(".init"), naked)) void _start(void) {
    __asm__ volatile("li sp, 0xFFB00FF0\n call main\n 1: j 1b");
}
"""

LINKER = """
ENTRY(_start)
SECTIONS {
  .init 0x0 : { *(.init) }
  .text : { *(.text*) }
  .bss 0x10000 : { *(.bss*) *(.sbss*) *(COMMON) }
}
"""


def build(arch: str, out_dir) -> str:
    """Compile the program for ``arch`` into ``out_dir``; -> the ELF's path."""
    gcc = shutil.which("riscv64-unknown-elf-gcc")
    if gcc is None:
        pytest.skip("no RISC-V cross compiler (riscv64-unknown-elf-gcc)")
    from ttemu.tensix.regs.config import field_tables  # the arch's Config layout

    word, shift, width = field_tables(get_arch(arch).name)[0][CFG_FIELD]
    src = out_dir / "prog.c"
    ld = out_dir / "prog.ld"
    elf = out_dir / f"prog_{arch}.elf"
    src.write_text(SOURCE)
    ld.write_text(LINKER)
    defines = [f"-DGPR_VALUE={GPR_T1_5:#x}u", f"-DCFG_WORD={word}", f"-DCFG_SHIFT={shift}",
               f"-DCFG_MASK={((1 << width) - 1) << shift:#x}u", f"-DCFG_VALUE={CFG_VALUE}u"]
    subprocess.run([gcc, "-march=rv32im", "-mabi=ilp32", "-g", "-O0", "-nostdlib", "-nostartfiles",
                    "-ffreestanding", *defines, "-T", str(ld), str(src), "-o", str(elf)], check=True)
    return str(elf)
