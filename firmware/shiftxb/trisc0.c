/* shiftxb, unpack (TRISC0 -> T0): per tile, the Float16_b tile i of params.in0 into SrcA
 * (unpacker 0) and tile i of params.in1 into SrcB (unpacker 1), each bank handed to
 * math by FlipSrc. The ALU sees BF16 operands and a 32-bit (FP32) Dst. */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_unpack_ab(LLK_FMT_FLOAT16_B);
    return 0;
}
