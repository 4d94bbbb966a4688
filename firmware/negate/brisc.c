/* negate: a RISC-V-only "kernel" for manifest tests: flips the sign of every bf16
 * datum of NEG_TILES tiles at NEG_IN and stores them at NEG_OUT, then signals done. */
#include "tile.h"

#define NEG_IN 0x21000u
#define NEG_OUT 0x23000u
#define NEG_DONE 0x20000u
#define NEG_TILES 2u

int main(void)
{
    volatile uint32_t *in = (volatile uint32_t *)NEG_IN;
    volatile uint32_t *out = (volatile uint32_t *)NEG_OUT;
    for (uint32_t i = 0; i < NEG_TILES * 32u * 32u / 2u; ++i)
        out[i] = in[i] ^ 0x80008000u; /* two bf16 datums per word */
    TILE_REG32(NEG_DONE) = 1;
    return 0;
}
