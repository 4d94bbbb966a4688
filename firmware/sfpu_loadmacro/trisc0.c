/* sfpu_loadmacro, unpack (TRISC0 -> T0): each Float32 tile of params.in0 straight into a
 * 32-bit Dst half (unpacker 0, WriteDstFP32 keeps all 32 bits), alternating halves,
 * guarded by UNPACK_TO_DEST / MATH_PACK (llk_unpack_dst_acquire), as datacopy_fp32. */
#include "llk_kernels.h"

int main(void)
{
    llk_kernel_unpack_to_dst(LLK_FMT_FLOAT32);
    return 0;
}
