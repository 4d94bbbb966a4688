/* llk_reduce.h: sum and max reductions of a 32x32 tile along rows, along columns
 * or over the whole tile (unpack side and math side).
 *
 * Follows tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/GAPOOL.md,
 * GMPOOL.md, MVMUL.md, SrcASrcB.md (fidelity phases), MOVD2B.md, TRNSPSRCB.md,
 * MOVB2D.md, MOVD2A.md, ZEROACC.md, UNPACR_Regular.md (Haloize_mode), RWCs.md,
 * MOPExpander.md, REPLAY.md; BabyRISCV/MemoryOrdering.md for the scaler tile.
 *
 * Output convention (tt-metal's): a tile with the result where the reduced
 * dimension collapsed and zeros elsewhere:
 *   LLK_REDUCE_ROW     out[r][0] = s * reduce_c in[r][c]   (column 0)
 *   LLK_REDUCE_COL     out[0][c] = s * reduce_r in[r][c]   (row 0)
 *   LLK_REDUCE_SCALAR  out[0][0] = reduce over all 1024 datums
 * where s is the scaler (a BF16 value; 1.0 for a plain sum, 1/32 for a mean; max
 * wants 1.0: GMPOOL scales by the scaler's power of two only).
 *
 * The scaler tile. Both pooling instructions take a second operand from SrcB:
 * GAPOOL is Dst[4x16] += SrcB[4x16] @ SrcA[16x16], so a SrcB row 0 of s (rows 1..3
 * zero) turns a SrcA face into s * its column sums; GMPOOL reduces each column of
 * a SrcA face with max, after scaling row i by the exponent of SrcB row 0 column i,
 * so that row must be 1.0 everywhere. The unpack thread writes this tile into L1
 * itself (llk_reduce_fill_scaler: row 0 of every face = s, all else 0), unpacks it
 * once, and math keeps the bank for the whole kernel (the input alone flips per
 * tile). For row sums the scaler is a column instead (face 0 column 0 = s) and
 * goes to SrcA, see below.
 *
 * What each combination does per tile (Dst: 16-bit BF16 for max, exact; 32-bit FP32
 * for sums). F0..F3 are the input faces, SrcA row 16f = face f:
 *
 *  COL SUM   GAPOOL F0 -> Dst row 0, F1 -> 16, F2 -> 0, F3 -> 16 (accumulating), per
 *            fidelity phase. Input in SrcA, s in SrcB: phases 0 and 1 take every
 *            SrcA bit against SrcB's implicit 1 and top six mantissa bits, which
 *            hold all of s unless its last BF16 mantissa bit is set (then 4 phases).
 *            MOP: OuterCount = phases, LoopOp / LoopOp1 alternate DstRow 0 / 16.
 *  COL MAX   the same with GMPOOL, one pass (no fidelity). Dst rows 1..3 of the
 *            4-row block get zeros (GMPOOL.md); an undefined row reads as -inf.
 *  ROW SUM   MVMUL with the input in SrcB and the column scaler in SrcA: Dst[r][0]
 *            += sum_c in[r][c] * s, other columns += 0. Faces 0,1 -> Dst face 0,
 *            faces 2,3 -> Dst face 2: 8 MVMULs (SrcB += 8, DstRow 0 8 0 8 32 40 32
 *            40) recorded in the replay buffer, MOP OuterCount = phases, LoopOp =
 *            REPLAY. SrcB needs phases 0 and 2 (its two mantissa parts) against
 *            SrcA's top part; when s has no bits in SrcA's low three mantissa bits,
 *            phases 1 and 3 add zero, so the last MVMUL steps FidelityPhase by 2
 *            (phases 0, 2); otherwise all four run. (GAPOOL cannot do this: it reads
 *            only the top four rows of each aligned 8-row SrcB block.)
 *  ROW MAX   GMPOOL reduces columns only, so the input is unpacked transposed
 *            (Haloize_mode: SrcA face f = T(Ff)). GMPOOL T(F0), T(F1) -> Dst row 0
 *            (maxes of input rows 0..15, as a row), T(F2), T(F3) -> Dst row 32 (rows
 *            16..31). Then each of Dst faces 0 and 2 is transposed through SrcB:
 *            4 x MOVD2B (Dst face -> SrcB rows 16..31), TRNSPSRCB, 4 x MOVB2D (back):
 *            the row becomes column 0 and the zero rows (GMPOOL's, and undefined
 *            rows, which FPU instructions read as zero) become columns 1..15. The 18
 *            moves are recorded in the replay buffer and are the MOP's EndOp0.
 *  SCALAR MAX GMPOOL F0..F3 all -> Dst row 0 (per column j: max of columns j, j+16);
 *            that row -> SrcB 16..31 (MOVD2B) -> TRNSPSRCB -> column 0 -> Dst
 *            scratch rows 64..79 of the half (MOVB2D, not packed) -> SrcA rows 0..15
 *            (MOVD2A); ZEROACC Dst row 0 (undefined = -inf for GMPOOL) and one
 *            GMPOOL of SrcA rows 0..15 into Dst row 0: column 0 = the maximum,
 *            columns 1..15 = max of zeros = 0. 15 instructions in the replay buffer,
 *            the MOP's EndOp0.
 *
 * Moving BF16 through SrcB with a 16-bit Dst is exact (MOVD2B ShuffleBF16, MOVB2D
 * RemoveLowMantissa). With a 32-bit Dst it would not work: MOVB2D writes Dst16b
 * unless the SrcA format is TF32, and MOVD2B truncates FP32 to BF16, which is why
 * there is no scalar sum here (it needs such a move of FP32 partial sums).
 *
 * Address-modifier slots (programmed by llk_reduce_init, replacing llk_math_init's):
 *   0 keep; 1 SrcA += 16; 2 per op (ROW SUM: SrcB += 8; ROW MAX: SrcA += 16 and
 *   Dst += 32); 3 SrcA = SrcB = Dst = 0, FidelityPhase += 1 (2 for ROW SUM, see above).
 * After each tile a SETRWC resets all counters (FidelityPhase too) and gives the
 * input's Src bank back.
 */
