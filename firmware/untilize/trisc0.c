/* untilize, unpack (TRISC0 -> T0): as datacopy_fp32: each of the m * tiles Float32
 * tiles at params.in0 (band-major) straight into a 32-bit Dst half, alternating
 * halves, guarded by UNPACK_TO_DEST / MATH_PACK. */
#include "llk_params.h"
#include "llk_unpack.h"

#define FMT LLK_FMT_FLOAT32

int main(void)
{
    uint32_t in = LLK_PARAMS_PTR->in0;
    uint32_t bands = LLK_PARAMS_PTR->m ? LLK_PARAMS_PTR->m : 1u;
    uint32_t tiles = LLK_PARAMS_PTR->tiles * bands;

    llk_unpack_alu_config(FMT, FMT, 1, FMT);
    llk_unpack_config(0, FMT, FMT, 1);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_unpack_dst_acquire();
        llk_unpack_tile_to_dst(in + i * llk_tile_bytes(FMT), llk_dst_half_row(i & 1u, 1), FMT);
        llk_unpack_dst_release();
    }
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
