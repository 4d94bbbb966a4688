"""Run manifests: a TOML file describing a kernel set and its check.

    ttemu run path/to/kernel.toml [OPTIONS]

The schema is documented in README.md ("Manifests"). Paths inside a manifest are
relative to the manifest's directory. Command-line options override the manifest's
values (``--max-steps``, ``--idle-steps``, ``--release``, ``--arch``, ``--seed``...);
``--until``, ``--write``, ``--load`` and dumps add to it.
"""

from __future__ import annotations

import os

from ..errors import BadInput, UsageError
from ..record import Factory, Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    import numpy as np

CORES = ("brisc", "trisc0", "trisc1", "trisc2", "ncrisc")
TOP_KEYS = {"name", "description", "arch", "release", "max_steps", "idle_steps", "seed", "cores", "input",
            "write", "until", "expect", "dump_l1", "dump", "trace", "local_data"}
GENERATORS = ("uniform", "normal", "randint", "arange", "ones", "zeros", "identity")


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
    #: host writes made after release, once a word holds: ((cond addr, cond value), addr, value, core)
    later: list = Factory(list)
    until: list = Factory(list)  # (addr or symbol, value, core)
    expects: list = Factory(list)
    dump_l1: list = Factory(list)
    dumps: list = Factory(list)
    trace: str | None = None
    raw: dict = Factory(dict, repr=False)


def _where(path, what):
    return f"{os.path.basename(path)}: {what}"


def _int(v, path, what):
    if isinstance(v, bool):
        raise BadInput(_where(path, f"{what} must be a number"))
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        try:
            return int(v, 0)
        except ValueError:
            return v  # a symbol name, resolved once the ELFs are loaded
    raise BadInput(_where(path, f"{what} must be a number or a symbol name, not {v!r}"))


def _shape(v, path, what):
    if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) for x in v)):
        raise BadInput(_where(path, f"{what}.shape must be [rows, cols]"))
    if v[0] % 32 or v[1] % 32 or v[0] <= 0 or v[1] <= 0:
        raise BadInput(_where(path, f"{what}.shape {v}: rows and cols must be positive multiples of 32"))
    return tuple(v)


def _format_and_addr(spec, path, what):
    from .. import tiles

    """The tile format (checked) and L1 address (number or symbol) of an input/expect."""
    fmt = spec.get("format")
    if fmt is None:
        raise BadInput(_where(path, f"{what}: format is required"))
    tiles.data_format(fmt)
    return fmt, _int(spec.get("addr"), path, f"{what}.addr")


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


def _cores_for(cores, arch, path):
    """[cores] maps core names to ELF paths; a sub-table named for an arch
    (``[cores.blackhole]``) gives that arch's ELFs instead, used when the run is for
    that arch (``--arch`` or the manifest's ``arch``)."""
    from ..arch import ARCH_NAMES

    if not isinstance(cores, dict) or not cores:
        raise BadInput(_where(path, "[cores] must map core names to ELF paths"))
    plain = {k: v for k, v in cores.items() if not isinstance(v, dict)}
    per_arch = {k: v for k, v in cores.items() if isinstance(v, dict)}
    for name, table in per_arch.items():
        if name not in ARCH_NAMES:
            raise BadInput(_where(path, f"[cores.{name}]: unknown arch (one of {', '.join(ARCH_NAMES)})"))
        if not table:
            raise BadInput(_where(path, f"[cores.{name}] must map core names to ELF paths"))
    chosen = per_arch.get(arch, plain)
    if not chosen:
        raise BadInput(_where(path, f"[cores] has no ELFs for {arch or 'the default arch'} "
                                    f"(only [cores.{'], [cores.'.join(sorted(per_arch))}])"))
    return chosen


