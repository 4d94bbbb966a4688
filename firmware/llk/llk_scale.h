/* llk_scale.h: unpack and pack threads of the scaling benchmark kernels
 * (firmware/scale_*, run by scripts/bench.py --scale at growing sizes on ttemu and on
 * ttsim). Two differences from the shipped kernels' threads, the math thread being
 * the shipped kernel's own ELF:
 *  - Repeat over the same L1 tiles: step i works on L1 tile i % params.wrap (0: no
 *    wrap), so thousands of steps fit in L1; every repeat writes the same results.
 *  - Drained: after each step the thread waits until its Tensix instructions have
 *    completed (llk_tensix_sync). ttsim's RISC-V push to the instruction FIFO has no
 *    back-pressure and refuses a thread that runs ahead of its coprocessor thread
 *    ("tensix_push_inst_fifo: pipe N inst fifo full"); ttemu's FIFO holds the core.
 */
#ifndef LLK_SCALE_H
#define LLK_SCALE_H

#include <stdint.h>

#include "llk_pack.h"
#include "llk_params.h"
#include "llk_sync.h"
#include "llk_unpack.h"

/* L1 slot of step i: i modulo params.wrap (every step its own slot when wrap is 0). */
static inline uint32_t llk_scale_slot(uint32_t i)
{
    uint32_t w = LLK_PARAMS_PTR->wrap;
    return w ? i % w : i;
}

/* llk_kernel_unpack_a, wrapped and drained. */
static inline void llk_scale_unpack_a(uint32_t fmt)
{
    uint32_t in = LLK_PARAMS_PTR->in0;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_unpack_alu_config(fmt, fmt, 0, LLK_FMT_FLOAT16_B);
    llk_unpack_config(0, fmt, fmt, 0);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_unpack_tile(0, in + llk_scale_slot(i) * llk_tile_bytes(fmt));
        llk_tensix_sync();
    }
    llk_done(LLK_MAILBOX_UNPACK);
}

/* llk_kernel_unpack_ab, wrapped and drained. */
static inline void llk_scale_unpack_ab(uint32_t fmt)
{
    uint32_t in0 = LLK_PARAMS_PTR->in0;
    uint32_t in1 = LLK_PARAMS_PTR->in1;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_unpack_alu_config(fmt, fmt, 1, LLK_FMT_FLOAT16_B);
    llk_unpack_config(0, fmt, fmt, 0);
    llk_unpack_config(1, fmt, fmt, 0);
    for (uint32_t i = 0; i < tiles; ++i) {
        uint32_t off = llk_scale_slot(i) * llk_tile_bytes(fmt);
        llk_unpack_tile(0, in0 + off);
        llk_unpack_tile(1, in1 + off);
        llk_tensix_sync();
    }
    llk_done(LLK_MAILBOX_UNPACK);
}

/* llk_kernel_unpack_to_dst, wrapped and drained. */
static inline void llk_scale_unpack_to_dst(uint32_t fmt)
{
    uint32_t in = LLK_PARAMS_PTR->in0;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_unpack_alu_config(fmt, fmt, 1, fmt);
    llk_unpack_config(0, fmt, fmt, 1);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_unpack_dst_acquire();
        llk_unpack_tile_to_dst(in + llk_scale_slot(i) * llk_tile_bytes(fmt), llk_dst_half_row(i & 1u, 1), fmt);
        llk_unpack_dst_release();
        llk_tensix_sync();
    }
    llk_done(LLK_MAILBOX_UNPACK);
}

/* llk_kernel_pack, wrapped and drained. */
static inline void llk_scale_pack(uint32_t dst_fmt, uint32_t out_fmt, int dst32)
{
    uint32_t out = LLK_PARAMS_PTR->out;
    uint32_t tiles = LLK_PARAMS_PTR->tiles;

    llk_pack_config(dst_fmt, out_fmt);
    for (uint32_t i = 0; i < tiles; ++i) {
        llk_pack_dst_wait();
        llk_pack_tile(llk_dst_half_row(i & 1u, dst32), out + llk_scale_slot(i) * llk_tile_bytes(out_fmt));
        llk_pack_dst_release();
        llk_tensix_sync();
    }
    llk_done(LLK_MAILBOX_PACK);
}

#endif
