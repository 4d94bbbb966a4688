/* llk_sync.h: RISC-V side synchronisation with the Tensix coprocessor (facts:
 * tt-isa-documentation WormholeB0/TensixTile/BabyRISCV/TTSync.md, SyncUnit.md,
 * Mailboxes.md). */
#ifndef LLK_SYNC_H
#define LLK_SYNC_H

#include <stdint.h>

#include "llk_layout.h"

#define LLK_PC_BUF_BASE 0xFFE80000u
#define LLK_TTSYNC (LLK_PC_BUF_BASE + 4u)      /* CoprocessorDoneCheck */
#define LLK_MOPSYNC (LLK_PC_BUF_BASE + 8u)     /* MOPExpanderDoneCheck */
#define LLK_SEMAPHORE(i) (LLK_PC_BUF_BASE + 0x20u + 4u * (i))

#define LLK_REG32(a) (*(volatile uint32_t *)(uintptr_t)(a))

/* Store then load: the load returns once this thread's Tensix instructions drained. */
static inline void llk_tensix_sync(void)
{
    LLK_REG32(LLK_TTSYNC) = 0;
    uint32_t v = LLK_REG32(LLK_TTSYNC);
    __asm__ volatile("" ::"r"(v));
}

/* Wait until the MOP expander of this thread is done (before rewriting MopCfg). */
static inline void llk_mop_sync(void)
{
    LLK_REG32(LLK_MOPSYNC) = 0;
    uint32_t v = LLK_REG32(LLK_MOPSYNC);
    __asm__ volatile("" ::"r"(v));
}

static inline uint32_t llk_sem_read(unsigned i) { return LLK_REG32(LLK_SEMAPHORE(i)); }
static inline void llk_sem_post(unsigned i) { LLK_REG32(LLK_SEMAPHORE(i)) = 0; }
static inline void llk_sem_get(unsigned i) { LLK_REG32(LLK_SEMAPHORE(i)) = 1; }

/* Drain this thread, then report completion in the kernel's mailbox word. */
static inline void llk_done(uint32_t mailbox)
{
    llk_tensix_sync();
    LLK_REG32(mailbox) = LLK_KERNEL_COMPLETE;
}

#endif
