#!/usr/bin/env python3
"""Speed benchmarks, reported as ratios measured in one run (machines are shared and
noisy; absolute figures drift).

    python scripts/bench.py [--shared ../shared] [--only NAME ...] [--repeat N]

riscv      ttemu run on shared/bench/rv32/build/bench_tile_n256.elf (28,435,299
           instructions to bench_done, checksum 0x2153d178 at 0x100) against the
           reference shared/bench/pyinterp/blockjit.py on the same ELF, both as whole
           processes. Target: ttemu <= 1.2x blockjit's time. The same ELF also runs
           on a Blackhole tile (``--arch blackhole``: the cores that decode Zaamo, Zba,
           Zbb...). Target: Blackhole within 10% of Wormhole.
startup    process start to first guest instruction, measured as a whole
           ``ttemu run ELF --max-steps 1`` process (an upper bound). Target < 0.3 s.
mvmul      10,000 MVMULs (BF16 SrcA/SrcB, FP32-free Dst16) pushed to Tensix thread T1
           in process: Tensix instructions per second, and 32x32x32 tile products per
           second (16 MVMULs per fidelity phase: LoFi 16, HiFi4 64 per tile).
matmul_kernel  scripts/bench_manifests/matmul_4x4x4_hifi4.toml: the firmware matmul_block
           kernel on 4x4 @ 4x4 tiles, HiFi4, as a whole ``ttemu run`` process:
           seconds, RISC-V and Tensix instructions per second.
sfpu_kernel    scripts/bench_manifests/sfpu_exp_64.toml: the sfpu_exp kernel on 64 tiles.
bh_firmware    corpus/metal_fw_blackhole_a.toml (tt-metal's Blackhole firmware booting
           five cores to the go-message poll) as a whole ``ttemu run`` process, against
           ttsim's Blackhole library running the same plan in its own process (the
           ``--oracle`` child; library at $TTEMU_TTSIM_DIR or /tmp/ttemu-ttsim-oracle,
           built with shared/oracles/ttsim/build.sh when missing).
memory     peak resident memory of ``ttemu run`` on every shipped kernel. Target <= 100 MiB.
sfpu       an SFPU stream (SFPLOAD, SFPMAD, SFPNOP, SFPSTORE per 32 datums: 128
           instructions per 32x32 tile) over 64 tiles of Dst holding random BF16 values
           (2**-8 .. 2**8): instructions and tiles per second. ``--arch blackhole``:
           the same stream on a Blackhole tile (its SFPLOAD / SFPSTORE / SFPMAD).

Each figure is the best of ``--repeat`` runs.

    python scripts/bench.py --vs-ttsim [--arch blackhole] [--repeat N] [MANIFEST ...]

vs_ttsim   every shipped kernel (firmware/*/*.toml) and every Wormhole corpus set
           (corpus/*.toml) that runs on both ttemu and Tenstorrent's ttsim (ttemu finishes
           it and ttsim completes the same plan, whether or not every region is
           bit-identical; sets ttsim refuses are listed as skipped): ``ttemu run MANIFEST`` against ttsim running the same plan (the
           oracle's child process, ``python -m ttemu.cmd.oracle.child``), both timed as
           whole processes, in turn, ``--repeat`` rounds (default 3) after one warm-up
           round: one line per set with the median wall times, the median of the pair
           ratios of wall time (``ratio``) and of CPU time (``cpu_ratio``: user + sys, less
           sensitive to a busy machine), then the median and maximum of those ratios. Targets: median <= 2.0, each <= 3.0. ttsim is built with
           ``shared/oracles/ttsim/build.sh`` (into $TTEMU_TTSIM_DIR, default
           /tmp/ttemu-ttsim-oracle); when it cannot be built the benchmark says why and
           is skipped. ``--baseline CHECKOUT [--baseline-python PY]`` also times another
           checkout's ttemu in the same loop (its ratio to ttsim as ``baseline_ratio``).
           ``--arch blackhole``: the same on Blackhole (the manifests' Blackhole ELFs, the
           Blackhole corpus sets, ttsim's Blackhole library).

    python scripts/bench.py --scale [--arch ARCH] [--only FAMILY ...] [--repeat N] [--quick]

scale      real-sized work (scripts/bench_scale.py): matmul HiFi4 and LoFi, sfpu_exp,
           sfpu_relu, datacopy, eltwise (ELWADD), reduce (row sums), tilize, untilize,
           each at growing sizes up to >= 2048 tile products (matmul) or tiles, on
           Wormhole and Blackhole (``--arch``: one of them). A set is the shipped kernel's
           math thread with the unpack and pack threads of firmware/scale_* (steps repeat
           over the same L1 tiles; those two threads drain the Tensix FIFO after each
           step, as ttsim needs). Each set is first run in this process with ``--oracle``
           (checked against its numpy reference and bit for bit against ttsim; the run
           also warms the caches), then ``ttemu run MANIFEST`` and ttsim's child on the
           same plan are timed as whole processes, in turn, ``--repeat`` rounds (default
           3): one JSON line per set (Tensix instructions, median wall and CPU times, the
           median pair ratios), then a Markdown table per family and size, and per family
           the ratio at the largest size and the marginal cost per Tensix instruction
           (us, the slope between the two largest sizes) of ttemu and ttsim. Targets
           (issue 21): ratio <= 1.0 for matmul, <= 2.0 for every other family.
           ``--quick``: two small sizes per family, steps repeating over two L1 slots,
           checked and not timed (tests/test_bench_scale.py runs the same sets); ``--baseline
           CHECKOUT``: another checkout's ttemu timed in the same loop (its time, its ratio
           to ttsim, and the CPU speedup of this one over it); ``--sizes
           N,N,...``: these sizes instead (matmul: multiples of 16, tilize / untilize: of 4). Exit 1
           when a set does not finish or does not match numpy.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def timed(cmd, ok=(0,), cwd=None, env=None):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env)
    dt = time.perf_counter() - t0
    if p.returncode not in ok:
        raise SystemExit(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    return dt, p.stdout


def measured(cmd, cwd=None, env=None):
    """Run ``cmd`` (output discarded) -> (wall seconds, CPU seconds user + sys, exit code)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def best(n, fn):
    results = [fn() for _ in range(n)]
    return min(results, key=lambda r: r[0])


