/* sfpu_scalar_mul, math (TRISC1 -> T1): x * s on the SFPU for every datum of each
 * Float32 tile the unpacker put in Dst; s is the FP32 bit pattern in params.arg.
 *
 * Set-up: LReg 1 = s (two SFPLOADI halves, llk_sfpu_load_imm32). Per 4-row group:
 * SFPLOAD FP32 -> LReg 0; SFPMUL LReg 0 = LReg 0 * LReg 1 + LReg 9 (SFPMAD with
 * VC = 0: one round-to-nearest-even step, SFPMAD.md); SFPNOP (the next instruction
 * reads the SFPMUL's result); SFPSTORE FP32. Per tile as sfpu_scalar_add. */
#include "llk_params.h"
#include "llk_sfpu.h"

static const uint32_t mul_body[] = {
    LLK_SFPU_LOAD(LLK_L0, LLK_SFPU_FP32, 0),
    TTE_SFPMUL(LLK_L0, LLK_L1, LLK_LCONST_0, LLK_L0, 0),
    LLK_SFPU_NOP(),
    LLK_SFPU_STORE(LLK_L0, LLK_SFPU_FP32, 0),
};
#define MUL_N (sizeof(mul_body) / sizeof(mul_body[0]))

int main(void)
{
    llk_math_init();
    llk_sfpu_init(0);
    llk_sfpu_load_imm32(LLK_L1, LLK_PARAMS_PTR->arg);
    llk_sfpu_op_init(mul_body, MUL_N);
    llk_kernel_sfpu_dst_tiles();
    return 0;
}
