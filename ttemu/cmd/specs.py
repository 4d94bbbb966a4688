"""The small languages of ``run`` options, parsed before anything runs: each parser
takes the option's text and returns what a manifest's table would give (the same
records, the same dicts), or raises :class:`UsageError` naming the option and the text.

    [CORE:]ADDR                          a location: number (decimal, 0x-hex) or symbol
    [CORE:]ADDR[:u8|u16|u32]=VALUE[/MASK] --until, a write's `when`
    [CORE:]ADDR=VALUE[,VALUE...][ when COND]   --write
    [CORE:]ADDR:LEN=FILE                 --dump           ADDR:LEN[:FMT]   --dump-l1
    [NAME=]ADDR:FMT[:RxC]=SOURCE         --input          CORE=ADDR        --local-data
    [NAME=]ADDR:FMT[:RxC]=FILE|EXPR      --expect

Symbols stay names here (``str`` addresses); the session resolves them once the ELFs
are loaded (:func:`resolve`).
"""

from __future__ import annotations

import os
import re

from ..arch import CORE_NAMES
from ..condition import WIDTHS, Condition, check
from ..errors import UsageError

SYMBOL = re.compile(r"[A-Za-z_.$][\w.$@]*\Z")
GENERATORS = ("uniform", "normal", "randint", "arange", "ones", "zeros", "identity")
#: generator -> (fewest, most) numbers it takes: ``range`` = [a, b] (arange: start, then ``step``)
GENERATOR_ARGS = {"uniform": (2, 2), "normal": (2, 2), "randint": (2, 2), "arange": (1, 2), "ones": (0, 0),
                  "zeros": (0, 0), "identity": (0, 0)}
TRACE_STAGES = ("push", "mop", "replay", "issue")


def fail(what, text, why):
    raise UsageError(f"{what} {text!r}: {why}")


def number(text, what, lo=None):
    """An integer (decimal, 0x-hex, 0b, 0o, underscores allowed) at least ``lo``."""
    try:
        value = int(text.strip(), 0)
    except ValueError:
        fail(what, text, "not a number (decimal or 0x-hex)")
    if lo is not None and value < lo:
        fail(what, text, f"must be at least {lo}")
    return value


def core_name(name, what, text=None):
    if name not in CORE_NAMES:
        where = f" in {text!r}" if text is not None and text != name else ""
        raise UsageError(f"{what}: unknown core {name!r}{where} (one of {', '.join(CORE_NAMES)})")
    return name


def split_core(text):
    """'trisc0:0xFFB00010' -> ('trisc0', '0xFFB00010'); plain text -> (None, text)."""
    if ":" in text:
        head, rest = text.split(":", 1)
        if head in CORE_NAMES:
            return head, rest
    return None, text


def address(text, what, whole=None):
    """ADDR: a number >= 0, or a symbol name (a str, resolved later)."""
    t = text.strip()
    if t[:1].isdigit() or t[:1] in "+-":
        value = number(t, what) if whole is None else _number_in(t, what, whole)
        if value < 0:
            fail(what, whole or text, "an address cannot be negative")
        return value
    if not SYMBOL.match(t):
        fail(what, whole or text, f"{t!r} is neither a number nor a symbol name")
    return t


def _number_in(t, what, whole):
    try:
        return int(t, 0)
    except ValueError:
        fail(what, whole, f"{t!r} is not a number (decimal or 0x-hex)")


def location(text, what):
    """[CORE:]ADDR -> (addr, core)."""
    core, rest = split_core(text.strip())
    return address(rest, what, text), core


def pair(text, what, form):
    if "=" not in text:
        fail(what, text, f"expected {form}")
    return text.split("=", 1)


def condition(text, what="--until"):
    """[CORE:]ADDR[:u8|u16|u32]=VALUE[/MASK] -> Condition (addr may be a symbol)."""
    form = "[CORE:]ADDR[:u8|u16|u32]=VALUE[/MASK]"
    loc, value = pair(text, what, form)
    core, loc = split_core(loc.strip())
    width = 4
    if ":" in loc:
        loc, kind = loc.rsplit(":", 1)
        if kind.lower() not in WIDTHS:
            fail(what, text, f"type {kind!r}: one of {', '.join(WIDTHS)} (expected {form})")
        width = WIDTHS[kind.lower()]
    addr = address(loc, what, text)
    mask = None
    if "/" in value:
        value, mask_s = value.split("/", 1)
        mask = _number_in(mask_s.strip(), what, text)
    cond = Condition(addr, _number_in(value.strip(), what, text), core, width, mask)
    why = check(cond)
    if why:
        fail(what, text, why)
    return cond


