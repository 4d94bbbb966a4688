"""RWCs: the Matrix Unit / Vector Unit auto-incrementing address counters, one set
per thread, and ``ApplyAddrMod``.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/RWCs.md. The AddrMod
tables live in ThreadConfig (ADDR_MOD_AB_SEC<i>, ADDR_MOD_DST_SEC<i>,
ADDR_MOD_BIAS_SEC<i>, selected by the instruction's two AddrMod bits plus 4 when
ExtraAddrModBit or ADDR_MOD_SET_Base is set).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RWC:
    Dst: int = 0  # uint10
    Dst_Cr: int = 0
    SrcA: int = 0  # uint6
    SrcA_Cr: int = 0
    SrcB: int = 0  # uint6
    SrcB_Cr: int = 0
    FidelityPhase: int = 0  # uint2
    ExtraAddrModBit: int = 0  # uint1


class RWCs:
    def __init__(self, config):
        self.config = config
        self.rwc = [RWC(), RWC(), RWC()]

    def __getitem__(self, thread: int) -> RWC:
        return self.rwc[thread]

    def apply_addr_mod(self, thread: int, addr_mod: int, update_fidelity: bool = True) -> None:
        """ApplyAddrMod (RWCs.md)."""
        r = self.rwc[thread]
        g = self.config.thread_get
        index = addr_mod & 3
        if r.ExtraAddrModBit or g(thread, "ADDR_MOD_SET_Base"):
            index += 4
        ab = f"ADDR_MOD_AB_SEC{index}_"
        dst = f"ADDR_MOD_DST_SEC{index}_"
        bias = f"ADDR_MOD_BIAS_SEC{index}_"
        if g(thread, ab + "SrcAClear"):
            r.SrcA = r.SrcA_Cr = 0
        elif g(thread, ab + "SrcACR"):
            r.SrcA_Cr = (r.SrcA_Cr + g(thread, ab + "SrcAIncr")) & 0x3F
            r.SrcA = r.SrcA_Cr
        else:
            r.SrcA = (r.SrcA + g(thread, ab + "SrcAIncr")) & 0x3F
        if g(thread, ab + "SrcBClear"):
            r.SrcB = r.SrcB_Cr = 0
        elif g(thread, ab + "SrcBCR"):
            r.SrcB_Cr = (r.SrcB_Cr + g(thread, ab + "SrcBIncr")) & 0x3F
            r.SrcB = r.SrcB_Cr
        else:
            r.SrcB = (r.SrcB + g(thread, ab + "SrcBIncr")) & 0x3F
        incr = g(thread, dst + "DestIncr")
        if g(thread, dst + "DestClear"):
            r.Dst = r.Dst_Cr = 0
        elif g(thread, dst + "DestCToCR"):
            r.Dst = (r.Dst + incr) & 0x3FF
            r.Dst_Cr = r.Dst
        elif g(thread, dst + "DestCR"):
            r.Dst_Cr = (r.Dst_Cr + incr) & 0x3FF
            r.Dst = r.Dst_Cr
        else:
            r.Dst = (r.Dst + incr) & 0x3FF
        if update_fidelity:
            if g(thread, dst + "FidelityClear"):
                r.FidelityPhase = 0
            else:
                r.FidelityPhase = (r.FidelityPhase + g(thread, dst + "FidelityIncr")) & 3
        if g(thread, bias + "BiasClear"):
            r.ExtraAddrModBit = 0
        elif g(thread, bias + "BiasIncr") & 3:
            r.ExtraAddrModBit = (r.ExtraAddrModBit + 1) & 1