#ifndef LLK_REDUCE_H
#define LLK_REDUCE_H

#include <stdint.h>

#include "llk_math.h"
#include "llk_params.h"
#include "llk_unpack.h"

enum llk_reduce_dim { LLK_REDUCE_ROW, LLK_REDUCE_COL, LLK_REDUCE_SCALAR };
enum llk_reduce_op { LLK_REDUCE_SUM, LLK_REDUCE_MAX };

/* GAPOOL's second operand: GAPOOL.md's syntax shows 0; tt-llk sets p_gpool::DIM_16X16
 * (1) on every GAPOOL / GMPOOL it emits (llk_math_reduce.h), ttsim requires it, and the
 * page's model does not read it. */
#define LLK_GPOOL_16X16 1u
#define LLK_RD_AM_KEEP 0u
#define LLK_RD_AM_A16 1u
#define LLK_RD_AM_OP 2u
#define LLK_RD_AM_LAST 3u

#define LLK_RD_REPLAY_MVMUL 16u  /* ROW SUM: 8 MVMULs in slots 16..23 */
#define LLK_RD_REPLAY_TAIL 0u    /* ROW / SCALAR MAX: the moves in slots 0.. */
#define LLK_RD_TAIL_LEN_ROW 18u
#define LLK_RD_TAIL_LEN_SCALAR 15u
#define LLK_RD_SCRATCH_ROW 64u   /* SCALAR MAX: Dst rows 64..79 of the half */

/* Which unpacker / Src gets the input tile (the scaler goes to the other one). */
static inline uint32_t llk_reduce_input_unpacker(enum llk_reduce_dim dim, enum llk_reduce_op op)
{
    return (dim == LLK_REDUCE_ROW && op == LLK_REDUCE_SUM) ? 1u : 0u;
}

/* Dst mode: 32-bit FP32 for sums, 16-bit BF16 for max. */
static inline int llk_reduce_dst32(enum llk_reduce_op op)
{
    return op == LLK_REDUCE_SUM;
}

