/* llk_arch.h (Blackhole): the Blackhole values of the names in ../llk_arch.h (read
 * that file first). Found first on the include path of a Blackhole build.
 *
 * Sources: tt-llk 0.81.1 tt_llk_blackhole: ckernel_instr_params.h (p_stall,
 * p_pacr, p_zeroacc), cpack_common.h (configure_pack, set_packer_config,
 * set_packer_strides: one packer, REG1 words 0 and 2, X stride unused),
 * llk_lib/llk_pack.h (_llk_pack_configure_addrmod_, _llk_pack_mop_config_: four
 * PACRs of four rows per face with every read interface active, SETADCXX 0..15),
 * llk_lib/llk_math_common.h (ZEROACC with use_32_bit_mode), tests/helpers/include/
 * boot.h (device_setup); tt-metal hw/inc/internal/tt-1xx/blackhole/tensix.h
 * (RISCV_DEBUG_REG_DEST_CG_CTRL); ttsim's Blackhole tensix_regs.json (ThreadConfig:
 * eight ADDR_MOD slots one word apart, no ADDR_MOD_SET).
 */
#ifndef LLK_ARCH_H
#define LLK_ARCH_H

#include <stdint.h>

#include "ttemu_cfg.h"
#include "ttemu_tensix.h"

/* STALLWAIT condition bits (Blackhole numbering, 13 bits: one packer, no C3..C6 set). */
#define LLK_WAIT_THCON 0x0001u     /* C0: Scalar Unit memory requests of this thread */
#define LLK_WAIT_UNPACK0 0x0002u   /* C1: unpacker 0 busy */
#define LLK_WAIT_UNPACK1 0x0004u   /* C2: unpacker 1 busy */
#define LLK_WAIT_PACK 0x0008u      /* C3: the packer busy */
#define LLK_WAIT_MATH 0x0010u      /* C4: the Matrix Unit busy */
#define LLK_WAIT_SRCA_CLR 0x0020u  /* C5: SrcA bank not owned by the unpackers */
#define LLK_WAIT_SRCB_CLR 0x0040u  /* C6 */
#define LLK_WAIT_SRCA_VLD 0x0080u  /* C7: SrcA bank not owned by the Matrix Unit */
#define LLK_WAIT_SRCB_VLD 0x0100u  /* C8 */
#define LLK_WAIT_XMOV 0x0200u      /* C9: mover requests outstanding */
#define LLK_WAIT_TRISC_CFG 0x0400u /* C10: a RISC-V config/GPR store still on its way */
#define LLK_WAIT_SFPU 0x0800u      /* C11: the Vector Unit busy */

/* ThreadConfig words of address-modifier slot `slot` (0..7), one word apart each. */
#define LLK_THCFG_ADDR_MOD_AB_IDX(slot) (TTE_THCFG_ADDR_MOD_AB_SEC0_SrcAIncr_IDX + (slot))
#define LLK_THCFG_ADDR_MOD_DST_IDX(slot) (TTE_THCFG_ADDR_MOD_DST_SEC0_DestIncr_IDX + (slot))
#define LLK_THCFG_ADDR_MOD_PACK_IDX(slot) (TTE_THCFG_ADDR_MOD_PACK_SEC0_YsrcIncr_IDX + (slot))

/* No ADDR_MOD_SET on Blackhole (AddrMode names slots 0..7 directly), and tt-llk's
 * Blackhole code never writes FIDELITY_BASE (ttsim refuses SETC16 of ThreadConfig
 * word 11: "UnimplementedFunctionality: tensix_setc16: setc16_reg=11"). */
static inline void llk_arch_math_thcfg_init(void) {}

/* ZEROACC(clear_mode, use_32_bit_mode, clear_zero_flags, addr_mode, where): mode 3
 * all, 2 half `where`, 0 one row; use_32_bit_mode for a 32-bit Dst (tt-llk's
 * _llk_math_..._dest_section_done_ passes is_fp32_dest_acc_en); AddrMode slot 0
 * (the library's KEEP slot: tt-llk names a zero slot, ADDR_MOD_1 in its scheme). */
