/* llk_pack.h: the pack thread (TRISC2 -> Tensix T2): whole tiles from Dst to L1
 * with packer 0, and the pack side of the math -> pack handshake.
 *
 * Follows tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/PACR.md,
 * Packers/InputAddressGenerator.md, Packers/OutputAddressGenerator.md,
 * Packers/FormatConversion.md, Packers/EdgeMasking.md, and docs/unpack-pack-config.md
 * (reset values that must be changed: edge masks, zero compression).
 *
 * One PACR (packer 0, Last = 1) moves one tile:
 *  - Input: datum index (PCK0_ADDR_BASE_REG_0_Base + ADC terms) / BytesPerDatum, plus
 *    DEST_TARGET_REG_CFG_PACK_SEC0_Offset << 4, i.e. Offset is the first Dst row
 *    (32-bit rows when reading 32-bit data); count = ADC Channel[1].X - Channel[0].X
 *    + 1 = 1024 (SETADCXX), contiguous in Dst.
 *  - Output: (L1_Dest_addr + 1) * 16 bytes (the +1 skips a tile header, which the
 *    kernels' tiles do not have: L1_Dest_addr = l1_addr / 16 - 1). For BFP outputs the
 *    exponent stream starts there and the datums Exp_section_size * 16 bytes later
 *    (64 exponent bytes: 4). Last flushes the output buffers and makes the next PACR
 *    take fresh addresses.
 *  - Conversions (FormatConversion.md "Configuring the conversions", IntermediateFormat
 *    through ALU_FORMAT_SPEC_REG_Dstacc_override/_val in word 0, owned by pack):
 *      Dst BF16 (16-bit)  -> Float16_b / Bfp8_b: Read_raw = 1, intermediate BF16
 *                            (identity); Bfp8_b then rounds to shared exponents.
 *      Dst FP32 (32-bit)  -> Float32: intermediate FP32, Read_raw = 0,
 *                            Round_10b_mant = 0 (identity).
 *      Dst FP32 (32-bit)  -> Float16_b: intermediate BF16, Read_raw = 0: rounding
 *                            (round to nearest, ties away from zero; denormals to 0).
 *    In_data_format names the intermediate, Out_data_format the L1 format.
 *  - Edge masks all 0xFFFF (their reset value 0 would zero every datum), zero
 *    compression off (Disable_zero_compress = 1), no ReLU, no L1 accumulation.
 */
#ifndef LLK_PACK_H
#define LLK_PACK_H

#include <stdint.h>

#include "llk_cfg.h"
#include "llk_sem.h"
#include "llk_tile.h"

/* Configure packer 0 for tiles of Dst holding `dst_fmt` (LLK_FMT_FLOAT16_B for a
 * 16-bit Dst, LLK_FMT_FLOAT32 for a 32-bit one) written to L1 as `out_fmt`
 * (LLK_FMT_FLOAT16_B, LLK_FMT_BFP8_B, LLK_FMT_FLOAT32). Call once before any
 * llk_pack_tile; pushes the ADC set-up and a fence on the RISC-V stores. */
