/* scale_tilize, unpack (TRISC0 -> T0): tilize's unpack (row-major Float16_b, params.m
 * bands of params.tiles tiles, rows 64 * tiles bytes apart), band b read from band
 * b % params.wrap in L1 (the bands repeat), drained after each tile (llk_scale.h).
 * Math: tilize's. */
#include "llk_scale.h"
#include "llk_tilize.h"

#define FMT LLK_FMT_FLOAT16_B

int main(void)
{
    uint32_t in = LLK_PARAMS_PTR->in0;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;
    uint32_t bands = LLK_PARAMS_PTR->m ? LLK_PARAMS_PTR->m : 1u;
    uint32_t row_bytes = tiles * LLK_TILE_DIM * llk_rm_datum_bytes(FMT);

    llk_unpack_alu_config(FMT, FMT, 0, FMT);
    llk_tilize_unpack_config(FMT, 0, row_bytes);
    for (uint32_t b = 0; b < bands; ++b) {
        uint32_t band = llk_scale_slot(b);
        for (uint32_t t = 0; t < tiles; ++t) {
            llk_tilize_unpack_tile(llk_rm_addr(in, row_bytes, FMT, band * LLK_TILE_DIM, t * LLK_TILE_DIM), row_bytes,
                                   FMT, 0, 0);
            llk_tensix_sync();
        }
    }
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
