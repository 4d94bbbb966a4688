/* sfpu_relu, unpack (TRISC0 -> T0): each Float16_b tile of params.in0 into SrcA
 * (unpacker 0, one UNPACR per tile), handed to math by flipping the SrcA bank, as in
 * datacopy_bf16. */
#include "llk_params.h"
#include "llk_unpack.h"

#define FMT LLK_FMT_FLOAT16_B

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
