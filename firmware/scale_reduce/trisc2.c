/* scale_reduce, pack (TRISC2 -> T2): reduce_row's pack for sums (32-bit Dst half to
 * Float32), step i to tile i % params.wrap of params.out, drained after each step. */
#include "llk_scale.h"

int main(void)
{
    llk_scale_pack(LLK_FMT_FLOAT32, LLK_FMT_FLOAT32, 1);
    return 0;
}
