#include "handshake.h"

int main(void)
{
    uint32_t tiles = PC_BUF_T; /* blocks until BRISC sends the count */
    for (uint32_t i = 0; i < tiles; ++i) {
        TTE_INSN_SEMWAIT(STALL_SYNC | STALL_MATH | STALL_SFPU, 1u << SEM_MATH_PACK, STALL_ON_MAX);
        TTE_INSN_SEMPOST(1u << SEM_MATH_PACK);
    }
    tensix_sync();
    HS_MATH_DONE = tiles;
    return 0;
}
