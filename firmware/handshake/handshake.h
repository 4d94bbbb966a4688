/* handshake: the math -> pack semaphore handshake of seed 002 (pattern 4) across
 * Tensix threads T1 and T2, with the RISC-V side synchronised through a PCBuf, TTSync
 * and a mailbox.
 *
 *   brisc   seeds semaphore 1 (MATH_PACK: value 0, max 2) through T1, releases
 *           TRISC1/2, sends the tile count to TRISC1 through PCBuf[1], then blocks on
 *           the mailbox from TRISC2 and stores what it receives.
 *   trisc1  (math) reads the count from its PCBuf; per tile: SEMWAIT until sem1 has
 *           room (STALL_ON_MAX), SEMPOST; then waits in TTSync until T1 drained.
 *   trisc2  (pack) per tile: SEMWAIT until sem1 has data (STALL_ON_ZERO), SEMGET;
 *           TTSync; then mails the tile count it consumed to BRISC.
 */
#ifndef HANDSHAKE_H
#define HANDSHAKE_H

#include "tile.h"
#include "ttemu_tensix.h"

#define HS_TILES 5u
#define HS_RESULT (*(volatile uint32_t *)0x20000u)   /* written by brisc: tiles packed */
#define HS_MATH_DONE (*(volatile uint32_t *)0x20004u) /* written by trisc1 */
#define HS_SEM_AT_END (*(volatile uint32_t *)0x20008u) /* trisc2: sem1 value after draining */

#define PC_BUF(i) (*(volatile uint32_t *)(0xFFE80000u + 0x10000u * (i))) /* B side, from brisc */
#define PC_BUF_T (*(volatile uint32_t *)0xFFE80000u)  /* T side */
#define TTSYNC (*(volatile uint32_t *)0xFFE80004u)
#define SEMAPHORE(i) (*(volatile uint32_t *)(0xFFE80020u + 4u * (i)))
#define MAILBOX(k) (*(volatile uint32_t *)(0xFFEC0000u + 0x1000u * (k)))

#define SEM_MATH_PACK 1u
#define STALL_SYNC 0x002u
#define STALL_TDMA 0x001u
#define STALL_MATH 0x040u
#define STALL_SFPU 0x100u
#define STALL_ON_ZERO 1u
#define STALL_ON_MAX 2u

/* Wait until this core's Tensix thread has drained (TTSync, BabyRISCV/TTSync.md). */
static inline void tensix_sync(void)
{
    TTSYNC = 0;
    uint32_t v = TTSYNC;
    __asm__ volatile("" ::"r"(v));
}

#endif