static inline void llk_pack_config(uint32_t dst_fmt, uint32_t out_fmt)
{
    int dst32 = dst_fmt == LLK_FMT_FLOAT32;
    uint32_t inter = out_fmt == LLK_FMT_FLOAT32 ? LLK_FMT_FLOAT32 : LLK_FMT_FLOAT16_B;
    uint32_t raw = dst32 ? 0u : 1u;  /* 16-bit Dst: identity; 32-bit: FP32 identity or BF16 rounding */

    llk_cfg_write(TTE_CFG_ALU_FORMAT_SPEC_REG_Dstacc_val_IDX,
                  LLK_CFG_FIELD(ALU_FORMAT_SPEC_REG_Dstacc_val, inter) |
                  LLK_CFG_FIELD(ALU_FORMAT_SPEC_REG_Dstacc_override, 1));
    llk_cfg_write(TTE_CFG_PCK0_ADDR_CTRL_XY_REG_0_Xstride_IDX, 0);
    llk_cfg_write(TTE_CFG_PCK0_ADDR_CTRL_ZW_REG_0_Zstride_IDX, 0);
    llk_cfg_write(TTE_CFG_PCK0_ADDR_CTRL_XY_REG_1_Xstride_IDX, 0);
    llk_cfg_write(TTE_CFG_PCK0_ADDR_CTRL_ZW_REG_1_Zstride_IDX, 0);
    llk_cfg_write(TTE_CFG_PCK0_ADDR_BASE_REG_0_Base_IDX, 0);
    llk_cfg_write(TTE_CFG_PCK0_ADDR_BASE_REG_1_Base_IDX, 0);
    llk_cfg_write(TTE_CFG_PCK_DEST_RD_CTRL_Read_32b_data_IDX,
                  LLK_CFG_FIELD(PCK_DEST_RD_CTRL_Read_32b_data, dst32 ? 1u : 0u) |
                  LLK_CFG_FIELD(PCK_DEST_RD_CTRL_Read_int8, raw));
    llk_cfg_write(TTE_CFG_PCK_EDGE_TILE_FACE_SET_SELECT_enable_IDX, 0);
    llk_cfg_write(TTE_CFG_PCK_EDGE_OFFSET_SEC0_mask_IDX, LLK_CFG_FIELD(PCK_EDGE_OFFSET_SEC0_mask, 0xFFFF));
    llk_cfg_write(TTE_CFG_PCK_EDGE_OFFSET_SEC1_mask_IDX, 0xFFFFu);
    llk_cfg_write(TTE_CFG_PCK_EDGE_OFFSET_SEC2_mask_IDX, 0xFFFFu);
    llk_cfg_write(TTE_CFG_PCK_EDGE_OFFSET_SEC3_mask_IDX, 0xFFFFu);
    llk_cfg_write(TTE_CFG_PACK_COUNTERS_SEC0_pack_per_xy_plane_IDX, 0);
    llk_cfg_write(TTE_CFG_THCON_SEC0_REG1_Row_start_section_size_IDX,
                  LLK_CFG_FIELD(THCON_SEC0_REG1_Exp_section_size,
                                llk_fmt_is_bfp(out_fmt) ? LLK_TILE_BFP_EXP_BYTES / 16u : 0u));
    llk_cfg_write(TTE_CFG_THCON_SEC0_REG1_L1_Dest_addr_IDX, 0);  /* set per tile */
    llk_cfg_write(TTE_CFG_THCON_SEC0_REG1_Disable_zero_compress_IDX,
                  LLK_CFG_FIELD(THCON_SEC0_REG1_Disable_zero_compress, 1) |
                  LLK_CFG_FIELD(THCON_SEC0_REG1_Out_data_format, out_fmt) |
                  LLK_CFG_FIELD(THCON_SEC0_REG1_In_data_format, inter));
    llk_cfg_write(TTE_CFG_THCON_SEC0_REG1_Downsample_mask_IDX, 0);  /* 0 = keep all, no accumulation */
    llk_cfg_write(TTE_CFG_THCON_SEC0_REG9_Pack_0_2_limit_address_IDX, 0);  /* no output FIFO wrap */
    llk_cfg_write(TTE_CFG_THCON_SEC0_REG9_Pack_0_2_fifo_size_IDX, 0);
    llk_cfg_write(TTE_CFG_DEST_TARGET_REG_CFG_PACK_SEC0_Offset_IDX, 0);  /* set per tile */
    tte_push(TTE_SETADCXY(LLK_ADC_PACK, 0, 0, 0, 0, 0xF));
    tte_push(TTE_SETADCZW(LLK_ADC_PACK, 0, 0, 0, 0, 0xF));
    tte_push(TTE_SETADCXX(LLK_ADC_PACK, LLK_TILE_DATUMS - 1u, 0));
    llk_cfg_fence_riscv(LLK_STALL_PACK | LLK_STALL_TDMA);
}

/* Wait until math has completed a Dst half (MATH_PACK non-zero). */
static inline void llk_pack_dst_wait(void)
{
    llk_sem_wait_data(LLK_STALL_TDMA | LLK_STALL_PACK, LLK_SEM_MATH_PACK);
}

/* Pack the tile at Dst row dst_row (32-bit rows for a 32-bit Dst) to l1_addr
 * (16-byte aligned). The address changes wait for the previous PACR. */
static inline void llk_pack_tile(uint32_t dst_row, uint32_t l1_addr)
{
    llk_tt_cfg_write(TTE_CFG_DEST_TARGET_REG_CFG_PACK_SEC0_Offset_IDX,
                     LLK_CFG_FIELD(DEST_TARGET_REG_CFG_PACK_SEC0_Offset, dst_row), LLK_WAIT_PACK);
    llk_tt_cfg_write(TTE_CFG_THCON_SEC0_REG1_L1_Dest_addr_IDX, (l1_addr >> 4) - 1u, LLK_WAIT_PACK);
    tte_push(TTE_PACR(0, 0, /* packer 0 */ 1, 0, 0, 0, /* Last */ 1));
}

/* Hand the drained half back to math once the packer has finished reading it. */
static inline void llk_pack_dst_release(void)
{
    llk_sem_get_after(LLK_SEM_MATH_PACK, LLK_WAIT_PACK);
}

#endif
