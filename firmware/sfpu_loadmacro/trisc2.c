/* sfpu_loadmacro, pack (TRISC2 -> T2): per tile, wait for the half, pack its 32-bit rows to
 * params.out as Float32 (identity), free the half. */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_pack(LLK_FMT_FLOAT32, LLK_FMT_FLOAT32, 1);
    return 0;
}
