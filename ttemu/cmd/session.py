"""One ``ttemu run`` / ``ttemu trace`` invocation: options -> tile -> run -> report.

Kept apart from the click layer so the order of operations is plain to read:
read ELFs (for the arch), build the tile, load ELFs, ``--load``, ``--write``, release,
run, dump, summarise. Returns the exit code; errors propagate as typed exceptions.
"""

from __future__ import annotations

import os
import sys

from .. import dump as dumpmod
from ..arch import CORE_NAMES
from ..elf import read_elf
from ..errors import TtemuError, UsageError
from .options import _int, _pair, parse_addr, split_core


def detect_arch(paths):
    """From the ELFs' RISC-V arch attribute: Tenstorrent's toolchain adds an
    x-extension ending in the arch's hint (``ArchSpec.riscv_arch_hint``), e.g.
    ``_xtttensixwh1p0`` (Wormhole) or ``_xtttensixbh1p0`` (Blackhole), in older
    toolchains ``_xttwh1p0`` / ``_xttbh1p0``; an arch's ``riscv_arch_markers`` (an
    extension only its toolchain emits, such as Blackhole's ``_xttzbkb``) count too."""
    for p in paths:
        name = arch_of_attribute(read_elf(p).arch_attr or "")
        if name:
            return name
    return "wormhole_b0"


def arch_of_attribute(attr):
    """The arch a RISC-V arch attribute names, or None."""
    import re

    from ..arch import ARCH_NAMES, get_arch

    for name in ARCH_NAMES:
        a = get_arch(name)
        if re.search(rf"_x[a-z]*{a.riscv_arch_hint}\d", attr) or any(m in attr for m in a.riscv_arch_markers):
            return name
    return None


