/* reduce_col, unpack (TRISC0 -> T0): column reduction (out[0][c]).
 * Writes the scaler tile (value: the BF16 high half of params.arg) at params.in1 and
 * unpacks it once; then per tile, the Float16_b tile i of params.in0 into its Src bank
 * (llk_reduce.h). params.m: 0 = sum, 1 = max. */
#include "llk_params.h"
#include "llk_reduce.h"

#define DIM LLK_REDUCE_COL

int main(void)
{
    uint32_t in0 = LLK_PARAMS_PTR->in0;
    uint32_t scaler = LLK_PARAMS_PTR->in1;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;
    enum llk_reduce_op op = LLK_PARAMS_PTR->m ? LLK_REDUCE_MAX : LLK_REDUCE_SUM;
    uint32_t s16 = LLK_PARAMS_PTR->arg >> 16;

    llk_reduce_unpack_init(DIM, op, scaler, s16);
    for (uint32_t i = 0; i < tiles; ++i)
        llk_reduce_unpack_tile(DIM, op, in0 + i * llk_tile_bytes(LLK_FMT_FLOAT16_B));
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
