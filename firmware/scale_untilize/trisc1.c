/* scale_untilize, math (TRISC1 -> T1): untilize's math (take the half the unpacker
 * filled, hand it to pack), drained after each tile as well: this thread only passes
 * semaphores, so with 64 PACRs per tile on the pack side its RISC-V would run hundreds of
 * instructions ahead of its coprocessor thread, past ttsim's 512-entry instruction FIFO
 * ("pipe 1 inst fifo full"; ttsim's push has no back-pressure). */
#include "llk_math.h"
#include "llk_params.h"
#include "llk_sync.h"

int main(void)
{
    uint32_t bands = LLK_PARAMS_PTR->m ? LLK_PARAMS_PTR->m : 1u;
    uint32_t tiles = LLK_PARAMS_PTR->tiles * bands;

    llk_math_init();
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_wait_unpacked();
        llk_math_dst_acquire(i & 1u, 1);
        llk_math_unpacked_done();
        llk_tensix_sync();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
