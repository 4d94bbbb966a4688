"""ELF placement rules (README.md "The tile model"; docs/llk-test-protocol.md §1.5)."""

import pytest

from mkelf import write_elf
from progs import word
from tensix_harness import make, push_word
from ttemu import Tile, Unimplemented


def test_local_segment_also_staged_at_loader_init_start(tmp_path):
    local = bytes(range(1, 33))
    elf = write_elf(tmp_path / "trisc0.elf", [(0x6000, bytes.fromhex("6f000000")), (0xFFB00010, local)],
                    0x6000, {"__loader_init_start": 0x9000})
    tile = Tile()
    tile.load_elf(elf)
    assert tile.read(0xFFB00010, 32, "trisc0") == local
    assert tile.read(0x9010, 32) == local  # staged at __loader_init_start + 0x10


def test_nobits_holes_are_not_written_and_may_coincide(tmp_path):
    """Each tt-llk ELF reserves the runtime-arguments block as a NOBITS hole: loading
    must neither zero what the host put there nor call two such holes an overlap."""
    tile = Tile()
    tile.write_u32(0x20000, 0x1234)
    for core, base in (("trisc0", 0x6000), ("trisc1", 0xA000)):
        elf = write_elf(tmp_path / f"{core}.elf", [(base, bytes.fromhex("6f000000")), (0x20000, b"", 0x400)], base)
        tile.load_elf(elf)
    assert tile.read_u32(0x20000) == 0x1234


def test_lone_elf_starts_at_its_entry_point(tmp_path):
    code = bytes.fromhex("13000000") * 4 + bytes.fromhex("6f000000")
    elf = write_elf(tmp_path / "prog.elf", [(0x4000, code)], 0x4010)
    tile = Tile()
    tile.load_elf(elf, start_at_entry=True)
    tile.release(["brisc"])
    res = tile.run(max_steps=100)
    assert res.outcome == "halted" and res.steps == 1 and res.cores["brisc"].pc == 0x4010


def test_unimplemented_tensix_instruction_names_itself():
    """SETASHRMV is in the table but not in the ISA documentation: it stays
    unimplemented, and a run that reaches it stops (exit 6) naming it, the thread and
    where it came from."""
    tile, issue = make()
    with pytest.raises(Unimplemented, match=r"t1: ttsetashrmv .*\(pushed by test\): SETASHRMV is not implemented"):
        push_word(tile, 1, word("SETASHRMV"))


def test_local_data_can_be_staged_at_a_given_l1_address(tmp_path):
    """tt-metal firmware copies its local data from MEM_<CORE>_INIT_LOCAL_L1_BASE_SCRATCH,
    which the ELF does not name: the manifest's [local_data] (load_elf(local_data=))."""
    local = bytes(range(1, 41))
    path = write_elf(tmp_path / "fw.elf", [(0x6000, (0x6F).to_bytes(4, "little")), (0xFFB00000, local)], 0x6000, {"_start": 0x6000})
    t = Tile("wormhole_b0")
    t.load_elf(str(path), core="trisc0", local_data=0x50000)
    assert t.read(0x50000, len(local)) == local
    assert t.read(0xFFB00000, len(local), "trisc0") == local
    t2 = Tile("wormhole_b0")
    t2.load_elf(str(path), core="trisc0")  # no symbol, no address: local memory only
    assert t2.read(0x50000, len(local)) == bytes(len(local))
    bad = tmp_path / "m.toml"
    bad.write_text('[cores]\ntrisc0 = "x.elf"\n[local_data]\ntrisc9 = 1\n')
    from ttemu.cmd import manifest
    from ttemu.errors import BadInput

    with pytest.raises(BadInput, match="local_data"):
        manifest.load(str(bad))


def _elves():
    from oracle_lib import CORPUS, ROOT

    return sorted(ROOT.glob("firmware/build/**/*.elf")) + sorted(CORPUS.glob("**/*.elf"))


def test_plain_elf_reader_matches_pyelftools():
    """read_elf reads ordinary ELFs without pyelftools (start-up time); on every shipped
    and corpus ELF it must give exactly what the pyelftools path gives."""
    from ttemu import elf as E

    elves = _elves()
    assert len(elves) > 20
    for path in elves:
        raw = path.read_bytes()
        assert E._read_plain(raw) is not None, path
        fast = E.read_elf(str(path))
        slow = E._read_pyelftools(raw, str(path), path.name)
        assert (fast.entry, fast.segments, fast.symbols, fast.arch_attr, fast._sorted) == \
            (slow.entry, slow.segments, slow.symbols, slow.arch_attr, slow._sorted), path
