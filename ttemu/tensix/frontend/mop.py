"""MOP expander (one per thread).

Follows the functional model of tt-isa-documentation
WormholeB0/TensixTile/TensixCoprocessor/MOPExpander.md (and seed 000): ``MOP_CFG``
sets the high half of template 0's mask; ``MOP`` expands with template 0 (zmask loop)
or template 1 (double loop), reading ``MopCfg`` as sampled when the expansion starts.
Expansions are generators, so even the longest (template 1's hardware-bug case:
129 outer iterations) streams through the gate without being materialised.
"""

from __future__ import annotations

MOP_OPCODE = 0x01
NOP_OPCODE = 0x02
MOP_CFG_OPCODE = 0x03


def is_nop(word: int) -> bool:
    """Only plain NOP (opcode 0x02) counts: not DMANOP, not SFPNOP (MOPExpander.md)."""
    return (word >> 24) == NOP_OPCODE


def expand_template0(mask: int, count1: int, cfg) -> iter:
    """Template 0: for each of count1+1 iterations, the A (and B) instructions when
    the low mask bit is 0, else the skip instructions; the mask shifts right."""
    flags, insn_b, a0, a1, a2, a3, skip_a0, skip_b = cfg[1:9]
    has_b = flags & 1
    has_a123 = flags & 2
    for _ in range(count1 + 1):
        if mask & 1 == 0:
            yield a0
            if has_a123:
                yield a1
                yield a2
                yield a3
            if has_b:
                yield insn_b
        else:
            yield skip_a0
            if has_b:
                yield skip_b
        mask >>= 1


def template1_counts(cfg):
    """(outer, inner, flip) for template 1 after the LoopOp1 doubling and the
    hardware bug (outer 1, StartOp NOP, inner 0, EndOp0 not NOP -> outer += 128)."""
    outer = cfg[0] & 127
    inner = cfg[1] & 127
    start_op, end_op0 = cfg[2], cfg[3]
    loop_op, loop_op1 = cfg[5], cfg[6]
    if is_nop(loop_op1):
        flip = 0
    else:
        flip = loop_op ^ loop_op1
        inner *= 2
    if outer == 1 and is_nop(start_op) and inner == 0 and not is_nop(end_op0):
        outer += 128  # hardware bug, replicated
    return outer, inner, flip


def expand_template1(cfg) -> iter:
    """Template 1: ``outer`` x (StartOp, ``inner`` x LoopOp alternating with LoopOp1,
    EndOp0, EndOp1); the last inner iteration emits Loop0Last (last outer iteration)
    or Loop1Last (other outer iterations) instead."""
    outer, inner, flip = template1_counts(cfg)
    start_op, end_op0, end_op1, loop_op = cfg[2], cfg[3], cfg[4], cfg[5]
    loop0_last, loop1_last = cfg[7], cfg[8]
    for j in range(outer):
        if not is_nop(start_op):
            yield start_op
        for i in range(inner):
            if i != inner - 1:
                yield loop_op
            elif j != outer - 1:
                yield loop1_last
            else:
                yield loop0_last
            loop_op ^= flip
        if not is_nop(end_op0):
            yield end_op0
            if not is_nop(end_op1):
                yield end_op1


class MopExpander:
    """Per-thread state: ``cfg`` is MopCfg (uint32[9], written by the thread's RISC-V
    core at TENSIX_MOP_CFG_BASE), ``mask_hi`` is set by MOP_CFG, ``active`` is the
    expansion in progress (a generator) or None."""

    def __init__(self):
        self.cfg = [0] * 9
        self.mask_hi = 0
        self.active = None

    def start(self, word: int):
        """Begin expanding a MOP word, sampling MopCfg now."""
        template = (word >> 23) & 1
        cfg = tuple(self.cfg)
        if template == 0:
            mask = (self.mask_hi << 16) | (word & 0xFFFF)
            self.active = expand_template0(mask, (word >> 16) & 0x7F, cfg)
        else:
            self.active = expand_template1(cfg)

    def mop_cfg(self, word: int) -> None:
        self.mask_hi = word & 0xFFFF

    def reset(self) -> None:
        self.active = None
