/* scale_exp, unpack (TRISC0 -> T0): sfpu_exp's unpack (Float32 tiles straight into a
 * 32-bit Dst half), repeating the params.wrap tiles at params.in0, drained after each
 * step (llk_scale.h). Math: sfpu_exp's. */
#include "llk_scale.h"

int main(void)
{
    llk_scale_unpack_to_dst(LLK_FMT_FLOAT32);
    return 0;
}
