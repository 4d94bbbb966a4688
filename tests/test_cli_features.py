"""Issue 20's everyday features: every manifest feature spelled on the command line
(inputs, references, local-data staging, writes after a condition), refusals up front
(another chip's ttsim library, a bare library name), leftover Tensix work, Ctrl-C,
disassembly of the Blackhole extensions and objdump-style targets, ``ttemu trace A B``
hunks, expect tolerances, the disk cache's cap and ``ttemu cache``."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from mkelf import write_elf
from oracle_lib import CORPUS, require_ttsim
from progs import Program, t0, t1, tt
from ttemu.cli import main

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
NEGATE = os.path.join(ROOT, "firmware", "negate", "negate.toml")
NEGATE_ELF = os.path.join(ROOT, "firmware", "build", "negate", "brisc.elf")
HELLO = [os.path.join(ROOT, f"firmware/build/hello/{c}.elf") for c in ("brisc", "trisc0", "trisc1", "trisc2")]


def run(capsys, *args):
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def _same_run(doc):
    return {k: doc[k] for k in ("outcome", "exit_code", "steps", "cores", "dumps", "tensix")}


# -- every manifest feature on the command line -----------------------------------------
def test_negate_manifest_spelled_as_options(capsys):
    """negate.toml's input (generated, seed 7), done condition and numpy check, as options."""
    rc, out, err = run(capsys, "run", NEGATE, "--json")
    man = json.loads(out)
    rc2, out, err = run(capsys, "run", NEGATE_ELF, "--input", "a=0x21000:bf16:32x64=uniform(-4,4)", "--seed", "7",
                        "--until", "0x20000=1", "--expect", "neg=0x23000:bf16:32x64=-a", "--atol", "0", "--rtol", "0",
                        "--max-steps", "200000", "--json")
    cli = json.loads(out)
    assert rc == rc2 == 0, err
    assert _same_run(man) == _same_run(cli)
    assert cli["expect"][0]["name"] == "neg" and cli["expect"][0]["ok"]
    # the same reference with a wrong sign is caught: the input is what the kernel read
    rc, out, err = run(capsys, "run", NEGATE_ELF, "--input", "a=0x21000:bf16:32x64=uniform(-4,4)", "--seed", "7",
                       "--until", "0x20000=1", "--expect", "0x23000:bf16:32x64=a")
    assert rc == 7 and "MISMATCH" in out


@pytest.mark.parametrize("source,expected", [
    ("ones", lambda np: np.ones((32, 32))),
    ("arange(1,2)", lambda np: 1 + 2 * np.arange(1024.0).reshape(32, 32)),
    ("identity", lambda np: np.eye(32)),
    ("[" + ",".join(["2.5"] * 1024) + "]", lambda np: np.full((32, 32), 2.5)),
])
def test_input_sources(capsys, tmp_path, source, expected):
    import numpy as np

    from ttemu import tiles

    dump = tmp_path / "in.bin"
    rc, out, err = run(capsys, "run", NEGATE_ELF, "--input", f"0x40000:fp32={source}", "--dump", f"0x40000:4096={dump}")
    assert rc == 0, err
    assert np.array_equal(tiles.decode(dump.read_bytes(), "fp32", (32, 32)), expected(np))
    raw = tmp_path / "raw.bin"
    raw.write_bytes(dump.read_bytes())
    rc, out, err = run(capsys, "run", NEGATE_ELF, "--input", f"0x40000:fp32={raw}",
                       "--expect", f"0x40000:fp32={raw}")
    assert rc == 0 and "expect expect0: ok" in out