def load(path: str, seed_override: int | None = None, arch: str | None = None) -> Manifest:
    """``arch`` (the run's ``--arch``, else the manifest's own) selects the
    ``[cores.<arch>]`` table when the manifest has one."""
    try:
        with open(path, "rb") as f:
            text = f.read()
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    doc = _parse_toml(path, text)
    unknown = set(doc) - TOP_KEYS
    if unknown:
        raise BadInput(_where(path, f"unknown key(s) {', '.join(sorted(unknown))} "
                                    f"(allowed: {', '.join(sorted(TOP_KEYS))})"))
    base = os.path.dirname(os.path.abspath(path))

    def rel(p):
        return p if os.path.isabs(p) else os.path.normpath(os.path.join(base, p))

    m = Manifest(path=path, name=doc.get("name", os.path.splitext(os.path.basename(path))[0]), raw=doc)
    m.arch = doc.get("arch")
    m.seed = int(doc.get("seed", 0)) if seed_override is None else seed_override
    for core, elf in _cores_for(doc.get("cores", {}), arch or m.arch, path).items():
        if core not in CORES:
            raise BadInput(_where(path, f"[cores]: unknown core {core!r} (one of {', '.join(CORES)})"))
        m.cores.append((core, rel(elf)))
    local = doc.get("local_data", {})
    if not isinstance(local, dict):
        raise BadInput(_where(path, "[local_data] must map core names to L1 addresses"))
    for core, addr in local.items():
        if core not in CORES or not isinstance(addr, int):
            raise BadInput(_where(path, f"[local_data]: {core!r} = {addr!r} (a core name = an L1 address)"))
        m.local_data[core] = addr
    if "release" in doc:
        rel_ = doc["release"]
        m.release = [rel_] if isinstance(rel_, str) else list(rel_)
    m.max_steps = doc.get("max_steps")
    m.idle_steps = doc.get("idle_steps")
    m.trace = rel(doc["trace"]) if "trace" in doc else None
    m.dump_l1 = list(doc.get("dump_l1", []))
    m.dumps = list(doc.get("dump", []))

    named = {}
    if doc.get("input") or doc.get("expect"):  # numpy only for manifests with numbers
        import numpy as np

        from .. import tiles
    for k, spec in enumerate(doc.get("input", [])):
        what = f"input[{k}]"
        name = spec.get("name", f"in{k}")
        fmt, addr = _format_and_addr(spec, path, what)
        if "file" in spec:
            with open(rel(spec["file"]), "rb") as f:
                data = f.read()
            shape = _shape(spec["shape"], path, what) if "shape" in spec else None
            values = tiles.decode(data, fmt, shape) if shape else np.zeros((0, 0))
        else:
            shape = _shape(spec.get("shape", [32, 32]), path, what)
            if "values" in spec:
                raw = np.asarray(spec["values"], dtype=np.float64).reshape(shape)
            else:
                kind = spec.get("generate", "uniform")
                if kind not in GENERATORS:
                    raise BadInput(_where(path, f"{what}.generate {kind!r}: one of {', '.join(GENERATORS)}"))
                seed = spec.get("seed", m.seed + k) if seed_override is None else seed_override + k
                raw = generate(spec, shape, seed)
            data = tiles.encode(raw, fmt)
            values = tiles.decode(data, fmt, shape)
        inp = Input(name, addr, fmt, shape, data, values)
        m.inputs.append(inp)
        named[name] = values

    for k, spec in enumerate(doc.get("write", [])):
        what = f"write[{k}]"
        addr = _int(spec.get("addr"), path, f"{what}.addr")
        core = spec.get("core")
        words = spec["values"] if "values" in spec else [spec.get("value")]
        when = spec.get("when")
        if when is not None:
            if not isinstance(when, dict) or set(when) != {"addr", "value"}:
                raise BadInput(_where(path, f"{what}.when: a table {{addr = ..., value = ...}}"))
            when = (_int(when["addr"], path, f"{what}.when.addr"), _int(when["value"], path, f"{what}.when.value"))
        for i, v in enumerate(words):
            v = _int(v, path, f"{what}.value")
            if isinstance(addr, str) and i:
                raise BadInput(_where(path, f"{what}: several values need a numeric addr"))
            a = addr if isinstance(addr, str) else addr + 4 * i
            if when is None:
                m.writes.append((a, v, core))
            else:
                m.later.append((when, a, v, core))
    for k, spec in enumerate(doc.get("until", [])):
        m.until.append((_int(spec.get("addr"), path, f"until[{k}].addr"),
                        _int(spec.get("value"), path, f"until[{k}].value"), spec.get("core")))

    for k, spec in enumerate(doc.get("expect", [])):
        what = f"expect[{k}]"
        fmt, addr = _format_and_addr(spec, path, what)
        if "reference" in spec:
            shape = _shape(spec.get("shape", [32, 32]), path, what)
            expected = evaluate(spec["reference"], named, path, what)
            expected = np.broadcast_to(np.asarray(expected, dtype=np.float64), shape)
        elif "file" in spec:
            expected, shape = load_expected(rel(spec["file"]), fmt, spec.get("shape"))
        else:
            raise BadInput(_where(path, f"{what}: needs reference = \"<numpy expression>\" or file = ..."))
        atol, rtol = _tolerance(fmt, spec)
        m.expects.append(Expect(spec.get("name", f"out{k}"), addr, fmt, shape, expected, atol, rtol))
    return m


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
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"{path}: not valid TOML ({e})") from None
    try:
        cache.put(key, doc)
    except ValueError:  # a value marshal cannot store
        pass
    return doc


