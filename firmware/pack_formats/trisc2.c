/* pack_formats, pack (TRISC2 -> T2): llk_pack_config with the packer's
 * In_data_format and Out_data_format from params.k and the ReLU fields from
 * params.n (see trisc0.c), then each Dst half to params.out as in llk_kernel_pack. */
#include "llk_kernels.h"

int main(void)
{
    volatile const struct llk_params *p = LLK_PARAMS_PTR;
    uint32_t out = p->out, tiles = p->tiles, out_bytes = p->in1 >> 16;
    uint32_t inter = p->k & 0xFFu, out_fmt = (p->k >> 8) & 0xFFu, dst32 = (p->k >> 16) & 1u;

    /* llk_pack_config with the formats asked for: In_data_format = the intermediate,
     * which need not be llk_pack_src_fmt(out_fmt) here, and its datum size for the Dst
     * read strides. */
    llk_pack_config_with((int)dst32, inter, p->k >> 24, out_fmt);
    /* params.k bit 20: L1 accumulation */
    if ((p->k >> 20) & 1u)
        llk_pack_set_l1_acc(1);
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
