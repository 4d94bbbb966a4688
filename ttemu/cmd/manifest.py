"""Run manifests: a TOML file describing a kernel set and its check.

    ttemu run path/to/kernel.toml [OPTIONS]

The schema is documented in README.md ("Manifests"), each key beside the option that
says the same on the command line. Every key of every table is checked before
anything runs (:data:`SCHEMA`): an unknown key is named with the allowed ones, a value
of the wrong type or range is named with what it should be; the error is
:class:`BadInput` (exit 1) naming the file and the key. Paths inside a manifest are
relative to the manifest's directory. Command-line options override the manifest's
values (``--max-steps``, ``--idle-steps``, ``--release``, ``--arch``, ``--seed``,
``--trace``...); ``--until``, ``--write``, ``--load``, ``--input``, ``--expect`` and
dumps add to it.

:func:`make_input` and :func:`make_expect` build an input / a check from a table; the
command line's ``--input`` / ``--expect`` build the same tables (ttemu.cmd.specs).
"""

from __future__ import annotations

import math
import os

from ..arch import ARCH_NAMES, CORE_NAMES
from ..condition import WIDTHS, Condition, check
from ..errors import BadInput, TtemuError, UsageError
from ..record import Factory, Record
from .specs import GENERATORS, SYMBOL

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    import numpy as np

CORES = CORE_NAMES
#: table -> its keys. "cores" maps core names (or arch names, to tables of core names) to
#: ELF paths and "local_data" core names to addresses: their keys are checked as names.
SCHEMA = {
    "": ("name", "description", "arch", "release", "max_steps", "idle_steps", "seed", "trace", "dump_l1",
         "dump", "cores", "local_data", "input", "write", "until", "expect"),
    "input": ("name", "addr", "format", "shape", "generate", "range", "step", "seed", "values", "file"),
    "write": ("addr", "value", "values", "core", "when"),
    "until": ("addr", "value", "core", "type", "mask"),
    "when": ("addr", "value", "core", "type", "mask"),
    "expect": ("name", "addr", "format", "shape", "reference", "file", "atol", "rtol"),
}
TOP_KEYS = set(SCHEMA[""])


class Input(Record):
    name: str
    addr: int
    format: str
    shape: tuple
    data: bytes
    values: np.ndarray  # what the kernel sees (after conversion to the format), float64


class Expect(Record):
    name: str
    addr: int
    format: str
    shape: tuple
    expected: np.ndarray
    atol: float
    rtol: float


class Manifest(Record):
    path: str
    name: str
    arch: str | None = None
    cores: list = Factory(list)  # [(core, path)]
    local_data: dict = Factory(dict)  # core -> L1 address its local-memory segment is staged at
    release: list | None = None
    max_steps: int | None = None
    idle_steps: int | None = None
    seed: int = 0
    inputs: list = Factory(list)
    writes: list = Factory(list)  # (addr or symbol, value, core)
    #: host writes made after release, once a condition holds: (Condition, addr, value, core)
    later: list = Factory(list)
    until: list = Factory(list)  # Condition (addr may be a symbol until resolved)
    expects: list = Factory(list)
    dump_l1: list = Factory(list)
    dumps: list = Factory(list)  # "ADDR:LEN=FILE", FILE relative to the manifest
    trace: str | None = None
    raw: dict = Factory(dict, repr=False)


class Where:
    """Names the place of a value in error messages: a manifest key
    (``k.toml: input[0].shape: ...``, :class:`BadInput`) or an option
    (``--input '...': shape: ...``, :class:`UsageError`)."""

    def __init__(self, prefix, error=BadInput, dot="."):
        self.prefix, self.error, self.dot = prefix, error, dot

    def key(self, key):
        return f"{self.prefix}{self.dot}{key}" if key else self.prefix

    def fail(self, key, why):
        raise self.error(f"{self.key(key)}: {why}")

    def sub(self, key):
        return Where(self.key(key), self.error, self.dot)


def option_where(option, text):
    return Where(f"{option} {text!r}", UsageError, ": ")


