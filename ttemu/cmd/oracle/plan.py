"""A run as ttsim needs it: host writes, release, done condition, regions to read.

Everything is a tile address (L1 or MMIO); ttsim reaches a tile only through the NoC
from the host, so core-local memory (each core's data RAM at the local base, the NCRISC
instruction RAM) cannot be written or read there. A core-local ELF segment that ttemu
also staged in L1 for the start-up code to copy (tt-llk's ``__loader_init_start``) needs
no local write: the staged copy is in the plan. Anything else core-local makes the
comparison impossible, and :func:`plan_from_tile` says so.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

from ...condition import as_condition
from ...errors import OracleUnable


@dataclass
class Plan:
    arch: str
    writes: list = field(default_factory=list)  # [(addr, bytes)] in the order ttemu made them
    initial_soft_reset: int = 0
    release_soft_reset: int = 0
    #: [(addr, value, width, mask)]: done when every masked byte / halfword / word holds
    until: list = field(default_factory=list)
    clock_limit: int = 10_000_000
    clocks_when_no_until: int = 0  # run exactly this many clocks when ``until`` is empty
    poll_clocks: int = 1000
    reads: list = field(default_factory=list)  # [(addr, length)] read back after the run
    #: host writes made after release: [[conditions (as ``until``) that must hold first], [(addr, bytes)]]
    phases: list = field(default_factory=list)

    def bound_clocks(self, core_steps: int) -> None:
        """``core_steps``: the most instructions any core retired in ttemu's run. Each
        ttsim clock steps every released core one instruction, so a run that took ttemu
        N steps on its busiest core needs about N clocks; polling loops may differ."""
        steps = max(core_steps, 1)
        self.clock_limit = max(20 * steps, 2_000_000)
        self.clocks_when_no_until = 2 * steps + 10_000

    def to_json(self) -> dict:
        d = dict(self.__dict__)
        d["writes"] = [[a, base64.b64encode(b).decode()] for a, b in self.writes]
        d["phases"] = [[[list(u) for u in cond], [[a, base64.b64encode(b).decode()] for a, b in ws]]
                       for cond, ws in self.phases]
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Plan":
        d = dict(d)
        d["writes"] = [(a, base64.b64decode(b)) for a, b in d["writes"]]
        d["until"] = [tuple(u) for u in d["until"]]
        d["reads"] = [tuple(r) for r in d["reads"]]
        d["phases"] = [([tuple(u) for u in cond], [(a, base64.b64decode(b)) for a, b in ws])
                       for cond, ws in d.get("phases", [])]
        return cls(**d)


def _is_local(tile, addr):
    a = tile.arch
    if a.local_base <= addr < a.local_base + a.local_window:
        return True
    return any(spec.iram and spec.iram[0] <= addr < spec.iram[0] + spec.iram[1] for spec in a.cores)


def plan_from_tile(tile, *, until=(), reads=()) -> Plan:
    """The plan of a tile built with ``record=True``: the host writes made before its
    first release, and the soft-reset value that release wrote; host writes made after
    the release become phases, each made once the ``until`` conditions of the run before
    it hold (the host's half of a mailbox handshake). ``until``: conditions
    (:class:`ttemu.condition.Condition`, or (addr, value[, core]) tuples of words);
    ``reads``: [(addr, length, core)]. Bound ttsim's clocks
    with :meth:`Plan.bound_clocks` once ttemu's run is known."""
    if tile.host_log is None:
        raise ValueError("the tile did not record its host writes (Tile(..., record=True))")
    writes, release, phases, cond = [], None, [], []
    for entry in tile.host_log:
        if release is not None:  # after the release: runs and the writes between them
            if entry[0] == "run":
                cond = list(entry[1])
            elif entry[0] == "write":
                _, addr, data, core, _ = entry
                if _is_local(tile, addr):
                    raise OracleUnable(f"ttsim cannot be given the host write to core-local 0x{addr:08x}")
                if phases and phases[-1][0] is cond:
                    phases[-1][1].append((addr, data))
                else:
                    phases.append((cond, [(addr, data)]))
            continue
        if entry[0] == "release":
            release = entry[1]
            continue
        if entry[0] != "write":
            continue
        _, addr, data, core, staged = entry
        if _is_local(tile, addr):
            if staged:
                continue
            raise OracleUnable(f"ttsim cannot be given the host write to {core or 'core'}-local "
                               f"0x{addr:08x} ({len(data)} bytes): the host reaches a tile only through the NoC")
        writes.append((addr, data))
    if release is None:
        raise ValueError("the tile was never released (Tile.release)")
    until = [as_condition(u).as_plan() for u in until]
    for what, items in (("--until", until), ("dump", reads)):
        for item in items:
            if _is_local(tile, item[0]):
                raise OracleUnable(f"ttsim cannot read core-local 0x{item[0]:08x} ({what}): "
                                   "the host reaches a tile only through the NoC")
    return Plan(
        arch=tile.arch.name,
        writes=writes,
        initial_soft_reset=tile.arch.soft_reset_value,
        release_soft_reset=release,
        until=until,
        reads=[(a, n) for a, n, _ in reads],
        phases=phases,
    )
