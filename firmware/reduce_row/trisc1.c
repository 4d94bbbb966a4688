/* reduce_row, math (TRISC1 -> T1): per tile, take a free Dst half (halves alternate; 32-bit
 * Dst for sums, 16-bit for max), mark it undefined, run the reduction's MOP
 * (llk_reduce.h), reset the RWCs and give the input bank back, post the half to
 * pack. At the end the scaler's bank goes back too. params.m: 0 = sum, 1 = max. */
#include "llk_reduce.h"

int main(void)
{
    llk_kernel_reduce_math(LLK_REDUCE_ROW, LLK_PARAMS_PTR->m ? LLK_REDUCE_MAX : LLK_REDUCE_SUM);
    return 0;
}
