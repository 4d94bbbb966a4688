/* scale_eltwise, pack (TRISC2 -> T2): eltwise_add's pack (FP32 Dst to Float16_b),
 * step i to tile i % params.wrap of params.out, drained after each step. */
#include "llk_scale.h"

int main(void)
{
    llk_scale_pack(LLK_FMT_FLOAT32, LLK_FMT_FLOAT16_B, 1);
    return 0;
}
