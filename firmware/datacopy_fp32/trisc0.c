/* datacopy_fp32, unpack (TRISC0 -> T0): each Float32 tile of params.in0 straight
 * into Dst (unpacker 0, Unpack_if_sel_cntx0; 32-bit Dst rows keep all 32 bits,
 * UNPACR_Regular.md WriteDstFP32), alternating between the two Dst halves, with the
 * UNPACK_TO_DEST / MATH_PACK semaphores guarding the half (llk_unpack_dst_acquire). */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_unpack_to_dst(LLK_FMT_FLOAT32);
    return 0;
}
