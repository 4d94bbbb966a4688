/* llk_arch.h (Wormhole B0): what the LLK-style library needs to know that differs
 * between Wormhole B0 and Blackhole, as data. scripts/build_firmware.py puts
 * firmware/llk/blackhole/ first on the include path of a Blackhole build, so
 * `#include "llk_arch.h"` finds that arch's copy there; the rest of the library is
 * shared. Every name below exists in both copies.
 *
 * Sources: tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/STALLWAIT.md
 * (condition bits), ZEROACC.md, PACR.md, SETC16.md / ThreadConfig (ADDR_MOD slots);
 * tt-llk 0.81.1 tt_llk_wormhole_b0 (p_stall, cpack_common.h configure_pack /
 * set_packer_strides, llk_pack.h).
 */
#ifndef LLK_ARCH_H
#define LLK_ARCH_H

#include <stdint.h>

#include "ttemu_cfg.h"
#include "ttemu_tensix.h"

/* STALLWAIT condition bits (STALLWAIT.md "Condition mask", C0..C14): keep waiting
 * while ... */
#define LLK_WAIT_THCON 0x0001u     /* C0: the Scalar Unit has memory requests of this thread */
#define LLK_WAIT_UNPACK0 0x0002u   /* C1: unpacker 0 runs an instruction of this thread */
#define LLK_WAIT_UNPACK1 0x0004u   /* C2: unpacker 1 runs an instruction of this thread */
#define LLK_WAIT_PACK 0x0078u      /* C3..C6: any of packers 0..3 runs an instruction of this thread */
#define LLK_WAIT_MATH 0x0080u      /* C7: the Matrix Unit runs an instruction of this thread */
#define LLK_WAIT_SRCA_CLR 0x0100u  /* C8: unpacker 0's SrcA bank not owned by the unpackers */
#define LLK_WAIT_SRCB_CLR 0x0200u  /* C9 */
#define LLK_WAIT_SRCA_VLD 0x0400u  /* C10: the Matrix Unit's SrcA bank not owned by it */
#define LLK_WAIT_SRCB_VLD 0x0800u  /* C11 */
#define LLK_WAIT_XMOV 0x1000u      /* C12: mover requests outstanding */
#define LLK_WAIT_TRISC_CFG 0x2000u /* C13: a RISC-V store to config/GPRs is still on its way */
#define LLK_WAIT_SFPU 0x4000u      /* C14: the Vector Unit runs an instruction of this thread */

/* ThreadConfig word of address-modifier slot `slot` (0..3 with ADDR_MOD_SET_Base = 0):
 * the SrcA/SrcB words are two apart, the Dst and packer words one apart. */
#define LLK_THCFG_ADDR_MOD_AB_IDX(slot) (TTE_THCFG_ADDR_MOD_AB_SEC0_SrcAIncr_IDX + 2u * (slot))
#define LLK_THCFG_ADDR_MOD_DST_IDX(slot) (TTE_THCFG_ADDR_MOD_DST_SEC0_DestIncr_IDX + (slot))
#define LLK_THCFG_ADDR_MOD_PACK_IDX(slot) (TTE_THCFG_ADDR_MOD_PACK_SEC0_YsrcIncr_IDX + (slot))

/* Math thread ThreadConfig set-up before the address modifiers: slots 0..3 are
 * selected by ADDR_MOD_SET_Base = 0, and FIDELITY_BASE_Phase = 0 (Wormhole only). */
static inline void llk_arch_math_thcfg_init(void)
{
    tte_push(TTE_SETC16(TTE_THCFG_ADDR_MOD_SET_Base_IDX, 0));
    tte_push(TTE_SETC16(TTE_THCFG_FIDELITY_BASE_Phase_IDX, 0));
}

/* ZEROACC (ZEROACC.md): mode 3 all of Dst, mode 2 half `half` of it, mode 0 one row;
 * AddrMode 0. `dst32` (a 32-bit Dst) is not encoded on Wormhole here. */
#define LLK_ZEROACC_ALL() TTE_ZEROACC(3u, 0, 0)
#define LLK_ZEROACC_HALF(half, dst32) TTE_ZEROACC(2u, 0, (half))
#define LLK_ZEROACC_ROW(row, addr_mode) TTE_ZEROACC(0u, (addr_mode), (row))

/* --- packers (PACR.md; tt-llk configure_pack) --------------------------------------- */
/* Four packers; the library uses packer 0 (PackSel = 1) and configures all four
 * alike (their REG1 words, PACK_COUNTERS_SEC0..3), as tt-llk does. */
#define LLK_NUM_PACKERS 4u
#define LLK_PACK_REG1_WORDS                                                                                   \
    {TTE_CFG_THCON_SEC0_REG1_Row_start_section_size_IDX, TTE_CFG_THCON_SEC0_REG8_Row_start_section_size_IDX,  \
     TTE_CFG_THCON_SEC1_REG1_Row_start_section_size_IDX, TTE_CFG_THCON_SEC1_REG8_Row_start_section_size_IDX}
/* REG1 word 3 (thresholds, downsampling, L1 accumulation) is written 0 too. */
#define LLK_PACK_WRITE_REG1_WORD3 1
/* A PACR of a whole tile reads one face: 256 datums (SETADCXX), so a tile is four of
 * them, and the channel-0 X stride is the datum size. */
#define LLK_PACK_PACRS_PER_FACE 1u
#define LLK_PACK_ADC_X_END (LLK_FACE_DATUMS - 1u)
#define LLK_PACK_XSTRIDE(bytes) (bytes)
#define LLK_PACR_TILE(addr_mode, last) TTE_PACR((addr_mode), 0, /* packer 0 */ 1, 0, 0, 0, (last))
/* A PACR of one row of 16 datums (with SETADCXX 0..15), for untilize. */
#define LLK_PACR_ROW(addr_mode, last) TTE_PACR((addr_mode), 0, /* packer 0 */ 1, 0, 0, 0, (last))
/* A PACR reading the Dst rows of the read interfaces `intf` (Blackhole only; on
 * Wormhole the interfaces are not selectable and this is LLK_PACR_TILE with Concat). */
#define LLK_PACR_INTF(addr_mode, intf, concat, last) TTE_PACR((addr_mode), 0, /* packer 0 */ 1, 0, (concat), 0, (last))
/* ADDR_MOD_PACK slots and what they hold: ROWS steps inside a face (unused with one
 * PACR per face), FACE to the next face, TILE back to face 0; ROW (untilize): Y += 1. */
#define LLK_PACK_AM_ROWS 0u
#define LLK_PACK_AM_ROW 1u
#define LLK_PACK_AM_FACE 2u
#define LLK_PACK_AM_TILE 3u
#define LLK_PACK_AM_ROWS_BITS 0u
#define LLK_PACK_AM_FACE_BITS LLK_THCFG_FIELD(ADDR_MOD_PACK_SEC0_ZsrcIncr, 1)

/* Tilize mode unpacks one face (16 rows of 16 datums) per UNPACR. */
#define LLK_TILIZE_WHOLE_TILE 0

/* BRISC set-up before the TRISCs start (boot): nothing beyond the common sequence. */
static inline void llk_arch_boot_setup(void) {}

#endif