def bench_riscv(shared, repeat):
    elf = shared / "bench" / "rv32" / "build" / "bench_tile_n256.elf"
    ref = shared / "bench" / "pyinterp" / "blockjit.py"
    ttemu_cmd = [sys.executable, "-m", "ttemu", "run", str(elf), "--json", "--dump-l1", "0x100:4"]
    ref_cmd = [sys.executable, str(ref), str(elf)]
    # Wormhole and Blackhole runs alternate, so both see the same load on a shared machine
    runs = [(timed(ttemu_cmd), timed(ttemu_cmd + ["--arch", "blackhole"])) for _ in range(repeat)]
    t_ttemu, out = min((r[0] for r in runs), key=lambda r: r[0])
    t_bh, out_bh = min((r[1] for r in runs), key=lambda r: r[0])
    doc = json.loads(out)
    checksum = doc["dumps"][0]["values"][0]
    checksum_bh = json.loads(out_bh)["dumps"][0]["values"][0]
    t_ref, ref_out = best(repeat, lambda: timed(ref_cmd))
    ref_doc = json.loads(ref_out)
    n = doc["steps"]
    ok = checksum == checksum_bh == "0x2153d178"
    return {
        "name": "riscv",
        "instructions": n,
        "checksum": checksum,
        "checksum_ok": ok,
        "ttemu_seconds": round(t_ttemu, 3),
        "blockjit_seconds": round(t_ref, 3),
        "ratio_ttemu_over_blockjit": round(t_ttemu / t_ref, 3),
        "blackhole_seconds": round(t_bh, 3),
        "ratio_blackhole_over_wormhole": round(t_bh / t_ttemu, 3),
        "ttemu_mips_whole_process": round(n / t_ttemu / 1e6, 2),
        "blockjit_checksum": ref_doc["checksum"],
        "target": "ratio <= 1.2; blackhole/wormhole <= 1.1",
    }


