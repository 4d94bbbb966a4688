/* matmul_block, unpack (TRISC0 -> T0): C (M x N tiles) = A (M x K) @ B (K x N), tiles
 * stored row-major over tiles (A tile (m,k) is tile m*K + k of params.in0, B tile
 * (k,n) is tile k*N + n of params.in1). For each output row m and each k, A(m,k) goes
 * into SrcB once (unpacker 1) and stays there while B(k,0..N-1) go through SrcA
 * (unpacker 0) one by one: math multiplies each into output tile n of its Dst half.
 * The ALU sees BF16 operands and a 32-bit (FP32) Dst. */
#include "llk_matmul.h"
#include "llk_params.h"

#define FMT LLK_FMT_FLOAT16_B
#define DST32 1

int main(void)
{
    uint32_t in0 = LLK_PARAMS_PTR->in0;
    uint32_t in1 = LLK_PARAMS_PTR->in1;
    uint32_t M = LLK_PARAMS_PTR->m, K = LLK_PARAMS_PTR->k, N = LLK_PARAMS_PTR->n;
    uint32_t tb = llk_tile_bytes(FMT);

    llk_unpack_alu_config(FMT, FMT, DST32, LLK_FMT_FLOAT32);
    llk_unpack_config(0, FMT, FMT, 0);
    llk_unpack_config(1, FMT, FMT, 0);
    for (uint32_t m = 0; m < M; ++m)
        for (uint32_t k = 0; k < K; ++k) {
            llk_matmul_unpack_a(in0 + (m * K + k) * tb);
            for (uint32_t n = 0; n < N; ++n)
                llk_matmul_unpack_b(in1 + (k * N + n) * tb);
        }
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
