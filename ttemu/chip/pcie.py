"""The chip's PCIe function as a host driver (tt-umd) sees it: configuration space,
the memory BARs, TLB windows onto the NoC, the iATU and DMA registers. Layout per
arch: :class:`ttemu.arch.chip.PcieSpec` (what ttsim's library presents).

* Configuration space (device 0 only; any other device number reads all ones, which
  ends a host's enumeration): vendor 0x1E52 and the arch's device id, command/status
  and header words (stored), class 0x12 (processing accelerator) with the revision,
  the BARs (64-bit, non-prefetchable memory), interrupt line 0xFF, zeros elsewhere.
* BAR0: TLB windows (an access goes to the NoC node and address its TLB entry names;
  multicast entries write every Tensix tile of their rectangle), the TLB entries
  themselves, windows onto the ARC (Wormhole) and the PCIe tile's NIU registers
  (Blackhole: NOC_NODE_ID, NIU_CFG_0 with bit 14, coordinate translation, set).
* BAR2 (32-bit accesses): the iATU's 16 outbound and 16 inbound regions, stored as
  written (they map the device's view of host memory, which nothing here uses), and
  the DMA engine's registers (stored; ringing a doorbell is not modelled).
* BAR4: Wormhole, the top 32 MiB of BAR0; Blackhole, 4-GiB TLB windows.
"""

from __future__ import annotations

from ..errors import HostFault, Unimplemented

VENDOR = 0x1E52
CLASS_CODE = 0x12000000  # processing accelerator
_BAR_FLAGS = 0x4  # 64-bit memory, not prefetchable


def _bits(value: int, at: int, width: int) -> int:
    return (value >> at) & ((1 << width) - 1)


