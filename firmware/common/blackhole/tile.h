/* tile.h (Blackhole): addresses of one Blackhole Tensix tile as the baby RISC-V cores
 * see them, for ttemu's firmware built with `scripts/build_firmware.py --arch
 * blackhole` (this directory comes before firmware/common on the include path, so
 * `#include "tile.h"` finds this file instead of the Wormhole B0 one).
 *
 * Sources: tt-isa-documentation (jasondavies fork) BlackholeA0/TensixTile/BabyRISCV/
 * README.md (memory map, local data RAM sizes); tt-metal hw/inc/internal/tt-1xx/
 * blackhole/tensix.h (RISCV_DEBUG_REG_SOFT_RESET_0, RISCV_DEBUG_REG_TRISC0_RESET_PC,
 * ..._TRISC_RESET_PC_OVERRIDE, ..._NCRISC_RESET_PC_OVERRIDE), tt-llk's
 * tests/helpers/ld/memory.blackhole.ld (8 KiB / 4 KiB local RAM). Unlike Wormhole B0,
 * the reset-PC overrides are tile debug registers, not Tensix configuration words.
 * ttemu/arch/blackhole.py holds the same facts for the emulator.
 */
#ifndef FIRMWARE_TILE_H
#define FIRMWARE_TILE_H

#include <stdint.h>

#define TILE_ARCH_BLACKHOLE 1

/* L1: 1536 KiB shared by all five cores and the Tensix coprocessor, at address 0. */
#define TILE_L1_BASE 0x00000000u
#define TILE_L1_SIZE (1536u * 1024u)

/* Core-local data RAM: the same address on every core, a different RAM per core. */
#define TILE_LOCAL_MEM_BASE 0xFFB00000u
#define TILE_LOCAL_MEM_SIZE_BRISC 8192u
#define TILE_LOCAL_MEM_SIZE_TRISC 4096u
#define TILE_LOCAL_MEM_SIZE_NCRISC 8192u

/* Soft reset (same register and bits as Wormhole B0): a set bit holds that core in
 * reset; clearing it starts the core at its reset PC. */
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

/* Reset-PC overrides (tile debug registers). Bit i of TILE_TRISC_RESET_PC_OVERRIDE
 * makes TRISC i start at the word at TILE_TRISC_RESET_PC(i); bit 0 of
 * TILE_NCRISC_RESET_PC_OVERRIDE does the same for NCRISC with TILE_NCRISC_RESET_PC.
 * Write them before releasing the core. */
#define TILE_DEBUG_REGS_BASE 0xFFB12000u
#define TILE_TRISC_RESET_PC(i) (TILE_DEBUG_REGS_BASE + 0x228u + 4u * (i))  /* 0xFFB12228 + 4*i */
#define TILE_TRISC_RESET_PC_OVERRIDE (TILE_DEBUG_REGS_BASE + 0x234u)     /* 0xFFB12234 */
#define TILE_NCRISC_RESET_PC (TILE_DEBUG_REGS_BASE + 0x238u)             /* 0xFFB12238 */
#define TILE_NCRISC_RESET_PC_OVERRIDE (TILE_DEBUG_REGS_BASE + 0x23Cu)    /* 0xFFB1223C */

/* Tensix backend configuration (Config words, bank 0), as on Wormhole B0. */
#define TILE_CFG_BASE 0xFFEF0000u

/* A 32-bit memory-mapped word. */
#define TILE_REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* Park the core: `j .` (jal x0, 0) is how ttemu recognises a halted core. */
static inline __attribute__((noreturn)) void tile_halt(void)
{
    for (;;)
        __asm__ volatile("j .");
}

#endif /* FIRMWARE_TILE_H */
