/* llk_sem.h: Tensix semaphores as the kernels use them (tt-isa-documentation
 * WormholeB0/TensixTile/TensixCoprocessor/SyncUnit.md, SEMINIT.md, SEMPOST.md,
 * SEMGET.md, SEMWAIT.md, STALLWAIT.md; the usage patterns of seed 002).
 *
 * Semaphore numbers follow tt-llk's conventions (docs/llk-test-protocol.md §2.2);
 * the boot program initialises 2, 7 and 4 to value 0 / max 1.
 *
 *   LLK_SEM_MATH_PACK (1)       Dst halves math has filled and pack has not yet
 *                               drained. The math thread initialises it with max 2
 *                               (two Dst halves): math waits while it is at max
 *                               before writing a half and posts when the half is
 *                               complete; pack waits while it is zero, packs the
 *                               half, then gets (frees the half).
 *   LLK_SEM_UNPACK_TO_DEST (2)  a tile unpacked straight into Dst (max 1): unpack
 *                               waits while it is at max, unpacks, posts; math waits
 *                               while it is zero and gets once it has handed the
 *                               half on to pack.
 *
 * The instructions are pushed through this core's Tensix thread, so they take
 * effect in order with the thread's other instructions.
 */
#ifndef LLK_SEM_H
#define LLK_SEM_H

#include <stdint.h>

#include "llk_cfg.h"

#define LLK_SEM_FPU_SFPU 0u
#define LLK_SEM_MATH_PACK 1u
#define LLK_SEM_UNPACK_TO_DEST 2u
#define LLK_SEM_UNPACK_OPERAND_SYNC 3u
#define LLK_SEM_PACK_DONE 4u
#define LLK_SEM_UNPACK_SYNC 5u
#define LLK_SEM_UNPACK_MATH_DONE 6u
#define LLK_SEM_MATH_DONE 7u
#define LLK_SEM_BIT(i) (1u << (i))

/* SEMWAIT condition bits (SEMWAIT.md). */
#define LLK_STALL_ON_ZERO 1u
#define LLK_STALL_ON_MAX 2u

/* SEMINIT: semaphore `sem` = value `init`, maximum `max`. */
static inline void llk_sem_init(uint32_t sem, uint32_t max, uint32_t init)
{
    tte_push(TTE_SEMINIT(max, init, LLK_SEM_BIT(sem)));
}

/* The units in `block` wait while semaphore `sem` is at its maximum (no room).
 * LLK_STALL_SYNC is always added: only B1 blocks a later SEMWAIT / SEMPOST / SEMGET
 * (STALLWAIT.md block table), so without it a following SEMWAIT would replace this
 * latched wait before its condition was met, and a semaphore update meant to follow
 * the wait could overtake it. */
static inline void llk_sem_wait_room(uint32_t block, uint32_t sem)
{
    tte_push(TTE_SEMWAIT(block | LLK_STALL_SYNC, LLK_SEM_BIT(sem), LLK_STALL_ON_MAX));
}

/* The units in `block` (and the Sync Unit) wait while semaphore `sem` is zero. */
static inline void llk_sem_wait_data(uint32_t block, uint32_t sem)
{
    tte_push(TTE_SEMWAIT(block | LLK_STALL_SYNC, LLK_SEM_BIT(sem), LLK_STALL_ON_ZERO));
}

/* Increment `sem` once the units in `wait` (LLK_WAIT_*) have finished this thread's
 * earlier work; wait = 0 posts at once. */
static inline void llk_sem_post_after(uint32_t sem, uint32_t wait)
{
    if (wait)
        tte_push(TTE_STALLWAIT(LLK_STALL_SYNC, wait));
    tte_push(TTE_SEMPOST(LLK_SEM_BIT(sem)));
}

/* Decrement `sem` once the units in `wait` have finished; wait = 0 gets at once. */
static inline void llk_sem_get_after(uint32_t sem, uint32_t wait)
{
    if (wait)
        tte_push(TTE_STALLWAIT(LLK_STALL_SYNC, wait));
    tte_push(TTE_SEMGET(LLK_SEM_BIT(sem)));
}

#endif
