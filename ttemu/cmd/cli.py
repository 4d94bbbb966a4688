"""The ``ttemu`` command line. See README.md for the contract (option spellings,
exit codes); scripts and CI depend on it.

Errors print one line, ``ttemu: error: <category>: <details>``, on stderr and exit
with the category's code; ``--debug`` shows the Python traceback as well.

click defines the commands (``cli``, built on first use) and owns help, usage errors
and everything unusual. A plain ``run`` / ``trace`` line (known options with valid
values, ELFs) is parsed by :func:`ttemu.cmd.options.parse_fast` from the same option
table and runs without importing click (about 10 ms a process); whatever that parser
does not fully understand goes to click, so behaviour is click's either way.
"""

from __future__ import annotations

import os
import re
import sys

from .. import errors
from ..arch import ARCH_NAMES
from .options import RUN_OPTIONS, Opt, RunOptions, click_option, parse_fast, run_options

INTERNAL_ERROR = 70
#: what ``--dump-dst``'s optional ROWS looks like; any other next word is not its value
DUMP_DST_ROWS = re.compile(r"(all(:raw)?|raw|[0-9][0-9a-fx_]*:[0-9][0-9a-fx_]*(:raw)?)\Z", re.I)

RUN_EXTRA = (Opt(("--trace",), "trace_file", metavar="FILE", help="Write an instruction trace to FILE."),)
TRACE_EXTRA = (
    Opt(("--output", "-o"), "trace_file", default="-", metavar="FILE", help="Trace file (default stdout)."),
    Opt(("--only",), help="Compare only: riscv, tensix, t0, t1, t2 or a core name."),
    Opt(("--stage",), help="Compare only Tensix lines of this stage."),
    Opt(("--context",), "context_lines", kind="int", default=3, help="Lines of context in the diff."),
)


def run_command(trace_file, **kw) -> int:
    """``ttemu run``: load ELFs into a tile and run it."""
    from .session import Session

    return Session(RunOptions(trace_file=trace_file, summary=True, **kw)).execute()


def trace_command(trace_file, only, stage, context_lines, **kw) -> int:
    """``ttemu trace``: write a trace, or compare two trace files."""
    from .tracediff import compare_files, is_trace_pair

    elfs = kw["elfs"]
    if context_lines < 0:
        raise errors.UsageError(f"--context {context_lines}: must be at least 0")
    if len(elfs) == 2 and is_trace_pair(*elfs):
        return compare_files(elfs[0], elfs[1], only=only, stage=stage, context=context_lines,
                             as_json=kw["as_json"])
    for name, value in (("--only", only), ("--stage", stage)):
        if value is not None:
            raise errors.UsageError(f"{name} compares two traces (ttemu trace A B {name} ...); "
                                    "it does not apply to writing one")
    from .session import Session

    return Session(RunOptions(trace_file=trace_file, summary=False, **kw)).execute()


COMMANDS = {"run": (run_command, RUN_EXTRA), "trace": (trace_command, TRACE_EXTRA)}


def _build_cli():
    import click

    @click.group(context_settings={"help_option_names": ["-h", "--help"]})
    @click.option("--debug", is_flag=True, help="Show Python tracebacks for errors.")
    @click.version_option(package_name="ttemu")
    @click.pass_context
    def cli(ctx, debug):
        """Emulate one Tenstorrent Tensix tile: its five RISC-V cores and the Tensix
        coprocessor."""
        ctx.obj = {"debug": debug}

    @cli.command("run")
    @run_options
    @click_option(RUN_EXTRA[0])
    @click.pass_context
    def run_cmd(ctx, trace_file, **kw):
        """Load ELFs into a tile and run it."""
        ctx.obj["debug"] |= kw["debug"]
        ctx.exit(run_command(trace_file, **kw))

    @cli.command("trace")
    @run_options
    @click_option(TRACE_EXTRA[0])
    @click_option(TRACE_EXTRA[1])
    @click_option(TRACE_EXTRA[2])
    @click_option(TRACE_EXTRA[3])
    @click.pass_context
    def trace_cmd(ctx, trace_file, only, stage, context_lines, **kw):
        """Write a trace (same options as run), or compare two trace files: ttemu trace A B."""
        ctx.obj["debug"] |= kw["debug"]
        ctx.exit(trace_command(trace_file, only, stage, context_lines, **kw))

    @cli.command("disasm")
    @click.argument("elf", type=click.Path())
    @click.option("--arch", type=click.Choice(ARCH_NAMES), default=None)
    @click.pass_context
    def disasm_cmd(ctx, elf, arch):
        """Objdump-style listing: RISC-V (with the arch's extensions), Tensix words decoded."""
        from .disasm import listing

        for line in listing(elf, arch):
            click.echo(line)

    @cli.command("cache")
    @click.argument("action", type=click.Choice(["info", "clear"]), default="info")
    @click.option("--json", "as_json", is_flag=True, help="Machine-readable output (info).")
    def cache_cmd(action, as_json):
        """The disk cache of translated code and parsed manifests: where it is, its size
        and cap (info), or remove it (clear). TTEMU_CACHE_DIR=off turns it off,
        TTEMU_CACHE_SIZE sets the cap (e.g. 200M)."""
        from .cache import clear, info

        click.echo(clear() if action == "clear" else info(as_json))

    @cli.command("simlib")
    @click.option("--arch", type=click.Choice(ARCH_NAMES), required=True, help="The chip to present.")
    @click.option("--steps-per-clock", type=click.IntRange(min=1), default=1, show_default=True,
                  help="Instructions each running core retires per libttsim_clock (1, as ttsim).")
    @click.argument("directory", type=click.Path(file_okay=False))
    def simlib_cmd(arch, steps_per_clock, directory):
        """Build a drop-in for ttsim's library (libttsim_wh.so / libttsim_bh.so) running
        ttemu, with the soc_descriptor.yaml tt-umd reads, into DIRECTORY."""
        from .simlib import simlib_command

        return simlib_command(arch, directory, steps_per_clock)

    return cli


