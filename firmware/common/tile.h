/* tile.h: addresses of one Wormhole B0 Tensix tile as the baby RISC-V cores see
 * them, for ttemu's firmware (firmware/<prog>/<core>.c).
 *
 * Sources: tt-isa-documentation WormholeB0/TensixTile/BabyRISCV/README.md (memory
 * map), WormholeB0/TensixTile/SoftReset.md (soft reset bits, reset PCs); the
 * reset-PC override words are Tensix backend configuration words 158..163
 * (TRISC_RESET_PC_SEC<i>_PC, TRISC_RESET_PC_OVERRIDE, NCRISC_RESET_PC_PC and its
 * enable), config word k being at TILE_CFG_BASE + 4*k. ttemu/arch/wormhole_b0.py
 * holds the same facts for the emulator.
 */
#ifndef FIRMWARE_TILE_H
#define FIRMWARE_TILE_H

#include <stdint.h>

/* L1: 1464 KiB shared by all five cores and the Tensix coprocessor, at address 0. */
#define TILE_L1_BASE 0x00000000u
#define TILE_L1_SIZE (1464u * 1024u)

/* Core-local data RAM: the same address on every core, a different RAM per core. */
#define TILE_LOCAL_MEM_BASE 0xFFB00000u
#define TILE_LOCAL_MEM_SIZE_BRISC 4096u
#define TILE_LOCAL_MEM_SIZE_TRISC 2048u
#define TILE_LOCAL_MEM_SIZE_NCRISC 4096u

/* Soft reset: a set bit holds that core in reset; clearing it starts the core at
 * its reset PC. At power-on every core is held (0x47800); the host releases BRISC. */
#define TILE_SOFT_RESET 0xFFB121B0u
#define TILE_SOFT_RESET_INIT 0x00047800u
#define TILE_SOFT_RESET_BRISC (1u << 11)
#define TILE_SOFT_RESET_TRISC(i) (1u << (12 + (i))) /* i = 0, 1, 2 */
#define TILE_SOFT_RESET_TRISCS (TILE_SOFT_RESET_TRISC(0) | TILE_SOFT_RESET_TRISC(1) | TILE_SOFT_RESET_TRISC(2))
#define TILE_SOFT_RESET_NCRISC (1u << 18)

/* Default reset PCs (where each core's code window starts, see brisc.ld etc.). */
#define TILE_RESET_PC_BRISC 0x00000000u
#define TILE_RESET_PC_TRISC0 0x00006000u
#define TILE_RESET_PC_TRISC1 0x0000A000u
#define TILE_RESET_PC_TRISC2 0x0000E000u
#define TILE_RESET_PC_NCRISC 0x00012000u

/* Reset-PC overrides (Tensix backend configuration). Bit i of
 * TILE_TRISC_RESET_PC_OVERRIDE makes TRISC i start at the word at
 * TILE_TRISC_RESET_PC(i); bit 0 of TILE_NCRISC_RESET_PC_OVERRIDE does the same
 * for NCRISC with TILE_NCRISC_RESET_PC. Write them before releasing the core. */
#define TILE_CFG_BASE 0xFFEF0000u
#define TILE_TRISC_RESET_PC(i) (TILE_CFG_BASE + 4u * (158u + (i)))  /* 0xFFEF0278 + 4*i */
#define TILE_TRISC_RESET_PC_OVERRIDE (TILE_CFG_BASE + 4u * 161u)    /* 0xFFEF0284 */
#define TILE_NCRISC_RESET_PC (TILE_CFG_BASE + 4u * 162u)            /* 0xFFEF0288 */
#define TILE_NCRISC_RESET_PC_OVERRIDE (TILE_CFG_BASE + 4u * 163u)   /* 0xFFEF028C */

/* A 32-bit memory-mapped word. */
#define TILE_REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* Park the core: `j .` (jal x0, 0) is how ttemu recognises a halted core. */
static inline __attribute__((noreturn)) void tile_halt(void)
{
    for (;;)
        __asm__ volatile("j .");
}

#endif /* FIRMWARE_TILE_H */
