/* llk_params.h: the runtime-parameter block every kernel reads at LLK_PARAMS. The
 * host (a manifest's [[write]] entries) fills it before releasing BRISC. */
#ifndef LLK_PARAMS_H
#define LLK_PARAMS_H

#include <stdint.h>

#include "llk_layout.h"

struct llk_params {
    uint32_t in0;    /* L1 address of input A (tiles) */
    uint32_t in1;    /* L1 address of input B (tiles), if any */
    uint32_t out;    /* L1 address of the output tiles */
    uint32_t tiles;  /* number of output tiles (or of input tiles: per kernel) */
    uint32_t m, k, n; /* block shapes in tiles (matmul), or kernel-specific */
    uint32_t arg;    /* a kernel-specific scalar (e.g. an fp32 bit pattern) */
    uint32_t wrap;   /* scale kernels (llk_scale.h): L1 holds this many tiles (0: all) */
};

#define LLK_PARAMS_PTR ((volatile const struct llk_params *)LLK_PARAMS)

#endif
