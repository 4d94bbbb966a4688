"""ttemu's GDB server driven by the real gdb-multiarch in batch mode, against shipped
programs: breakpoints at symbols, registers and memory, thread switching between
cores, stepi across a .ttinsn word, an L1 watchpoint (a RISC-V store and a Tensix
packer's write), ``monitor`` commands, ebreak, and a debugged run giving the same
trace bytes as an undebugged one."""

import os
import re

import pytest

from gdb_harness import GDB, ROOT, Ttemu, run_gdb
from ttemu.cli import main
from ttemu.elf import read_elf

pytestmark = pytest.mark.skipif(GDB is None, reason="gdb-multiarch is not installed (apt-get install gdb-multiarch)")

HELLO = [f"firmware/build/hello/{c}.elf" for c in ("brisc", "trisc0", "trisc1", "trisc2")]
HANDSHAKE = [f"firmware/build/handshake/{c}.elf" for c in ("brisc", "trisc1", "trisc2")]
MATMUL = "firmware/matmul_block/matmul_block.toml"


def has(out, text):
    """gdb names threads by its own numbers (order of discovery): match any."""
    return re.search(r"Thread \d+ " + re.escape(text), out) is not None


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_break_at_symbol_registers_memory_threads_and_quitting_gdb():
    with Ttemu(*HELLO, "--dump-l1", "0x20000:16") as t:
        out = run_gdb(t, "firmware/build/hello/trisc1.elf",
                      "break main", "continue", "info registers pc sp",
                      "x/wx 0x20000", "x/wx 0x20008", "info threads", "thread 1", "p/x $pc")
        rc, stdout, err = t.finish()
        # BRISC released the TRISCs; trisc1 (thread 3) stopped at main, its stack in local memory
        assert has(out, '"trisc1" hit Breakpoint 1, 0x0000a03c in main ()'), out
        assert "pc             0xa03c" in out and "sp             0xffb00800" in out
        assert "0x20000:\t0xb215c0de" in out  # brisc's value is in L1 ...
        assert "0x20008:\t0x00000000" in out  # ... trisc1's store has not happened yet
        assert 'Thread 1 "brisc"' in out and 'Thread 2 "trisc0"' in out
        assert "[Switching to thread 1 (Thread 1)]" in out and "$1 = 0x24" in out  # brisc parked in _park
        # gdb quits while the tile is stopped: it detaches and the run goes on to its end
        assert rc == 0 and "ttemu: halted after 63 instructions" in stdout
        assert "0x00020000:  0xb215c0de 0x7215c000 0x7215c001 0x7215c002" in stdout
        assert "gdb detached; the run continues" in err


def test_stepi_across_ttinsn_monitor_tensix_at_a_semaphore_wait_and_watch():
    with Ttemu(*HANDSHAKE, "--dump-l1", "0x20000:16") as t:
        out = run_gdb(t, "firmware/build/handshake/trisc2.elf",
                      "break *0xe034", "continue", "monitor tensix",
                      "stepi", "p/x $pc", "stepi", "p/x $pc", "delete",
                      "watch *(int*)0x20004", "continue", "continue")
        rc, stdout, err = t.finish()
        assert has(out, '"trisc2" hit Breakpoint 1, 0x0000e034 in main ()'), out
        # T1 (math) posted twice and holds its third SEMPOST behind SEMWAIT STALL_ON_MAX
        assert "wait gate: SEMWAIT sem1 STALL_ON_MAX (value 2, max 2)" in out
        assert "held: held at SEMWAIT sem1 STALL_ON_MAX (value 2, max 2): ttsempost 2 waits" in out
        assert "    0xa6a1000a ttsemwait 322,2,2  (.ttinsn pc 0x0000a040)" in out
        assert "semaphores: sem0 0/0  sem1 2/2" in out
        # e034 and e038 are .ttinsn words (SEMWAIT, SEMGET): one instruction each
        assert "$1 = 0xe038" in out and "$2 = 0xe03c" in out
        # trisc1 stores the tile count after TTSync: stopped right after the sw at 0xa060
        assert has(out, '"trisc1" hit Hardware watchpoint 2: *(int*)0x20004')
        assert "Old value = 0\nNew value = 5\n0x0000a064 in ?? ()" in out
        assert rc == 0 and "0x00020000:  0x00000005 0x00000005 0x00000000 0x00000000" in stdout


