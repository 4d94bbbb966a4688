/* shiftxb, pack (TRISC2 -> T2): per tile, wait for math's half, pack its FP32 rows to
 * params.out as Float16_b (early conversion FP32 -> BF16 with rounding), free the
 * half. */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_pack(LLK_FMT_FLOAT32, LLK_FMT_FLOAT16_B, 1);
    return 0;
}
