#include "handshake.h"

int main(void)
{
    /* push to T1 (INSTRN1_BUF_BASE: only RISCV B can) after its MOP expander */
    *(volatile uint32_t *)0xFFE50000u = TTE_SEMINIT(2, 0, 1u << SEM_MATH_PACK);
    TILE_REG32(TILE_SOFT_RESET) &= ~(TILE_SOFT_RESET_TRISC(1) | TILE_SOFT_RESET_TRISC(2));
    PC_BUF(1) = HS_TILES;
    HS_RESULT = MAILBOX(3); /* blocking pop: TRISC2 -> BRISC */
    return 0;
}
