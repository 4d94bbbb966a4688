"""The differential fuzzer (scripts/fuzz.py, scripts/fuzzing/; docs/fuzzing.md).

- CI budget: a few fixed seeds of every unit family on both arches run on ttemu and on
  ttsim; no difference outside the known classes, no ttemu error, nothing outside the
  pages (ttemu's undefined-behaviour reports) or refused by ttsim.
- The machinery: many plans in one ttsim process on separate worker tiles, a refusing
  plan found by halving, minimisation to the group a difference needs.
- The classes this fuzzer found where the ISA pages side with ttemu, pinned with ttsim's
  exact value, and regression tests for the ttemu bugs it found.

Skipped when ttsim cannot be built from ../shared (tests/oracle_lib.py).
"""

import pathlib
import sys

import numpy as np
import pytest

from oracle_lib import require_ttsim

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from fuzzing import classes, scaffold  # noqa: E402
from fuzzing.campaign import run_chunk  # noqa: E402
from fuzzing.generators import FAMILIES, generate  # noqa: E402
from fuzzing.minimise import minimise  # noqa: E402
from fuzzing.program import OUTPUT_BASE, SEMAPHORE, Builder  # noqa: E402
from fuzzing.runner import run_programs, run_ttemu  # noqa: E402

ARCHES = ("wormhole_b0", "blackhole")
CI_SEEDS = {"sfpu": range(10), "fpu": range(10), "pack": range(10), "cfg": range(8), "sync": range(8),
            "counters": range(8), "mop": range(8)}


@pytest.fixture(scope="module")
def libs():
    return {arch: require_ttsim(arch) for arch in ARCHES}


def words(out, region=0):
    return np.frombuffer(out.ours[region], "<u4"), np.frombuffer(out.theirs[region], "<u4")


# -- CI budget -----------------------------------------------------------------------
@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("arch", ARCHES)
def test_fuzz_seeds_explained(arch, family, libs):
    """The CI budget (CI_SEEDS): every program is bit-identical to ttsim or differs in a
    known class (then it was minimised and classed); nothing else."""
    assert set(CI_SEEDS) == set(FAMILIES)
    records = run_chunk(arch, family, list(CI_SEEDS[family]), libs, frozenset())
    bad = [r for r in records if r["status"] not in ("same", "differ") or (r["status"] == "differ" and not r["known"])]
    assert not bad, "\n".join(f"seed {r['seed']}: {r['status']} {r['class'] or r['detail']}" for r in bad)
    assert sum(r["status"] == "same" for r in records) >= len(records) // 2


def test_every_family_reaches_its_results():
    """Each family's results regions hold more than the zeros they started as (the
    scaffolding works: the readback shows what the body did) on both arches, for most
    seeds (a short program may write nothing but zeros)."""
    for arch in ARCHES:
        for family in FAMILIES:
            shown = 0
            for seed in range(3):
                out, _ = run_ttemu(generate(arch, family, seed))
                assert out.status == "same", (arch, family, out.detail)
                shown += any(np.frombuffer(r, np.uint8).any() for r in out.ours)
            assert shown >= 2, (arch, family)


# -- machinery ---------------------------------------------------------------------
def _store_program(arch, seed, value, bad=False):
    """T0 stores ``value`` into the output word (and, with ``bad``, writes a Config word
    ttsim refuses: Wormhole word 4 / Blackhole word 4, UnsupportedFunctionality)."""
    b = Builder(arch, "test", seed)
    with b.on(0):
        with b.unit("store"):
            b.store(OUTPUT_BASE, value)
        if bad:
            b.cfg_word(4, 1, "a word ttsim refuses")
    b.output("out", OUTPUT_BASE, 4)
    return b.prog


@pytest.mark.parametrize("arch", ARCHES)
def test_batch_runs_each_plan_on_its_own_tile_and_finds_a_refusal(arch, libs):
    """Five programs in one batch: each result comes from its own tile; the one ttsim
    refuses is found by halving (its ERROR line), the others still compared."""
    progs = [_store_program(arch, k, 0x1000 + k, bad=(k == 3)) for k in range(5)]
    outs = run_programs(progs, libs)
    for k, out in enumerate(outs):
        if k == 3:
            assert out.status == "refused" and "ERROR: UnsupportedFunctionality" in out.detail
        else:
            assert out.status == "same" and words(out)[1][0] == 0x1000 + k


