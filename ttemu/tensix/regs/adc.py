"""ADCs: the packer / unpacker auto-incrementing address counters.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/ADCs.md: per thread,
for Unpacker 0, Unpacker 1 and the Packers, two channels of X/X_Cr (18 bits),
Y/Y_Cr (13 bits), Z/Z_Cr and W/W_Cr (8 bits). The ``[3]`` is usually indexed by the
current thread, but instructions may pick another.
"""

from __future__ import annotations

from ...record import Factory, Record

WIDTHS = {"X": 18, "Y": 13, "Z": 8, "W": 8}
UNPACKER0, UNPACKER1, PACKERS = 0, 1, 2


class Channel(Record):
    X: int = 0
    X_Cr: int = 0
    Y: int = 0
    Y_Cr: int = 0
    Z: int = 0
    Z_Cr: int = 0
    W: int = 0
    W_Cr: int = 0

    def set(self, name: str, value: int) -> None:
        """Set a counter (``X`` .. ``W_Cr``), truncated to its width."""
        setattr(self, name, value & ((1 << WIDTHS[name[0]]) - 1))


class ADCSet(Record):
    """One unit's two channels."""

    channel: list = Factory(lambda: [Channel(), Channel()])


class ADCs:
    def __init__(self):
        # [thread][unit]: unit 0 = Unpacker 0, 1 = Unpacker 1, 2 = Packers
        self.adc = [[ADCSet(), ADCSet(), ADCSet()] for _ in range(3)]

    def __getitem__(self, thread: int):
        return self.adc[thread]

    def channel(self, thread: int, unit: int, ch: int) -> Channel:
        return self.adc[thread][unit].channel[ch]
