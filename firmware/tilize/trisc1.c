/* tilize, math (TRISC1 -> T1): as datacopy_bf16: per tile, take a free 16-bit Dst
 * half, MOVA2D the 64 SrcA rows into it, give SrcA back, post the half to pack. */
#include "llk_math.h"
#include "llk_params.h"

int main(void)
{
    uint32_t bands = LLK_PARAMS_PTR->m ? LLK_PARAMS_PTR->m : 1u;
    uint32_t tiles = LLK_PARAMS_PTR->tiles * bands;

    llk_math_init();
    llk_math_copy_init();
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_dst_acquire(i & 1u, 0);
        llk_math_copy_tile();
        llk_math_dst_release();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
