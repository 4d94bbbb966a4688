"""The options of ``run`` / ``trace`` as data, their click form and a parser that
needs no click. New run options go into ``RUN_OPTIONS``; what their values mean is
parsed and checked by :mod:`ttemu.cmd.specs` before anything runs."""

from __future__ import annotations

from ..arch import ARCH_NAMES


class RunOptions:
    """Options shared by ``run`` and ``trace`` (a plain holder): every option's default
    (RUN_OPTIONS), then ``kw``; from Python, name only what differs."""

    def __init__(self, **kw):
        for o in RUN_OPTIONS:
            setattr(self, o.dest, o.default)
        self.elfs, self.trace_file, self.summary = (), None, True
        self.__dict__.update(kw)


class Opt:
    """One option of ``run`` / ``trace`` as data: click builds its parser from these
    (:func:`click_option`), and :func:`parse_fast` parses the common command lines
    without importing click. ``kind``: ``str``, ``int``, ``float``, ``choice``
    (``choices``), ``port`` (0..65535), ``flag``, ``bool`` (``--x/--no-x``) or
    ``optional`` (a value that may be left out: ``flag_value``)."""

    __slots__ = ("decls", "dest", "kind", "default", "multiple", "choices", "metavar", "help", "hidden",
                 "flag_value")

    def __init__(self, decls, dest=None, kind="str", default=None, multiple=False, choices=None, metavar=None,
                 help=None, hidden=False, flag_value=None):
        self.decls = decls
        self.dest = dest or decls[0].split("/")[0].lstrip("-").replace("-", "_")
        self.kind = kind
        self.default = () if multiple else (False if kind == "flag" else default)
        self.multiple = multiple
        self.choices = choices
        self.metavar = metavar
        self.help = help
        self.hidden = hidden
        self.flag_value = flag_value


RUN_OPTIONS = (
    Opt(("--arch",), kind="choice", choices=ARCH_NAMES,
        help="Default: from the ELF's RISC-V arch attribute, else wormhole_b0."),
    Opt(("--core",), "cores", multiple=True, metavar="NAME=ELF",
        help="Load ELF for core NAME (brisc, ncrisc, trisc0, trisc1, trisc2)."),
    Opt(("--local-data",), "local_data", multiple=True, metavar="CORE=ADDR",
        help="Also write CORE's local-memory ELF segment to L1 at ADDR, where its start-up code "
             "copies it from (tt-metal firmware: MEM_<CORE>_INIT_LOCAL_L1_BASE_SCRATCH)."),
    Opt(("--load",), "loads", multiple=True, metavar="ADDR=FILE", help="Raw bytes into memory before the run."),
    Opt(("--input",), "inputs", multiple=True, metavar="[NAME=]ADDR:FMT[:RxC]=SOURCE",
        help="Tiles into L1 before the run; SOURCE: uniform(LO,HI), normal(MEAN,STD), randint(LO,HI), "
             "arange(START[,STEP]), ones, zeros, identity, [numbers...] or a file of raw L1 bytes."),
    Opt(("--write",), "writes", multiple=True, metavar="ADDR=VALUE[,VALUE...][ when COND]",
        help="32-bit words to memory or an MMIO register before the run, or once COND "
             "(as --until) holds."),
    Opt(("--release",), metavar="NAMES",
        help="Comma list of cores to start (default: brisc if it has an ELF, else all with ELFs)."),
    Opt(("--until",), "untils", multiple=True, metavar="[CORE:]ADDR[:u8|u16|u32]=VALUE[/MASK]",
        help="Stop when every such condition holds (ADDR may be a symbol); a run that ends "
             "otherwise exits 9 (3 hang, 4 step limit)."),
    Opt(("--max-steps",), kind="int", help="Stop after N retired RISC-V instructions (exit 4)."),
    Opt(("--idle-steps",), kind="int",
        help="Stop when nothing is stored or pushed for N instructions (outcome idle)."),
    Opt(("--dump",), "dumps", multiple=True, metavar="ADDR:LEN=FILE",
        help="Raw bytes after the run; FILE '-' prints a hexdump."),
    Opt(("--dump-l1",), "dump_l1", multiple=True, metavar="ADDR:LEN[:FMT]",
        help="Readable dump after the run; FMT hex32 (default), u32, i32, fp32, bf16, fp16, or a tile "
             "format tile-fp32, tile-bf16, tile-bfp8_b... (32x32 grids)."),
    Opt(("--dump-dst",), "dump_dst", kind="optional", flag_value="all", metavar="[ROWS]",
        help="Dst after the run as 32x32 tiles (ROWS: START:COUNT in Dst rows, or 'all'; "
             "add :raw for plain rows)."),
    Opt(("--dst-format",), kind="choice", default="fp32", choices=("fp32", "bf16", "fp16", "int32", "int8", "hex"),
        help="How --dump-dst shows Dst values."),
    Opt(("--dump-src",), kind="flag", help="SrcA/SrcB banks after the run."),
    Opt(("--dump-gpr",), kind="flag", help="Tensix GPRs of the three threads after the run."),
    Opt(("--dump-cfg",), kind="flag", help="Non-zero Tensix configuration fields by name."),
    Opt(("--trace-stages",), metavar="STAGES",
        help="Tensix trace stages: comma list of push, mop, replay, issue (default push,issue)."),
    Opt(("--expect",), "expects", multiple=True, metavar="[NAME=]ADDR:FMT[:RxC]=FILE|EXPR",
        help="Compare tiles in L1 after the run with FILE (.npy numbers, or raw L1 bytes) or a "
             "numpy expression over the inputs; exit 7 on mismatch."),
    Opt(("--atol",), kind="float", help="Absolute tolerance for --expect / manifest checks."),
    Opt(("--rtol",), kind="float", help="Relative tolerance for --expect / manifest checks."),
    Opt(("--seed",), kind="int", help="Seed for generated inputs (a manifest's and --input's: input k uses N + k)."),
    Opt(("--oracle",), metavar="LIBTTSIM_SO",
        help="Also run the set on Tenstorrent's ttsim (this release library) and compare every "
             "dumped and expected region bit for bit (exit 7 on a difference, 8 if ttsim "
             "cannot run it)."),
    Opt(("--json",), "as_json", kind="flag", help="Machine-readable run summary on stdout."),
    Opt(("--progress/--no-progress",), "progress", kind="bool",
        help="A progress line on stderr during the run (default: when stderr is a terminal)."),
    Opt(("--strict",), kind="flag",
        help="Stop at behaviour the ISA documentation leaves undefined, and at Tensix work left "
             "when a run finishes (exit 5; default: a warning, once per site, counted in the summary)."),
    Opt(("--gdb",), "gdb", kind="port", metavar="PORT",
        help="Serve the GDB remote protocol on 127.0.0.1:PORT (0: any free port, printed on "
             "stderr) and wait for gdb before the first instruction."),
    Opt(("--gdb-core",), "gdb_core", metavar="NAME",
        help="The core (thread) gdb sees first (default: the first released core)."),
    Opt(("--quantum",), kind="int", hidden=True),
    Opt(("--debug",), kind="flag", help="Show Python tracebacks for errors."),
)


