"""Miscellaneous Unit (tt-isa-documentation
WormholeB0/TensixTile/TensixCoprocessor/MiscellaneousUnit.md): the ADC instructions
(ADCs.md), SETDVALID and NOP.

The ``U0`` / ``U1`` / ``PK`` bits (23..21) are the table's ``CntSetMask`` (bit 0 U0,
bit 1 U1, bit 2 PK). ``ThreadOverride`` (bits 18..19 of SETADCXY, SETADCZW, INCADCXY,
INCADCZW, ADDRCRXY, ADDRCRZW) is not a table field: it is read from ``t.word`` (the
Tensix word being executed) when the frontend provides it, else it reads as 0 (the
``TT_`` syntax cannot set it).
"""

from __future__ import annotations

from ..regs.src import MATH
from . import Unit, op, raw_word

#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset()


def _which_thread(t, override: int) -> int:
    """``ThreadOverride == 0 ? CurrentThread : ThreadOverride - 1``."""
    return t.index if override == 0 else override - 1


def _u3(vals):
    """The four counter values of SETADCXY / SETADCZW / INCADC* / ADDRCR* are u3
    (SETADCXY.md); bits 19:18 above Y1Val are ThreadOverride, which Blackhole's table
    (assembly.yaml) counts into a 6-bit Ch1_Y (tt-llk's Blackhole *_THREAD_OVERRIDE
    macros put the thread there), so the value is its low three bits."""
    return [v & 7 for v in vals]


class MiscUnit(Unit):
    name = "misc"

    def __init__(self, cop):
        self.cop = cop

    @op
    def NOP(self, t):
        return None

    def _adcs(self, t, mask, override):
        """The ADC sets selected by U0/U1/PK of thread WhichThread."""
        thread = _which_thread(t, override)
        return [self.cop.adcs[thread][u] for u in range(3) if (mask >> u) & 1]

    # -- set ---------------------------------------------------------------------------
    @op
    def SETADC(self, t, Value, DimensionIndex, ChannelIndex, CntSetMask):
        """SETADC.md: set one counter and its _Cr to the 18-bit NewValue (truncated to
        the counter's width) in the selected ADCs of thread ThreadOverride - 1, where
        ThreadOverride = NewValue >> 16 (0: the current thread)."""
        name = "XYZW"[DimensionIndex]
        for adc in self._adcs(t, CntSetMask, Value >> 16):
            ch = adc.channel[ChannelIndex]
            ch.set(name, Value)
            ch.set(name + "_Cr", Value)

    @op
    def SETADCXX(self, t, x_start, x_end2, CntSetMask):
        """SETADCXX.md: Channel[0].X/X_Cr = X0Val, Channel[1].X/X_Cr = X1Val (current
        thread)."""
        for adc in self._adcs(t, CntSetMask, 0):
            for ch, v in ((adc.channel[0], x_start), (adc.channel[1], x_end2)):
                ch.set("X", v)
                ch.set("X_Cr", v)

    def _set_pair(self, t, dims, BitMask, vals, CntSetMask):
        for adc in self._adcs(t, CntSetMask, (raw_word(t) >> 18) & 3):
            for k, v in enumerate(_u3(vals)):
                if (BitMask >> k) & 1:
                    ch = adc.channel[k >> 1]
                    ch.set(dims[k & 1], v)
                    ch.set(dims[k & 1] + "_Cr", v)

    @op
    def SETADCXY(self, t, BitMask, Ch0_X, Ch0_Y, Ch1_X, Ch1_Y, CntSetMask):
        """SETADCXY.md: for each of X0, Y0, X1, Y1 selected by the bit mask, set the
        counter and its _Cr to the 3-bit value."""
        self._set_pair(t, "XY", BitMask, (Ch0_X, Ch0_Y, Ch1_X, Ch1_Y), CntSetMask)

    @op
    def SETADCZW(self, t, BitMask, Ch0_X, Ch0_Y, Ch1_X, Ch1_Y, CntSetMask):
        """SETADCZW.md: as SETADCXY for Z0, W0, Z1, W1."""
        self._set_pair(t, "ZW", BitMask, (Ch0_X, Ch0_Y, Ch1_X, Ch1_Y), CntSetMask)

    # -- increment ---------------------------------------------------------------------
    def _inc_pair(self, t, dims, vals, CntSetMask):
        for adc in self._adcs(t, CntSetMask, (raw_word(t) >> 18) & 3):
            for k, v in enumerate(_u3(vals)):
                ch, name = adc.channel[k >> 1], dims[k & 1]
                ch.set(name, getattr(ch, name) + v)

    @op
    def INCADCXY(self, t, Ch0_X, Ch0_Y, Ch1_X, Ch1_Y, CntSetMask):
        """INCADCXY.md: X0 += X0Inc, Y0 += Y0Inc, X1 += X1Inc, Y1 += Y1Inc (wrapping at
        the counter width; _Cr untouched)."""
        self._inc_pair(t, "XY", (Ch0_X, Ch0_Y, Ch1_X, Ch1_Y), CntSetMask)

    @op
    def INCADCZW(self, t, Ch0_X, Ch0_Y, Ch1_X, Ch1_Y, CntSetMask):
        """INCADCZW.md: as INCADCXY for Z0, W0, Z1, W1."""
        self._inc_pair(t, "ZW", (Ch0_X, Ch0_Y, Ch1_X, Ch1_Y), CntSetMask)

    def _addrcr_pair(self, t, dims, BitMask, vals, CntSetMask):
        for adc in self._adcs(t, CntSetMask, (raw_word(t) >> 18) & 3):
            for k, v in enumerate(_u3(vals)):
                if (BitMask >> k) & 1:
                    ch, name = adc.channel[k >> 1], dims[k & 1]
                    ch.set(name + "_Cr", getattr(ch, name + "_Cr") + v)
                    ch.set(name, getattr(ch, name + "_Cr"))

    @op
    def ADDRCRXY(self, t, BitMask, Ch0_X, Ch0_Y, Ch1_X, Ch1_Y, CntSetMask):
        """ADDRCRXY.md: for each selected counter, _Cr += Inc, then counter = _Cr."""
        self._addrcr_pair(t, "XY", BitMask, (Ch0_X, Ch0_Y, Ch1_X, Ch1_Y), CntSetMask)

    @op
    def ADDRCRZW(self, t, BitMask, Ch0_X, Ch0_Y, Ch1_X, Ch1_Y, CntSetMask):
        """ADDRCRZW.md: as ADDRCRXY for Z0, W0, Z1, W1."""
        self._addrcr_pair(t, "ZW", BitMask, (Ch0_X, Ch0_Y, Ch1_X, Ch1_Y), CntSetMask)

    # -- SrcA / SrcB hand-over ---------------------------------------------------------
    @op
    def SETDVALID(self, t, setvalid):
        """SETDVALID.md: FlipSrcA (bit 0) / FlipSrcB (bit 1): the unpackers' current
        bank is given to the Matrix Unit, the unpacker moves to the other bank and its
        SrcRow[CurrentThread] becomes ThreadConfig SRCA_SET_Base / SRCB_SET_Base << 4."""
        src = self.cop.src
        rows = src.src_row
        cfg = self.cop.config
        for bit, which, base in ((0, "A", "SRCA_SET_Base"), (1, "B", "SRCB_SET_Base")):
            if (setvalid >> bit) & 1:
                src.allowed[which][src.unpack_bank[which]] = MATH
                src.unpack_bank[which] ^= 1
                rows[which][t.index] = cfg.thread_get(t.index, base) << 4
