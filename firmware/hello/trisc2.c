/* hello/trisc2.c: write TRISC2's value to its slot. */
#include "hello.h"

int main(void)
{
    HELLO_SLOT(1 + 2) = HELLO_TRISC_VALUE(2);
    return 0; /* crt0 parks the core */
}
