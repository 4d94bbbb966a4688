"""The scaling benchmark's kernel sets (``scripts/bench.py --scale``): one family per
kind of Tensix work, each a manifest generated at a given size.

A family runs the shipped kernel's math thread (its ELF as committed) with the unpack
and pack threads of ``firmware/scale_*`` (``firmware/llk/llk_scale.h``): step i works on
L1 tile i % wrap, so thousands of steps repeat over the same L1 tiles, and those two
threads drain the Tensix FIFO after each step, which ttsim needs (its FIFO push has no
back-pressure: a thread that runs ahead is refused with "inst fifo full"). Every
repeat writes the same results, so each set is checked against numpy on the L1-resident
tiles (the manifest's ``[[expect]]``) and, through ``--oracle``, bit for bit against
ttsim.

Size is the family's unit of work: tile products for matmul, tiles otherwise.
"""

from __future__ import annotations

import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PARAMS = 0x64000
BASE = 0x70000  # first input; the rest follow, 4 KiB aligned
L1_SIZE = {"wormhole_b0": 1464 * 1024, "blackhole": 1536 * 1024}
MAILBOXES = (0x19FFC, 0x19FF8, 0x19FF4)

#: per family: the programs (firmware/build/<prog>) of the unpack, math and pack threads,
#: the tiles of work per step, and a line on what it does. Sizes are in units of work.
FAMILIES = {
    "matmul_hifi4": dict(threads=("scale_matmul", "matmul_block", "scale_matmul"),
                         what="C = A @ B, K = N = 4 tiles, M grows; BF16 in, FP32 Dst and out, 4 phases"),
    "matmul_lofi": dict(threads=("scale_matmul", "matmul_block", "scale_matmul"),
                        what="as matmul_hifi4, 1 fidelity phase"),
    "sfpu_exp": dict(threads=("scale_exp", "sfpu_exp", "scale_exp"),
                     what="exp on the SFPU, FP32 tiles unpacked to a 32-bit Dst"),
    "sfpu_relu": dict(threads=("scale_copy", "sfpu_relu", "scale_copy"),
                      what="max(x, 0) on the SFPU after MOVA2D, BF16 tiles, 16-bit Dst"),
    "datacopy": dict(threads=("scale_copy", "datacopy_bf16", "scale_copy"),
                     what="BF16 tiles L1 -> SrcA -> MOVA2D -> 16-bit Dst -> L1"),
    "eltwise": dict(threads=("scale_eltwise", "eltwise_add", "scale_eltwise"),
                    what="ELWADD of two BF16 tiles into a 32-bit Dst, packed to BF16"),
    "reduce": dict(threads=("scale_reduce", "reduce_row", "scale_reduce"),
                   what="row sums (MVMUL against a column scaler), BF16 in, FP32 out"),
    "tilize": dict(threads=("scale_tilize", "tilize", "scale_tilize"),
                   what="row-major BF16 bands of 4 tiles -> tiles (tilize unpack, MOVA2D, pack)"),
    "untilize": dict(threads=("scale_untilize", "untilize", "scale_untilize"),
                     what="FP32 tiles -> row-major bands of 4 tiles (one PACR per face row)"),
}

#: sizes timed by default (the largest >= 2048 units), and the quick mode's (no timing:
#: the sets still run, match numpy and ttsim; small wrap so that steps repeat)
SIZES = {"matmul_hifi4": (16, 256, 1024, 2048), "matmul_lofi": (16, 256, 1024, 2048),
         "sfpu_exp": (1, 64, 512, 2048), "sfpu_relu": (1, 64, 512, 2048),
         "datacopy": (1, 64, 1024, 4096), "eltwise": (1, 64, 1024, 2048),
         "reduce": (1, 64, 1024, 2048), "tilize": (4, 64, 1024, 2048), "untilize": (4, 64, 1024, 2048)}
QUICK_SIZES = {f: (16, 48) if f.startswith("matmul") else (4, 12) for f in FAMILIES}
WRAP_TILES = 32  # a timed set's L1 holds the steps of this many output tiles
QUICK_WRAP = 2   # the quick mode's: steps
MATMUL_K = MATMUL_N = 4
BAND_TILES = 4  # tilize / untilize: tiles per band


def _elf(prog, core, arch):
    sub = "blackhole/" if arch == "blackhole" else ""
    return ROOT / "firmware" / "build" / f"{sub}{prog}" / f"{core}.elf"


def _tiles_input(name, addr, fmt, shape, rng, generate="uniform"):
    return (f'[[input]]\nname = "{name}"\naddr = 0x{addr:x}\nformat = "{fmt}"\nshape = {list(shape)}\n'
            f'generate = "{generate}"\nrange = {list(rng)}\n')