def test_minimise_keeps_the_group_a_difference_needs(libs):
    """A configuration program with many groups, one of them writing bits outside every
    field (class cfg-undefined-bits), shrinks to that group."""
    allow = frozenset({"cfg-undefined-bits"})
    for seed in range(40):
        prog = generate("wormhole_b0", "cfg", seed, allow)
        out, = run_programs([prog], libs)
        if out.status == "differ" and len(prog.groups) >= 8:
            break
    else:
        pytest.fail("no differing program")
    m = minimise(out, libs)
    assert m.status == "differ" and len(m.program.kept_groups) == 1
    assert classes.classify(m.program) == ("cfg-undefined-bits", True)


def test_known_classes_are_in_the_differences_table():
    text = (ROOT / "docs" / "ttsim-differences.md").read_text()
    for k in classes.KNOWN:
        assert f"`{k.name}`" in text, k.name


def test_kept_out_classes_stay_out_of_the_generators():
    """With every known class kept out, no generated group carries a kept-out feature."""
    kept = classes.kept_out(frozenset())
    for arch in ARCHES:
        for family in FAMILIES:
            for seed in range(12):
                feats = generate(arch, family, seed).features()
                assert not feats & kept, (arch, family, seed, feats & kept)


# -- pinned classes (the ISA pages side with ttemu) ------------------------------------
@pytest.mark.parametrize("arch", ARCHES)
def test_pin_cfg_undefined_bits(arch, libs):
    """BackendConfiguration.md / WRCFG.md: Config is uint32_t words; a RISC-V store and a
    WRCFG write every bit, and lw reads them back (ttemu). ttsim keeps only the bits of
    defined fields (its CFG<i>_REG_MASK)."""
    b = Builder(arch, "pin", 0)
    cf = b.cfg_fields
    word = 14 if arch == "wormhole_b0" else 18  # PCK_DEST_RD_CTRL: four 1-bit fields, the rest undefined
    defined = 0
    for name, (index, shift, width) in cf.items():
        if index == word:
            defined |= ((1 << width) - 1) << shift
    undefined = ~defined & 0xFFFFFFFF
    assert undefined
    value = 0x5A5A5A5A
    with b.on(0):
        b.cfg_word(word, value)
        b.sync()
        b.copy(0xFFEF0000 + 4 * word, OUTPUT_BASE)
    b.output("w", OUTPUT_BASE, 4)
    out, = run_programs([b.prog], libs)
    ours, theirs = words(out)
    assert ours[0] == value
    assert theirs[0] == value & defined


def _sync_pin(arch, through):
    """T0 inits sem0 = 0 (max 1) and sem1 = 0 (max 2); T1 waits on sem0 (SEMWAIT C0,
    block mask B7 alone when ``through``, else B1 | B7) and then posts sem1; T2 reads
    sem1, then posts sem0. Turns by L1 word 0x1100."""
    turn = 0x1100
    b = Builder(arch, "pin", 0)
    with b.on(0):
        b.push("SEMINIT", sem_sel=1, init_value=0, max_value=1)
        b.push("SEMINIT", sem_sel=2, init_value=0, max_value=2)
        b.sync()
        b.store(turn, 1)
    with b.on(1):
        b.poll(turn, 1)
        b.push("SEMWAIT", wait_sem_cond=1, sem_sel=1, stall_res=(1 << 7) if through else (1 << 7) | (1 << 1))
        b.push("SEMPOST", sem_sel=2)
        b.store(turn, 2)
    with b.on(2):
        b.poll(turn, 2)
        b.copy(SEMAPHORE + 4, OUTPUT_BASE)
        b.store(SEMAPHORE + 0, 0)  # RISC-V post of sem0: T1 goes on
    b.output("sem1", OUTPUT_BASE, 4)
    return b.prog


@pytest.mark.parametrize("arch", ARCHES)
def test_pin_semwait_blockmask(arch, libs):
    """SEMWAIT.md / STALLWAIT.md: the block mask names the units whose instructions wait
    (B1: Sync Unit). With B7 alone, the SEMPOST behind the SEMWAIT runs at once: T2
    sees sem1 = 1 (ttemu); ttsim stops the whole thread at the wait (its SEMWAIT
    ignores stall_res), 0. With B1 in the mask both wait: 0."""
    out, = run_programs([_sync_pin(arch, True)], libs)
    ours, theirs = words(out)
    assert (ours[0], theirs[0]) == (1, 0)
    out, = run_programs([_sync_pin(arch, False)], libs)
    assert out.status == "same" and words(out)[0][0] == 0


