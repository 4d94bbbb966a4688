"""Plain memory behind a node that has nothing more to model (DRAM channels, an
Ethernet tile's L1, the ARC's windows): sparse 64 KiB pages, zero until written."""

from __future__ import annotations

_PAGE_BITS = 16
_PAGE = 1 << _PAGE_BITS


class SparseMemory:
    def __init__(self, size: int, name: str):
        self.size = size
        self.name = name
        self.pages: dict[int, bytearray] = {}

    def contains(self, addr: int, n: int) -> bool:
        return 0 <= addr and addr + n <= self.size

    def read(self, addr: int, n: int) -> bytes:
        out = bytearray(n)
        done = 0
        while done < n:
            page, off = divmod(addr + done, _PAGE)
            k = min(n - done, _PAGE - off)
            data = self.pages.get(page)
            if data is not None:
                out[done:done + k] = data[off:off + k]
            done += k
        return bytes(out)

    def write(self, addr: int, data) -> None:
        data = memoryview(data).cast("B")
        n = len(data)
        done = 0
        while done < n:
            page, off = divmod(addr + done, _PAGE)
            k = min(n - done, _PAGE - off)
            buf = self.pages.get(page)
            if buf is None:
                buf = self.pages[page] = bytearray(_PAGE)
            buf[off:off + k] = data[done:done + k]
            done += k
