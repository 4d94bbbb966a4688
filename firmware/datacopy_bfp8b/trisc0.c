/* datacopy_bfp8b, unpack (TRISC0 -> T0): each Bfp8_b tile of params.in0 (64
 * exponent bytes, then 1024 sign-magnitude datums) into SrcA as BF16 (unpacker 0,
 * one UNPACR per tile; BFP8ToBF16 is lossless), handed to math by flipping the SrcA
 * bank. The ALU sees SrcA as Bfp8_b, i.e. BF16-style (MOVA2D.md). */
#include "llk_params.h"
#include "llk_unpack.h"

#define FMT LLK_FMT_BFP8_B

int main(void)
{
    uint32_t in = LLK_PARAMS_PTR->in0;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_unpack_alu_config(FMT, FMT, 0);
    llk_unpack_config(0, FMT, FMT, 0);
    for (uint32_t i = 0; i < tiles; ++i)
        llk_unpack_tile(0, in + i * llk_tile_bytes(FMT));
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