class PciFunction:
    def __init__(self, chip):
        self.chip = chip
        self.spec = spec = chip.spec.pcie_spec
        self.config = {0x04: 0, 0x0C: 0, 0x3C: 0xFF}
        for index, base, _ in spec.bars:
            self.config[0x10 + 4 * index] = (base & 0xFFFFFFFF) | _BAR_FLAGS
            self.config[0x14 + 4 * index] = base >> 32
        self.bars = {index: (base, size) for index, base, size in spec.bars}
        bar0 = self.bars[0][0]
        #: BAR0's TLB windows as (first address, end, first entry, window bits, offset mask)
        self.windows = tuple((bar0 + k.base, bar0 + k.base + k.size, k.first, k.window_bits, k.mask)
                             for k in spec.tlb_windows)
        kinds = spec.tlb_windows + ((spec.bar4_tlbs,) if spec.bar4_tlbs else ())
        entries = max(k.first + k.count for k in kinds)
        self.tlb_config = bytearray(entries * spec.tlb_entry_bytes)
        self.tlb_config_end = spec.tlb_config_base + len(self.tlb_config)
        self.kind_of = {k.first + i: k for k in kinds for i in range(k.count)}
        self.decoded: dict[int, tuple] = {}  # TLB entry -> (its bytes, what _decode made of them)
        self.iatu: dict[int, int] = {}
        self.dma: dict[int, int] = {}
        regs = {name: off for off, name, *_ in chip.arch.registers["noc0_regs"]}
        self.niu_regs = {regs["noc_node_id"]: self._node_id, regs["niu_cfg_0"]: self._niu_cfg_0}

    # -- configuration space ----------------------------------------------------------
    def _device(self, bdf: int, offset: int):
        if bdf >> 8 or bdf & 7:
            raise HostFault(f"PCI configuration access to bus/device/function 0x{bdf:x}: bus and function must be 0")
        if offset & 3 or not 0 <= offset < 0x100:
            raise HostFault(f"PCI configuration access at offset 0x{offset:x}: 4-byte aligned, below 0x100")
        return (bdf >> 3) & 0x1F

    def config_read(self, bdf: int, offset: int) -> int:
        if self._device(bdf, offset):
            return 0xFFFFFFFF  # no such device
        if offset == 0x00:
            return VENDOR | (self.spec.device_id << 16)
        if offset == 0x08:
            return CLASS_CODE | self.spec.revision
        return self.config.get(offset, 0)

    def config_write(self, bdf: int, offset: int, value: int) -> None:
        if self._device(bdf, offset):
            raise HostFault(f"PCI configuration write to device {(bdf >> 3) & 0x1F}: there is only device 0")
        if offset in (0x04, 0x0C):
            self.config[offset] = (self.config[offset] & ~0xFFFF) | (value & 0xFFFF)
        elif offset == 0x3C:
            self.config[offset] = value & 0xFF
        elif 0x10 <= offset < 0x28:
            index = (offset - 0x10) // 8 * 2
            if index not in self.bars:
                return
            base, size = self.bars[index]
            mask = ~(size - 1) & 0xFFFF_FFFF_FFFF_FFFF
            mask = mask >> 32 if offset & 4 else mask & 0xFFFFFFF0
            self.config[offset] = (self.config[offset] & ~mask) | (value & mask)
        elif offset != 0x30:  # the expansion ROM BAR ignores writes
            raise Unimplemented(f"PCI configuration write at offset 0x{offset:x}")

    # -- memory ---------------------------------------------------------------------
    def _bar(self, paddr: int, n: int):
        for index, (base, size) in self.bars.items():
            if base <= paddr < base + size:
                if paddr + n > base + size:
                    raise HostFault(f"{n}-byte access at 0x{paddr:x} runs past the end of BAR{index}")
                return index, paddr - base
        raise HostFault(f"{n}-byte access at physical address 0x{paddr:x}: no BAR there "
                        f"({', '.join(f'BAR{i} 0x{b:x}+0x{s:x}' for i, (b, s) in self.bars.items())})")

    def _tlb_index(self, paddr):
        """-> (TLB entry, offset in its window) when ``paddr`` is in a BAR0 TLB window."""
        for lo, hi, first, bits, mask in self.windows:
            if lo <= paddr < hi:
                rel = paddr - lo
                return first + (rel >> bits), rel & mask
        return None

    def read(self, paddr: int, n: int) -> bytes:
        hit = self._tlb_index(paddr)
        if hit is not None:
            return self._window(hit[0], hit[1], n, None)
        index, off = self._bar(paddr, n)
        if index == 0:
            return self._bar0(off, n, None)
        if index == 2:
            return self._bar2(off, n, None).to_bytes(4, "little")
        return self._bar4(off, n, None)

    def write(self, paddr: int, data: bytes) -> None:
        n = len(data)
        hit = self._tlb_index(paddr)
        if hit is not None:
            self._window(hit[0], hit[1], n, data)
            return
        index, off = self._bar(paddr, n)
        if index == 0:
            self._bar0(off, n, data)
        elif index == 2:
            self._bar2(off, n, data)
        else:
            self._bar4(off, n, data)

    # -- BAR0 ------------------------------------------------------------------------
    def _bar0(self, off, n, data):
        spec = self.spec
        for kind in spec.tlb_windows:
            if kind.base <= off < kind.base + kind.size:
                rel = off - kind.base
                return self._window(kind.first + (rel >> kind.window_bits), rel & kind.mask, n, data)
        if spec.tlb_config_base <= off < self.tlb_config_end:
            return self._tlb_entry(off - spec.tlb_config_base, n, data)
        for base, size, node, noc_addr in spec.node_windows:
            if base <= off < base + size:
                return self._node(node, noc_addr + off - base, n, data)
        for base, noc in spec.niu_windows:
            if base <= off < base + 0x2000:
                return self._niu(noc, off - base, n, data)
        verb = "write to" if data is not None else "read of"
        raise Unimplemented(f"{n}-byte {verb} BAR0 offset 0x{off:x}: nothing is modelled there")

    def _tlb_entry(self, rel, n, data):
        if n not in (4, 8) or rel % n:
            raise HostFault(f"{n}-byte access to the TLB configuration at 0x{self.spec.tlb_config_base + rel:x}: "
                            "aligned 4- or 8-byte accesses only")
        if n == 8 and self.spec.tlb_entry_bytes % 8:
            raise HostFault(f"8-byte access to the TLB configuration at 0x{self.spec.tlb_config_base + rel:x}: "
                            "this arch's entries are 32-bit words")
        if data is None:
            return bytes(self.tlb_config[rel:rel + n])
        self.tlb_config[rel:rel + n] = data
        return None

    def tlb_registers(self):
        """Where the TLB configuration registers are, for the C shim to take the host's
        writes there itself: (first physical address, end, the address of their bytes,
        a bit mask of the write widths an entry takes). The buffer stays put: it is
        exported to ctypes, which forbids resizing it."""
        import ctypes

        self._pinned = ctypes.c_char.from_buffer(self.tlb_config)
        lo = self.bars[0][0] + self.spec.tlb_config_base
        widths = (1 << 4) | ((1 << 8) if self.spec.tlb_entry_bytes % 8 == 0 else 0)
        return lo, lo + len(self.tlb_config), ctypes.addressof(self._pinned), widths

    def _decode(self, entry, raw):
        """TLB ``entry``'s configuration ``raw`` -> (NoC 0 node or None for a multicast,
        the NoC address of its window's first byte, the multicast's Tensix tiles)."""
        kind = self.kind_of[entry]
        f = kind.fields
        base = (raw & ((1 << f["x_end"]) - 1)) << kind.window_bits
        if _bits(raw, f["linked"], 1):
            raise Unimplemented(f"TLB {entry}: linked transactions (config 0x{raw:x}) are not modelled")
        noc = _bits(raw, f["noc_sel"], 1)
        end = (_bits(raw, f["x_end"], 6), _bits(raw, f["y_end"], 6))
        if not _bits(raw, f["mcast"], 1):
            return self.chip.node(*end, noc), base, ()
        start = self.chip.node(_bits(raw, f["x_start"], 6), _bits(raw, f["y_start"], 6), noc)
        last = self.chip.node(*end, noc)
        (x0, x1), (y0, y1) = sorted((start[0], last[0])), sorted((start[1], last[1]))
        tiles = tuple(xy for xy in self.chip.spec.tensix if x0 <= xy[0] <= x1 and y0 <= xy[1] <= y1)
        return None, base, tiles

    def target(self, entry):
        """What TLB ``entry`` reaches as configured now: (its configuration bytes, NoC 0
        node or None for a multicast, the NoC address of the window's first byte, the
        multicast's Tensix tiles)."""
        eb = self.spec.tlb_entry_bytes
        raw = self.tlb_config[entry * eb:(entry + 1) * eb]
        target = self.decoded.get(entry)
        if target is None or target[0] != raw:  # (the shim writes entries without telling)
            target = self.decoded[entry] = (raw, *self._decode(entry, int.from_bytes(raw, "little")))
        return target

    def fast_windows(self):
        """BAR0's TLB windows for the library's C shim: (first physical address, end,
        first entry, window bits) each, and the number of entries."""
        return tuple((lo, hi, first, bits) for lo, hi, first, bits, _ in self.windows), len(self.kind_of)

    def _window(self, entry, offset, n, data):
        """An access at ``offset`` in TLB ``entry``'s window."""
        _, xy, base, tiles = self.target(entry)
        if offset + n > self.kind_of[entry].mask + 1:
            raise HostFault(f"{n}-byte access at offset 0x{offset:x} of TLB {entry} runs past its "
                            f"{self.kind_of[entry].mask + 1:#x}-byte window")
        if xy is not None:
            if data is None:
                return self.chip.read(xy, base | offset, n)
            self.chip.write(xy, base | offset, data)
            return None
        if data is None:
            raise HostFault(f"read through TLB {entry}, which is set to multicast")
        for xy in tiles:
            self.chip.write(xy, base | offset, data)
        return None

    def _node(self, xy, addr, n, data):
        if data is None:
            return self.chip.read(xy, addr, n)
        self.chip.write(xy, addr, data)
        return None

    # -- the PCIe tile's NIU registers (Blackhole) --------------------------------------------
    def _niu(self, noc, off, n, data):
        fn = self.niu_regs.get(off)
        if fn is None or n != 4 or data is not None:
            verb = "write to" if data is not None else "read of"
            raise Unimplemented(f"{n}-byte {verb} NIU {noc} register 0x{off:x} of the PCIe tile: only NOC_NODE_ID "
                                "and NIU_CFG_0 reads are modelled")
        return fn(noc).to_bytes(4, "little")

    def _node_id(self, noc):
        spec, noc_spec = self.chip.spec, self.chip.arch.noc
        x, y = spec.pcie[0]
        if noc:
            x, y = spec.grid[0] - 1 - x, spec.grid[1] - 1 - y
        return x | (y << 6) | noc_spec.node_id_fields[noc]

    def _niu_cfg_0(self, noc):
        return (1 << 14) if self.chip.spec.noc_translation else 0

    # -- BAR2 ------------------------------------------------------------------------
    def _bar2(self, off, n, data):
        if n != 4 or off & 3:
            raise HostFault(f"{n}-byte access at BAR2 offset 0x{off:x}: aligned 32-bit accesses only")
        value = None if data is None else int.from_bytes(data, "little")
        spec = self.spec
        if spec.iatu[0] <= off < spec.iatu[1]:
            rel = off - spec.iatu[0]
            if rel % 0x100 not in spec.iatu_regs:
                raise Unimplemented(f"iATU register 0x{rel % 0x100:x} of region slot {rel // 0x100} "
                                    f"(BAR2 offset 0x{off:x})")
            return self._store(self.iatu, rel, value)
        if spec.dma[0] <= off < spec.dma[1]:
            if value is not None and off in spec.dma_doorbells:
                raise Unimplemented(f"DMA doorbell (BAR2 offset 0x{off:x} = 0x{value:x}): the DMA engine is "
                                    "not modelled")
            return self._store(self.dma, off, value)
        raise Unimplemented(f"BAR2 offset 0x{off:x}: nothing is modelled there")

    @staticmethod
    def _store(regs, key, value):
        if value is None:
            return regs.get(key, 0)
        regs[key] = value
        return None

    # -- BAR4 ------------------------------------------------------------------------
    def _bar4(self, off, n, data):
        kind = self.spec.bar4_tlbs
        if kind is None:  # the top of BAR0
            return self._bar0(self.bars[0][1] - self.bars[4][1] + off, n, data)
        return self._window(kind.first + (off >> kind.window_bits), off & kind.mask, n, data)
