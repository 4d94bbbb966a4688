"""What the C shim of ``ttemu simlib``'s library calls: one :class:`Host` per process,
made by ``libttsim_init``, one method per ttsim entry point.

Every access first runs the clocks the host gave since the previous call (the shim
counts them; see ``simlib.c``). An access or clock the model refuses ends the process
the way ttsim's library does (its clients, tt-llk's test harness among them, parse
this line): one line on stderr,

    [<clock>] ERROR: <Category>: ttemu: <what, where>

then exit with ttemu's code for the category (5 guest or host fault, 6 unimplemented;
70 for a bug in ttemu, after its traceback; 130 for Ctrl-C while the model ran). At the end of the process the warnings
the tiles collected (behaviour the ISA documentation leaves undefined) are listed on
stderr, one line per site.
"""

from __future__ import annotations

import atexit
import os
import sys

from ..errors import TtemuError
from .chip import Chip
from .pcie import PciFunction

#: ttemu's error categories as the one word ttsim's ERROR lines carry
CATEGORY_WORDS = {"guest fault": "GuestFault", "assertion": "Assertion", "unimplemented": "Unimplemented",
                  "undefined behaviour": "UndefinedBehavior", "host fault": "HostFault", "usage": "UsageError"}


def _fatal(method):
    """Run ``method``; turn an error into the one ERROR line and the process's end."""

    def call(self, *args):
        try:
            return method(self, *args)
        except TtemuError as e:
            word = CATEGORY_WORDS.get(e.category, "Error")
            self.stop(f"[{self.chip.clocks}] ERROR: {word}: ttemu: {' '.join(str(e).split())}", e.exit_code)
        except KeyboardInterrupt:  # Ctrl-C while the model ran: the host cannot resume it
            self.stop("ttemu: interrupted", 130)
        except Exception:
            import traceback

            traceback.print_exc()
            self.stop(f"[{self.chip.clocks}] ERROR: InternalError: ttemu: {method.__name__} failed "
                      "(a bug in ttemu; traceback above)", 70)

    call.__name__ = method.__name__
    call.__doc__ = method.__doc__
    return call


def _same_file(fd_a: int, fd_b: int) -> bool:
    try:
        a, b = os.fstat(fd_a), os.fstat(fd_b)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


class Host:
    def __init__(self, arch: str, *, root: str = "", steps_per_clock: int = 1):
        steps = os.environ.get("TTEMU_STEPS_PER_CLOCK")
        self.chip = Chip(arch, steps_per_clock=int(steps) if steps else steps_per_clock)
        self.pci = PciFunction(self.chip)
        self.root = root
        self.dma = (0, 0)
        self.reported = False
        self._pins = {}  # buffers the C shim holds pointers into (pinned: they stay put)
        atexit.register(self.report)

    def stop(self, line: str, code: int):
        """End the process with ``line``: on stderr, and on stdout as ttsim prints it (tt-llk's
        pytest plugin reads a crashed test's ERROR line from its captured stdout), once when
        both are the same file."""
        self.report()
        print(line, file=sys.stderr, flush=True)
        try:
            if not _same_file(1, 2):
                print(line, flush=True)
            sys.stdout.flush()
        finally:
            os._exit(code)

    def report(self):
        """The tiles' warnings, once (at exit, or before an error ends the process)."""
        if self.reported:
            return
        self.reported = True
        for xy, tile in sorted(self.chip.tiles.items()):
            for line in tile.diagnostics.lines():
                print(f"ttemu: tile {xy[0]}-{xy[1]}: {line}", file=sys.stderr)
        sys.stderr.flush()

    def set_dma(self, rd: int, wr: int):
        """The host's DMA callbacks (function addresses; the DMA engine is not modelled,
        so nothing calls them yet)."""
        self.dma = (rd, wr)

    def tlb_registers(self):
        return self.pci.tlb_registers()

    def fast_path(self):
        """What the C shim needs to serve L1 accesses itself (simlib.c): BAR0's TLB windows,
        the number of TLB entries, the bytes of an entry, the address of the chip's
        ``running`` byte. ``TTEMU_SIMLIB_FAST=0`` in the environment gives it no windows:
        every access then takes the Python path (the reference the fast path is tested
        against, tests/test_simlib_fast.py)."""
        import ctypes

        windows, entries = self.pci.fast_windows()
        if os.environ.get("TTEMU_SIMLIB_FAST", "1") == "0":
            windows = ()
        running = self._pins["running"] = ctypes.c_char.from_buffer(self.chip.running)
        return windows, entries, self.pci.spec.tlb_entry_bytes, ctypes.addressof(running)

    def window(self, entry):
        """For the C shim: where TLB ``entry``, as configured now, reaches L1 directly:
        (address of the Tensix tile's L1 bytes, their size, address of its translated-code
        map (one byte a word), the NoC address of the window's first byte); () for
        anything else (another kind of node, a multicast, a configuration the access
        path refuses), which the shim leaves to that path."""
        try:
            _, xy, base, _ = self.pci.target(entry)
        except TtemuError:
            return ()
        if xy is None or self.chip.kind.get(xy) != "tensix":
            return ()
        import ctypes

        tile = self.chip.tile(*xy)
        pins = self._pins.get(xy)
        if pins is None:  # the buffers stay put while exported (as tlb_registers' does)
            pins = self._pins[xy] = (ctypes.c_char.from_buffer(tile.l1), ctypes.c_char.from_buffer(tile.is_code))
        l1, code = pins
        return ctypes.addressof(l1), len(tile.l1), ctypes.addressof(code), base

    @_fatal
    def clock(self, clocks):
        """Clocks the host gave, run before an access the shim serves itself."""
        self.chip.clock(clocks)

    @_fatal
    def config_rd32(self, bdf, offset):
        return self.pci.config_read(bdf, offset)

    @_fatal
    def config_wr32(self, bdf, offset, value):
        self.pci.config_write(bdf, offset, value)

    @_fatal
    def mem_rd(self, clocks, paddr, buf):
        if clocks:
            self.chip.clock(clocks)
        buf[:] = self.pci.read(paddr, len(buf))

    @_fatal
    def mem_wr(self, clocks, paddr, data):
        if clocks:
            self.chip.clock(clocks)
        self.pci.write(paddr, bytes(data))

    @_fatal
    def tile_rd(self, clocks, x, y, addr, buf):
        if clocks:
            self.chip.clock(clocks)
        buf[:] = self.chip.read(self.chip.node(x, y), addr, len(buf))

    @_fatal
    def tile_wr(self, clocks, x, y, addr, data):
        if clocks:
            self.chip.clock(clocks)
        self.chip.write(self.chip.node(x, y), addr, bytes(data))

    @_fatal
    def exit(self, clocks):
        """``libttsim_exit``: clocks given since the last access change nothing the host
        can see any more, so they are not run."""
        self.report()
