"""Every mistake a user can type is one line naming what is wrong, before anything
runs: usage mistakes (options and their values) exit 2, bad input files (manifests,
ELFs, data files) exit 1, and nothing reaches exit 70 (an internal error). The table
holds the cases of issue 20 and more; each row asserts the exit code and that the
line names the offending option, key or file."""

import os
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mkelf import write_elf
from ttemu.cli import main

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
NEGATE = os.path.join(ROOT, "firmware", "negate", "negate.toml")
HELLO = [os.path.join(ROOT, f"firmware/build/hello/{c}.elf") for c in ("brisc", "trisc0", "trisc1", "trisc2")]
NEGATE_ELF = os.path.join(ROOT, "firmware/build/negate/brisc.elf")


def manifest_text():
    with open(NEGATE) as f:
        return f.read().replace("../build", os.path.join(ROOT, "firmware", "build"))


def one_error_line(err):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("ttemu: error: ") and "Traceback" not in err
    return lines[0]


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """cwd: an empty directory; trace files a.t / b.t there, and a compressed ELF."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.t").write_text("core   0: 0x00000000 (0x00000013) nop\n")
    (tmp_path / "b.t").write_text("core   0: 0x00000000 (0x00000033) add     zero, zero, zero\n")
    write_elf(tmp_path / "rvc.elf", [(0, bytes.fromhex("6f000000"))], 0,
              arch_attr="rv32i2p1_m2p0_a2p1_c2p0_zmmul1p0")
    write_elf(tmp_path / "rvcflag.elf", [(0, bytes.fromhex("6f000000"))], 0, flags=1)
    (tmp_path / "one.bin").write_bytes(bytes(8))
    return tmp_path


def mutated(path, old, new, count=1):
    text = manifest_text()
    assert old in text, old
    path.write_text(text.replace(old, new, count))
    return str(path)


# (id, argv (NEGATE and {tmp} expanded), exit code, words the error line must contain)
OPTION_CASES = [
    ("seed negative", ["run", NEGATE, "--seed", "-1"], 2, ["--seed", "-1"]),
    ("trace dir missing", ["run", NEGATE, "--trace", "/missing/dir/x.trace"], 2, ["--trace", "/missing/dir"]),
    ("trace -o dir missing", ["trace", HELLO[0], "-o", "/missing/x"], 2, ["-o", "/missing"]),
    ("dump dir missing", ["run", NEGATE, "--dump", "0x23000:16=/missing/x.bin"], 2, ["--dump", "/missing"]),
    ("dump to a directory", ["run", NEGATE, "--dump", "0x23000:16=."], 2, ["--dump", "directory"]),
    ("max-steps negative", ["run", NEGATE, "--max-steps", "-5"], 2, ["--max-steps"]),
    ("max-steps zero", ["run", NEGATE, "--max-steps", "0"], 2, ["--max-steps"]),
    ("max-steps not a number", ["run", NEGATE, "--max-steps", "many"], 2, ["--max-steps", "many"]),
    ("idle-steps negative", ["run", NEGATE, "--idle-steps", "-1"], 2, ["--idle-steps"]),
    ("atol negative", ["run", NEGATE, "--atol", "-1"], 2, ["--atol"]),
    ("rtol nan", ["run", NEGATE, "--rtol", "nan"], 2, ["--rtol"]),
    ("quantum zero", ["run", NEGATE, "--quantum", "0"], 2, ["--quantum"]),
    ("trace stages", ["run", NEGATE, "--trace-stages", "bogus"], 2, ["--trace-stages", "bogus", "issue"]),
    ("compare stage", ["trace", "a.t", "b.t", "--stage", "bogus"], 2, ["--stage", "bogus", "issue"]),
    ("compare only", ["trace", "a.t", "b.t", "--only", "bogus"], 2, ["--only", "bogus"]),
    ("compare context", ["trace", "a.t", "b.t", "--context", "-1"], 2, ["--context"]),
    ("compare missing file", ["trace", "a.t", "missing.t"], 2, ["missing.t"]),
    ("stage when writing", ["trace", HELLO[0], "--stage", "issue"], 2, ["--stage"]),
    ("trace json to stdout", ["trace", HELLO[0], "--json"], 2, ["--json", "-o"]),
    ("unknown option", ["run", NEGATE, "--bogus"], 2, ["--bogus"]),
    ("no ELF", ["run"], 2, ["no ELF"]),
    ("core name", ["run", "--core", "bogus=x.elf"], 2, ["--core", "bogus"]),
    ("core no elf", ["run", "--core", "brisc="], 2, ["--core"]),
    ("release unknown", ["run", *HELLO, "--release", "bogus"], 2, ["--release", "bogus"]),
    ("release empty", ["run", *HELLO, "--release", ","], 2, ["--release"]),
    ("release nothing at reset pc", ["run", "--core", f"trisc0={HELLO[1]}", "--release", "trisc0,trisc1"], 2,
     ["--release", "trisc1", "0x0000a000", "trisc0.elf"]),
    ("gdb-core", ["run", NEGATE, "--gdb-core", "bogus"], 2, ["--gdb-core", "bogus"]),
    ("until form", ["run", NEGATE, "--until", "0x100"], 2, ["--until", "0x100"]),
    ("until value", ["run", NEGATE, "--until", "0x100=five"], 2, ["--until", "five"]),
    ("until type", ["run", NEGATE, "--until", "0x100:u7=1"], 2, ["--until", "u7"]),
    ("until odd halfword", ["run", NEGATE, "--until", "0x101:u16=1"], 2, ["--until", "odd"]),
    ("until too wide", ["run", NEGATE, "--until", "0x100:u8=0x100"], 2, ["--until", "u8"]),
    ("until outside mask", ["run", NEGATE, "--until", "0x100=1/0x2"], 2, ["--until", "mask"]),
    ("until unknown symbol", ["run", NEGATE, "--until", "nosuchsym=1"], 2, ["--until", "nosuchsym"]),
    ("until bad symbol", ["run", NEGATE, "--until", "a-b=1"], 2, ["--until", "a-b"]),
    ("write value", ["run", NEGATE, "--write", "0x100=zz"], 2, ["--write", "zz"]),
    ("write form", ["run", NEGATE, "--write", "0x100"], 2, ["--write"]),
    ("write when", ["run", NEGATE, "--write", "0x100=1 when 0x104"], 2, ["--write", "when"]),
    ("write too wide", ["run", NEGATE, "--write", "0x100=0x100000000"], 2, ["--write", "32-bit"]),
    ("write unmapped", ["run", NEGATE, "--write", "0x20000000=1"], 2, ["--write", "0x20000000"]),
    ("write local without core", ["run", NEGATE, "--write", "0xFFB00000=1"], 2, ["--write", "name the core"]),
    ("load missing", ["run", NEGATE, "--load", "0x100=/missing.bin"], 1, ["--load", "/missing.bin"]),
    ("load form", ["run", NEGATE, "--load", "0x100"], 2, ["--load"]),
    ("dump form", ["run", NEGATE, "--dump", "0x0=x.bin"], 2, ["--dump", "ADDR:LEN"]),
    ("dump-l1 format", ["run", NEGATE, "--dump-l1", "0x0:16:bogus"], 2, ["--dump-l1", "bogus"]),
    ("dump-l1 tile format", ["run", NEGATE, "--dump-l1", "0x0:16:tile-bogus"], 2, ["--dump-l1", "tile-bogus"]),
    ("dump-l1 length", ["run", NEGATE, "--dump-l1", "0x0:0"], 2, ["--dump-l1", "length"]),
    ("dump-l1 form", ["run", NEGATE, "--dump-l1", "0x0"], 2, ["--dump-l1"]),
    ("dump-l1 local without core", ["run", NEGATE, "--dump-l1", "0xFFB00000:16"], 2, ["name the core"]),
    ("dump-dst rows", ["run", NEGATE, "--dump-dst", "0:9999"], 2, ["--dump-dst", "0:9999"]),
    ("dst-format", ["run", NEGATE, "--dst-format", "bogus"], 2, ["--dst-format", "bogus"]),
    ("expect format", ["run", NEGATE, "--expect", "0x23000:bf17=-a"], 2, ["--expect", "bf17"]),
    ("expect shape", ["run", NEGATE, "--expect", "0x23000:bf16:30x30=-a"], 2, ["--expect", "30"]),
    ("expect shape text", ["run", NEGATE, "--expect", "0x23000:bf16:big=-a"], 2, ["--expect", "big"]),
    ("expect missing npy", ["run", NEGATE, "--expect", "0x23000:bf16=nosuch.npy"], 2, ["--expect", "nosuch.npy"]),
    ("expect neither", ["run", NEGATE, "--expect", "0x23000:bf16=a +"], 2, ["--expect", "a +"]),
    ("expect unknown name", ["run", NEGATE, "--expect", "0x23000:bf16:32x64=-b"], 2, ["--expect", "'b'"]),
    ("expect reference shape", ["run", NEGATE, "--expect", "0x23000:bf16:32x64=np.zeros((3,3))"], 2,
     ["--expect", "(3, 3)"]),
    ("expect short raw file", ["run", NEGATE, "--expect", "0x23000:bf16={tmp}/one.bin"], 2, ["--expect", "one.bin"]),
    ("input generator args", ["run", NEGATE, "--input", "0x21000:bf16=uniform(1)"], 2, ["--input", "uniform"]),
    ("input missing file", ["run", NEGATE, "--input", "0x21000:bf16=/missing.bin"], 2, ["--input", "/missing.bin"]),
    ("input count", ["run", NEGATE, "--input", "0x21000:bf16=[1, 2]"], 2, ["--input", "2 numbers"]),
    ("input name taken", ["run", NEGATE, "--input", "a=0x30000:bf16=ones"], 2, ["--input", "'a'"]),
    ("input past L1", ["run", NEGATE, "--input", "0x16DF00:bf16=ones"], 2, ["--input", "end of L1"]),
    ("input format", ["run", NEGATE, "--input", "0x21000:bf99=ones"], 2, ["--input", "bf99"]),
    ("input name", ["run", NEGATE, "--input", "1a=0x21000:bf16=ones"], 2, ["--input", "1a"]),
    ("local-data core", ["run", NEGATE, "--local-data", "bogus=0x10"], 2, ["--local-data", "bogus"]),
    ("local-data no elf", ["run", NEGATE, "--local-data", "trisc1=0x8000"], 2, ["--local-data", "trisc1"]),
    ("oracle missing", ["run", NEGATE, "--oracle", "/missing.so"], 1, ["--oracle", "/missing.so"]),
    ("oracle not a library", ["run", NEGATE, "--oracle", "a.t"], 1, ["--oracle", "a.t"]),
    ("compressed ELF", ["run", "rvc.elf"], 1, ["rvc.elf", "compressed", "c2p0"]),
    ("compressed ELF flag", ["run", "rvcflag.elf"], 1, ["rvcflag.elf", "EF_RISCV_RVC"]),
    ("missing ELF", ["run", "nosuch.elf"], 1, ["nosuch.elf"]),
    ("not an ELF", ["run", "a.t"], 1, ["a.t", "not an ELF"]),
    ("missing manifest", ["run", "nosuch.toml"], 1, ["nosuch.toml"]),
    ("disasm missing", ["disasm", "nosuch.elf"], 1, ["nosuch.elf"]),
    ("disasm not an ELF", ["disasm", "a.t"], 1, ["a.t"]),
    ("disasm arch", ["disasm", "--arch", "grayskull", HELLO[0]], 2, ["--arch", "grayskull"]),
    ("cache action", ["cache", "bogus"], 2, ["bogus"]),
]


@pytest.mark.parametrize("argv,rc,words", [c[1:] for c in OPTION_CASES], ids=[c[0] for c in OPTION_CASES])
def test_option_mistakes(capsys, sandbox, argv, rc, words):
    argv = [a.replace("{tmp}", str(sandbox)) for a in argv]
    got = main(argv)
    out, err = capsys.readouterr()
    line = one_error_line(err)
    assert got == rc, line
    for w in words:
        assert w in line, (w, line)


# (id, text replaced in negate.toml -> replacement, words the error names besides the file)
MANIFEST_CASES = [
    ("until value string", ("value = 1\n", 'value = "one"\n'), ["until[0].value", "one"]),
    ("until value float", ("value = 1\n", "value = 1.5\n"), ["until[0].value"]),
    ("until type", ("value = 1\n", 'value = 1\ntype = "u7"\n'), ["until[0].type", "u7"]),
    ("until mask", ("value = 1\n", "value = 1\nmask = 2\n"), ["until[0]", "mask"]),
    ("until unknown key", ("value = 1\n", "value = 1\nvalu = 1\n"), ["until[0]", "valu", "value"]),
    ("until unknown symbol", ("addr = 0x20000\n", 'addr = "nosuchsym"\n'), ["until[0].addr", "nosuchsym"]),
    ("reference shape", ('reference = "-a"', 'reference = "np.zeros((3,3,3))"'), ["expect[0].reference", "(3, 3, 3)"]),
    ("reference error", ('reference = "-a"', 'reference = "-b"'), ["expect[0].reference", "'b'"]),
    ("reference not numbers", ('reference = "-a"', 'reference = "\'x\'"'), ["expect[0].reference"]),
    ("input generat", ('generate = "uniform"', 'generat = "uniform"'), ["input[0]", "generat", "generate"]),
    ("expect adr", ("addr = 0x23000", "adr = 0x23000"), ["expect[0]", "adr", "addr"]),
    ("top-level key", ('name = "negate_bf16"', 'nam = "negate_bf16"'), ["nam", "name"]),
    ("max_steps type", ("max_steps = 200_000", 'max_steps = "lots"'), ["max_steps", "lots"]),
    ("max_steps negative", ("max_steps = 200_000", "max_steps = -1"), ["max_steps"]),
    ("seed negative", ("max_steps = 200_000", "max_steps = 200_000\nseed = -1"), ["seed"]),
    ("idle_steps zero", ("max_steps = 200_000", "max_steps = 200_000\nidle_steps = 0"), ["idle_steps"]),
    ("arch", ("max_steps = 200_000", 'max_steps = 200_000\narch = "grayskull"'), ["arch", "grayskull"]),
    ("release", ("max_steps = 200_000", 'max_steps = 200_000\nrelease = ["brisc", "nope"]'), ["release", "nope"]),
    ("release nothing loaded", ("max_steps = 200_000", 'max_steps = 200_000\nrelease = ["brisc", "trisc1"]'),
     ["release", "trisc1", "0x0000a000"]),
    ("trace type", ("max_steps = 200_000", "max_steps = 200_000\ntrace = 5"), ["trace"]),
    ("trace dir missing", ("max_steps = 200_000", 'max_steps = 200_000\ntrace = "/missing/dir/t"'),
     ["trace", "/missing/dir"]),
    ("dump form", ("max_steps = 200_000", 'max_steps = 200_000\ndump = ["0x0=x"]'), ["dump[0]"]),
    ("dump dir missing", ("max_steps = 200_000", 'max_steps = 200_000\ndump = ["0x0:4=/missing/d/x"]'),
     ["dump[0]", "/missing/d"]),
    ("dump_l1 format", ("max_steps = 200_000", 'max_steps = 200_000\ndump_l1 = ["0x0:16:zz"]'), ["dump_l1[0]", "zz"]),
    ("dump_l1 type", ("max_steps = 200_000", 'max_steps = 200_000\ndump_l1 = "0x0:16"'), ["dump_l1"]),
    ("cores name", ('brisc = "', 'brissc = "'), ["cores", "brissc"]),
    ("cores arch", ("[cores.blackhole]", "[cores.grayskull]"), ["[cores.grayskull]"]),
    ("cores path type", ('[cores]\nbrisc = "', '[cores]\nbrisc = 5\nx = "'), ["cores.brisc"]),
    ("missing ELF", ("negate/brisc.elf", "negate/nosuch.elf"), ["nosuch.elf"]),
    ("local_data", ("max_steps = 200_000", 'max_steps = 200_000\n[local_data]\nbrisc = "x"'), ["local_data.brisc"]),
    ("local_data core", ("max_steps = 200_000", "max_steps = 200_000\n[local_data]\nbogus = 1"), ["local_data", "bogus"]),
    ("input format", ('format = "bf16"', 'format = "bf17"'), ["input[0].format", "bf17"]),
    ("input shape", ("shape = [32, 64]", "shape = [30, 64]"), ["input[0].shape"]),
    ("input shape type", ("shape = [32, 64]", 'shape = "32x64"'), ["input[0].shape"]),
    ("input range", ("range = [-4.0, 4.0]", "range = [4.0]"), ["input[0].range"]),
    ("input range order", ("range = [-4.0, 4.0]", "range = [4.0, -4.0]"), ["input[0].range"]),
    ("input two sources", ('generate = "uniform"', 'generate = "uniform"\nvalues = [1]'), ["input[0]", "values"]),
    ("input values count", ('generate = "uniform"', "values = [1, 2]"), ["input[0].values", "2 numbers"]),
    ("input values type", ('generate = "uniform"', 'values = ["x"]'), ["input[0].values"]),
    ("input file missing", ('generate = "uniform"', 'file = "nosuch.bin"'), ["input[0].file", "nosuch.bin"]),
    ("input addr symbol", ("addr = 0x21000", 'addr = "nosuchsym"'), ["input[0].addr", "nosuchsym"]),
    ("input addr past L1", ("addr = 0x21000", "addr = 0x16D800"), ["input[0].addr", "end of L1"]),
    ("input seed", ("seed = 7", "seed = -7"), ["input[0].seed"]),
    ("input generator", ('generate = "uniform"', 'generate = "gauss"'), ["input[0].generate", "gauss"]),
    ("input as table", ("[[input]]", "[input]"), ["input", "[[input]]"]),
    ("expect atol", ("atol = 0", "atol = -1"), ["expect[0].atol"]),
    ("expect rtol type", ("rtol = 0", 'rtol = "small"'), ["expect[0].rtol"]),
    ("expect file missing", ('reference = "-a"', 'file = "nosuch.npy"'), ["expect[0].file", "nosuch.npy"]),
    ("expect both", ('reference = "-a"', 'reference = "-a"\nfile = "x.npy"'), ["expect[0]", "file"]),
    ("expect neither", ('reference = "-a"', ""), ["expect[0]", "reference"]),
    ("expect name type", ('name = "neg"', "name = 3"), ["expect[0].name"]),
    ("write value", ("[[until]]", '[[write]]\naddr = 0x100\nvalue = "x"\n[[until]]'), ["write[0].value"]),
    ("write no value", ("[[until]]", "[[write]]\naddr = 0x100\n[[until]]"), ["write[0]", "value"]),
    ("write values type", ("[[until]]", "[[write]]\naddr = 0x100\nvalues = 5\n[[until]]"), ["write[0].values"]),
    ("write too wide", ("[[until]]", "[[write]]\naddr = 0x100\nvalue = 0x1_0000_0000\n[[until]]"), ["write[0].value"]),
    ("write core", ("[[until]]", '[[write]]\naddr = 0x100\nvalue = 1\ncore = "x"\n[[until]]'), ["write[0].core"]),
    ("write when key", ("[[until]]", "[[write]]\naddr = 0x100\nvalue = 1\nwhen = {adr = 4, value = 1}\n[[until]]"),
     ["write[0].when", "adr"]),
    ("write unmapped", ("[[until]]", "[[write]]\naddr = 0x20000000\nvalue = 1\n[[until]]"), ["write", "0x20000000"]),
    ("not TOML", ("[cores]", "[cores"), ["not valid TOML"]),
]


@pytest.mark.parametrize("old_new,words", [c[1:] for c in MANIFEST_CASES], ids=[c[0] for c in MANIFEST_CASES])
def test_manifest_mistakes(capsys, sandbox, old_new, words):
    path = mutated(sandbox / "k.toml", *old_new)
    got = main(["run", path])
    out, err = capsys.readouterr()
    line = one_error_line(err)
    assert got == 1, line
    assert "k.toml" in line or "nosuch" in line, line  # names the file (or the file it names)
    for w in words:
        assert w in line, (w, line)


def test_binary_manifest(capsys, sandbox):
    (sandbox / "b.toml").write_bytes(b"\xff\xfe\x00")
    assert main(["run", "b.toml"]) == 1
    assert "b.toml" in one_error_line(capsys.readouterr()[1])


def test_cache_size_setting(capsys, sandbox, monkeypatch):
    monkeypatch.setenv("TTEMU_CACHE_SIZE", "lots")
    assert main(["cache", "info"]) == 2
    assert "TTEMU_CACHE_SIZE" in one_error_line(capsys.readouterr()[1])


def test_bare_ttemu_prints_the_help_not_an_error_line(capsys):
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert "Usage: ttemu" in err and "Commands:" in err and "\n  run " in err
    assert not err.startswith("ttemu: error")


def test_dump_dst_takes_no_manifest_as_its_rows(capsys):
    """``--dump-dst KERNEL.toml``: the manifest stays the positional argument."""
    assert main(["run", "--dump-dst", NEGATE]) == 0
    out = capsys.readouterr()[0]
    assert "Dst (Dst32b" in out and "until after" in out
    assert main(["run", "--dump-dst", "0:64", NEGATE]) == 0
    assert "tile 0: Dst32b rows 0..63" in capsys.readouterr()[0]


TOKENS = ["--max-steps", "10", "-5", "0", "x", "--idle-steps", "--seed", "-1", "3", "--atol", "nan", "-0.5",
          "--rtol", "--until", "0x100=1", "0x100:u8=300", "sym=1", "0x100=1/0x2", "--write", "0x104=7",
          "0x20000000=1", "0xFFB00000=1", "--load", "0x200=nofile", "--dump", "0x0:4=-", "0x0:4=/nodir/x",
          "--dump-l1", "0x0:8:hex32", "0x0:8:zz", "--release", "brisc", "ncrisc", ",", "--trace-stages",
          "issue", "bogus", "--expect", "0x0:fp32=-a", "0x0:bf16:32x32=ones", "--input", "0x1000:fp32=ones",
          "a=0x1000:fp32=uniform(0,1)", "--local-data", "brisc=0x100", "trisc1=0x100", "--dump-dst",
          "--dst-format", "hex", "--dump-gpr", "--dump-cfg", "--json", "--strict", "--arch", "blackhole",
          "--core", "brisc=nofile.elf", "--quantum", "1"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(TOKENS), max_size=6))
def test_no_typed_line_is_an_internal_error(capsys, tmp_path, args):
    """Random command lines over a small ELF: whatever they say, the exit code is a
    documented one, and an error is one line."""
    rc = main(["run", HELLO[0], "--max-steps", "2000", *args])
    out, err = capsys.readouterr()
    assert rc != 70, (args, err)
    assert rc in (0, 1, 2, 3, 4, 5, 6, 7, 9), (args, rc, err)
    assert "Traceback" not in err
    if rc in (1, 2):  # (warnings of the run may come first)
        assert err.splitlines()[-1].startswith("ttemu: error: "), err


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
