/* llk_unpack.h: the unpack thread (TRISC0 -> Tensix T0): whole tiles from L1 into
 * SrcA (unpacker 0), SrcB (unpacker 1) or Dst (unpacker 0).
 *
 * Follows tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/
 * UNPACR_Regular.md (functional model and TileDescriptor layout), ADCs.md,
 * SrcASrcB.md, Dst.md, and docs/unpack-pack-config.md for the fields ttemu reads.
 *
 * One UNPACR moves one whole tile (1024 datums), with OvrdThreadId set (the
 * per-context fields of context 0, as tt-llk's UNPACRs) and Last:
 *  - TileDescriptor: YDim = 1, ZDim = 4 faces, IsUncompressed = 1; XDim is
 *    Tile_x_dim_cntx0 = 256 for unpacker 0 (tt-llk leaves the descriptor's XDim 0)
 *    and the descriptor's 256 for unpacker 1. The first datum is ADC Channel[0].X = 0
 *    and the count Channel[1].X + 1 - 0 = 1024 (SETADCXX): the tile's four faces,
 *    contiguous.
 *  - Input address: (Base_address + Offset_address + 1 + DigestSize) * 16 bytes, i.e.
 *    the datums follow a 16-byte tile header. The kernels' tiles have no header, so
 *    Base_address = l1_addr / 16 - 1 (l1_addr must be 16-byte aligned; Offset = 0).
 *    For BFP inputs the exponent section comes first and the datums after it.
 *  - Output address: the ADC channel-1 terms (0 here) plus, for unpacker 0,
 *    THCON_SEC0_REG5_Dest_cntx0_address (UNP0_ADD_DEST_ADDR_CNTR set), in datums;
 *    SrcA and Dst rows are that datum index / 16 minus 4 (Dest_cntx0_address = 64 +
 *    16 * the Dst row), SrcB rows the index / 16. To reach all 64 SrcA rows with one
 *    instruction, ThreadConfig SRCA_SET_SetOvrdWithAddr is set (rows up to 63 are
 *    then taken from the address alone). It must be clear when unpacking to Dst,
 *    where it would wrap rows to 0..15 (tt-llk clears it there too).
 *  - FlipSrc hands the written SrcA / SrcB bank to the Matrix Unit (its instructions
 *    wait for it) and moves the unpacker to the other bank; the unpacker waits by
 *    itself until the Matrix Unit gives a bank back. That is the unpack -> math
 *    handshake for Src operands. Unpacking to Dst uses LLK_SEM_UNPACK_TO_DEST instead.
 *  - Format conversions: Float32 -> Dst keeps all 32 bits (WriteDstFP32); Float16_b ->
 *    SrcA/B or Dst, and Bfp8_b -> BF16 (BFP8ToBF16, lossless) need OutDataFormat =
 *    InDataFormat.
 *
 * Configuration is written by RISC-V stores at set-up (the unpack thread owns the
 * unpacker words and ALU format word 1, see llk_cfg.h); the per-tile input address
 * and Dst row are Tensix-side writes, ordered after the previous UNPACR.
 */
#ifndef LLK_UNPACK_H
#define LLK_UNPACK_H

#include <stdint.h>

#include "llk_cfg.h"
#include "llk_sem.h"
#include "llk_tile.h"

/* Config word indices, per unpacker u (THCON_SEC<u>_..., UNP<u>_...). */
#define LLK_UNP_DESCRIPTOR(u) ((u) ? TTE_CFG_THCON_SEC1_REG0_TileDescriptor_IDX : TTE_CFG_THCON_SEC0_REG0_TileDescriptor_IDX)
#define LLK_UNP_REG2(u) ((u) ? TTE_CFG_THCON_SEC1_REG2_Out_data_format_IDX : TTE_CFG_THCON_SEC0_REG2_Out_data_format_IDX)
#define LLK_UNP_REG2B(u) ((u) ? TTE_CFG_THCON_SEC1_REG2_Force_shared_exp_IDX : TTE_CFG_THCON_SEC0_REG2_Force_shared_exp_IDX)
#define LLK_UNP_BASE(u) ((u) ? TTE_CFG_THCON_SEC1_REG3_Base_address_IDX : TTE_CFG_THCON_SEC0_REG3_Base_address_IDX)
#define LLK_UNP_ZSTRIDE(u) ((u) ? TTE_CFG_UNP1_ADDR_CTRL_ZW_REG_1_Zstride_IDX : TTE_CFG_UNP0_ADDR_CTRL_ZW_REG_1_Zstride_IDX)

