/* matmul_tile_hifi4, unpack (TRISC0 -> T0): per product i, the Float16_b tile i of
 * params.in0 (A) into SrcB (unpacker 1) and tile i of params.in1 (B) into SrcA
 * (unpacker 0): MVMUL computes Dst += SrcB @ SrcA. The ALU sees BF16 operands and a
 * 32-bit (FP32) Dst. */
#include "llk_matmul.h"
#include "llk_params.h"

#define FMT LLK_FMT_FLOAT16_B
#define DST32 1

int main(void)
{
    uint32_t in0 = LLK_PARAMS_PTR->in0;
    uint32_t in1 = LLK_PARAMS_PTR->in1;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_unpack_alu_config(FMT, FMT, DST32);
    llk_unpack_config(0, FMT, FMT, 0);
    llk_unpack_config(1, FMT, FMT, 0);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_matmul_unpack_a(in0 + i * llk_tile_bytes(FMT));
        llk_matmul_unpack_b(in1 + i * llk_tile_bytes(FMT));
    }
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
