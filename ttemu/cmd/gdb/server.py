"""The protocol handler: gdb's packets against a tile's run control.

All-stop: :class:`GdbServer` is the tile's :class:`ttemu.debug.DebugControl`; a stop
calls :meth:`GdbServer.stopped` from inside the scheduler, which reports it to gdb
and answers packets until gdb resumes (``c``, ``s``, ``vCont``), detaches or kills.
Every released core is a thread (id = trace core id + 1: brisc 1, trisc0-2 2-4,
ncrisc 5). A step runs the normal schedule until the chosen core retired one
instruction (other cores take their turns as they would without gdb, so results and
traces do not change); ``vCont;s:N`` without ``;c`` behaves the same.
"""

from __future__ import annotations

import socket
import sys
from xml.sax.saxutils import escape

from ...arch import CORE_NAMES
from ...debug import SIGINT, SIGSTOP, DebugControl, Interrupted, Stop, Watch
from ...errors import TtemuError
from ...riscv.hart import RUNNING
from . import monitor, target
from .packets import INTERRUPT, Connection

RESUME = object()
WATCH_KINDS = {"2": "write", "3": "read", "4": "access"}
STOP_WORD = {"write": "watch", "read": "rwatch", "access": "awatch"}
FEATURES = ("PacketSize=4000;qXfer:features:read+;qXfer:threads:read+;QStartNoAckMode+;swbreak+;hwbreak+;"
            "vContSupported+")


class GdbError(TtemuError):
    """The gdb server could not start (a port in use, a refused bind)."""

    category = "gdb"
    exit_code = 1


