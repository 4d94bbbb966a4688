/* llk_unpack.h: the unpack thread (TRISC0 -> Tensix T0): whole tiles from L1 into
 * SrcA (unpacker 0), SrcB (unpacker 1) or Dst (unpacker 0).
 *
 * Follows tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/
 * UNPACR_Regular.md (functional model and TileDescriptor layout), ADCs.md,
 * SrcASrcB.md, Dst.md, and docs/unpack-pack-config.md for the fields ttemu reads.
 *
 * One UNPACR moves one whole tile (1024 datums):
 *  - TileDescriptor: XDim = 1024, YDim = ZDim = WDim = 1, IsUncompressed = 1, so the
 *    first datum is ADC Channel[0].X = 0 and the count is Channel[1].X + 1 - 0 = 1024
 *    (SETADCXX); Y/Z/W stay 0.
 *  - Input address: (Base_address + Offset_address + 1 + DigestSize) * 16 bytes, i.e.
 *    the datums follow a 16-byte tile header. The kernels' tiles have no header, so
 *    Base_address = l1_addr / 16 - 1 (l1_addr must be 16-byte aligned; Offset = 0).
 *    For BFP inputs the exponent section comes first and the datums after it.
 *  - Output address: UNP<u>_ADDR_BASE_REG_1_Base in bytes of the output format
 *    (/4 for 32-bit, /2 for 16-bit formats); SrcA and Dst rows are that datum index /16
 *    minus 4, SrcB rows the index / 16 (no offset). To reach all 64 SrcA rows with one
 *    instruction, ThreadConfig SRCA_SET_SetOvrdWithAddr is set (rows up to 63 are
 *    then taken from the address alone). It must be clear when unpacking to Dst,
 *    where it would wrap rows to 0..15.
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
#define LLK_UNP_LIMIT(u) ((u) ? TTE_CFG_THCON_SEC1_REG2_Unpack_limit_address_IDX : TTE_CFG_THCON_SEC0_REG2_Unpack_limit_address_IDX)
#define LLK_UNP_FIFO(u) ((u) ? TTE_CFG_THCON_SEC1_REG2_Unpack_fifo_size_IDX : TTE_CFG_THCON_SEC0_REG2_Unpack_fifo_size_IDX)
#define LLK_UNP_BASE(u) ((u) ? TTE_CFG_THCON_SEC1_REG3_Base_address_IDX : TTE_CFG_THCON_SEC0_REG3_Base_address_IDX)
#define LLK_UNP_OFFSET(u) ((u) ? TTE_CFG_THCON_SEC1_REG7_Offset_address_IDX : TTE_CFG_THCON_SEC0_REG7_Offset_address_IDX)
#define LLK_UNP_OUT_BASE(u) ((u) ? TTE_CFG_UNP1_ADDR_BASE_REG_1_Base_IDX : TTE_CFG_UNP0_ADDR_BASE_REG_1_Base_IDX)
#define LLK_UNP_STRIDES0(u) ((u) ? TTE_CFG_UNP1_ADDR_CTRL_XY_REG_0_Xstride_IDX : TTE_CFG_UNP0_ADDR_CTRL_XY_REG_0_Xstride_IDX)
#define LLK_UNP_STRIDES1(u) ((u) ? TTE_CFG_UNP1_ADDR_CTRL_XY_REG_1_Xstride_IDX : TTE_CFG_UNP0_ADDR_CTRL_XY_REG_1_Xstride_IDX)
#define LLK_UNP_EXP(u) ((u) ? TTE_CFG_UNP1_FORCED_SHARED_EXP_shared_exp_IDX : TTE_CFG_UNP0_FORCED_SHARED_EXP_shared_exp_IDX)

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

/* ALU formats (Config word 1, owned by the unpack thread): what SrcA / SrcB hold and
 * whether Dst is 32-bit (ALU_ACC_CTRL_Fp32_enabled: FPU results as FP32). The Matrix
 * Unit reads these (MOVA2D.md, ELWADD.md "Determine the data formats"). Stochastic
 * rounding, INT8 math and unsigned INT8 stay off. */
static inline void llk_unpack_alu_config(uint32_t srca_fmt, uint32_t srcb_fmt, int dst32)
{
    llk_cfg_write(TTE_CFG_ALU_FORMAT_SPEC_REG0_SrcA_IDX,
                  LLK_CFG_FIELD(ALU_FORMAT_SPEC_REG0_SrcA, srca_fmt) |
                  LLK_CFG_FIELD(ALU_FORMAT_SPEC_REG1_SrcB, srcb_fmt) |
                  LLK_CFG_FIELD(ALU_FORMAT_SPEC_REG2_Dstacc, dst32 ? LLK_FMT_FLOAT32 : srca_fmt) |
                  LLK_CFG_FIELD(ALU_ACC_CTRL_Fp32_enabled, dst32 ? 1u : 0u));
}

/* Configure unpacker u for whole tiles of `in_fmt`, written to SrcA/SrcB (to_dst = 0)
 * or to Dst (u = 0, to_dst = 1) as `out_fmt`. Call once, before any llk_unpack_*
 * tile call; pushes the ADC set-up and a fence on the RISC-V stores. */
