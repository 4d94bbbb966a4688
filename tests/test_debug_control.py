"""ttemu.debug: a debugger's run control keeps the schedule. Stopping a run anywhere,
stepping cores one instruction at a time, breakpoints inside translated blocks and
watchpoints (which run every instruction on its own) give the same memory, step
counts, Tensix statistics and trace as an undebugged run."""

import hashlib
import io

import pytest

from ttemu.cmd.options import RunOptions
from ttemu.cmd.session import Session
from ttemu.debug import DebugControl, Watch
from ttemu.trace import Tracer

MATMUL = "firmware/matmul_block/matmul_block.toml"
HANDSHAKE = ("firmware/build/handshake/brisc.elf", "firmware/build/handshake/trisc1.elf",
             "firmware/build/handshake/trisc2.elf")


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch, request):
    monkeypatch.chdir(request.config.rootpath)


def _tile(elfs):
    """The set's tile; a short quantum (37 instructions a turn, blocks up to 64) makes
    the interleaving depend on where turns end, so any change to the schedule shows."""
    o = RunOptions(elfs=elfs, cores=(), loads=(), writes=(), release=None, untils=(), seed=None, arch=None,
                   quantum=37, strict=False, oracle=None, as_json=False)
    s = Session(o)
    tile = s.build()
    return tile, s.until_conditions(tile)


class Stepper(DebugControl):
    """Steps the cores that are not waiting, round-robin, for ``steps`` stops, then runs
    freely; records the stops."""

    def __init__(self, tile, steps):
        super().__init__(tile)
        self.left = steps
        self.stops = []

    def stopped(self, stop):
        self.stops.append((stop.reason, stop.hart.name if stop.hart else None, stop.hart.pc if stop.hart else None,
                           stop.watch.addr if stop.watch else None))
        running = [h for h in self.tile.harts.values() if h.state == "running" and not h.stall]
        self.left -= 1
        self.resume(running[self.left % len(running)] if running and self.left > 0 else None)


def _run(elfs, trace, debug=None):
    tile, until = _tile(elfs)
    buf = io.StringIO()
    if trace:
        tile.tracer = Tracer(buf, tile)
    ctl = None
    if debug is not None:
        ctl = tile.debug = debug(tile)
    r = tile.run(until=until)
    if trace:
        tile.tracer.close()
    state = (r.outcome, r.steps, {n: (c.state, c.pc, c.steps) for n, c in r.cores.items()}, r.tensix,
             hashlib.sha1(bytes(tile.l1)).hexdigest(), buf.getvalue())
    return state, ctl


@pytest.mark.parametrize("elfs,trace", [((MATMUL,), False), (HANDSHAKE, False), (HANDSHAKE, True)],
                         ids=["matmul_block", "handshake", "handshake-traced"])
def test_stepping_and_breakpoints_keep_the_schedule(elfs, trace):
    plain, _ = _run(elfs, trace)

    def stepper(tile):
        ctl = Stepper(tile, 400)
        for img in tile.images.values():  # breakpoints in the middle of translated blocks
            ctl.breakpoints.add(img.symbols["main"] + 8)
        return ctl

    debugged, ctl = _run(elfs, trace, stepper)
    assert debugged == plain
    reasons = [s[0] for s in ctl.stops]
    assert reasons[0] == "start" and reasons.count("step") > 40 and "breakpoint" in reasons
    for reason, core, pc, _ in ctl.stops:
        if reason == "breakpoint":
            assert pc == _tile(elfs)[0].images[core].symbols["main"] + 8


def test_watchpoints_run_everything_one_instruction_at_a_time_and_keep_the_schedule():
    plain, _ = _run((MATMUL,), False)

    def watcher(tile):
        ctl = Stepper(tile, 0)
        ctl.watches.append(Watch("write", 0x50000, 4))  # the output tile's first word (the packer)
        ctl.watches.append(Watch("read", 0x64014, 4))  # K, read by the TRISCs
        return ctl

    debugged, ctl = _run((MATMUL,), False, watcher)
    assert debugged == plain
    writes = [s for s in ctl.stops if s[0] == "watch" and s[3] == 0x50000]
    reads = [s for s in ctl.stops if s[0] == "watch" and s[3] == 0x64014]
    assert len(writes) == 1  # the packer's write of the first output word (one change: one stop)
    assert {s[1] for s in reads} == {"trisc0", "trisc1"}  # unpack and math read K (pack does not)


def test_a_block_that_stalls_as_the_turn_runs_out_is_counted_once():
    """run._run_blocks: a block ending in a stall/halt exit that reaches the turn's budget
    used to subtract the exit entry's sentinel count without having added it (negative
    step counts). The handshake has no polling loops: its counts do not depend on the
    schedule."""
    (outcome, steps, cores, tensix, _, _), _ = _run(HANDSHAKE, False)
    assert outcome == "halted" and steps == 107
    assert {n: c[2] for n, c in cores.items() if c[0] != "reset"} == {"brisc": 26, "trisc1": 40, "trisc2": 41}
    assert tensix["t1"]["core_riscv"] == 40 and tensix["t1"]["held_steps"] >= 0


def test_a_watched_load_or_store_stops_once_before_the_access():
    from ttemu import Tile

    tile = Tile("wormhole_b0")
    tile.load_elf("firmware/build/negate/brisc.elf")  # out[i] = in[i] ^ 0x80008000, 2048 words
    tile.write(0x21000, bytes(range(256)) * 32)
    tile.release(["brisc"])
    seen = []

    class Looker(DebugControl):
        def stopped(self, stop):
            if stop.reason == "watch":
                pc = stop.hart.pc
                seen.append((stop.watch.kind, pc, tile.read_u32(pc) & 0x7F, tile.read_u32(0x23004)))
            self.resume()

    tile.debug = Looker(tile)
    tile.debug.watches += [Watch("write", 0x23004, 4), Watch("read", 0x21008, 4)]
    assert tile.run(max_steps=100_000, until=[(0x20000, 1)]).outcome == "until"
    # the lw of in[2] (opcode 0x03), then the sw of out[1] (0x23) before it wrote: one stop each
    assert [(k, op, out) for k, _, op, out in seen] == [("write", 0x23, 0), ("read", 0x03, 0x07060504 ^ 0x80008000)]
    assert tile.read_u32(0x23004) == 0x07060504 ^ 0x80008000


def test_the_first_stop_comes_once_however_many_times_the_tile_runs():
    """A manifest's 'when' writes run the tile in phases (tile.run more than once)."""
    tile, _ = _tile(HANDSHAKE)
    ctl = tile.debug = Stepper(tile, 0)
    assert tile.run(until=[(0x20004, 5)]).outcome == "until"  # trisc1 is done (phase 1)
    assert tile.run().outcome == "halted"
    assert [s[0] for s in ctl.stops] == ["start"]
