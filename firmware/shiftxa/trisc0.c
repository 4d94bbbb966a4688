/* shiftxa, unpack (TRISC0 -> T0): each Float16_b tile of params.in0 into SrcA
 * (unpacker 0, one UNPACR per tile), handed to math by flipping the SrcA bank. */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_unpack_a(LLK_FMT_FLOAT16_B);
    return 0;
}
