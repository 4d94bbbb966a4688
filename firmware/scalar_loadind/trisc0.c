/* scalar_loadind: the Scalar Unit's L1 accesses from Tensix thread T0 (TRISC0 alone):
 * each 32-bit word at LI_IN is read into GPR 8 with LOADIND, incremented with
 * ADDDMAREG (immediate 1), and written to the same offset at LI_OUT with STOREIND
 * (LOADIND.md, STOREIND.md, ADDDMAREG.md). Addresses: GPR 4 = LI_IN / 16, GPR 5 =
 * LI_OUT / 16; the byte offset is the low half of GPR 6 (half-register 12), which
 * the STOREIND advances by 4. STALLWAIT (block the Scalar Unit, condition C0) waits
 * for each LOADIND's read (LOADIND.md "Instruction scheduling"). A kernel of its own
 * because ttsim does not implement LOADIND / STOREIND (tests/test_kernels_ttsim.py
 * pins its refusal); ttemu is checked against numpy. */
#include "tile.h"
#include "ttemu_tensix.h"

#define LI_IN 0x21000u
#define LI_OUT 0x23000u
#define LI_DONE 0x20000u
#define LI_WORDS 1024u

#define GPR_IN 4u
#define GPR_OUT 5u
#define HALF_OFFSET 12u /* low half of GPR 6 */
#define GPR_DATA 8u
#define SIZE_32 1u
#define INC_NONE 0u
#define INC_4 2u
#define STALL_THCON 0x20u /* STALLWAIT block B5: the Scalar Unit */
#define WAIT_THCON 0x1u   /* condition C0: its memory requests of this thread */

static void set_gpr(uint32_t gpr, uint32_t value)
{
    tte_push(TTE_SETDMAREG_IMM(value & 0xFFFFu, 2u * gpr));
    tte_push(TTE_SETDMAREG_IMM(value >> 16, 2u * gpr + 1u));
}

int main(void)
{
    set_gpr(GPR_IN, LI_IN / 16u);
    set_gpr(GPR_OUT, LI_OUT / 16u);
    set_gpr(HALF_OFFSET / 2u, 0);
    for (uint32_t i = 0; i < LI_WORDS; ++i) {
        tte_push(TTE_LOADIND(SIZE_32, HALF_OFFSET, INC_NONE, GPR_DATA, GPR_IN));
        tte_push(TTE_STALLWAIT(STALL_THCON, WAIT_THCON));
        tte_push(TTE_ADDDMAREG(1, GPR_DATA, 1, GPR_DATA));
        tte_push(TTE_STOREIND(1, 0, SIZE_32, HALF_OFFSET, INC_4, GPR_DATA, GPR_OUT));
    }
    /* drain T0 (TTSync: the load returns once the thread's instructions are done) */
    TILE_REG32(0xFFE80004u) = 0;
    (void)TILE_REG32(0xFFE80004u);
    TILE_REG32(LI_DONE) = 1;
    return 0;
}
