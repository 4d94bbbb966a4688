/* llk_transpose.h: 32x32 tile transpose, unpack side and math side.
 *
 * Follows tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/
 * UNPACR_Regular.md (Haloize_mode), MOVA2D.md, REPLAY.md, SETRWC.md.
 *
 * With faces F0 F1 / F2 F3 (F = 2 * row half + column half), the transpose of a tile
 * is T(F0) T(F2) / T(F1) T(F3): every face transposed, and the two off-diagonal faces
 * swapped. The unpacker does the first part (llk_unpack_set_transpose: SrcA face f =
 * T(Ff) in rows 16f..16f+15); the move from SrcA to Dst does the second: eight
 * MOVA2D of 8 rows, SrcA rows 8q.. to Dst rows perm(8q).., with the face swap in the
 * instructions' SrcRow / DstRow fields (RWCs stay 0, address modifier 0 = keep, as
 * llk_math_init programs it). The eight MOVA2Ds are recorded once into the replay
 * buffer and replayed per tile. Datums are moved unchanged (BF16 -> Dst16b,
 * MOVA2D.md RemoveLowMantissa drops only the three always-zero SrcA bits), so the
 * transpose is exact.
 *
 * (The other route, TRNSPSRCB, transposes only SrcB rows 16..31 and would need
 * every face moved through there and back: 4 x (MOVD2B / TRNSPSRCB / MOVB2D).)
 */
#ifndef LLK_TRANSPOSE_H
#define LLK_TRANSPOSE_H

#include <stdint.h>

#include "llk_math.h"
#include "llk_unpack.h"

#define LLK_TRANSPOSE_REPLAY_START 16u
#define LLK_TRANSPOSE_REPLAY_LEN 8u

/* Unpack thread: configure unpacker 0 for transposed whole tiles into SrcA. */
static inline void llk_transpose_unpack_config(uint32_t in_fmt, uint32_t out_fmt)
{
    llk_unpack_config(0, in_fmt, out_fmt, 0);
    llk_unpack_set_transpose(out_fmt, 1);
}

/* Math thread, once after llk_math_init: record the eight MOVA2Ds. */
static inline void llk_transpose_init(void)
{
    tte_push(TTE_REPLAY(LLK_TRANSPOSE_REPLAY_START, LLK_TRANSPOSE_REPLAY_LEN, 0, 1));
    for (uint32_t q = 0; q < 8; ++q) {
        uint32_t face = q >> 1;
        uint32_t to = face == 1 ? 2u : face == 2 ? 1u : face;  /* swap faces 1 and 2 */
        tte_push(TTE_MOVA2D(0, 8u * q, LLK_AM_KEEP, LLK_MOVA2D_8ROWS, 16u * to + 8u * (q & 1u)));
    }
}

/* The transposed tile in SrcA -> the acquired Dst half; SrcA back to the unpacker. */
static inline void llk_transpose_tile(void)
{
    TTE_INSN_REPLAY(LLK_TRANSPOSE_REPLAY_START, LLK_TRANSPOSE_REPLAY_LEN, 0, 0);
    TTE_INSN_SETRWC(LLK_FLIP_SRCA, 0, 0, 0, 0, 0);
}

#endif
