/* llk_mop.h: programming this thread's MOP expander (tt-isa-documentation
 * WormholeB0/TensixTile/TensixCoprocessor/MOPExpander.md, MOP.md; seed 000).
 *
 * MopCfg[0..8] are write-only words at 0xFFB80000 (each TRISC reaches its own
 * thread's). The expander samples them while it expands, so they may only be
 * rewritten while no MOP of this thread is expanding: llk_mop_program waits for
 * that first (llk_mop_sync, MOPExpanderDoneCheck).
 *
 * Template 1 (the double loop):
 *   for outer in OuterCount: StartOp; inner loop of InnerCount LoopOp (alternating
 *   with LoopOp1 if that is not a NOP), the very last one replaced by Loop0Last, the
 *   last of every other outer iteration by Loop1Last; EndOp0; EndOp1.
 * NOP words (opcode 0x02) are skipped.
 */
#ifndef LLK_MOP_H
#define LLK_MOP_H

#include <stdint.h>

#include "llk_sync.h"
#include "ttemu_tensix.h"

#define LLK_MOP_CFG(i) (0xFFB80000u + 4u * (i))

struct llk_mop_t1 {
    uint32_t outer, inner;
    uint32_t start_op, end_op0, end_op1;
    uint32_t loop_op, loop_op1;
    uint32_t loop0_last, loop1_last;
};

/* Program template 1 (counts are 7-bit: 1..127). */
static inline void llk_mop_program(const struct llk_mop_t1 *m)
{
    llk_mop_sync();
    LLK_REG32(LLK_MOP_CFG(0)) = m->outer;
    LLK_REG32(LLK_MOP_CFG(1)) = m->inner;
    LLK_REG32(LLK_MOP_CFG(2)) = m->start_op;
    LLK_REG32(LLK_MOP_CFG(3)) = m->end_op0;
    LLK_REG32(LLK_MOP_CFG(4)) = m->end_op1;
    LLK_REG32(LLK_MOP_CFG(5)) = m->loop_op;
    LLK_REG32(LLK_MOP_CFG(6)) = m->loop_op1;
    LLK_REG32(LLK_MOP_CFG(7)) = m->loop0_last;
    LLK_REG32(LLK_MOP_CFG(8)) = m->loop1_last;
}

/* Run the programmed template 1 once. */
#define LLK_MOP_RUN() TTE_INSN_MOP(1, 0, 0)

#endif
