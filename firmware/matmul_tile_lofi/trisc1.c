/* matmul_tile_lofi, math (TRISC1 -> T1): per product, take a free half of the 16-bit
 * Dst (halves alternate), mark it undefined (ZEROACC: MVMUL reads it as zero), then
 * one MOP: fidelity phase 0 only (LoFi) x REPLAY of the 16 recorded MVMULs; reset
 * the RWCs (FidelityPhase back to 0), give both Src banks back, post the half. */
#include "llk_matmul.h"
#include "llk_params.h"

#define PHASES 1
#define DST32 0

int main(void)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_math_init();
    llk_matmul_init(PHASES);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_dst_acquire(i & 1u, DST32);
        tte_push(TTE_ZEROACC(2u /* ZEROACC_MODE_HALF_OF_DST */, 0, i & 1u));
        llk_matmul_tile(LLK_FLIP_SRCA | LLK_FLIP_SRCB);
        llk_math_dst_release();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
