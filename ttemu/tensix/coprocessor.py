"""The Tensix coprocessor as the rest of the tile sees it: three threads' frontends,
the backend units, and the MMIO windows RISC-V cores use to reach them.

Everything runs synchronously inside the step of the core that pushed an instruction:
a push flows through its thread's frontend into the backend, and any state change
(an issued instruction, a RISC-V semaphore write) re-evaluates the latched waits and
lets held instructions of every thread move again, in a fixed thread order. The run
loop also calls :meth:`step` once per round.
"""

from __future__ import annotations

from collections import deque

from ..errors import GuestFault, Unimplemented
from ..isa.table import get_table
from .debug_port import TensixDebugPort
from .devices import MopCfgPort, PcBufPort, PushPort
from .frontend.thread import EXPANDER_OPCODES, FIFO_DEPTH, TensixThread
from .regs.adc import ADCs
from .regs.config import ConfigSpace
from .regs.dst import Dst
from .regs.dst_window import DstWindow
from .regs.gpr import GPRs
from .regs.rwc import RWCs
from .regs.src import SrcState
from .units.cfg import ConfigUnit
from .units import Unit
from .units.math import MatrixUnit
from .units.misc import MiscUnit
from .units.mover import Mover, TdmaRisc
from .units.pack import Packers
from .units.scalar import ScalarUnit
from .units.sfpu import VectorUnit
from .units.sync import SyncUnit
from .units.unpack import Unpackers

PUSH_REGIONS = ("tensix_inst", "tensix_inst1", "tensix_inst2")


def _params(handler):
    """The parameter names of a bound unit method after the thread, when all are plain
    positional-or-keyword parameters without defaults; else None. Read from the code
    object for a plain function or method (what :func:`inspect.signature` with
    ``follow_wrapped=False`` reports, at a fraction of its cost)."""
    bound = type(handler).__name__ == "method"
    f = handler.__func__ if bound else handler
    code = getattr(f, "__code__", None)
    skip = 2 if bound else 1  # (self,) the thread
    if (type(f).__name__ == "function" and code is not None and not hasattr(f, "__signature__")
            and not code.co_posonlyargcount and not code.co_kwonlyargcount and not code.co_flags & 0x0C
            and code.co_argcount >= skip):  # only plain positional-or-keyword parameters
        if f.__defaults__ and code.co_argcount > skip:
            return None  # the last one has a default
        return list(code.co_varnames[skip:code.co_argcount])
    import inspect

    try:
        params = list(inspect.signature(handler, follow_wrapped=False).parameters.values())[1:]
    except (TypeError, ValueError):
        return None
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD or p.default is not p.empty for p in params):
        return None
    return [p.name for p in params]


_NO_DEFAULT = object()


def _positional_params(handler):
    """The parameters after the thread of a bound unit method (or a plain function) that
    takes all of them positionally: ``[(name, default or _NO_DEFAULT), ...]``; None when
    it takes any other kind (``*args``, ``**kwargs``, keyword-only, positional-only) or is
    no plain function. A wrapper that forwards ``*args`` and ``**kwargs`` unchanged to the
    function it names as ``tt_positional`` (the Scalar Unit's occupancy check) has that
    function's parameters."""
    bound = type(handler).__name__ == "method"
    f = handler.__func__ if bound else handler
    f = getattr(f, "tt_positional", f)
    code = getattr(f, "__code__", None)
    skip = 2 if bound else 1  # (self,) the thread
    if (type(f).__name__ != "function" or code is None or hasattr(f, "__signature__") or code.co_posonlyargcount
            or code.co_kwonlyargcount or code.co_flags & 0x0C or code.co_argcount < skip):
        return None
    names = code.co_varnames[skip:code.co_argcount]
    defaults = f.__defaults__ or ()
    firstdefault = len(names) - len(defaults)
    return [(n, defaults[i - firstdefault] if i >= firstdefault else _NO_DEFAULT) for i, n in enumerate(names)]


