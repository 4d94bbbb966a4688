/* hello/trisc0.c: write TRISC0's value to its slot. */
#include "hello.h"

int main(void)
{
    HELLO_SLOT(1 + 0) = HELLO_TRISC_VALUE(0);
    return 0; /* crt0 parks the core */
}
