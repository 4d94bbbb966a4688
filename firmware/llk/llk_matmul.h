/* llk_matmul.h: tile matrix multiply on the Matrix Unit, C (+)= A @ B for 32x32
 * tiles (math thread), and the matching unpack order.
 *
 * Follows tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/MVMUL.md,
 * SrcASrcB.md (fidelity phases), RWCs.md, Dst.md ("Instruction scheduling"),
 * MOPExpander.md, REPLAY.md, SETRWC.md, ZEROACC.md, and seed 000 (MOP whose loop
 * body is a REPLAY).
 *
 * MVMUL computes Dst[8x16] += SrcB[8x16] @ SrcA[16x16]. So A (in0) is unpacked into
 * SrcB (unpacker 1) and B (in1) into SrcA (unpacker 0). In Src and Dst a tile is 64
 * rows of 16, face f = 2 * (row half) + (column half) in rows 16f..16f+15. With
 * i, j, k the face row / column indices and h the 8-row half of a face:
 *
 *   C face (i,j) rows 8h..8h+7 += A face (i,k) rows 8h..8h+7 @ B face (k,j)
 *   SrcB row = 32i + 16k + 8h,   SrcA row = 32k + 16j,   Dst row = 32i + 16j + 8h
 *
 * 16 MVMULs per fidelity phase. They are recorded once into the replay buffer (slots
 * 16..31, load-only) in the order (i, k, h, j), j fastest; Dst rows come from the
 * instructions' DstRow field (RWC.Dst stays 0), SrcA / SrcB rows from the RWCs,
 * stepped by the address modifier of each MVMUL:
 *
 *   LLK_MM_AM_J      SrcA += 16                 next j (same SrcB rows)
 *   LLK_MM_AM_H      SrcA += 48 (-16), SrcB += 8 back to j = 0, next h
 *   LLK_MM_AM_K      SrcA += 16, SrcB += 8      next k (k = 1 -> 0 of the next i:
 *                                               SrcA 48 + 16 = 64 wraps to 0, RWCs.md
 *                                               counters are 6-bit)
 *   LLK_MM_AM_PHASE  SrcA = SrcB = Dst = 0, FidelityPhase += 1   (the 16th MVMUL)
 *
 *   sequence J H J K J H J K J H J K J H J PHASE
 *
 * The MOP (template 1) is OuterCount = phases, InnerCount = 1, every loop
 * instruction REPLAY(16, 16): the fidelity-phase loop is the outer loop and the 8
 * Dst blocks the inner one (Dst.md: accumulating instructions should cycle through
 * several 8-row blocks, with the fidelity loop outside, to avoid read-after-write
 * stalls; here a block is revisited after four MVMULs). After the MOP one SETRWC
 * resets the counters (FidelityPhase back to 0 for any phase count) and hands the
 * consumed Src banks back to the unpackers.
 *
 * Fidelity (SrcASrcB.md, BF16): phase 0 multiplies SrcA's implicit 1 and top four
 * mantissa bits by SrcB's implicit 1 and top six (LoFi); phases 0..3 together use
 * every bit (HiFi4: each phase's partial product is exact, the four sum to A*B).
 *
 * Dst: MVMUL accumulates, so the caller marks the half undefined first (ZEROACC:
 * MVMUL reads undefined rows as zero) and may accumulate several products into a
 * tile (block matmul over K). 16-bit Dst rounds every MVMUL's result to BF16; 32-bit
 * Dst (ALU_ACC_CTRL_Fp32_enabled, llk_unpack_alu_config(.., .., 1)) keeps FP32.
 */
#ifndef LLK_MATMUL_H
#define LLK_MATMUL_H

#include <stdint.h>

#include "llk_math.h"
#include "llk_params.h"
#include "llk_unpack.h"

#define LLK_MM_REPLAY_START 16u
#define LLK_MM_REPLAY_LEN 16u

#define LLK_MM_AM_J 0u
#define LLK_MM_AM_H 1u
#define LLK_MM_AM_K 2u
#define LLK_MM_AM_PHASE 3u

/* Rows of one tile in Dst (16- or 32-bit rows alike): tile n of a half starts at
 * llk_dst_half_row(half, dst32) + LLK_TILE_ROWS * n. */
#define LLK_MM_TILES_PER_HALF(dst32) ((dst32) ? LLK_DST_HALF_ROWS_32 / LLK_TILE_ROWS : LLK_DST_HALF_ROWS_16 / LLK_TILE_ROWS)

/* Math thread, once (after llk_math_init): program the address modifiers, record
 * the 16 MVMULs into the replay buffer and program the MOP for `phases` fidelity
 * phases (1 = LoFi, 2 = HiFi2, 4 = HiFi4). */
static inline void llk_matmul_init_with(uint32_t phases, int dotpv);

static inline void llk_matmul_init(uint32_t phases)
{
    llk_matmul_init_with(phases, 0);
}

/* The same with DOTPV instead of MVMUL (dotpv != 0): DOTPV.md, "identical to MVMUL,
 * except that it lacks the BroadcastSrcBRow option", which these MVMULs do not use. */