def test_metal_firmware_boots_from_the_command_line(capsys, tmp_path):
    """tt-metal's Wormhole firmware as corpus/metal_fw_wormhole_b0_a.toml boots it, spelled
    with options (--local-data stages each core's local data), and --until on the go
    signal byte: RUN_MSG_DONE (0) in the top byte of go_messages[0] (L1 0x4A0)."""
    fw = CORPUS / "tt-metal-fw" / "wormhole_b0-a"
    if not fw.exists():
        pytest.skip(f"{fw} is missing")
    with open(os.path.join(ROOT, "corpus", "metal_fw_wormhole_b0_a.toml")) as f:
        text = f.read().replace("../../shared/corpus", str(CORPUS))
    man = tmp_path / "fw.toml"
    man.write_text(text)
    rc, out, err = run(capsys, "run", str(man), "--json")
    want = json.loads(out)
    local = {"brisc": 0x8960, "ncrisc": 0x9960, "trisc0": 0xA960, "trisc1": 0xB160, "trisc2": 0xB960}
    opts = []
    for core, addr in local.items():
        opts += ["--core", f"{core}={fw / (core + '.elf')}", "--local-data", f"{core}=0x{addr:x}"]
    opts += ["--write", "0x0=0x2210306F", "--write", "0x4A0=0x40000000", "--release", "brisc",
             "--max-steps", "5000000"]
    rc2, out, err = run(capsys, "run", *opts, "--idle-steps", "200000", "--dump-l1", "0x4A0:4:hex32", "--json")
    got = json.loads(out)
    assert rc == rc2 == 0 and _same_run(want) == _same_run(got)
    rc, out, err = run(capsys, "run", *opts, "--until", "0x4A3:u8=0", "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["outcome"] == "until" and doc["steps"] < got["steps"]


def test_unstaged_firmware_does_not_pass_its_until(capsys):
    fw = CORPUS / "tt-metal-fw" / "wormhole_b0-a"
    if not fw.exists():
        pytest.skip(f"{fw} is missing")
    opts = []
    for core in ("brisc", "ncrisc", "trisc0", "trisc1", "trisc2"):
        opts += ["--core", f"{core}={fw / (core + '.elf')}"]
    rc, out, err = run(capsys, "run", *opts, "--write", "0x0=0x2210306F", "--write", "0x4A0=0x40000000",
                       "--release", "brisc", "--until", "0x4A3:u8=0", "--idle-steps", "200000",
                       "--max-steps", "3000000")
    assert rc != 0  # a hang, the step limit, or exit 9: never a false pass


# -- refusals up front ------------------------------------------------------------------
def test_oracle_bare_library_name_and_other_arch(capsys, monkeypatch):
    lib = require_ttsim("wormhole_b0")
    monkeypatch.chdir(os.path.dirname(lib))
    name = os.path.basename(lib)
    rc, out, err = run(capsys, "run", NEGATE, "--oracle", name)
    assert rc == 0 and "oracle ttsim: 1 of 1 regions bit-identical" in out, err
    t0_ = time.perf_counter()
    rc, out, err = run(capsys, "run", NEGATE, "--arch", "blackhole", "--oracle", name)
    assert rc == 1 and time.perf_counter() - t0_ < 60
    line = err.strip().splitlines()[-1]
    assert line == (f"ttemu: error: bad input: --oracle {name}: this library simulates Wormhole B0 "
                    "(libttsim_wh.so), the run is for Blackhole (libttsim_bh.so)")
    assert "halted" not in out and "until" not in out  # refused before the run


def test_leftover_tensix_work_is_a_counted_warning_and_strict_error(capsys, tmp_path):
    """TRISC0 pushes a SEMWAIT that never passes, then stores the flag --until waits for
    (outcome until) or spins (outcome idle): Tensix work is left either way."""
    for spin in (False, True):
        p = Program(0x6000)
        tt(p, "SEMINIT", max_value=1, init_value=0, sem_sel=1)
        tt(p, "SEMWAIT", stall_res=2, sem_sel=1, wait_sem_cond=1)
        tt(p, "SEMPOST", sem_sel=2)  # held: the SEMWAIT stalls it on a semaphore at zero
        p.li(t0, 0x1000)
        p.li(t1, 1)
        p.sw(t1, 0, t0)
        p.label("spin")
        if spin:
            p.addi(t1, t1, 1)
        p.j("spin")
        elf = write_elf(tmp_path / "trisc0.elf", [(0x6000, p.assemble())], 0x6000, {"_start": 0x6000})
        args = ["run", elf, "--idle-steps", "20000"] + ([] if spin else ["--until", "0x1000=1"])
        rc, out, err = run(capsys, *args, "--json")
        doc = json.loads(out)
        assert rc == 0 and doc["outcome"] == ("idle" if spin else "until")
        w = [x for x in doc["warnings"] if "Tensix work left" in x["text"]]
        assert len(w) == 1 and doc["warning_count"] >= 1
        assert "t0 held at SEMWAIT" in w[0]["text"] and "(pushed 3, issued 2)" in w[0]["text"], w
        rc, out, err = run(capsys, *args)
        assert rc == 0 and "warnings: 1 sites" in out and "Tensix work left" in out
        rc, out, err = run(capsys, *args, "--strict")
        assert rc == 5 and "unfinished Tensix work" in err.strip().splitlines()[-1]


def test_a_finished_kernel_leaves_nothing(capsys):
    """The issue's math kernel alone: its 16 MVMULs were recorded into the replay
    buffer (REPLAY load, not executed): nothing is queued, no warning."""
    rc, out, err = run(capsys, "run", os.path.join(ROOT, "firmware/build/matmul_block/trisc1.elf"), "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["warning_count"] == 0 and doc["tensix"]["t1"]["pushed"] == 38


# -- Ctrl-C ------------------------------------------------------------------------------
def _interrupt(tmp_path, *extra):
    p = Program(0)
    p.label("loop")
    p.addi(t0, t0, 1)
    p.j("loop")
    elf = write_elf(tmp_path / "spin.elf", [(0, p.assemble())], 0, {"_start": 0, "loop": 0})
    proc = subprocess.Popen([sys.executable, "-m", "ttemu", "run", elf, "--idle-steps", "1000000000", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def test_ctrl_c_reports_like_any_outcome(tmp_path):
    rc, out, err = _interrupt(tmp_path)
    assert rc == 130, err
    m = re.search(r"ttemu: interrupted after (\d+) instructions \(Ctrl-C\)", out)
    assert m and int(m.group(1)) > 0, out
    assert re.search(r"brisc\s+running\s+0x0000000[04]\s+\d+\s+loop", out), out
    rc, out, err = _interrupt(tmp_path, "--json")
    doc = json.loads(out)
    assert rc == 130 and doc["outcome"] == "interrupted" and doc["exit_code"] == 130
    assert doc["cores"]["brisc"]["state"] == "running" and doc["cores"]["brisc"]["pc"] in (0, 4)
    assert doc["steps"] == doc["cores"]["brisc"]["steps"] > 0


# -- disassembly -------------------------------------------------------------------------
BITMANIP = """
 .globl _start
_start:
 sh1add t3,a5,t3; sh2add a0,a1,a2; sh3add s0,s1,t6
 andn a0,a1,a2; orn a0,a1,a2; xnor a0,a1,a2
 min a0,a1,a2; minu a0,a1,a2; max a0,a1,a2; maxu a0,a1,a2
 rol a0,a1,a2; ror a0,a1,a2; rori a0,a1,7; rori t0,t1,31
 clz a0,a1; ctz a0,a1; cpop a0,a1; sext.b a0,a1; sext.h a0,a1; zext.h a0,a1
 orc.b a0,a1; rev8 a0,a1; pack a0,a1,a2; brev8 a0,a1
 amoadd.w a0,a1,(a2); amoswap.w t0,t1,(t2)
loop:
 beq a0,a1,loop; bne a0,a1,_start; jal ra,_start; j loop; bltu t0,t1,loop
"""


def _objdump_lines(text):
    """addr -> (mnemonic, operands normalised: no blanks, numbers as ints, objdump's
    ``ror rd,rs,imm`` alias as ``rori``)."""
    out = {}
    for ln in text.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\t([0-9a-f]{8})\s*\t(\S+)\t?(.*)", ln)
        if not m:
            continue
        mn, ops = m.group(3), re.sub(r"\s+", "", m.group(4))
        parts = ops.split(",") if ops else []
        if mn == "ror" and len(parts) == 3 and re.fullmatch(r"(0x)?[0-9a-f]+", parts[2]) and parts[2] not in _REGS:
            mn = "rori"
        parts = [str(int(p, 0)) if re.fullmatch(r"-?0x[0-9a-f]+|-?\d+", p) else p for p in parts]
        out[int(m.group(1), 16)] = (mn, ",".join(parts))
    return out


_REGS = {"a0", "a1", "a2", "t0", "t1", "t2"}


def test_blackhole_extensions_disassemble_as_objdump_names_them(capsys, tmp_path):
    gcc, objdump = shutil.which("riscv64-unknown-elf-gcc"), shutil.which("riscv64-unknown-elf-objdump")
    if not (gcc and objdump):
        pytest.skip("the RISC-V cross toolchain is not installed")
    src = tmp_path / "bm.S"
    src.write_text(BITMANIP)
    elf = tmp_path / "bm.elf"
    subprocess.run([gcc, "-march=rv32ima_zba_zbb_zbkb", "-mabi=ilp32", "-nostdlib", "-Wl,-Ttext=0", "-o", str(elf),
                    str(src)], check=True)
    theirs = _objdump_lines(subprocess.run([objdump, "-d", str(elf)], capture_output=True, text=True,
                                           check=True).stdout)
    rc, out, err = run(capsys, "disasm", "--arch", "blackhole", str(elf))
    assert rc == 0
    ours = _objdump_lines(out)
    # branch targets: hex without 0x in both (objdump's form), then <symbol+off>
    assert len(theirs) == 31 and ours == theirs, {a: (ours.get(a), theirs[a]) for a in theirs if ours.get(a) != theirs[a]}
    assert "\tbne\ta0, a1, 0 <_start>" in out and "\tj\t68 <loop>" in out
    # Wormhole has none of them: they stay words, as its cores would refuse them
    rc, out, err = run(capsys, "disasm", "--arch", "wormhole_b0", str(elf))
    assert "sh1add" not in out and ".word\t0x21c7ae33" in out


def test_traces_name_extensions_and_show_targets(capsys, tmp_path):
    from ttemu.riscv.disasm import RiscvDisassembler

    rv = RiscvDisassembler({"zba"})
    assert rv.disasm(0x21C7AE33) == "sh1add  t3, a5, t3"
    assert RiscvDisassembler().disasm(0x21C7AE33) == ".word   0x21c7ae33"
    trace = tmp_path / "t.trace"
    rc, out, err = run(capsys, "trace", NEGATE_ELF, "-o", str(trace))
    lines = trace.read_text().splitlines()
    assert "core   0: 0x00000020 (0x008000ef) jal     28 <main>" in lines
    assert any(re.fullmatch(r"core   0: 0x[0-9a-f]{8} \(0x[0-9a-f]{8}\) (bne|beq|bltu|bgeu)\s+.*, [0-9a-f]+ <\S+>", ln)
               for ln in lines)
    assert err.strip().splitlines() == ["ttemu: halted after 6160 instructions"]  # the outcome line


def test_trace_outcome_line_and_json(capsys, tmp_path):
    rc, out, err = run(capsys, "trace", NEGATE_ELF, "-o", str(tmp_path / "t.trace"), "--max-steps", "5")
    assert rc == 4 and err.strip().splitlines()[-1] == "ttemu: step-limit after 5 instructions (5 instructions retired)"
    rc, out, err = run(capsys, "trace", NEGATE_ELF, "-o", str(tmp_path / "t.trace"), "--json")
    doc = json.loads(out)
    assert rc == 0 and doc["outcome"] == "halted" and doc["steps"] == 6160


# -- ttemu trace A B -------------------------------------------------------------------------
def test_trace_diff_hunks_name_the_files_and_lines(capsys, tmp_path):
    a, b = tmp_path / "left.trace", tmp_path / "right.trace"
    lines = [f"core   0: 0x{4 * i:08x} (0x00000013) nop" for i in range(1000)]
    a.write_text("\n".join(lines) + "\n")
    lines[596] = "core   0: 0x00000950 (0x00000033) add     zero, zero, zero"
    b.write_text("\n".join(lines) + "\n")
    rc, out, err = run(capsys, "trace", str(a), str(b))
    assert rc == 1
    text = out.splitlines()
    assert text[:3] == [f"--- {a}", f"+++ {b}", "@@ -594,7 +594,7 @@"]
    assert text[6] == "-core   0: 0x00000950 (0x00000013) nop" and text[-1] == "999 matched, 1 mismatch"
    rc, out, err = run(capsys, "trace", str(a), str(b), "--json", "--context", "1")
    doc = json.loads(out)
    assert rc == 1 and doc["mismatched"] == 1 and doc["first_difference"]["a_line"] == 597
    assert doc["hunks"][0]["a_start"] == 596 and doc["hunks"][0]["a_count"] == 3
    # with a filter, numbers are still the files' own lines
    mixed_a = "\n".join(ln for i, l0 in enumerate(a.read_text().splitlines())
                        for ln in (l0, f"tensix t0 issue 0x02000000 ttnop -> misc{i}"))
    mixed_b = "\n".join(ln for i, l0 in enumerate(b.read_text().splitlines())
                        for ln in (l0, f"tensix t0 issue 0x02000000 ttnop -> misc{i}"))
    a.write_text(mixed_a + "\n")
    b.write_text(mixed_b + "\n")
    rc, out, err = run(capsys, "trace", str(a), str(b), "--only", "riscv", "--context", "0")
    assert rc == 1 and "@@ -1193 +1193 @@" in out.splitlines(), out


# -- expect reports -------------------------------------------------------------------------
def test_expect_reports_show_the_tolerance_and_flag_a_vacuous_one(capsys, tmp_path):
    rc, out, err = run(capsys, "run", NEGATE)
    assert "expect neg: ok; max abs error 0, max rel error 0 (tolerance: atol 0 + rtol 0 x |expected|)" in out
    assert "vacuous" not in out
    rc, out, err = run(capsys, "run", NEGATE, "--expect", "0x23000:bf16:32x64=a*1e30", "--atol", "inf")
    assert rc == 0
    assert "expect expect0: ok; max abs error 4e+30, max rel error 1 (tolerance: atol inf + rtol 0" in out
    assert "expect expect0: the tolerance is vacuous: atol inf is at least the largest expected magnitude" in out
    rc, out, err = run(capsys, "run", NEGATE, "--rtol", "1", "--json")
    doc = json.loads(out)
    assert doc["expect"][0]["vacuous"].startswith("rtol 1 >= 1") and doc["expect"][0]["rtol"] == 1


# -- the disk cache -------------------------------------------------------------------------
def test_cache_stays_under_its_cap_least_recently_used_first(tmp_path, monkeypatch):
    from ttemu.riscv import codecache
    from ttemu.riscv.codecache import CodeCache

    monkeypatch.setenv("TTEMU_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("TTEMU_CACHE_SIZE", "150K")
    cache = CodeCache()
    for i in range(10):
        cache.put(b"k%d" % i, b"x" * 9000)  # 12 KiB each on disk (3 blocks)
    old = time.time() - 10 * 3600
    for i, (_, _, path) in enumerate(sorted(codecache.entries(str(tmp_path / "c")), key=lambda e: e[2])):
        os.utime(path, (old + i, old + i))
    assert CodeCache().get(b"k0") == b"x" * 9000  # used now: kept
    for i in range(10, 14):
        cache.put(b"k%d" % i, b"x" * 9000)
    left = codecache.entries(str(tmp_path / "c"))
    assert sum(n for _, n, _ in left) <= 150 * 1024
    fresh = CodeCache()
    assert fresh.get(b"k0") is not None and fresh.get(b"k13") is not None
    assert sum(fresh.get(b"k%d" % i) is None for i in range(1, 10)) >= 3  # the oldest went


def test_cache_info_and_clear(capsys, tmp_path, monkeypatch):
    root = tmp_path / "c"
    monkeypatch.setenv("TTEMU_CACHE_DIR", str(root))
    root.mkdir()
    (root / "mine.txt").write_text("not the cache's")
    rc, out, err = run(capsys, "run", NEGATE_ELF)
    rc, out, err = run(capsys, "cache", "info")
    assert rc == 0 and f"cache: {root}" in out and "cap 128.0 MiB" in out
    n = int(re.search(r"entries: (\d+)", out).group(1))
    assert n > 0
    rc, out, err = run(capsys, "cache", "info", "--json")
    doc = json.loads(out)
    assert doc["entries"] == n and doc["enabled"] and doc["bytes"] > 0
    rc, out, err = run(capsys, "cache", "clear")
    assert rc == 0 and f"removed {n} entries" in out
    assert os.listdir(root) == ["mine.txt"]
    monkeypatch.setenv("TTEMU_CACHE_DIR", "off")
    rc, out, err = run(capsys, "cache", "info")
    assert rc == 0 and "off" in out
