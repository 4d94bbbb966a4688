/* shiftxb, math (TRISC1 -> T1): per tile, rotate each of the 64 SrcB rows left by one
 * lane with SHIFTXB (SHIFTXB.md, ShiftInZero = 0: lane 15 gets lane 0), then Dst =
 * SrcA + SrcB with the eltwise_add MOP (ELWADD into a 32-bit Dst half), give both Src
 * banks back, post the half. A kernel of its own because ttsim does not implement
 * SHIFTXB (tests/test_kernels_ttsim.py pins its refusal); ttemu is checked against
 * numpy. */
#include "llk_math.h"
#include "llk_params.h"

#define OP LLK_ELW_ADD
#define SHIFTXB_ROTATE 0u

int main(void)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_math_init();
    llk_math_eltwise_init(OP);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_dst_acquire(i & 1u, 1);
        for (uint32_t row = 0; row < LLK_TILE_ROWS; ++row)
            tte_push(TTE_SHIFTXB(LLK_AM_KEEP, SHIFTXB_ROTATE, row));
        llk_math_eltwise_tile(OP, i & 1u);
        llk_math_dst_release();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
