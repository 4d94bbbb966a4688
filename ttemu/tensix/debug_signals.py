"""The Tensix coprocessor's groups on the debug daisychain (``ttemu.mmio.daisychain``
reads them): tt-isa-documentation WormholeB0/TensixTile/DebugDaisychain.md, "Tensix
Frontend", "ADCs" and "RWCs". Where Blackhole puts them differently the positions are
the arch's data (``ArchSpec.debug_hw``).
"""

from __future__ import annotations

from .frontend.thread import FIFO_DEPTH
from .regs.adc import PACKERS

# ADCs: (counter, first bit, width) of the 128 bits
_ADC_BITS = (("X", 0, 18), ("X_Cr", 18, 18), ("Y", 64, 13), ("Y_Cr", 80, 13), ("Z", 96, 8), ("Z_Cr", 104, 8),
             ("W", 112, 8), ("W_Cr", 120, 8))
# Tensix frontend: SignalSel -> thread
_FRONTEND = {12: 0, 8: 1, 4: 2}


def tensix_group(tile, daisy: int, sig: int) -> int | None:
    """The 128 bits of group (``daisy``, ``sig``), or None when not modelled."""
    if daisy == 6 and sig <= 5:
        return _adcs(tile.tensix, sig)
    if daisy == 3 and sig in (2, 3):
        return _rwcs(tile, sig)
    if daisy == 3 and sig == 4:
        spec = tile.arch.debug_hw
        rwcs = tile.tensix.rwcs
        return sum((rwcs[t].FidelityPhase & 3) << (spec.fidelity_bit + 2 * t) for t in range(3))
    if daisy == 1 and sig in _FRONTEND:
        return _frontend(tile.tensix.threads[_FRONTEND[sig]])
    return None


def _adcs(cop, sig):
    """SignalSel 0-5: ADCs[0].Unpacker[0] channel 0 / 1, ADCs[0].Unpacker[1] channel 0 / 1,
    ADCs[2].Packers channel 0 / 1."""
    unit = sig >> 1  # UNPACKER0, UNPACKER1, PACKERS
    ch = cop.adcs.channel(2 if unit == PACKERS else 0, unit, sig & 1)
    return sum((getattr(ch, name) & ((1 << width) - 1)) << bit for name, bit, width in _ADC_BITS)


def _rwcs(tile, sig):
    """SignalSel 2 and 3: each thread's RWC counters, 256 bits over the two."""
    rwcs = tile.tensix.rwcs
    value = 0
    for name, bit, stride, width in tile.arch.debug_hw.rwc_bits:
        for t in range(3):
            value |= (getattr(rwcs[t], name) & ((1 << width) - 1)) << (bit + stride * t)
    return (value >> (128 * (sig - 2))) & ((1 << 128) - 1)


def _frontend(thread):
    """Bits 55-86: the instruction waiting at the wait gate (87: none is); 89: the FIFO
    before the replay expander is full; 90: nothing queued before the replay expander."""
    held = thread.held
    value = (held[0] << 55) if held is not None else 1 << 87
    if len(thread.mid) >= FIFO_DEPTH:
        value |= 1 << 89
    if not thread.mid and not thread.fifo and thread.mop.active is None:
        value |= 1 << 90
    return value
