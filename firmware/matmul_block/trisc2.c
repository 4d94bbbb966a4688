/* matmul_block, pack (TRISC2 -> T2): per output row m, wait for math's half, pack its
 * N FP32 tiles to params.out as Float32 (tile (m,n) is tile m*N + n), free the half. */
#include "llk_pack.h"
#include "llk_params.h"

#define FMT LLK_FMT_FLOAT32
#define DST32 1

int main(void)
{
    uint32_t out = LLK_PARAMS_PTR->out;
    uint32_t M = LLK_PARAMS_PTR->m, N = LLK_PARAMS_PTR->n;

    llk_pack_config(LLK_FMT_FLOAT32, FMT);
    for (uint32_t m = 0; m < M; ++m) {
        llk_pack_dst_wait();
        for (uint32_t n = 0; n < N; ++n)
            llk_pack_tile(llk_dst_half_row(m & 1u, DST32) + LLK_TILE_ROWS * n,
                          out + (m * N + n) * llk_tile_bytes(FMT));
        llk_pack_dst_release();
    }
    llk_done(LLK_MAILBOX_PACK);
    return 0;
}