def test_kernel_session_watch_output_tile_and_monitor_dst():
    """The issue's session: a manifest, the TRISC's ELF, break in the kernel, step,
    watch the output tile's first word (written by the packer), look at Dst."""
    with Ttemu(MATMUL) as t:
        out = run_gdb(t, "firmware/build/matmul_block/trisc1.elf",
                      "break main", "continue", "stepi", "p/x $pc", "watch *(int*)0x50000", "continue",
                      "monitor l1 0x50000:8:fp32", "monitor dst 0:16:raw", "monitor gpr 1", "monitor cfg nosuchfield",
                      "delete", "continue")
        rc, stdout, err = t.finish()
        assert has(out, '"trisc1" hit Breakpoint 1, 0x00008090 in main ()'), out
        assert "$1 = 0x8094" in out
        # the first output word comes from T2's packer, inside trisc2's push
        assert has(out, '"trisc2" hit Hardware watchpoint 2: *(int*)0x50000')
        new = int(out.split("New value = ")[1].split()[0])
        l1 = out.split("fp32 dump of 0x00050000 (8 bytes):\n0x00050000:")[1].split()
        import struct

        assert struct.unpack("<f", struct.pack("<i", new))[0] == pytest.approx(float(l1[0]), rel=1e-6)
        # Dst row 0 holds the first output row; the packer just wrote it out
        dst_row0 = out.split("Dst32b row 0:")[1].split("\n")[0].split() if "Dst32b row 0:" in out else None
        assert "T1 GPRs:" in out and "T0 GPRs:" not in out
        assert "(no non-zero field matches 'nosuchfield')" in out
        assert dst_row0 is None or float(dst_row0[0]) == pytest.approx(float(l1[0]), rel=1e-6)
        assert rc == 0 and "expect out: ok" in stdout


def _main_code(core):
    """[(pc, word)] of matmul_block's ``main`` on ``core``, up to its ``ret``."""
    img = read_elf(f"firmware/build/matmul_block/{core}.elf")
    pc = img.symbols["main"]
    seg = next(s for s in img.segments if s.vaddr <= pc < s.vaddr + len(s.data))
    out = []
    while True:
        word = int.from_bytes(seg.data[pc - seg.vaddr:pc - seg.vaddr + 4], "little")
        out.append((pc, word))
        if word == 0x00008067:  # ret
            return out
        pc += 4


def _imm_i(word):
    return (word >> 20) - ((word >> 31) << 12)


def _first(code, want):
    """pc of the first (pc, word) in ``code`` for which want(word, sp) holds, where sp
    follows the prologue's addi sp, sp, -N from the stack top 0xffb00800."""
    sp = 0xFFB00800
    for pc, word in code:
        if word & 0xFFFFF == 0x10113:  # addi sp, sp, imm
            sp += _imm_i(word)
        elif want(word, sp):
            return pc
    raise AssertionError("not in the code")


def _load_imm(imm):
    return lambda word, sp: word & 0x707F == 0x2003 and _imm_i(word) == imm  # lw rd, imm(rs)


def _store_to(addr):
    def want(word, sp):
        imm = (((word >> 25) << 5) | ((word >> 7) & 31)) - ((word >> 31) << 12)
        return word & 0x707F == 0x2023 and (word >> 15) & 31 == 2 and sp + imm == addr  # sw rs2, imm(sp)
    return want