/* Dst data format to give llk_pack_config. */
static inline uint32_t llk_reduce_dst_fmt(enum llk_reduce_op op)
{
    return llk_reduce_dst32(op) ? LLK_FMT_FLOAT32 : LLK_FMT_FLOAT16_B;
}

/* --- unpack thread --------------------------------------------------------------- */

/* RISC-V writes the Float16_b scaler tile at l1_addr (16-byte aligned, 2 KiB): row 0
 * of every face = s16 (column = 0), or face 0 column 0 = s16 (column = 1); all else
 * zero. Then it reads the last word back and consumes it, so every store has reached
 * L1 before a later UNPACR is pushed (MemoryOrdering.md: same-address store-load
 * pairs are processed in order, and a consumed load has returned). */
static inline void llk_reduce_fill_scaler(uint32_t l1_addr, uint32_t s16, int column)
{
    volatile uint32_t *p = (volatile uint32_t *)(uintptr_t)l1_addr;
    s16 &= 0xFFFFu;
    /* word w holds datums 2w (low half) and 2w + 1; a face row is 8 words */
    for (uint32_t w = 0; w < LLK_TILE_DATUMS / 2u; w += 8u) {
        uint32_t face = w >> 7, row = (w >> 3) & 15u;
        uint32_t v = column ? 0u : (row == 0 ? (s16 | (s16 << 16)) : 0u);
        p[w] = (column && face == 0) ? s16 : v;  /* column 0 (datum 16 * row) */
        for (uint32_t i = 1; i < 8u; ++i)
            p[w + i] = v;
    }
    uint32_t back = p[LLK_TILE_DATUMS / 2u - 1u];
    __asm__ volatile("addi x0, %0, 0" ::"r"(back));
}

/* Set up both unpackers for Float16_b tiles (the input transposed for ROW MAX),
 * the ALU formats (Dst mode per op), write the scaler tile to scaler_addr and unpack
 * it; math keeps it for the whole kernel. Call once, first. */
static inline void llk_reduce_unpack_init(enum llk_reduce_dim dim, enum llk_reduce_op op,
                                          uint32_t scaler_addr, uint32_t s16)
{
    uint32_t in_u = llk_reduce_input_unpacker(dim, op);
    llk_unpack_alu_config(LLK_FMT_FLOAT16_B, LLK_FMT_FLOAT16_B, llk_reduce_dst32(op), llk_reduce_dst_fmt(op));
    llk_unpack_config(0, LLK_FMT_FLOAT16_B, LLK_FMT_FLOAT16_B, 0);
    llk_unpack_config(1, LLK_FMT_FLOAT16_B, LLK_FMT_FLOAT16_B, 0);
    if (dim == LLK_REDUCE_ROW && op == LLK_REDUCE_MAX)
        llk_unpack_set_transpose(LLK_FMT_FLOAT16_B, 1);
    llk_reduce_fill_scaler(scaler_addr, s16, in_u == 1u);
    llk_unpack_tile(1u - in_u, scaler_addr);
}

/* One input tile into its Src bank, handed to math. */
static inline void llk_reduce_unpack_tile(enum llk_reduce_dim dim, enum llk_reduce_op op, uint32_t l1_addr)
{
    llk_unpack_tile(llk_reduce_input_unpacker(dim, op), l1_addr);
}

/* --- math thread ----------------------------------------------------------------- */

/* Fidelity phases a sum needs for scaler s16 (see the table above); 1 for max. */
static inline uint32_t llk_reduce_phases(enum llk_reduce_dim dim, enum llk_reduce_op op, uint32_t s16)
{
    if (op == LLK_REDUCE_MAX)
        return 1u;
    if (dim == LLK_REDUCE_ROW)  /* s in SrcA: are its low three BF16 mantissa bits zero? */
        return (s16 & 7u) == 0 ? 2u : 4u;
    return (s16 & 1u) == 0 ? 2u : 4u;  /* s in SrcB: is its last mantissa bit zero? */
}

/* Once, after llk_math_init: address modifiers, replay buffer and MOP for one
 * (dim, op). SCALAR supports only MAX. */
