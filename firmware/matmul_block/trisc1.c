/* matmul_block, math (TRISC1 -> T1): one output row of tiles per Dst half (halves
 * alternate; N <= 4 tiles fit in a half of the 32-bit Dst): take the half, mark it
 * undefined (ZEROACC: MVMUL reads it as zero), then for k = 0..K-1, n = 0..N-1 point
 * the FPU at tile n of the half and accumulate A(m,k) @ B(k,n) into it (one MOP:
 * params.arg fidelity phases x REPLAY of 16 MVMULs); SrcA (B(k,n)) is given back
 * after each product, SrcB (A(m,k)) after the last n. Then post the half to pack. */
#include "llk_matmul.h"
#include "llk_params.h"

#define DST32 1

int main(void)
{
    uint32_t M = LLK_PARAMS_PTR->m, K = LLK_PARAMS_PTR->k, N = LLK_PARAMS_PTR->n;
    uint32_t phases = LLK_PARAMS_PTR->arg;  /* 1 (LoFi) .. 4 (HiFi4) */

    llk_math_init();
    llk_matmul_init(phases);
    for (uint32_t m = 0; m < M; ++m) {
        uint32_t half = m & 1u;
        llk_math_dst_acquire(half, DST32);
        llk_math_dst_zero_half(half, DST32);
        for (uint32_t k = 0; k < K; ++k)
            for (uint32_t n = 0; n < N; ++n) {
                llk_math_dst_offset(llk_dst_half_row(half, DST32) + LLK_TILE_ROWS * n);
                llk_matmul_tile(LLK_FLIP_SRCA | (n == N - 1 ? LLK_FLIP_SRCB : 0u));
            }
        llk_math_dst_release();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
