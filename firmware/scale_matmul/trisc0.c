/* scale_matmul, unpack (TRISC0 -> T0): matmul_block's unpack (C = A @ B, M x K x N
 * tiles, A(m,k) into SrcB once per k, B(k,0..N-1) through SrcA), with row m of A read
 * from row m % params.wrap in L1 (the rows repeat), drained after each tile
 * (llk_scale.h). Math: matmul_block's (params.arg fidelity phases). */
#include "llk_matmul.h"
#include "llk_scale.h"

#define FMT LLK_FMT_FLOAT16_B

int main(void)
{
    uint32_t in0 = LLK_PARAMS_PTR->in0;
    uint32_t in1 = LLK_PARAMS_PTR->in1;
    uint32_t M = LLK_PARAMS_PTR->m, K = LLK_PARAMS_PTR->k, N = LLK_PARAMS_PTR->n;
    uint32_t tb = llk_tile_bytes(FMT);

    llk_unpack_alu_config(FMT, FMT, 1, LLK_FMT_FLOAT32);
    llk_unpack_config(0, FMT, FMT, 0);
    llk_unpack_config(1, FMT, FMT, 0);
    for (uint32_t m = 0; m < M; ++m) {
        uint32_t row = llk_scale_slot(m);
        for (uint32_t k = 0; k < K; ++k) {
            llk_matmul_unpack_a(in0 + (row * K + k) * tb);
            llk_tensix_sync();
            for (uint32_t n = 0; n < N; ++n) {
                llk_matmul_unpack_b(in1 + (k * N + n) * tb);
                llk_tensix_sync();
            }
        }
    }
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
