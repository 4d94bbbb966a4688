/* shiftxa, math (TRISC1 -> T1): per tile, take a free Dst half (16-bit Dst), shift
 * face 0 of SrcA (rows 0..15) right by one lane with SHIFTXA (SHIFTXA.md: lane 0
 * becomes zero), then MOVA2D the 64 SrcA rows into the half, give SrcA back, post the
 * half. SHIFTXA's input rows are those of the last FPU instruction's SrcA row
 * ("HardwareBug() & 0x30"), so a MOVA2D from SrcA row 0 (into the half's first rows,
 * which the copy then overwrites) comes first. A kernel of its own because ttsim does
 * not implement SHIFTXA (tests/test_kernels_ttsim.py pins its refusal); ttemu is
 * checked against numpy. */
#include "llk_kernels.h"

#define SHIFTXA_RIGHT 2u

static void shift_face0(uint32_t i)
{
    (void)i;
    tte_push(TTE_MOVA2D(0, 0, LLK_AM_KEEP, LLK_MOVA2D_8ROWS, 0));
    tte_push(TTE_SHIFTXA(0, SHIFTXA_RIGHT));
}

int main(void)
{
    llk_kernel_copy_math(shift_face0);
    return 0;
}
