/* fpu_ops, pack (TRISC2 -> T2): per tile, math's Dst half to params.out, as Float32
 * from a 32-bit Dst or Float16_b from a 16-bit (BF16) one (params.n). */
#include "llk_kernels.h"

int main(void)
{
    int dst32 = LLK_PARAMS_PTR->n != 0;

    if (dst32)
        llk_kernel_pack(LLK_FMT_FLOAT32, LLK_FMT_FLOAT32, 1);
    else
        llk_kernel_pack(LLK_FMT_FLOAT16_B, LLK_FMT_FLOAT16_B, 0);
    return 0;
}