# -- value checks -----------------------------------------------------------------------
def known_keys(table, kind, where):
    """``table`` must be a table whose keys are all in SCHEMA[kind]."""
    if not isinstance(table, dict):
        where.fail("", f"must be a table ({{...}} or [{kind}]), not {_show(table)}")
    allowed = SCHEMA[kind]
    for k in table:
        if k not in allowed:
            import difflib

            close = difflib.get_close_matches(k, allowed, 1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            where.fail("", f"unknown key {k!r} ({hint}allowed: {', '.join(allowed)})")
    return table


def _show(v):
    return f"{type(v).__name__} {v!r}" if not isinstance(v, (dict, list)) else type(v).__name__


def integer(v, where, key, lo=None):
    """An integer (TOML integer, or a string of one: "0x10")."""
    if isinstance(v, str):
        try:
            v = int(v, 0)
        except ValueError:
            where.fail(key, f"{v!r} is not a number")
    if isinstance(v, bool) or not isinstance(v, int):
        where.fail(key, f"must be an integer, not {_show(v)}")
    if lo is not None and v < lo:
        where.fail(key, f"{v} must be at least {lo}")
    return v


def real(v, where, key, lo=None):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        where.fail(key, f"must be a number, not {_show(v)}")
    if math.isnan(v) or (lo is not None and v < lo):
        where.fail(key, f"{v} must be a number >= {lo}" if lo is not None else f"{v} is not a number")
    return float(v)


def addr_or_symbol(v, where, key):
    """An address (integer >= 0) or a symbol name of the loaded ELFs (resolved later)."""
    if isinstance(v, str):
        try:
            v = int(v, 0)
        except ValueError:
            if not SYMBOL.match(v):
                where.fail(key, f"{v!r} is neither a number nor a symbol name")
            return v
    if v is None:
        where.fail(key, "is required")
    return integer(v, where, key, 0)


def string(v, where, key):
    if not isinstance(v, str):
        where.fail(key, f"must be a string, not {_show(v)}")
    return v


def strings(v, where, key):
    if isinstance(v, str) or not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        where.fail(key, f"must be a list of strings, not {_show(v)}")
    return list(v)


def core_of(v, where, key):
    if v is None:
        return None
    if v not in CORES:
        where.fail(key, f"unknown core {v!r} (one of {', '.join(CORES)})")
    return v


def shape_of(v, where, key="shape"):
    if isinstance(v, tuple):
        v = list(v)
    if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                        for x in v)):
        where.fail(key, f"must be [rows, cols], not {v!r}")
    if v[0] % 32 or v[1] % 32 or v[0] <= 0 or v[1] <= 0:
        where.fail(key, f"{v}: rows and cols must be positive multiples of 32")
    return tuple(v)


def format_of(spec, where):
    from .. import tiles

    fmt = spec.get("format")
    if fmt is None:
        where.fail("format", "is required")
    fmt = string(fmt, where, "format")
    if fmt.lower() not in tiles.FORMATS:
        where.fail("format", f"unknown tile format {fmt!r} (one of {', '.join(sorted(set(tiles.FORMATS)))})")
    return fmt


def condition_of(spec, where, kind):
    """An [[until]] table or a write's ``when``: addr, value, core, type, mask."""
    known_keys(spec, kind, where)
    if "value" not in spec:
        where.fail("value", "is required")
    kind_ = string(spec.get("type", "u32"), where, "type").lower()
    if kind_ not in WIDTHS:
        where.fail("type", f"{kind_!r}: one of {', '.join(WIDTHS)}")
    mask = integer(spec["mask"], where, "mask") if "mask" in spec else None
    cond = Condition(addr_or_symbol(spec.get("addr"), where, "addr"), integer(spec["value"], where, "value"),
                     core_of(spec.get("core"), where, "core"), WIDTHS[kind_], mask)
    why = check(cond)
    if why:
        where.fail("", why)
    return cond