#define LLK_ZEROACC_ALL() TTE_ZEROACC(3u, 0, 0, 0, 0)
#define LLK_ZEROACC_HALF(half, dst32) TTE_ZEROACC(2u, (dst32) ? 1u : 0u, 0, 0, (half))
#define LLK_ZEROACC_ROW(row, addr_mode) TTE_ZEROACC(0u, 0, 0, (addr_mode), (row))

/* --- the packer ------------------------------------------------------------------- */
#define LLK_NUM_PACKERS 1u
#define LLK_PACK_REG1_WORDS {TTE_CFG_THCON_SEC0_REG1_Row_start_section_size_IDX}
/* tt-llk leaves REG1 word 3 alone (read-modify-writes of L1 accumulation and the
 * exponent threshold, both 0 here, and the unpacker's Unp_LF8_4b_exp share it). */
#define LLK_PACK_WRITE_REG1_WORD3 0
/* Every read interface active: a PACR reads four Dst rows of 16 datums (SETADCXX
 * 0..15), so a face is four PACRs (ADDR_MOD: Y += 4), as tt-llk's default pack MOP. */
#define LLK_PACK_PACRS_PER_FACE 4u
#define LLK_PACK_ADC_X_END (LLK_FACE_DIM - 1u)
#define LLK_PACK_XSTRIDE(bytes) 0u /* "x-stride not used" (set_packer_strides) */
/* PACR(CfgContext, RowPadZero, DstAccessMode, AddrMode, AddrCntContext, ZeroWrite,
 *      ReadIntfSel, OvrdThreadId, Concat, CtxtCtrl, Flush, Last) */
#define LLK_PACR_TILE(addr_mode, last) TTE_PACR(0, 0, 0, (addr_mode), 0, 0, /* all interfaces */ 0, 0, 0, 0, 0, (last))
#define LLK_PACR_ROW(addr_mode, last) TTE_PACR(0, 0, 0, (addr_mode), 0, 0, /* one interface */ 1, 0, 0, 0, 0, (last))
#define LLK_PACR_INTF(addr_mode, intf, concat, last) TTE_PACR(0, 0, 0, (addr_mode), 0, 0, (intf), 0, (concat), 0, 0, (last))
/* tt-llk's slots: 0 Y += 4, 1 Y and Z cleared, 2 Y cleared and Z += 1. */
#define LLK_PACK_AM_ROWS 0u
#define LLK_PACK_AM_TILE 1u
#define LLK_PACK_AM_FACE 2u
#define LLK_PACK_AM_ROW 3u
#define LLK_PACK_AM_ROWS_BITS LLK_THCFG_FIELD(ADDR_MOD_PACK_SEC0_YsrcIncr, 4)
#define LLK_PACK_AM_FACE_BITS (LLK_THCFG_FIELD(ADDR_MOD_PACK_SEC0_YsrcClear, 1) | LLK_THCFG_FIELD(ADDR_MOD_PACK_SEC0_ZsrcIncr, 1))

/* Tilize mode unpacks a whole 32x32 tile per UNPACR (XDim = Tile_x_dim = 1024, ZDim = 1,
 * ADC X 0..1023): tt-llk's non-8-bit Blackhole tilize ("Blackhole whole-tile
 * workaround", llk_unpack_tilize.h); ttsim's Blackhole tilizer expects it. */
#define LLK_TILIZE_WHOLE_TILE 1

/* BRISC set-up before the TRISCs start, as tt-llk's Blackhole device_setup: Dst clock
 * gating control (RISCV_DEBUG_REG_DEST_CG_CTRL) = 0. */
#define LLK_DEST_CG_CTRL 0xFFB12240u
static inline void llk_arch_boot_setup(void)
{
    *(volatile uint32_t *)(uintptr_t)LLK_DEST_CG_CTRL = 0;
}

#endif