def listen(port: int, host: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((host, port))
        sock.listen(1)
    except OSError as e:
        sock.close()
        raise GdbError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return sock


def _hex(text: str) -> str:
    return text.encode().hex()


def _chunk(doc: str, annex_args: str) -> str:
    off, length = (int(v, 16) for v in annex_args.split(","))
    part = doc[off:off + length]
    return ("l" if off + length >= len(doc) else "m") + part


class GdbServer(DebugControl):
    def __init__(self, tile, first_core: str | None = None, log=None):
        super().__init__(tile)
        self.conn: Connection | None = None
        self.log = log or (lambda text: sys.stderr.write(f"ttemu: gdb: {text}\n"))
        self.first_core = first_core
        self.first_of = None  # a --gdb-core not released yet: stop when it starts
        self.cur = None  # the thread of the last stop (gdb's current thread)
        self.g_hart = None  # Hg
        self.c_hart = None  # Hc (None: any)
        self.last_reply = "S05"

    # -- connection -----------------------------------------------------------------------
    def accept(self, listener: socket.socket) -> None:
        sock, peer = listener.accept()
        listener.close()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.conn = Connection(sock)
        self.log(f"attached from {peer[0]}:{peer[1]}")

    def finish(self, exit_code: int) -> None:
        """The run is over: tell gdb (``W``) and hang up."""
        conn = self.conn
        if conn is None or conn.closed:
            return
        conn.send(f"W{exit_code & 0xFF:02x}")
        conn._recv(timeout=1.0)  # let gdb read it and hang up first
        conn.close()
        self.conn = None

    def run_ended(self, result) -> None:
        """The scheduler stopped. A hang, the step limit or idleness is shown to gdb as a
        stop (SIGSTOP, the diagnosis on gdb's console) so the stuck state can be looked
        at; continuing (or detaching) then ends the run (``W`` with its exit code)."""
        if self.conn is None or result.outcome not in ("hang", "step-limit", "idle"):
            return
        text = f"ttemu: {result.outcome} after {result.steps} instructions"
        text += f" ({result.detail})\n" if result.detail else "\n"
        text += "".join(f"  blocked: {line}\n" for line in result.blocked)
        self.conn.send("O" + _hex(text))
        running = [h for h in self.threads() if h.state == RUNNING]
        hart = self.cur if self.cur in running or not running else running[0]
        self.step_hart = None
        self.stopped(Stop(hart, "end", SIGSTOP))

    def _detach(self, why: str) -> None:
        self.breakpoints.clear()
        self.watches.clear()
        self.step_hart = None
        self.interrupt = False
        if self.conn is not None:
            self.conn.close()
        self.conn = None
        self.tile.debug = None  # the run carries on at full speed
        self.log(f"{why}; the run continues")

    # -- threads ---------------------------------------------------------------------------
    def threads(self):
        return [h for h in self.tile.harts.values() if h.released]

    @staticmethod
    def tid(hart) -> int:
        return hart.index + 1

    def by_tid(self, text: str):
        """Hart for a thread id; 'any' (0) and 'all' (-1) give None; unknown ids raise."""
        if text in ("-1", "0", ""):
            return None
        n = int(text, 16)
        for h in self.threads():
            if self.tid(h) == n:
                return h
        raise KeyError(text)

    def selected(self):
        h = self.g_hart or self.cur
        if h is None:
            ts = self.threads()
            h = ts[0] if ts else self.tile.harts[CORE_NAMES[0]]
        return h

    # -- run control hooks ---------------------------------------------------------------
    def first_stop(self) -> Stop:
        released = self.threads()
        first = None
        if self.first_core:
            hart = self.tile.harts[self.first_core]
            if hart.released:
                first = hart
            else:
                self.first_of = hart
        return Stop(first or (released[0] if released else None), "start")

    def turn(self, hart, budget, exact):
        if self.first_of is hart:
            self.first_of = None
            self._stop(Stop(hart, "core start"))
        return super().turn(hart, budget, exact)

    def poll(self) -> None:
        if self.conn is None:
            return
        r = self.conn.poll_interrupt()
        if r is None:
            self._detach("gdb disconnected")
        elif r:
            self.interrupt = True

    def stopped(self, stop: Stop) -> None:
        if self.conn is None:
            return
        self.cur = stop.hart or self.cur
        self.g_hart = None
        self.c_hart = None
        self.last_reply = reply = self._stop_reply(stop)
        if stop.reason != "start":
            self.conn.send(reply)
        self._serve()

    def _stop_reply(self, stop: Stop) -> str:
        hart = stop.hart or self.cur
        sig = SIGINT if stop.reason == "interrupt" else stop.signal
        if hart is None:
            return f"S{sig:02x}"
        parts = [f"T{sig:02x}"]
        if stop.reason == "watch":
            parts.append(f"{STOP_WORD[stop.watch.kind]}:{stop.watch_addr:x};")
        elif stop.reason == "breakpoint":
            parts.append("swbreak:;")
        parts.append(f"{target.PC_REGNUM:02x}:{target.le32(hart.pc)};thread:{self.tid(hart):x};")
        if stop.error is not None:
            self.log(f"{hart.name} stopped: {stop.error.one_line()} (continuing ends the run)")
        return "".join(parts)

    # -- the packet loop -------------------------------------------------------------------
    def _serve(self) -> None:
        while True:
            conn = self.conn
            if conn is None:
                return
            pkt = conn.read_packet()
            if pkt is None:
                self._detach("gdb disconnected")
                return
            if pkt is INTERRUPT:
                continue  # already stopped
            try:
                reply = self.handle(pkt.decode("latin-1"))
            except (Interrupted, KeyboardInterrupt):
                raise
            except Exception as e:  # never let a packet crash the run
                self.log(f"packet {pkt[:40]!r}: {type(e).__name__}: {e}")
                reply = "E01"
            if reply is RESUME:
                return
            if reply is not None and self.conn is not None:
                self.conn.send(reply)

    def handle(self, p: str):
        """The reply to packet ``p`` (a str), RESUME, or None (no reply)."""
        if not p:
            return ""
        c = p[0]
        if p == "?":
            return self.last_reply
        if c == "q" or c == "Q":
            return self._query(p)
        if c == "v":
            return self._v(p)
        if c == "H":
            try:
                h = self.by_tid(p[2:])
            except (KeyError, ValueError):
                return "E01"
            if p[1] == "g":
                self.g_hart = h
            elif p[1] == "c":
                self.c_hart = h
            else:
                return "E01"
            return "OK"
        if c == "T":
            try:
                return "OK" if self.by_tid(p[1:]) is not None else "E01"
            except (KeyError, ValueError):
                return "E01"
        if c == "g":
            h = self.selected()
            return "".join(target.le32(target.get_reg(h, i)) for i in range(target.NUM_REGS))
        if c == "G":
            h = self.selected()
            data = bytes.fromhex(p[1:])
            for i in range(min(len(data) // 4, target.NUM_REGS)):
                target.set_reg(h, i, int.from_bytes(data[4 * i:4 * i + 4], "little"))
            return "OK"
        if c == "p":
            v = target.get_reg(self.selected(), int(p[1:], 16))
            return "E45" if v is None else target.le32(v)
        if c == "P":
            n, v = p[1:].split("=")
            ok = target.set_reg(self.selected(), int(n, 16), int.from_bytes(bytes.fromhex(v)[:4], "little"))
            return "OK" if ok else "E45"
        if c == "m":
            addr, n = (int(v, 16) for v in p[1:].split(","))
            if n == 0:
                return ""
            try:
                return target.read_memory(self.tile, addr, n, self.selected().name).hex()
            except target.MemoryError_:
                return "E14"
        if c in "MX":
            head, data = p[1:].split(":", 1)
            addr, n = (int(v, 16) for v in head.split(","))
            raw = bytes.fromhex(data) if c == "M" else data.encode("latin-1")
            if len(raw) != n:
                return "E01"
            if n == 0:
                return "OK"
            try:
                target.write_memory(self.tile, addr, raw, self.selected().name)
            except (target.MemoryError_, TtemuError):
                return "E14"
            self.snapshot()
            return "OK"
        if c in "Zz":
            return self._point(p)
        if c in "cCsS":
            args = p[1:]
            if c in "CS":
                args = args.split(";", 1)[1] if ";" in args else ""
            if args:
                (self.c_hart or self.selected()).pc = int(args, 16)
            step = (self.c_hart or self.cur or self.selected()) if c in "sS" else None
            return self._resume(step)
        if c == "D":
            self.conn.send("OK")
            self._detach("gdb detached")
            return RESUME
        if c == "k":
            self._kill()
        return ""

    def _kill(self):
        if self.conn is not None:
            self.conn.close()
        self.conn = None
        self.tile.debug = None
        raise Interrupted("gdb killed the run")

    def _resume(self, step_hart):
        if step_hart is not None and step_hart.state != RUNNING:
            # a halted core stays where it is: the step is over at once
            return self._stop_reply(Stop(step_hart, "step"))
        self.resume(step_hart)
        return RESUME

    def _v(self, p: str):
        if p == "vCont?":
            return "vCont;c;C;s;S"
        if p.startswith("vCont;"):
            step = None
            for action in p[6:].split(";"):
                verb, _, tid = action.partition(":")
                if verb[:1] in ("s", "S"):
                    try:
                        h = self.by_tid(tid) if tid else None
                    except (KeyError, ValueError):
                        return "E01"
                    step = h or self.c_hart or self.cur or self.selected()
                    break
                if verb[:1] not in ("c", "C"):
                    return "E01"  # t, r: not offered
            return self._resume(step)
        if p.startswith("vKill"):
            self.conn.send("OK")
            self._kill()
        return ""

    def _query(self, p: str):
        if p.startswith("qSupported"):
            return FEATURES
        if p == "QStartNoAckMode":
            self.conn.send("OK")
            self.conn.ack = False
            return None
        if p == "qAttached" or p.startswith("qAttached:"):
            return "1"  # quitting gdb detaches: the run goes on
        if p == "qC":
            return f"QC{self.tid(self.cur):x}" if self.cur is not None else ""
        if p == "qfThreadInfo":
            return "m" + ",".join(f"{self.tid(h):x}" for h in self.threads()) if self.threads() else "l"
        if p == "qsThreadInfo":
            return "l"
        if p.startswith("qThreadExtraInfo,"):
            try:
                h = self.by_tid(p.split(",", 1)[1])
            except (KeyError, ValueError):
                return "E01"
            return _hex(self._describe(h)) if h else "E01"
        if p.startswith("qXfer:features:read:target.xml:"):
            return _chunk(target.target_xml(), p.rsplit(":", 1)[1])
        if p.startswith("qXfer:features:read:"):
            return "E00"
        if p.startswith("qXfer:threads:read::"):
            return _chunk(self._threads_xml(), p.rsplit(":", 1)[1])
        if p.startswith("qRcmd,"):
            text = bytes.fromhex(p[6:]).decode("utf-8", "replace")
            out = monitor.run_command(self.tile, text, self.selected().name)
            for i in range(0, len(out), 1024):
                self.conn.send("O" + _hex(out[i:i + 1024]))
            return "OK"
        if p.startswith("qSymbol"):
            return "OK"
        return ""

    def _describe(self, h) -> str:
        if h.state == RUNNING and h.stall:
            return f"{h.name}: {h.stall}"
        return f"{h.name}: {h.state}"

    def _threads_xml(self) -> str:
        rows = [f'<thread id="{self.tid(h):x}" core="{h.index}" name="{h.name}">{escape(self._describe(h))}</thread>'
                for h in self.threads()]
        return '<?xml version="1.0"?>\n<threads>\n' + "\n".join(rows) + "\n</threads>\n"

    def _point(self, p: str):
        kind, rest = p[1], p[3:]
        parts = rest.split(";")[0].split(",")
        addr, length = int(parts[0], 16), int(parts[1], 16)
        insert = p[0] == "Z"
        if kind in "01":
            if addr & 3 == 2:
                # gdb takes a .ttinsn word (low bits not 0b11) for a 16-bit compressed
                # instruction and steps over it with a breakpoint at its second half;
                # these cores have no compressed instructions: the next one is at +2.
                addr += 2
            (self.breakpoints.add if insert else self.breakpoints.discard)(addr)
            return "OK"
        if kind not in WATCH_KINDS:
            return ""
        w = Watch(WATCH_KINDS[kind], addr, max(length, 1))
        a = self.tile.arch
        if a.local_base <= addr < a.local_base + 0x1000:
            w.core = self.selected().name
            if addr + w.length > a.local_base + len(self.tile.harts[w.core].local):
                return "E01"
        elif addr + w.length > a.l1_size:
            return "E01"  # only L1 and core-local memory can be watched
        if insert:
            self.watches.append(w)
        else:
            self.watches[:] = [x for x in self.watches if (x.kind, x.addr, x.length) != (w.kind, w.addr, w.length)]
        self.snapshot()
        return "OK"

