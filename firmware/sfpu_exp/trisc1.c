/* sfpu_exp, math (TRISC1 -> T1): exp(x) on the SFPU for every datum of each Float32
 * tile the unpacker put in Dst, for x in [-86, 86] (results normal FP32).
 *
 * Method (this project's own; constants and error bound in sfpu_exp.toml):
 *   n  = round(x * log2e)          y = x * L + M, M = 1.5 * 2^23: for |x * L| < 2^22
 *                                  y lies in [2^23, 2^24), whose ulp is 1, so the
 *                                  SFPMAD's rounding leaves y = M + n, and the low bits
 *                                  of y's pattern hold n (two's complement)
 *   nf = y - M                     SFPADDI of the BF16 immediate -M (exact: an integer)
 *   r  = (x - nf * LN2_HI) - nf * LN2_LO   Cody-Waite: LN2_HI has 16 significant
 *                                  bits, so nf * LN2_HI is exact for |n| < 256
 *   p  = 1 + r + c2 r^2 + ... + c6 r^6     Horner, c2..c6 a minimax fit of exp on
 *                                  |r| <= 0.3501 with c0 = c1 = 1 (relative error
 *                                  3.3e-9 before rounding the coefficients to FP32)
 *   s  = 2^n                       SFPIADD y + 127, then SFPSETEXP puts its low 8
 *                                  bits as the exponent of 1.0
 *   exp(x) = p * s                 exact (a power of two, normal result)
 *
 * Registers: LReg 0 x, then r, then the result; LReg 1 y, then s; LReg 2 y, nf, then
 * the Horner accumulator. Constants, loaded once: LReg 3 L = log2e, 4 M, 5 -LN2_HI,
 * 6 -LN2_LO, 7 c6, 11 c5, 12 c4, 13 c3, 14 c2 (11..14 through SFPCONFIG).
 * Scheduling: an SFPMAD / SFPADDI result is never read by the next instruction
 * (SFPMAD.md): independent instructions or SFPNOP sit between. 24 words + INCRWC per
 * group (of the 32 replay slots). */
#include "llk_params.h"
#include "llk_sfpu.h"

#define EXP_LOG2E 0x3FB8AA3Bu   /* 1.44269502f */
#define EXP_MAGIC 0x4B400000u   /* 1.5 * 2^23 */
#define EXP_NEG_MAGIC_BF16 0xCB40u
#define EXP_NEG_LN2_HI 0xBF317200u  /* -0.693145751953125 (16 significant bits) */
#define EXP_NEG_LN2_LO 0xB5BFBE8Eu  /* -(ln 2 - LN2_HI) = -1.42860682e-6 */
#define EXP_C2 0x3EFFFFFEu  /* 0.49999994 */
#define EXP_C3 0x3E2AAA45u  /* 0.16666515 */
#define EXP_C4 0x3D2AAC8Bu  /* 0.041668456 */
#define EXP_C5 0x3C091FE9u  /* 0.0083694244 */
#define EXP_C6 0x3AB50D2Fu  /* 0.0013813133 */

static const uint32_t exp_body[] = {
    LLK_SFPU_LOAD(LLK_L0, LLK_SFPU_FP32, 0),
    LLK_SFPU_MAD(LLK_L0, LLK_L3, LLK_L4, LLK_L2),             /* L2 = y */
    LLK_SFPU_MAD(LLK_L0, LLK_L3, LLK_L4, LLK_L1),             /* L1 = y */
    TTE_SFPADDI(EXP_NEG_MAGIC_BF16, LLK_L2, 0),               /* L2 = nf */
    TTE_SFPIADD(127, LLK_L1, LLK_L1, LLK_IADD_IMM | LLK_IADD_CC_NONE), /* L1 low 8 bits = n + 127 */
    LLK_SFPU_MAD(LLK_L2, LLK_L5, LLK_L0, LLK_L0),             /* L0 = x - nf * LN2_HI */
    TTE_SFPSETEXP(0, LLK_LCONST_1, LLK_L1, 0),                /* L1 = s = 2^n */
    LLK_SFPU_MAD(LLK_L2, LLK_L6, LLK_L0, LLK_L0),             /* L0 = r */
    LLK_SFPU_NOP(),
    LLK_SFPU_MAD(LLK_L0, LLK_L7, LLK_LPROG0, LLK_L2),         /* c6 r + c5 */
    LLK_SFPU_NOP(),
    LLK_SFPU_MAD(LLK_L2, LLK_L0, LLK_LPROG1, LLK_L2),         /* ... r + c4 */
    LLK_SFPU_NOP(),
    LLK_SFPU_MAD(LLK_L2, LLK_L0, LLK_LPROG2, LLK_L2),         /* ... r + c3 */
    LLK_SFPU_NOP(),
    LLK_SFPU_MAD(LLK_L2, LLK_L0, LLK_LPROG3, LLK_L2),         /* ... r + c2 */
    LLK_SFPU_NOP(),
    LLK_SFPU_MAD(LLK_L2, LLK_L0, LLK_LCONST_1, LLK_L2),       /* ... r + 1 */
    LLK_SFPU_NOP(),
    LLK_SFPU_MAD(LLK_L2, LLK_L0, LLK_LCONST_1, LLK_L2),       /* p = ... r + 1 */
    LLK_SFPU_NOP(),
    LLK_SFPU_MAD(LLK_L2, LLK_L1, LLK_LCONST_0, LLK_L0),       /* p * 2^n */
    LLK_SFPU_NOP(),
    LLK_SFPU_STORE(LLK_L0, LLK_SFPU_FP32, 0),
};
#define EXP_N (sizeof(exp_body) / sizeof(exp_body[0]))

int main(void)
{
    llk_math_init();
    llk_sfpu_init(0);
    /* LReg 11..14 first: llk_sfpu_load_const passes them through LReg 0. */
    llk_sfpu_load_const(LLK_LPROG0, EXP_C5);
    llk_sfpu_load_const(LLK_LPROG1, EXP_C4);
    llk_sfpu_load_const(LLK_LPROG2, EXP_C3);
    llk_sfpu_load_const(LLK_LPROG3, EXP_C2);
    llk_sfpu_load_const(LLK_L3, EXP_LOG2E);
    llk_sfpu_load_const(LLK_L4, EXP_MAGIC);
    llk_sfpu_load_const(LLK_L5, EXP_NEG_LN2_HI);
    llk_sfpu_load_const(LLK_L6, EXP_NEG_LN2_LO);
    llk_sfpu_load_const(LLK_L7, EXP_C6);
    llk_sfpu_op_init(exp_body, EXP_N);
    llk_kernel_sfpu_dst_tiles();
    return 0;
}
