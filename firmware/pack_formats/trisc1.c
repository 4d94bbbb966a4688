/* pack_formats, math (TRISC1 -> T1): per tile, either take the Dst half the unpacker
 * filled (params.m bit 16) or MOVA2D SrcA into a Dst half; then post it to pack.
 * params.k bit 16: 32-bit Dst. See trisc0.c for the parameters. */
#include "llk_math.h"
#include "llk_params.h"

int main(void)
{
    volatile const struct llk_params *p = LLK_PARAMS_PTR;
    uint32_t tiles = p->tiles, to_dst = (p->m >> 16) & 1u, dst32 = (p->k >> 16) & 1u;

    llk_math_init();
    if (!to_dst)
        llk_math_copy_init();
    for (uint32_t i = 0; i < tiles; ++i) {
        if (to_dst) {
            llk_math_wait_unpacked();
            llk_math_dst_acquire(i & 1u, (int)dst32);
            llk_math_unpacked_done();
        } else {
            llk_math_dst_acquire(i & 1u, (int)dst32);
            llk_math_copy_tile();
            llk_math_dst_release();
        }
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
