/* llk_pack.h: the pack thread (TRISC2 -> Tensix T2): whole tiles from Dst to L1
 * with packer 0, and the pack side of the math -> pack handshake.
 *
 * Follows tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/PACR.md,
 * Packers/InputAddressGenerator.md, Packers/OutputAddressGenerator.md,
 * Packers/FormatConversion.md, Packers/EdgeMasking.md, and docs/unpack-pack-config.md
 * (reset values that must be changed: edge masks, zero compression).
 *
 * Four PACRs (packer 0) move one tile, a face each (256 datums: tt-llk packs a face
 * per packer; Wormhole packers move at most a face per instruction); the last has
 * Last = 1:
 *  - Input: datum index (ADC channel 0 Y/Z/W times the PCK0_ADDR_CTRL_*_REG_0
 *    strides) / BytesPerDatum, plus DEST_TARGET_REG_CFG_PACK_SEC0_Offset << 4, i.e.
 *    Offset is the first Dst row (32-bit rows when reading 32-bit data); channel 0 Z
 *    steps through the faces (ADDR_MOD_PACK); count = ADC Channel[1].X -
 *    Channel[0].X + 1 = 256 (SETADCXX).
 *  - Output: (L1_Dest_addr + 1) * 16 bytes (the +1 skips a tile header, which the
 *    kernels' tiles do not have: L1_Dest_addr = l1_addr / 16 - 1); a PACR without
 *    Last leaves the next one writing where it stopped. For BFP outputs the exponent
 *    stream starts there and the datums Exp_section_size * 16 bytes later (64 exponent
 *    bytes: 4). Last flushes the output buffers and makes the next PACR take fresh
 *    addresses.
 *  - Conversions (FormatConversion.md "Configuring the conversions"; the intermediate
 *    format is ALU_FORMAT_SPEC_REG2_Dstacc, which tt-llk sets to the packer's
 *    In_data_format, with no Dstacc override):
 *      Dst BF16 (16-bit)  -> Float16_b / Bfp8_b: intermediate BF16, Read_raw = 0
 *                            (BF16 stays BF16); Bfp8_b then rounds to shared exponents.
 *      Dst FP32 (32-bit)  -> Float32: intermediate FP32, Read_raw = 0,
 *                            Round_10b_mant = 0 (identity).
 *      Dst FP32 (32-bit)  -> Float16_b: intermediate BF16, Read_raw = 0: rounding
 *                            (round to nearest, ties away from zero; denormals to 0).
 *    In_data_format names the intermediate, Out_data_format the L1 format.
 *  - Edge mask 0 all 0xFFFF with every row mapped to it (its reset value 0 would zero
 *    every datum), zero compression off (Disable_zero_compress = 1), no ReLU, no L1
 *    accumulation.
 */
#ifndef LLK_PACK_H
#define LLK_PACK_H

#include <stdint.h>

#include "llk_cfg.h"
#include "llk_sem.h"
#include "llk_tile.h"

/* ADDR_MOD_PACK slots (ThreadConfig, the PACR's AddrMode) of whole-tile packing and
 * the PACRs per face: llk_arch.h (LLK_PACK_AM_*, LLK_PACK_PACRS_PER_FACE). */

/* The packers' REG1 words 0, 2 (and 3 where llk_arch.h says so) and PACK_COUNTERS
 * words, for Dst data read as `src` (the intermediate format) written to L1 as
 * `out_fmt`: Exp_section_size = 4 (faces; the BFP exponent section is 64 bytes), zero
 * compression off, no thresholds, downsampling or L1 accumulation,
 * pack_reads_per_xy_plane = 1. `reg1` lists each packer's REG1 word (LLK_PACK_REG1_WORDS). */
