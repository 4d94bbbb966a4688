/* sfpu_loadmacro, math (TRISC1 -> T1): x * s on the SFPU as sfpu_scalar_mul computes
 * it, each 4-row group by one SFPLOADMACRO (SFPLOADMACRO.md, SFPCONFIG.md): the load
 * of x into LReg 0, then, scheduled by load macro 0, an SFPMAD from instruction
 * template 0 (LReg 0 = LReg 1 * VB + LReg 9 with VB overridden by the loaded
 * register: x * s + 0, one rounding) the next cycle and an SFPSTORE FP32 of LReg 0 to
 * the macro's Dst address two cycles later (the SFPMAD result is not read on the
 * cycle after it, SFPMAD.md). Three SFPNOPs let the store happen before the next
 * group's macro. A kernel of its own because ttsim refuses SFPLOADMACRO (tt-llk's
 * TTSIM.md: disable it for ttsim runs; tests/test_kernels_ttsim.py pins the refusal);
 * ttemu is checked against numpy.
 *
 * Set-up: LReg 1 = s; template 0 and sequence 0 come from LReg 0 (SFPCONFIG VD 0 and
 * 4); Misc (VD 8) = the store's format FP32. */
#include "llk_params.h"
#include "llk_sfpu.h"

/* Load macro sequence bytes (SFPLOADMACRO.md): which instruction, delay << 3, 0x80 =
 * VB overridden with the loaded register. Sub-units: simple, MAD, round, store. */
#define LM_TEMPLATE0 4u
#define LM_STORE 3u
#define LM_VB 0x80u
#define LM_SEQUENCE0 ((LM_TEMPLATE0 | LM_VB) << 8 | (LM_STORE | (2u << 3)) << 24)

/* SFPLOADMACRO LRegInd = (MacroIndex << 2) + VDLo; Imm10's low bit is VDHi (0: VD 0). */
static const uint32_t macro_body[] = {
    TTE_SFPLOADMACRO((0u << 2) | LLK_L0, LLK_SFPU_FP32, LLK_AM_KEEP, LLK_SFPU_TILE(0)),
    LLK_SFPU_NOP(),
    LLK_SFPU_NOP(),
    LLK_SFPU_NOP(),
};
#define MACRO_N (sizeof(macro_body) / sizeof(macro_body[0]))

int main(void)
{
    llk_math_init();
    llk_sfpu_init(0);
    llk_sfpu_load_imm32(LLK_L0, TTE_SFPMAD(LLK_L1, LLK_L0, LLK_LCONST_0, LLK_L0, 0));
    tte_push(TTE_SFPCONFIG(0, /* InstructionTemplate[0] */ 0, 0));
    llk_sfpu_load_imm32(LLK_L0, LM_SEQUENCE0);
    tte_push(TTE_SFPCONFIG(0, /* Sequence[0] */ 4, 0));
    tte_push(TTE_SFPCONFIG(LLK_SFPU_FP32, /* Misc */ 8, /* IMM16_IS_VALUE */ 1));
    llk_sfpu_load_imm32(LLK_L1, LLK_PARAMS_PTR->arg);
    llk_sfpu_op_init(macro_body, MACRO_N);
    llk_kernel_sfpu_dst_tiles();
    return 0;
}
