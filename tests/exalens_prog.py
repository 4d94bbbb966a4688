"""A small BRISC program for the debugger tests, built at test time with the stock
cross compiler (``riscv64-unknown-elf-gcc``; the test skips without it).

``_start`` (section ``.init`` at 0, where tt-exalens's loader starts BRISC) sets the
stack in the core's local data RAM and calls ``main``; ``main`` writes (on BRISC) a
Tensix GPR of thread 1 and a Config word (what ``get_tensix_state`` shows), then calls ``middle`` ->
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
#ifdef ON_BRISC
    ((volatile unsigned int *)0xFFE00000)[64 + 5] = GPR_VALUE;  /* RISCV B sees T0, T1, T2's GPRs */
#endif
    volatile unsigned int *cfg = (volatile unsigned int *)(0xFFEF0000 + 4 * CFG_WORD);
    *cfg = (*cfg & ~CFG_MASK) | (CFG_VALUE << CFG_SHIFT);
    result = middle(5);
    for (;;) ticks++;
}

__attribute__((section(".init"), naked)) void _start(void) {
    __asm__ volatile("li sp, " STACK "\n call main\n 1: j 1b");
}
"""

LINKER = """
ENTRY(_start)
SECTIONS {
  .init INIT : { *(.init) }
  .text : { *(.text*) }
  .bss 0x10000 : { *(.bss*) *(.sbss*) *(COMMON) }
}
"""


def build(arch: str, out_dir, core: str = "brisc") -> str:
    """Compile the program for ``core`` of ``arch`` into ``out_dir``; -> the ELF's path.
    BRISC's starts at 0 (its reset pc); a TRISC's at 0x20000 (exalens points the core's
    reset-pc override there), with the stack at the top of the TRISC's 2 KiB."""
    gcc = shutil.which("riscv64-unknown-elf-gcc")
    if gcc is None:
        pytest.skip("no RISC-V cross compiler (riscv64-unknown-elf-gcc)")
    from ttemu.tensix.regs.config import field_tables  # the arch's Config layout

    word, shift, width = field_tables(get_arch(arch).name)[0][CFG_FIELD]
    src = out_dir / "prog.c"
    ld = out_dir / f"prog_{core}.ld"
    elf = out_dir / f"prog_{arch}_{core}.elf"
    src.write_text(SOURCE)
    ld.write_text(LINKER.replace("INIT", "0x0" if core == "brisc" else "0x20000"))
    stack = "0xFFB00FF0" if core in ("brisc", "ncrisc") else "0xFFB007F0"
    defines = [f'-DSTACK="{stack}"', *(["-DON_BRISC"] if core == "brisc" else []), f"-DGPR_VALUE={GPR_T1_5:#x}u", f"-DCFG_WORD={word}", f"-DCFG_SHIFT={shift}",
               f"-DCFG_MASK={((1 << width) - 1) << shift:#x}u", f"-DCFG_VALUE={CFG_VALUE}u"]
    subprocess.run([gcc, "-march=rv32im", "-mabi=ilp32", "-g", "-O0", "-nostdlib", "-nostartfiles",
                    "-ffreestanding", *defines, "-T", str(ld), str(src), "-o", str(elf)], check=True)
    return str(elf)
