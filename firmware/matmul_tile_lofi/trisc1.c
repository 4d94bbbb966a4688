/* matmul_tile_lofi, math (TRISC1 -> T1): per product, take a free half of the 16-bit
 * Dst (halves alternate), mark it undefined (ZEROACC: MVMUL reads it as zero), then
 * one MOP: fidelity phase 0 only (LoFi) x REPLAY of the 16 recorded MVMULs; reset
 * the RWCs (FidelityPhase back to 0), give both Src banks back, post the half. */
#include "llk_matmul.h"

int main(void)
{
    llk_kernel_matmul_math(/* phases */ 1, /* dst32 */ 0, /* dotpv */ 0);
    return 0;
}
