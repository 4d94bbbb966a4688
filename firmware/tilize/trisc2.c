/* tilize, pack (TRISC2 -> T2): as datacopy_bf16: per tile, wait for math's half,
 * pack it to params.out (tile i of m * tiles, band-major) as Float16_b, free it. */
#include "llk_params.h"
#include "llk_tilize.h"

#define FMT LLK_FMT_FLOAT16_B

int main(void)
{
    uint32_t out = LLK_PARAMS_PTR->out;
    uint32_t bands = LLK_PARAMS_PTR->m ? LLK_PARAMS_PTR->m : 1u;
    uint32_t tiles = LLK_PARAMS_PTR->tiles * bands;

    llk_tilize_pack_config(LLK_FMT_FLOAT16_B, FMT);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_pack_dst_wait();
        llk_tilize_pack_tile(llk_dst_half_row(i & 1u, 0), out + i * llk_tile_bytes(FMT));
        llk_pack_dst_release();
    }
    llk_done(LLK_MAILBOX_PACK);
    return 0;
}
