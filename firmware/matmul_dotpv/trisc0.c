/* matmul_dotpv, unpack (TRISC0 -> T0): per product i, the Float16_b tile i of
 * params.in0 (A) into SrcB (unpacker 1) and tile i of params.in1 (B) into SrcA
 * (unpacker 0): DOTPV computes Dst += SrcB @ SrcA. The ALU sees BF16 operands and a
 * 16-bit (BF16) Dst. */
#include "llk_matmul.h"

int main(void)
{
    llk_kernel_matmul_unpack(LLK_FMT_FLOAT16_B, 0);
    return 0;
}
