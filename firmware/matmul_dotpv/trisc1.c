/* matmul_dotpv, math (TRISC1 -> T1): matmul_tile_lofi with DOTPV instead of MVMUL
 * (DOTPV.md: the same product, without MVMUL's BroadcastSrcBRow). Per product: a free
 * half of the 16-bit Dst, ZEROACC, one MOP of the 16 recorded DOTPVs (fidelity phase
 * 0), reset the RWCs, give both Src banks back, post the half. A kernel of its own
 * because ttsim does not implement DOTPV (tests/test_kernels_ttsim.py pins its
 * refusal); ttemu checks it against numpy. */
#include "llk_matmul.h"
#include "llk_params.h"

#define PHASES 1
#define DST32 0

int main(void)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_math_init();
    llk_matmul_init_with(PHASES, 1);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_dst_acquire(i & 1u, DST32);
        tte_push(TTE_ZEROACC(2u /* ZEROACC_MODE_HALF_OF_DST */, 0, i & 1u));
        llk_matmul_tile(LLK_FLIP_SRCA | LLK_FLIP_SRCB);
        llk_math_dst_release();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