def bench_startup(shared, repeat):
    elf = shared / "bench" / "rv32" / "build" / "bench_tile_n32.elf"
    cmd = [sys.executable, "-m", "ttemu", "run", str(elf), "--max-steps", "1", "--json"]
    t, _ = best(repeat, lambda: timed(cmd, ok=(4,)))  # exit 4: the step limit, as asked
    t_py, _ = best(repeat, lambda: timed([sys.executable, "-c", "pass"]))
    return {"name": "startup", "seconds": round(t, 3), "python_alone_seconds": round(t_py, 3),
            "target": "< 0.3 s"}


def _stream(words, setup=(), arch="wormhole_b0", dst=None):
    """Push ``words`` to Tensix T1 after its MOP expander (as BRISC would) and time
    them through the frontend and backend, in process (``dst``: Dst's initial bits)."""
    sys.path.insert(0, str(ROOT))
    from ttemu import Tile

    tile = Tile(arch)
    if dst is not None:
        tile.tensix.dst.bits[...] = dst
    thread = tile.tensix.threads[1]
    for w in setup:
        thread.push(w, "bench", after_mop=True)
        tile.tensix.kick()
    t0 = time.perf_counter()
    for w in words:
        thread.push(w, "bench", after_mop=True)
        tile.tensix.kick()
    dt = time.perf_counter() - t0
    if thread.held is not None:
        raise SystemExit(f"bench stream stuck: {thread.held_reason}")
    return dt


def bench_mvmul(shared, repeat, n=10_000):
    sys.path.insert(0, str(ROOT))
    from ttemu.isa.table import get_table

    t = get_table("wormhole_b0")
    setup = [t.encode("SETDVALID", setvalid=3)]
    words = [t.encode("MVMUL", dst=8 * (i % 8), addr_mode=0, instr_mod19=0, clear_dvalid=0) for i in range(n)]
    dt = min(_stream(words, setup) for _ in range(repeat))
    ips = n / dt
    return {"name": "mvmul", "instructions": n, "seconds": round(dt, 3), "tensix_ips": round(ips),
            "us_per_mvmul": round(1e6 / ips, 1), "tiles_per_s_lofi": round(ips / 16, 1),
            "tiles_per_s_hifi4": round(ips / 64, 1)}


def bench_sfpu(shared, repeat, tiles=64, arch="wormhole_b0"):
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from ttemu.isa.table import get_table
    from ttemu.tensix.formats.layout import dst16_from_bf16

    t = get_table(arch)
    rng = np.random.default_rng(0)  # BF16 (what MOD0_FMT_SRCB resolves to here): 2**-8 .. 2**8, either sign
    shape = (1024, 16)
    dst = dst16_from_bf16(rng.integers(0x3B80, 0x4380, shape) | (rng.integers(0, 2, shape) << 15)).astype(np.uint16)
    words = []
    for tile in range(tiles):
        # a 32x32 tile is 64 Dst rows of 16; SFPLOAD/SFPSTORE move the even (Addr bit 1
        # clear) or odd columns of four rows: 32 of them per tile (SFPLOAD.md)
        for row in [r + half for r in range(0, 64, 4) for half in (0, 2)]:
            addr = (tile * 64 + row) & 0x3FF
            words += [t.encode("SFPLOAD", lreg_ind=0, instr_mod0=0, sfpu_addr_mode=0, dest_reg_addr=addr),
                      t.encode("SFPMAD", lreg_src_a=0, lreg_src_b=0, lreg_src_c=0, lreg_dest=1, instr_mod1=0),
                      t.encode("SFPNOP"),  # SFPMAD.md: its result may not be read on the next cycle
                      t.encode("SFPSTORE", lreg_ind=1, instr_mod0=0, sfpu_addr_mode=0, dest_reg_addr=addr)]
    dt = min(_stream(words, arch=arch, dst=dst) for _ in range(repeat))
    ips = len(words) / dt
    return {"name": "sfpu", "arch": arch, "instructions": len(words), "tiles": tiles, "seconds": round(dt, 3),
            "tensix_ips": round(ips), "tiles_per_s": round(tiles / dt, 1)}


