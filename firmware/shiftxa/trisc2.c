/* shiftxa, pack (TRISC2 -> T2): per tile, wait for math's half, pack it to
 * params.out as Float16_b (identity conversion), free the half. */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_pack(LLK_FMT_FLOAT16_B, LLK_FMT_FLOAT16_B, 0);
    return 0;
}