static inline void llk_reduce_init(enum llk_reduce_dim dim, enum llk_reduce_op op, uint32_t s16)
{
    uint32_t phases = llk_reduce_phases(dim, op, s16);
    uint32_t fid_step = (dim == LLK_REDUCE_ROW && op == LLK_REDUCE_SUM && phases == 2u) ? 2u : 1u;

    llk_math_set_addr_mod(LLK_RD_AM_KEEP, 0, 0);
    llk_math_set_addr_mod(LLK_RD_AM_A16, LLK_AM_SRCA_INCR(16), 0);
    if (dim == LLK_REDUCE_ROW && op == LLK_REDUCE_SUM)
        llk_math_set_addr_mod(LLK_RD_AM_OP, LLK_AM_SRCB_INCR(8), 0);
    else
        llk_math_set_addr_mod(LLK_RD_AM_OP, LLK_AM_SRCA_INCR(16), LLK_AM_DST_INCR(32));
    llk_math_set_addr_mod(LLK_RD_AM_LAST, LLK_AM_SRCA_CLEAR | LLK_AM_SRCB_CLEAR,
                          LLK_AM_DST_CLEAR | LLK_AM_FIDELITY_INCR(fid_step));

    struct llk_mop_t1 m = {
        .outer = phases, .inner = 1,
        .start_op = TTE_NOP(), .end_op0 = TTE_NOP(), .end_op1 = TTE_NOP(), .loop_op1 = TTE_NOP(),
    };
    if (dim == LLK_REDUCE_COL) {
        /* faces 0,1,2,3 (SrcA += 16) -> DstRow 0, 16, 0, 16 */
        if (op == LLK_REDUCE_SUM) {
            m.loop_op = TTE_GAPOOL(0, LLK_GPOOL_16X16, LLK_RD_AM_A16, 0, 0);
            m.loop_op1 = TTE_GAPOOL(0, LLK_GPOOL_16X16, LLK_RD_AM_A16, 0, 16);
            m.loop0_last = m.loop1_last = TTE_GAPOOL(0, LLK_GPOOL_16X16, LLK_RD_AM_LAST, 0, 16);
        } else {
            m.loop_op = TTE_GMPOOL(0, 1, LLK_RD_AM_A16, 0, 0);
            m.loop_op1 = TTE_GMPOOL(0, 1, LLK_RD_AM_A16, 0, 16);
            m.loop0_last = m.loop1_last = TTE_GMPOOL(0, 1, LLK_RD_AM_LAST, 0, 16);
        }
        m.inner = 2;  /* doubled by the LoopOp / LoopOp1 alternation */
    } else if (dim == LLK_REDUCE_ROW && op == LLK_REDUCE_SUM) {
        tte_push(TTE_REPLAY(LLK_RD_REPLAY_MVMUL, 8, 0, 1));
        for (uint32_t q = 0; q < 8; ++q)  /* SrcB rows 8q: face q/2, half q&1 */
            tte_push(TTE_MVMUL(0, 0, q == 7 ? LLK_RD_AM_LAST : LLK_RD_AM_OP,
                               32u * (q >> 2) + 8u * (q & 1u)));
        m.loop_op = m.loop0_last = m.loop1_last = TTE_REPLAY(LLK_RD_REPLAY_MVMUL, 8, 0, 0);
    } else if (dim == LLK_REDUCE_ROW) {
        /* T(F0), T(F1) -> Dst row 0; T(F2), T(F3) -> Dst row 32 (RWC Dst += 32) */
        m.loop_op = TTE_GMPOOL(0, 1, LLK_RD_AM_A16, 0, 0);
        m.loop_op1 = TTE_GMPOOL(0, 1, LLK_RD_AM_OP, 0, 0);
        m.loop0_last = m.loop1_last = TTE_GMPOOL(0, 1, LLK_RD_AM_LAST, 0, 0);
        m.inner = 2;
        tte_push(TTE_REPLAY(LLK_RD_REPLAY_TAIL, LLK_RD_TAIL_LEN_ROW, 0, 1));
        for (uint32_t f = 0; f < 64u; f += 32u) {  /* Dst faces 0 and 2 */
            for (uint32_t i = 0; i < 16u; i += 4u)
                tte_push(TTE_MOVD2B(0, 16u + i, LLK_RD_AM_KEEP, 2u /* Move4Rows */, f + i));
            tte_push(TTE_TRNSPSRCB());
            for (uint32_t i = 0; i < 16u; i += 4u)
                tte_push(TTE_MOVB2D(0, 16u + i, LLK_RD_AM_KEEP, 4u /* Move4Rows */, f + i));
        }
        m.end_op0 = TTE_REPLAY(LLK_RD_REPLAY_TAIL, LLK_RD_TAIL_LEN_ROW, 0, 0);
    } else {  /* SCALAR, MAX */
        m.loop_op = TTE_GMPOOL(0, 1, LLK_RD_AM_A16, 0, 0);
        m.loop0_last = m.loop1_last = TTE_GMPOOL(0, 1, LLK_RD_AM_LAST, 0, 0);
        m.inner = 4;
        tte_push(TTE_REPLAY(LLK_RD_REPLAY_TAIL, LLK_RD_TAIL_LEN_SCALAR, 0, 1));
        for (uint32_t i = 0; i < 16u; i += 4u)
            tte_push(TTE_MOVD2B(0, 16u + i, LLK_RD_AM_KEEP, 2u, i));
        tte_push(TTE_TRNSPSRCB());
        for (uint32_t i = 0; i < 16u; i += 4u)
            tte_push(TTE_MOVB2D(0, 16u + i, LLK_RD_AM_KEEP, 4u, LLK_RD_SCRATCH_ROW + i));
        for (uint32_t i = 0; i < 16u; i += 4u)
            tte_push(TTE_MOVD2A(0, i, LLK_RD_AM_KEEP, 2u, LLK_RD_SCRATCH_ROW + i));
        tte_push(LLK_ZEROACC_ROW(0, LLK_RD_AM_KEEP));
        tte_push(TTE_GMPOOL(0, 1, LLK_RD_AM_LAST, 0, 0));
        m.end_op0 = TTE_REPLAY(LLK_RD_REPLAY_TAIL, LLK_RD_TAIL_LEN_SCALAR, 0, 0);
    }
    llk_mop_program(&m);
}