static inline void llk_matmul_init_with(uint32_t phases, int dotpv)
{
    llk_math_set_addr_mod(LLK_MM_AM_J, LLK_AM_SRCA_INCR(16), 0);
    llk_math_set_addr_mod(LLK_MM_AM_H, LLK_AM_SRCA_INCR(48) | LLK_AM_SRCB_INCR(8), 0);
    llk_math_set_addr_mod(LLK_MM_AM_K, LLK_AM_SRCA_INCR(16) | LLK_AM_SRCB_INCR(8), 0);
    llk_math_set_addr_mod(LLK_MM_AM_PHASE, LLK_AM_SRCA_CLEAR | LLK_AM_SRCB_CLEAR,
                          LLK_AM_DST_CLEAR | LLK_AM_FIDELITY_INCR(1));

    /* Record (load only: nothing executes now). */
    tte_push(TTE_REPLAY(LLK_MM_REPLAY_START, LLK_MM_REPLAY_LEN, 0, 1));
    uint32_t q = 0;
    for (uint32_t i = 0; i < 2; ++i)
        for (uint32_t k = 0; k < 2; ++k)
            for (uint32_t h = 0; h < 2; ++h)
                for (uint32_t j = 0; j < 2; ++j, ++q) {
                    uint32_t am = q == 15 ? LLK_MM_AM_PHASE : j == 0 ? LLK_MM_AM_J : h == 0 ? LLK_MM_AM_H
                                                                                              : LLK_MM_AM_K;
                    uint32_t row = 32u * i + 16u * j + 8u * h;
                    tte_push(dotpv ? TTE_DOTPV(0, /* syntax: true */ 1, 0, am, row) : TTE_MVMUL(0, 0, am, row));
                }

    uint32_t body = TTE_REPLAY(LLK_MM_REPLAY_START, LLK_MM_REPLAY_LEN, 0, 0);
    struct llk_mop_t1 m = {
        .outer = phases, .inner = 1,
        .start_op = TTE_NOP(), .end_op0 = TTE_NOP(), .end_op1 = TTE_NOP(),
        .loop_op = body, .loop_op1 = TTE_NOP(),
        .loop0_last = body, .loop1_last = body,
    };
    llk_mop_program(&m);
}

/* Dst tile at the current DEST_TARGET_REG_CFG_MATH_Offset += SrcB @ SrcA (all the
 * programmed phases, one MOP), then reset the RWCs (FidelityPhase too) and give back
 * the Src banks named in `flip` (LLK_FLIP_SRCA | LLK_FLIP_SRCB, or 0 to keep an
 * operand for the next product). */
static inline void llk_matmul_tile(uint32_t flip)
{
    LLK_MOP_RUN();
    tte_push(TTE_SETRWC(flip, 0, 0, 0, 0, 0xF));
}

/* Unpack thread: A tile (in0) -> SrcB, B tile (in1) -> SrcA, each bank handed to
 * math. After llk_unpack_alu_config and llk_unpack_config(0/1, ..., 0). */
static inline void llk_matmul_unpack_a(uint32_t l1_addr) { llk_unpack_tile(1, l1_addr); }
static inline void llk_matmul_unpack_b(uint32_t l1_addr) { llk_unpack_tile(0, l1_addr); }

/* The unpack thread of a tile-by-tile product: tile i of params.in0 (A) into SrcB and
 * tile i of params.in1 (B) into SrcA, for fmt operands and a 16- or 32-bit Dst. */
static inline void llk_kernel_matmul_unpack(uint32_t fmt, int dst32)
{
    uint32_t in0 = LLK_PARAMS_PTR->in0;
    uint32_t in1 = LLK_PARAMS_PTR->in1;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_unpack_alu_config(fmt, fmt, dst32, dst32 ? LLK_FMT_FLOAT32 : fmt);
    llk_unpack_config(0, fmt, fmt, 0);
    llk_unpack_config(1, fmt, fmt, 0);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_matmul_unpack_a(in0 + i * llk_tile_bytes(fmt));
        llk_matmul_unpack_b(in1 + i * llk_tile_bytes(fmt));
    }
    llk_done(LLK_MAILBOX_UNPACK);
}

/* The math thread of a tile-by-tile product: per tile pair, a free half of the 16- or
 * 32-bit Dst, marked undefined, Dst += SrcB @ SrcA over `phases` fidelity phases (with
 * DOTPV instead of MVMUL when dotpv != 0), both Src banks back, the half posted. */
static inline void llk_kernel_matmul_math(uint32_t phases, int dst32, int dotpv)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_math_init();
    llk_matmul_init_with(phases, dotpv);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_dst_acquire(i & 1u, dst32);
        llk_math_dst_zero_half(i & 1u, dst32);
        llk_matmul_tile(LLK_FLIP_SRCA | LLK_FLIP_SRCB);
        llk_math_dst_release();
    }
    llk_done(LLK_MAILBOX_MATH);
}

#endif