static inline void llk_pack_config_packers(const uint8_t *reg1, uint32_t src, uint32_t out_fmt)
{
    for (uint32_t i = 0; i < LLK_NUM_PACKERS; ++i) {
        llk_cfg_write(reg1[i], LLK_CFG_FIELD(THCON_SEC0_REG1_Exp_section_size, LLK_TILE_BFP_EXP_BYTES / 16u));
        llk_cfg_write(reg1[i] + 2u, LLK_CFG_FIELD(THCON_SEC0_REG1_Disable_zero_compress, 1) |
                                        LLK_CFG_FIELD(THCON_SEC0_REG1_Out_data_format, out_fmt) |
                                        LLK_CFG_FIELD(THCON_SEC0_REG1_In_data_format, src));
        if (LLK_PACK_WRITE_REG1_WORD3)
            llk_cfg_write(reg1[i] + 3u, 0);
        llk_cfg_write(TTE_CFG_PACK_COUNTERS_SEC0_pack_per_xy_plane_IDX + i,
                      LLK_CFG_FIELD(PACK_COUNTERS_SEC0_pack_reads_per_xy_plane, 1));
    }
}

/* llk_pack_config_with(dst32, src, x, out_fmt): llk_pack_config's RISC-V stores and
 * set-up instructions with the intermediate format `src` (In_data_format) and its
 * bytes per datum `x` (the channel-0 strides) given, for a caller that picks an
 * intermediate other than llk_pack_src_fmt(out_fmt); the caller fences the stores
 * (llk_cfg_fence_riscv(LLK_STALL_PACK | LLK_STALL_TDMA)) after its own.
 *
 * Configure the packers for tiles of Dst holding `dst_fmt` (LLK_FMT_FLOAT16_B for a
 * 16-bit Dst, LLK_FMT_FLOAT32 for a 32-bit one) written to L1 as `out_fmt`
 * (LLK_FMT_FLOAT16_B, LLK_FMT_BFP8_B, LLK_FMT_FLOAT32). Call once before any
 * llk_pack_tile; pushes the ADC set-up and a fence on the RISC-V stores. The unpack
 * thread must have set ALU_FORMAT_SPEC_REG2_Dstacc to llk_pack_src_fmt(out_fmt)
 * (llk_unpack_alu_config).
 *
 * The words and fields are those tt-llk's configure_pack / set_packer_config /
 * set_packer_strides write (cpack_common.h): the channel-0 strides, the REG1 words 0,
 * 2, 3 of all four packers (formats must agree between them), PCK_DEST_RD_CTRL,
 * PACK_COUNTERS_SEC0..3 (pack_reads_per_xy_plane = 1), PCK_EDGE_OFFSET_SEC0_mask and
 * TILE_ROW_SET_MAPPING_0 (every row uses edge mask 0). */
static inline void llk_pack_config_with(int dst32, uint32_t src, uint32_t x, uint32_t out_fmt)
{
    static const uint8_t reg1[LLK_NUM_PACKERS] = LLK_PACK_REG1_WORDS;

    llk_cfg_write(TTE_CFG_PCK0_ADDR_CTRL_XY_REG_0_Xstride_IDX,
                  LLK_CFG_FIELD(PCK0_ADDR_CTRL_XY_REG_0_Xstride, LLK_PACK_XSTRIDE(x)) |
                  LLK_CFG_FIELD(PCK0_ADDR_CTRL_XY_REG_0_Ystride, LLK_FACE_DIM * x));
    llk_cfg_write(TTE_CFG_PCK0_ADDR_CTRL_ZW_REG_0_Zstride_IDX,
                  LLK_CFG_FIELD(PCK0_ADDR_CTRL_ZW_REG_0_Zstride, LLK_FACE_DATUMS * x) |
                  LLK_CFG_FIELD(PCK0_ADDR_CTRL_ZW_REG_0_Wstride, 4u * LLK_FACE_DATUMS * x));
    llk_pack_config_packers(reg1, src, out_fmt);
    llk_cfg_write(TTE_CFG_PCK_DEST_RD_CTRL_Read_32b_data_IDX, LLK_CFG_FIELD(PCK_DEST_RD_CTRL_Read_32b_data, dst32 ? 1u : 0u));
    llk_cfg_write(TTE_CFG_PCK_EDGE_OFFSET_SEC0_mask_IDX, LLK_CFG_FIELD(PCK_EDGE_OFFSET_SEC0_mask, 0xFFFF));
    llk_cfg_write(TTE_CFG_TILE_ROW_SET_MAPPING_0_row_set_mapping_0_IDX, 0);
    if (LLK_PACK_PACRS_PER_FACE > 1u)
        llk_setc16(LLK_THCFG_ADDR_MOD_PACK_IDX(LLK_PACK_AM_ROWS), LLK_PACK_AM_ROWS_BITS);
    llk_setc16(LLK_THCFG_ADDR_MOD_PACK_IDX(LLK_PACK_AM_FACE), LLK_PACK_AM_FACE_BITS);
    llk_setc16(LLK_THCFG_ADDR_MOD_PACK_IDX(LLK_PACK_AM_TILE),
               LLK_THCFG_FIELD(ADDR_MOD_PACK_SEC0_YsrcClear, 1) | LLK_THCFG_FIELD(ADDR_MOD_PACK_SEC0_ZsrcClear, 1));
    tte_push(TTE_SETADCXY(LLK_ADC_PACK, 0, 0, 0, 0, 0xF));
    tte_push(TTE_SETADCZW(LLK_ADC_PACK, 0, 0, 0, 0, 0xF));
    tte_push(TTE_SETADCXX(LLK_ADC_PACK, LLK_PACK_ADC_X_END, 0));
}