def _fpu_program(arch, a_tile, b_tile, body, *, l1=(5, 5), dst32=True, ntiles=1, thread=0, relu=0):
    """T0 (or ``thread``): unpack ``a_tile`` (L1 format l1[0]) to SrcA and ``b_tile`` to SrcB (FP32 in
    L1 becomes TF32), ZEROACC, ``body(b)``, pack Dst (32-bit rows as FP32; ``relu``: the packer's
    STACC_RELU as mode | threshold << 4)."""
    b = Builder(arch, "pin", 0)
    src = tuple(4 if f == 0 else f for f in l1)
    with b.on(thread):
        scaffold.alu_config(b, src[0], src[1], dst32, 0 if dst32 else 5)
        scaffold.unpack_setup(b, 0, l1[0], src[0])
        scaffold.unpack_setup(b, 1, l1[1], src[1])
        b.input(0x30000, a_tile)
        b.input(0x31000, b_tile)
        if arch == "wormhole_b0":
            b.push("ZEROACC", clear_mode=3)
        else:
            b.push("ZEROACC", clear_mode=3, use_32_bit_mode=int(dst32))
        b.push("SETRWC", BitMask=0xF)
        scaffold.unpack_tile(b, 0, 0x30000)
        scaffold.unpack_tile(b, 1, 0x31000)
        with b.unit("body"):
            body(b)
        scaffold.pack_setup(b, 0 if dst32 else 5, 0 if dst32 else 5, dst32, relu=relu)
        scaffold.pack_tiles(b, OUTPUT_BASE, ntiles, bpd=4 if dst32 else 2)
    b.output("dst", OUTPUT_BASE, ntiles * (4096 if dst32 else 2048))
    return b.prog


def _bf16_tile(values):
    t = np.zeros(1024, np.uint16)
    for i, v in values.items():
        t[i] = v
    return t.tobytes()


def _fp32_tile(values):
    t = np.zeros(1024, np.uint32)
    for i, v in values.items():
        t[i] = v
    return t.tobytes()


@pytest.mark.parametrize("arch", ARCHES)
def test_pin_fpu_mixed_src_styles(arch, libs):
    """ELWADD.md: SrcAStyle, from SrcA's format, reads both operands. SrcA BF16 1.0 plus
    SrcB TF32 1 + 2**-10: read as BF16 the SrcB value is 1.0, Dst FP32 2.0 (ttemu);
    ttsim keeps SrcB's TF32 mantissa: 2 + 2**-10."""
    prog = _fpu_program(arch, _bf16_tile({0: 0x3F80}), _fp32_tile({0: 0x3F802000}),
                        lambda b: b.push("ELWADD", dst=0), l1=(5, 0))
    out, = run_programs([prog], libs)
    ours, theirs = words(out)
    assert (ours[0], theirs[0]) == (0x40000000, 0x40001000)


@pytest.mark.parametrize("arch", ARCHES)
def test_pin_dst_undefined_halves(arch, libs):
    """ZEROACC.md: undefined rows read as zero by the packer, per DstBits row. After
    ZEROACC, MOVA2D of BF16 SrcA writes Dst16b rows 8..15, the low halves of Dst32b
    rows 0..7: the packer reads 0 high, the value low (ttemu); ttsim takes a 32-bit
    datum's validity from its high row alone: 0. Rows 0..7 (the high halves) agree."""

    def body(b):
        b.push("MOVA2D", dst=8, instr_mod=2, src=0)
        b.push("MOVA2D", dst=16, instr_mod=2, src=0)  # Dst16b 16..23: high halves of Dst32b 8..15

    prog = _fpu_program(arch, _bf16_tile({0: 0x3F80, 16 * 8: 0x4040}), _bf16_tile({}), body)
    out, = run_programs([prog], libs)
    ours, theirs = words(out)
    # Dst32b row 0 col 0 = DstBits row 0 (undefined) : DstBits row 8 (SrcA row 0: 1.0 as Dst16 BF16,
    # sign | mantissa << 8 | exponent, Dst.md)
    assert ours[0] == 0x0000007F and theirs[0] == 0
    assert ours[16 * 8] == theirs[16 * 8] != 0  # Dst32b row 8: high half written, low half undefined


@pytest.mark.parametrize("arch", ARCHES)
def test_pin_unpack_context_adc(arch, libs):
    """UNPACR_Regular.md: in MultiContextMode (OvrdThreadId, as tt-llk's unpacks) the X
    counters come from ADCs[ContextADC], thread 0's for ContextADC 0. Issued by T1 with
    only T1's ADCs set (X end 1023), ttemu unpacks one datum (thread 0's X end is 0);
    ttsim uses the issuing thread's ADCs: the whole tile."""

    def body(b):
        b.push("SETRWC", BitMask=0xF)
        tf = b.thread_fields
        b.push("SETC16", setc16_reg=tf["ADDR_MOD_AB_SEC1_SrcAIncr"][0], setc16_value=8)
        b.push("SETC16", setc16_reg=tf["ADDR_MOD_DST_SEC1_DestIncr"][0], setc16_value=8)
        for _ in range(8):
            b.push("MOVA2D", dst=0, instr_mod=2, src=0, addr_mode=1)

    a = _bf16_tile({i: 0x3F80 + (i & 0x3F) for i in range(1024)})
    out, = run_programs([_fpu_program(arch, a, _bf16_tile({}), body, dst32=False, thread=1)], libs)
    ours, theirs = (np.frombuffer(x[0], "<u2") for x in (out.ours, out.theirs))
    assert np.count_nonzero(ours) == 1 and np.count_nonzero(theirs) == 1024