# -- loading --------------------------------------------------------------------------------
def _cores_for(cores, arch, where):
    """[cores] maps core names to ELF paths; a sub-table named for an arch
    (``[cores.blackhole]``) gives that arch's ELFs instead, used when the run is for
    that arch (``--arch`` or the manifest's ``arch``)."""
    if not isinstance(cores, dict) or not cores:
        where.fail("cores", "must map core names to ELF paths")
    plain = {}
    per_arch = {}
    for k, v in cores.items():
        if isinstance(v, dict):
            if k not in ARCH_NAMES:
                where.fail(f"[cores.{k}]", f"unknown arch (one of {', '.join(ARCH_NAMES)})")
            if not v:
                where.fail(f"[cores.{k}]", "must map core names to ELF paths")
            for c, p in v.items():
                core_of(c, where, f"cores.{k}")
                string(p, where, f"cores.{k}.{c}")
            per_arch[k] = v
        else:
            core_of(k, where, "cores")
            string(v, where, f"cores.{k}")
            plain[k] = v
    chosen = per_arch.get(arch, plain)
    if not chosen:
        where.fail("cores", f"has no ELFs for {arch or 'the default arch'} "
                            f"(only [cores.{'], [cores.'.join(sorted(per_arch))}])")
    return chosen


def load(path: str, seed_override: int | None = None, arch: str | None = None) -> Manifest:
    """``arch`` (the run's ``--arch``, else the manifest's own) selects the
    ``[cores.<arch>]`` table when the manifest has one."""
    try:
        with open(path, "rb") as f:
            text = f.read()
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror}") from None
    doc = _parse_toml(path, text)
    top = Where(path, BadInput, ": ")
    known_keys(doc, "", Where(path))
    base = os.path.dirname(os.path.abspath(path))

    def rel(p):
        return p if os.path.isabs(p) else os.path.normpath(os.path.join(base, p))

    m = Manifest(path=path, name=string(doc.get("name", os.path.splitext(os.path.basename(path))[0]), top, "name"),
                 raw=doc)
    string(doc.get("description", ""), top, "description")
    m.arch = doc.get("arch")
    if m.arch is not None and m.arch not in ARCH_NAMES:
        top.fail("arch", f"{m.arch!r}: one of {', '.join(ARCH_NAMES)}")
    m.seed = integer(doc.get("seed", 0), top, "seed", 0) if seed_override is None else seed_override
    for core, elf in _cores_for(doc.get("cores"), arch or m.arch, top).items():
        m.cores.append((core, rel(elf)))
    local = doc.get("local_data", {})
    if not isinstance(local, dict):
        top.fail("local_data", "must map core names to L1 addresses")
    for core, addr in local.items():
        core_of(core, top, "local_data")
        m.local_data[core] = integer(addr, top, f"local_data.{core}", 0)
    if "release" in doc:
        rel_ = doc["release"]
        names = [rel_] if isinstance(rel_, str) else strings(rel_, top, "release")
        m.release = [core_of(n, top, "release") for n in names]
    if "max_steps" in doc:
        m.max_steps = integer(doc["max_steps"], top, "max_steps", 1)
    if "idle_steps" in doc:
        m.idle_steps = integer(doc["idle_steps"], top, "idle_steps", 1)
    m.trace = rel(string(doc["trace"], top, "trace")) if "trace" in doc else None
    from . import specs

    m.dump_l1 = strings(doc.get("dump_l1", []), top, "dump_l1")
    for k, text in enumerate(m.dump_l1):
        _as_bad_input(specs.dump_l1, text, top.key(f"dump_l1[{k}]"))
    for k, text in enumerate(strings(doc.get("dump", []), top, "dump")):
        addr, n, core, out = _as_bad_input(specs.dump, text, top.key(f"dump[{k}]"))
        m.dumps.append(text if out == "-" else text[:len(text) - len(out)] + rel(out))

    tables = {}
    for kind in ("input", "write", "until", "expect"):
        value = doc.get(kind, [])
        if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
            top.fail(kind, f"must be an array of tables ([[{kind}]]), not {_show(value)}")
        tables[kind] = value

    named = {}
    for k, spec in enumerate(tables["input"]):
        seed = None if seed_override is None else seed_override + k
        inp = make_input(spec, k, m.seed, Where(f"{path}: input[{k}]"), rel, seed)
        if inp.name in named:
            top.fail(f"input[{k}].name", f"{inp.name!r} names an earlier input too")
        m.inputs.append(inp)
        named[inp.name] = inp.values

    for k, spec in enumerate(tables["write"]):
        where = Where(f"{path}: write[{k}]")
        known_keys(spec, "write", where)
        addr = addr_or_symbol(spec.get("addr"), where, "addr")
        core = core_of(spec.get("core"), where, "core")
        if ("value" in spec) == ("values" in spec):
            where.fail("", "give value = N or values = [N, ...]")
        words = [spec["value"]] if "value" in spec else spec["values"]
        if not isinstance(words, list) or not words:
            where.fail("values", "must be a non-empty list of integers")
        words = [integer(v, where, "value" if "value" in spec else "values") for v in words]
        for v in words:
            if not -(1 << 31) <= v < (1 << 32):
                where.fail("value", f"{v:#x} does not fit a 32-bit word")
        when = spec.get("when")
        if when is not None:
            when = condition_of(when, where.sub("when"), "when")
        if isinstance(addr, str) and len(words) > 1:
            where.fail("", "several values need a numeric addr")
        for i, v in enumerate(words):
            a = addr if isinstance(addr, str) else addr + 4 * i
            if when is None:
                m.writes.append((a, v, core))
            else:
                m.later.append((when, a, v, core))
    for k, spec in enumerate(tables["until"]):
        m.until.append(condition_of(spec, Where(f"{path}: until[{k}]"), "until"))

    for k, spec in enumerate(tables["expect"]):
        m.expects.append(make_expect(spec, k, named, Where(f"{path}: expect[{k}]"), rel))
    return m


