/* eltwise_sub, math (TRISC1 -> T1): per tile, take a free half of the 32-bit Dst
 * (halves alternate), Dst = SrcA - SrcB with ELWSUB (one MOP: 8 instructions of 8
 * rows), both Src banks back to the unpackers, post the half to pack. */
#include "llk_math.h"
#include "llk_params.h"

#define OP LLK_ELW_SUB

int main(void)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_math_init();
    llk_math_eltwise_init(OP);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_dst_acquire(i & 1u, 1);
        llk_math_eltwise_tile(OP, i & 1u);
        llk_math_dst_release();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
