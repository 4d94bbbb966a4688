/* transpose, unpack (TRISC0 -> T0): per tile, the Float16_b tile i of params.in0 into
 * SrcA (unpacker 0) with Haloize_mode: every 16x16 face arrives transposed, in its
 * own place; the bank is handed to math. The ALU sees BF16 and a 16-bit Dst. */
#include "llk_params.h"
#include "llk_transpose.h"

#define FMT LLK_FMT_FLOAT16_B

int main(void)
{
    uint32_t in0 = LLK_PARAMS_PTR->in0;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_unpack_alu_config(FMT, FMT, 0, FMT);
    llk_transpose_unpack_config(FMT, FMT);
    for (uint32_t i = 0; i < tiles; ++i)
        llk_unpack_tile(0, in0 + i * llk_tile_bytes(FMT));
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
