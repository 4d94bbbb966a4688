/* llk_kernels.h: the standard unpack and pack thread programs that many kernels share
 * (each one is a whole TRISC main loop over params.tiles tiles, ending with the
 * thread's completion mailbox). A kernel whose unpack or pack side is one of these
 * calls it from main; the math side is the kernel's own. */
#ifndef LLK_KERNELS_H
#define LLK_KERNELS_H

#include "llk_math.h"
#include "llk_pack.h"
#include "llk_params.h"
#include "llk_unpack.h"

/* Unpack (T0): tile i of params.in0 into SrcA, bank handed to math by FlipSrc.
 * BF16-style operands, 16-bit Dst. */
static inline void llk_kernel_unpack_a(uint32_t fmt)
{
    uint32_t in = LLK_PARAMS_PTR->in0;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_unpack_alu_config(fmt, fmt, 0, LLK_FMT_FLOAT16_B);  /* packed through BF16 */
    llk_unpack_config(0, fmt, fmt, 0);
    for (uint32_t i = 0; i < tiles; ++i)
        llk_unpack_tile(0, in + i * llk_tile_bytes(fmt));
    llk_done(LLK_MAILBOX_UNPACK);
}

/* Unpack (T0): tile i of params.in0 into SrcA and tile i of params.in1 into SrcB,
 * for an ALU reading both operands in fmt into a 32-bit (FP32) Dst. */
static inline void llk_kernel_unpack_ab(uint32_t fmt)
{
    uint32_t in0 = LLK_PARAMS_PTR->in0;
    uint32_t in1 = LLK_PARAMS_PTR->in1;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_unpack_alu_config(fmt, fmt, 1, LLK_FMT_FLOAT16_B);  /* packed to BF16 */
    llk_unpack_config(0, fmt, fmt, 0);
    llk_unpack_config(1, fmt, fmt, 0);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_unpack_tile(0, in0 + i * llk_tile_bytes(fmt));
        llk_unpack_tile(1, in1 + i * llk_tile_bytes(fmt));
    }
    llk_done(LLK_MAILBOX_UNPACK);
}

/* Unpack (T0): tile i of params.in0 straight into the free half of a 32-bit Dst
 * (semaphore 2 hands it to math). */
static inline void llk_kernel_unpack_to_dst(uint32_t fmt)
{
    uint32_t in = LLK_PARAMS_PTR->in0;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_unpack_alu_config(fmt, fmt, 1, fmt);  /* packed as it came */
    llk_unpack_config(0, fmt, fmt, 1);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_unpack_dst_acquire();
        llk_unpack_tile_to_dst(in + i * llk_tile_bytes(fmt), llk_dst_half_row(i & 1u, 1), fmt);
        llk_unpack_dst_release();
    }
    llk_done(LLK_MAILBOX_UNPACK);
}

/* A kernel's own per-tile instructions, pushed after the Dst half is acquired and
 * before the tile's operation (tile index i); NULL for none. */
typedef void (*llk_tile_hook)(uint32_t i);

/* Math (T1): per tile, a free half of the 16-bit Dst, SrcA copied into it (MOVA2D),
 * SrcA back to the unpacker, the half posted to pack. */
static inline void llk_kernel_copy_math(llk_tile_hook before)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_math_init();
    llk_math_copy_init();
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_dst_acquire(i & 1u, 0);
        if (before)
            before(i);
        llk_math_copy_tile();
        llk_math_dst_release();
    }
    llk_done(LLK_MAILBOX_MATH);
}

/* Math (T1): per tile, a free half of the 32-bit Dst = SrcA op SrcB, both Src banks
 * back, the half posted to pack. */
static inline void llk_kernel_eltwise_math(enum llk_eltwise_op op, llk_tile_hook before)
{
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_math_init();
    llk_math_eltwise_init(op);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_math_dst_acquire(i & 1u, 1);
        if (before)
            before(i);
        llk_math_eltwise_tile(op, i & 1u, 1);
        llk_math_dst_release();
    }
    llk_done(LLK_MAILBOX_MATH);
}

/* Pack (T2): per tile, wait for math's half of Dst (halves alternate; dst_fmt in a
 * 16- or 32-bit Dst), pack it to params.out in out_fmt, free the half. */
static inline void llk_kernel_pack(uint32_t dst_fmt, uint32_t out_fmt, int dst32)
{
    uint32_t out = LLK_PARAMS_PTR->out;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_pack_config(dst_fmt, out_fmt);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_pack_dst_wait();
        llk_pack_tile(llk_dst_half_row(i & 1u, dst32), out + i * llk_tile_bytes(out_fmt));
        llk_pack_dst_release();
    }
    llk_done(LLK_MAILBOX_PACK);
}

#endif
