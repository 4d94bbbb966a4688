"""``--until`` as a pass condition (issue 20): a run that ends without its conditions
holding exits 9 and says which did not hold with their final values; byte, halfword
and masked forms, symbols, the same in manifests; host writes made once a condition
holds (``--write '... when ...'``, a manifest write's ``when``)."""

import json
import os

import pytest

from mkelf import write_elf
from progs import Program, t0, t1
from ttemu import Tile
from ttemu.cli import main
from ttemu.cmd import specs
from ttemu.condition import Condition
from ttemu.errors import UsageError

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
NEGATE = os.path.join(ROOT, "firmware", "negate", "negate.toml")


def run(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def store_program(tmp_path, value=0x12345678, addr=0x1000, name="s.elf"):
    """BRISC stores ``value`` at ``addr`` (symbol ``flag``), then halts."""
    p = Program(0)
    p.li(t0, addr)
    p.li(t1, value)
    p.sw(t1, 0, t0)
    p.halt()
    return write_elf(tmp_path / name, [(0, p.assemble()), (addr, bytes(8))], 0, {"_start": 0, "flag": addr})


def test_until_that_never_holds_exits_9_with_the_final_value(capsys, tmp_path):
    """The issue's case: the cores halt, the condition never held: not a pass."""
    rc, out, err = run(capsys, "run", NEGATE, "--until", "0x100=5")
    assert rc == 9
    assert "halted" in out and "until 0x100=0x5: NOT MET, final value 0x0" in out
    rc, out, err = run(capsys, "run", NEGATE, "--until", "0x100=5", "--json")
    doc = json.loads(out)
    assert rc == 9 and doc["exit_code"] == 9 and doc["outcome"] == "halted"
    assert doc["until_failed"] == ["0x100=0x5"]
    failed = [c for c in doc["until"] if not c["held"]]
    assert failed == [{"condition": "0x100=0x5", "addr": 0x100, "core": None, "type": "u32", "mask": 0xFFFFFFFF,
                       "value": 5, "final": 0, "held": False}]
    assert [c["held"] for c in doc["until"]] == [True, False]  # the manifest's own held


def test_idle_without_the_condition_exits_9(capsys, tmp_path):
    p = Program(0)
    p.label("spin")
    p.addi(t0, t0, 1)
    p.j("spin")
    elf = write_elf(tmp_path / "i.elf", [(0, p.assemble())], 0)
    rc, out, err = run(capsys, "run", elf, "--until", "0x100=1", "--idle-steps", "5000")
    assert rc == 9 and "idle after" in out and "NOT MET" in out
    # a hang or step limit keeps its own code, and still names the condition
    rc, out, err = run(capsys, "run", elf, "--until", "0x100=1", "--max-steps", "100", "--json")
    doc = json.loads(out)
    assert rc == 4 and doc["until_failed"] == ["0x100=0x1"]


@pytest.mark.parametrize("cond,holds", [
    ("0x1000=0x12345678", True), ("flag=0x12345678", True), ("flag:u32=0x12345678", True),
    ("0x1000:u8=0x78", True), ("0x1003:u8=0x12", True), ("0x1001:u8=0x78", False),
    ("0x1002:u16=0x1234", True), ("flag:u16=0x5678", True), ("0x1000:u16=0x1234", False),
    ("0x1000=0x00000078/0xFF", True), ("0x1000=0x12000000/0xFF000000", True),
    ("0x1000=0x13000000/0xFF000000", False), ("0x1001:u8=0x50/0xF0", True)
])
def test_byte_halfword_and_masked_forms(capsys, tmp_path, cond, holds):
    elf = store_program(tmp_path)
    rc, out, err = run(capsys, "run", elf, "--until", cond, "--json")
    doc = json.loads(out)
    assert (rc, doc["outcome"]) == ((0, "until") if holds else (9, "halted")), err
    assert doc["until"][0]["held"] is holds


def test_condition_reads_core_local_and_registers_by_the_word():
    """A byte or halfword outside L1 (core-local memory) reads the word that holds it."""
    tile = Tile("wormhole_b0")
    tile.write_u32(0xFFB00010, 0xA1B2C3D4, "brisc")
    assert Condition(0xFFB00012, 0xB2, "brisc", 1).read(tile) == 0xB2
    assert Condition(0xFFB00012, 0xA1B2, "brisc", 2).holds(tile)
    assert Condition(0xFFB00010, 0xC3D4, "brisc", 4, 0xFFFF).holds(tile)


def test_parsed_forms():
    c = specs.condition("trisc0:go_msg:u8=0x80/0xC0")
    assert c == Condition("go_msg", 0x80, "trisc0", 1, 0xC0)
    assert c.text() == "trisc0:go_msg:u8=0x80/0xc0"
    assert specs.condition("0x4A2:U16=7") == Condition(0x4A2, 7, None, 2)
    assert specs.condition("0x100:u8=-1").expected == 0xFF  # two's complement in the width
    for bad in ("0x100", "0x100:u64=1", "0x100=x", "0x100=1/y", "0x101:u16=0", "0x100:u8=256", "0x1=3/1"):
        with pytest.raises(UsageError, match="--until"):
            specs.condition(bad)


MANIFEST = """
max_steps = 10_000
[cores]
brisc = "{elf}"
[[until]]
addr = "flag"
{extra}
"""


@pytest.mark.parametrize("extra,rc", [
    ('value = 0x34\ntype = "u8"\n', 9),  # the low byte is 0x78
    ('value = 0x78\ntype = "u8"\n', 0),
    ('value = 0x5678\ntype = "u16"\n', 0),
    ("value = 0x12000000\nmask = 0xFF000000\n", 0),
    ("value = 0x12345678\n", 0),
])
def test_manifest_forms(capsys, tmp_path, extra, rc):
    elf = store_program(tmp_path)
    path = tmp_path / "k.toml"
    path.write_text(MANIFEST.format(elf=elf, extra=extra))
    got, out, err = run(capsys, "run", str(path), "--json")
    assert got == rc, err
    assert json.loads(out)["outcome"] == ("until" if rc == 0 else "halted")


def _handshake_program(tmp_path):
    """BRISC writes 0xB001CAFE to 0x2004, waits for 3 at 0x2000, then stores 7 at
    0x2008 and halts: the host's write must come after the sentinel."""
    p = Program(0)
    p.li(t0, 0x2000)
    p.sw(0, 0, t0)
    p.li(t1, 0xB001CAFE)
    p.sw(t1, 4, t0)
    p.label("wait")
    p.lw(t1, 0, t0)
    p.beq(t1, 0, "wait")
    p.li(t1, 7)
    p.sw(t1, 8, t0)
    p.halt()
    return write_elf(tmp_path / "h.elf", [(0, p.assemble())], 0, {"_start": 0, "sentinel": 0x2004})


def test_write_when_a_condition_holds(capsys, tmp_path):
    elf = _handshake_program(tmp_path)
    rc, out, err = run(capsys, "run", elf, "--write", "0x2000=3 when sentinel=0xB001CAFE", "--until", "0x2008=7",
                       "--json")
    assert rc == 0 and json.loads(out)["outcome"] == "until", err
    # a write made before the run is cleared by the firmware: the run never gets there
    rc, out, err = run(capsys, "run", elf, "--write", "0x2000=3", "--until", "0x2008=7", "--idle-steps", "5000")
    assert rc == 9
    # a when that never holds: exit 9, and the condition is named
    rc, out, err = run(capsys, "run", elf, "--write", "0x2000=3 when sentinel:u8=0x12", "--idle-steps", "5000",
                       "--json")
    doc = json.loads(out)
    assert rc == 9 and doc["until_failed"] == ["sentinel:u8=0x12".replace("sentinel", "0x2004")]


def test_write_several_values(capsys, tmp_path):
    elf = store_program(tmp_path)
    rc, out, err = run(capsys, "run", elf, "--write", "0x3000=1,2,0x30", "--dump-l1", "0x3000:12:u32")
    assert rc == 0 and "1 2 48" in " ".join(out.split()), out


def test_oracle_polls_bytes_and_masks_as_ttemu_does(capsys, tmp_path, monkeypatch):
    """The ttsim plan carries each condition's width and mask."""
    from ttemu.cmd.oracle import plan_from_tile

    tile = Tile("wormhole_b0", record=True)
    tile.load_elf(store_program(tmp_path), core="brisc")
    tile.release(["brisc"])
    conds = [Condition(0x1003, 0x12, None, 1), Condition(0x1000, 0x78, None, 4, 0xFF)]
    tile.run(until=conds, max_steps=1000)
    plan = plan_from_tile(tile, until=conds)
    assert plan.until == [(0x1003, 0x12, 1, 0xFF), (0x1000, 0x78, 4, 0xFF)]
    assert tile.host_log[-1] == ("run", plan.until)
