"""The command-line contract (README.md): exit codes, one-line errors, bad inputs,
dumps, JSON summary, trace determinism, ``ttemu trace`` comparisons and ``disasm``."""

import json
import os
import struct
import sys

import pytest

from mkelf import elf_bytes, write_elf
from progs import Program, t0, t1, tt
from ttemu.cli import main

HELLO = [f"firmware/build/hello/{c}.elf" for c in ("brisc", "trisc0", "trisc1", "trisc2")]


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch):
    monkeypatch.chdir(os.path.join(os.path.dirname(__file__), ".."))


def run(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def program_elf(tmp_path, name, p: Program, symbols=None):
    return write_elf(tmp_path / name, [(p.base, p.assemble())], p.base, symbols or {"_start": p.base})


def one_error_line(err):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("ttemu: error: ")
    assert "Traceback" not in err
    return lines[0]


# -- exit codes ------------------------------------------------------------------------
def test_exit_0_halted_hello(capsys):
    rc, out, err = run(capsys, "run", *HELLO, "--dump-l1", "0x20000:16:hex32")
    assert rc == 0, err
    assert "halted" in out
    assert "0xb215c0de 0x7215c000 0x7215c001 0x7215c002" in out


def test_exit_0_until_with_symbol(capsys, tmp_path):
    p = Program(0)
    p.li(t0, 0x1000)
    p.li(t1, 7)
    p.sw(t1, 0, t0)
    p.label("spin")
    p.j("spin")
    elf = write_elf(tmp_path / "u.elf", [(0, p.assemble()), (0x1000, bytes(4))], 0, {"flag": 0x1000})
    rc, out, err = run(capsys, "run", elf, "--until", "flag=7", "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["outcome"] == "until"


def test_exit_0_idle(capsys, tmp_path):
    p = Program(0)
    p.label("spin")
    p.lw(t1, 0x100, 0)
    p.beq(t1, 0, "spin")
    p.halt()
    rc, out, err = run(capsys, "run", program_elf(tmp_path, "i.elf", p), "--idle-steps", "5000", "--json")
    assert rc == 0 and json.loads(out)["outcome"] == "idle"


def test_exit_1_bad_elf(capsys, tmp_path):
    bad = tmp_path / "notelf.elf"
    bad.write_text("hello\n")
    rc, out, err = run(capsys, "run", str(bad))
    assert rc == 1
    assert "not an ELF" in one_error_line(err)


def test_exit_1_missing_file(capsys):
    rc, out, err = run(capsys, "run", "no/such/file.elf")
    assert rc == 1 and "no such file" in one_error_line(err)


def test_exit_2_usage(capsys):
    rc, out, err = run(capsys, "run", "--max-steps", "many", *HELLO)
    assert rc == 2
    one_error_line(err)
    rc, out, err = run(capsys, "run", "--core", "bogus=x.elf")
    assert rc == 2 and "unknown core" in one_error_line(err)
    rc, out, err = run(capsys, "run")
    assert rc == 2 and "no ELF" in one_error_line(err)


def test_exit_3_deadlock_diagnosed(capsys, tmp_path):
    """T0 waits on a semaphore nobody posts, and TRISC0 waits in TTSync for T0."""
    p = Program(0x6000)
    tt(p, "SEMINIT", max_value=1, init_value=0, sem_sel=1)
    tt(p, "SEMWAIT", stall_res=2, sem_sel=1, wait_sem_cond=1)
    tt(p, "SEMPOST", sem_sel=2)
    p.li(t0, 0xFFE80004)
    p.sw(0, 0, t0)
    p.lw(t1, 0, t0)
    p.halt()
    elf = program_elf(tmp_path, "trisc0.elf", p)
    rc, out, err = run(capsys, "run", elf)
    assert rc == 3, out + err
    assert "hang" in out
    assert "trisc0 blocked in TTSync at pc 0x6018: waiting for Tensix T0 to drain" in out
    assert "t0 held at SEMWAIT sem0 STALL_ON_ZERO (value 0, max 1): ttsempost 2 waits" in out


def test_exit_3_fifo_full_stall(capsys, tmp_path):
    """A held gate lets the FIFO fill; the 33rd push stalls the core (not an error)."""
    p = Program(0x6000)
    tt(p, "SEMWAIT", stall_res=2, sem_sel=1, wait_sem_cond=1)
    tt(p, "SEMGET", sem_sel=1)  # held at the gate
    for _ in range(40):
        tt(p, "SEMPOST", sem_sel=4)
    p.halt()
    elf = program_elf(tmp_path, "trisc0.elf", p)
    rc, out, err = run(capsys, "run", elf, "--json")
    doc = json.loads(out)
    assert rc == 3 and doc["outcome"] == "hang"
    # 2 instructions issued/held + 32 queued: the 35th push (pc 0x6000 + 4*34) stalls
    assert "trisc0 stalled pushing at pc 0x6088: T0 FIFO full (32)" in doc["blocked"]
    assert doc["cores"]["trisc0"]["pc"] == 0x6088


def test_exit_4_step_limit(capsys):
    rc, out, err = run(capsys, "run", *HELLO, "--max-steps", "37", "--json")
    doc = json.loads(out)
    assert rc == 4 and doc["outcome"] == "step-limit" and doc["steps"] == 37


def test_exit_5_guest_fault_names_core_pc_address(capsys, tmp_path):
    p = Program(0)
    p.li(t0, 0x1002)
    p.lw(t1, 0, t0)
    p.halt()
    rc, out, err = run(capsys, "run", program_elf(tmp_path, "f.elf", p))
    assert rc == 5
    line = one_error_line(err)
    assert "guest fault" in line and "brisc" in line and "pc 0x00000008" in line
    assert "0x00001002" in line and "4-byte load" in line


def test_exit_5_unmapped_store(capsys, tmp_path):
    p = Program(0)
    p.li(t0, 0x20000000)
    p.sw(0, 0, t0)
    p.halt()
    rc, out, err = run(capsys, "run", program_elf(tmp_path, "f.elf", p))
    assert rc == 5 and "store at unmapped address 0x20000000" in one_error_line(err)


def test_exit_5_assertion_ebreak(capsys, tmp_path):
    p = Program(0)
    p.nop()
    p.ebreak()
    rc, out, err = run(capsys, "run", program_elf(tmp_path, "a.elf", p, {"llk_check": 0}))
    assert rc == 5
    line = one_error_line(err)
    assert "assertion" in line and "ebreak" in line and "pc 0x00000004" in line and "llk_check+0x4" in line


def _ub_program(tmp_path):
    """TRISC0 runs SETC16 past THD_STATE_SIZE (SETC16.md: undefined) three times in a
    loop, then a documented SETC16, then halts."""
    p = Program(0x6000)
    for _ in range(3):
        tt(p, "SETC16", setc16_reg=57, setc16_value=1)
    tt(p, "SETC16", setc16_reg=12, setc16_value=0xBEEF)
    p.halt()
    return program_elf(tmp_path, "trisc0.elf", p)


def test_undefined_behaviour_warns_once_per_site_and_strict_exits_5(capsys, tmp_path):
    elf = _ub_program(tmp_path)
    rc, out, err = run(capsys, "run", elf)
    assert rc == 0, err
    assert "warnings: 1 sites, 3 occurrences" in out
    site_lines = [ln for ln in out.splitlines() if "undefined behaviour: t0 SETC16" in ln]
    assert len(site_lines) == 1 and "(3 times)" in site_lines[0] and "discards the write" in site_lines[0]
    assert "pushed by .ttinsn pc 0x00006000" in site_lines[0]  # where it happened first
    rc, out, err = run(capsys, "run", elf, "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["warning_count"] == 1
    assert [(w["kind"], w["count"]) for w in doc["warnings"]] == [("undefined behaviour", 3)]
    assert "SETC16" in doc["warnings"][0]["text"] and "SETC16" in err  # human text on stderr
    rc, out, err = run(capsys, "run", elf, "--strict")
    assert rc == 5
    line = one_error_line(err)
    assert "undefined behaviour" in line and "SETC16" in line and "--strict" in line


def test_exit_6_unimplemented_region(capsys, tmp_path):
    p = Program(0)
    p.li(t0, 0xFFB20028)  # NoC 0 command register: a read of node (0, 0), another tile
    p.li(t1, 1)
    p.sw(t1, 0, t0)
    p.halt()
    rc, out, err = run(capsys, "run", program_elf(tmp_path, "n.elf", p))
    assert rc == 6
    line = one_error_line(err)
    assert "unimplemented" in line and "brisc pc 0x" in line and "read to node (0, 0)" in line
    assert "leaves the tile" in line


def test_debug_shows_traceback(capsys, tmp_path):
    p = Program(0)
    p.ecall()
    rc, out, err = run(capsys, "run", "--debug", program_elf(tmp_path, "e.elf", p))
    assert rc == 5 and "Traceback" in err and "ttemu: error: guest fault" in err


# -- bad ELF inputs ----------------------------------------------------------------------
def _patched(tmp_path, name, mutate):
    raw = bytearray(elf_bytes([(0, bytes.fromhex("6f000000"))], 0, {"_start": 0}))
    mutate(raw)
    path = tmp_path / name
    path.write_bytes(bytes(raw))
    return str(path)


@pytest.mark.parametrize("name,mutate,reason", [
    ("c64.elf", lambda r: r.__setitem__(4, 2), "64-bit"),
    ("be.elf", lambda r: r.__setitem__(5, 2), "big-endian"),
    ("x86.elf", lambda r: r.__setitem__(slice(18, 20), struct.pack("<H", 62)), "expected EM_RISCV"),
    ("short.elf", lambda r: r.__delitem__(slice(60, None)), "truncated"),
    ("far.elf", lambda r: r.__setitem__(slice(52 + 8, 52 + 12), struct.pack("<I", 0x30000000)), "outside"),
])
def test_bad_elf_rejected_with_reason(capsys, tmp_path, name, mutate, reason):
    rc, out, err = run(capsys, "run", _patched(tmp_path, name, mutate))
    assert rc == 1
    assert reason in one_error_line(err)


def test_segment_overlapping_another_cores_local_memory(capsys, tmp_path):
    # TRISC local RAM is 2 KiB: a segment reaching 0xFFB00800 would be brisc/ncrisc-sized
    elf = write_elf(tmp_path / "trisc1.elf", [(0xA000, bytes.fromhex("6f000000")),
                                              (0xFFB00700, bytes(0x200))], 0xA000)
    rc, out, err = run(capsys, "run", elf)
    assert rc == 1 and "local memory" in one_error_line(err)


def test_two_elfs_overlapping_in_l1(capsys, tmp_path):
    a = write_elf(tmp_path / "brisc.elf", [(0, bytes(64))], 0)
    b = write_elf(tmp_path / "trisc0.elf", [(0x20, bytes(64))], 0x20)
    rc, out, err = run(capsys, "run", a, b)
    assert rc == 1 and "overlaps" in one_error_line(err)


# -- traces ------------------------------------------------------------------------------
def test_trace_is_deterministic_and_spike_shaped(capsys, tmp_path):
    a, b = tmp_path / "a.trace", tmp_path / "b.trace"
    for path in (a, b):
        rc, out, err = run(capsys, "run", *HELLO, "--trace", str(path))
        assert rc == 0
    assert a.read_bytes() == b.read_bytes()
    lines = a.read_text().splitlines()
    assert lines[0].startswith("core   0: 0x00000000 (0x")
    assert any(ln.startswith("core   3: 0x0000e") for ln in lines)


def test_trace_records_tensix_push_and_issue(capsys, tmp_path):
    p = Program(0x6000)
    tt(p, "SEMINIT", max_value=1, init_value=0, sem_sel=1)
    p.li(t0, 0xFFE40000)
    p.li(t1, 0xA4000004)  # SEMPOST sem_sel=1 pushed by MMIO
    p.sw(t1, 0, t0)
    p.halt()
    elf = program_elf(tmp_path, "trisc0.elf", p)
    rc, out, err = run(capsys, "trace", elf)
    assert rc == 0
    lines = out.splitlines()
    i = lines.index("core   1: 0x00006000 (0x8c400012) ttseminit 1,0,1")
    assert lines[i + 1] == "tensix t0 push 0xa3100004 ttseminit 1,0,1 .ttinsn pc 0x00006000"
    assert lines[i + 2] == "tensix t0 issue 0xa3100004 ttseminit 1,0,1 -> sync"
    assert "tensix t0 push 0xa4000004 ttsempost 1 mmio 0xffe40000" in lines


def test_trace_compare_exit_codes(capsys, tmp_path):
    a, b, c = tmp_path / "a.t", tmp_path / "b.t", tmp_path / "c.t"
    a.write_text("core   0: 0x00000000 (0x00000013) nop\ntensix t0 issue 0x02000000 ttnop -> misc\n")
    b.write_text(a.read_text())
    c.write_text("core   0: 0x00000000 (0x00000013) nop\ntensix t0 issue 0x02000000 ttnop -> sync\n")
    rc, out, err = run(capsys, "trace", str(a), str(b))
    assert rc == 0 and "2 matched, 0 mismatch" in out
    rc, out, err = run(capsys, "trace", str(a), str(c))
    assert rc == 1 and "-tensix t0 issue" in out and "+tensix t0 issue" in out and "1 matched, 1 mismatch" in out
    rc, out, err = run(capsys, "trace", str(a), str(c), "--only", "riscv")
    assert rc == 0 and "1 matched, 0 mismatch" in out
    rc, out, err = run(capsys, "trace", str(a), str(tmp_path / "missing.t"))
    assert rc == 2


def test_disasm_listing(capsys, tmp_path):
    p = Program(0x6000)
    tt(p, "STALLWAIT", stall_res=128, wait_res=1)
    tt(p, "SEMWAIT", stall_res=322, sem_sel=2, wait_sem_cond=2)
    p.halt()
    elf = program_elf(tmp_path, "trisc0.elf", p)
    rc, out, err = run(capsys, "disasm", elf)
    assert rc == 0
    assert "    6000:\t89000006\tttstallwait\t128,1" in out
    assert "\tttsemwait\t322,2,2" in out
    assert "    6008:\t0000006f\tj\t6008 <_start+0x8>" in out  # the target as objdump shows it


def test_json_summary_and_dump_file(capsys, tmp_path):
    out_file = tmp_path / "res.bin"
    rc, out, err = run(capsys, "run", *HELLO, "--json", "--dump", f"0x20000:16={out_file}")
    doc = json.loads(out)
    assert doc["outcome"] == "halted" and doc["exit_code"] == 0
    assert {c["state"] for c in doc["cores"].values()} == {"halted"}
    assert out_file.read_bytes()[:4] == (0xB215C0DE).to_bytes(4, "little")


def test_local_memory_dump_needs_a_core(capsys):
    rc, out, err = run(capsys, "run", *HELLO, "--dump-l1", "0xFFB00000:16")
    assert rc == 2 and "name the core" in one_error_line(err)
    rc, out, err = run(capsys, "run", *HELLO, "--dump-l1", "trisc0:0xFFB007F0:16")
    assert rc == 0


@pytest.mark.parametrize("attr,arch", [("rv32i2p0_m2p0_xtttensixbh1p0", "blackhole"),
                                       ("rv32i2p0_m2p0_xtttensixwh1p0", "wormhole_b0"),
                                       (None, "wormhole_b0")])
def test_arch_from_elf_attribute(capsys, tmp_path, attr, arch):
    elf = write_elf(tmp_path / "a.elf", [(0, bytes.fromhex("6f000000"))], 0, arch_attr=attr)
    rc, out, err = run(capsys, "run", elf, "--json")
    assert rc == 0 and json.loads(out)["arch"] == arch
    rc, out, err = run(capsys, "run", elf, "--json", "--arch", "blackhole")
    assert json.loads(out)["arch"] == "blackhole"


@pytest.mark.parametrize("preset,expect", [(None, "1"), ("4", "4")])
def test_console_entry_keeps_blas_to_one_thread_unless_the_user_says(monkeypatch, capsys, preset, expect):
    """The console script / ``python -m ttemu`` (ttemu.cli.console) sets OPENBLAS_NUM_THREADS=1
    before anything imports numpy; a value the user set wins."""
    from ttemu.cli import console

    if preset is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", preset)
    monkeypatch.setattr(sys, "argv", ["ttemu", "--version"])
    assert console() == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == expect


def test_process_exit_flushes_and_keeps_atexit(tmp_path):
    """``ttemu`` / ``python -m ttemu`` end the process without interpreter teardown
    (ttemu.cli.exit_fast): output written so far is all there, the exit code is the
    command's, and a registered atexit callback makes it exit the normal way."""
    import subprocess

    root = os.path.join(os.path.dirname(__file__), "..")
    p = subprocess.run([sys.executable, "-c", "import sys; from ttemu.cli import exit_fast\n"
                        "sys.stdout.write('x' * 70000); exit_fast(5)"], capture_output=True, text=True, cwd=root)
    assert p.returncode == 5 and p.stdout == "x" * 70000
    p = subprocess.run([sys.executable, "-c", "import atexit; from ttemu.cli import exit_fast\n"
                        "atexit.register(print, 'bye'); exit_fast(3)"], capture_output=True, text=True, cwd=root)
    assert p.returncode == 3 and p.stdout == "bye\n"
    trace = tmp_path / "t.trace"
    p = subprocess.run([sys.executable, "-m", "ttemu", "trace", *HELLO, "-o", str(trace)],
                       capture_output=True, text=True, cwd=root)
    assert p.returncode == 0, p.stderr
    assert main(["trace", *HELLO, "-o", str(tmp_path / "u.trace")]) == 0
    assert trace.read_bytes() == (tmp_path / "u.trace").read_bytes() and trace.stat().st_size > 1000