def click_option(o):
    """The click decorator of one :class:`Opt`."""
    import click

    kw = {"default": o.default}
    if o.kind == "choice":
        kw["type"] = click.Choice(o.choices)
    elif o.kind in ("int", "float"):
        kw["type"] = {"int": int, "float": float}[o.kind]
    elif o.kind == "port":
        kw["type"] = click.IntRange(0, 65535)
    elif o.kind == "flag":
        kw["is_flag"] = True
        del kw["default"]
    elif o.kind == "optional":
        kw.update(is_flag=False, flag_value=o.flag_value)
    if o.multiple:
        kw["multiple"] = True
        del kw["default"]
    for key in ("metavar", "help"):
        if getattr(o, key) is not None:
            kw[key] = getattr(o, key)
    if o.hidden:
        kw["hidden"] = True
    return click.option(*o.decls, *((o.dest,) if o.dest != Opt(o.decls).dest else ()), **kw)


def run_options(fn):
    """The click options of ``run`` / ``trace`` (RUN_OPTIONS) and the ELF arguments."""
    import click

    opts = [click_option(o) for o in RUN_OPTIONS] + [click.argument("elfs", nargs=-1, type=click.Path())]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def parse_fast(args, options):
    """Parse a ``run`` / ``trace`` command line (after the command name) as click would,
    without importing click: -> {dest: value} with every option's default, or None when
    the line needs click (help, an unknown option, a value click would reject or report,
    anything unusual), which then parses it and says what is wrong."""
    by_name = {}
    for o in options:
        for d in o.decls:
            if o.kind == "bool":
                on, off = d.split("/")
                by_name[on] = (o, True)
                by_name[off] = (o, False)
            else:
                by_name[d] = (o, None)
    kw = {o.dest: o.default for o in options}
    elfs = []
    i = 0
    n = len(args)
    while i < n:
        tok = args[i]
        i += 1
        if tok == "-":
            return None
        if not tok.startswith("-"):
            elfs.append(tok)
            continue
        name, eq, value = tok.partition("=")
        hit = by_name.get(name) if name.startswith("--") else (by_name.get(tok) if len(tok) == 2 else None)
        if hit is None:
            return None  # -h, --help, --, an unknown or abbreviated option: click's to handle
        o, const = hit
        if o.kind == "optional":
            return None
        if o.kind in ("flag", "bool"):
            if eq:
                return None
            kw[o.dest] = True if o.kind == "flag" else const
            continue
        if not eq:
            if i >= n or args[i].startswith("-"):
                return None
            value = args[i]
            i += 1
        try:
            if o.kind == "int":
                value = int(value)
            elif o.kind == "float":
                value = float(value)
            elif o.kind == "port":
                value = int(value)
                if not 0 <= value <= 65535:
                    return None
            elif o.kind == "choice" and value not in o.choices:
                return None
        except ValueError:
            return None
        if o.multiple:
            kw[o.dest] += (value,)
        else:
            kw[o.dest] = value
    kw["elfs"] = tuple(elfs)
    return kw