class Coprocessor:
    #: the reference form of kick's passes, for tests: each pass issues at most one
    #: instruction per thread even while the other threads have nothing to do
    one_per_pass = False
    #: a word pushed to a thread with nothing else to do, while kick would skip the other
    #: threads, issues at once (``_issue_pushed``); False: it is queued and kick pumps it
    #: (the general form, for tests)
    fast_push = True

    def __init__(self, tile):
        self.tile = tile
        self.arch = tile.arch
        self.table = get_table(tile.arch.name)
        self.threads = [TensixThread(self, i) for i in range(3)]
        for t in self.threads:
            t._others = tuple(o for o in self.threads if o is not t)
        self.gates = tuple(t.gate for t in self.threads)  # the three wait gates, in thread order
        # shared backend state
        self.config = ConfigSpace(tile.arch, tile.arch.region("tensix_cfg").base)
        self.gprs = GPRs(tile, tile.arch.region("tensix_regfile").base)
        self.adcs = ADCs()
        self.rwcs = RWCs(self.config, tile.arch.addr_mod_bits)
        self.dst = Dst()
        self.dst.on_aliased_write = lambda: tile.warn(
            "Dst16 write while DBG_FEATURE_DISABLE bit 11 is set: hardware writes unspecified values to the "
            "low halves of the Dst32 rows (Dst.md); ttemu leaves them unchanged")
        self.src = SrcState()
        # backend units
        self.sync = SyncUnit(self)
        self.misc = MiscUnit(self)
        self.scalar = ScalarUnit(self)
        self.cfgu = ConfigUnit(self)
        self.unpack = Unpackers(self)
        self.math = MatrixUnit(self)
        self.sfpu = VectorUnit(self)
        self.pack = Packers(self)
        self.mover = Mover(self)
        self.units = [self.sync, self.misc, self.scalar, self.cfgu, self.unpack, self.math, self.sfpu,
                      self.pack, self.mover]
        self.handlers = [None] * 256
        impl = {}
        for unit in self.units:
            impl.update(unit.ops())
        adapters = tile.arch.tensix_field_adapters
        for spec in self.table:
            fn = impl.get(spec.mnemonic)
            if fn is not None and spec.mnemonic in adapters:
                fn = _adapted(fn, adapters[spec.mnemonic], get_table(tile.arch.tensix_adapt_to).spec(spec.mnemonic))
            if fn is not None and not _takes_fields(fn, spec):
                impl.pop(spec.mnemonic)  # this arch packs the instruction differently: not implemented
                fn = None
            self.handlers[spec.opcode] = fn
        self.implemented = frozenset(m for m in impl if m in self.table.by_mnemonic)
        # word -> (spec, handler, args, kwargs, fence): each Tensix word decoded once and
        # bound to its handler (see dispatch_entry); the table is per coprocessor.
        self.dispatch = {}
        self._params = {}  # opcode -> how dispatch_entry calls its handler (see _call_plan)
        # the STALLWAIT condition bit "Matrix Unit busy" (Wormhole C7, Blackhole C4)
        self._fpu_busy_bit = next((bit for bit, kind, arg, _ in tile.arch.stallwait_conditions
                                   if kind == "busy" and arg == "math"), 7)
        self.prefer_after_release = None
        # the threads in the order kick visits them, for each starting thread
        self._pump_orders = tuple(tuple(self.threads[(start + k) % 3] for k in range(3)) for start in range(3))
        self._routes = {}  # (core, addr) -> route(core, addr), for the pushes that route accepted
        self.issuing = None  # the TensixThread whose instruction is executing (set by its pump)
        self.pcbufs = [deque(), deque(), deque()]  # PCBuf[i]: RISCV B -> RISCV T_i
        self.pcbuf_waiting = [False, False, False]  # RISCV T_i waits reading PCBuf[i]
        self._pumping = False
        self._again = False
        self.pass_start = 0  # the thread kick's current pass started with
        # Moved on by every issued instruction, kick(), state_changed and resets (what can
        # change a wait condition; a STREAMWAIT's stream registers excepted, see
        # TensixThread.pump): a thread held at its wait gate is evaluated again only after
        # it moved
        self.epoch = 0
        self._by_name = None  # unit name -> units that can be busy (see _units_named)
        self._busy_units = None  # the units that can be busy (see any_unit_busy)
        self._stall_checks = {}  # STALLWAIT condition mask -> its conditions that can hold (stall_checks)
        self.debug_port = TensixDebugPort(self)  # the debug registers' view (debug_port.py)

    def undefined(self, key: str, text: str) -> None:
        """Behaviour the ISA documentation leaves undefined, done by the instruction
        issuing now: a warning once per site (the issuing thread + ``key``, a stable
        name such as mnemonic and condition), an error with ``--strict``. ``text``
        says what happened and what ttemu does instead (docs/undefined-behaviour.md)."""
        t = self.issuing
        if t is None:
            self.tile.undefined(key, text)
            return
        site = f"t{t.index} {key}"
        if self.tile.diagnostics.again(site):  # a known site: counted, no disassembly needed
            return
        spec = self.table.decode(t.word)[0]
        origin = getattr(t, "origin", None)
        pushed = f", pushed by {origin}" if origin else ""
        insn = f" {spec.mnemonic} ({self.table.disasm(t.word)}{pushed})" if spec is not None else ""
        self.tile.undefined(site, f"t{t.index}{insn}: {text}")

    def attach(self, router):
        for i, region in enumerate(PUSH_REGIONS):
            router.attach(region, PushPort(self, region))
        router.attach("tensix_mop_cfg", MopCfgPort(self))
        router.attach("tensix_cfg", self.config)
        router.attach("tensix_regfile", self.gprs)
        router.attach("riscv_tdma_regs", TdmaRisc(self))
        for i, region in enumerate(("tensix_pc_buf", "tensix_pc1_buf", "tensix_pc2_buf")):
            router.attach(region, PcBufPort(self, region, i))
        if any(r.name == "tensix_dst" for r in self.arch.address_map):  # Blackhole: Dst for T0-T2
            router.attach("tensix_dst", DstWindow(self, self.arch.region("tensix_dst")))

    # -- instruction push --------------------------------------------------------------
    def route(self, core, addr):
        """-> (thread, after_mop) for a push by ``core`` (None: the host) to ``addr``."""
        port = (addr >> 16) - 0xFFE4  # INSTRN_BUF_BASE, INSTRN1_BUF_BASE, INSTRN2_BUF_BASE
        if core is None or core == "brisc":
            return port, True  # BRISC (and the host) push after the MOP expander
        spec = self.tile.specs[core]
        if not spec.can_push:
            raise GuestFault(f"{core} cannot push Tensix instructions (store to 0x{addr:08x})")
        if port != 0:
            raise GuestFault(f"store to 0x{addr:08x}: only RISCV B may push through INSTRN{port}_BUF_BASE; "
                             f"on hardware this store hangs {core}")
        return spec.tensix_thread, False

    def push_from_core(self, core, addr, word, origin):
        where = self._routes.get((core, addr))
        if where is None:
            thread, after_mop = self.route(core, addr)
            if self.debug_port.owns(thread):  # the debug bus holds the FIFO (not cached)
                self.debug_port.discard(core, thread, word)
                return True
            t = self.threads[thread]
            where = self._routes[(core, addr)] = (t, t.mid if after_mop else t.fifo, after_mop)
        t, queue, after_mop = where
        tile = self.tile
        if len(queue) < FIFO_DEPTH and tile.tracer is None:
            if (t.held is None and not t.fed and not t.fifo and not t.mid and self.fast_push and not self._pumping
                    and (word >> 24) not in EXPANDER_OPCODES and not self.one_per_pass):
                replay = t.replay
                if t.mop.active is None and not replay.play_left and not replay.record_left:
                    a, b = t._others
                    epoch = self.epoch
                    if ((a.fed if a.held is None else a._gate_epoch != epoch
                         and (a._src_key is None or a._src_key != self.src.ownership()))
                            or (b.fed if b.held is None else b._gate_epoch != epoch
                                and (b._src_key is None or b._src_key != self.src.ownership()))):
                        pass  # another thread has something to do: the general path
                    else:
                        t.pushed += 1
                        tile.activity[0] = 1
                        self._issue_pushed(t, (word, origin))
                        return True
            queue.append((word, origin))  # what t.push does here, without its call
            t.pushed += 1
            t.fed = True
        elif not t.push(word, origin, after_mop):
            return False
        tile.activity[0] = 1
        self.kick(False)
        return True

    def _issue_pushed(self, t, item):
        """What ``kick(False)`` does after ``item`` was pushed to thread ``t`` while ``t``
        had nothing else to do (nothing queued, expanding, replaying, recording or held;
        ``item`` no MOP, MOP_CFG or REPLAY) and each other thread is one kick's first pass
        skips: that pass visits ``t`` alone, whose pump takes ``item`` and issues it
        (``TensixThread.issue``), or holds it; the rest of the pass and any further ones
        are kick's (``_passes``). ``item`` never enters the queue (it would leave it at
        once)."""
        self._pumping = True
        try:
            self._again = False
            self.pass_start = self.prefer_after_release or 0
            self.prefer_after_release = None
            if t._run is not None:
                t._run = t._cursor = None  # (a finished expansion: what pump finds first)
            t.fed = True
            if t.issue(item):
                replay = t.replay
                if replay.play_left or t.mop.active is not None or t.mid or t.fifo:
                    t.pump_on()  # (something queued meanwhile: pump's loop goes on)
                else:
                    t.fed = False
            if not self._again:
                # the rest of this pass skips each thread after t, and a next pass (while one
                # holds) each thread, when every thread is one a pass skips now: nothing to
                # do, or held as evaluated since the epoch moved (the general form: _passes)
                epoch = self.epoch
                live = False
                for o in self.threads:
                    if o.held is None:
                        if o.fed:
                            break
                    elif o._gate_epoch == epoch or (o._src_key is not None and o._src_key == self.src.ownership()):
                        live = True
                    else:
                        break
                else:
                    if live:  # (the next pass's start)
                        self.pass_start = self.prefer_after_release or 0
                    self.prefer_after_release = None
                    return
            self._passes(t)
        finally:
            self._pumping = False

    def dispatch_entry(self, word):
        """Decode ``word`` once for the frontend: ``(spec, handler, args, kwargs, fence)``.
        ``spec`` is None for an unknown opcode; ``handler`` None when no unit implements
        the instruction (or it is a frontend instruction, which never reaches a unit);
        the handler is called ``handler(thread, *args)``, or ``handler(thread, **kwargs)``
        when its parameters are not exactly the instruction's fields; ``fence`` marks a
        STALLWAIT with block bit B8 (SFPU) and the Matrix Unit busy condition (C7 on
        Wormhole, C4 on Blackhole)."""
        table = self.table
        if not 0 <= word <= 0xFFFFFFFF:
            table.decode(word)  # (raises: not a 32-bit word)
        spec = table.by_opcode[word >> 24]
        handler = args = kwargs = None
        fence = False
        if spec is not None:
            handler = None if spec.unit == "frontend" else self.handlers[spec.opcode]
            if handler is not None:
                plan = self._params.get(spec.opcode)
                if plan is None:
                    plan = self._params[spec.opcode] = self._call_plan(handler, spec)
                names, direct, extract = plan
                if names is not None:
                    # the fields table.decode gives, in the handler's order, without its mapping
                    args = tuple([(word >> lo) & mask if lo is not None else mask for lo, mask in extract])
                    if direct is not None:
                        route = direct(handler, args)
                        if route is not None:
                            handler, args = route
                else:
                    kwargs = dict(table.decode(word)[1])
            if spec.mnemonic == "STALLWAIT":
                fields = table.decode(word)[1]
                fence = bool((fields["stall_res"] >> 8) & (fields["wait_res"] >> self._fpu_busy_bit) & 1)
        entry = (spec, handler, args, kwargs, fence)
        if len(self.dispatch) >= 1 << 16:
            self.dispatch.clear()
        self.dispatch[word] = entry
        return entry

    @staticmethod
    def _call_plan(handler, spec):
        """How ``dispatch_entry`` calls the ``handler`` of ``spec``'s opcode (the same for
        every word of the opcode): ``(names, direct, extract)``, ``names`` the handler's
        positional parameters it is called with when it takes every field of the
        instruction by a positional parameter (a positional call), else None (a call by
        keywords); ``direct`` the unit's ``direct_route`` (a shorter route to the same
        call, the Vector Unit's issue path without the @op method that only forwards to
        it), or None; ``extract`` per parameter in that order the field's (shift, mask),
        as ``table.decode`` reads them (a later entry of a name wins, as in its mapping),
        or ``(None, default)`` for a parameter with a default that this arch's
        instruction has no field for (the same object the call by keywords would leave
        it at: handlers written for both arches take the other's fields with defaults)."""
        fields = {name: (lo, mask) for name, lo, mask in spec._extract}
        params = _positional_params(handler)
        if params is None or not set(fields) <= {n for n, _ in params}:
            return None, None, None
        last = max((i for i, (n, _) in enumerate(params) if n in fields), default=-1)
        params = params[:last + 1]
        if any(n not in fields and d is _NO_DEFAULT for n, d in params):
            return None, None, None
        names = [n for n, _ in params]
        # (a direct route stands for a call with exactly the fields)
        direct = getattr(getattr(handler, "__self__", None), "direct_route", None) if len(names) == len(fields) else None
        return (names, direct,
                tuple(fields[n] if n in fields else (None, d) for n, d in params))

    # -- running ---------------------------------------------------------------------------
    def kick(self, changed: bool = True) -> bool:
        """Pump every thread until none moves, one instruction per thread per pass: the
        three threads issue side by side, as on hardware, so one thread's instruction
        stream cannot overtake a handshake another thread has queued (tt-llk's
        datacopy hands SrcB over with two UNPACR_NOPs after its UNPACR to SrcA; the
        math thread's SETRWC that releases SrcB must not run ahead of them). A thread
        whose two partners have nothing to do (or hold at their gates) issues on without
        a pass per instruction (TensixThread.pump; ``one_per_pass`` is the reference
        form, for tests).
        Re-entrant calls (a semaphore write from inside a pump) just ask the outer loop
        for another pass. ``changed`` (the default) moves the epoch on first: whatever
        changed since (a test's direct write, say) is looked at again; a push changes no
        wait condition (push_from_core passes False)."""
        if changed:
            self.epoch += 1
        if self._pumping:
            self._again = True
            return False
        self._pumping = True
        try:
            return self._passes(None)
        finally:
            self._pumping = False

    def _passes(self, visited):
        """kick's passes (while ``_pumping``). ``visited``: None, or the thread the first pass
        has just pumped, the threads before it skipped (``_issue_pushed``): the pass goes
        on after it."""
        moved_any = False
        orders = self._pump_orders
        while True:
            if visited is None:
                self._again = False
                moved = live = False
                start = self.pass_start = self.prefer_after_release or 0
                self.prefer_after_release = None
                order = orders[start]  # threads[(start + k) % 3] for k in 0, 1, 2
            else:
                order = orders[self.pass_start]
                k = order.index(visited)
                moved = True
                live = visited.held is not None or visited.fed or any(o.held is not None for o in order[:k])
                order = order[k + 1:]
                visited = None
            for t in order:
                # what TensixThread.pump returns False for at once, without calling it
                if t.held is None:
                    if not t.fed:
                        continue
                elif t._gate_epoch == self.epoch or (t._src_key is not None
                                                     and t._src_key == self.src.ownership()):
                    live = True  # (held: pump would find it still held)
                    continue
                if t.pump():
                    moved = True
                if t.held is not None or t.fed:
                    live = True
            moved_any |= moved
            if not self._again and not (moved and live):
                # (with every thread left without work the next pass would move nothing:
                # it would only forget prefer_after_release)
                self.prefer_after_release = None
                return moved_any

    def step(self) -> bool:
        """Once per scheduler round: retry what waits at the gates."""
        return self.kick()

    def after_issue(self) -> None:
        """An instruction executed: latched waits may be met now."""
        for t in self.threads:
            if t.gate.opcode is not None:
                t.gate.refresh(self, t.index)

    def state_changed(self) -> None:
        """Something outside the threads (a RISC-V semaphore write) changed state."""
        self.epoch += 1
        self.after_issue()
        self.kick()

    def soft_reset_changed(self, old: int, new: int) -> None:
        """Backend parts of RISCV_DEBUG_REG_SOFT_RESET_0 (SoftReset.md): leaving the
        FPU/SFPU reset (bit 10) resets the Vector Unit's state; packer i (bits 2-5, and
        bit 17 for all packers) has AccTileSize and LastTileSize zeroed on entering
        reset and l1_dest_addr_offset zeroed on leaving it (no PACR is in flight
        between instructions here, and the output buffers are not modelled)."""
        self.epoch += 1
        bit = 1 << 10
        if old & bit and not new & bit:
            self.sfpu.reset()
        for i in range(4):
            mask = (1 << (2 + i)) | (1 << 17)
            if new & mask and not old & mask:
                self.pack.reset_acc_tile_size(i)
                self.pack.last_tile_size[i] = 0
            elif old & mask and not new & mask:
                self.pack.l1_dest_addr_offset[i] = 0

    def core_reset(self, core) -> None:
        self.epoch += 1
        spec = self.tile.specs.get(core)
        if spec is not None and spec.tensix_thread is not None and core != "brisc":
            self.threads[spec.tensix_thread].reset()

    # -- busy / ownership interface (STALLWAIT conditions, TTSync) -------------------------
    def condition(self, thread, kind, arg) -> bool:
        """True while the condition says "keep waiting"."""
        if kind == "busy":
            for u in self._units_named(arg):
                if u.busy(thread):
                    return True
            return False
        if kind == "busy_any":
            return any(any(u.busy(t) for t in range(3)) for u in self._units_named(arg))
        if kind == "src_not_owned":
            which, client = arg
            return not self.src.owned_by(which, client)
        if kind == "riscv_pending":
            return False  # RISC-V accesses complete synchronously
        raise ValueError(kind)

    def stall_checks(self, cond_mask):
        """The STALLWAIT condition bits of ``cond_mask`` that :meth:`condition` can find
        holding, in bit order: ``((bit, kind, arg), ...)``; left out are the busy
        conditions of units that are never busy (:meth:`_units_named` finds none) and the
        RISC-V request one (accesses complete synchronously), which always say "met"."""
        checks = self._stall_checks.get(cond_mask)
        if checks is None:
            checks = self._stall_checks[cond_mask] = tuple(
                (bit, kind, arg) for bit, kind, arg, _ in self.arch.stallwait_conditions
                if (cond_mask >> bit) & 1 and kind != "riscv_pending"
                and (kind not in ("busy", "busy_any") or self._units_named(arg)))
        return checks

    def _units_named(self, name):
        """The backend units named ``name`` that can be busy (that answer ``busy`` other than
        as :class:`~.units.Unit` does, always False without doing anything), in
        ``self.units`` order."""
        by_name = self._by_name
        if by_name is None:
            by_name = self._by_name = {}
            for u in self.units:
                units = by_name.setdefault(u.name, [])
                if type(u).busy is not Unit.busy:
                    units.append(u)
        return by_name.get(name, ())

    def stream_reg(self, thread, stream_select, index) -> int:
        """``NOC_STREAM_READ_REG(StreamIndex, index)`` with StreamIndex = ThreadConfig
        STREAM_ID_SYNC_SEC[stream_select].BankSel (BlackholeA0 STREAMWAIT.md /
        STREAMWRCFG.md): a read of the tile's NoC overlay stream register (a register
        the overlay does not model stops the run there)."""
        stream = self.config.thread_get(thread, f"STREAM_ID_SYNC_SEC{stream_select}_BankSel")
        region = self.arch.region("noc_overlay")
        addr = region.base + stream * 0x1000 + 4 * index
        entry = self.tile.router.lookup(addr)
        if entry is None or entry[1] is None:
            raise Unimplemented(f"NoC overlay stream {stream} register {index} (0x{addr:08x}) is not modelled")
        return entry[1].read(None, addr, 4)

    def any_unit_busy(self, thread) -> bool:
        busy = self._busy_units
        if busy is None:  # (the units that can be busy: see _units_named)
            busy = self._busy_units = [u for u in self.units if type(u).busy is not Unit.busy]
        for u in busy:
            if u.busy(thread):
                return True
        return False

    # -- reporting -------------------------------------------------------------------------
    def trace(self, thread, stage, word, detail):
        tracer = self.tile.tracer
        if tracer is not None:
            tracer.tensix(thread, stage, word, self.table.disasm(word), detail)

    def disasm_ttinsn(self, insn_word):
        tw = ((insn_word >> 2) | (insn_word << 30)) & 0xFFFFFFFF
        return self.table.disasm(tw)

    def blocked(self):
        """Hang diagnosis: one line per thread that holds an instruction."""
        return [f"t{t.index} {t.held_reason}" for t in self.threads if t.held is not None]

    def unfinished(self):
        """What each thread still has to do, one text per thread that is not idle (the
        FIFO, the MOP expander, replay playback, the wait gate, a busy unit)."""
        out = []
        for t in self.threads:
            if t.idle():
                continue
            parts = []
            queued = len(t.fifo) + len(t.mid)
            if queued:
                parts.append(f"{queued} queued")
            if t.mop.active is not None:
                parts.append("a MOP expanding")
            if t.replay.play_left:
                parts.append(f"{t.replay.play_left} to replay")
            if t.held is not None:
                parts.append(t.held_reason or "one held")
            busy = [type(u).__name__ for u in self.units if u.busy(t.index)]
            if busy:
                parts.append(f"busy: {', '.join(busy)}")
            out.append(f"t{t.index} {', '.join(parts)} (pushed {t.pushed}, issued {t.issued})")
        return out

    def summary(self):
        out = {}
        for t in self.threads:
            core = f"trisc{t.index}"
            hart = self.tile.harts.get(core)
            out[f"t{t.index}"] = {"core_riscv": hart.steps if hart else 0, "pushed": t.pushed,
                                  "issued": t.issued, "held_steps": t.held_steps}
        return out