def write(text, what="--write"):
    """[CORE:]ADDR=VALUE[,VALUE...][ when COND] -> (addr, [values], core, when or None)."""
    body, sep, when = text.partition(" when ")
    loc, values = pair(body, what, "[CORE:]ADDR=VALUE[,VALUE...][ when ADDR=VALUE]")
    addr, core = location(loc, what)
    words = [_number_in(v.strip(), what, text) for v in values.split(",")]
    for w in words:
        if not -(1 << 31) <= w < (1 << 32):
            fail(what, text, f"{w:#x} does not fit a 32-bit word")
    if isinstance(addr, str) and len(words) > 1:
        fail(what, text, "several values need a numeric address")
    return addr, words, core, (condition(when.strip(), f"{what} ... when") if sep else None)


def load(text, what="--load"):
    """[CORE:]ADDR=FILE -> (addr, core, path)."""
    loc, path = pair(text, what, "[CORE:]ADDR=FILE")
    addr, core = location(loc, what)
    if not path:
        fail(what, text, "no file named")
    return addr, core, path


def dump(text, what="--dump"):
    """[CORE:]ADDR:LEN=FILE -> (addr, length, core, path)."""
    form = "[CORE:]ADDR:LEN=FILE"
    if "=" not in text:
        fail(what, text, f"expected {form}")
    loc, path = text.rsplit("=", 1)
    core, loc = split_core(loc)
    if ":" not in loc or not path:
        fail(what, text, f"expected {form}")
    addr_s, len_s = loc.rsplit(":", 1)
    return address(addr_s, what, text), _length(len_s, what, text), core, path


def dump_l1(text, what="--dump-l1"):
    """[CORE:]ADDR:LEN[:FMT] -> (addr, length, core, fmt); FMT checked here."""
    from ..dump import SIMPLE_FORMATS

    core, rest = split_core(text)
    parts = rest.split(":")
    if len(parts) not in (2, 3):
        fail(what, text, "expected [CORE:]ADDR:LEN[:FMT]")
    fmt = parts[2] if len(parts) == 3 else "hex32"
    if fmt not in SIMPLE_FORMATS:
        if not fmt.startswith("tile-"):
            fail(what, text, f"format {fmt!r}: one of {', '.join(SIMPLE_FORMATS)} or tile-<format>")
        from ..tensix.dump_tiles import TILE_FORMATS

        if fmt not in TILE_FORMATS:
            fail(what, text, f"tile format {fmt!r}: one of {', '.join(TILE_FORMATS)}")
    return address(parts[0], what, text), _length(parts[1], what, text), core, fmt


def _length(text, what, whole):
    n = _number_in(text.strip(), what, whole)
    if n <= 0:
        fail(what, whole, "the length must be positive")
    return n


def local_data(text, what="--local-data"):
    """CORE=ADDR -> (core, L1 address)."""
    core, addr = pair(text, what, "CORE=ADDR")
    core_name(core.strip(), what, text)
    value = _number_in(addr.strip(), what, text)
    if value < 0:
        fail(what, text, "an address cannot be negative")
    return core.strip(), value


def core_elf(text, what="--core"):
    name, path = pair(text, what, "NAME=ELF")
    core_name(name, what, text)
    if not path:
        fail(what, text, "no ELF named")
    return name, path


def _tile_location(text, what, form):
    """[NAME=]ADDR:FMT[:RxC]=REST -> (a table with addr, format and the name and shape
    when given, REST)."""
    name = None
    head, sep, rest = text.partition("=")
    if sep and ":" not in head:  # NAME= first
        name = head.strip()
        if not name.isidentifier():
            fail(what, text, f"name {name!r} is not an identifier (a reference names it)")
        head, sep, rest = rest.partition("=")
    if not sep or not rest:
        fail(what, text, f"expected {form}")
    parts = head.split(":")
    if len(parts) not in (2, 3):
        fail(what, text, f"expected {form}")
    shape = None
    if len(parts) == 3:
        m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", parts[2])
        if not m:
            fail(what, text, f"shape {parts[2]!r} is not RxC (e.g. 32x64)")
        shape = [int(m.group(1)), int(m.group(2))]
    spec = {"addr": address(parts[0], what, text), "format": parts[1].strip()}
    if name:
        spec["name"] = name
    if shape:
        spec["shape"] = shape
    return spec, rest


