/* datacopy_fp32, math (TRISC1 -> T1): nothing to compute; per tile it takes the
 * half the unpacker filled (UNPACK_TO_DEST) and hands it to pack (MATH_PACK). */
#include "llk_math.h"
#include "llk_params.h"

int main(void)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_math_init();
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_wait_unpacked();
        llk_math_dst_acquire(i & 1u, 1);
        llk_math_unpacked_done();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
