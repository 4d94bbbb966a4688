/* tilize, unpack (TRISC0 -> T0): the row-major Float16_b matrix at params.in0
 * (params.m bands of 32 rows, 0 meaning 1; params.tiles tiles of 32 columns per band,
 * so rows are 64 * tiles bytes apart) into SrcA tile by tile, band by band: four
 * UNPACRs per tile in tilize mode (one face each, llk_tilize.h), the last one flipping
 * the SrcA bank to math. */
#include "llk_params.h"
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
    for (uint32_t b = 0; b < bands; ++b)
        for (uint32_t t = 0; t < tiles; ++t)
            llk_tilize_unpack_tile(llk_rm_addr(in, row_bytes, FMT, b * LLK_TILE_DIM, t * LLK_TILE_DIM), row_bytes,
                                   FMT, 0, 0);
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
