/* matmul_tile_hifi4, math (TRISC1 -> T1): per product, take a free half of the 32-bit
 * Dst (halves alternate), mark it undefined (ZEROACC: MVMUL reads it as zero), then
 * one MOP: 4 fidelity phases x REPLAY of the 16 recorded MVMULs (64 MVMULs); reset
 * the RWCs, give both Src banks back, post the half to pack. */
#include "llk_matmul.h"

int main(void)
{
    llk_kernel_matmul_math(/* phases */ 4, /* dst32 */ 1, /* dotpv */ 0);
    return 0;
}
