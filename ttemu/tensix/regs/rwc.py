"""RWCs: the Matrix Unit / Vector Unit auto-incrementing address counters, one set
per thread, and ``ApplyAddrMod``.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/RWCs.md. The AddrMod
tables live in ThreadConfig (ADDR_MOD_AB_SEC<i>, ADDR_MOD_DST_SEC<i>,
ADDR_MOD_BIAS_SEC<i>, selected by the instruction's two AddrMod bits plus 4 when
ExtraAddrModBit or ADDR_MOD_SET_Base is set).

Blackhole (``ArchSpec.addr_mod_bits`` = 3): there is no RWCs page for Blackhole; its
instructions carry a three-bit AddrMod (assembly.yaml: addr_mode at bits 16:14, tt-llk's
ckernel_addrmod.h ADDR_MOD_0..7 written straight into ADDR_MOD_*_SEC0..7) and its
ThreadConfig has no ADDR_MOD_SET_Base (BH cfg_defines.h), so the three bits select the
slot by themselves. How ExtraAddrModBit would combine with them is not documented
(tt-llk's Blackhole code never sets ADDR_MOD_BIAS; ttsim refuses a non-zero bias), so
an AddrMod applied while it is set stops the run.
"""

from __future__ import annotations

from ...errors import Unimplemented
from ...record import Record


class RWC(Record):
    Dst: int = 0  # uint10
    Dst_Cr: int = 0
    SrcA: int = 0  # uint6
    SrcA_Cr: int = 0
    SrcB: int = 0  # uint6
    SrcB_Cr: int = 0
    FidelityPhase: int = 0  # uint2
    ExtraAddrModBit: int = 0  # uint1
    Sp: int = 0  # uint10, Blackhole only (the Vector Unit's stack pointer: SFPLOAD / SFPSTORE.md)


class RWCs:
    def __init__(self, config, addr_mod_bits: int = 2):
        self.config = config
        self.addr_mod_bits = addr_mod_bits  # ArchSpec.addr_mod_bits
        self.rwc = [RWC(), RWC(), RWC()]
        self._names = {}  # index -> the ADDR_MOD_*_SEC<index> field names, in decode order

    def __getitem__(self, thread: int) -> RWC:
        return self.rwc[thread]

    def _addr_mod(self, thread: int, index: int):
        """The ADDR_MOD_{AB,DST,BIAS}_SEC<index> fields of a thread's ThreadConfig, decoded
        once and kept until a ThreadConfig word holding one of them is written (the
        config's derived values); None for a slot of all zero fields."""
        values = self.config.thread_values[thread]
        key = ("addr_mod", index)
        mod = values.get(key, False)
        if mod is False:
            names = self._names.get(index)
            if names is None:
                ab = f"ADDR_MOD_AB_SEC{index}_"
                dst = f"ADDR_MOD_DST_SEC{index}_"
                bias = f"ADDR_MOD_BIAS_SEC{index}_"
                names = self._names[index] = (
                    ab + "SrcAClear", ab + "SrcACR", ab + "SrcAIncr",
                    ab + "SrcBClear", ab + "SrcBCR", ab + "SrcBIncr",
                    dst + "DestClear", dst + "DestCToCR", dst + "DestCR", dst + "DestIncr",
                    dst + "FidelityClear", dst + "FidelityIncr", bias + "BiasClear", bias + "BiasIncr")
            mod = tuple(values[n] for n in names)
            if not any(mod):  # every counter keeps its (masked) value
                mod = None
            values.keep(key, mod, names)
        return mod

    def apply_addr_mod(self, thread: int, addr_mod: int, update_fidelity: bool = True) -> None:
        """ApplyAddrMod (RWCs.md). A slot of all zero fields changes nothing (every
        counter is kept masked to its width) and returns at once."""
        r = self.rwc[thread]
        if self.addr_mod_bits == 3:
            index = addr_mod & 7
            if r.ExtraAddrModBit:
                raise Unimplemented(f"ADDR_MOD_{index} applied with the ADDR_MOD bias bit set (ExtraAddrModBit, "
                                    "from an earlier BiasIncr): how it combines with a three-bit AddrMod is not "
                                    "documented for Blackhole")
        else:
            index = addr_mod & 3
            if r.ExtraAddrModBit or self.config.thread_values[thread]["ADDR_MOD_SET_Base"]:
                index += 4
        mod = self._addr_mod(thread, index)
        if mod is None:
            return
        (a_clear, a_cr, a_incr, b_clear, b_cr, b_incr, d_clear, d_ctocr, d_cr, d_incr,
         f_clear, f_incr, bias_clear, bias_incr) = mod
        if a_clear:
            r.SrcA = r.SrcA_Cr = 0
        elif a_cr:
            r.SrcA_Cr = (r.SrcA_Cr + a_incr) & 0x3F
            r.SrcA = r.SrcA_Cr
        else:
            r.SrcA = (r.SrcA + a_incr) & 0x3F
        if b_clear:
            r.SrcB = r.SrcB_Cr = 0
        elif b_cr:
            r.SrcB_Cr = (r.SrcB_Cr + b_incr) & 0x3F
            r.SrcB = r.SrcB_Cr
        else:
            r.SrcB = (r.SrcB + b_incr) & 0x3F
        if d_clear:
            r.Dst = r.Dst_Cr = 0
        elif d_ctocr:
            r.Dst = (r.Dst + d_incr) & 0x3FF
            r.Dst_Cr = r.Dst
        elif d_cr:
            r.Dst_Cr = (r.Dst_Cr + d_incr) & 0x3FF
            r.Dst = r.Dst_Cr
        else:
            r.Dst = (r.Dst + d_incr) & 0x3FF
        if update_fidelity:
            if f_clear:
                r.FidelityPhase = 0
            else:
                r.FidelityPhase = (r.FidelityPhase + f_incr) & 3
        if bias_clear:
            r.ExtraAddrModBit = 0
        elif bias_incr & 3:
            r.ExtraAddrModBit = (r.ExtraAddrModBit + 1) & 1
