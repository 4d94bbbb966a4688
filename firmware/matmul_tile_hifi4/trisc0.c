/* matmul_tile_hifi4, unpack (TRISC0 -> T0): per product i, the Float16_b tile i of
 * params.in0 (A) into SrcB (unpacker 1) and tile i of params.in1 (B) into SrcA
 * (unpacker 0): MVMUL computes Dst += SrcB @ SrcA. The ALU sees BF16 operands and a
 * 32-bit (FP32) Dst. */
#include "llk_matmul.h"

int main(void)
{
    llk_kernel_matmul_unpack(LLK_FMT_FLOAT16_B, 1);
    return 0;
}
