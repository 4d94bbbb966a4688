"""Option values shared by the command layer: numbers, ``KEY=VALUE`` pairs, addresses
(number, symbol, ``CORE:`` prefix), and the click options of ``run`` / ``trace``.
New run options go into ``run_options``' list."""

from __future__ import annotations

import click

from .. import errors
from ..arch import ARCH_NAMES, CORE_NAMES


def _int(text, what):
    try:
        return int(text, 0)
    except ValueError:
        raise errors.UsageError(f"{what}: {text!r} is not a number (decimal or 0x-hex)") from None


def split_core(text):
    """'trisc0:0xFFB00010' -> ('trisc0', '0xFFB00010'); plain text -> (None, text)."""
    if ":" in text:
        head, rest = text.split(":", 1)
        if head in CORE_NAMES:
            return head, rest
    return None, text


def parse_addr(text, tile, what):
    """ADDR: decimal, 0x-hex, or a symbol of a loaded ELF; optional CORE: prefix."""
    core, text = split_core(text.strip())
    try:
        return int(text, 0), core
    except ValueError:
        pass
    try:
        return tile.symbol(text), core
    except KeyError:
        raise errors.UsageError(f"{what}: {text!r} is neither a number nor a symbol of the loaded ELFs") from None


def _pair(text, what):
    if "=" not in text:
        raise errors.UsageError(f"{what} expects KEY=VALUE, got {text!r}")
    return text.split("=", 1)


class RunOptions:
    """Options shared by ``run`` and ``trace`` (a plain holder)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def run_options(fn):
    opts = [
        click.option("--arch", type=click.Choice(ARCH_NAMES), default=None,
                     help="Default: from the ELF's RISC-V arch attribute, else wormhole_b0."),
        click.option("--core", "cores", multiple=True, metavar="NAME=ELF",
                     help="Load ELF for core NAME (brisc, ncrisc, trisc0, trisc1, trisc2)."),
        click.option("--load", "loads", multiple=True, metavar="ADDR=FILE", help="Raw bytes into memory before the run."),
        click.option("--write", "writes", multiple=True, metavar="ADDR=VALUE",
                     help="A 32-bit word to memory or an MMIO register before the run."),
        click.option("--release", default=None, metavar="NAMES",
                     help="Comma list of cores to start (default: brisc if it has an ELF, else all with ELFs)."),
        click.option("--until", "untils", multiple=True, metavar="ADDR=VALUE",
                     help="Stop when every such 32-bit word holds (ADDR may be a symbol)."),
        click.option("--max-steps", type=int, default=None, help="Stop after N retired RISC-V instructions (exit 4)."),
        click.option("--idle-steps", type=int, default=None,
                     help="Stop when nothing is stored or pushed for N instructions (outcome idle)."),
        click.option("--dump", "dumps", multiple=True, metavar="ADDR:LEN=FILE",
                     help="Raw bytes after the run; FILE '-' prints a hexdump."),
        click.option("--dump-l1", "dump_l1", multiple=True, metavar="ADDR:LEN[:FMT]",
                     help="Readable dump after the run; FMT hex32 (default), u32, i32, fp32, bf16, fp16."),
        click.option("--dump-dst", "dump_dst", is_flag=False, flag_value="all", default=None, metavar="[ROWS]",
                     help="Dst after the run as 32x32 tiles (ROWS: START:COUNT in Dst rows, or 'all'; "
                          "add :raw for plain rows)."),
        click.option("--dst-format", default="fp32",
                     type=click.Choice(["fp32", "bf16", "fp16", "int32", "int8", "hex"]),
                     help="How --dump-dst shows Dst values."),
        click.option("--dump-src", is_flag=True, help="SrcA/SrcB banks after the run."),
        click.option("--dump-gpr", is_flag=True, help="Tensix GPRs of the three threads after the run."),
        click.option("--dump-cfg", is_flag=True, help="Non-zero Tensix configuration fields by name."),
        click.option("--trace-stages", default=None, metavar="STAGES",
                     help="Tensix trace stages: comma list of push, mop, replay, issue (default push,issue)."),
        click.option("--expect", "expects", multiple=True, metavar="ADDR:FMT[:RxC]=FILE",
                     help="Compare tiles in L1 after the run with FILE (.npy numbers, or raw L1 bytes); "
                          "exit 7 on mismatch."),
        click.option("--atol", type=float, default=None, help="Absolute tolerance for --expect / manifest checks."),
        click.option("--rtol", type=float, default=None, help="Relative tolerance for --expect / manifest checks."),
        click.option("--seed", type=int, default=None, help="Seed for a manifest's generated inputs."),
        click.option("--oracle", default=None, metavar="LIBTTSIM_SO",
                     help="Also run the set on Tenstorrent's ttsim (this release library) and compare every "
                          "dumped and expected region bit for bit (exit 7 on a difference, 8 if ttsim "
                          "cannot run it)."),
        click.option("--json", "as_json", is_flag=True, help="Machine-readable run summary on stdout."),
        click.option("--progress/--no-progress", default=None,
                     help="A progress line on stderr during the run (default: when stderr is a terminal)."),
        click.option("--strict", is_flag=True,
                     help="Stop at behaviour the ISA documentation leaves undefined (default: a warning, "
                          "once per site, counted in the summary)."),
        click.option("--gdb", "gdb", type=click.IntRange(0, 65535), default=None, metavar="PORT",
                     help="Serve the GDB remote protocol on 127.0.0.1:PORT (0: any free port, printed on "
                          "stderr) and wait for gdb before the first instruction."),
        click.option("--gdb-core", "gdb_core", default=None, metavar="NAME",
                     help="The core (thread) gdb sees first (default: the first released core)."),
        click.option("--quantum", type=int, default=None, hidden=True),
        click.option("--debug", is_flag=True, help="Show Python tracebacks for errors."),
        click.argument("elfs", nargs=-1, type=click.Path()),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn
