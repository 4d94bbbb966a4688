"""The GDB remote protocol server's packet layer and protocol answers, driven by a
plain socket client (no gdb needed): framing, bad checksums, unknown and malformed
packets, memory and register reads, breakpoints, Ctrl-C, kill, detach, disconnect,
and the one-line errors of a port that cannot be bound."""

import os
import socket
import time

import pytest

from gdb_harness import Client, Ttemu
from ttemu.cli import main
from ttemu.cmd.gdb.packets import INTERRUPT, Connection, checksum, escape, frame, unescape
from ttemu.elf import read_elf

HELLO = [f"firmware/build/hello/{c}.elf" for c in ("brisc", "trisc0", "trisc1", "trisc2")]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BRISC_MAIN = 0x28  # hello/brisc.elf


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch):
    monkeypatch.chdir(ROOT)


# -- framing ---------------------------------------------------------------------------
def test_frame_and_escapes():
    assert checksum(b"OK") == (ord("O") + ord("K")) & 0xFF
    assert frame(b"OK") == b"$OK#9a"
    data = bytes(range(256))
    assert b"#" not in escape(data).replace(b"}\x03", b"")  # '#' (0x23) is sent as '}' 0x03
    assert unescape(escape(data)) == data


def _pair():
    a, b = socket.socketpair()
    a.settimeout(5)
    return Connection(b), a


def test_bad_checksum_is_refused_and_the_next_packet_read():
    conn, peer = _pair()
    peer.sendall(b"+junk$m0,4#00$m0,4#" + f"{checksum(b'm0,4'):02x}".encode())
    assert conn.read_packet() == b"m0,4"
    assert peer.recv(16) == b"-+"  # refused the bad one, acknowledged the good one


def test_interrupt_byte_and_escaped_payload():
    conn, peer = _pair()
    body = b"X0,1:" + escape(b"#")
    peer.sendall(b"\x03" + b"$" + body + b"#" + f"{checksum(body):02x}".encode())
    assert conn.read_packet() is INTERRUPT
    assert conn.read_packet() == b"X0,1:#"


def test_no_ack_mode_and_eof():
    conn, peer = _pair()
    conn.ack = False
    peer.sendall(b"$g#00")  # checksums are not checked without acknowledgements
    assert conn.read_packet() == b"g"
    peer.close()
    assert conn.read_packet() is None


# -- the protocol against a running ttemu ------------------------------------------------------
def test_protocol_answers_then_detach_lets_the_run_finish():
    with Ttemu(*HELLO, "--dump-l1", "0x20000:16") as t:
        c = Client(t.port)
        try:
            assert c.send("?") == "T0520:00000000;thread:1;"  # brisc at its reset pc
            c.raw(b"$?#00")  # bad checksum
            assert c.read_byte() == b"-"
            assert c.send("qNoSuchThing") == ""  # unknown packet: empty reply
            assert c.send("mzz") == "E01"  # malformed: an error, the server carries on
            assert c.send("Zq,0,4") == ""
            assert "qXfer:features:read+" in c.send("qSupported:swbreak+")
            xml = c.send("qXfer:features:read:target.xml:0,3fff")
            assert xml[0] == "l" and "riscv:rv32" in xml and xml.count("<reg ") == 33
            regs = c.send("g")
            assert len(regs) == 33 * 8 and regs[-8:] == "00000000"  # brisc's pc: its reset pc 0
            assert c.send("qfThreadInfo") == "m1" and c.send("qsThreadInfo") == "l"
            code = read_elf(HELLO[0]).segments[0]
            want = code.data[BRISC_MAIN - code.vaddr:BRISC_MAIN - code.vaddr + 8]
            assert c.send(f"m{BRISC_MAIN:x},8") == want.hex()
            # MMIO: the soft reset register reads without side effects (0x47800 less BRISC's
            # bit 11); a mailbox read would pop: refused
            assert c.send("mffb121b0,4") == (0x47800 & ~(1 << 11)).to_bytes(4, "little").hex()
            assert c.send("mffec0000,4").startswith("E")
            assert c.send("Mffec0000,4:01000000").startswith("E")
            assert c.send("M20010,4:78563412") == "OK" and c.send("m20010,4") == "78563412"
            assert c.send(f"Z0,{BRISC_MAIN:x},4") == "OK"
            stop = c.send("vCont;c")
            assert stop == f"T05swbreak:;20:{BRISC_MAIN.to_bytes(4, 'little').hex()};thread:1;"
            assert c.send("p20") == BRISC_MAIN.to_bytes(4, "little").hex()
            assert c.send("p1") != "E45" and c.send("p99") == "E45"
            # one step: the next instruction
            assert c.send(f"z0,{BRISC_MAIN:x},4") == "OK"
            stop = c.send("s")
            assert stop.startswith("T05") and f"20:{(BRISC_MAIN + 4).to_bytes(4, 'little').hex()}" in stop
            # monitor: O packets, then OK
            c.raw(b"$qRcmd," + b"cores".hex().encode() + b"#" + f"{checksum(b'qRcmd,' + b'cores'.hex().encode()):02x}"
                  .encode())
            assert c.read_byte() == b"+"
            text = ""
            while True:
                pkt = c.read_packet()
                if pkt == "OK":
                    break
                assert pkt[0] == "O"
                text += bytes.fromhex(pkt[1:]).decode()
            assert text.startswith("brisc   running  pc 0x0000002c <main+0x4>")
            assert c.send("D") == "OK"
        finally:
            c.close()
        rc, out, err = t.finish()
        assert rc == 0, err
        assert "ttemu: halted after" in out and "0x7815c000" not in out
        assert "0x00020000:  0xb215c0de 0x7215c000 0x7215c001 0x7215c002" in out
        assert "gdb detached; the run continues" in err


def test_ctrl_c_interrupts_and_kill_ends_the_run():
    # brisc spins in `beq zero, zero, .` at main: only an interrupt stops it
    with Ttemu(*HELLO, "--write", f"{BRISC_MAIN:#x}=0x00000063", "--idle-steps", "1000000000") as t:
        c = Client(t.port)
        try:
            c.send("?")
            c.raw(b"$c#63")
            assert c.read_byte() == b"+"
            time.sleep(0.3)  # let it reach the loop
            c.raw(b"\x03")
            stop = c.read_packet()
            assert stop.startswith("T02") and "thread:1;" in stop
            assert f"20:{BRISC_MAIN.to_bytes(4, 'little').hex()}" in stop
            c.raw(b"$k#6b")
        finally:
            c.close()
        rc, out, err = t.finish()
        assert rc == 130
        assert err.strip().splitlines()[-1] == "ttemu: error: interrupted: gdb killed the run"


def test_port_in_use_is_a_one_line_error(capsys):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    try:
        rc = main(["run", *HELLO, "--gdb", str(port)])
    finally:
        busy.close()
    out, err = capsys.readouterr()
    assert rc == 1
    lines = err.strip().splitlines()
    assert lines[-1].startswith(f"ttemu: error: gdb: cannot listen on 127.0.0.1:{port}: ")
    assert "Traceback" not in err


def test_unknown_gdb_core_is_a_usage_error(capsys):
    rc = main(["run", *HELLO, "--gdb", "0", "--gdb-core", "nosuch"])
    assert rc == 2
    assert "--gdb-core: unknown core 'nosuch'" in capsys.readouterr().err


def test_gdb_core_not_yet_released_stops_when_it_starts_and_disconnecting_lets_the_run_finish():
    with Ttemu(*HELLO, "--gdb-core", "trisc2") as t:
        c = Client(t.port)
        try:
            assert c.send("?") == "T0520:00000000;thread:1;"  # only brisc runs at first
            stop = c.send("c")  # brisc releases the TRISCs: trisc2 stops before its first instruction
            assert stop == "T0520:00e00000;thread:4;"
            assert c.send("qfThreadInfo") == "m1,2,3,4"
            assert c.send("Z0,a03c,4") == "OK"  # would stop trisc1: dropped with the connection
        finally:
            c.close()  # gone without a word: the run finishes
        rc, out, err = t.finish()
        assert rc == 0 and "ttemu: halted after 63 instructions" in out
        assert "gdb disconnected; the run continues" in err
