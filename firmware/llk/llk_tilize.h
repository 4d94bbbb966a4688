/* llk_tilize.h: row-major matrices in L1 <-> tiles. Tilize with unpacker 0's tilize
 * mode (unpack thread), untilize with packer 0's output address generator (pack
 * thread); the math thread moves tiles as in the datacopy kernels.
 *
 * Follows tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/
 * UNPACR_Regular.md (DiscontiguousInputRows = Tileize_mode, RowStride from
 * Shift_amount_cntx0..2, output address from ADC channel 1 Y * Ystride), ADCs.md,
 * SETADCXX.md, SETADCXY.md, PACR.md, Packers/InputAddressGenerator.md,
 * Packers/OutputAddressGenerator.md (YZW_Addr, NeedsNewAddress, ADDR_MOD_PACK), and
 * docs/unpack-pack-config.md.
 *
 * Row-major layout: a matrix of R rows (R a multiple of 32) and N columns (N a
 * multiple of 32), row r at base + r * row_bytes, row_bytes = N * datum bytes; Float32
 * or Float16_b (no block-float: it has no row-major form). Tiles as in llk_tile.h: the
 * tile of rows 32b.., columns 32t.. is tile number b * (N / 32) + t, four 16x16 faces,
 * face f covering rows 16 (f >> 1).., columns 16 (f & 1)...
 *
 * Tilize (unpacker 0), one UNPACR per face: 256 datums (ADC X 0..255, SETADCXX) read
 * 16 at a time; after each 16 the input address goes back 16 datums and forward
 * RowStride = row_bytes (Tileize_mode), so the 256 datums are the face's 16 rows of 16,
 * written contiguously. The input address of each face (Base_address, 16-byte units:
 * the face's first datum must be 16-byte aligned, which 16-column steps guarantee for
 * 2- and 4-byte datums) is a Tensix-side config write; the output goes to
 *     Channel[1].Y * Ystride (+ Dest_cntx0_address, UNP0_ADD_DEST_ADDR_CNTR),
 *     Ystride = 256 datums,
 * with Channel[1].Y reset to 0 per tile (SETADCXY) and incremented by each UNPACR
 * (its Ch1YInc = 1), so face f lands in rows 16 f.. of the tile. To SrcA (the last
 * face flips the bank to math, which then copies it with MOVA2D) or to Dst
 * (Unpack_if_sel_cntx0; Dest_cntx0_address is set per tile, as llk_unpack_tile_to_dst
 * does).
 * Limits: row_bytes a multiple of 16, below 65536 (RowStride is 12 bits of 16 bytes).
 *
 * Untilize (packer 0), one PACR per face row (16 datums, ADC channel 0 X 0..15 via
 * SETADCXX), each with Last = 1 and its own output address:
 *  - input: Dst datum (Channel[0].Y * Ystride0) / BytesPerDatum + 16 *
 *    DEST_TARGET_REG_CFG_PACK_SEC0_Offset, Ystride0 = 16 datums (llk_pack_config);
 *    Offset = the tile's first Dst row, Channel[0].Y reset to 0 per tile and walking
 *    0..63 over the tile's faces (face f = rows 16 f..): ADDR_MOD_PACK_SEC1 (PACR
 *    AddrMode 1) adds 1 after each PACR;
 *  - output: (L1_Dest_addr + 1) * 16 bytes, L1_Dest_addr = the row's first datum (a
 *    Tensix-side config write per row: tt-llk's Wormhole code never programs the
 *    packers' channel-1 strides, and ttsim refuses them).
 * Limits: every output row starts on a 16-byte boundary: row_bytes a multiple of 16.
 */
#ifndef LLK_TILIZE_H
#define LLK_TILIZE_H

#include <stdint.h>

#include "llk_mop.h"
#include "llk_pack.h"
#include "llk_unpack.h"