def load_into(man: Manifest, tile, cores=None) -> None:
    """The manifest's ELFs (``cores``: these (core, path) pairs instead), inputs and
    writes into ``tile``, before its release: as ``ttemu run`` prepares a run."""
    for core, elf in man.cores if cores is None else cores:
        tile.load_elf(elf, core=core, local_data=man.local_data.get(core))
    for inp in man.inputs:
        tile.write(tile.symbol(inp.addr) if isinstance(inp.addr, str) else inp.addr, inp.data)
    for addr, value, core in man.writes:
        tile.write_u32(tile.symbol(addr) if isinstance(addr, str) else addr, value, core)


def _tolerance(fmt, spec):
    from .expect import DEFAULT_TOLERANCE

    atol, rtol = DEFAULT_TOLERANCE.get(fmt.lower(), (0.0, 0.0))
    return float(spec.get("atol", atol)), float(spec.get("rtol", rtol))


def evaluate(expr, named, path, what):
    """A numpy expression over the inputs (by name): the reference comes from numpy,
    not from ttemu."""
    import numpy as np

    env = {"np": np, **named}
    try:
        # a manifest is the user's own file (like a Makefile): full Python is allowed
        return eval(compile(expr, f"<{what}.reference>", "eval"), {"np": np}, env)  # noqa: S307
    except Exception as e:
        raise BadInput(_where(path, f"{what}.reference {expr!r} failed: {type(e).__name__}: {e}")) from None


def load_expected(path, fmt, shape=None):
    """A .npy array of numbers, or raw L1 bytes in ``fmt`` (shape needed, default 32x32)."""
    import numpy as np

    from .. import tiles

    try:
        if path.endswith(".npy"):
            arr = np.load(path).astype(np.float64)
            if arr.ndim != 2:
                raise BadInput(f"{path}: expected a 2-D array")
            tiles.nbytes(fmt, arr.shape)
            return arr, arr.shape
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    shape = tuple(shape or (32, 32))
    return tiles.decode(data, fmt, shape), shape


def parse_expect_option(text):
    """--expect ADDR:FMT[:RxC]=FILE -> (addr text, fmt, shape or None, file)."""
    if "=" not in text:
        raise UsageError(f"--expect expects ADDR:FMT[:RxC]=FILE, got {text!r}")
    loc, path = text.rsplit("=", 1)
    parts = loc.split(":")
    if len(parts) not in (2, 3):
        raise UsageError(f"--expect expects ADDR:FMT[:RxC]=FILE, got {text!r}")
    shape = None
    if len(parts) == 3:
        try:
            r, c = parts[2].lower().split("x")
            shape = (int(r), int(c))
        except ValueError:
            raise UsageError(f"--expect: shape {parts[2]!r} is not RxC (e.g. 32x64)") from None
    return parts[0], parts[1], shape, path
