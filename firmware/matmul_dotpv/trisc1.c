/* matmul_dotpv, math (TRISC1 -> T1): matmul_tile_lofi with DOTPV instead of MVMUL
 * (DOTPV.md: the same product, without MVMUL's BroadcastSrcBRow). Per product: a free
 * half of the 16-bit Dst, ZEROACC, one MOP of the 16 recorded DOTPVs (fidelity phase
 * 0), reset the RWCs, give both Src banks back, post the half. A kernel of its own
 * because ttsim does not implement DOTPV (tests/test_kernels_ttsim.py pins its
 * refusal); ttemu checks it against numpy. */
#include "llk_matmul.h"

int main(void)
{
    llk_kernel_matmul_math(/* phases */ 1, /* dst32 */ 0, /* dotpv */ 1);
    return 0;
}