#define LLK_TILE_DIM 32u
/* UNPACR AddrMode bits: (Ch1YInc << 6) | (Ch1ZInc << 4) | (Ch0YInc << 2) | Ch0ZInc. */
#define LLK_UNPACR_CH1_Y_INC1 (1u << 6)
#define LLK_UNPACR_CH0_Z_INC 1u
#define LLK_UNPACR_CH01_Z_INC ((1u << 4) | 1u)
/* SETADCXY BitMask bits: X0, Y0, X1, Y1. */
#define LLK_ADC_MASK_Y0 2u
#define LLK_ADC_MASK_Y1 8u
/* PACR AddrMode of the untilize rows: LLK_PACK_AM_ROW (llk_arch.h). */

/* Bytes of one row-major datum of fmt (Float32 / Float16_b). */
static inline uint32_t llk_rm_datum_bytes(uint32_t fmt)
{
    return llk_tile_bytes(fmt) / LLK_TILE_DATUMS;
}

/* L1 address of datum (row, col) of a row-major matrix. */
static inline uint32_t llk_rm_addr(uint32_t base, uint32_t row_bytes, uint32_t fmt, uint32_t row, uint32_t col)
{
    return base + row * row_bytes + col * llk_rm_datum_bytes(fmt);
}

/* --- tilize: unpack thread --------------------------------------------------------- */

/* Configure unpacker 0 for tilizing a row-major matrix of `fmt` with rows row_bytes
 * apart, into SrcA (to_dst = 0) or Dst (to_dst = 1), format unchanged. Call once
 * (instead of llk_unpack_config for unpacker 0), after llk_unpack_alu_config. */
static inline void llk_tilize_unpack_config(uint32_t fmt, int to_dst, uint32_t row_bytes)
{
    uint32_t unit = llk_unpack_out_unit(fmt);

    llk_unpack_config(0, fmt, fmt, to_dst);
    /* Then what differs from whole tiles: tilize mode with RowStride = row_bytes ... */
    llk_unpack_write_reg2(0, fmt, 0, 1, row_bytes);
    if (LLK_TILIZE_WHOLE_TILE) {
        /* ... and one UNPACR per tile (llk_arch.h): X spans the whole tile (XDim and
         * Tile_x_dim_cntx0/1 = 1024 datums), ZDim = 1, ADC X 0..1023. */
        uint32_t d = LLK_UNP_DESCRIPTOR(0);
        llk_cfg_write(d + 0u, (fmt & 0xFu) | (1u << 4) /* IsUncompressed */ | (LLK_TILE_DATUMS << 16) /* XDim */);
        llk_cfg_write(d + 1u, 1u | (1u << 16)); /* YDim = 1, ZDim = 1 */
        llk_cfg_write(TTE_CFG_THCON_SEC0_REG5_Tile_x_dim_cntx0_IDX, LLK_TILE_DATUMS | (LLK_TILE_DATUMS << 16));
        tte_push(TTE_SETADCXX(LLK_ADC_UNP0, LLK_TILE_DATUMS - 1u, 0));
    } else {
        /* ... face outputs 256 datums apart (channel-1 Y stride), 256 datums per UNPACR. */
        llk_cfg_write(TTE_CFG_UNP0_ADDR_CTRL_XY_REG_1_Ystride_IDX,
                      LLK_CFG_FIELD(UNP0_ADDR_CTRL_XY_REG_1_Ystride, LLK_FACE_DATUMS * unit));
        tte_push(TTE_SETADCXX(LLK_ADC_UNP0, LLK_FACE_DATUMS - 1u, 0));
    }
    llk_cfg_fence_riscv(LLK_STALL_UNPACK);
}

/* Unpack the tile whose top-left datum is at `tl` (row-major, rows row_bytes apart)
 * as four faces. To SrcA (to_dst = 0): the current bank, flipped to math after the
 * last face. To Dst (to_dst = 1): rows dst_row.. (the caller holds the half, as for
 * llk_unpack_tile_to_dst). */
