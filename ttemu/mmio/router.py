"""The MMIO router: one entry per region of the arch's address map.

A device implements ``read(core, addr, width) -> int | None`` and
``write(core, addr, width, value) -> bool``. ``None`` / ``False`` mean "not ready":
the access stalls and the core retries it later (a full FIFO, an empty mailbox, a
TTSync wait). ``core`` is the accessing core's name, or ``None`` for the host (the
CLI's ``--write`` and the Python API). Errors are raised as typed exceptions.
"""

from __future__ import annotations

from ..errors import GuestFault, Unimplemented


class Device:
    """Base device: every access is unimplemented until a subclass says otherwise."""

    name = "device"

    def read(self, core, addr, width):
        raise Unimplemented(f"read of {self.name} register 0x{addr:08x} is not modelled")

    def write(self, core, addr, width, value):
        raise Unimplemented(f"write of 0x{value:x} to {self.name} register 0x{addr:08x} is not modelled")

    def peek(self, core, addr):
        """The 32-bit word a read would return, for a debugger: only where reading has
        no side effect and cannot stall; else None."""
        return None


class RegisterBank(Device):
    """Plain registers listed by the arch's generated register table.

    ``rw``/``ro`` registers read back their value (reset value, or 0 if the source
    gives none); ``wo`` registers store but read as a fault; registers the source
    marks unsupported, and offsets it does not list, stop the run as unimplemented.
    A bank built with ``writable=False`` (the NoC and its overlay: transfers are not
    modelled) refuses every write as unimplemented rather than storing it silently.
    Subclasses hook individual registers through ``hooks``: offset -> (read, write).
    """

    def __init__(self, name, base, regs, writable=True):
        self.name = name
        self.base = base
        self.writable = writable  # False: registers with side effects the model lacks (NoC)
        self.regs = {off: (rname, rw, unsup) for off, rname, rw, reset, unsup in regs}
        self.values = {off: (reset or 0) for off, rname, rw, reset, unsup in regs}
        self.hooks = {}

    def _reg(self, addr, width, what):
        off = addr - self.base
        if width != 4 or off & 3:
            raise GuestFault(f"{width}-byte {what} at 0x{addr:08x}: {self.name} registers are 32-bit")
        return off

    def read(self, core, addr, width):
        off = self._reg(addr, width, "read")
        hook = self.hooks.get(off)
        if hook is not None:
            return hook[0](core, addr)
        reg = self.regs.get(off)
        if reg is None or reg[2]:
            raise Unimplemented(f"read of {self.name} register {self._label(off)} at 0x{addr:08x} is not modelled")
        if reg[1] == "wo":
            raise GuestFault(f"read of write-only register {reg[0]} at 0x{addr:08x}")
        return self.values[off]

    def peek(self, core, addr):
        off = addr - self.base
        reg = self.regs.get(off)
        if off & 3 or off in self.hooks or reg is None or reg[2] or reg[1] == "wo":
            return None
        return self.values[off]

    def write(self, core, addr, width, value):
        off = self._reg(addr, width, "write")
        hook = self.hooks.get(off)
        if hook is not None:
            return hook[1](core, addr, value)
        reg = self.regs.get(off)
        if reg is None or reg[2] or not self.writable:
            raise Unimplemented(f"write of 0x{value:x} to {self.name} register {self._label(off)} "
                                f"at 0x{addr:08x} is not modelled")
        if reg[1] == "ro":
            raise GuestFault(f"write to read-only register {reg[0]} at 0x{addr:08x}")
        self.values[off] = value
        return True

    def _label(self, off):
        reg = self.regs.get(off)
        return reg[0] if reg else f"+0x{off:x}"


class Router:
    """Maps an address to its (region, device) by 4 KiB page."""

    PAGE = 12

    def __init__(self, arch):
        self.arch = arch
        self.pages = {}  # page -> [region, device or None]
        for region in arch.address_map:
            for page in range(region.base >> self.PAGE, (region.end - 1 >> self.PAGE) + 1):
                self.pages[page] = [region, None]

    def attach(self, region_name, device):
        found = False
        for entry in self.pages.values():
            if entry[0].name == region_name:
                entry[1] = device
                found = True
        if not found:
            raise KeyError(region_name)

    def lookup(self, addr):
        """-> (region, device) or None when the address is outside the map."""
        return self.pages.get(addr >> self.PAGE)

    def region_name(self, addr):
        e = self.pages.get(addr >> self.PAGE)
        return e[0].name if e else None