def _expect(addr, fmt, shape, reference, atol, rtol):
    return (f'[[expect]]\nname = "out"\naddr = 0x{addr:x}\nformat = "{fmt}"\nshape = {list(shape)}\n'
            f'reference = "{reference}"\natol = {atol!r}\nrtol = {rtol!r}\n')


def _nbytes(fmt, shape):
    return shape[0] * shape[1] * (4 if fmt == "fp32" else 2)


def _layout(*regions):
    """Addresses for regions of these byte sizes, from BASE, 4 KiB aligned."""
    out, a = [], BASE
    for n in regions:
        out.append(a)
        a += (n + 0xFFF) & ~0xFFF
    return out, a


def steps_of(family, size):
    """-> (steps the kernel loops over: output rows (matmul), bands ((un)tilize) or
    tiles, units of work per step)."""
    if family.startswith("matmul"):
        per = MATMUL_K * MATMUL_N
    elif family in ("tilize", "untilize"):
        per = BAND_TILES
    else:
        per = 1
    if size % per:
        raise ValueError(f"{family}: size {size} is not a multiple of {per}")
    return size // per, per


def manifest(family, size, arch, wrap=None, seed=1):
    """The TOML text of ``family`` at ``size`` units of work on ``arch``: L1 holds the
    tiles of min(steps, wrap) steps (default: WRAP_TILES output tiles' worth)."""
    steps, per = steps_of(family, size)
    if wrap is None:
        wrap = max(1, WRAP_TILES // (MATMUL_N if family.startswith("matmul") else per))
    w = min(steps, wrap)
    unpack, math, pack = FAMILIES[family]["threads"]
    params = [0] * 9  # struct llk_params: in0, in1, out, tiles, m, k, n, arg, wrap
    body = []
    if family.startswith("matmul"):
        k, n = MATMUL_K, MATMUL_N
        a, b, c = (32 * w, 32 * k), (32 * k, 32 * n), (32 * w, 32 * n)
        (ia, ib, out), end = _layout(_nbytes("bf16", a), _nbytes("bf16", b), _nbytes("fp32", c))
        params[:8] = [ia, ib, out, 0, steps, k, n, 4 if family == "matmul_hifi4" else 1]
        body += [_tiles_input("a", ia, "bf16", a, (-1.0, 1.0)), _tiles_input("b", ib, "bf16", b, (-1.0, 1.0))]
        if family == "matmul_hifi4":
            # matmul_block.toml's bound for K tiles: 2K faces x 4 phases x 16 = 512 roundings
            # of a partial sum <= 32K; doubled (the datapath's rounding of aligned products)
            ref, atol = "a @ b", 2 * (2 * k * 4 * 16) * (32 * k) * 2.0 ** -24
        else:  # the LoFi operands (matmul_block_lofi.toml), bound as there
            ref = ("(a.astype(np.float32).view(np.uint32) & np.uint32(0xFFFE0000)).view(np.float32)"
                   ".astype(np.float64) @ (b.astype(np.float32).view(np.uint32) & np.uint32(0xFFF80000))"
                   ".view(np.float32).astype(np.float64)")
            atol = 0.005 * k / 2
        body.append(_expect(out, "fp32", c, ref, atol, 0.0))
    elif family in ("tilize", "untilize"):
        t = BAND_TILES
        shape = (32 * w, 32 * t)
        fmt = "bf16" if family == "tilize" else "fp32"
        (ia, out), end = _layout(_nbytes(fmt, shape), _nbytes(fmt, shape))
        params[:5] = [ia, 0, out, t, steps]
        if family == "tilize":  # the tile-format input's bytes as a row-major matrix (tilize.toml)
            body.append(_tiles_input("a", ia, fmt, shape, (-8.0, 8.0)))
            ref = f"a.reshape({w}, 2, 16, {t}, 2, 16).transpose(0, 3, 1, 4, 2, 5).reshape({32 * w}, {32 * t})"
        else:  # the row-major output read as tiles (untilize.toml)
            body.append(_tiles_input("a", ia, fmt, shape, (0.0, 10.0), "normal"))
            ref = f"a.reshape({w}, {t}, 2, 2, 16, 16).transpose(0, 2, 4, 1, 3, 5).reshape({32 * w}, {32 * t})"
        body.append(_expect(out, fmt, shape, ref, 0.0, 0.0))
    elif family == "reduce":
        shape = (32 * w, 32)
        (ia, scaler, out), end = _layout(_nbytes("bf16", shape), 2048, _nbytes("fp32", shape))
        params[:8] = [ia, scaler, out, steps, 0, 0, 0, 0x3F800000]
        body.append(_tiles_input("a", ia, "bf16", shape, (-1.0, 1.0)))
        body.append(_expect(out, "fp32", shape, "np.hstack([np.sum(a, axis=1)[:, None], np.zeros((a.shape[0], 31))])",
                            0.003, 0.0))  # reduce_row.toml's bound
    else:
        shape = (32, 32 * w)
        fmt_in, fmt_out, rng = "bf16", "bf16", (-4.0, 4.0)
        if family == "sfpu_exp":
            fmt_in, fmt_out, rng = "fp32", "fp32", (-20.0, 20.0)
        two = family == "eltwise"
        sizes = [_nbytes(fmt_in, shape)] * (2 if two else 1) + [_nbytes(fmt_out, shape)]
        addrs, end = _layout(*sizes)
        ia, ib, out = addrs[0], addrs[1] if two else 0, addrs[-1]
        params[:4] = [ia, ib, out, steps]
        body.append(_tiles_input("a", ia, fmt_in, shape, rng))
        if two:
            body.append(_tiles_input("b", ib, fmt_in, shape, rng))
        ref, atol, rtol = {"sfpu_exp": ("np.exp(a)", 0.0, 1.0e-7), "sfpu_relu": ("np.maximum(a, 0.0)", 0.0, 0.0),
                           "datacopy": ("a", 0.0, 0.0), "eltwise": ("a + b", 0.0, 0.0078125)}[family]
        body.append(_expect(out, fmt_out, shape, ref, atol, rtol))  # the shipped manifests' bounds
    if end > L1_SIZE[arch]:
        raise ValueError(f"{family} at wrap {w}: L1 overflows (0x{end:x})")
    params[8] = w
    cores = {"brisc": _elf("boot", "brisc", arch), "trisc0": _elf(unpack, "trisc0", arch),
             "trisc1": _elf(math, "trisc1", arch), "trisc2": _elf(pack, "trisc2", arch)}
    head = [f"# scripts/bench.py --scale: {family} ({FAMILIES[family]['what']}), {size} units of work",
            f'name = "scale_{family}_{size}"', f'arch = "{arch}"', "max_steps = 2_000_000_000", f"seed = {seed}", "",
            "[cores]", *(f'{c} = "{p}"' for c, p in cores.items()), "",
            f"[[write]]\naddr = 0x{PARAMS:x}\nvalues = [{', '.join(hex(v) for v in params)}]", ""]
    head += [f"[[until]]\naddr = 0x{a:x}\nvalue = 1\n" for a in MAILBOXES]
    return "\n".join(head) + "\n" + "\n".join(body)


def run_checked(path, lib=None, plan_path=None, extra=()):
    """Run the manifest at ``path`` in this process as ``ttemu run PATH --json [EXTRA]``
    does (with ``--oracle lib`` when given, keeping the plan handed to ttsim at ``plan_path``).
    -> (exit code, the --json document or {}, the last line on stderr)."""
    import contextlib
    import io
    import json
    import sys

    sys.path.insert(0, str(ROOT))
    from ttemu.cmd import oracle
    from ttemu.cmd.cli import main as cli_main

    real = oracle.run_ttsim

    def keep(lib_path, plan, **kw):
        if plan_path is not None:
            with open(plan_path, "w") as f:
                json.dump(plan.to_json(), f)
        return real(lib_path, plan, **kw)

    oracle.run_ttsim = keep
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli_main(["run", str(path), *extra, *(["--oracle", lib] if lib else []), "--json", "--no-progress"])
    finally:
        oracle.run_ttsim = real
    text = out.getvalue().strip()
    doc = json.loads(text) if text.startswith("{") else {}
    return rc, doc, (err.getvalue().strip().splitlines() or [""])[-1]


def tensix_instructions(doc):
    """Instructions the three Tensix threads issued (MOP and replay expansions counted)."""
    return sum(v["issued"] for v in doc.get("tensix", {}).values())


def check(family, size, arch, lib, tmp, wrap=None):
    """Write ``family`` at ``size`` into directory ``tmp`` and run it in this process
    (against ttsim when ``lib``). -> a row: the manifest and plan paths, whether it
    ran to its done condition, matched numpy and ttsim, its Tensix and RISC-V
    instruction counts."""
    tmp = pathlib.Path(tmp)
    path = tmp / f"{family}_{size}_{arch}.toml"
    path.write_text(manifest(family, size, arch, wrap))
    plan = tmp / f"{family}_{size}_{arch}.plan.json"
    rc, doc, last = run_checked(path, lib, plan if lib else None)
    oracle = doc.get("oracle")
    return {"family": family, "arch": arch, "size": size, "exit": rc, "outcome": doc.get("outcome"),
            "numpy_ok": bool(doc.get("expect")) and all(e["ok"] for e in doc["expect"]),
            "ttsim_identical": None if oracle is None else oracle["ok"],
            "ttsim_differing_bytes": None if oracle is None else sum(r["differing_bytes"] for r in oracle["regions"]),
            "tensix_instructions": tensix_instructions(doc), "riscv_instructions": doc.get("steps"),
            "error": None if rc in (0, 7) else last, "manifest": str(path), "plan": str(plan) if oracle else None}