class Session:
    def __init__(self, opts):
        self.o = opts
        self.out = sys.stderr if opts.as_json else sys.stdout

    # -- building ------------------------------------------------------------------
    def _core_elfs(self):
        pairs = []
        for spec in self.o.cores:
            name, path = _pair(spec, "--core")
            if name not in CORE_NAMES:
                raise UsageError(f"--core: unknown core {name!r} (one of {', '.join(CORE_NAMES)})")
            pairs.append((name, path))
        return pairs

    def build(self):
        from ..tile import Tile

        o = self.o
        core_elfs = self._core_elfs()
        positional = list(o.elfs)
        man = self.manifest = None
        if len(positional) == 1 and positional[0].endswith(".toml"):
            from . import manifest

            man = self.manifest = manifest.load(positional[0], o.seed, o.arch)
            positional = []
            given = {c for c, _ in core_elfs}
            core_elfs = [(c, p) for c, p in man.cores if c not in given] + core_elfs
        if not core_elfs and not positional:
            raise UsageError("no ELF given (ttemu run [OPTIONS] ELF... or --core NAME=ELF)")
        for path in positional + [p for _, p in core_elfs]:
            if not os.path.exists(path):
                from ..errors import BadInput

                raise BadInput(f"{path}: no such file")
        arch = o.arch or (man.arch if man else None) or detect_arch(positional + [p for _, p in core_elfs])
        tile = Tile(arch, record=bool(getattr(o, "oracle", None)), **({"quantum": o.quantum} if o.quantum else {}))
        tile.diagnostics.strict = bool(getattr(o, "strict", False))
        if man:
            manifest.load_into(man, tile, core_elfs)
        else:
            for name, path in core_elfs:
                tile.load_elf(path, core=name)
        lone = len(positional) == 1 and not core_elfs
        for path in positional:
            tile.load_elf(path, start_at_entry=lone)
        for spec in o.loads:
            addr_s, path = _pair(spec, "--load")
            addr, core = parse_addr(addr_s, tile, "--load")
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                from ..errors import BadInput

                raise BadInput(f"--load {path}: {e.strerror}") from None
            tile.write(addr, data, core)
        for spec in o.writes:
            addr_s, value_s = _pair(spec, "--write")
            addr, core = parse_addr(addr_s, tile, "--write")
            tile.write_u32(addr, _int(value_s, "--write"), core)
        if o.release is not None:
            names = [n.strip() for n in o.release.split(",") if n.strip()]
        elif man and man.release is not None:
            names = man.release
        else:
            names = tile.default_release()
        tile.release(names)
        return tile

    def until_conditions(self, tile):
        conds = []
        if self.manifest:
            for addr, value, core in self.manifest.until:
                conds.append((tile.symbol(addr) if isinstance(addr, str) else addr, value, core))
        for spec in self.o.untils:
            addr_s, value_s = _pair(spec, "--until")
            addr, core = parse_addr(addr_s, tile, "--until")
            conds.append((addr, _int(value_s, "--until"), core))
        return conds

    # -- running -------------------------------------------------------------------
    def execute(self) -> int:
        self.gdb = None
        try:
            code = self._execute()
        except TtemuError as e:
            if self.gdb is not None:
                self.gdb.finish(e.exit_code)
            raise
        except Exception:
            if self.gdb is not None:
                self.gdb.finish(70)  # internal error (cli.INTERNAL_ERROR)
            raise
        if self.gdb is not None:
            self.gdb.finish(code)
        return code

    def _attach_gdb(self, tile):
        """--gdb PORT: listen on 127.0.0.1, wait for gdb, hold the tile before its first instruction."""
        from .gdb import GdbServer, listen

        o = self.o
        first = getattr(o, "gdb_core", None)
        if first is not None and first not in CORE_NAMES:
            raise UsageError(f"--gdb-core: unknown core {first!r} (one of {', '.join(CORE_NAMES)})")
        listener = listen(o.gdb)
        port = listener.getsockname()[1]
        sys.stderr.write(f"ttemu: gdb server listening on 127.0.0.1:{port}; waiting for gdb "
                         f"(target remote :{port})\n")
        sys.stderr.flush()
        server = GdbServer(tile, first)
        try:
            server.accept(listener)
        finally:
            listener.close()
        self.gdb = server
        tile.debug = server

    def _execute(self) -> int:
        o = self.o
        tile = self.build()
        man = self.manifest
        dumps = [self._parse_dump(d) for d in (man.dumps if man else []) + list(o.dumps)]
        dump_l1 = [self._parse_dump_l1(d) for d in (man.dump_l1 if man else []) + list(o.dump_l1)]
        until = self.until_conditions(tile)
        expects = self._expectations(tile)
        if getattr(o, "oracle", None) and not (dumps or dump_l1 or expects):
            raise UsageError("--oracle: nothing to compare (give --dump, --dump-l1, --expect or a manifest "
                             "with [[expect]] or dumps)")
        if getattr(o, "gdb", None) is not None:
            self._attach_gdb(tile)
        trace_file = o.trace_file or (man.trace if man else None)
        max_steps = o.max_steps if o.max_steps is not None else (man.max_steps if man else None)
        idle_steps = o.idle_steps if o.idle_steps is not None else (man.idle_steps if man else None)
        trace_out = None
        if trace_file:
            from ..trace import Tracer

            trace_out = sys.stdout if trace_file == "-" else open(trace_file, "w")
            stages = ("push", "issue") if not o.trace_stages else tuple(
                s.strip() for s in o.trace_stages.split(",") if s.strip())
            tile.tracer = Tracer(trace_out, tile, stages)
        progress = None
        if getattr(o, "progress", None) is not False and (o.progress or sys.stderr.isatty()) and not o.as_json:
            from .progress import Progress

            progress = tile.progress = Progress(sys.stderr)
        try:
            result = self._run_phases(tile, max_steps, until, idle_steps)
            if self.gdb is not None:
                self.gdb.run_ended(result)
        except TtemuError as e:
            if o.as_json and o.summary:
                import json

                json.dump({"outcome": "error", "exit_code": e.exit_code, "category": e.category,
                           "message": str(e), "cores": self._cores_json(tile),
                           "warning_count": len(tile.diagnostics.sites),
                           "warnings": tile.diagnostics.as_json()}, sys.stdout, indent=1)
                sys.stdout.write("\n")
            for line in tile.diagnostics.lines():  # what was reported before the error
                sys.stderr.write(f"ttemu: {line}\n")
            raise
        finally:
            if progress is not None:
                progress.close()
            if tile.tracer is not None:
                tile.tracer.close()
                if trace_out is not sys.stdout:
                    trace_out.close()
        dumped = self._do_dumps(tile, dumps, dump_l1) + self._tensix_dumps(tile)
        checks = self._check(tile, expects)
        exit_code = result.exit_code
        if exit_code == 0 and any(not c.ok for _, c in checks):
            exit_code = 7
        oracle = None
        if getattr(o, "oracle", None) and exit_code in (0, 7):
            oracle = self._oracle(tile, result, dumped, expects, until)
            if not oracle["ok"]:
                exit_code = 7
        if o.summary:
            self._summary(tile, result, [d["json"] for d in dumped], checks, exit_code, oracle)
        if not o.as_json:
            for d in dumped:
                if d["text"]:
                    self.out.write(d["text"] + "\n")
        for name, c in checks:
            if not c.ok:
                self.out.write(c.text() + "\n")
        for d in (oracle or {}).get("diffs", []):
            if not d.ok:
                self.out.write(d.text() + "\n")
        if not (o.summary and not o.as_json):  # the human summary lists them
            for line in tile.diagnostics.lines():
                sys.stderr.write(f"ttemu: {line}\n")
        return exit_code

    def _run_phases(self, tile, max_steps, until, idle_steps):
        """Run to the done condition; a manifest's ``when`` writes are made by the host
        in order, each once its word holds (a handshake with firmware that clears its
        mailboxes at start-up). A phase that ends otherwise ends the run."""
        for when, group in self._later_phases(tile):
            res = tile.run(max_steps=max_steps, until=[when], idle_steps=idle_steps)
            if res.outcome != "until":
                return res
            for addr, value, core in group:
                tile.write_u32(addr, value, core)
        return tile.run(max_steps=max_steps, until=until, idle_steps=idle_steps)

    def _later_phases(self, tile):
        phases = []
        for (caddr, cvalue), addr, value, core in (self.manifest.later if self.manifest else []):
            cond = (tile.symbol(caddr) if isinstance(caddr, str) else caddr, cvalue, None)
            write = (tile.symbol(addr) if isinstance(addr, str) else addr, value, core)
            if phases and phases[-1][0] == cond:
                phases[-1][1].append(write)
            else:
                phases.append((cond, [write]))
        return phases

    # -- the oracle ---------------------------------------------------------------------
    def _oracle(self, tile, result, dumped, expects, until):
        """Run the same set on ttsim and compare every dumped and expected region."""
        from .. import tiles
        from . import oracle

        regions = []  # (name, addr, length, fmt, shape)
        for d in dumped:
            j = d["json"]
            if j["kind"] in ("raw", "l1"):
                regions.append((f"dump 0x{j['addr']:x}", j["addr"], j["len"], None, None))
        for name, addr, fmt, shape, *_ in expects:
            regions.append((name, addr, tiles.nbytes(fmt, shape), fmt, shape))
        diffs, res = oracle.cross_check(tile, self.o.oracle, regions, until=[(a, v) for a, v, _ in until])
        return {"ok": all(d.ok for d in diffs), "diffs": diffs, "clocks": res.clocks,
                "seconds": res.seconds}

    # -- expected outputs ------------------------------------------------------------
    def _expectations(self, tile):
        """-> [(name, addr, fmt, shape, expected, atol, rtol)] from the manifest and --expect."""
        o = self.o
        out = []
        for e in (self.manifest.expects if self.manifest else []):
            addr = tile.symbol(e.addr) if isinstance(e.addr, str) else e.addr
            atol = o.atol if o.atol is not None else e.atol
            rtol = o.rtol if o.rtol is not None else e.rtol
            out.append((e.name, addr, e.format, e.shape, e.expected, atol, rtol))
        for k, text in enumerate(o.expects):
            from . import manifest  # numpy: imported only when there is something to check

            addr_s, fmt, shape, path = manifest.parse_expect_option(text)
            addr, _ = parse_addr(addr_s, tile, "--expect")
            expected, shape = manifest.load_expected(path, fmt, shape)
            atol, rtol = manifest._tolerance(fmt, {})
            out.append((f"expect{k}", addr, fmt, shape, expected,
                        o.atol if o.atol is not None else atol, o.rtol if o.rtol is not None else rtol))
        return out

    def _check(self, tile, expects):
        if not expects:
            return []
        from .. import tiles
        from .expect import compare

        checks = []
        for name, addr, fmt, shape, expected, atol, rtol in expects:
            data = tile.read(addr, tiles.nbytes(fmt, shape))
            actual = tiles.decode(data, fmt, shape)
            checks.append((name, compare(actual, expected, atol, rtol, f"{name} at 0x{addr:x} ({fmt})")))
        return checks

    # -- dumps ---------------------------------------------------------------------
    def _parse_dump(self, text):
        if "=" not in text or ":" not in text.split("=", 1)[0]:
            raise UsageError(f"--dump expects ADDR:LEN=FILE, got {text!r}")
        loc, path = text.rsplit("=", 1)
        return loc, path

    def _parse_dump_l1(self, text):
        core, rest = split_core(text)
        parts = rest.split(":")
        if len(parts) not in (2, 3):
            raise UsageError(f"--dump-l1 expects ADDR:LEN[:FMT], got {text!r}")
        fmt = parts[2] if len(parts) == 3 else "hex32"
        return (f"{core}:{parts[0]}" if core else parts[0]), parts[1], fmt

    def _range(self, tile, addr_s, len_s, what):
        addr, core = parse_addr(addr_s, tile, what)
        n = _int(len_s, what)
        if n <= 0:
            raise UsageError(f"{what}: length must be positive")
        return addr, n, core

    def _do_dumps(self, tile, dumps, dump_l1):
        """-> [{"text": human text or "", "json": summary entry}]; writes dump files."""
        out = []
        for loc, path in dumps:
            core, rest = split_core(loc)
            addr_s, len_s = rest.rsplit(":", 1)
            addr, n, c2 = self._range(tile, (f"{core}:" if core else "") + addr_s, len_s, "--dump")
            data = tile.read(addr, n, c2)
            text = ""
            if path == "-":
                text = dumpmod.hexdump(addr, data)
            else:
                with open(path, "wb") as f:
                    f.write(data)
            out.append({"text": text, "json": {"kind": "raw", "addr": addr, "len": n, "file": path}})
        for addr_s, len_s, fmt in dump_l1:
            addr, n, core = self._range(tile, addr_s, len_s, "--dump-l1")
            text, values = dumpmod.l1_report(tile, addr, n, core, fmt)
            out.append({"text": text, "json": {"kind": "l1", "addr": addr, "len": n, "format": fmt,
                                                "values": values}})
        return out

    def _tensix_dumps(self, tile):
        """--dump-dst / --dump-src / --dump-gpr / --dump-cfg."""
        o = self.o
        reports = []
        if o.dump_dst is not None:
            from ..tensix.dump_dst import dst_report

            reports.append(("dst", dst_report(tile, o.dump_dst, o.dst_format)))
        if o.dump_src:
            from ..tensix.dump_dst import src_report

            reports.append(("src", src_report(tile, o.dst_format)))
        if o.dump_gpr:
            from ..tensix.dump_regs import gpr_report

            reports.append(("gpr", gpr_report(tile)))
        if o.dump_cfg:
            from ..tensix.dump_regs import cfg_report

            reports.append(("cfg", cfg_report(tile)))
        return [{"text": text, "json": {"kind": kind, "data": data}} for kind, (text, data) in reports]

    # -- summary -------------------------------------------------------------------
    def _cores_json(self, tile):
        res = {}
        for h in tile.harts.values():
            if not h.released and h.name not in tile.images:
                continue
            res[h.name] = {"state": h.state, "pc": h.pc, "steps": h.steps,
                           "symbol": tile.symbolize(h.name, h.pc), "waiting_on": h.stall}
        return res

    def _summary(self, tile, result, dumped, checks=(), exit_code=None, oracle=None):
        from .ui import print_table

        o = self.o
        if o.as_json:
            doc = {
                "outcome": result.outcome, "exit_code": result.exit_code if exit_code is None else exit_code,
                "steps": result.steps,
                "detail": result.detail, "arch": tile.arch.name,
                "cores": {n: {"state": c.state, "pc": c.pc, "steps": c.steps, "symbol": c.symbol,
                              "waiting_on": c.waiting_on}
                          for n, c in result.cores.items() if c.state != "reset" or n in tile.images},
                "blocked": result.blocked, "tensix": result.tensix, "kernels": _kernels(tile), "dumps": dumped,
                "warning_count": len(tile.diagnostics.sites),
                "warnings": tile.diagnostics.as_json(),
                "expect": [{"name": n, "ok": c.ok, "mismatched": c.mismatched, "total": c.total,
                            "max_abs_error": c.max_abs, "max_rel_error": c.max_rel} for n, c in checks],
            }
            if oracle is not None:
                doc["oracle"] = {"ok": oracle["ok"], "clocks": oracle["clocks"], "seconds": oracle["seconds"],
                                 "regions": [{"name": d.name, "addr": d.addr, "len": d.length,
                                              "differing_bytes": d.differing_bytes} for d in oracle["diffs"]]}
            if self.manifest is not None:
                doc["manifest"] = self.manifest.name
                doc["seed"] = self.manifest.seed
            import json

            json.dump(doc, sys.stdout, indent=1)
            sys.stdout.write("\n")
            return
        head = f"ttemu: {result.outcome} after {result.steps} instructions"
        if result.detail:
            head += f" ({result.detail})"
        self.out.write(head + "\n")
        rows = []
        for n, c in result.cores.items():
            if c.state == "reset" and n not in tile.images:
                continue
            where = c.symbol or ""
            if c.waiting_on:
                where = (where + ": " if where else "") + c.waiting_on
            rows.append((n, c.state, f"0x{c.pc:08x}", c.steps, where))
        print_table(("core", "state", "pc", "steps", "where"), rows, self.out)
        for line in result.blocked:
            self.out.write(f"  blocked: {line}\n")
        if tile.diagnostics.sites:
            n = sum(c for _, c, _ in tile.diagnostics.sites.values())
            self.out.write(f"  warnings: {len(tile.diagnostics.sites)} sites, {n} occurrences\n")
            for line in tile.diagnostics.lines():
                self.out.write(f"    {line}\n")
        for name, c in checks:
            verdict = "ok" if c.ok else f"MISMATCH ({c.mismatched} of {c.total})"
            self.out.write(f"  expect {name}: {verdict}; max abs error {c.max_abs:.3g}, max rel error {c.max_rel:.3g}\n")
        if oracle is not None:
            same = sum(d.ok for d in oracle["diffs"])
            self.out.write(f"  oracle ttsim: {same} of {len(oracle['diffs'])} regions bit-identical "
                           f"({oracle['clocks']} clocks, {oracle['seconds']:.2f} s)\n")
        if any(v.get("pushed") for v in result.tensix.values()):
            trows = [(t, *vals.values()) for t, vals in result.tensix.items()]
            heads = ("thread",) + tuple(next(iter(result.tensix.values())).keys())
            print_table(heads, trows, self.out)


def _kernels(tile):
    """Which form of each compiled kernel ran (``--json``'s ``kernels``): ``compiled``, or
    ``python`` when the extension is not built or ``TTEMU_NATIVE=off`` (the same results)."""
    cop = tile._tensix
    if cop is not None:
        native, vector = cop.math.native is not None, cop.sfpu.native is not None
    else:  # (no coprocessor made: what it would take, without importing the units)
        from ..tensix.units import fpu_native

        native, vector = fpu_native.MODULE is not None, fpu_native.built("_sfpu_native", "sfpu")
    return {"matrix_unit": "compiled" if native else "python", "vector_unit": "compiled" if vector else "python"}
