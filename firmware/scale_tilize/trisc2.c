/* scale_tilize, pack (TRISC2 -> T2): tilize's pack (Float16_b tiles, band-major), band b
 * to band b % params.wrap of params.out, drained after each tile (llk_scale.h). */
#include "llk_scale.h"
#include "llk_tilize.h"

#define FMT LLK_FMT_FLOAT16_B

int main(void)
{
    uint32_t out = LLK_PARAMS_PTR->out;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;
    uint32_t bands = LLK_PARAMS_PTR->m ? LLK_PARAMS_PTR->m : 1u;
    uint32_t i = 0;

    llk_tilize_pack_config(LLK_FMT_FLOAT16_B, FMT);
    for (uint32_t b = 0; b < bands; ++b) {
        uint32_t band = llk_scale_slot(b);
        for (uint32_t t = 0; t < tiles; ++t, ++i) {
            llk_pack_dst_wait();
            llk_tilize_pack_tile(llk_dst_half_row(i & 1u, 0), out + (band * tiles + t) * llk_tile_bytes(FMT));
            llk_pack_dst_release();
            llk_tensix_sync();
        }
    }
    llk_done(LLK_MAILBOX_PACK);
    return 0;
}
