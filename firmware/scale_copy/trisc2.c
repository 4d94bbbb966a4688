/* scale_copy, pack (TRISC2 -> T2): datacopy_bf16's pack (16-bit Dst half to Float16_b),
 * step i to tile i % params.wrap of params.out, drained after each step. */
#include "llk_scale.h"

int main(void)
{
    llk_scale_pack(LLK_FMT_FLOAT16_B, LLK_FMT_FLOAT16_B, 0);
    return 0;
}