/* The UNPACR of every unpack here: context 0 with the per-context fields (OvrdThreadId,
 * i.e. MultiContextMode, as tt-llk's unpacks), Last = 1, no ADC increments. */
#define LLK_UNPACR(u, addr_mode, flip) TTE_UNPACR((u), (addr_mode), 0, 0, 0, /* OvrdThreadId */ 1, (flip), 0, 0, 0, 0, 0, /* Last */ 1)

/* SrcA's first row is datum 64 of the unpacker's output address (the 4-row offset):
 * THCON_SEC0_REG5_Dest_cntx0_address, in datums (tt-llk: 4 * 16). */
#define LLK_UNP_SRCA_OFFSET 64u

/* Bytes per unit of the unpacker output address for output format `fmt`. */
static inline uint32_t llk_unpack_out_unit(uint32_t fmt)
{
    switch (fmt) {
    case LLK_FMT_FLOAT32:
    case LLK_FMT_TF32:
    case LLK_FMT_INT32:
        return 4u;
    case LLK_FMT_FLOAT16:
    case LLK_FMT_FLOAT16_B:
    case LLK_FMT_UINT16:
        return 2u;
    default:
        return 1u;
    }
}

/* ALU formats (Config word 1, owned by the unpack thread; tt-llk writes its fields
 * from three threads with RMWCIB: SrcA / SrcB / Fp32_enabled / SFPU_Fp32_enabled in
 * _llk_math_hw_configure_, Dstacc in configure_pack): what SrcA / SrcB hold, whether
 * Dst is 32-bit (ALU_ACC_CTRL_Fp32_enabled: FPU results as FP32, and the SFPU reads
 * Dst as FP32), and ALU_FORMAT_SPEC_REG2_Dstacc = the packer's In_data_format
 * llk_pack_src_fmt(out_fmt) for the L1 format `out_fmt` the pack thread writes (the
 * packer's intermediate format, Packers/FormatConversion.md; no Dstacc_override).
 * Stochastic rounding, INT8 math and unsigned INT8 stay off. */
static inline void llk_unpack_alu_config(uint32_t srca_fmt, uint32_t srcb_fmt, int dst32, uint32_t out_fmt)
{
    llk_cfg_write(TTE_CFG_ALU_FORMAT_SPEC_REG0_SrcA_IDX,
                  LLK_CFG_FIELD(ALU_FORMAT_SPEC_REG0_SrcA, srca_fmt) |
                  LLK_CFG_FIELD(ALU_FORMAT_SPEC_REG1_SrcB, srcb_fmt) |
                  LLK_CFG_FIELD(ALU_FORMAT_SPEC_REG2_Dstacc, llk_pack_src_fmt(out_fmt)) |
                  LLK_CFG_FIELD(ALU_ACC_CTRL_Fp32_enabled, dst32 ? 1u : 0u) |
                  LLK_CFG_FIELD(ALU_ACC_CTRL_SFPU_Fp32_enabled, dst32 ? 1u : 0u));
}

/* Unpacker u's output-format word (THCON_SEC<u>_REG2 word 0, as tt-llk's
 * configure_unpack_AB: Throttle_mode 2), with Tileize_mode / Haloize_mode and the
 * tilize row stride (Shift_amount_cntx0..2) where used. */
static inline void llk_unpack_write_reg2(uint32_t u, uint32_t out_fmt, int haloize, int tileize, uint32_t row_bytes)
{
    llk_cfg_write(LLK_UNP_REG2(u),
                  LLK_CFG_FIELD(THCON_SEC0_REG2_Out_data_format, out_fmt) |
                  LLK_CFG_FIELD(THCON_SEC0_REG2_Throttle_mode, 2) |
                  LLK_CFG_FIELD(THCON_SEC0_REG2_Haloize_mode, haloize ? 1u : 0u) |
                  LLK_CFG_FIELD(THCON_SEC0_REG2_Tileize_mode, tileize ? 1u : 0u) |
                  LLK_CFG_FIELD(THCON_SEC0_REG2_Shift_amount_cntx0, row_bytes >> 4) |
                  LLK_CFG_FIELD(THCON_SEC0_REG2_Shift_amount_cntx1, row_bytes >> 8) |
                  LLK_CFG_FIELD(THCON_SEC0_REG2_Shift_amount_cntx2, row_bytes >> 12));
}

