/* shiftxb, math (TRISC1 -> T1): per tile, rotate each of the 64 SrcB rows left by one
 * lane with SHIFTXB (SHIFTXB.md, ShiftInZero = 0: lane 15 gets lane 0), then Dst =
 * SrcA + SrcB with the eltwise_add MOP (ELWADD into a 32-bit Dst half), give both Src
 * banks back, post the half. A kernel of its own because ttsim does not implement
 * SHIFTXB (tests/test_kernels_ttsim.py pins its refusal); ttemu is checked against
 * numpy. */
#include "llk_kernels.h"

#define SHIFTXB_ROTATE 0u

static void rotate_srcb(uint32_t i)
{
    (void)i;
    for (uint32_t row = 0; row < LLK_TILE_ROWS; ++row)
        tte_push(TTE_SHIFTXB(LLK_AM_KEEP, SHIFTXB_ROTATE, row));
}

int main(void)
{
    llk_kernel_eltwise_math(LLK_ELW_ADD, rotate_srcb);
    return 0;
}
