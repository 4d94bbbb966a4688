/* sfpu_relu, math (TRISC1 -> T1): per tile, take a free 16-bit Dst half, copy the
 * tile from SrcA (MOVA2D, llk_math_copy_tile), then run max(x, 0) on the SFPU over
 * its 32 row groups, and post the half to pack.
 *
 * Per group (llk_sfpu.h): SFPLOAD the BF16 datums (exact widening to FP32); SFPSETCC
 * LT0 leaves enabled only the lanes whose sign bit is set (x < 0, or -0); SFPSTORE of
 * LReg 9 (the constant 0) writes +0 to exactly those lanes (the others keep x in Dst,
 * untouched); SFPENCC enables every lane again. Exact for every non-NaN input.
 *
 * The MOP is shared by the copy and the SFPU, so each is programmed before it runs;
 * the SFPU waits for the MOVA2Ds to be done (llk_sfpu_wait_fpu). */
#include "llk_params.h"
#include "llk_sfpu.h"

static const uint32_t relu_body[] = {
    LLK_SFPU_LOAD(LLK_L0, LLK_SFPU_BF16, 0),
    TTE_SFPSETCC(0, LLK_L0, 0, LLK_SETCC_LT0),
    LLK_SFPU_STORE(LLK_LCONST_0, LLK_SFPU_BF16, 0),
    LLK_SFPU_ENCC_ON(),
};
#define RELU_N (sizeof(relu_body) / sizeof(relu_body[0]))

int main(void)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_math_init();
    llk_sfpu_init(1);
    llk_sfpu_record(relu_body, RELU_N);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_dst_acquire(i & 1u, 0);
        llk_math_copy_init();
        llk_math_copy_tile();
        llk_sfpu_wait_fpu();
        llk_sfpu_tile_init(RELU_N);
        llk_sfpu_tile();
        llk_math_dst_release();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
