/* boot/brisc.c: the BRISC side of tt-llk's test protocol (facts in
 * docs/llk-test-protocol.md §2), for the project's own kernels:
 *   1. program the TRISC start PCs and their override enables (tile.h: Wormhole
 *      config words 158-161, Blackhole debug registers 0xFFB12228..34), since the
 *      llk layout does not start TRISC code at the default reset PCs; on Blackhole
 *      also llk_arch_boot_setup (as tt-llk's device_setup);
 *   2. clear the three completion mailboxes;
 *   3. push the initialisation instructions to Tensix T0 (they enter after T0's MOP
 *      expander): clear Dst, enable SFPU conditional execution, a NOP, LReg 11 =
 *      -1.0, and semaphores 2 (unpack-to-Dst), 7 (math done) and 4 (pack done) with
 *      value 0, max 1;
 *   4. release TRISC0-2 and park.
 */
#include "llk_arch.h"
#include "llk_layout.h"
#include "tile.h"
#include "ttemu_tensix.h"

int main(void)
{
    TILE_REG32(TILE_TRISC_RESET_PC(0)) = LLK_CODE_TRISC0;
    TILE_REG32(TILE_TRISC_RESET_PC(1)) = LLK_CODE_TRISC1;
    TILE_REG32(TILE_TRISC_RESET_PC(2)) = LLK_CODE_TRISC2;
    TILE_REG32(TILE_TRISC_RESET_PC_OVERRIDE) = 0x7u;
    llk_arch_boot_setup();

    TILE_REG32(LLK_MAILBOX_UNPACK) = 0;
    TILE_REG32(LLK_MAILBOX_MATH) = 0;
    TILE_REG32(LLK_MAILBOX_PACK) = 0;

    TTE_INSN(LLK_ZEROACC_ALL());
    TTE_INSN(TTE_SFPENCC(3, 0, 0, 10));
    TTE_INSN(TTE_NOP());
    TTE_INSN(TTE_SFPCONFIG(0, 11, 1));
    TTE_INSN(TTE_SEMINIT(1, 0, 1u << 2));
    TTE_INSN(TTE_SEMINIT(1, 0, 1u << 7));
    TTE_INSN(TTE_SEMINIT(1, 0, 1u << 4));

    TILE_REG32(TILE_SOFT_RESET) &= ~TILE_SOFT_RESET_TRISCS;
    return 0;
}