static inline void llk_tilize_unpack_tile(uint32_t tl, uint32_t row_bytes, uint32_t fmt, int to_dst,
                                          uint32_t dst_row)
{
    uint32_t half_row_bytes = LLK_FACE_DIM * llk_rm_datum_bytes(fmt);

    if (to_dst)
        llk_unpack_dst_row(dst_row);
    if (LLK_TILIZE_WHOLE_TILE) {
        tte_push(TTE_SETADCZW(LLK_ADC_UNP0, 0, 0, 0, 0, 0xF));
        llk_tt_cfg_write(LLK_UNP_BASE(0), (tl >> 4) - 1u, LLK_WAIT_UNPACK0);
        tte_push(LLK_UNPACR(0, to_dst ? LLK_UNPACR_CH01_Z_INC : LLK_UNPACR_CH0_Z_INC, /* FlipSrc */ to_dst ? 0u : 1u));
        return;
    }
    tte_push(TTE_SETADCXY(LLK_ADC_UNP0, 0, 0, 0, 0, LLK_ADC_MASK_Y1));
    for (uint32_t f = 0; f < 4u; ++f) {
        uint32_t addr = tl + (f >> 1) * LLK_FACE_DIM * row_bytes + (f & 1u) * half_row_bytes;
        llk_tt_cfg_write(LLK_UNP_BASE(0), (addr >> 4) - 1u, LLK_WAIT_UNPACK0);
        tte_push(LLK_UNPACR(0, LLK_UNPACR_CH1_Y_INC1, /* FlipSrc */ (!to_dst && f == 3u) ? 1u : 0u));
    }
}

/* --- tilize: pack thread ----------------------------------------------------------- */

/* Where the tilize unpack writes a whole tile per UNPACR (LLK_TILIZE_WHOLE_TILE), Src
 * and Dst hold the tile row by row: Dst row 2r is tile row r's columns 0..15 (face 0
 * or 2), row 2r + 1 its columns 16..31 (face 1 or 3). The packer puts the faces back
 * together, as tt-llk's Blackhole PackMode::Tilize: per half tile (Z), face 0 from
 * the even rows (read interfaces 0 and 2: two rows per PACR, Y += 4), face 1 from
 * the odd rows (interfaces 1 and 3), Z += 1 is 32 Dst rows. Elsewhere the tile is in
 * face order already and these are llk_pack_config / llk_pack_tile. */
#define LLK_PACK_INTF_EVEN 0x5u /* read interfaces 0 and 2 */
#define LLK_PACK_INTF_ODD 0xAu  /* read interfaces 1 and 3 */
#define LLK_PACK_AM_YCLR LLK_PACK_AM_ROW /* Y = 0 (between the two faces of a half) */

static inline void llk_tilize_pack_config(uint32_t dst_fmt, uint32_t out_fmt)
{
    if (!LLK_TILIZE_WHOLE_TILE) {
        llk_pack_config(dst_fmt, out_fmt);
        return;
    }
    uint32_t src = llk_pack_src_fmt(out_fmt);
    uint32_t x = llk_tile_bytes(src) / LLK_TILE_DATUMS;

    llk_pack_config_with(dst_fmt == LLK_FMT_FLOAT32, src, x, out_fmt);
    llk_cfg_write(TTE_CFG_PCK0_ADDR_CTRL_ZW_REG_0_Zstride_IDX,
                  LLK_CFG_FIELD(PCK0_ADDR_CTRL_ZW_REG_0_Zstride, 2u * LLK_FACE_DATUMS * x) |
                  LLK_CFG_FIELD(PCK0_ADDR_CTRL_ZW_REG_0_Wstride, 4u * LLK_FACE_DATUMS * x));
    llk_setc16(LLK_THCFG_ADDR_MOD_PACK_IDX(LLK_PACK_AM_YCLR), LLK_THCFG_FIELD(ADDR_MOD_PACK_SEC0_YsrcClear, 1));
    llk_cfg_fence_riscv(LLK_STALL_PACK | LLK_STALL_TDMA);
}

