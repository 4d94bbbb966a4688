"""The ``ttemu`` command line. See README.md for the contract (option spellings,
exit codes); scripts and CI depend on it.

Errors print one line, ``ttemu: error: <category>: <details>``, on stderr and exit
with the category's code; ``--debug`` shows the Python traceback as well.
"""

from __future__ import annotations

import os
import sys

import click

from .. import errors
from ..arch import ARCH_NAMES
from .options import RunOptions, run_options

INTERNAL_ERROR = 70


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
@click.option("--trace", "trace_file", default=None, metavar="FILE", help="Write an instruction trace to FILE.")
@click.pass_context
def run_cmd(ctx, trace_file, **kw):
    """Load ELFs into a tile and run it."""
    from .session import Session

    ctx.obj["debug"] |= kw["debug"]
    opts = RunOptions(trace_file=trace_file, summary=True, **kw)
    ctx.exit(Session(opts).execute())


@cli.command("trace")
@run_options
@click.option("--output", "-o", "trace_file", default="-", metavar="FILE", help="Trace file (default stdout).")
@click.option("--only", default=None, help="Compare only: riscv, tensix, t0, t1, t2 or a core name.")
@click.option("--stage", default=None, help="Compare only Tensix lines of this stage.")
@click.option("--context", "context_lines", type=int, default=3, help="Lines of context in the diff.")
@click.pass_context
def trace_cmd(ctx, trace_file, only, stage, context_lines, **kw):
    """Write a trace (same options as run), or compare two trace files: ttemu trace A B."""
    from .tracediff import is_trace_pair, compare_files

    ctx.obj["debug"] |= kw["debug"]
    elfs = kw["elfs"]
    if len(elfs) == 2 and is_trace_pair(*elfs):
        ctx.exit(compare_files(elfs[0], elfs[1], only=only, stage=stage, context=context_lines))
    from .session import Session

    opts = RunOptions(trace_file=trace_file, summary=False, **kw)
    ctx.exit(Session(opts).execute())


@cli.command("disasm")
@click.argument("elf", type=click.Path())
@click.option("--arch", type=click.Choice(ARCH_NAMES), default=None)
@click.pass_context
def disasm_cmd(ctx, elf, arch):
    """Objdump-style listing: RISC-V by capstone, Tensix words decoded."""
    from .disasm import listing

    for line in listing(elf, arch):
        click.echo(line)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv or os.environ.get("TTEMU_DEBUG")
    try:
        rc = cli.main(args=argv, prog_name="ttemu", standalone_mode=False)
        return rc or 0
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.exceptions.Abort:
        _say("interrupted")
        return 130
    except click.ClickException as e:
        _say(f"usage: {' '.join(e.format_message().split())}")
        return 2
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