def _as_bad_input(parse, text, key):
    """A dump string of a manifest, parsed as its option is; errors name the key."""
    try:
        return parse(text, key)
    except UsageError as e:
        raise BadInput(str(e)) from None


def make_input(spec, k, seed, where, rel=lambda p: p, seed_override=None) -> Input:
    """An ``[[input]]`` table (or ``--input``'s) -> :class:`Input`: its bytes in the
    format and the numbers the kernel sees. ``seed``: the run's seed (input k
    generates with seed + k unless the table gives its own); ``seed_override``:
    ``--seed`` + k, which wins."""
    import numpy as np

    from .. import tiles

    known_keys(spec, "input", where)
    name = string(spec.get("name", f"in{k}"), where, "name")
    if not name.isidentifier():
        where.fail("name", f"{name!r} is not an identifier (references name inputs)")
    fmt = format_of(spec, where)
    addr = addr_or_symbol(spec.get("addr"), where, "addr")
    sources = [s for s in ("file", "values", "generate") if s in spec]
    if len(sources) > 1:
        where.fail("", f"give one of file, values, generate (got {', '.join(sources)})")
    if "file" in spec:
        path = rel(string(spec["file"], where, "file"))
        data = _read(path, where, "file")
        shape = shape_of(spec["shape"], where) if "shape" in spec else None
        if shape:
            need = tiles.nbytes(fmt, shape)
            if len(data) < need:
                where.fail("file", f"{path}: {len(data)} bytes, fewer than {need} for {shape[0]}x{shape[1]} {fmt}")
            values = tiles.decode(data, fmt, shape)
        else:
            values = np.zeros((0, 0))
    else:
        shape = shape_of(spec.get("shape", [32, 32]), where)
        if "values" in spec:
            v = spec["values"]
            if not isinstance(v, list):
                where.fail("values", f"must be a list of numbers, not {_show(v)}")
            try:
                raw = np.asarray(v, dtype=np.float64)
            except (TypeError, ValueError):
                where.fail("values", "must be a list of numbers (row-major)")
            if raw.size != shape[0] * shape[1]:
                where.fail("values", f"{raw.size} numbers for a {shape[0]}x{shape[1]} input "
                                     f"({shape[0] * shape[1]} needed)")
            raw = raw.reshape(shape)
        else:
            kind = spec.get("generate", "uniform")
            if kind not in GENERATORS:
                where.fail("generate", f"{kind!r}: one of {', '.join(GENERATORS)}")
            lo_hi = spec.get("range", [-1.0, 1.0])
            if not (isinstance(lo_hi, list) and len(lo_hi) == 2):
                where.fail("range", f"must be [low, high], not {lo_hi!r}")
            lo, hi = (real(x, where, "range") for x in lo_hi)
            if kind in ("uniform", "randint") and lo > hi:
                where.fail("range", f"[{lo:g}, {hi:g}]: low is above high")
            if kind == "normal" and hi < 0:
                where.fail("range", f"[{lo:g}, {hi:g}]: the standard deviation (second) is negative")
            if "step" in spec:
                real(spec["step"], where, "step")
            own = integer(spec["seed"], where, "seed", 0) if "seed" in spec else seed + k
            raw = generate(spec, shape, own if seed_override is None else seed_override)
        data = tiles.encode(raw, fmt)
        values = tiles.decode(data, fmt, shape)
    return Input(name, addr, fmt, shape, data, values)


