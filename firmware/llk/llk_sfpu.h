/* llk_sfpu.h: the Vector Unit (SFPU) on the math thread (TRISC1 -> T1): a per-row-
 * group body run over a whole tile in Dst by replay + MOP.
 *
 * Follows tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/VectorUnit.md,
 * LReg.md, SFPLOAD.md, SFPSTORE.md, SFPLOADI.md, SFPCONFIG.md, SFPENCC.md, SFPMAD.md
 * ("Instruction scheduling"), RWCs.md, INCRWC.md, SETRWC.md, REPLAY.md, MOPExpander.md,
 * STALLWAIT.md, and the replay pattern of seed 000 (record SFPLOAD / op / SFPSTORE /
 * INCRWC, MOP template 1 with LoopOp = REPLAY over the row groups of a tile).
 *
 * Dst addressing (SFPLOAD.md / SFPSTORE.md functional model): an SFPLOAD or SFPSTORE
 * moves 32 datums between one LReg (32 lanes) and Dst at
 *     Addr = Imm10 + DEST_TARGET_REG_CFG_MATH_Offset + RWC.Dst   (DEST_REGW_BASE = 0)
 * lane l <-> Dst row (Addr & ~3) + l / 8, column 2 * (l % 8) + ((Addr >> 1) & 1):
 * four rows, even columns (Addr bit 1 clear) or odd columns (bit 1 set). Rows are
 * 16-bit rows (Dst16b) for the 16-bit formats and 32-bit rows (Dst32b) for FP32.
 * A tile (64 rows, llk_tile.h) is therefore 32 groups: Addr = 0, 2, 4, ..., 62. The
 * body addresses the group at RWC.Dst (Imm10 = 64 * k for tile slot k of the
 * acquired half: LLK_SFPU_TILE), and the driver appends INCRWC Dst += 2. The SFPU
 * uses address modifier LLK_AM_KEEP (slot 0, all increments zero, as llk_math_init
 * sets it; llk_sfpu_tile_init sets it again), so the FPU's address modifiers 1..3 are
 * left as llk_math.h defines them.
 * DEST_TARGET_REG_CFG_MATH_Offset is the acquired half (llk_math_dst_acquire); the
 * tile's MOP ends with SETRWC Dst = 0, so every tile starts at group 0.
 *
 * Replay + MOP: the body (at most LLK_SFPU_BODY_MAX words) plus the INCRWC is recorded
 * once into replay slots 0.. (llk_sfpu_record); the MOP (template 1, outer 1, inner
 * 32, every LoopOp = REPLAY of the body, EndOp0 = SETRWC Dst = 0) then runs a whole
 * tile from one RISC-V store (llk_sfpu_tile). The MOP configuration is per thread and
 * shared with every other MOP user (llk_math_copy_init, llk_math_eltwise_init, ...):
 * call llk_sfpu_tile_init again after one of those has run. Replay slots: by
 * convention (seed 000) 0..15 are the SFPU's and 16..31 the FPU's (llk_matmul.h and
 * llk_reduce.h record there); a body of more than 15 words (sfpu_exp's has 24) also
 * takes slots 16.., so a kernel mixing it with those operations records it again
 * (llk_sfpu_op_init) before its tiles.
 *
 * Scheduling rules the bodies must follow (ttemu stops a run, exit 5, when one is broken):
 *  - SFPMAD / SFPADD / SFPMUL / SFPADDI / SFPMULI: the next SFPU instruction must not
 *    read their destination (put an SFPNOP, or an unrelated instruction, between).
 *  - FPU writes to Dst (MOVA2D, ELW*) followed by SFPLOAD of the same rows: at least
 *    three unrelated instructions, or STALLWAIT(B8 SFPU, C7 math):
 *    llk_sfpu_wait_fpu().
 *  - SFPU writes followed by the packer: llk_math_dst_release already waits for the
 *    SFPU (STALLWAIT C14) before posting the half.
 *
 * LRegs persist between tiles (nothing but the bodies writes them), so constants are
 * loaded once at set-up: llk_sfpu_load_imm32 (LReg 0..7, two SFPLOADI halves) and
 * llk_sfpu_load_const (LReg 11..14 through LReg 0 and SFPCONFIG).
 */
#ifndef LLK_SFPU_H
#define LLK_SFPU_H

#include <stdint.h>

#include "llk_math.h"
#include "llk_params.h"

