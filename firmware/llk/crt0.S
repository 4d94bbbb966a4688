/* crt0.S (llk layout): start-up as tt-llk's test firmware does it (facts from
 * docs/llk-test-protocol.md §3.1): sp at the top of local RAM, zero the local .bss,
 * copy the local data from its L1 staging area (__loader_init_start) into local RAM,
 * call main, then park in `j .` (ttemu reports a parked core as halted).
 */
    .file   "crt0.S"
    .section .text.start, "ax", @progbits
    .globl  _start
    .type   _start, @function
_start:
    lui     sp, %hi(__stack_top)
    addi    sp, sp, %lo(__stack_top)
    lui     t0, %hi(__ldm_bss_start)
    addi    t0, t0, %lo(__ldm_bss_start)
    lui     t1, %hi(__ldm_bss_end)
    addi    t1, t1, %lo(__ldm_bss_end)
1:  bgeu    t0, t1, 2f
    sw      zero, 0(t0)
    addi    t0, t0, 4
    j       1b
2:  lui     t0, %hi(__ldm_data_start)
    addi    t0, t0, %lo(__ldm_data_start)
    lui     t1, %hi(__ldm_data_end)
    addi    t1, t1, %lo(__ldm_data_end)
    lui     t2, %hi(__loader_init_start)
    addi    t2, t2, %lo(__loader_init_start)
3:  bgeu    t0, t1, 4f
    lw      a0, 0(t2)
    sw      a0, 0(t0)
    addi    t0, t0, 4
    addi    t2, t2, 4
    j       3b
4:  call    main
    .globl  _park
    .type   _park, @function
_park:
    j       _park
    .size   _start, . - _start