/* Configure unpacker u for whole tiles of `in_fmt`, written to SrcA/SrcB (to_dst = 0)
 * or to Dst (u = 0, to_dst = 1) as `out_fmt`. Call once, before any llk_unpack_*
 * tile call; pushes the ADC set-up and a fence on the RISC-V stores.
 *
 * The words and fields are those tt-llk's configure_unpack_AB writes
 * (cunpack_common.h): tile descriptor words 0-1 (XDim from Tile_x_dim_cntx0 for
 * unpacker 0, 256 for unpacker 1; YDim 1, ZDim 4 faces), the two REG2 words (context
 * 0..7 uncompressed; Unpack_if_sel_cntx0 for Dst), the channel-1 Y / Z strides, and
 * for unpacker 0 Dest_cntx0/1_address = 64, Tile_x_dim_cntx0/1 = 256,
 * UNP0_ADD_DEST_ADDR_CNTR and ThreadConfig SRCA_SET (SetOvrdWithAddr for SrcA, clear
 * for Dst, as tt-llk's set_dst_write_addr). With OvrdThreadId set the unpacker reads
 * these per-context fields (UNPACR_Regular.md). */
static inline void llk_unpack_config(uint32_t u, uint32_t in_fmt, uint32_t out_fmt, int to_dst)
{
    uint32_t d = LLK_UNP_DESCRIPTOR(u);
    uint32_t unit = llk_unpack_out_unit(out_fmt);
    llk_cfg_write(d + 0u, (in_fmt & 0xFu) | (1u << 4) /* IsUncompressed */ | ((u ? LLK_FACE_DATUMS : 0u) << 16) /* XDim */);
    llk_cfg_write(d + 1u, 1u | (4u << 16)); /* YDim = 1 (bits 32..39), ZDim = 4 (bits 48..55) */
    llk_unpack_write_reg2(u, out_fmt, 0, 0, 0);
    llk_cfg_write(LLK_UNP_REG2B(u),
                  0xFu /* Disable_zero_compress_cntx0..3 */ | (0xFu << 16) /* cntx4..7 */ |
                  LLK_CFG_FIELD(THCON_SEC0_REG2_Unpack_if_sel_cntx0, to_dst ? 1u : 0u));
    llk_cfg_write(LLK_UNP_ZSTRIDE(u), LLK_CFG_FIELD(UNP0_ADDR_CTRL_ZW_REG_1_Zstride, LLK_FACE_DATUMS * unit));
    if (u == 0) {
        llk_cfg_write(TTE_CFG_UNP0_ADDR_CTRL_XY_REG_1_Ystride_IDX,
                      LLK_CFG_FIELD(UNP0_ADDR_CTRL_XY_REG_1_Ystride, LLK_FACE_DIM * unit));
        llk_cfg_write(TTE_CFG_THCON_SEC0_REG5_Dest_cntx0_address_IDX, LLK_UNP_SRCA_OFFSET | (LLK_UNP_SRCA_OFFSET << 16));
        llk_cfg_write(TTE_CFG_THCON_SEC0_REG5_Tile_x_dim_cntx0_IDX, LLK_FACE_DATUMS | (LLK_FACE_DATUMS << 16));
        llk_cfg_write(TTE_CFG_UNP0_ADD_DEST_ADDR_CNTR_add_dest_addr_cntr_IDX,
                      LLK_CFG_FIELD(UNP0_ADD_DEST_ADDR_CNTR_add_dest_addr_cntr, 1));
        llk_setc16(TTE_THCFG_SRCA_SET_Base_IDX, LLK_THCFG_FIELD(SRCA_SET_SetOvrdWithAddr, to_dst ? 0u : 1u));
    }
    uint32_t adc = u ? LLK_ADC_UNP1 : LLK_ADC_UNP0;
    tte_push(TTE_SETADCXY(adc, 0, 0, 0, 0, 0xF));
    tte_push(TTE_SETADCZW(adc, 0, 0, 0, 0, 0xF));
    tte_push(TTE_SETADCXX(adc, LLK_TILE_DATUMS - 1u, 0));
    llk_cfg_fence_riscv(LLK_STALL_UNPACK);
}

