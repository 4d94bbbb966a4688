/* datacopy_bf16, math (TRISC1 -> T1): per tile, take a free Dst half (16-bit Dst,
 * halves alternate), MOVA2D the 64 SrcA rows into it, give SrcA back, post the half
 * to pack (MATH_PACK). */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_copy_math(0);
    return 0;
}
