/* reduce_col, pack (TRISC2 -> T2): per tile, wait for math's half and pack it to params.out:
 * sums (FP32 Dst) as Float32, max (BF16 Dst) as Float16_b, both identity
 * conversions; free the half. params.m: 0 = sum, 1 = max. */
#include "llk_pack.h"
#include "llk_params.h"
#include "llk_reduce.h"

int main(void)
{
    uint32_t out = LLK_PARAMS_PTR->out;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;
    enum llk_reduce_op op = LLK_PARAMS_PTR->m ? LLK_REDUCE_MAX : LLK_REDUCE_SUM;
    int dst32 = llk_reduce_dst32(op);
    uint32_t fmt = llk_reduce_dst_fmt(op);

    llk_pack_config(fmt, fmt);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_pack_dst_wait();
        llk_pack_tile(llk_dst_half_row(i & 1u, dst32), out + i * llk_tile_bytes(fmt));
        llk_pack_dst_release();
    }
    llk_done(LLK_MAILBOX_PACK);
    return 0;
}
