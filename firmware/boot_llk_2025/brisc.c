/* boot_llk_2025/brisc.c: the BRISC side of tt-llk's test harness as it was in mid
 * 2025 (tt-llk commit 872dad55, tests/helpers/src/brisc.cpp; the July 2025 tt-exalens
 * datacopy and unhalt kernels of ../shared/corpus were built against it). The host
 * loaded the TRISC ELFs and programmed their start PCs (config words 158-161) through
 * the debugger; ttsim does not accept host writes to the configuration space, so, as
 * tt-llk's harness later did (November 2025), the host writes the three start PCs to
 * L1 0x16DFF0/4/8 and this program
 *   0. copies them to config words 158-160 and enables them (word 161 = 0b111);
 *   1. pushes the set-up instructions to Tensix T0: clear Dst, enable the SFPU
 *      condition-code stack, a NOP, LReg 11 = -1.0, and semaphores 2 (unpack to
 *      Dst), 7 (math done) and 4 (pack done) to value 0, max 1. tt-llk wrote the
 *      raw numbers 2, 7, 4 into SEMINIT's semaphore mask until October 2025
 *      (commit 27a1e4ae fixed it to 1 << n); with the raw masks semaphore 7 keeps
 *      Max = 0 and these kernels' math thread waits on it forever (SEMWAIT.md, C1),
 *      and ttsim refuses a mask that is not one-hot, so this uses the fixed masks;
 *   2. releases TRISC0-2 from soft reset (read-modify-write) and spins.
 * Written from the facts above; no tt-llk code. */
#include "tile.h"
#include "ttemu_tensix.h"

#define START_PCS 0x16DFF0u

int main(void)
{
    for (int i = 0; i < 3; i++)
        TILE_REG32(TILE_TRISC_RESET_PC(i)) = TILE_REG32(START_PCS + 4u * i);
    TILE_REG32(TILE_TRISC_RESET_PC_OVERRIDE) = 0x7u;
    TTE_INSN(TTE_ZEROACC(3, 0, 0));
    TTE_INSN(TTE_SFPENCC(3, 0, 0, 10));
    TTE_INSN(TTE_NOP());
    TTE_INSN(TTE_SFPCONFIG(0, 11, 1));
    TTE_INSN(TTE_SEMINIT(1, 0, 1u << 2));
    TTE_INSN(TTE_SEMINIT(1, 0, 1u << 7));
    TTE_INSN(TTE_SEMINIT(1, 0, 1u << 4));

    TILE_REG32(TILE_SOFT_RESET) &= ~TILE_SOFT_RESET_TRISCS;
    for (;;) {
    }
}
