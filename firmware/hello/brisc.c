/* hello/brisc.c: write BRISC's value, then start TRISC0..2. */
#include "hello.h"

int main(void)
{
    HELLO_SLOT(0) = HELLO_BRISC_VALUE;
    TILE_REG32(TILE_SOFT_RESET) &= ~TILE_SOFT_RESET_TRISCS;
    return 0; /* crt0 parks the core */
}
