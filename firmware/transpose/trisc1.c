/* transpose, math (TRISC1 -> T1): per tile, take a free half of the 16-bit Dst
 * (halves alternate), replay the eight recorded MOVA2Ds (SrcA -> Dst with faces 1
 * and 2 swapped), give SrcA back, post the half to pack. */
#include "llk_params.h"
#include "llk_transpose.h"

int main(void)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_math_init();
    llk_transpose_init();
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_dst_acquire(i & 1u, 0);
        llk_transpose_tile();
        llk_math_dst_release();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
