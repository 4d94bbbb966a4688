/* scale_reduce, unpack (TRISC0 -> T0): reduce_row's unpack for row sums (the scaler
 * tile from the BF16 high half of params.arg at params.in1, unpacked once; then tile
 * i % params.wrap of params.in0 per step), drained after each step (llk_scale.h).
 * Math: reduce_row's (params.m = 0, sum). */
#include "llk_reduce.h"
#include "llk_scale.h"

int main(void)
{
    uint32_t in0 = LLK_PARAMS_PTR->in0;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_reduce_unpack_init(LLK_REDUCE_ROW, LLK_REDUCE_SUM, LLK_PARAMS_PTR->in1, LLK_PARAMS_PTR->arg >> 16);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_reduce_unpack_tile(LLK_REDUCE_ROW, LLK_REDUCE_SUM, in0 + llk_scale_slot(i) * llk_tile_bytes(LLK_FMT_FLOAT16_B));
        llk_tensix_sync();
    }
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