@pytest.mark.parametrize("arch", ARCHES)
def test_pin_relu_nan_threshold(arch, libs):
    """Packers/ReLU.md: ``Threshold = ParseBF16(STACC_RELU_ReluThreshold)`` for a BF16
    intermediate, and MIN_THRESHOLD_RELU returns ``x <= Threshold ? 0 : x``. With the
    positive NaN threshold 0x7fc0 (not undefined: only a set sign bit is) no comparison
    with NaN is true, so every datum passes unchanged, negatives too (ttemu); ttsim
    zeroes negatives, then compares bit patterns: every datum is <= 0x7fc0, all 0. An
    infinite threshold (0x7f80) zeroes every datum on both."""
    vals = [0x3F80, 0xBF80, 0x4120, 0xC120, 0x7F80, 0xFF80, 0x0080, 0x7F7F]
    a = _bf16_tile(dict(enumerate(vals)))

    def body(b):
        b.push("MOVA2D", dst=0, instr_mod=2, src=0)

    nan, inf = (_fpu_program(arch, a, _bf16_tile({}), body, dst32=False, relu=2 | thr << 4)
                for thr in (0x7FC0, 0x7F80))
    out_nan, out_inf = run_programs([nan, inf], libs)
    ours, theirs = (np.frombuffer(x[0], "<u2")[:len(vals)] for x in (out_nan.ours, out_nan.theirs))
    assert list(ours) == vals and not theirs.any()
    assert out_inf.status == "same" and not np.frombuffer(out_inf.ours[0], "<u2").any()


def _prng_program(stoch):
    """A Vector Unit program (gen_sfpu's prologue: PRNG seeded) whose body is, with
    ``stoch``, a non-stochastic SFP_STOCH_RND (FP32 -> UINT16), then SFPMOV from the PRNG."""
    from fuzzing.gen_sfpu import SfpuGen

    b = Builder("wormhole_b0", "pin", 0)
    with b.on(0):
        g = SfpuGen(b, np.random.default_rng(5), frozenset())
        g.prologue()
        if stoch:
            b.push("SFP_STOCH_RND", lreg_src_c=1, lreg_src_b=4, lreg_dest=3, instr_mod1=6)
        b.push("SFPMOV", lreg_c=9, lreg_dest=2, instr_mod1=8)
        g.epilogue()
    return b.prog


def test_pin_stochrnd_prng_advance(libs):
    """SFPSTOCHRND_FloatInt.md: ``PRNGBits = StochasticRounding ? AdvancePRNG() & 0x7fffff :
    0x400000``: without stochastic rounding the PRNG stays, so the SFPMOV after it reads
    what it reads without the SFP_STOCH_RND (ttemu); ttsim steps the PRNG anyway."""
    with_rnd, without = run_programs([_prng_program(True), _prng_program(False)], libs)
    assert without.status == "same"
    lreg2 = [16 * r + 2 * c for r in range(4, 8) for c in range(8)]  # LReg[2]'s slot: rows 4..7, even columns
    ours_a, theirs_a = words(with_rnd)
    ours_b, _ = words(without)
    assert np.array_equal(ours_a[lreg2], ours_b[lreg2]) and ours_b[lreg2].any()
    assert not np.array_equal(theirs_a[lreg2], ours_b[lreg2])


# -- ttemu bugs the fuzzer found -------------------------------------------------------
def _minus_one_tiles():
    """Dst row 0 col 0 accumulates 1.0 + 2**-11 * -2**-12 (first MVMUL, SrcA rows 0..15),
    then 1.0 * -1.0 (second MVMUL, SrcA rows 16..31, SrcB rows 8..15): exactly -1 unit of
    the FP32 accumulator (tests/test_fpu_ttsim.py's case, in two MVMULs)."""
    a = _bf16_tile({0: 0x3F80, 16 * 8: 0xB980, 16 * 16: 0xBF80})  # SrcA[k][0]: 1, -2**-12 (k 8), -1 (k 16)
    bt = _bf16_tile({0: 0x3F80, 8: 0x3A00, 16 * 8: 0x3F80})  # SrcB[0][0] 1, [0][8] 2**-11, [8][0] 1
    return a, bt