static inline void llk_unpack_config(uint32_t u, uint32_t in_fmt, uint32_t out_fmt, int to_dst)
{
    uint32_t d = LLK_UNP_DESCRIPTOR(u);
    llk_cfg_write(d + 0u, (in_fmt & 0xFu) | (1u << 4) /* IsUncompressed */ | (LLK_TILE_DATUMS << 16) /* XDim */);
    llk_cfg_write(d + 1u, 1u | (1u << 16)); /* YDim = 1 (bits 32..39), ZDim = 1 (bits 48..55) */
    llk_cfg_write(d + 2u, 1u);              /* WDim = 1 (bits 64..71) */
    llk_cfg_write(d + 3u, 0u);      /* BlobsYStart, DigestSize = 0 */
    llk_cfg_write(LLK_UNP_REG2(u), (out_fmt & 0xFu) | ((to_dst ? 1u : 0u) << TTE_CFG_THCON_SEC0_REG2_Unpack_If_Sel_SHIFT));
    llk_cfg_write(LLK_UNP_REG2B(u), 0u);  /* no forced shared exponent; contexts unused */
    llk_cfg_write(LLK_UNP_LIMIT(u), 0u);  /* no input FIFO wrap */
    llk_cfg_write(LLK_UNP_FIFO(u), 0u);
    llk_cfg_write(LLK_UNP_BASE(u), 0u);   /* set per tile */
    llk_cfg_write(LLK_UNP_OFFSET(u), 0u);
    llk_cfg_write(LLK_UNP_STRIDES0(u), 0u);
    llk_cfg_write(LLK_UNP_STRIDES0(u) + 1u, 0u);
    llk_cfg_write(LLK_UNP_STRIDES1(u), 0u);
    llk_cfg_write(LLK_UNP_STRIDES1(u) + 1u, 0u);
    llk_cfg_write(LLK_UNP_EXP(u), 0u);
    /* Output base: SrcA row 0 is datum 64 (the 4-row offset), SrcB row 0 is datum 0;
     * for Dst it is set per tile (llk_unpack_tile_to_dst). */
    uint32_t out_base = (u == 0 && !to_dst) ? 64u * llk_unpack_out_unit(out_fmt) : 0u;
    llk_cfg_write(LLK_UNP_OUT_BASE(u), out_base << 16); /* REG_0_Base (low half) unused: 0 */
    if (u == 0)  /* SrcA rows from the address alone (whole tile), never for Dst */
        llk_setc16(TTE_THCFG_SRCA_SET_SetOvrdWithAddr_IDX,
                   LLK_THCFG_FIELD(SRCA_SET_SetOvrdWithAddr, to_dst ? 0u : 1u));
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
 * after llk_unpack_config(0, in_fmt, out_fmt, 0); rewrites that word of unpacker 0
 * (Out_data_format, Haloize_mode; Unpack_If_Sel stays 0) and fences the store. The
 * input must start on a 16-byte boundary, which whole tiles always do. */
static inline void llk_unpack_set_transpose(uint32_t out_fmt, int transpose)
{
    llk_cfg_write(LLK_UNP_REG2(0), (out_fmt & 0xFu) |
                  LLK_CFG_FIELD(THCON_SEC0_REG2_Haloize_mode, transpose ? 1u : 0u));
    llk_cfg_fence_riscv(LLK_STALL_UNPACK);
}

/* Unpack the tile at l1_addr with unpacker u into the unpacker's current SrcA/SrcB
 * bank and hand the bank to the Matrix Unit. Waits (in the coprocessor) for the
 * previous UNPACR of this unpacker to finish before changing its input address. */
static inline void llk_unpack_tile(uint32_t u, uint32_t l1_addr)
{
    llk_tt_cfg_write(LLK_UNP_BASE(u), (l1_addr >> 4) - 1u, u ? LLK_WAIT_UNPACK1 : LLK_WAIT_UNPACK0);
    tte_push(TTE_UNPACR(u, 0, 0, 0, 0, 0, /* FlipSrc */ 1, 0, 0, 0, 0, 0, 0));
}

/* Unpack the tile at l1_addr with unpacker 0 into Dst rows dst_row.. (32-bit rows
 * for 32-bit out_fmt). The caller holds the Dst half (llk_unpack_dst_acquire). */
static inline void llk_unpack_tile_to_dst(uint32_t l1_addr, uint32_t dst_row, uint32_t out_fmt)
{
    uint32_t out_base = (64u + 16u * dst_row) * llk_unpack_out_unit(out_fmt);
    llk_tt_cfg_write(LLK_UNP_OUT_BASE(0), out_base << 16, LLK_WAIT_UNPACK0);
    llk_tt_cfg_write(LLK_UNP_BASE(0), (l1_addr >> 4) - 1u, LLK_WAIT_UNPACK0);
    tte_push(TTE_UNPACR(0, 0, 0, 0, 0, 0, /* FlipSrc */ 0, 0, 0, 0, 0, 0, 0));
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
