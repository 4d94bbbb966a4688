/* scale_matmul, pack (TRISC2 -> T2): matmul_block's pack (per output row m, its N FP32
 * tiles as Float32), row m to row m % params.wrap of params.out, drained after each
 * row (llk_scale.h). */
#include "llk_scale.h"

#define FMT LLK_FMT_FLOAT32

int main(void)
{
    uint32_t out = LLK_PARAMS_PTR->out;
    uint32_t M = LLK_PARAMS_PTR->m, N = LLK_PARAMS_PTR->n;

    llk_pack_config(LLK_FMT_FLOAT32, FMT);
    for (uint32_t m = 0; m < M; ++m) {
        uint32_t row = llk_scale_slot(m);
        llk_pack_dst_wait();
        for (uint32_t n = 0; n < N; ++n)
            llk_pack_tile(llk_dst_half_row(m & 1u, 1) + LLK_TILE_ROWS * n, out + (row * N + n) * llk_tile_bytes(FMT));
        llk_pack_dst_release();
        llk_tensix_sync();
    }
    llk_done(LLK_MAILBOX_PACK);
    return 0;
}
