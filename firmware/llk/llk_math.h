/* llk_math.h: the math thread (TRISC1 -> Tensix T1): Matrix Unit work on whole
 * tiles, Dst double buffering, the math -> pack handshake.
 *
 * Follows tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/RWCs.md,
 * SETRWC.md, MOVA2D.md, ELWADD.md, ELWSUB.md, ELWMUL.md, ZEROACC.md, SrcASrcB.md
 * (fidelity phases), Dst.md, SETC16.md, SEMWAIT.md / STALLWAIT.md (seed 002 pattern
 * 4 and 6).
 *
 * Row addressing: an FPU instruction works on an aligned block of 8 rows at
 * DstRow + DEST_TARGET_REG_CFG_MATH_Offset + RWC.Dst (Dst) and RWC.SrcA / RWC.SrcB
 * (Src). The math thread points DEST_TARGET_REG_CFG_MATH_Offset (ThreadConfig, SETC16)
 * at the Dst half it owns, and walks the 64 rows of a tile with address modifiers:
 *
 *   LLK_AM_KEEP   (0)  nothing changes
 *   LLK_AM_NEXT8  (1)  SrcA += 8, SrcB += 8, Dst += 8
 *   LLK_AM_PHASE  (2)  SrcA = SrcB = Dst = 0, FidelityPhase += 1 (next fidelity phase)
 *   LLK_AM_RESET  (3)  SrcA = SrcB = Dst = 0, FidelityPhase = 0
 *
 * A tile operation is one MOP (template 1, llk_mop.h): 8 instructions of 8 rows, the
 * last with LLK_AM_RESET (or LLK_AM_PHASE per fidelity phase for ELWMUL), and the last
 * of all flipping the Src banks back to the unpackers.
 *
 * Dst modes: 16-bit (the FPU writes BF16, ALU_ACC_CTRL_Fp32_enabled = 0) or 32-bit
 * (FP32, Fp32_enabled = 1); the unpack thread writes that field
 * (llk_unpack_alu_config) and the same `dst32` must be given here and to pack.
 */
#ifndef LLK_MATH_H
#define LLK_MATH_H

#include <stdint.h>

#include "llk_cfg.h"
#include "llk_mop.h"
#include "llk_sem.h"
#include "llk_tile.h"

#define LLK_AM_KEEP 0u
#define LLK_AM_NEXT8 1u
#define LLK_AM_PHASE 2u
#define LLK_AM_RESET 3u

/* MOVA2D Move8Rows (instr_mod bit 1). */
#define LLK_MOVA2D_8ROWS 2u
/* clear_dvalid / FlipSrc bits of FPU instructions and SETRWC. */
#define LLK_FLIP_SRCA 1u
#define LLK_FLIP_SRCB 2u

enum llk_eltwise_op { LLK_ELW_ADD, LLK_ELW_SUB, LLK_ELW_MUL };

/* --- address modifiers and the Dst offset, for operations with their own walks -- */

/* Fields of one address-modifier slot (RWCs.md ApplyAddrMod; ThreadConfig
 * ADDR_MOD_AB_SEC<n> / ADDR_MOD_DST_SEC<n>, same layout in every slot). Increments
 * are modulo the counter width: SrcA / SrcB are 6-bit (an increment of 48 is -16),
 * Dst 10-bit, FidelityPhase 2-bit. *_CR: the counter becomes its carriage-return
 * register plus the increment (which is kept there too); *_CLEAR: both become 0. */
#define LLK_AM_SRCA_INCR(n) LLK_THCFG_FIELD(ADDR_MOD_AB_SEC0_SrcAIncr, n)
#define LLK_AM_SRCA_CR LLK_THCFG_FIELD(ADDR_MOD_AB_SEC0_SrcACR, 1)
#define LLK_AM_SRCA_CLEAR LLK_THCFG_FIELD(ADDR_MOD_AB_SEC0_SrcAClear, 1)
#define LLK_AM_SRCB_INCR(n) LLK_THCFG_FIELD(ADDR_MOD_AB_SEC0_SrcBIncr, n)
#define LLK_AM_SRCB_CR LLK_THCFG_FIELD(ADDR_MOD_AB_SEC0_SrcBCR, 1)
#define LLK_AM_SRCB_CLEAR LLK_THCFG_FIELD(ADDR_MOD_AB_SEC0_SrcBClear, 1)
#define LLK_AM_DST_INCR(n) LLK_THCFG_FIELD(ADDR_MOD_DST_SEC0_DestIncr, n)
#define LLK_AM_DST_CR LLK_THCFG_FIELD(ADDR_MOD_DST_SEC0_DestCR, 1)
#define LLK_AM_DST_CLEAR LLK_THCFG_FIELD(ADDR_MOD_DST_SEC0_DestClear, 1)
#define LLK_AM_FIDELITY_INCR(n) LLK_THCFG_FIELD(ADDR_MOD_DST_SEC0_FidelityIncr, n)
#define LLK_AM_FIDELITY_CLEAR LLK_THCFG_FIELD(ADDR_MOD_DST_SEC0_FidelityClear, 1)

