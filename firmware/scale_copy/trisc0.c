/* scale_copy, unpack (TRISC0 -> T0): datacopy_bf16's unpack (Float16_b tiles into
 * SrcA), over params.tiles steps repeating the params.wrap tiles at params.in0,
 * drained after each step (llk_scale.h). Math: datacopy_bf16's (or sfpu_relu's). */
#include "llk_scale.h"

int main(void)
{
    llk_scale_unpack_a(LLK_FMT_FLOAT16_B);
    return 0;
}
