/* fpu_ops, math (TRISC1 -> T1): per tile, in alternating Dst halves: params.m = 0
 * ELWADD, 1 ELWSUB, 2 ELWMUL (four fidelity phases), 3 MVMUL (params.arg fidelity
 * phases, 1..4; A @ B of one tile pair), into a 16- or 32-bit Dst (params.n). */
#include "llk_math.h"
#include "llk_matmul.h"
#include "llk_params.h"

int main(void)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles, op = LLK_PARAMS_PTR->m;
    int dst32 = LLK_PARAMS_PTR->n != 0;

    llk_math_init();
    if (op == 3)
        llk_matmul_init(LLK_PARAMS_PTR->arg);
    else
        llk_math_eltwise_init((enum llk_eltwise_op)op);
    for (uint32_t i = 0; i < tiles; ++i) {
        uint32_t half = i & 1u;
        llk_math_dst_acquire(half, dst32);
        if (op == 3) {
            llk_math_dst_zero_half(half, dst32);
            llk_matmul_tile(LLK_FLIP_SRCA | LLK_FLIP_SRCB);
        } else {
            llk_math_eltwise_tile((enum llk_eltwise_op)op, half, dst32);
        }
        llk_math_dst_release();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
