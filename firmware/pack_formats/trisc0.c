/* pack_formats, unpack (TRISC0 -> T0): format conversions chosen at run time, for
 * checking the unpackers' and packers' conversions against ttsim.
 *
 * Parameters (struct llk_params): in0, out, tiles as usual; in1 = bytes per input
 * tile | bytes per output tile << 16; m = the unpacker's InDataFormat | its
 * OutDataFormat << 8 | to_dst << 16 (unpack straight to Dst, else to SrcA and
 * MOVA2D); k = the packer's In_data_format (= ALU_FORMAT_SPEC_REG2_Dstacc, the
 * intermediate) | Out_data_format << 8 | 32-bit Dst << 16 | PCK_DEST_RD_CTRL's
 * Read_unsigned, Read_int8, Round_10b_mant << 17..19 | L1 accumulation << 20 |
 * bytes per intermediate datum << 24 (the packer's Dst read strides); n = the
 * STACC_RELU fields
 * (ApplyRelu | ReluThreshold << 4), written by the pack thread.
 * Each tile of params.in0 goes to SrcA (handed over by FlipSrc) or to a Dst half. */
#include "llk_kernels.h"

int main(void)
{
    volatile const struct llk_params *p = LLK_PARAMS_PTR;
    uint32_t in = p->in0, tiles = p->tiles, in_bytes = p->in1 & 0xFFFFu;
    uint32_t in_fmt = p->m & 0xFFu, out_fmt = (p->m >> 8) & 0xFFu, to_dst = (p->m >> 16) & 1u;
    uint32_t inter = p->k & 0xFFu, dst32 = (p->k >> 16) & 1u;

    llk_cfg_write(TTE_CFG_ALU_FORMAT_SPEC_REG0_SrcA_IDX,
                  LLK_CFG_FIELD(ALU_FORMAT_SPEC_REG0_SrcA, out_fmt) |
                  LLK_CFG_FIELD(ALU_FORMAT_SPEC_REG1_SrcB, out_fmt) |
                  LLK_CFG_FIELD(ALU_FORMAT_SPEC_REG2_Dstacc, inter) |
                  LLK_CFG_FIELD(ALU_ACC_CTRL_Fp32_enabled, dst32) |
                  LLK_CFG_FIELD(ALU_ACC_CTRL_SFPU_Fp32_enabled, dst32));
    llk_unpack_config(0, in_fmt, out_fmt, (int)to_dst);
    for (uint32_t i = 0; i < tiles; ++i) {
        if (to_dst) {
            llk_unpack_dst_acquire();
            llk_unpack_tile_to_dst(in + i * in_bytes, llk_dst_half_row(i & 1u, (int)dst32), out_fmt);
            llk_unpack_dst_release();
        } else {
            llk_unpack_tile(0, in + i * in_bytes);
        }
    }
    llk_done(LLK_MAILBOX_UNPACK);
    return 0;
}
