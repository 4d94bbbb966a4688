"""Bit-for-bit comparison of a region read from ttemu and from ttsim.

A region with a tile format (an ``[[expect]]`` or ``--expect`` region) is also decoded
both ways and reported as tiles and values, like the expect report; a raw region
reports the differing 32-bit words."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RegionDiff:
    name: str
    addr: int
    length: int
    differing_bytes: int
    lines: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.differing_bytes == 0

    def text(self) -> str:
        return "\n".join(self.lines)


def compare_region(name, addr, ours: bytes, theirs: bytes, fmt=None, shape=None, limit=8) -> RegionDiff:
    n = min(len(ours), len(theirs))
    diff_bytes = sum(1 for i in range(n) if ours[i] != theirs[i]) + abs(len(ours) - len(theirs))
    d = RegionDiff(name, addr, len(ours), diff_bytes)
    if not diff_bytes:
        return d
    d.lines.append(f"oracle {name} at 0x{addr:x}+{len(ours)}: {diff_bytes} bytes differ from ttsim")
    if fmt is not None:
        from ... import tiles
        from ..expect import compare

        c = compare(tiles.decode(ours, fmt, shape), tiles.decode(theirs, fmt, shape), 0.0, 0.0,
                    f"{name} ({fmt}) ttemu vs ttsim")
        d.lines += c.lines if c.lines else [f"  {fmt} values are equal; the bits differ (signed zero or NaN payload)"]
        d.lines = [ln.replace("got ", "ttemu ").replace("expected", "ttsim") for ln in d.lines]
        return d
    shown = 0
    for w in range(0, n - n % 4, 4):
        a, b = ours[w:w + 4], theirs[w:w + 4]
        if a != b:
            if shown == limit:
                d.lines.append("  ... (more words differ)")
                break
            shown += 1
            d.lines.append(f"  0x{addr + w:08x}: ttemu 0x{int.from_bytes(a, 'little'):08x}, "
                           f"ttsim 0x{int.from_bytes(b, 'little'):08x}")
    return d
