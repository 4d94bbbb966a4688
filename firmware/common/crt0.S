/* crt0.S: start-up code shared by every core's firmware.
 *
 * The linker scripts put _start first in the core's code window, i.e. at its reset
 * PC. It sets sp to the top of the core's local data RAM (__stack_top), zeroes
 * .bss (word by word; the scripts align both ends to 4), calls main, and parks the
 * core in `j .` when main returns: ttemu reports that core as halted.
 * gp/tp are not used (the firmware is built with -msmall-data-limit=0).
 */
    .file   "crt0.S"  /* a fixed STT_FILE name (else the assembler uses a temp file name) */
    .section .text.start, "ax", @progbits
    .globl  _start
    .type   _start, @function
_start:
    lui     sp, %hi(__stack_top)
    addi    sp, sp, %lo(__stack_top)
    lui     t0, %hi(__bss_start)
    addi    t0, t0, %lo(__bss_start)
    lui     t1, %hi(__bss_end)
    addi    t1, t1, %lo(__bss_end)
1:  bgeu    t0, t1, 2f
    sw      zero, 0(t0)
    addi    t0, t0, 4
    j       1b
2:  call    main
    .globl  _park
    .type   _park, @function
_park:
    j       _park
    .size   _start, . - _start