def make_expect(spec, k, named, where, rel=lambda p: p, or_file=False) -> Expect:
    """An ``[[expect]]`` table (or ``--expect``'s) -> :class:`Expect`. ``or_file``: the
    reference may have been meant as a file name (``--expect``), and an error says so."""
    import numpy as np

    known_keys(spec, "expect", where)
    name = string(spec.get("name", f"out{k}"), where, "name")
    fmt = format_of(spec, where)
    addr = addr_or_symbol(spec.get("addr"), where, "addr")
    if "reference" in spec and "file" in spec:
        where.fail("", "give reference or file, not both")
    if "reference" in spec:
        shape = shape_of(spec.get("shape", [32, 32]), where)
        expected = evaluate(string(spec["reference"], where, "reference"), named, where, or_file)
        try:
            expected = np.broadcast_to(np.asarray(expected, dtype=np.float64), shape)
        except (TypeError, ValueError) as e:
            got = getattr(expected, "shape", None)
            why = f"gives shape {tuple(got)}, which does not fit {shape[0]}x{shape[1]}" if got is not None \
                else f"gives {type(expected).__name__}, not numbers ({e})"
            where.fail("reference", f"{spec['reference']!r} {why}")
    elif "file" in spec:
        shape = shape_of(spec["shape"], where) if "shape" in spec else None
        expected, shape = load_expected(rel(string(spec["file"], where, "file")), fmt, shape, where)
    else:
        where.fail("", "needs reference = \"<numpy expression>\" or file = ...")
    atol, rtol = _tolerance(fmt, spec, where)
    return Expect(name, addr, fmt, shape, expected, atol, rtol)


def _read(path, where, key):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        where.fail(key, f"{path}: no such file")
    except OSError as e:
        where.fail(key, f"{path}: {e.strerror}")


def generate(spec, shape, seed):
    """Generate input numbers (float64) from a manifest input spec."""
    import numpy as np

    kind = spec.get("generate", "uniform")
    lo, hi = spec.get("range", [-1.0, 1.0])
    if kind == "uniform":
        from .rng import uniform

        values = uniform(seed, lo, hi, shape[0] * shape[1])  # numpy's numbers, without numpy.random
        if values is not None:
            return values.reshape(shape)
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        return rng.uniform(lo, hi, shape)
    if kind == "normal":
        return rng.normal(lo, hi, shape)
    if kind == "randint":
        return rng.integers(int(lo), int(hi), shape, endpoint=True).astype(np.float64)
    if kind == "arange":
        return np.arange(shape[0] * shape[1], dtype=np.float64).reshape(shape) * spec.get("step", 1.0) + lo
    if kind == "ones":
        return np.ones(shape)
    if kind == "zeros":
        return np.zeros(shape)
    if kind == "identity":
        return np.eye(shape[0], shape[1])
    raise ValueError(kind)


def _parse_toml(path, text: bytes) -> dict:
    """``tomllib.load``, with the parsed document kept in the disk cache of
    ttemu.riscv.codecache (key: the file's bytes): parsing, and importing tomllib,
    cost a few ms a run; documents marshal cannot store (TOML dates) are not kept."""
    from ..riscv.codecache import CodeCache

    cache = CodeCache(kind="toml")
    key = b"toml-1:" + text
    doc = cache.get(key)
    if type(doc) is dict:
        return doc
    import tomllib

    try:
        doc = tomllib.loads(text.decode())
    except UnicodeDecodeError:
        raise BadInput(f"{path}: not a text file (a manifest is TOML)") from None
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"{path}: not valid TOML ({e})") from None
    try:
        cache.put(key, doc)
    except ValueError:  # a value marshal cannot store
        pass
    return doc