/* One tile into the acquired Dst half `half`: mark the half undefined, run the MOP,
 * reset the RWCs and give the input's Src bank back. */
static inline void llk_reduce_tile(enum llk_reduce_dim dim, enum llk_reduce_op op, uint32_t half)
{
    llk_math_dst_zero_half(half, llk_reduce_dst32(op));
    LLK_MOP_RUN();
    tte_push(TTE_SETRWC(llk_reduce_input_unpacker(dim, op) ? LLK_FLIP_SRCB : LLK_FLIP_SRCA, 0, 0, 0, 0, 0xF));
}

/* After the last tile: give the scaler's Src bank back to the unpackers. */
static inline void llk_reduce_done(enum llk_reduce_dim dim, enum llk_reduce_op op)
{
    tte_push(TTE_SETRWC(llk_reduce_input_unpacker(dim, op) ? LLK_FLIP_SRCA : LLK_FLIP_SRCB, 0, 0, 0, 0, 0));
}

/* The math thread of a reduction: per tile a free Dst half (halves alternate), the
 * reduction's MOP, the half posted to pack; the scaler's bank goes back at the end. */
static inline void llk_kernel_reduce_math(enum llk_reduce_dim dim, enum llk_reduce_op op)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;
    uint32_t s16 = LLK_PARAMS_PTR->arg >> 16;
    int dst32 = llk_reduce_dst32(op);

    llk_math_init();
    llk_reduce_init(dim, op, s16);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_dst_acquire(i & 1u, dst32);
        llk_reduce_tile(dim, op, i & 1u);
        llk_math_dst_release();
    }
    llk_reduce_done(dim, op);
    llk_done(LLK_MAILBOX_MATH);
}

#endif
