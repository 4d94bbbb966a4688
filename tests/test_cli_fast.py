"""``ttemu run`` / ``trace`` lines are parsed without click when they are plain
(ttemu.cmd.options.parse_fast); click stays the reference: whatever the fast parser
accepts, click parses to the same values, and anything else goes to click."""

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from ttemu.cmd import cli as climod
from ttemu.cmd.options import RUN_OPTIONS, parse_fast

TOKENS = ["--arch", "wormhole_b0", "blackhole", "wh", "--core", "brisc=a.elf", "--max-steps", "10", "1_000",
          "many", "-5", "--max-steps=7", "--idle-steps", "--atol", "0.5", "nan", "--seed", "3", "--json",
          "--json=1", "--strict", "--progress", "--no-progress", "--gdb", "0", "70000", "--gdb-core", "trisc0",
          "--dump-l1", "0x0:16:hex32", "--dump-dst", "--dst-format", "bf16", "hex", "--dump-src", "--dump-gpr",
          "--dump-cfg", "--until", "0x100=1", "--write", "--load", "--release", "brisc,trisc0", "--expect",
          "--oracle", "--quantum", "--debug", "--trace", "-o", "out.trace", "-oX", "--output", "--only",
          "riscv", "--stage", "issue", "--context", "2", "x.elf", "y.toml", "-", "--", "-h", "--help",
          "--max", "--trace-stages", "push,issue", "--rtol=1e-3", "--version"]


def _click_params(command, args):
    cmd = climod.cli.commands[command]
    try:
        ctx = cmd.make_context(command, list(args))
    except Exception:  # click reports an error (or help): the fast parser must have declined
        return None
    return ctx.params


def _by_repr(params):
    """Values compared by repr: ``--atol nan`` parses to NaN, which equals nothing."""
    return None if params is None else {k: repr(v) for k, v in params.items()}


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["run", "trace"]), st.lists(st.sampled_from(TOKENS), max_size=8))
def test_fast_parser_agrees_with_click(command, args):
    fn, extra = climod.COMMANDS[command]
    fast = parse_fast(args, RUN_OPTIONS + extra)
    if fast is not None:
        assert _by_repr(_click_params(command, args)) == _by_repr(fast)


def test_plain_lines_take_the_fast_path():
    for argv in (["run", "firmware/negate/negate.toml"],
                 ["--debug", "run", "--max-steps", "1", "a.elf", "b.elf", "--json"],
                 ["trace", "-o", "t.trace", "--core", "brisc=a.elf", "--until=0x10=1"]):
        assert climod._fast_call(argv) is not None, argv
    for argv in (["--help"], ["run", "--help"], ["disasm", "x.elf"], ["run", "--max-steps", "many"],
                 ["run", "--dump-dst", "x.elf"], ["--version"], ["run", "--bogus"]):
        assert climod._fast_call(argv) is None, argv


def test_a_plain_run_imports_no_click():
    code = ("import sys\n"
            "from ttemu.cli import main\n"
            "rc = main(['run', 'firmware/build/hello/brisc.elf', '--max-steps', '1'])\n"
            "print(rc, 'click' in sys.modules, file=sys.stderr)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=climod.__file__.rsplit("/ttemu/", 1)[0])
    assert p.stderr.strip().splitlines()[-1] == "4 False", p.stderr