def resolve(addr, tile, where, key="addr"):
    """A manifest address: numbers as they are, symbols from the loaded ELFs."""
    if isinstance(addr, int):
        return addr
    try:
        return tile.symbol(addr)
    except KeyError:
        where.fail(key, f"{addr!r} is not a symbol of the loaded ELFs")


def resolve_condition(cond, tile, where):
    if isinstance(cond.addr, int):
        return cond
    cond = Condition(resolve(cond.addr, tile, where), cond.value, cond.core, cond.width, cond.mask)
    why = check(cond)
    if why:
        where.fail("", why)
    return cond


def load_into(man: Manifest, tile, cores=None) -> None:
    """The manifest's ELFs (``cores``: these (core, path) pairs instead), inputs and
    writes into ``tile``, before its release: as ``ttemu run`` prepares a run."""
    for core, elf in man.cores if cores is None else cores:
        tile.load_elf(elf, core=core, local_data=man.local_data.get(core))
    for k, inp in enumerate(man.inputs):
        where = Where(f"{man.path}: input[{k}]")
        place(tile, resolve(inp.addr, tile, where), inp.data, where)
    for k, (addr, value, core) in enumerate(man.writes):
        where = Where(f"{man.path}: write")
        host_write(tile, resolve(addr, tile, where), value, core, where)


def place(tile, addr, data, where):
    """Input bytes into L1 (they must fit)."""
    end = addr + len(data)
    if end > tile.arch.l1_size:
        where.fail("addr", f"0x{addr:x} + {len(data)} bytes runs past the end of L1 (0x{tile.arch.l1_size:x})")
    tile.write(addr, data)


def host_write(tile, addr, value, core, where):
    """A 32-bit host write; what the tile refuses (no core for a local address, an
    unmapped register) names the key or option."""
    try:
        tile.write_u32(addr, value, core)
    except TtemuError as e:
        where.fail("", str(e))


def _tolerance(fmt, spec, where=None):
    from .expect import DEFAULT_TOLERANCE

    where = where or Where("tolerance")
    atol, rtol = DEFAULT_TOLERANCE.get(fmt.lower(), (0.0, 0.0))
    return real(spec.get("atol", atol), where, "atol", 0.0), real(spec.get("rtol", rtol), where, "rtol", 0.0)


def evaluate(expr, named, where, or_file=False):
    """A numpy expression over the inputs (by name): the reference comes from numpy,
    not from ttemu."""
    import numpy as np

    env = {"np": np, **named}
    try:
        # a manifest is the user's own file (like a Makefile): full Python is allowed
        return eval(compile(expr, "<reference>", "eval"), {"np": np}, env)  # noqa: S307
    except Exception as e:
        if or_file:
            where.fail("", f"{expr}: no such file, and as a numpy expression over the inputs "
                           f"({', '.join(named) or 'none'}): {type(e).__name__}: {e}")
        where.fail("reference", f"{expr!r} failed: {type(e).__name__}: {e}")


def load_expected(path, fmt, shape=None, where=None):
    """A .npy array of numbers, or raw L1 bytes in ``fmt`` (shape needed, default 32x32)."""
    import numpy as np

    from .. import tiles

    where = where or Where(path)
    if path.endswith(".npy"):
        if not os.path.isfile(path):
            where.fail("file", f"{path}: no such file")
        try:
            arr = np.load(path).astype(np.float64)
        except Exception as e:  # a damaged or foreign file: numpy says what
            where.fail("file", f"{path}: not a .npy array of numbers ({type(e).__name__}: {e})")
        if arr.ndim != 2:
            where.fail("file", f"{path}: a {arr.ndim}-D array; expected a 2-D array")
        shape_of(list(arr.shape), where, "file")
        if shape is not None and tuple(shape) != arr.shape:
            where.fail("shape", f"{shape[0]}x{shape[1]}, but {path} holds {arr.shape[0]}x{arr.shape[1]}")
        return arr, arr.shape
    data = _read(path, where, "file")
    shape = tuple(shape or (32, 32))
    need = tiles.nbytes(fmt, shape)
    if len(data) < need:
        where.fail("file", f"{path}: {len(data)} bytes, fewer than {need} for {shape[0]}x{shape[1]} {fmt}")
    return tiles.decode(data, fmt, shape), shape
