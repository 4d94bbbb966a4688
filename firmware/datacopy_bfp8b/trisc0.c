/* datacopy_bfp8b, unpack (TRISC0 -> T0): each Bfp8_b tile of params.in0 (64
 * exponent bytes, then 1024 sign-magnitude datums) into SrcA as BF16 (unpacker 0,
 * one UNPACR per tile; BFP8ToBF16 is lossless), handed to math by flipping the SrcA
 * bank. The ALU sees SrcA as Bfp8_b, i.e. BF16-style (MOVA2D.md). */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_unpack_a(LLK_FMT_BFP8_B);
    return 0;
}