def __getattr__(name):
    """``cli``: the click group, built (importing click) when first asked for."""
    if name == "cli":
        group = globals()["cli"] = _build_cli()
        return group
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _fast_call(argv):
    """-> (function, keyword arguments) for a plain run / trace line, else None."""
    if os.environ.get("_TTEMU_COMPLETE") or not all(type(a) is str for a in argv):  # completion, Path objects...
        return None
    i = 0
    while i < len(argv) and argv[i] == "--debug":
        i += 1
    if i >= len(argv) or argv[i] not in COMMANDS:
        return None
    fn, extra = COMMANDS[argv[i]]
    kw = parse_fast(argv[i + 1:], RUN_OPTIONS + extra)
    return None if kw is None else (fn, kw)


def _click_main(argv):
    import click

    if not argv or argv == ["--debug"]:  # bare ``ttemu``: the help, as a page, not an error line
        sys.stderr.write(__getattr__("cli").get_help(click.Context(__getattr__("cli"), info_name="ttemu")) + "\n")
        return 2
    try:
        rc = __getattr__("cli").main(args=argv, prog_name="ttemu", standalone_mode=False)
        return rc or 0
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.exceptions.Abort:
        _say("interrupted")
        return 130
    except click.ClickException as e:
        _say(f"usage: {' '.join(e.format_message().split())}")
        return 2


def _fast_main(fn, kw):
    """The command as click's ``main(standalone_mode=False)`` would run it."""
    try:
        return fn(**kw) or 0
    except (EOFError, KeyboardInterrupt):
        sys.stderr.write("\n")
        _say("interrupted")
        return 130
    except OSError as e:
        import errno

        if e.errno != errno.EPIPE:
            raise
        from click.utils import PacifyFlushWrapper

        sys.stdout = PacifyFlushWrapper(sys.stdout)
        sys.stderr = PacifyFlushWrapper(sys.stderr)
        sys.exit(1)


def _dump_dst_alone(argv):
    """``--dump-dst`` takes an optional ROWS: the next word is its value only when it
    looks like ROWS, so ``--dump-dst KERNEL.toml`` keeps the manifest (as ``--dump-dst=all``)."""
    out = list(argv)
    for i, a in enumerate(out):
        if a == "--":
            break
        if a == "--dump-dst" and (i + 1 == len(out) or not DUMP_DST_ROWS.match(str(out[i + 1]))):
            out[i] = "--dump-dst=all"
    return out


def main(argv=None) -> int:
    argv = _dump_dst_alone(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv or os.environ.get("TTEMU_DEBUG")
    try:
        call = _fast_call(argv)
        return _click_main(argv) if call is None else _fast_main(*call)
    except errors.TtemuError as e:
        if debug:
            import traceback

            traceback.print_exc()
        _say(e.one_line())
        return e.exit_code
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    except OSError as e:  # a file the system refused (not one ttemu checked first): the user's input
        if debug:
            import traceback

            traceback.print_exc()
        where = f"{e.filename}: " if e.filename else ""
        _say(f"bad input: {where}{e.strerror or e}")
        return 1
    except Exception as e:  # a bug in ttemu: still one line unless --debug
        if debug:
            import traceback

            traceback.print_exc()
        _say(f"internal: {type(e).__name__}: {e} (a bug in ttemu; rerun with --debug for the traceback)")
        return INTERNAL_ERROR


def _say(text):
    sys.stderr.write(f"ttemu: error: {text}\n")


if __name__ == "__main__":
    sys.exit(main())
