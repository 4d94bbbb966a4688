/* hello/trisc1.c: write TRISC1's value to its slot. */
#include "hello.h"

int main(void)
{
    HELLO_SLOT(1 + 1) = HELLO_TRISC_VALUE(1);
    return 0; /* crt0 parks the core */
}
