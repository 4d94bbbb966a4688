/* sfpu_where, math (TRISC1 -> T1): out = a where c > 0, else b, on the SFPU, with the
 * lane flags and the conditional-execution stack. The unpacker put c, a, b at tile
 * slots 0, 1, 2 of the half; the result goes to slot 0 (which pack reads).
 *
 * Lane predication is on throughout (llk_sfpu_init(1): UseLaneFlagsForLaneEnable,
 * every flag true). Per 4-row group:
 *   SFPLOAD c, a, b                     (every lane enabled)
 *   SFPPUSHC                            save {flags all true, predication on}
 *   SFPSETCC GTE0 c; SFPSETCC NE0 c     refine: enabled where c >= 0, then c != 0
 *                                       (the second only updates enabled lanes):
 *                                       c > 0; -0 has its sign bit set and is out
 *   SFPSTORE a -> slot 0                "if": lanes with c > 0
 *   SFPCOMPC                            "else": flags = top-of-stack flags && !flags
 *   SFPSTORE b -> slot 0                lanes with c <= 0
 *   SFPPOPC                             restore every lane for the next group
 * Raw 32-bit moves: exact. */
#include "llk_params.h"
#include "llk_sfpu.h"

static const uint32_t where_body[] = {
    LLK_SFPU_LOAD(LLK_L0, LLK_SFPU_FP32, 0),
    LLK_SFPU_LOAD(LLK_L1, LLK_SFPU_FP32, 1),
    LLK_SFPU_LOAD(LLK_L2, LLK_SFPU_FP32, 2),
    TTE_SFPPUSHC(0, 0, 0, 0),
    TTE_SFPSETCC(0, LLK_L0, 0, LLK_SETCC_GTE0),
    TTE_SFPSETCC(0, LLK_L0, 0, LLK_SETCC_NE0),
    LLK_SFPU_STORE(LLK_L1, LLK_SFPU_FP32, 0),
    TTE_SFPCOMPC(0, 0, 0, 0),
    LLK_SFPU_STORE(LLK_L2, LLK_SFPU_FP32, 0),
    TTE_SFPPOPC(0, 0, 0, 0),
};
#define WHERE_N (sizeof(where_body) / sizeof(where_body[0]))

int main(void)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_math_init();
    llk_sfpu_init(1);
    llk_sfpu_op_init(where_body, WHERE_N);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_wait_unpacked();
        llk_math_dst_acquire(i & 1u, 1);
        llk_sfpu_tile();
        llk_math_unpacked_done();
    }
    llk_done(LLK_MAILBOX_MATH);
    return 0;
}
