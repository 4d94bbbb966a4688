/* eltwise_sub, unpack (TRISC0 -> T0): per tile, the Float16_b tile i of params.in0 into SrcA
 * (unpacker 0) and tile i of params.in1 into SrcB (unpacker 1), each bank handed to
 * math by FlipSrc. The ALU sees BF16 operands and a 32-bit (FP32) Dst. */
#include "llk_params.h"
#include "llk_unpack.h"

#define FMT LLK_FMT_FLOAT16_B

int main(void)
{
    uint32_t in0 = LLK_PARAMS_PTR->in0;
    uint32_t in1 = LLK_PARAMS_PTR->in1;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_unpack_alu_config(FMT, FMT, 1);
    llk_unpack_config(0, FMT, FMT, 0);
    llk_unpack_config(1, FMT, FMT, 0);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_unpack_tile(0, in0 + i * llk_tile_bytes(FMT));
        llk_unpack_tile(1, in1 + i * llk_tile_bytes(FMT));
    }
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
