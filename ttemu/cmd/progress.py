"""A progress line on a terminal during long runs: instructions retired, the rate,
and where each running core is. Display only: it reads the tile between scheduler
rounds and never changes what the run does (results and traces are the same with or
without it)."""

from __future__ import annotations

import time


class Progress:
    def __init__(self, stream, interval: float = 0.5, clock=time.monotonic):
        self.stream = stream
        self.interval = interval
        self.clock = clock
        self.start = clock()
        self.next = self.start + interval
        self.shown = False

    def __call__(self, tile) -> None:
        now = self.clock()
        if now < self.next:
            return
        self.next = now + self.interval
        seconds = max(now - self.start, 1e-9)
        text = f"ttemu: {seconds:.0f} s, {tile.steps:,} RISC-V instructions"
        cop = tile._tensix
        if cop is not None:
            issued = sum(t.issued for t in cop.threads)
            text += f", {issued:,} Tensix ({issued / seconds / 1e3:.0f} k/s)"
        where = " ".join(f"{h.name}@{h.pc:x}" for h in tile.harts.values() if h.released and h.state == "running")
        self.stream.write(f"\r\x1b[K{text}  {where}")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
