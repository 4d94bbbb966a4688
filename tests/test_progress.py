"""The progress line (ttemu.cmd.progress): shown at most once per interval of a
clock, names the counts and the running cores, and is erased at the end. Results and
traces do not depend on it (the scheduler only calls it between rounds)."""

import io

from ttemu import Tile
from ttemu.cmd.progress import Progress


def test_progress_line_is_rate_limited_and_erased():
    now = [0.0]
    out = io.StringIO()
    p = Progress(out, interval=1.0, clock=lambda: now[0])
    tile = Tile("wormhole_b0")
    tile.load_elf("firmware/build/hello/brisc.elf", core="brisc")
    tile.release(["brisc"])
    tile.steps = 1234567
    p(tile)
    assert out.getvalue() == ""  # before the first interval
    now[0] = 2.0
    p(tile)
    p(tile)  # same instant: nothing more
    text = out.getvalue()
    assert text.count("\r") == 1 and "1,234,567 RISC-V instructions" in text and "brisc@0" in text
    p.close()
    assert out.getvalue().endswith("\r\x1b[K")


def test_a_run_with_progress_gives_the_same_trace(tmp_path, monkeypatch, capsys):
    import os
    import time

    from ttemu.cli import main

    monkeypatch.chdir(os.path.join(os.path.dirname(__file__), ".."))
    monkeypatch.setattr(Progress.__init__, "__defaults__", (0.0, time.monotonic))  # show every round
    a, b = tmp_path / "a.trace", tmp_path / "b.trace"
    assert main(["trace", "firmware/datacopy_bf16/datacopy_bf16.toml", "-o", str(a), "--progress"]) == 0
    assert "Tensix" in capsys.readouterr().err  # it was shown
    assert main(["trace", "firmware/datacopy_bf16/datacopy_bf16.toml", "-o", str(b), "--no-progress"]) == 0
    assert a.read_bytes() == b.read_bytes()