def _adapted(fn, adapt, target):
    """``fn`` called with the arch's fields mapped by ``adapt`` (ArchSpec.tensix_field_adapters);
    while it runs, the thread's instruction word is the same instruction encoded as
    ``target`` (the arch the implementation was written for) encodes it, for the few
    bits implementations read from the raw word: each value the target has a field for,
    cut to that field's width (a Blackhole AddrMod of 4..7 has no Wormhole encoding; the
    implementation gets it whole through its keyword argument)."""
    known = {f.name: f for f in target.fields}
    base = target.opcode << 24

    def call(t, **fields):
        kwargs = adapt(fields)
        word = getattr(t, "word", None)
        raw = base
        for name, value in kwargs.items():
            f = known.get(name)
            if f is not None:
                raw |= (value & f.mask) << f.lo
        t.word = raw
        try:
            return fn(t, **kwargs)
        finally:
            t.word = word
    call.adapted = fn
    return call


def _field_params(fn):
    """-> (names, required, takes_any) of ``fn``'s parameters after the thread, read from
    its code object (what :func:`inspect.signature` reports, for a plain function or
    method, through ``functools.wraps``; a coprocessor checks every handler as it is
    built, and inspect's way costs most of that); None for any other callable."""
    bound = getattr(fn, "__self__", None) is not None and hasattr(fn, "__func__")
    f = fn.__func__ if bound else fn
    while hasattr(f, "__wrapped__"):
        f = f.__wrapped__
    code = getattr(f, "__code__", None)
    if code is None or not hasattr(f, "__defaults__") or code.co_flags & 0x04:  # no *args
        return None
    npos, nkw = code.co_argcount, code.co_kwonlyargcount
    skip = 2 if bound else 1  # self, the thread
    if npos < skip:
        return None
    pos = code.co_varnames[:npos]
    kwonly = code.co_varnames[npos:npos + nkw]
    npos_required = npos - len(f.__defaults__ or ())
    kwdefaults = f.__kwdefaults__ or {}
    required = {n for n in pos[skip:npos_required]} | {n for n in kwonly if n not in kwdefaults}
    return set(pos[skip:]) | set(kwonly), required, bool(code.co_flags & 0x08)


def _takes_fields(fn, spec) -> bool:
    """Does ``fn`` (an implementation, perhaps adapted) take exactly the fields of ``spec``?"""
    if getattr(fn, "adapted", None) is not None:
        return True  # the adapter decides (and is checked by tests)
    fast = _field_params(fn)
    if fast is not None:
        params, required, takes_any = fast
        return takes_any or required <= {f.name for f in spec.fields} <= params
    import inspect

    params = list(inspect.signature(fn).parameters.values())[1:]
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return True
    names = {f.name for f in spec.fields}
    required = {p.name for p in params if p.default is p.empty}
    return required <= names <= {p.name for p in params}
