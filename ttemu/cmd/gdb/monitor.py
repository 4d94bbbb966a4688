"""``monitor`` commands: what gdb cannot see, rendered as the CLI's dumps render it.

    monitor tensix                 the three threads' frontends (FIFOs, MOP, replay,
                                   latched wait, held instruction), semaphores, and
                                   the hang diagnosis of whatever is blocked now
    monitor dst [ROWS] [FMT]       Dst as --dump-dst [ROWS] --dst-format FMT
    monitor src [FMT]              SrcA/SrcB as --dump-src
    monitor gpr [THREAD]           Tensix GPRs as --dump-gpr (THREAD 0-2 or t0-t2)
    monitor cfg [NAME]             non-zero configuration fields as --dump-cfg (NAME:
                                   only fields whose name contains it)
    monitor l1 ADDR:LEN[:FMT]      as --dump-l1 (ADDR may be a symbol; CORE:ADDR for
                                   core-local memory; default: the selected core's)
    monitor cores                  every released core's state, pc and what it waits on
"""

from __future__ import annotations

from ...errors import TtemuError, UsageError

HELP = __doc__.split("\n", 2)[2].rstrip() + "\n"


def run_command(tile, text: str, core: str) -> str:
    """The output of one monitor command (errors as text: gdb shows it)."""
    words = text.split()
    if not words:
        return HELP
    cmd, args = words[0], words[1:]
    fn = COMMANDS.get(cmd)
    if fn is None:
        return f"unknown monitor command {cmd!r}\n" + HELP
    try:
        out = fn(tile, args, core)
    except TtemuError as e:
        return f"error: {e.one_line()}\n"
    return out if out.endswith("\n") else out + "\n"


def _cop(tile):
    if tile._tensix is None:
        raise UsageError("the Tensix coprocessor has not been used yet in this run")
    return tile._tensix


def _tensix(tile, args, core):
    from ...tensix.dump_frontend import frontend_report

    cop = _cop(tile)
    text, _ = frontend_report(cop)
    blocked = [f"{h.name} {h.stall}" for h in tile.harts.values() if h.state == "running" and h.stall]
    blocked += cop.blocked()
    if blocked:
        text += "\nblocked now:\n" + "\n".join(f"  {line}" for line in blocked)
    return text


def _dst(tile, args, core):
    from ...tensix.dump_dst import FORMATS, dst_report

    rows, fmt = "all", "fp32"
    for a in args:
        if a in FORMATS:
            fmt = a
        else:
            rows = a
    _cop(tile)
    return dst_report(tile, rows, fmt)[0]


def _src(tile, args, core):
    from ...tensix.dump_dst import FORMATS, src_report

    fmt = args[0] if args else "fp32"
    if fmt not in FORMATS:
        raise UsageError(f"monitor src: format {fmt!r} is not one of {', '.join(FORMATS)}")
    _cop(tile)
    return src_report(tile, fmt)[0]


def _gpr(tile, args, core):
    from ...tensix.dump_regs import gpr_report

    threads = (0, 1, 2)
    if args:
        t = args[0].lower().lstrip("t")
        if t not in ("0", "1", "2"):
            raise UsageError(f"monitor gpr: thread {args[0]!r} is not 0, 1 or 2")
        threads = (int(t),)
    _cop(tile)
    return gpr_report(tile, threads)[0]


def _cfg(tile, args, core):
    from ...tensix.dump_regs import cfg_report

    _cop(tile)
    text = cfg_report(tile)[0]
    if not args:
        return text
    key = args[0].lower()
    lines = text.split("\n")
    hits = [line for line in lines[1:] if len(line.split()) > 1 and key in line.split()[1].lower()]
    return "\n".join([lines[0]] + (hits or [f"(no non-zero field matches {args[0]!r})"]))


def _l1(tile, args, core):
    from ...dump import l1_report
    from .. import specs

    if len(args) != 1:
        raise UsageError("monitor l1 ADDR:LEN[:FMT]")
    addr, n, prefix, fmt = specs.dump_l1(args[0], "monitor l1")
    return l1_report(tile, specs.resolve(addr, tile, "monitor l1"), n, prefix or core, fmt, "monitor l1")[0]


def _cores(tile, args, core):
    lines = []
    for h in tile.harts.values():
        if not h.released:
            continue
        sym = tile.symbolize(h.name, h.pc)
        where = f" <{sym}>" if sym else ""
        lines.append(f"{h.name:7} {h.state:8} pc 0x{h.pc:08x}{where}"
                     + (f"; {h.stall}" if h.stall and h.state == "running" else ""))
    return "\n".join(lines) or "(no core released)"


COMMANDS = {"tensix": _tensix, "dst": _dst, "src": _src, "gpr": _gpr, "cfg": _cfg, "l1": _l1,
            "cores": _cores, "help": lambda tile, args, core: HELP}