static inline void llk_tilize_pack_tile(uint32_t dst_row, uint32_t l1_addr)
{
    if (!LLK_TILIZE_WHOLE_TILE) {
        llk_pack_tile(dst_row, l1_addr);
        return;
    }
    llk_tt_cfg_write(TTE_CFG_DEST_TARGET_REG_CFG_PACK_SEC0_Offset_IDX,
                     LLK_CFG_FIELD(DEST_TARGET_REG_CFG_PACK_SEC0_Offset, dst_row), LLK_WAIT_PACK);
    llk_tt_cfg_write(TTE_CFG_THCON_SEC0_REG1_L1_Dest_addr_IDX, (l1_addr >> 4) - 1u, LLK_WAIT_PACK);
    for (uint32_t half = 0; half < 2u; ++half)
        for (uint32_t face = 0; face < 2u; ++face)
            for (uint32_t k = 0; k < LLK_FACE_DIM / 2u; ++k) {
                int face_end = k == LLK_FACE_DIM / 2u - 1u;
                int tile_end = face_end && face == 1u && half == 1u;
                uint32_t am = !face_end ? LLK_PACK_AM_ROWS : face == 0 ? LLK_PACK_AM_YCLR
                                                         : half == 0 ? LLK_PACK_AM_FACE : LLK_PACK_AM_TILE;
                /* Concat on all but the last PACR of each half, as tt-llk's replay */
                tte_push(LLK_PACR_INTF(am, face ? LLK_PACK_INTF_ODD : LLK_PACK_INTF_EVEN,
                                       /* Concat */ (face_end && face == 1u) ? 0u : 1u, tile_end ? 1u : 0u));
            }
}

/* --- untilize: pack thread --------------------------------------------------------- */

/* Configure packer 0 to write tiles of Dst (dst_fmt: LLK_FMT_FLOAT16_B for a 16-bit
 * Dst, LLK_FMT_FLOAT32 for a 32-bit one) as row-major rows of out_fmt (Float32 or
 * Float16_b). Call once (instead of llk_pack_config). */
static inline void llk_untilize_pack_config(uint32_t dst_fmt, uint32_t out_fmt)
{
    llk_pack_config(dst_fmt, out_fmt);
    llk_setc16(LLK_THCFG_ADDR_MOD_PACK_IDX(LLK_PACK_AM_ROW),
               LLK_THCFG_FIELD(ADDR_MOD_PACK_SEC0_YsrcIncr, 1));
    tte_push(TTE_SETADCXX(LLK_ADC_PACK, LLK_FACE_DIM - 1u, 0));
    llk_cfg_fence_riscv(LLK_STALL_PACK | LLK_STALL_TDMA);
}

/* Pack the tile at Dst row dst_row (32-bit rows for a 32-bit Dst) into the row-major
 * output whose datum (0, 0) of this tile is at `tl` (16-byte aligned), rows row_bytes
 * apart, out_fmt as configured. The configuration writes wait for the packer. */
static inline void llk_untilize_pack_tile(uint32_t dst_row, uint32_t tl, uint32_t row_bytes, uint32_t out_fmt)
{
    uint32_t half_row_bytes = LLK_FACE_DIM * llk_rm_datum_bytes(out_fmt);

    llk_tt_cfg_write(TTE_CFG_DEST_TARGET_REG_CFG_PACK_SEC0_Offset_IDX,
                     LLK_CFG_FIELD(DEST_TARGET_REG_CFG_PACK_SEC0_Offset, dst_row), LLK_WAIT_PACK);
    tte_push(TTE_SETADCXY(LLK_ADC_PACK, 0, 0, 0, 0, LLK_ADC_MASK_Y0));
    for (uint32_t f = 0; f < 4u; ++f) {
        uint32_t addr = tl + (f >> 1) * LLK_FACE_DIM * row_bytes + (f & 1u) * half_row_bytes;
        for (uint32_t r = 0; r < LLK_FACE_DIM; ++r, addr += row_bytes) {
            llk_tt_cfg_write(TTE_CFG_THCON_SEC0_REG1_L1_Dest_addr_IDX, (addr >> 4) - 1u, LLK_WAIT_PACK);
            tte_push(LLK_PACR_ROW(LLK_PACK_AM_ROW, /* Last */ 1));
        }
    }
}

#endif
