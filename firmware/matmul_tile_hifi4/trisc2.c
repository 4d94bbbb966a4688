/* matmul_tile_hifi4, pack (TRISC2 -> T2): per product, wait for math's half, pack its
 * FP32 rows to params.out as Float32 (identity conversions), free the half. */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_pack(LLK_FMT_FLOAT32, LLK_FMT_FLOAT32, 1);
    return 0;
}
