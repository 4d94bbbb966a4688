/* llk_cfg.h: writing the Tensix backend configuration from a TRISC.
 *
 * Two ways, with different ordering guarantees (tt-isa-documentation
 * WormholeB0/TensixTile/TensixCoprocessor/BackendConfiguration.md,
 * ConfigurationUnit.md, WRCFG.md, SETC16.md, SETDMAREG_Immediate.md, STALLWAIT.md):
 *
 *  - RISC-V stores to Config[0] at 0xFFEF0000 + 4*index (llk_cfg_write). A store is
 *    not ordered with the Tensix instructions this core has already pushed: it may
 *    land while an earlier instruction still sits in the thread's FIFO or at its
 *    wait gate. Use it only to set up configuration before pushing the first
 *    instruction that reads it, then push llk_cfg_fence_riscv(block) so that the
 *    blocked units wait until the store has reached the coprocessor (STALLWAIT
 *    condition C13).
 *  - Tensix-side writes (llk_tt_cfg_write): SETDMAREG twice (16 bits each) into a
 *    scratch GPR, STALLWAIT(STALL_CFG, THCON | <the units still reading the old
 *    value>), WRCFG. They travel through the thread's FIFO, so they take effect
 *    exactly between the instructions pushed before and after them. Use them for
 *    per-tile changes (input / output addresses, Dst offsets).
 *  - ThreadConfig (per thread) is only written with SETC16 (llk_setc16).
 *
 * Ownership convention (Config words are shared by the three threads; a RISC-V
 * read-modify-write of a word another thread also writes could lose an update):
 * the unpack thread owns the ALU format word (1, Dstacc included) and the unpacker
 * words, the pack thread owns the packer words; the math thread writes only its own
 * ThreadConfig; word 0 (format overrides) is never written. Every RISC-V write here
 * stores a whole word, and only words tt-llk's code for the arch writes.
 */
#ifndef LLK_CFG_H
#define LLK_CFG_H

#include <stdint.h>

#include "llk_arch.h"
#include "llk_sync.h"
#include "ttemu_cfg.h"
#include "ttemu_tensix.h"

#define LLK_CFG_BASE 0xFFEF0000u
#define LLK_CFG_ADDR(idx) (LLK_CFG_BASE + 4u * (idx))

/* A field value placed in its word: LLK_CFG_FIELD(PCK_EDGE_OFFSET_SEC0_mask, 0xFFFF). */
#define LLK_CFG_FIELD(name, v) ((((uint32_t)(v)) << TTE_CFG_##name##_SHIFT) & TTE_CFG_##name##_MASK)
#define LLK_CFG_IDX(name) TTE_CFG_##name##_IDX
#define LLK_THCFG_FIELD(name, v) ((((uint32_t)(v)) << TTE_THCFG_##name##_SHIFT) & TTE_THCFG_##name##_MASK)
#define LLK_THCFG_IDX(name) TTE_THCFG_##name##_IDX

/* Tensix data format codes (Packers/FormatConversion.md encoding table). */
#define LLK_FMT_FLOAT32 0u
#define LLK_FMT_FLOAT16 1u
#define LLK_FMT_BFP8 2u
#define LLK_FMT_TF32 4u
#define LLK_FMT_FLOAT16_B 5u
#define LLK_FMT_BFP8_B 6u
#define LLK_FMT_INT32 8u
#define LLK_FMT_UINT16 9u

/* STALLWAIT / SEMWAIT block mask bits (STALLWAIT.md, B0..B8). */
#define LLK_STALL_TDMA 0x001u
#define LLK_STALL_SYNC 0x002u
#define LLK_STALL_PACK 0x004u
#define LLK_STALL_UNPACK 0x008u
#define LLK_STALL_XMOV 0x010u
#define LLK_STALL_THCON 0x020u
#define LLK_STALL_MATH 0x040u
#define LLK_STALL_CFG 0x080u
#define LLK_STALL_SFPU 0x100u

/* STALLWAIT condition bits LLK_WAIT_*: per arch, in llk_arch.h. */

/* Which ADC sets a SETADC* instruction writes (CntSetMask bits U0, U1, PK; ADCs.md,
 * MiscellaneousUnit.md): unpacker 0, unpacker 1, the packers, of the issuing thread. */
#define LLK_ADC_UNP0 1u
#define LLK_ADC_UNP1 2u
#define LLK_ADC_PACK 4u

/* The GPR (of each thread's own 64) the Tensix-side config writes go through. */
#define LLK_GPR_CFG_TMP 60u

/* RISC-V store of a whole Config[0] word (see the ordering rule above). */
static inline void llk_cfg_write(uint32_t idx, uint32_t value)
{
    LLK_REG32(LLK_CFG_ADDR(idx)) = value;
}

static inline uint32_t llk_cfg_read(uint32_t idx)
{
    return LLK_REG32(LLK_CFG_ADDR(idx));
}

/* After RISC-V config stores: units in `block` wait until the stores have arrived
 * (STALLWAIT.md pattern "block unpacker until RISC-V config writes complete"). */
static inline void llk_cfg_fence_riscv(uint32_t block)
{
    tte_push(TTE_STALLWAIT(block, LLK_WAIT_TRISC_CFG));
}

/* Tensix-side 32-bit write of Config[StateID][idx], ordered with this thread's other
 * Tensix instructions. `wait` names the units (LLK_WAIT_*) that must have finished
 * with the old value first (LLK_WAIT_THCON, for the SETDMAREGs, is always added). */
static inline void llk_tt_cfg_write(uint32_t idx, uint32_t value, uint32_t wait)
{
    tte_push(TTE_SETDMAREG_IMM(value & 0xFFFFu, 2u * LLK_GPR_CFG_TMP));
    tte_push(TTE_SETDMAREG_IMM(value >> 16, 2u * LLK_GPR_CFG_TMP + 1u));
    tte_push(TTE_STALLWAIT(LLK_STALL_CFG, LLK_WAIT_THCON | wait));
    tte_push(TTE_WRCFG(LLK_GPR_CFG_TMP, 0, idx));
}

/* ThreadConfig[this thread][idx] = value (16 bits), in instruction order. */
static inline void llk_setc16(uint32_t idx, uint32_t value)
{
    tte_push(TTE_SETC16(idx, value));
}

#endif
