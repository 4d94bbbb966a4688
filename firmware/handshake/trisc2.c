#include "handshake.h"

int main(void)
{
    for (uint32_t i = 0; i < HS_TILES; ++i) {
        TTE_INSN_SEMWAIT(STALL_TDMA | STALL_SYNC, 1u << SEM_MATH_PACK, STALL_ON_ZERO);
        TTE_INSN_SEMGET(1u << SEM_MATH_PACK);
    }
    tensix_sync();
    HS_SEM_AT_END = SEMAPHORE(SEM_MATH_PACK);
    MAILBOX(0) = HS_TILES; /* TRISC2 writing region 0 -> the mailbox to BRISC */
    return 0;
}
