"""The NoC overlay's stream registers, as tt-metal firmware uses them: not for
streaming, but as per-stream counters (circular-buffer "tiles received / acked"
bookkeeping, initialised by TRISC0 at boot).

One 4 KiB block per stream. Registers and their widths (offsets from the arch's
generated register table, ``noc_overlay``; semantics as ttsim's Wormhole model
observably behaves): ``remote_src`` (24 bits), ``remote_dest_buf_start`` and
``remote_dest_buf_size`` (17 bits; writing the size also sets the space available),
``remote_dest_buf_space_available_update`` (write-only: adds ``value >> 6`` to the
space available, modulo 2**17), ``remote_dest_buf_space_available`` (read-only).
Any other overlay register stops the run as unimplemented.
"""

from __future__ import annotations

from ..errors import GuestFault, Unimplemented
from .router import Device

STREAM_BYTES = 0x1000
MASK17 = (1 << 17) - 1


class NocOverlay(Device):
    def __init__(self, region, regs):
        self.name = region.name
        self.base = region.base
        self.streams = region.size // STREAM_BYTES
        self.offsets = {name: off for off, name, rw, reset, unsup in regs}
        self.values = {}  # (stream, name) -> value

    def _decode(self, addr, width, verb):
        off = addr - self.base
        if width != 4 or off & 3:
            raise GuestFault(f"{width}-byte {verb} at 0x{addr:08x}: {self.name} registers are 32-bit")
        stream, reg = divmod(off, STREAM_BYTES)
        for name, o in self.offsets.items():
            if o == reg:
                return stream, name
        raise Unimplemented(f"{verb} of {self.name} stream {stream} register +0x{reg:x} at 0x{addr:08x} "
                            "is not modelled")

    def read(self, core, addr, width):
        stream, name = self._decode(addr, width, "read")
        if name == "remote_dest_buf_space_available_update":
            raise GuestFault(f"read of write-only register {name} at 0x{addr:08x}")
        return self.values.get((stream, name), 0)

    def write(self, core, addr, width, value):
        stream, name = self._decode(addr, width, "write")
        v = self.values
        if name == "remote_src":
            v[stream, name] = value & 0xFFFFFF
        elif name in ("remote_dest_buf_start", "remote_dest_buf_size"):
            v[stream, name] = value & MASK17
            if name == "remote_dest_buf_size":
                v[stream, "remote_dest_buf_space_available"] = value & MASK17
        elif name == "remote_dest_buf_space_available_update":
            key = (stream, "remote_dest_buf_space_available")
            v[key] = (v.get(key, 0) + (value >> 6)) & MASK17
        else:
            raise GuestFault(f"write to read-only register {name} at 0x{addr:08x}")
        return True