/* LReg operands (LReg.md). */
#define LLK_L0 0u
#define LLK_L1 1u
#define LLK_L2 2u
#define LLK_L3 3u
#define LLK_L4 4u
#define LLK_L5 5u
#define LLK_L6 6u
#define LLK_L7 7u
#define LLK_LCONST_0_8373 8u
#define LLK_LCONST_0 9u   /* 0 in every lane */
#define LLK_LCONST_1 10u  /* 1.0f in every lane */
#define LLK_LPROG0 11u    /* programmable (SFPCONFIG) */
#define LLK_LPROG1 12u
#define LLK_LPROG2 13u
#define LLK_LPROG3 14u
#define LLK_LLANE_X2 15u  /* lane i holds 2 * i */

/* SFPLOAD / SFPSTORE Mod0: the Dst data type (SFPLOAD.md table). */
#define LLK_SFPU_FP16 1u
#define LLK_SFPU_BF16 2u
#define LLK_SFPU_FP32 3u

/* SFPLOADI Mod0 (SFPLOADI.md). */
#define LLK_SFPLOADI_BF16 0u
#define LLK_SFPLOADI_USHORT 2u
#define LLK_SFPLOADI_UPPER 8u
#define LLK_SFPLOADI_LOWER 10u

/* SFPSETCC Mod1 (SFPSETCC.md). */
#define LLK_SETCC_LT0 0u
#define LLK_SETCC_NE0 2u
#define LLK_SETCC_GTE0 4u
#define LLK_SETCC_EQ0 6u

/* SFPENCC (SFPENCC.md): Mod1 = EI | RI (2 | 8), the form tt-llk uses (its SFPU init
 * pushes SFPENCC(3, 0, 0, 10)): UseLaneFlagsForLaneEnable from "bit SFPENCC_IMM12_E
 * (1)" and every LaneFlag from "bit SFPENCC_IMM12_R (2)" of the immediate (the page's
 * model tests those bits in Mod1 while its syntax has an Imm2 operand; ttemu reads
 * Imm2, see x_SFPENCC, as ttsim does). Both words set every flag true. */
#define LLK_SFPU_ENCC_ON() TTE_SFPENCC(3, 0, 0, 10)
#define LLK_SFPU_ENCC_OFF() TTE_SFPENCC(2, 0, 0, 10)

/* SFPIADD Mod1 (SFPIADD.md). */
#define LLK_IADD_IMM 1u
#define LLK_IADD_CC_NONE 4u
/* SFPEXEXP Mod1 (SFPEXEXP.md). */
#define LLK_EXEXP_NODEBIAS 1u

/* Geometry of one tile for the SFPU. */
#define LLK_SFPU_GROUPS 32u      /* SFPLOAD / SFPSTORE groups per tile */
#define LLK_SFPU_GROUP_STEP 2u   /* Dst Addr step from one group to the next */
#define LLK_SFPU_TILE_ROWS 64u   /* Dst rows per tile (Addr units: rows) */
#define LLK_SFPU_REPLAY_START 0u /* replay slots the body is recorded at */
#define LLK_SFPU_BODY_MAX 31u    /* words of a body (the INCRWC takes the 32nd slot) */

/* Imm10 of tile slot k (0, 1, ...) of the acquired half. */
#define LLK_SFPU_TILE(k) (LLK_SFPU_TILE_ROWS * (k))

/* Body words moving the current group of tile slot `k` (fmt: LLK_SFPU_*). */
#define LLK_SFPU_LOAD(lreg, fmt, k) TTE_SFPLOAD((lreg), (fmt), LLK_AM_KEEP, LLK_SFPU_TILE(k))
#define LLK_SFPU_STORE(lreg, fmt, k) TTE_SFPSTORE((lreg), (fmt), LLK_AM_KEEP, LLK_SFPU_TILE(k))
/* VD = VA * VB + VC (one rounding, SFPMAD.md). */
#define LLK_SFPU_MAD(va, vb, vc, vd) TTE_SFPMAD((va), (vb), (vc), (vd), 0)
#define LLK_SFPU_NOP() TTE_SFPNOP()

/* SETRWC: RWC.Dst = 0 (BitMask bit 2: Dst). */
#define LLK_SFPU_RWC_DST_RESET() TTE_SETRWC(0, 0, 0, 0, 0, 4)

/* Set-up on the math thread, after llk_math_init: Dst RWC 0, and lane predication
 * on (predicated != 0: UseLaneFlagsForLaneEnable with every flag true, for bodies
 * that use SFPSETCC / SFPPUSHC / ...) or off (every lane always enabled). */
static inline void llk_sfpu_init(int predicated)
{
    tte_push(LLK_SFPU_RWC_DST_RESET());
    tte_push(predicated ? LLK_SFPU_ENCC_ON() : LLK_SFPU_ENCC_OFF());
}