static inline void llk_pack_config(uint32_t dst_fmt, uint32_t out_fmt)
{
    uint32_t src = llk_pack_src_fmt(out_fmt);

    llk_pack_config_with(dst_fmt == LLK_FMT_FLOAT32, src, llk_tile_bytes(src) / LLK_TILE_DATUMS, out_fmt);
    llk_cfg_fence_riscv(LLK_STALL_PACK | LLK_STALL_TDMA);
}

/* L1 accumulation on (1) or off (0) in every packer (Pack_L1_Acc, REG1 word 3, as
 * tt-llk's reconfigure_packer_l1_acc), at set-up: a RISC-V store, fenced by the
 * caller's next llk_cfg_fence_riscv. */
static inline void llk_pack_set_l1_acc(uint32_t on)
{
    static const uint8_t reg1[LLK_NUM_PACKERS] = LLK_PACK_REG1_WORDS;

    for (uint32_t i = 0; i < LLK_NUM_PACKERS; ++i)
        llk_cfg_write(reg1[i] + 3u, LLK_CFG_FIELD(THCON_SEC0_REG1_Pack_L1_Acc, on));
}

/* Wait until math has completed a Dst half (MATH_PACK non-zero). */
static inline void llk_pack_dst_wait(void)
{
    llk_sem_wait_data(LLK_STALL_TDMA | LLK_STALL_PACK, LLK_SEM_MATH_PACK);
}

/* Pack the tile at Dst row dst_row (32-bit rows for a 32-bit Dst) to l1_addr
 * (16-byte aligned): four PACRs of one face (256 datums) each with packer 0, the
 * channel-0 Z counter stepping through the faces, the last one with Last. The
 * address changes wait for the previous PACR. */
static inline void llk_pack_tile(uint32_t dst_row, uint32_t l1_addr)
{
    llk_tt_cfg_write(TTE_CFG_DEST_TARGET_REG_CFG_PACK_SEC0_Offset_IDX,
                     LLK_CFG_FIELD(DEST_TARGET_REG_CFG_PACK_SEC0_Offset, dst_row), LLK_WAIT_PACK);
    llk_tt_cfg_write(TTE_CFG_THCON_SEC0_REG1_L1_Dest_addr_IDX, (l1_addr >> 4) - 1u, LLK_WAIT_PACK);
    for (uint32_t f = 0; f < 4u; ++f)
        for (uint32_t r = 0; r < LLK_PACK_PACRS_PER_FACE; ++r) {
            int face_end = r == LLK_PACK_PACRS_PER_FACE - 1u;
            uint32_t am = !face_end ? LLK_PACK_AM_ROWS : f < 3u ? LLK_PACK_AM_FACE : LLK_PACK_AM_TILE;
            tte_push(LLK_PACR_TILE(am, /* Last */ (face_end && f == 3u) ? 1u : 0u));
        }
}

/* Hand the drained half back to math once the packer has finished reading it. */
static inline void llk_pack_dst_release(void)
{
    llk_sem_get_after(LLK_SEM_MATH_PACK, LLK_WAIT_PACK);
}

#endif