/* Reprogram address-modifier slot `slot` (0..3; llk_arch.h places the words): `ab` =
 * LLK_AM_SRCA_* | LLK_AM_SRCB_*, `dst` = LLK_AM_DST_* | LLK_AM_FIDELITY_*. SETC16 runs
 * in order with this thread's instructions, so call it before the instructions that
 * use the slot and after those that used the old value (or put a STALLWAIT on
 * LLK_WAIT_MATH first). An operation that reprograms slots 0..3 replaces
 * llk_math_init's LLK_AM_* meanings until they are programmed again. */
static inline void llk_math_set_addr_mod(uint32_t slot, uint32_t ab, uint32_t dst)
{
    llk_setc16(LLK_THCFG_ADDR_MOD_AB_IDX(slot), ab);
    llk_setc16(LLK_THCFG_ADDR_MOD_DST_IDX(slot), dst);
}

/* --- the Dst offset, for operations with their own walks -------------------------- */

/* Address modifiers, RWCs, and the MATH_PACK semaphore (max 2: two Dst halves).
 * Call once at the start of the math thread. */
static inline void llk_math_init(void)
{
    llk_arch_math_thcfg_init();
    llk_setc16(TTE_THCFG_CLR_DVALID_SrcA_Disable_IDX, 0);
    /* 0: keep */
    llk_math_set_addr_mod(LLK_AM_KEEP, 0, 0);
    /* 1: next 8 rows */
    llk_math_set_addr_mod(LLK_AM_NEXT8, LLK_AM_SRCA_INCR(8) | LLK_AM_SRCB_INCR(8), LLK_AM_DST_INCR(8));
    /* 2: back to row 0, next fidelity phase */
    llk_math_set_addr_mod(LLK_AM_PHASE, LLK_AM_SRCA_CLEAR | LLK_AM_SRCB_CLEAR, LLK_AM_DST_CLEAR | LLK_AM_FIDELITY_INCR(1));
    /* 3: back to row 0, fidelity phase 0 */
    llk_math_set_addr_mod(LLK_AM_RESET, LLK_AM_SRCA_CLEAR | LLK_AM_SRCB_CLEAR, LLK_AM_DST_CLEAR | LLK_AM_FIDELITY_CLEAR);
    /* RWCs (SrcA, SrcB, Dst, fidelity) = 0 */
    tte_push(TTE_SETRWC(0, 0, 0, 0, 0, 0xF));
    llk_sem_init(LLK_SEM_MATH_PACK, 2, 0);
}

/* Wait for a free Dst half (MATH_PACK below max), then point the FPU at it. */
static inline void llk_math_dst_acquire(uint32_t half, int dst32)
{
    llk_sem_wait_room(LLK_STALL_SYNC | LLK_STALL_MATH | LLK_STALL_SFPU, LLK_SEM_MATH_PACK);
    tte_push(TTE_STALLWAIT(LLK_STALL_CFG, LLK_WAIT_MATH | LLK_WAIT_SFPU));
    llk_setc16(TTE_THCFG_DEST_TARGET_REG_CFG_MATH_Offset_IDX, llk_dst_half_row(half, dst32));
}

/* The half is complete: post MATH_PACK once the FPU has finished writing it. */
static inline void llk_math_dst_release(void)
{
    llk_sem_post_after(LLK_SEM_MATH_PACK, LLK_WAIT_MATH | LLK_WAIT_SFPU);
}

/* Mark Dst half `half` (of a 16- or 32-bit Dst) undefined (ZEROACC: the FPU then
 * reads it as zero), in order with this thread's instructions. */
static inline void llk_math_dst_zero_half(uint32_t half, int dst32)
{
    tte_push(LLK_ZEROACC_HALF(half & 1u, dst32));
}

/* Point the FPU at Dst row `row` (DEST_TARGET_REG_CFG_MATH_Offset; 32-bit rows in
 * 32-bit mode) once the Matrix Unit and the SFPU have finished this thread's earlier
 * instructions, e.g. to address the n-th tile of an acquired half
 * (llk_dst_half_row(half, dst32) + 64 * n). */
static inline void llk_math_dst_offset(uint32_t row)
{
    tte_push(TTE_STALLWAIT(LLK_STALL_CFG, LLK_WAIT_MATH | LLK_WAIT_SFPU));
    llk_setc16(TTE_THCFG_DEST_TARGET_REG_CFG_MATH_Offset_IDX, row);
}

/* --- tiles unpacked straight into Dst (LLK_SEM_UNPACK_TO_DEST) -------------------- */

/* Wait until the unpacker has written the next tile into Dst. */
static inline void llk_math_wait_unpacked(void)
{
    llk_sem_wait_data(LLK_STALL_SYNC | LLK_STALL_MATH | LLK_STALL_SFPU, LLK_SEM_UNPACK_TO_DEST);
}

