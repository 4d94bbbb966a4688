/* fpu_ops, unpack (TRISC0 -> T0): per tile i, for the Matrix Unit arithmetic probe
 * (tests/test_fpu_ttsim.py): params.k = the Src format (Float16_b, Float16, or TF32 from
 * Float32 tiles), params.n = 1 for a 32-bit Dst. Element-wise ops (params.m < 3): tile
 * i of in0 into SrcA, of in1 into SrcB; matmul (m = 3): in0 into SrcB, in1 into SrcA
 * (MVMUL is Dst += SrcB @ SrcA). */
#include "llk_kernels.h"

int main(void)
{
    uint32_t in0 = LLK_PARAMS_PTR->in0, in1 = LLK_PARAMS_PTR->in1;
    uint32_t tiles = LLK_PARAMS_PTR->tiles, op = LLK_PARAMS_PTR->m;
    uint32_t src = LLK_PARAMS_PTR->k;
    int dst32 = LLK_PARAMS_PTR->n != 0;
    uint32_t l1 = src == LLK_FMT_TF32 ? LLK_FMT_FLOAT32 : src;
    uint32_t tb = llk_tile_bytes(l1);

    llk_unpack_alu_config(src, src, dst32, dst32 ? LLK_FMT_FLOAT32 : LLK_FMT_FLOAT16_B);
    llk_unpack_config(0, l1, src, 0);
    llk_unpack_config(1, l1, src, 0);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_unpack_tile(op == 3 ? 1u : 0u, in0 + i * tb);
        llk_unpack_tile(op == 3 ? 0u : 1u, in1 + i * tb);
    }
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
