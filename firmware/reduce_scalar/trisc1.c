/* reduce_scalar, math (TRISC1 -> T1): per tile, take a free Dst half (halves alternate; 32-bit
 * Dst for sums, 16-bit for max), mark it undefined, run the reduction's MOP
 * (llk_reduce.h), reset the RWCs and give the input bank back, post the half to
 * pack. At the end the scaler's bank goes back too. Max only (params.m is not read). */
#include "llk_math.h"
#include "llk_params.h"
#include "llk_reduce.h"

#define DIM LLK_REDUCE_SCALAR

int main(void)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;
    enum llk_reduce_op op = LLK_REDUCE_MAX;
    uint32_t s16 = LLK_PARAMS_PTR->arg >> 16;
    int dst32 = llk_reduce_dst32(op);

    llk_math_init();
    llk_reduce_init(DIM, op, s16);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_dst_acquire(i & 1u, dst32);
        llk_reduce_tile(DIM, op, i & 1u);
        llk_math_dst_release();
    }
    llk_reduce_done(DIM, op);
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