/* Done with the unpacked tile: post its half to pack (MATH_PACK) first, then let the
 * unpacker go on (UNPACK_TO_DEST). The order matters: the unpacker checks
 * MATH_PACK only after seeing UNPACK_TO_DEST drop (llk_unpack_dst_acquire). */
static inline void llk_math_unpacked_done(void)
{
    llk_math_dst_release();
    llk_sem_get_after(LLK_SEM_UNPACK_TO_DEST, 0);
}

/* --- datacopy: SrcA -> Dst (MOVA2D, 8 rows at a time) ------------------------------ */

/* Program the MOP for llk_math_copy_tile. BF16 (or BFP8 unpacked to BF16) in SrcA
 * goes to Dst16b unchanged (MOVA2D.md RemoveLowMantissa). */
static inline void llk_math_copy_init(void)
{
    struct llk_mop_t1 m = {
        .outer = 1, .inner = LLK_TILE_ROWS / 8u,
        .start_op = TTE_NOP(), .end_op0 = TTE_NOP(), .end_op1 = TTE_NOP(),
        .loop_op = TTE_MOVA2D(0, 0, LLK_AM_NEXT8, LLK_MOVA2D_8ROWS, 0),
        .loop_op1 = TTE_NOP(),
        .loop0_last = TTE_MOVA2D(0, 0, LLK_AM_RESET, LLK_MOVA2D_8ROWS, 0),
        .loop1_last = TTE_MOVA2D(0, 0, LLK_AM_RESET, LLK_MOVA2D_8ROWS, 0),
    };
    llk_mop_program(&m);
}

/* Copy the tile in SrcA to the acquired Dst half, then give SrcA back. */
static inline void llk_math_copy_tile(void)
{
    LLK_MOP_RUN();
    TTE_INSN_SETRWC(LLK_FLIP_SRCA, 0, 0, 0, 0, 0);
}

/* --- element-wise: Dst = SrcA op SrcB ---------------------------------------------- */

/* Program the MOP for llk_math_eltwise_tile. ELWADD / ELWSUB: one pass, Dst = A op B
 * (AddDst = 0). ELWMUL: Dst += A * B with the four fidelity phases (ELWMUL.md: it
 * always accumulates; its AddDst operand is 0 as in tt-llk's eltwise_binary_func,
 * where ttsim refuses 1) (SrcASrcB.md: all
 * four for full BF16 precision; each phase's partial product is exact and their sum
 * has at most 16 significant bits, so with a 32-bit Dst the product is exact). */
static inline void llk_math_eltwise_init(enum llk_eltwise_op op)
{
    struct llk_mop_t1 m = {
        .outer = 1, .inner = LLK_TILE_ROWS / 8u,
        .start_op = TTE_NOP(), .end_op0 = TTE_NOP(), .end_op1 = TTE_NOP(), .loop_op1 = TTE_NOP(),
    };
    if (op == LLK_ELW_MUL) {
        m.outer = 4;  /* fidelity phases 0..3 */
        m.loop_op = TTE_ELWMUL(0, 0, 0, LLK_AM_NEXT8, 0);
        m.loop1_last = TTE_ELWMUL(0, 0, 0, LLK_AM_PHASE, 0);
        m.loop0_last = TTE_ELWMUL(LLK_FLIP_SRCA | LLK_FLIP_SRCB, 0, 0, LLK_AM_PHASE, 0);
    } else if (op == LLK_ELW_SUB) {
        m.loop_op = TTE_ELWSUB(0, 0, 0, LLK_AM_NEXT8, 0);
        m.loop1_last = m.loop0_last = TTE_ELWSUB(LLK_FLIP_SRCA | LLK_FLIP_SRCB, 0, 0, LLK_AM_RESET, 0);
    } else {
        m.loop_op = TTE_ELWADD(0, 0, 0, LLK_AM_NEXT8, 0);
        m.loop1_last = m.loop0_last = TTE_ELWADD(LLK_FLIP_SRCA | LLK_FLIP_SRCB, 0, 0, LLK_AM_RESET, 0);
    }
    llk_mop_program(&m);
}

/* One tile: Dst half `half` (acquired; dst32 as given to llk_math_dst_acquire) = SrcA op SrcB; both Src banks go back to the
 * unpackers. ELWMUL accumulates, so the half is first marked undefined (ZEROACC: the
 * FPU then reads it as zero). After ELWMUL's four LLK_AM_PHASE steps the fidelity
 * phase is back at 0 (it is 2 bits wide). */
static inline void llk_math_eltwise_tile(enum llk_eltwise_op op, uint32_t half, int dst32)
{
    if (op == LLK_ELW_MUL)
        llk_math_dst_zero_half(half, dst32);
    LLK_MOP_RUN();
}

#endif
