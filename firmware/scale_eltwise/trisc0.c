/* scale_eltwise, unpack (TRISC0 -> T0): eltwise_add's unpack (tile i of params.in0 into
 * SrcA, of params.in1 into SrcB), repeating the params.wrap tiles, drained after each
 * step (llk_scale.h). Math: eltwise_add's. */
#include "llk_scale.h"

int main(void)
{
    llk_scale_unpack_ab(LLK_FMT_FLOAT16_B);
    return 0;
}
