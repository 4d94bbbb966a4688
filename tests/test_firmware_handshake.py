"""firmware/handshake: seed 002's math -> pack semaphore handshake across Tensix
threads T1 and T2, with PCBuf, TTSync and mailbox synchronisation on the RISC-V side
(the program's header explains the protocol)."""

import io
import os

from ttemu import Tile
from ttemu.trace import Tracer

ROOT = os.path.join(os.path.dirname(__file__), "..")


def load(tracer_stages=None):
    tile = Tile()
    for core in ("brisc", "trisc1", "trisc2"):
        tile.load_elf(os.path.join(ROOT, "firmware", "build", "handshake", f"{core}.elf"))
    out = None
    if tracer_stages:
        out = io.StringIO()
        tile.tracer = Tracer(out, tile, tracer_stages)
    tile.release(["brisc"])
    return tile, out


def test_handshake_completes_and_balances_the_semaphore():
    tile, _ = load()
    res = tile.run(max_steps=100_000)
    assert res.outcome == "halted", res.blocked
    assert tile.read_u32(0x20000) == 5  # brisc got TRISC2's mail
    assert tile.read_u32(0x20004) == 5  # math finished after TTSync
    assert tile.read_u32(0x20008) == 0  # every post was consumed
    t1, t2 = tile.tensix.threads[1], tile.tensix.threads[2]
    assert (t1.pushed, t1.issued) == (11, 11)  # SEMINIT from brisc + 5 x (SEMWAIT, SEMPOST)
    assert (t2.pushed, t2.issued) == (10, 10)
    assert t1.held_steps > 0  # math ran ahead and waited for room


def test_math_never_more_than_two_tiles_ahead():
    tile, out = load(("issue",))
    tile.run(max_steps=100_000)
    tile.tracer.close()
    level = peak = 0
    for ln in out.getvalue().splitlines():
        if ln.startswith("tensix t1 issue") and "ttsempost" in ln:
            level += 1
        elif ln.startswith("tensix t2 issue") and "ttsemget" in ln:
            level -= 1
        peak = max(peak, level)
        assert level >= 0
    assert peak == 2 and level == 0


def test_trace_stage_selection():
    tile, out = load(("push",))
    tile.run(max_steps=100_000)
    tile.tracer.close()
    tensix = [ln for ln in out.getvalue().splitlines() if ln.startswith("tensix")]
    assert tensix and all(ln.split()[2] == "push" for ln in tensix)
    assert "tensix t1 push 0xa3200008 ttseminit 2,0,2 mmio 0xffe50000" in tensix
