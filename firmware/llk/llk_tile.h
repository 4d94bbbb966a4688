/* llk_tile.h: the tile and Dst geometry the kernels share.
 *
 * A tile is 32x32 datums stored as four 16x16 faces, each row-major (the layout of
 * ttemu's manifests, ttemu/tiles.py). Inside the coprocessor a tile is 1024
 * consecutive datums: 64 rows of 16 (face f in rows 16f..16f+15), in SrcA / SrcB
 * (64 rows, SrcASrcB.md) and in Dst.
 *
 * Dst (Dst.md) is 1024 rows of 16-bit datums or 512 rows of 32-bit datums. The
 * kernels split it into two halves, as ZEROACC.md's "half of Dst" does: rows 0..511 /
 * 512..1023 in 16-bit mode, 32-bit rows 0..255 / 256..511 in 32-bit mode. Math fills
 * one half while pack drains the other (LLK_SEM_MATH_PACK, llk_sem.h).
 *
 * L1 tile sizes: 2 bytes per datum for Float16_b, 4 for Float32; Bfp8_b has one
 * exponent byte per 16 datums (64 bytes, the exponent section) before its 1024
 * one-byte sign-magnitude datums.
 */
#ifndef LLK_TILE_H
#define LLK_TILE_H

#include <stdint.h>

#include "llk_cfg.h"

#define LLK_TILE_DATUMS 1024u
#define LLK_FACE_DATUMS 256u         /* a 16x16 face */
#define LLK_FACE_DIM 16u
#define LLK_TILE_ROWS 64u           /* rows of 16 datums in Src / Dst */
#define LLK_TILE_BFP_EXP_BYTES 64u  /* exponent section of a BFP tile */

#define LLK_DST_HALF_ROWS_16 512u
#define LLK_DST_HALF_ROWS_32 256u

/* Bytes of one tile in L1 in format `fmt` (LLK_FMT_*). */
static inline uint32_t llk_tile_bytes(uint32_t fmt)
{
    switch (fmt) {
    case LLK_FMT_FLOAT32:
    case LLK_FMT_TF32:
    case LLK_FMT_INT32:
        return 4u * LLK_TILE_DATUMS;
    case LLK_FMT_BFP8:
    case LLK_FMT_BFP8_B:
        return LLK_TILE_BFP_EXP_BYTES + LLK_TILE_DATUMS;
    default:
        return 2u * LLK_TILE_DATUMS;
    }
}

static inline int llk_fmt_is_bfp(uint32_t fmt)
{
    return fmt == LLK_FMT_BFP8 || fmt == LLK_FMT_BFP8_B;
}

/* The packer's In_data_format (= ALU_FORMAT_SPEC_REG2_Dstacc, the intermediate format)
 * for L1 format out_fmt: Float32 keeps FP32, everything else goes through BF16. */
static inline uint32_t llk_pack_src_fmt(uint32_t out_fmt)
{
    return out_fmt == LLK_FMT_FLOAT32 ? LLK_FMT_FLOAT32 : LLK_FMT_FLOAT16_B;
}

/* First Dst row of half `half` (0 or 1); 32-bit rows when dst32. */
static inline uint32_t llk_dst_half_row(uint32_t half, int dst32)
{
    return (half & 1u) * (dst32 ? LLK_DST_HALF_ROWS_32 : LLK_DST_HALF_ROWS_16);
}

#endif