def test_access_watch_on_one_cores_local_memory_and_read_watch_on_l1():
    """At trisc1's main (trisc2, gdb's thread 4, has not run yet): a read watch on the
    params' N (0x64018, read by both) and an access watch on local 0xffb007fc set in
    trisc2's view. Both cores save s0 there in their prologues, trisc1 first; only
    trisc2's store is in the watched memory."""
    t1, t2 = _main_code("trisc1"), _main_code("trisc2")
    local = 0xFFB007FC
    t1_store, t1_read = _first(t1, _store_to(local)), _first(t1, _load_imm(24))
    t2_read, t2_store = _first(t2, _load_imm(24)), _first(t2, _store_to(local))
    assert t1_store < t1_read  # trisc1 stores to its own 0xffb007fc before it reads N
    with Ttemu(MATMUL) as t:
        out = run_gdb(t, "firmware/build/matmul_block/trisc1.elf",
                      "break *main", "continue", "delete", "rwatch *(int*)0x64018", "thread 4",
                      "awatch *(int*)0xffb007fc", *["continue", "p/x $pc"] * 3, "delete", "continue")
        rc, stdout, err = t.finish()
    stops = re.findall(r'Thread \d+ "(\w+)" hit Hardware (read|access \(read/write\)) watchpoint', out)
    pcs = [int(v, 16) for v in re.findall(r"\$\d+ = (0x[0-9a-f]+)", out)]
    assert stops == [("trisc1", "read"), ("trisc2", "read"), ("trisc2", "access (read/write)")], out
    assert pcs == [t1_read + 4, t2_read + 4, t2_store + 4]  # right after each access
    assert out.count("Value = 2") == 2  # N = 2 output tile columns
    assert rc == 0


def test_ebreak_stops_with_sigtrap_then_ends_the_run_with_its_exit_code():
    # an ebreak (an LLK_ASSERT) at trisc1 main+12
    with Ttemu(*HELLO, "--write", "0xa03c=0x00100073") as t:
        out = run_gdb(t, "firmware/build/hello/trisc1.elf", "continue", "p/x $pc", "continue")
        rc, stdout, err = t.finish()
        assert has(out, '"trisc1" received signal SIGTRAP, Trace/breakpoint trap.'), out
        assert "0x0000a03c in main ()" in out and "$1 = 0xa03c" in out
        assert "[Inferior 1 (Remote target) exited with code 05]" in out
        assert rc == 5 and "ttemu: error: assertion: trisc1 pc 0x0000a03c: ebreak (LLK_ASSERT) in main+0xc" in err


def test_a_hang_stops_with_sigstop_for_a_look_then_ends_with_exit_3():
    # trisc1's SEMPOST (.ttinsn at 0xa044) becomes a NOP: T2 waits at SEMWAIT forever
    with Ttemu(*HANDSHAKE, "--write", "0xa044=0x08000000") as t:
        out = run_gdb(t, "firmware/build/handshake/trisc2.elf", "break *0xe034", "continue", "delete", "continue",
                      "info threads", "monitor tensix", "continue")
        rc, stdout, err = t.finish()
    assert has(out, '"trisc2" received signal SIGSTOP, Stopped (signal).'), out
    assert "ttemu: hang after 91 instructions" in out  # the diagnosis, on gdb's console
    assert "  blocked: t2 held at SEMWAIT sem1 STALL_ON_ZERO (value 0, max 2): ttsemget 2 waits" in out
    assert re.search(r'"trisc2" \(trisc2: blocked in TTSync at pc 0xe04c: waiting for Tensix T2 to drain\)', out)
    assert "  wait gate: SEMWAIT sem1 STALL_ON_ZERO (value 0, max 2)" in out
    assert "semaphores: sem0 0/0  sem1 0/2" in out
    assert "[Inferior 1 (Remote target) exited with code 03]" in out
    assert rc == 3 and "ttemu: hang after 91 instructions" in stdout


def test_debugged_run_gives_the_same_trace_and_results(tmp_path, capsys):
    plain = tmp_path / "plain.trace"
    assert main(["run", MATMUL, "--trace", str(plain)]) == 0
    summary = capsys.readouterr().out
    debugged = tmp_path / "debugged.trace"
    with Ttemu(MATMUL, "--trace", str(debugged)) as t:
        out = run_gdb(t, "firmware/build/matmul_block/trisc1.elf",
                      "break main", "continue", *["stepi"] * 5, "thread 4", *["stepi"] * 5,
                      "watch *(int*)0x50000", "continue", "delete", "thread 2", "stepi", "continue")
        rc, stdout, err = t.finish()
        assert out.count("in main ()") >= 5 and "Hardware watchpoint 2" in out, out
        assert rc == 0
        assert plain.read_bytes() == debugged.read_bytes()
        assert stdout == summary
        assert os.path.getsize(plain) > 10000

