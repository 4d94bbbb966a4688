/* datacopy_bfp8b, pack (TRISC2 -> T2): per tile, wait for math's half (BF16 in a
 * 16-bit Dst), pack it to params.out as Bfp8_b (late conversion: one shared exponent
 * per 16 datums, exponent section first), free the half. */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_pack(LLK_FMT_FLOAT16_B, LLK_FMT_BFP8_B, 0);
    return 0;
}
