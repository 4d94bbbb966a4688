/* matmul_dotpv, pack (TRISC2 -> T2): per product, wait for math's half, pack its
 * BF16 rows to params.out as Float16_b (identity), free the half. */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_pack(LLK_FMT_FLOAT16_B, LLK_FMT_FLOAT16_B, 0);
    return 0;
}