def _source(text):
    """A generator call, e.g. uniform(-4,4), or None."""
    m = re.fullmatch(r"\s*([a-z]+)\s*(?:\((.*)\))?\s*", text)
    if not m or m.group(1) not in GENERATORS:
        return None
    return m.group(1), [a.strip() for a in m.group(2).split(",")] if m.group(2) and m.group(2).strip() else []


def input_spec(text, what="--input"):
    """[NAME=]ADDR:FMT[:RxC]=SOURCE -> a manifest ``[[input]]`` table. SOURCE: a
    generator (uniform(LO,HI), normal(MEAN,STD), randint(LO,HI), arange(START[,STEP]),
    ones, zeros, identity), numbers ``[v, ...]`` (row-major), or a file of raw L1 bytes."""
    spec, source = _tile_location(text, what, "[NAME=]ADDR:FMT[:RxC]=SOURCE")
    gen = _source(source)
    if gen is not None:
        kind, args = gen
        fewest, most = GENERATOR_ARGS[kind]
        nums = [_float(a, what, text) for a in args]
        if not fewest <= len(nums) <= most:
            fail(what, text, f"{kind} takes {fewest if fewest == most else f'{fewest} to {most}'} numbers")
        spec["generate"] = kind
        if kind == "arange":
            spec["range"] = [nums[0], 0.0]
            if len(nums) > 1:
                spec["step"] = nums[1]
        elif nums:
            spec["range"] = nums
    elif source.strip().startswith("["):
        import ast

        try:
            values = ast.literal_eval(source.strip())
        except (ValueError, SyntaxError):
            fail(what, text, "numbers must be a list such as [1, 2.5, -3]")
        spec["values"] = values
    else:
        spec["file"] = source
    return spec


def expect_spec(text, what="--expect"):
    """[NAME=]ADDR:FMT[:RxC]=FILE|EXPR -> a manifest ``[[expect]]`` table: FILE (.npy
    numbers or raw L1 bytes) when it exists, else a numpy expression over the inputs."""
    spec, rest = _tile_location(text, what, "[NAME=]ADDR:FMT[:RxC]=FILE|EXPR")
    if os.path.isfile(rest):
        spec["file"] = rest
    else:
        try:
            compile(rest, "<--expect>", "eval")
        except SyntaxError:
            fail(what, text, f"{rest!r} is neither an existing file nor a numpy expression")
        spec["reference"] = rest
    return spec


def _float(text, what, whole):
    try:
        return float(text)
    except ValueError:
        fail(what, whole, f"{text!r} is not a number")


def stages(text, what="--trace-stages", allowed=TRACE_STAGES):
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        fail(what, text, f"name at least one of {', '.join(allowed)}")
    for s in names:
        if s not in allowed:
            fail(what, text, f"unknown stage {s!r} (one of {', '.join(allowed)})")
    return tuple(names)


def output_path(path, what, error=UsageError):
    """An output file the run will write: its directory must exist and be writable.
    Checked before the run, so a typo costs nothing. ``error``: BadInput for a path a
    manifest names."""
    parent = os.path.dirname(os.path.abspath(path))
    why = None
    if path == "-":
        return path
    if os.path.isdir(path):
        why = "is a directory"
    elif not os.path.isdir(parent):
        why = f"directory {parent} does not exist"
    elif not os.access(path if os.path.exists(path) else parent, os.W_OK):
        why = "not writable"
    if why:
        raise error(f"{what} {path!r}: {why}")
    return path


def resolve(addr, tile, what):
    """A location's address: numbers as they are, symbols from the loaded ELFs."""
    if isinstance(addr, int):
        return addr
    try:
        return tile.symbol(addr)
    except KeyError:
        raise UsageError(f"{what}: {addr!r} is neither a number nor a symbol of the loaded ELFs") from None


def resolve_condition(cond, tile, what):
    if isinstance(cond.addr, int):
        return cond
    return Condition(resolve(cond.addr, tile, what), cond.value, cond.core, cond.width, cond.mask)