def _kernel(name, manifest, repeat):
    cmd = [sys.executable, "-m", "ttemu", "run", str(ROOT / "scripts" / "bench_manifests" / manifest), "--json"]
    t, out = best(repeat, lambda: timed(cmd))
    doc = json.loads(out)
    tensix = sum(v["issued"] for v in doc["tensix"].values())
    return {"name": name, "outcome": doc["outcome"], "expect_ok": all(e["ok"] for e in doc["expect"]),
            "seconds": round(t, 3), "riscv_instructions": doc["steps"], "tensix_instructions": tensix,
            "riscv_ips": round(doc["steps"] / t), "tensix_ips": round(tensix / t)}


#: a small launcher process: a child's peak resident memory as the kernel accounts it
#: includes what its parent had mapped when it forked, so the measured command is started
#: from this (a few MiB), not from the benchmark process (tens of MiB after its in-process
#: benchmarks), and the launcher prints the command's own peak (KiB) and exit code
_PEAK_LAUNCHER = (
    "import os, sys\n"
    "quiet = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]\n"
    "pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, file_actions=quiet)\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "print(usage.ru_maxrss, os.waitstatus_to_exitcode(status))\n")


def _peak_mib(cmd, cwd=None, env=None):
    """Run ``cmd`` and return its peak resident memory (MiB, the kernel's accounting) and
    exit code, started from a small launcher process (see _PEAK_LAUNCHER)."""
    p = subprocess.run([sys.executable, "-S", "-c", _PEAK_LAUNCHER, *cmd], cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    kib, rc = p.stdout.split()[-2:]
    return int(kib) / 1024.0, int(rc)


def bench_memory(shared, repeat):
    """Peak memory of ``ttemu run`` on every shipped kernel (firmware/*/*.toml), whole
    process. Target: <= 100 MiB each."""
    rows = {}
    for m in sorted(ROOT.glob("firmware/*/*.toml")):
        peak, rc = _peak_mib([sys.executable, "-m", "ttemu", "run", str(m), "--no-progress"])
        rows[m.stem] = round(peak, 1)
    worst = max(rows, key=rows.get)
    return {"name": "memory", "max_mib": rows[worst], "worst": worst, "per_kernel_mib": rows,
            "target": "<= 100 MiB each"}


def bench_matmul_kernel(shared, repeat):
    return _kernel("matmul_kernel", "matmul_4x4x4_hifi4.toml", repeat)


def bench_sfpu_kernel(shared, repeat):
    return _kernel("sfpu_kernel", "sfpu_exp_64.toml", repeat)


def _ttsim_lib(shared, arch="wormhole_b0"):
    script = shared / "oracles" / "ttsim" / "build.sh"
    if not script.exists():
        return None, f"no ttsim sources ({script} is missing)"
    out = os.environ.get("TTEMU_TTSIM_DIR", "/tmp/ttemu-ttsim-oracle")
    p = subprocess.run(["bash", str(script), out], capture_output=True, text=True)
    if p.returncode != 0:
        return None, f"ttsim did not build: {p.stderr.strip()[-300:]}"
    return p.stdout.split()[1 if arch == "blackhole" else 0], None


def _oracle_plan(manifest, lib, plan_path, arch_args=()):
    """Run ``manifest`` in this process with ``--oracle lib`` and keep the plan handed to
    ttsim. -> None when it ran on both (ttsim completed it; its results may differ, as the
    docs/cross-check.md's table of kernels says), else the reason it did not."""
    from bench_scale import run_checked

    rc, doc, last = run_checked(manifest, lib, plan_path, arch_args)
    if rc not in (0, 7) or "oracle" not in doc:  # ttsim refused the run, or ttemu did not finish it
        return f"exit {rc}: {last or '?'}"
    return None


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def bench_vs_ttsim(shared, repeat, manifests=None, baseline=None, arch="wormhole_b0"):
    lib, why = _ttsim_lib(shared, arch)
    if lib is None:
        return {"name": "vs_ttsim", "skipped": why}
    arch_args = ["--arch", arch] if arch != "wormhole_b0" else []
    if not manifests:
        manifests = sorted(ROOT.glob("firmware/*/*.toml"))
        manifests += sorted(p for p in ROOT.glob("corpus/*.toml") if ("blackhole" in p.name) == (arch == "blackhole"))
    ratios, cpu_ratios, rows, skipped, base_ratios, base_cpu = [], [], [], {}, [], []
    with tempfile.TemporaryDirectory(prefix="ttemu-vs-ttsim-") as tmp:
        for m in map(pathlib.Path, manifests):
            plan = os.path.join(tmp, m.stem + ".plan.json")
            why = _oracle_plan(m, lib, plan, arch_args)
            if why is not None:
                skipped[m.stem] = why
                print(json.dumps({"name": "vs_ttsim", "set": m.stem, "skipped": why}))
                continue
            ttemu_cmd = [sys.executable, "-m", "ttemu", "run", str(m), *arch_args, "--no-progress"]
            ttsim_cmd = [sys.executable, "-m", "ttemu.cmd.oracle.child", lib, plan, os.path.join(tmp, "out.json")]
            runs = {"ttemu": [], "ttsim": [], "baseline": []}
            cmds = {"ttemu": (ttemu_cmd, None, None), "ttsim": (ttsim_cmd, None, None)}
            if baseline is not None:  # the same set with another checkout's ttemu
                rel = str(m.resolve().relative_to(ROOT))
                cmds["baseline"] = ([baseline[0], "-m", "ttemu", "run", rel, *arch_args], baseline[1], baseline[2])
            for k in range(max(repeat, 1) + 1):  # the first round warms caches and is not counted
                for key, (cmd, cwd, env) in cmds.items():
                    wall, cpu, rc = measured(cmd, cwd, env)
                    if rc != 0:
                        raise SystemExit(f"{key} exit {rc}: {' '.join(cmd)}")
                    if k:
                        runs[key].append((wall, cpu))
            tt, ts, tb = runs["ttemu"], runs["ttsim"], runs["baseline"]
            ratio = _median([a[0] / b[0] for a, b in zip(tt, ts)])
            ratios.append(ratio)
            cpu_ratios.append(_median([a[1] / b[1] for a, b in zip(tt, ts)]))
            row = {"name": "vs_ttsim", "set": m.stem, "ttemu_seconds": round(_median([a for a, _ in tt]), 3),
                   "ttsim_seconds": round(_median([b for b, _ in ts]), 3), "ratio": round(ratio, 2),
                   "cpu_ratio": round(cpu_ratios[-1], 2)}
            if tb:
                base_ratios.append(_median([c[0] / b[0] for c, b in zip(tb, ts)]))
                base_cpu.append(_median([c[1] / b[1] for c, b in zip(tb, ts)]))
                row.update(baseline_seconds=round(_median([c for c, _ in tb]), 3),
                           baseline_ratio=round(base_ratios[-1], 2), baseline_cpu_ratio=round(base_cpu[-1], 2))
            rows.append(row)
            print(json.dumps(row))
            sys.stdout.flush()
    return {"name": "vs_ttsim", "arch": arch, "sets": len(ratios), "skipped": sorted(skipped),
            "median_ratio": round(_median(ratios), 2) if ratios else None,
            "max_ratio": round(max(ratios), 2) if ratios else None,
            "worst": max(rows, key=lambda r: r["ratio"])["set"] if rows else None,
            "median_cpu_ratio": round(_median(cpu_ratios), 2) if ratios else None,
            "max_cpu_ratio": round(max(cpu_ratios), 2) if ratios else None,
            **({"baseline_median_ratio": round(_median(base_ratios), 2),
                "baseline_max_ratio": round(max(base_ratios), 2),
                "baseline_median_cpu_ratio": round(_median(base_cpu), 2)} if base_ratios else {}),
            "target": "median <= 2.0, each <= 3.0"}


def bench_bh_firmware(shared, repeat):
    libdir = pathlib.Path(os.environ.get("TTEMU_TTSIM_DIR", "/tmp/ttemu-ttsim-oracle"))
    lib = libdir / "libttsim_bh.so"
    if not lib.exists():
        subprocess.run(["bash", str(shared / "oracles" / "ttsim" / "build.sh"), str(libdir)], check=True,
                       capture_output=True)
    manifest = str(ROOT / "corpus" / "metal_fw_blackhole_a.toml")
    cmd = [sys.executable, "-m", "ttemu", "run", manifest, "--json", "--no-progress"]
    t, out = best(repeat, lambda: timed(cmd))
    doc = json.loads(out)

    def oracle():
        d = json.loads(timed(cmd + ["--oracle", str(lib)])[1])["oracle"]
        return d["seconds"], d
    t_sim, o = best(repeat, oracle)
    return {"name": "bh_firmware", "outcome": doc["outcome"], "riscv_instructions": doc["steps"],
            "ttemu_seconds": round(t, 3), "ttsim_seconds": round(t_sim, 3), "ttsim_clocks": o["clocks"],
            "identical": o["ok"], "ratio_ttemu_over_ttsim": round(t / t_sim, 3)}


def _time_pairs(cmds, repeat):
    """Time each (name, cmd, cwd, env) as whole processes, in turn, ``repeat`` rounds.
    -> {name: [(wall, cpu)]}; a non-zero exit stops the benchmark."""
    runs = {name: [] for name, *_ in cmds}
    for _ in range(max(repeat, 1)):
        for name, cmd, cwd, env in cmds:
            wall, cpu, rc = measured(cmd, cwd, env)
            if rc != 0:
                raise SystemExit(f"{name} exit {rc}: {' '.join(cmd)}")
            runs[name].append((wall, cpu))
    return runs


def bench_scale(shared, repeat, arches, families=None, quick=False, sizes=None, baseline=None):
    """``--scale``: every family of scripts/bench_scale.py at growing sizes on each arch,
    checked (numpy, ttsim) in this process, then timed as whole processes against ttsim
    from the same plan (``quick``: small sizes, checked, not timed; ``baseline``: (python,
    checkout, env) of another ttemu timed in the same loop). Prints a JSON line per set,
    then the table. -> the rows."""
    import bench_scale as bs

    families = families or list(bs.FAMILIES)
    unknown = set(families) - set(bs.FAMILIES)
    if unknown:
        raise SystemExit(f"--scale: unknown famil(ies) {', '.join(sorted(unknown))} (of {', '.join(bs.FAMILIES)})")
    rows = []
    with tempfile.TemporaryDirectory(prefix="ttemu-scale-") as tmp:
        for arch in arches:
            lib, why = _ttsim_lib(shared, arch)
            if lib is None:
                print(json.dumps({"name": "scale", "arch": arch, "ttsim": why}))
            for fam in families:
                for size in sizes or (bs.QUICK_SIZES if quick else bs.SIZES)[fam]:
                    row = bs.check(fam, size, arch, lib, tmp, bs.QUICK_WRAP if quick else None)
                    row["name"] = "scale"
                    if not quick and row["outcome"] == "until":
                        ttemu = [sys.executable, "-m", "ttemu", "run", row["manifest"], "--no-progress"]
                        cmds = [("ttemu", ttemu, None, None)]
                        if row["plan"]:
                            cmds.append(("ttsim", [sys.executable, "-m", "ttemu.cmd.oracle.child", lib, row["plan"],
                                                   os.path.join(tmp, "out.json")], None, None))
                        if baseline is not None:
                            cmds.append(("baseline", [baseline[0], *ttemu[1:]], baseline[1], baseline[2]))
                        runs = _time_pairs(cmds, repeat)
                        tt, ts, tb = runs["ttemu"], runs.get("ttsim"), runs.get("baseline")
                        if tb:
                            row["baseline_seconds"] = round(_median([w for w, _ in tb]), 3)
                            row["baseline_cpu_seconds"] = round(_median([c for _, c in tb]), 3)
                            row["speedup"] = round(_median([b[0] / a[0] for a, b in zip(tt, tb)]), 2)
                            row["cpu_speedup"] = round(_median([b[1] / a[1] for a, b in zip(tt, tb)]), 2)
                            if ts:
                                row["baseline_ratio"] = round(_median([b[0] / c[0] for b, c in zip(tb, ts)]), 2)
                        row["ttemu_seconds"] = round(_median([w for w, _ in tt]), 3)
                        row["ttemu_cpu_seconds"] = round(_median([c for _, c in tt]), 3)
                        if ts:
                            row["ttsim_seconds"] = round(_median([w for w, _ in ts]), 3)
                            row["ttsim_cpu_seconds"] = round(_median([c for _, c in ts]), 3)
                            row["ratio"] = round(_median([a[0] / b[0] for a, b in zip(tt, ts)]), 2)
                            row["cpu_ratio"] = round(_median([a[1] / b[1] for a, b in zip(tt, ts)]), 2)
                    for key in ("manifest", "plan"):
                        row.pop(key)
                    rows.append(row)
                    print(json.dumps(row))
                    sys.stdout.flush()
    print(scale_table(rows, quick))
    return rows


def _marginal(rows, key):
    """us per Tensix instruction between the two largest sizes of ``rows`` (one family
    and arch, by size), from the ``key`` seconds."""
    big = [r for r in rows if r.get(key) is not None]
    if len(big) < 2:
        return None
    a, b = big[-2], big[-1]
    dn = b["tensix_instructions"] - a["tensix_instructions"]
    return round(1e6 * (b[key] - a[key]) / dn, 2) if dn else None


def scale_table(rows, quick=False):
    """The --scale table (Markdown): per family and size, the Tensix instructions, and
    per arch ttemu's and ttsim's whole-process times (median), the median pair ratio
    and whether ttemu's results are bit-identical to ttsim's; then per family the
    marginal cost per Tensix instruction (slope between the two largest sizes)."""
    arches = list(dict.fromkeys(r["arch"] for r in rows))
    fams = list(dict.fromkeys(r["family"] for r in rows))
    by = {(r["arch"], r["family"], r["size"]): r for r in rows}
    short = {"wormhole_b0": "WH", "blackhole": "BH"}

    def ok(r):
        flags = ("numpy" if r["numpy_ok"] else "NUMPY FAILS") + (
            "" if r["ttsim_identical"] is None else ", =ttsim" if r["ttsim_identical"]
            else f", ttsim differs ({r['ttsim_differing_bytes']} B)")
        return flags if r["outcome"] == "until" else f"{r['outcome']}: {r['error']}"

    base = any("baseline_seconds" in r for r in rows)
    head = ["family", "size"]
    for a in arches:
        head += [f"{short[a]} Tensix instr", f"{short[a]} check"] + (
            [] if quick else [f"{short[a]} ttemu s", f"{short[a]} ttsim s", f"{short[a]} ratio", f"{short[a]} cpu ratio"])
        if base:
            head += [f"{short[a]} baseline s", f"{short[a]} baseline ratio", f"{short[a]} cpu speedup"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for fam in fams:
        sizes = sorted({s for (a, f, s) in by if f == fam})
        for size in sizes:
            cells = [fam, str(size)]
            for a in arches:
                r = by.get((a, fam, size))
                if r is None:
                    cells += [""] * (2 if quick else 9 if base else 6)
                    continue
                cells += [f"{r['tensix_instructions']:,}", ok(r)]
                if not quick:
                    cells += [str(r.get(k, "")) for k in ("ttemu_seconds", "ttsim_seconds", "ratio", "cpu_ratio")]
                    if base:
                        cells += [str(r.get(k, "")) for k in ("baseline_seconds", "baseline_ratio", "cpu_speedup")]
            lines.append("| " + " | ".join(cells) + " |")
    if quick:
        return "\n".join(lines)
    lines += ["", "| family | largest size | " + " | ".join(
        f"{short[a]} ratio | {short[a]} cpu ratio | {short[a]} us/instr ttemu / ttsim (wall) | "
        f"{short[a]} us/instr ttemu / ttsim (cpu)" for a in arches) + " |",
              "|" + "---|" * (2 + 4 * len(arches))]
    for fam in fams:
        cells = [fam, str(max(s for (a, f, s) in by if f == fam))]
        for a in arches:
            rs = sorted((r for (x, f, _), r in by.items() if x == a and f == fam), key=lambda r: r["size"])
            cells += [str(rs[-1].get("ratio", "")), str(rs[-1].get("cpu_ratio", ""))] if rs else ["", ""]
            cells += [f"{_marginal(rs, f'ttemu_{k}')} / {_marginal(rs, f'ttsim_{k}')}" for k in ("seconds", "cpu_seconds")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


BENCHES = {"riscv": bench_riscv, "startup": bench_startup, "mvmul": bench_mvmul, "sfpu": bench_sfpu,
           "matmul_kernel": bench_matmul_kernel, "sfpu_kernel": bench_sfpu_kernel, "memory": bench_memory,
           "bh_firmware": bench_bh_firmware}


def _precompile(checkout, python=sys.executable, env=None):
    """Write ``checkout``'s bytecode before timing it: with PYTHONDONTWRITEBYTECODE set
    (as on some machines) every timed process would otherwise compile every module
    again, about 70 ms that a user's second run does not pay."""
    subprocess.run([python, "-m", "compileall", "-q", str(checkout / "ttemu")], env=env,
                   stdout=subprocess.DEVNULL, check=False)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=os.environ.get("TTEMU_SHARED", str(ROOT.parent / "shared")))
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--repeat", type=int, default=None, help="runs per figure (default 1; 3 with --vs-ttsim)")
    ap.add_argument("--vs-ttsim", action="store_true", help="whole runs against ttsim (see vs_ttsim above)")
    ap.add_argument("manifests", nargs="*", help="with --vs-ttsim: these sets only")
    ap.add_argument("--baseline", default=None, metavar="CHECKOUT",
                    help="with --vs-ttsim or --scale: also time CHECKOUT's ttemu (run from there with PYTHON) on each set")
    ap.add_argument("--baseline-python", default="python3", metavar="PYTHON")
    ap.add_argument("--arch", default=None, choices=("wormhole_b0", "blackhole"),
                    help="with --vs-ttsim: run the sets on this arch (its ttsim library; manifests' "
                         "[cores.<arch>] ELFs); the sfpu stream: on a tile of this arch; --scale: this "
                         "arch only (default: both)")
    ap.add_argument("--scale", action="store_true",
                    help="the kernel families at growing sizes against ttsim (see scale above; "
                         "--only FAMILY ... picks some)")
    ap.add_argument("--quick", action="store_true", help="with --scale: small sizes, checked, not timed")
    ap.add_argument("--sizes", default=None, metavar="N,N,...",
                    help="with --scale: these sizes (tile products or tiles) instead of each family's")
    args = ap.parse_args(argv)
    shared = pathlib.Path(args.shared)
    _precompile(ROOT)
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    baseline = None
    if args.baseline:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(args.baseline)}
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "ttemu-bench-baseline-pyc")
        baseline = (args.baseline_python, os.path.abspath(args.baseline), env)
        _precompile(pathlib.Path(args.baseline), args.baseline_python, env)
    if args.scale:
        arches = [args.arch] if args.arch else ["wormhole_b0", "blackhole"]
        sizes = [int(x) for x in args.sizes.split(",")] if args.sizes else None
        rows = bench_scale(shared, args.repeat or 3, arches, args.only, args.quick, sizes, baseline)
        bad = [r for r in rows if r["outcome"] != "until" or not r["numpy_ok"]]
        return 1 if bad else 0
    args.arch = args.arch or "wormhole_b0"
    if args.vs_ttsim:
        print(json.dumps(bench_vs_ttsim(shared, args.repeat or 3, args.manifests, baseline, args.arch)))
        return 0
    args.repeat = args.repeat or 1
    for name, fn in BENCHES.items():
        if args.only and name not in args.only:
            continue
        extra = {"arch": args.arch} if name == "sfpu" else {}
        print(json.dumps(fn(shared, args.repeat, **extra)))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