/* Transposing unpack (UNPACR_Regular.md, Haloize_mode of unpacker 0): every 16x16
 * face is written to SrcA transposed (the low four bits of the SrcA row and the
 * column swap), while the faces keep their places (face f stays in rows 16f..16f+15).
 * A whole-tile transpose must still swap faces 1 and 2 (llk_transpose.h does it while
 * moving SrcA to Dst). Unpacker 1 (SrcB) and unpacks to Dst cannot transpose. Call
 * after llk_unpack_config(0, in_fmt, out_fmt, 0); rewrites unpacker 0's REG2 word
 * (tt-llk's haloize_mode = transpose_xy_srca_en) and fences the store. The input must
 * start on a 16-byte boundary, which whole tiles always do. */
static inline void llk_unpack_set_transpose(uint32_t out_fmt, int transpose)
{
    llk_unpack_write_reg2(0, out_fmt, transpose, 0, 0);
    llk_cfg_fence_riscv(LLK_STALL_UNPACK);
}

/* Unpack the tile at l1_addr with unpacker u into the unpacker's current SrcA/SrcB
 * bank and hand the bank to the Matrix Unit. Waits (in the coprocessor) for the
 * previous UNPACR of this unpacker to finish before changing its input address. */
static inline void llk_unpack_tile(uint32_t u, uint32_t l1_addr)
{
    llk_tt_cfg_write(LLK_UNP_BASE(u), (l1_addr >> 4) - 1u, u ? LLK_WAIT_UNPACK1 : LLK_WAIT_UNPACK0);
    tte_push(LLK_UNPACR(u, 0, /* FlipSrc */ 1));
}

/* Point unpacker 0's Dst output at Dst row dst_row (32-bit rows for a 32-bit
 * out_fmt): Dest_cntx0_address = 64 + 16 * dst_row datums, as tt-llk's
 * set_dst_write_addr, once the previous UNPACR has finished. */
static inline void llk_unpack_dst_row(uint32_t dst_row)
{
    llk_tt_cfg_write(TTE_CFG_THCON_SEC0_REG5_Dest_cntx0_address_IDX,
                     (LLK_UNP_SRCA_OFFSET + 16u * dst_row) | (LLK_UNP_SRCA_OFFSET << 16), LLK_WAIT_UNPACK0);
}

/* Unpack the tile at l1_addr with unpacker 0 into Dst rows dst_row.. (32-bit rows
 * for 32-bit out_fmt). The caller holds the Dst half (llk_unpack_dst_acquire). */
static inline void llk_unpack_tile_to_dst(uint32_t l1_addr, uint32_t dst_row, uint32_t out_fmt)
{
    (void)out_fmt;
    llk_unpack_dst_row(dst_row);
    llk_tt_cfg_write(LLK_UNP_BASE(0), (l1_addr >> 4) - 1u, LLK_WAIT_UNPACK0);
    tte_push(LLK_UNPACR(0, 0, /* FlipSrc */ 0));
}

/* Before unpacking tile i to Dst: math has taken the previous tile
 * (UNPACK_TO_DEST below its max) and pack has drained the half this tile goes to
 * (MATH_PACK below its max, with every tile before this one already posted by math,
 * which the first wait guarantees). */
static inline void llk_unpack_dst_acquire(void)
{
    llk_sem_wait_room(LLK_STALL_UNPACK, LLK_SEM_UNPACK_TO_DEST);
    llk_sem_wait_room(LLK_STALL_UNPACK, LLK_SEM_MATH_PACK);
}

/* After unpacking a tile to Dst: tell math once unpacker 0 has finished. */
static inline void llk_unpack_dst_release(void)
{
    llk_sem_post_after(LLK_SEM_UNPACK_TO_DEST, LLK_WAIT_UNPACK0);
}

#endif
