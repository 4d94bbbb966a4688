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

    @staticmethod
    def _pieces(addr: int, n: int):
        """(page, offset in the page, offset in the access, length) of each page's part."""
        done = 0
        while done < n:
            page, off = divmod(addr + done, _PAGE)
            k = min(n - done, _PAGE - off)
            yield page, off, done, k
            done += k

    def read(self, addr: int, n: int) -> bytes:
        out = bytearray(n)
        for page, off, at, k in self._pieces(addr, n):
            data = self.pages.get(page)
            if data is not None:
                out[at:at + k] = data[off:off + k]
        return bytes(out)

    def write(self, addr: int, data) -> None:
        data = memoryview(data).cast("B")
        for page, off, at, k in self._pieces(addr, len(data)):
            buf = self.pages.get(page)
            if buf is None:
                buf = self.pages[page] = bytearray(_PAGE)
            buf[off:off + k] = data[at:at + k]