def _minus_one_body(b):
    tf = b.thread_fields
    b.push("SETC16", setc16_reg=tf["ADDR_MOD_AB_SEC1_SrcAIncr"][0], setc16_value=16 | 8 << 8)
    b.push("SETC16", setc16_reg=tf["ADDR_MOD_DST_SEC1_DestIncr"][0], setc16_value=0)
    b.push("MVMUL", dst=0, addr_mode=1)
    b.push("MVMUL", dst=0, addr_mode=0)


@pytest.mark.parametrize("arch", ARCHES)
def test_minus_one_unit_is_wormholes_quirk(arch, libs):
    """A sum of exactly -1 unit into an FP32 Dst: Wormhole renormalises it as 28 bits long
    (ttsim's Wormhole model, tests/test_fpu_ttsim.py), Blackhole's comes out exact; ttemu
    applied Wormhole's on both (ArchSpec.fpu_minus_one_quirk now)."""
    a, bt = _minus_one_tiles()
    out, = run_programs([_fpu_program(arch, a, bt, _minus_one_body)], libs)
    assert out.status == "same", out.diffs[:4]
    got = words(out)[0][0]
    nonzero = np.flatnonzero(words(out)[0])
    assert list(nonzero) == [0]
    if arch == "wormhole_b0":
        assert got == 0xC1800000  # -16.0
    else:
        assert got == 0xB4000000  # -2**-23: one unit at the exponent of 1.0


@pytest.mark.parametrize("arch", ARCHES)
def test_gapool_into_the_last_dst32_rows(arch, libs):
    """GAPOOL (4 rows) into Dst32b rows 508..511, whose low halves are DstBits 1020..1023:
    ttemu's fused path sliced past Dst's end (ValueError); now it matches ttsim."""
    rng = np.random.default_rng(3)
    vals = (np.frombuffer(rng.integers(0x3E00, 0x4080, 1024, dtype=np.uint16).tobytes(), "<u2"))
    a = vals.tobytes()
    bt = (vals[::-1]).tobytes()
    prog = _fpu_program(arch, a, bt, lambda b: b.push("GAPOOL", dst=508, instr_mod19=1), ntiles=8)
    out, = run_programs([prog], libs)
    assert out.status == "same", out.detail or out.diffs[:4]
    ours = words(out)[0].reshape(8, 4, 16, 16)
    assert ours[7, 3, 12:16].any()  # rows 508..511: tile 7, face 3, rows 12..15


# -- the command (docs/fuzzing.md's examples) ----------------------------------------
def _fuzz(*args, cwd=ROOT):
    import os
    import subprocess

    env = dict(os.environ)
    lib_dir = str(pathlib.Path(require_ttsim("wormhole_b0")).parent)
    full = [sys.executable, str(ROOT / "scripts" / "fuzz.py"), *args]
    if args[0] in ("run", "campaign"):
        full += ["--lib-dir", lib_dir]
    return subprocess.run(full, capture_output=True, text=True, cwd=cwd, env=env)


def test_command_line(tmp_path, libs):
    """docs/fuzzing.md's commands: run (exit 0: nothing unexplained), a one-seed run of
    the fpu seed the fixed GAPOOL crash came from, classes, show, campaign and table."""
    p = _fuzz("run", "--arch", "blackhole", "--family", "fpu", "--seeds", "316:317")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "| fpu | blackhole | 1 | 1 |" in p.stdout
    p = _fuzz("classes")
    assert p.returncode == 0 and "`semwait-blockmask`" in p.stdout
    p = _fuzz("show", "--family", "sync", "--seed", "3", "--scaffold")
    assert p.returncode == 0 and "wait for turn" in p.stdout
    log = tmp_path / "c.jsonl"
    p = _fuzz("campaign", "--arch", "wormhole_b0", "--family", "cfg", "--seeds", "0:3", "--log", str(log))
    assert p.returncode == 0, p.stdout + p.stderr
    p = _fuzz("table", str(log))
    assert "| cfg | wormhole_b0 | 3 | 3 |" in p.stdout
    p = _fuzz("table", str(log), str(log))  # logs summed (one per arch, as campaigns run)
    assert "| cfg | wormhole_b0 | 6 | 6 |" in p.stdout
    p = _fuzz("run", "--family", "cfg", "--allow", "no-such-class")
    assert p.returncode != 0 and "unknown class no-such-class" in p.stderr
