/* eltwise_add, math (TRISC1 -> T1): per tile, take a free half of the 32-bit Dst
 * (halves alternate), Dst = SrcA + SrcB with ELWADD (one MOP: 8 instructions of 8
 * rows), both Src banks back to the unpackers, post the half to pack. */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_eltwise_math(LLK_ELW_ADD, 0);
    return 0;
}
