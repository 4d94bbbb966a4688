/* scale_untilize, pack (TRISC2 -> T2): untilize's pack (each tile's face rows to the
 * row-major Float32 matrix at params.out, rows 128 * tiles bytes apart), band b to band
 * b % params.wrap, drained after each tile (llk_scale.h). */
#include "llk_scale.h"
#include "llk_tilize.h"

#define FMT LLK_FMT_FLOAT32

int main(void)
{
    uint32_t out = LLK_PARAMS_PTR->out;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;
    uint32_t bands = LLK_PARAMS_PTR->m ? LLK_PARAMS_PTR->m : 1u;
    uint32_t row_bytes = tiles * LLK_TILE_DIM * llk_rm_datum_bytes(FMT);
    uint32_t i = 0;

    llk_untilize_pack_config(LLK_FMT_FLOAT32, FMT);
    for (uint32_t b = 0; b < bands; ++b) {
        uint32_t band = llk_scale_slot(b);
        for (uint32_t t = 0; t < tiles; ++t, ++i) {
            llk_pack_dst_wait();
            llk_untilize_pack_tile(llk_dst_half_row(i & 1u, 1),
                                   llk_rm_addr(out, row_bytes, FMT, band * LLK_TILE_DIM, t * LLK_TILE_DIM), row_bytes, FMT);
            llk_pack_dst_release();
            llk_tensix_sync();
        }
    }
    llk_done(LLK_MAILBOX_PACK);
    return 0;
}