/* LReg `lreg` (0..7) = the 32-bit pattern `bits` in every lane: SFPLOADI of the high
 * half (low half kept), then of the low half (high half kept). Lane flags apply:
 * call while every lane is enabled. */
static inline void llk_sfpu_load_imm32(uint32_t lreg, uint32_t bits)
{
    tte_push(TTE_SFPLOADI(lreg, LLK_SFPLOADI_UPPER, bits >> 16));
    tte_push(TTE_SFPLOADI(lreg, LLK_SFPLOADI_LOWER, bits & 0xFFFFu));
}

/* LReg `lreg` = bits in every lane, for lreg 0..7 or 11..14. LReg 11..14 are only
 * written by SFPCONFIG, from lanes 0..7 of LReg 0 (SFPCONFIG.md), so that case
 * overwrites LReg 0. */
static inline void llk_sfpu_load_const(uint32_t lreg, uint32_t bits)
{
    if (lreg < 8u) {
        llk_sfpu_load_imm32(lreg, bits);
        return;
    }
    llk_sfpu_load_imm32(LLK_L0, bits);
    tte_push(TTE_SFPCONFIG(0, lreg, 0));
}

/* Record the per-group body (n words, n <= LLK_SFPU_BODY_MAX, compile-time or run-time
 * words) followed by INCRWC Dst += 2 into the replay buffer (not executed now). */
static inline void llk_sfpu_record(const uint32_t *body, uint32_t n)
{
    tte_push(TTE_REPLAY(LLK_SFPU_REPLAY_START, n + 1u, 0, 1));
    for (uint32_t i = 0; i < n; ++i)
        tte_push(body[i]);
    tte_push(TTE_INCRWC(0, LLK_SFPU_GROUP_STEP, 0, 0));
}

/* Program this thread's MOP for llk_sfpu_tile: one face, 8 x REPLAY(body of n words +
 * INCRWC) (tt-llk runs SFPU operations face by face too; a MOP expanding to a whole
 * tile, up to 1024 instructions, overflows ttsim's instruction FIFO). Also (re)makes
 * address-modifier slot LLK_AM_KEEP all-zero, as llk_math_init does, in case an
 * operation reprogrammed it for its own walk (llk_math_set_addr_mod), once this
 * thread's FPU / SFPU work so far is done. */
static inline void llk_sfpu_tile_init(uint32_t n)
{
    tte_push(TTE_STALLWAIT(LLK_STALL_CFG, LLK_WAIT_MATH | LLK_WAIT_SFPU));
    llk_math_set_addr_mod(LLK_AM_KEEP, 0, 0);
    uint32_t replay = TTE_REPLAY(LLK_SFPU_REPLAY_START, n + 1u, 0, 0);
    struct llk_mop_t1 m = {
        .outer = 1, .inner = LLK_SFPU_GROUPS / 4u,
        .start_op = TTE_NOP(), .end_op0 = TTE_NOP(), .end_op1 = TTE_NOP(),
        .loop_op = replay, .loop_op1 = TTE_NOP(),
        .loop0_last = replay, .loop1_last = replay,
    };
    llk_mop_program(&m);
}

/* Record the body and program the MOP: the usual set-up of one SFPU operation. */
static inline void llk_sfpu_op_init(const uint32_t *body, uint32_t n)
{
    llk_sfpu_record(body, n);
    llk_sfpu_tile_init(n);
}

/* The SFPU reads Dst rows the FPU (MOVA2D, ELW*) has just written: hold the SFPU until
 * this thread's Matrix Unit instructions are done (SFPLOAD.md "Instruction
 * scheduling"). */
static inline void llk_sfpu_wait_fpu(void)
{
    tte_push(TTE_STALLWAIT(LLK_STALL_SFPU, LLK_WAIT_MATH));
}

/* Run the recorded body over every group of the tile at the acquired half (plus the
 * body's own tile-slot offsets). */
static inline void llk_sfpu_tile(void)
{
    for (uint32_t f = 0; f < 4u; ++f)
        LLK_MOP_RUN();
    tte_push(LLK_SFPU_RWC_DST_RESET());
}

/* The per-tile loop of an SFPU kernel on tiles unpacked straight into a 32-bit Dst:
 * wait for the tile, point the SFPU at its half, run the recorded body over it (the
 * MOP set up by llk_sfpu_op_init), hand the half to pack; then report done. */
static inline void llk_kernel_sfpu_dst_tiles(void)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_wait_unpacked();
        llk_math_dst_acquire(i & 1u, 1);
        llk_sfpu_tile();
        llk_math_unpacked_done();
    }
    llk_done(LLK_MAILBOX_MATH);
}

#endif
