"""One ``ttemu run`` / ``ttemu trace`` invocation: options -> tile -> run -> report.

Kept apart from the click layer so the order of operations is plain to read:
check every option and the manifest (nothing has run yet: a mistake costs nothing),
read ELFs (for the arch), build the tile, load ELFs, inputs, ``--load``, ``--write``,
check what is released can run, run, dump, check, summarise. Returns the exit code;
errors propagate as typed exceptions.
"""

from __future__ import annotations

import math
import os
import sys

from .. import dump as dumpmod
from ..arch import CORE_NAMES
from ..elf import read_elf
from ..errors import BadInput, TtemuError, UsageError
from . import specs
from .report import print_summary, print_outcome, until_report

#: a run that ended (halted, idle) before its --until conditions held
UNTIL_NOT_MET = 9
INTERRUPTED = 130


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


def _at_least(value, what, lo):
    if value is not None and value < lo:
        raise UsageError(f"{what} {value}: must be at least {lo}")


def _tolerance(value, what):
    if value is not None and (math.isnan(value) or value < 0):
        raise UsageError(f"{what} {value}: must be a number >= 0 (inf accepts any difference)")


class Session:
    def __init__(self, opts):
        self.o = opts
        self.out = sys.stderr if opts.as_json else sys.stdout
        self.manifest = None
        self.prepared = False

    # -- before anything runs: every option and the manifest ----------------------------
    def prepare(self):
        o = self.o
        self.prepared = True
        _at_least(o.max_steps, "--max-steps", 1)
        _at_least(o.idle_steps, "--idle-steps", 1)
        _at_least(o.seed, "--seed", 0)
        _at_least(o.quantum, "--quantum", 1)
        _tolerance(o.atol, "--atol")
        _tolerance(o.rtol, "--rtol")
        self.core_elfs = [specs.core_elf(t) for t in o.cores]
        self.untils = [specs.condition(t) for t in o.untils]
        self.writes = [(t, specs.write(t)) for t in o.writes]
        self.loads = [(t, specs.load(t)) for t in o.loads]
        self.local_data = dict(specs.local_data(t) for t in getattr(o, "local_data", ()))
        self.inputs = [(t, specs.input_spec(t)) for t in getattr(o, "inputs", ())]
        self.expect_specs = [(t, specs.expect_spec(t)) for t in o.expects]
        self.stages = specs.stages(o.trace_stages) if o.trace_stages else ("push", "issue")
        self.release = None
        if o.release is not None:
            self.release = [n.strip() for n in o.release.split(",") if n.strip()]
            if not self.release:
                raise UsageError(f"--release {o.release!r}: name at least one core ({', '.join(CORE_NAMES)})")
            for n in self.release:
                specs.core_name(n, "--release", o.release)
        if o.gdb_core is not None:
            specs.core_name(o.gdb_core, "--gdb-core")
        if o.dump_dst is not None:
            from ..tensix.dump_dst import parse_rows, view_rows

            parse_rows(o.dump_dst, view_rows(o.dst_format))
        self.oracle = None
        if getattr(o, "oracle", None):
            from .oracle.ttsim import OracleProbe

            self.oracle = OracleProbe(o.oracle)  # says which chip the library is, while we load
        for _, (_, _, path) in self.loads:
            if not os.path.isfile(path):
                raise BadInput(f"--load {path}: no such file")
        positional = list(o.elfs)
        if len(positional) == 1 and positional[0].endswith(".toml"):
            from . import manifest

            self.manifest = manifest.load(positional[0], o.seed, o.arch)
            positional = []
        self.positional = positional
        man = self.manifest
        self.dumps = [(t, specs.dump(t)) for t in (man.dumps if man else []) + list(o.dumps)]
        self.dump_l1 = [(t, specs.dump_l1(t)) for t in (man.dump_l1 if man else []) + list(o.dump_l1)]
        self.trace_file = o.trace_file or (man.trace if man else None)
        if o.trace_file:
            specs.output_path(o.trace_file, "--trace" if o.summary else "-o")
        elif self.trace_file:
            specs.output_path(self.trace_file, f"{man.path}: trace", BadInput)
        n_man = len(man.dumps) if man else 0
        for k, (t, (_, _, _, path)) in enumerate(self.dumps):
            if k < n_man:
                specs.output_path(path, f"{man.path}: dump[{k}]", BadInput)
            else:
                specs.output_path(path, "--dump")
        if o.as_json and not o.summary and self.trace_file in (None, "-"):
            raise UsageError("--json: the trace goes to stdout; write it to a file with -o FILE")
        if self.oracle is not None and not (self.dumps or self.dump_l1 or self.expect_specs or
                                            (man and man.expects)):
            raise UsageError("--oracle: nothing to compare (give --dump, --dump-l1, --expect or a manifest "
                             "with [[expect]] or dumps)")

    # -- building ------------------------------------------------------------------
    def build(self):
        """The tile, loaded and released (options are checked first if they were not)."""
        from ..tile import Tile, infer_core

        if not self.prepared:
            self.prepare()
        o = self.o
        man = self.manifest
        core_elfs = list(self.core_elfs)
        if man:
            given = {c for c, _ in core_elfs}
            core_elfs = [(c, p) for c, p in man.cores if c not in given] + core_elfs
        positional = self.positional
        if not core_elfs and not positional:
            raise UsageError("no ELF given (ttemu run [OPTIONS] ELF... or --core NAME=ELF)")
        for path in positional + [p for _, p in core_elfs]:
            if not os.path.exists(path):
                raise BadInput(f"{path}: no such file")
        arch = o.arch or (man.arch if man else None) or detect_arch(positional + [p for _, p in core_elfs])
        tile = Tile(arch, record=self.oracle is not None, **({"quantum": o.quantum} if o.quantum else {}))
        tile.diagnostics.strict = bool(getattr(o, "strict", False))
        local = dict(man.local_data) if man else {}
        local.update(self.local_data)
        if man:
            from . import manifest

            man.local_data = local
            manifest.load_into(man, tile, core_elfs)
        else:
            for name, path in core_elfs:
                tile.load_elf(path, core=name, local_data=local.get(name))
        lone = len(positional) == 1 and not core_elfs
        for path in positional:
            core = infer_core(read_elf(path), tile.arch) if local else None
            tile.load_elf(path, core=core, start_at_entry=lone, local_data=local.get(core))
        for core in local:
            if core not in tile.images:
                raise UsageError(f"--local-data {core}=0x{local[core]:x}: no ELF is loaded for {core}")
        for text, (addr, core, path) in self.loads:
            with open(path, "rb") as f:
                data = f.read()
            self._host(tile, "--load", text, lambda: tile.write(specs.resolve(addr, tile, "--load"), data, core))
        self._inputs(tile)
        self.later = []
        for text, (addr, words, core, when) in self.writes:
            addr = specs.resolve(addr, tile, "--write")
            if when is not None:
                when = self._resolved(when, tile, f"--write {text!r}")
                self.later += [(when, addr + 4 * i, v, core) for i, v in enumerate(words)]
                continue
            for i, v in enumerate(words):
                self._host(tile, "--write", text, lambda a=addr + 4 * i, v=v: tile.write_u32(a, v, core))
        if self.release is not None:
            names, source = self.release, "--release"
        elif man and man.release is not None:
            names, source = man.release, f"{man.path}: release"
        else:
            names, source = tile.default_release(), None
        self._check_start(tile, names, source)
        if self.oracle is not None:  # (its child process has been loading the library meanwhile)
            self.oracle.check(tile.arch.name)
        tile.release(names)
        return tile

    def _host(self, tile, option, text, write):
        """A host write an option asked for; what the tile refuses names the option."""
        try:
            write()
        except TtemuError as e:
            raise UsageError(f"{option} {text!r}: {e}") from None

    def _resolved(self, cond, tile, what):
        cond = specs.resolve_condition(cond, tile, what)
        why = specs.check(cond)
        if why:
            raise UsageError(f"{what}: {why}")
        return cond

    def _inputs(self, tile):
        """--input: placed after the manifest's inputs; references see both by name."""
        if not self.inputs:
            return
        from . import manifest

        man = self.manifest
        base = len(man.inputs) if man else 0
        seed = self.o.seed if self.o.seed is not None else (man.seed if man else 0)
        self.named = {i.name: i.values for i in (man.inputs if man else [])}
        self.cli_inputs = []
        for j, (text, spec) in enumerate(self.inputs):
            where = manifest.option_where("--input", text)
            inp = manifest.make_input(spec, base + j, seed, where)
            if inp.name in self.named:
                where.fail("", f"the name {inp.name!r} is taken by another input")
            manifest.place(tile, specs.resolve(inp.addr, tile, "--input"), inp.data, where)
            self.named[inp.name] = inp.values
            self.cli_inputs.append(inp)

    def _check_start(self, tile, names, source):
        """Each core released by the host must find code at its start pc: an ELF
        segment covering it, or words the host wrote there. Otherwise its first
        instruction is a zero word, which no core can execute."""
        for core in names:
            pc = tile.reset_pc(core)
            if tile.covered(pc):
                continue
            try:
                word = int.from_bytes(tile.read(pc, 4, core), "little")
            except TtemuError:
                word = 0
            if word:
                continue
            why = (f"{core} starts at 0x{pc:08x} ({'its entry point' if core in tile.entry_override else 'its reset pc'}),"
                   f" where nothing is loaded: no ELF segment covers it (loaded: {self._loaded(tile)})")
            if source == "--release":
                raise UsageError(f"--release {self.o.release}: {why}")
            raise BadInput(f"{source}: {why}" if source else why)

    def _explain_start(self, tile, err):
        """A core another core released faults on its first instruction where no ELF put
        code: say so (the fault alone names a zero word)."""
        core, pc = getattr(err, "core", None), getattr(err, "pc", None)
        hart = tile.harts.get(core) if core else None
        if hart is None or hart.steps or pc != tile.reset_pc(core) or tile.covered(pc):
            return
        err.args = (f"{err.args[0]} ({core} was released at its reset pc 0x{pc:08x}, where no ELF segment "
                    f"has code; loaded: {self._loaded(tile)})",)

    @staticmethod
    def _loaded(tile):
        return "; ".join(f"{c} {os.path.basename(img.path)} " + ", ".join(
            f"0x{s.vaddr:x}-0x{s.vaddr + len(s.data) - 1:x}" for s in img.segments if s.data)
            for c, img in tile.images.items()) or "nothing"

    def until_conditions(self, tile):
        conds = []
        man = self.manifest
        if man:
            from . import manifest

            for k, c in enumerate(man.until):
                conds.append(manifest.resolve_condition(c, tile, manifest.Where(f"{man.path}: until[{k}]")))
        for text, c in zip(self.o.untils, self.untils):
            conds.append(self._resolved(c, tile, f"--until {text!r}"))
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
        finally:
            if getattr(self, "oracle", None) is not None:
                self.oracle.close()
        if self.gdb is not None:
            self.gdb.finish(code)
        return code

    def _attach_gdb(self, tile):
        """--gdb PORT: listen on 127.0.0.1, wait for gdb, hold the tile before its first instruction."""
        from .gdb import GdbServer, listen

        o = self.o
        listener = listen(o.gdb)
        port = listener.getsockname()[1]
        sys.stderr.write(f"ttemu: gdb server listening on 127.0.0.1:{port}; waiting for gdb "
                         f"(target remote :{port})\n")
        sys.stderr.flush()
        server = GdbServer(tile, o.gdb_core)
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
        dumps = [(specs.resolve(a, tile, "--dump"), n, c, p) for _, (a, n, c, p) in self.dumps]
        dump_l1 = [(specs.resolve(a, tile, "--dump-l1"), n, c, f) for _, (a, n, c, f) in self.dump_l1]
        until = self.until_conditions(tile)
        self.later = self._later_writes(tile) + self.later
        expects = self._expectations(tile)
        if getattr(o, "gdb", None) is not None:
            self._attach_gdb(tile)
        max_steps = o.max_steps if o.max_steps is not None else (man.max_steps if man else None)
        idle_steps = o.idle_steps if o.idle_steps is not None else (man.idle_steps if man else None)
        trace_out = None
        if self.trace_file:
            from ..trace import Tracer

            try:
                trace_out = sys.stdout if self.trace_file == "-" else open(self.trace_file, "w")
            except OSError as e:
                raise UsageError(f"--trace {self.trace_file}: {e.strerror}") from None
            tile.tracer = Tracer(trace_out, tile, self.stages)
        progress = None
        if getattr(o, "progress", None) is not False and (o.progress or sys.stderr.isatty()) and not o.as_json:
            from .progress import Progress

            progress = tile.progress = Progress(sys.stderr)
        try:
            try:
                result = self._run_phases(tile, max_steps, until, idle_steps)
            except KeyboardInterrupt:
                from ..run import snapshot

                result = snapshot(tile, "interrupted", "Ctrl-C")
            if self.gdb is not None:
                self.gdb.run_ended(result)
            if result.outcome != "interrupted":
                self._leftover(tile, result)
        except TtemuError as e:
            self._explain_start(tile, e)
            if o.as_json:
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
        conditions = until_report(tile, ([self.phase_failed] if self.phase_failed else []) + until)
        dumped = self._do_dumps(tile, dumps, dump_l1) + self._tensix_dumps(tile)
        checks = self._check(tile, expects) if result.outcome != "interrupted" else []
        exit_code = result.exit_code
        if exit_code == 0 and any(not c["held"] for c in conditions):
            exit_code = UNTIL_NOT_MET
        if exit_code == 0 and any(not c.ok for _, c, _ in checks):
            exit_code = 7
        oracle = None
        if self.oracle is not None and exit_code in (0, 7):
            oracle = self._oracle(tile, result, dumped, expects, until)
            if not oracle["ok"]:
                exit_code = 7
        if o.summary or o.as_json:
            print_summary(self, tile, result, [d["json"] for d in dumped], checks, exit_code, oracle,
                          conditions)
        else:
            print_outcome(result, conditions, sys.stderr)
        if not o.as_json:
            for d in dumped:
                if d["text"]:
                    self.out.write(d["text"] + "\n")
        for name, c, _ in checks:
            if not c.ok:
                self.out.write(c.text() + "\n")
        for d in (oracle or {}).get("diffs", []):
            if not d.ok:
                self.out.write(d.text() + "\n")
        if not (o.summary and not o.as_json):  # the human summary lists them
            for line in tile.diagnostics.lines():
                sys.stderr.write(f"ttemu: {line}\n")
        return exit_code

    def _leftover(self, tile, result):
        """Tensix work left at the end of a run that finished (not a hang: those say
        what holds them): a counted warning; with --strict an error."""
        cop = tile._tensix
        if cop is None or result.outcome in ("hang", "step-limit"):
            return
        left = cop.unfinished()
        if not left:
            return
        text = f"the run ended ({result.outcome}) with Tensix work left: {'; '.join(left)}"
        if tile.diagnostics.strict:
            from ..errors import UnfinishedWork

            raise UnfinishedWork(text + " (--strict)")
        tile.diagnostics.warn(text, "unfinished Tensix work")

    def _run_phases(self, tile, max_steps, until, idle_steps):
        """Run to the done condition; host writes with a ``when`` (a manifest's, or
        ``--write '... when ...'``) are made in order, each once its condition holds (a
        handshake with firmware that clears its mailboxes at start-up). A phase that
        ends otherwise ends the run (exit 9 when it finished without the condition)."""
        self.phase_failed = None
        for when, group in self._phases():
            res = tile.run(max_steps=max_steps, until=[when], idle_steps=idle_steps)
            if res.outcome != "until":
                self.phase_failed = when
                return res
            for addr, value, core in group:
                tile.write_u32(addr, value, core)
        return tile.run(max_steps=max_steps, until=until, idle_steps=idle_steps)

    def _later_writes(self, tile):
        out = []
        man = self.manifest
        if man:
            from . import manifest

            for k, (when, addr, value, core) in enumerate(man.later):
                where = manifest.Where(f"{man.path}: write")
                out.append((manifest.resolve_condition(when, tile, where.sub("when")),
                            manifest.resolve(addr, tile, where), value, core))
        return out

    def _phases(self):
        phases = []
        for cond, addr, value, core in self.later:
            if phases and phases[-1][0] == cond:
                phases[-1][1].append((addr, value, core))
            else:
                phases.append((cond, [(addr, value, core)]))
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
        diffs, res = oracle.cross_check(tile, self.oracle.path, regions, until=until)
        return {"ok": all(d.ok for d in diffs), "diffs": diffs, "clocks": res.clocks,
                "seconds": res.seconds}

    # -- expected outputs ------------------------------------------------------------
    def _expectations(self, tile):
        """-> [(name, addr, fmt, shape, expected, atol, rtol)] from the manifest and --expect."""
        o = self.o
        out = []
        man = self.manifest
        if man:
            from . import manifest

            for k, e in enumerate(man.expects):
                addr = manifest.resolve(e.addr, tile, manifest.Where(f"{man.path}: expect[{k}]"))
                atol = o.atol if o.atol is not None else e.atol
                rtol = o.rtol if o.rtol is not None else e.rtol
                out.append((e.name, addr, e.format, e.shape, e.expected, atol, rtol))
        if not self.expect_specs:
            return out
        from . import manifest  # numpy: imported only when there is something to check

        named = getattr(self, "named", None)
        if named is None:
            named = {i.name: i.values for i in (man.inputs if man else [])}
        base = len(man.expects) if man else 0
        for j, (text, spec) in enumerate(self.expect_specs):
            where = manifest.option_where("--expect", text)
            e = manifest.make_expect(spec, base + j, named, where, or_file=True)
            addr = specs.resolve(e.addr, tile, "--expect")
            out.append((e.name if "name" in spec else f"expect{j}", addr, e.format, e.shape, e.expected,
                        o.atol if o.atol is not None else e.atol, o.rtol if o.rtol is not None else e.rtol))
        return out

    def _check(self, tile, expects):
        """-> [(name, Comparison, vacuous)] for each expected output."""
        if not expects:
            return []
        from .. import tiles
        from .expect import compare, vacuous

        checks = []
        for name, addr, fmt, shape, expected, atol, rtol in expects:
            data = tile.read(addr, tiles.nbytes(fmt, shape))
            actual = tiles.decode(data, fmt, shape)
            c = compare(actual, expected, atol, rtol, f"{name} at 0x{addr:x} ({fmt})")
            checks.append((name, c, vacuous(expected, atol, rtol)))
        return checks

    # -- dumps ---------------------------------------------------------------------
    def _do_dumps(self, tile, dumps, dump_l1):
        """-> [{"text": human text or "", "json": summary entry}]; writes dump files."""
        out = []
        for addr, n, core, path in dumps:
            data = tile.read(addr, n, core)
            text = ""
            if path == "-":
                text = dumpmod.hexdump(addr, data)
            else:
                try:
                    with open(path, "wb") as f:
                        f.write(data)
                except OSError as e:
                    raise UsageError(f"--dump {path}: {e.strerror}") from None
            out.append({"text": text, "json": {"kind": "raw", "addr": addr, "len": n, "file": path}})
        for addr, n, core, fmt in dump_l1:
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

    def _cores_json(self, tile):
        res = {}
        for h in tile.harts.values():
            if not h.released and h.name not in tile.images:
                continue
            res[h.name] = {"state": h.state, "pc": h.pc, "steps": h.steps,
                           "symbol": tile.symbolize(h.name, h.pc), "waiting_on": h.stall}
        return res
