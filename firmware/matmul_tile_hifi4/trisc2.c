/* matmul_tile_hifi4, pack (TRISC2 -> T2): per product, wait for math's half, pack its
 * FP32 rows to params.out as Float32 (identity conversions), free the half. */
#include "llk_pack.h"
#include "llk_params.h"

#define FMT LLK_FMT_FLOAT32
#define DST32 1

int main(void)
{
    uint32_t out = LLK_PARAMS_PTR->out;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_pack_config(LLK_FMT_FLOAT32, FMT);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_pack_dst_wait();
        llk_pack_tile(llk_dst_half_row(i & 1u, DST32), out + i * llk_tile_bytes(FMT));
        llk_pack_dst_release();
    }
    llk_done(LLK_MAILBOX_PACK);
    return 0;
}
