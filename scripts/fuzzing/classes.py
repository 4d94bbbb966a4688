"""Known ttemu / ttsim differences, by name.

Each class names the *feature* of a program that shows it: generators tag the groups
they emit (``Program.group_features``) or the whole program (``Program.tags``). A
class is *kept out* unless allowed (``--allow NAME``): the generators do not emit its
feature, so a campaign sees past it. A minimised difference whose kept features include
a class's feature is that class; anything else is a new class, named by the
instructions the minimised program keeps (:func:`signature`).

The table below is the source of docs/ttsim-differences.md's fuzzer rows (every class
with its page and resolution); tests/test_fuzz.py checks they agree.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    name: str
    arches: tuple
    what: str
    page: str
    resolution: str
    kept_out: bool = True  # the generators leave the feature out unless allowed
    resolved: bool = False  # fixed in ttemu: no longer kept out, and a difference showing it is new


WH, BH = "wormhole_b0", "blackhole"

KNOWN = [
    Known("wh-mad-family", (WH,),
          "Wormhole multiply-add family (SFPMAD/ADD/MUL/ADDI/MULI/LUT/LUTFP32): the last bit of finite "
          "results, NaN payloads",
          "SFPMAD.md (product kept in higher precision than FP32, not fully fused)",
          "fixed (d3a3004: the page's bit-perfect model, Miscellaneous/FMA fma_model_wh)", resolved=True),
    Known("sfplz-vc-eq-vd", (WH, BH),
          "SFPLZ with a flag update (Mod1 & 2) and VC == VD: flags taken from the result, not the input",
          "SFPLZ.md", "fixed (8f973c2: VC read before VD is written)", resolved=True),
    Known("lreg12-reset", (WH, BH),
          "LReg[12] read before any SFPCONFIG writes it: 1/65536 (ttemu) vs 0x3b000000 (ttsim)",
          "SoftReset.md (LReg[12] = 1.0/65536 on leaving reset)",
          "pinned to the page (tests/test_sfpu_ttsim.py)"),
    Known("reset-unconditional", (WH, BH),
          "Vector Unit predication after reset: unconditional (ttemu) vs condition codes enabled (ttsim)",
          "SoftReset.md (conditional execution mode set to unconditional)",
          "pinned to the page (tests/test_sfpu_ttsim.py)"),
    Known("sfpstore-fp32-denormal", (WH,),
          "Wormhole SFPSTORE MOD0_FMT_FP32 of a denormal: kept (ttemu) vs flushed to zero (ttsim)",
          "SFPSTORE.md (Wormhole: no flush)", "pinned to the page (tests/test_sfpu_ttsim.py)"),
    Known("dst16-view-of-dst32-write", (WH, BH),
          "SFPLOAD of a 16-bit view of a Dst row written as 32-bit after ZEROACC: both halves written "
          "(ttemu) vs zero low half (ttsim)",
          "Dst.md (a 32-bit write writes both DstBits rows)", "pinned to the page (tests/test_sfpu_ttsim.py)"),
    Known("dst-undefined-halves", (WH, BH),
          "Dst16b rows written (MOVA2D / MOVB2D of 16-bit data, ZEROACC of 16 Dst16b rows) in a program "
          "that reads Dst32b, after ZEROACC: each DstBits row keeps its own value or reads as zero (ttemu) "
          "vs the 32-bit datum's validity taken from its high row alone, and the storage kept (ttsim)",
          "ZEROACC.md (undefined rows read as zero by packers), Dst.md (a Dst32b datum is two DstBits rows)",
          "pinned to the pages (tests/test_fuzz.py)"),
    Known("fpu-mixed-src-styles", (WH, BH),
          "Matrix Unit with SrcA and SrcB in different styles (BF16 and TF32): both read in SrcA's style "
          "(ttemu) vs each in its own format (ttsim keeps SrcB's TF32 mantissa bits)",
          "ELWADD.md, ELWMUL.md, MVMUL.md (SrcAStyle, from SrcA's format, reads both operands)",
          "pinned to the pages (tests/test_fuzz.py)"),
    Known("relu-fp32", (WH, BH),
          "Packer ReLU with an FP32 intermediate: compares full FP32 values (ttemu) vs the top 19 bits, "
          "NaNs changed (ttsim)",
          "Packers/ReLU.md (ReLUStage compares FP32 values)", "pinned (tests/test_pack_formats_ttsim.py)"),
    Known("relu-nan-threshold", (WH, BH),
          "Packer ReLU mode 2 / 3 with a BF16 NaN threshold (0x7f81..0x7fff) on a BF16 intermediate: "
          "x <= NaN is false, every datum passes (ttemu) vs bit patterns compared, every datum <= the "
          "threshold, written as 0 (ttsim)",
          "Packers/ReLU.md (Threshold = ParseBF16(ReluThreshold); ReLUStage compares floats)",
          "pinned to the page (tests/test_fuzz.py)"),
    Known("cfg-undefined-bits", (WH, BH),
          "Config bits outside every field: kept and read back (ttemu) vs dropped on write (ttsim keeps "
          "only its CFG<i>_REG_MASK bits)",
          "BackendConfiguration.md, WRCFG.md, RMWCIB.md: Config is uint32_t words, written and read whole",
          "pinned to the pages (tests/test_fuzz.py)"),
    Known("semwait-blockmask", (WH, BH),
          "SEMWAIT / STALLWAIT block mask: only the selected units' instructions wait (ttemu) vs the whole "
          "thread stops at the wait (ttsim: 'stall_res ignored for now')",
          "SEMWAIT.md, STALLWAIT.md (Block mask: B1 blocks new Sync Unit instructions only)",
          "pinned to the pages (tests/test_fuzz.py)"),
    Known("unpack-context-adc", (WH, BH),
          "UNPACR in MultiContextMode from thread T1 / T2: X counters from ADCs[ContextADC] (thread 0's) "
          "(ttemu) vs the issuing thread's (ttsim)",
          "UNPACR_Regular.md (WhichADC = ContextADC in MultiContextMode)",
          "pinned to the page (tests/test_fuzz.py); the generators unpack from T0"),
    Known("stochrnd-prng-advance", (WH,),
          "Wormhole SFP_STOCH_RND without stochastic rounding leaves the PRNG alone (ttemu) vs advances it "
          "(ttsim: 'always step PRNG, even if unused'); a later SFPMOV from the PRNG shows it",
          "SFPSTOCHRND_FloatFloat.md, _FloatInt.md, _IntInt.md (AdvancePRNG() only when StochasticRounding)",
          "pinned to the pages (tests/test_fuzz.py)"),
    Known("sfpabs-float-minus-inf", (WH, BH),
          "SFPABS float mode (Mod1 1) of -Inf: -Inf kept (ttemu) vs +Inf (ttsim)",
          "SFPABS.md: its code says >= 0xff800000 (ttemu), its comment says -NaN (ttsim)",
          "unresolved: the page contradicts itself (tests/test_sfpu_ttsim.py)", kept_out=False),
]

BY_NAME = {k.name: k for k in KNOWN}


def kept_out(allow) -> frozenset:
    """The names whose features generators must not emit."""
    return frozenset(k.name for k in KNOWN if k.kept_out and not k.resolved and k.name not in allow)


def classify(program) -> tuple:
    """(class name, known?) of a minimised differing program."""
    feats = program.features()
    for k in KNOWN:
        if k.name in feats and program.arch in k.arches and not k.resolved:
            return k.name, True
    return signature(program), False


def signature(program) -> str:
    """A new class's name: the family and the sorted distinct group kinds kept."""
    kinds = sorted({program.groups[g] for g in program.kept_groups})
    return f"{program.family}:" + "+".join(kinds) if kinds else f"{program.family}:scaffolding"
