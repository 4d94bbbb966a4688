"""GDB Remote Serial Protocol framing over one socket.

A packet is ``$payload#cc`` with ``cc`` the modulo-256 sum of the payload bytes in
two hex digits; ``}`` escapes the next byte (XOR 0x20). In acknowledged mode each
packet is answered ``+`` (good) or ``-`` (bad checksum: please resend). A lone 0x03
byte is an interrupt request (Ctrl-C). After ``QStartNoAckMode`` neither side
acknowledges. Anything else between packets is ignored.
"""

from __future__ import annotations

import select
import socket

INTERRUPT = object()  # read_packet(): gdb sent 0x03
MAX_PACKET = 1 << 20  # a longer packet without '#' is garbage: dropped and refused


def checksum(data: bytes) -> int:
    return sum(data) & 0xFF


def escape(data: bytes) -> bytes:
    out = bytearray()
    for b in data:
        if b in b"$#}*":
            out += bytes((0x7D, b ^ 0x20))
        else:
            out.append(b)
    return bytes(out)


def unescape(data: bytes) -> bytes:
    out = bytearray()
    it = iter(data)
    for b in it:
        if b == 0x7D:
            nxt = next(it, None)
            if nxt is None:
                break
            out.append(nxt ^ 0x20)
        else:
            out.append(b)
    return bytes(out)


def frame(payload: bytes) -> bytes:
    body = escape(payload)
    return b"$" + body + b"#" + f"{checksum(body):02x}".encode()


class Connection:
    """One gdb connection. ``read_packet`` blocks; ``poll_interrupt`` does not."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buf = bytearray()
        self.ack = True
        self.closed = False
        self.interrupted = False  # a 0x03 arrived while we were not reading packets
        self.log = None  # callable(direction, bytes) for --debug style tracing (tests)

    # -- raw bytes -------------------------------------------------------------------
    def _recv(self, timeout=None) -> bool:
        """Append what arrives; False on EOF (or a dead socket)."""
        if self.closed:
            return False
        try:
            if timeout is not None:
                ready, _, _ = select.select([self.sock], [], [], timeout)
                if not ready:
                    return True
            data = self.sock.recv(65536)
        except OSError:
            data = b""
        if not data:
            self.closed = True
            return False
        if self.log:
            self.log("<-", data)
        self.buf += data
        return True

    def _write(self, data: bytes) -> None:
        if self.closed:
            return
        if self.log:
            self.log("->", data)
        try:
            self.sock.sendall(data)
        except OSError:
            self.closed = True

    def close(self) -> None:
        if not self.closed:
            self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    # -- packets ---------------------------------------------------------------------
    def read_packet(self):
        """The next packet's payload (bytes, unescaped), INTERRUPT for a 0x03 byte,
        or None when gdb has gone. Bad packets are refused with '-' and skipped."""
        while True:
            item = self._parse()
            if item is not None:
                return item
            if not self._recv():
                return None

    def _parse(self):
        buf = self.buf
        while buf:
            b = buf[0]
            if b == 0x03:
                del buf[0]
                return INTERRUPT
            if b != 0x24:  # '$'; acks and noise between packets are ignored
                del buf[0]
                continue
            end = buf.find(b"#")
            if end < 0:
                if len(buf) > MAX_PACKET:
                    buf.clear()
                    self._nak()
                return None
            if len(buf) < end + 3:
                return None
            body = bytes(buf[1:end])
            cs = bytes(buf[end + 1:end + 3])
            del buf[:end + 3]
            try:
                ok = int(cs, 16) == checksum(body)
            except ValueError:
                ok = False
            if not self.ack:
                return unescape(body)
            if not ok:
                self._nak()
                continue
            self._write(b"+")
            return unescape(body)
        return None

    def _nak(self):
        if self.ack:
            self._write(b"-")

    def send(self, payload: bytes | str) -> None:
        """Send a packet; in acknowledged mode wait for '+' (resend on '-', up to 5 times)."""
        if isinstance(payload, str):
            payload = payload.encode()
        data = frame(payload)
        for _ in range(5):
            self._write(data)
            if not self.ack or self.closed:
                return
            reply = self._await_ack()
            if reply != "-":
                return

    def _await_ack(self):
        while True:
            while self.buf:
                b = self.buf[0]
                if b in (0x2B, 0x2D):  # '+', '-'
                    del self.buf[0]
                    return chr(b)
                if b == 0x03:
                    del self.buf[0]
                    self.interrupted = True
                    continue
                return "+"  # a packet came instead of an ack: take it as acknowledged
            if not self._recv(timeout=5.0) or not self.buf:
                return None

    def poll_interrupt(self) -> bool | None:
        """Without blocking: True if gdb asked for an interrupt, None if it has gone."""
        if self.interrupted:
            self.interrupted = False
            return True
        if not self._recv(timeout=0):
            return None
        if 0x03 in self.buf:
            i = self.buf.index(0x03)
            if b"$" not in self.buf[:i]:
                del self.buf[i]
                return True
        return False
