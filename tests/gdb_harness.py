"""Running ``ttemu run ... --gdb 0`` as a child process for the gdb tests: the port it
chose comes from its stderr; everything is bounded by timeouts."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GDB = shutil.which("gdb-multiarch")
TIMEOUT = 30


class Ttemu:
    """A ttemu child waiting for gdb. ``port`` is where it listens."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([sys.executable, "-m", "ttemu", "run", *args, "--gdb", "0"], cwd=ROOT,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.err_lines = []
        self.port = None
        guard = threading.Timer(TIMEOUT, self.kill)
        guard.start()
        while self.port is None:
            line = self.proc.stderr.readline()
            if not line:
                out, err = self.proc.communicate(timeout=TIMEOUT)
                raise AssertionError(f"ttemu did not start its gdb server: {''.join(self.err_lines)}{err}")
            self.err_lines.append(line)
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
            if m:
                self.port = int(m.group(1))
        guard.cancel()
        self._rest = []
        self._reader = threading.Thread(target=lambda: self._rest.append(self.proc.stderr.read()), daemon=True)
        self._reader.start()

    def finish(self):
        """-> (exit code, stdout, stderr) once the child has ended (killed after TIMEOUT)."""
        try:
            out = self.proc.stdout.read()
            rc = self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:  # pragma: no cover
            self.proc.kill()
            raise
        self._reader.join(TIMEOUT)
        return rc, out, "".join(self.err_lines) + "".join(self._rest)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(TIMEOUT)


def run_gdb(ttemu: Ttemu, elf: str, *commands: str):
    """gdb-multiarch in batch mode against ``ttemu``; -> gdb's output (stdout + stderr)."""
    args = [GDB, "-batch", "-nx", "-ex", "set architecture riscv:rv32", "-ex", "set pagination off"]
    if elf:
        args += ["-ex", f"file {elf}"]
    args += ["-ex", f"target remote 127.0.0.1:{ttemu.port}"]
    for c in commands:
        args += ["-ex", c]
    try:
        p = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        ttemu.kill()
        raise
    return p.stdout + p.stderr


class Client:
    """A raw RSP client on a socket (acknowledged mode)."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buf = b""

    def raw(self, data: bytes):
        self.sock.sendall(data)

    def read_byte(self) -> bytes:
        if not self.buf:
            self.buf = self.sock.recv(65536)
            if not self.buf:
                return b""
        b, self.buf = self.buf[:1], self.buf[1:]
        return b

    def read_packet(self) -> str:
        """The next packet's payload (acknowledged with '+'); acks before it are skipped."""
        while True:
            b = self.read_byte()
            if b == b"":
                raise EOFError
            if b == b"$":
                break
        body = b""
        while True:
            b = self.read_byte()
            if b == b"#":
                break
            body += b
        cs = self.read_byte() + self.read_byte()
        assert int(cs, 16) == sum(body) & 0xFF
        self.raw(b"+")
        return body.decode("latin-1")

    def send(self, payload: str) -> str:
        """Send a packet, expect '+', return the reply packet's payload."""
        data = payload.encode("latin-1")
        self.raw(b"$" + data + b"#" + f"{sum(data) & 0xFF:02x}".encode())
        assert self.read_byte() == b"+"
        return self.read_packet()

    def close(self):
        self.sock.close()
