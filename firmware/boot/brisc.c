/* boot/brisc.c: the BRISC side of tt-llk's test protocol (facts in
 * docs/llk-test-protocol.md §2), for the project's own kernels:
 *   1. program the TRISC start PCs (config words 158-160) and their override
 *      enables (word 161), since the llk layout does not start TRISC code at the
 *      default reset PCs;
 *   2. clear the three completion mailboxes;
 *   3. push the initialisation instructions to Tensix T0 (they enter after T0's MOP
 *      expander): clear Dst, enable SFPU conditional execution, a NOP, LReg 11 =
 *      -1.0, and semaphores 2 (unpack-to-Dst), 7 (math done) and 4 (pack done) with
 *      value 0, max 1;
 *   4. release TRISC0-2 and park.
 */
#include "llk_layout.h"
#include "tile.h"
#include "ttemu_tensix.h"

#define CFG_WORD(i) TILE_REG32(TILE_CFG_BASE + 4u * (i))

int main(void)
{
    CFG_WORD(158) = LLK_CODE_TRISC0;
    CFG_WORD(159) = LLK_CODE_TRISC1;
    CFG_WORD(160) = LLK_CODE_TRISC2;
    CFG_WORD(161) = 0x7u;

    TILE_REG32(LLK_MAILBOX_UNPACK) = 0;
    TILE_REG32(LLK_MAILBOX_MATH) = 0;
    TILE_REG32(LLK_MAILBOX_PACK) = 0;

    TTE_INSN(TTE_ZEROACC(3, 0, 0));
    TTE_INSN(TTE_SFPENCC(3, 0, 0, 10));
    TTE_INSN(TTE_NOP());
    TTE_INSN(TTE_SFPCONFIG(0, 11, 1));
    TTE_INSN(TTE_SEMINIT(1, 0, 1u << 2));
    TTE_INSN(TTE_SEMINIT(1, 0, 1u << 7));
    TTE_INSN(TTE_SEMINIT(1, 0, 1u << 4));

    TILE_REG32(TILE_SOFT_RESET) &= ~TILE_SOFT_RESET_TRISCS;
    return 0;
}
