/* pack_formats, pack (TRISC2 -> T2): llk_pack_config with the packer's
 * In_data_format and Out_data_format from params.k and the ReLU fields from
 * params.n (see trisc0.c), then each Dst half to params.out as in llk_kernel_pack. */
#include "llk_kernels.h"

int main(void)
{
    volatile const struct llk_params *p = LLK_PARAMS_PTR;
    uint32_t out = p->out, tiles = p->tiles, out_bytes = p->in1 >> 16;
    uint32_t inter = p->k & 0xFFu, out_fmt = (p->k >> 8) & 0xFFu, dst32 = (p->k >> 16) & 1u;
    static const uint8_t reg1[4] = {
        TTE_CFG_THCON_SEC0_REG1_Row_start_section_size_IDX, TTE_CFG_THCON_SEC0_REG8_Row_start_section_size_IDX,
        TTE_CFG_THCON_SEC1_REG1_Row_start_section_size_IDX, TTE_CFG_THCON_SEC1_REG8_Row_start_section_size_IDX,
    };

    /* llk_pack_config's words (the Float32 / Float16_b case: the same strides), then
     * the formats asked for: In_data_format = the intermediate, which need not be
     * llk_pack_src_fmt(out_fmt) here. */
    uint32_t x = p->k >> 24;  /* bytes per datum of the intermediate (Dst read strides) */

    llk_pack_config(dst32 ? LLK_FMT_FLOAT32 : LLK_FMT_FLOAT16_B, LLK_FMT_FLOAT16_B);
    llk_cfg_write(TTE_CFG_PCK0_ADDR_CTRL_XY_REG_0_Xstride_IDX,
                  LLK_CFG_FIELD(PCK0_ADDR_CTRL_XY_REG_0_Xstride, x) |
                  LLK_CFG_FIELD(PCK0_ADDR_CTRL_XY_REG_0_Ystride, LLK_FACE_DIM * x));
    llk_cfg_write(TTE_CFG_PCK0_ADDR_CTRL_ZW_REG_0_Zstride_IDX,
                  LLK_CFG_FIELD(PCK0_ADDR_CTRL_ZW_REG_0_Zstride, LLK_FACE_DATUMS * x) |
                  LLK_CFG_FIELD(PCK0_ADDR_CTRL_ZW_REG_0_Wstride, 4u * LLK_FACE_DATUMS * x));
    for (uint32_t i = 0; i < 4u; ++i)
        llk_cfg_write(reg1[i] + 2u, LLK_CFG_FIELD(THCON_SEC0_REG1_Disable_zero_compress, 1) |
                                        LLK_CFG_FIELD(THCON_SEC0_REG1_Out_data_format, out_fmt) |
                                        LLK_CFG_FIELD(THCON_SEC0_REG1_In_data_format, inter));
    /* params.k bit 20: L1 accumulation (Pack_L1_Acc of all four packers, word 3 of
     * each REG1 block, as tt-llk's reconfigure_packer_l1_acc). */
    if ((p->k >> 20) & 1u)
        for (uint32_t i = 0; i < 4u; ++i)
            llk_cfg_write(reg1[i] + 3u, LLK_CFG_FIELD(THCON_SEC0_REG1_Pack_L1_Acc, 1));
    /* PCK_DEST_RD_CTRL: Read_32b_data, then Read_unsigned, Read_int8 (Read_raw) and
     * Round_10b_mant from params.k bits 17..19. */
    llk_cfg_write(TTE_CFG_PCK_DEST_RD_CTRL_Read_32b_data_IDX,
                  LLK_CFG_FIELD(PCK_DEST_RD_CTRL_Read_32b_data, dst32) | (((p->k >> 17) & 7u) << 1));
    llk_cfg_write(TTE_CFG_STACC_RELU_ApplyRelu_IDX,
                  LLK_CFG_FIELD(STACC_RELU_ApplyRelu, p->n & 0xFu) |
                  LLK_CFG_FIELD(STACC_RELU_ReluThreshold, p->n >> 4));
    llk_cfg_fence_riscv(LLK_STALL_PACK | LLK_STALL_TDMA);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_pack_dst_wait();
        llk_pack_tile(llk_dst_half_row(i & 1u, (int)dst32), out + i * out_bytes);
        llk_pack_dst_release();
    }
    llk_done(LLK_MAILBOX_PACK);
    return 0;
}
