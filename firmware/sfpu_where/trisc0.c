/* sfpu_where, unpack (TRISC0 -> T0): per output tile i, three Float32 tiles straight
 * into the 32-bit Dst half i & 1 (unpacker 0, WriteDstFP32): the condition c
 * (params.in0) at tile slot 0 (rows +0..63), a (params.in1) at slot 1 (+64..127), b
 * (params.arg, an L1 address) at slot 2 (+128..191). One UNPACK_TO_DEST post covers
 * the three (llk_unpack_dst_acquire / _release). */
#include "llk_params.h"
#include "llk_unpack.h"

#define FMT LLK_FMT_FLOAT32

int main(void)
{
    uint32_t in_c = LLK_PARAMS_PTR->in0;
    uint32_t in_a = LLK_PARAMS_PTR->in1;
    uint32_t in_b = LLK_PARAMS_PTR->arg;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;
    uint32_t bytes = llk_tile_bytes(FMT);

    llk_unpack_alu_config(FMT, FMT, 1, LLK_FMT_FLOAT32);
    llk_unpack_config(0, FMT, FMT, 1);
    for (uint32_t i = 0; i < tiles; ++i) {
        uint32_t row = llk_dst_half_row(i & 1u, 1);
        llk_unpack_dst_acquire();
        llk_unpack_tile_to_dst(in_c + i * bytes, row, FMT);
        llk_unpack_tile_to_dst(in_a + i * bytes, row + LLK_TILE_ROWS, FMT);
        llk_unpack_tile_to_dst(in_b + i * bytes, row + 2u * LLK_TILE_ROWS, FMT);
        llk_unpack_dst_release();
    }
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
