/* scale_untilize, unpack (TRISC0 -> T0): untilize's unpack (params.m bands of
 * params.tiles Float32 tiles, band-major, straight into a 32-bit Dst half), band b read
 * from band b % params.wrap in L1 (the bands repeat), drained after each tile
 * (llk_scale.h). Math: untilize's. */
#include "llk_scale.h"

#define FMT LLK_FMT_FLOAT32

int main(void)
{
    uint32_t in = LLK_PARAMS_PTR->in0;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;
    uint32_t bands = LLK_PARAMS_PTR->m ? LLK_PARAMS_PTR->m : 1u;
    uint32_t i = 0;

    llk_unpack_alu_config(FMT, FMT, 1, FMT);
    llk_unpack_config(0, FMT, FMT, 1);
    for (uint32_t b = 0; b < bands; ++b) {
        uint32_t band = llk_scale_slot(b);
        for (uint32_t t = 0; t < tiles; ++t, ++i) {
            llk_unpack_dst_acquire();
            llk_unpack_tile_to_dst(in + (band * tiles + t) * llk_tile_bytes(FMT), llk_dst_half_row(i & 1u, 1), FMT);
            llk_unpack_dst_release();
            llk_tensix_sync();
        }
    }
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
