/* untilize, math (TRISC1 -> T1): as datacopy_fp32: per tile, take the half the
 * unpacker filled (UNPACK_TO_DEST) and hand it to pack (MATH_PACK). */
#include "llk_math.h"
#include "llk_params.h"

int main(void)
{
    uint32_t bands = LLK_PARAMS_PTR->m ? LLK_PARAMS_PTR->m : 1u;
    uint32_t tiles = LLK_PARAMS_PTR->tiles * bands;

    llk_math_init();
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_wait_unpacked();
        llk_math_dst_acquire(i & 1u, 1);
        llk_math_unpacked_done();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
