/* llk_layout.h: where the project's LLK-style kernels put things in L1, following
 * tt-llk's test harness protocol (docs/llk-test-protocol.md; the mailbox addresses
 * and KERNEL_COMPLETE value of its 2025 versions, the runtime-parameter block of
 * its Dec 2025 versions).
 */
#ifndef LLK_LAYOUT_H
#define LLK_LAYOUT_H

/* code windows of the llk layout (firmware/llk/<core>.ld) */
#define LLK_CODE_BRISC 0x0000u
#define LLK_CODE_TRISC0 0x4000u
#define LLK_CODE_TRISC1 0x8000u
#define LLK_CODE_TRISC2 0xC000u

/* one completion word per TRISC; the host polls them */
#define LLK_MAILBOX_UNPACK 0x19FFCu
#define LLK_MAILBOX_MATH 0x19FF8u
#define LLK_MAILBOX_PACK 0x19FF4u
#define LLK_KERNEL_COMPLETE 1u

/* runtime parameters written by the host before the run (struct llk_params) */
#define LLK_PARAMS 0x64000u

/* conventional buffers for manifests (any L1 address works) */
#define LLK_BUF_A 0x20000u
#define LLK_BUF_B 0x30000u
#define LLK_BUF_C 0x40000u
#define LLK_BUF_OUT 0x50000u

#endif
