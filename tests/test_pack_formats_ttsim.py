"""The unpackers' and packers' format conversions against Tenstorrent's ttsim, on
edge-case data: firmware/pack_formats (LLK-style kernel whose unpack / pack formats
and ReLU come from its parameter block) runs each configuration below on ttemu and
on ttsim, and the output tiles must be bit-identical.

Inputs are raw L1 bytes: for FP32 every special class (zeros of both signs,
infinities, quiet / signalling NaNs of both signs, denormals including the largest,
values that round up across an exponent boundary or to infinity, the largest finite
values, thresholds and their neighbours), for the 16-bit and BFP formats random bit
patterns with the specials of the format first. Where ttsim's result contradicts the
ISA page, the difference is pinned in ``test_relu_fp32_pinned`` with the page.
Skipped when ttsim cannot be built from ../shared (tests/oracle_lib.py).
"""

import pathlib

import numpy as np
import pytest

from oracle_lib import require_ttsim
from ttemu import Tile
from ttemu.cmd.oracle import cross_check

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / "firmware" / "build"
UNTIL = [(0x19FFC, 1), (0x19FF8, 1), (0x19FF4, 1)]  # the three TRISC mailboxes
IN, OUT, PARAMS = 0x20000, 0x50000, 0x64000

# Format codes (Packers/FormatConversion.md encoding) and bytes per 32x32 tile.
F = dict(f32=0, fp16=1, tf32=4, bf16=5, bfp8b=6, bfp4b=7, i32=8, u16=9, i8=14, bfp2b=15)
TILE_BYTES = {0: 4096, 4: 4096, 8: 4096, 1: 2048, 5: 2048, 9: 2048, 6: 1088, 7: 576, 15: 320, 14: 1024}

FP32_SPECIALS = [
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFBFFFFF,
    0x00000001, 0x807FFFFF, 0x00400000, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x007F8000,
    0x3F7FFFFF, 0x3F7F8000, 0x3F7F7FFF, 0x3F808000, 0x3F818000, 0x3F80FFFF, 0x477FF000, 0x477FE000,
    0x47800000, 0x387FC000, 0x38800000, 0x38000000, 0x33800000, 0x337FFFFF, 0x3F800000, 0xBF800000,
    0x40490FDB, 0xC0490FDB, 0x3F7FF000, 0x3F7FE000, 0x3F7FEFFF, 0x3F7FF001, 0x41200000, 0x41200001,
    0x41201FFF, 0x41202000, 0x41203FFF, 0x4120FFFF, 0x40A00000, 0x40A01000, 0x00012345, 0x80FFFFFF,
]
BF16_SPECIALS = [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x0001, 0x807F,
                 0x0080, 0x7F7F, 0xFF7F, 0x3F80, 0x3FFF, 0x4000, 0x4120, 0x8001]
FP16_SPECIALS = [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7FFF, 0xFFFF, 0x0001, 0x83FF,
                 0x0400, 0x7BFF, 0x7FF8, 0x7FF7, 0x3C00, 0x3FFF, 0x03FF, 0x8001]


def make_input(fmt: int, seed: int = 5) -> bytes:
    rng = np.random.default_rng(seed)
    if fmt in (0, 4):  # FP32: specials spread over the first faces, random bits and moderate values
        v = rng.integers(0, 2**32, 1024, dtype=np.uint64).astype(np.uint32)
        mid = ((rng.integers(100, 150, 1024).astype(np.uint32) << 23)
               | rng.integers(0, 2**23, 1024).astype(np.uint32)
               | (rng.integers(0, 2, 1024).astype(np.uint32) << 31))
        v[256:768] = mid[256:768]
        for i, s in enumerate(FP32_SPECIALS):
            v[i * 5 % 256] = s
        return v.tobytes()
    b = rng.integers(0, 256, TILE_BYTES[fmt], dtype=np.uint8)
    if fmt in (6, 7, 15):  # BFP: shared exponents around 1.0, plus 0, 1, 255
        b[:64] = rng.integers(100, 140, 64)
        b[:4] = [0, 1, 255, 127]
    elif fmt == 5:
        b[:32] = np.array(BF16_SPECIALS, np.uint16).view(np.uint8)
    elif fmt == 1:
        b[:32] = np.array(FP16_SPECIALS, np.uint16).view(np.uint8)
    return b.tobytes()


def run_kernel(cfg: str, relu: int = 0, data: bytes | None = None, *, flags: int = 0, old: bytes | None = None):
    """Run firmware/pack_formats for ``cfg`` = "in:unpack_out:to_dst:intermediate:out:dst32"
    (format names as in F) -> (tile, data, out region). ``flags``: params.k bits 17..20
    (Read_unsigned, Read_int8, Round_10b_mant, Pack_L1_Acc); ``old``: the output
    region's contents before the run (what L1 accumulation adds to)."""
    name = cfg.split(":")
    in_fmt, uout, inter, out = F[name[0]], F[name[1]], F[name[3]], F[name[4]]
    to_dst, dst32 = int(name[2]), int(name[5])
    x = 4 if inter in (0, 4, 8) else 1 if inter == 14 else 2  # bytes per intermediate datum (Dst strides)
    data = make_input(in_fmt) if data is None else data
    tile = Tile("wormhole_b0", record=True)
    tile.load_elf(str(BUILD / "boot" / "brisc.elf"), core="brisc")
    for core in ("trisc0", "trisc1", "trisc2"):
        tile.load_elf(str(BUILD / "pack_formats" / f"{core}.elf"), core=core)
    tile.write(IN, data)
    if old is not None:
        tile.write(OUT, old)
    params = [IN, TILE_BYTES[in_fmt] | (TILE_BYTES[out] << 16), OUT, 1,
              in_fmt | (uout << 8) | (to_dst << 16), inter | (out << 8) | (dst32 << 16) | (flags << 17) | (x << 24), relu, 0]
    for i, value in enumerate(params):
        tile.write_u32(PARAMS + 4 * i, value)
    tile.release(tile.default_release())
    result = tile.run(max_steps=5_000_000, until=UNTIL, idle_steps=2_000_000)
    assert result.exit_code == 0, f"{cfg}: ttemu {result.outcome}"
    return tile, data, ("out", OUT, TILE_BYTES[out])


@pytest.fixture(scope="module")
def lib():
    return require_ttsim("wormhole_b0")


CONFIGS = [
    # in : unpacker out : to Dst : packer intermediate : L1 out : 32-bit Dst
    "f32:f32:1:f32:f32:1",      # identity: NaN payloads, denormals, -0 kept
    "f32:f32:1:bf16:bf16:1",    # early FP32 -> BF16 rounding (ties away, NaN -> inf, flush after rounding)
    "f32:f32:1:f32:fp16:1",     # late FP32 -> FP16 (saturate, truncate; 2**-15..2**-14 warned)
    "f32:f32:1:f32:bfp8b:1",    # late FP32 -> BFP8 (shared exponents, rounding, saturation)
    "f32:f32:1:f32:bfp4b:1",
    "f32:bf16:0:bf16:bf16:0",   # unpacker FP32 -> BF16 into SrcA, MOVA2D
    "f32:fp16:0:fp16:fp16:0",   # unpacker FP32 -> FP16 (rebias, saturate, flush)
    "f32:tf32:0:f32:f32:1",     # unpacker FP32 -> TF32 into SrcA, MOVA2D to a 32-bit Dst
    "bf16:bf16:0:bf16:bfp2b:0",
    "bf16:bf16:0:bfp8b:bfp8b:0",  # early BF16 -> E8M6 rounding
    "bfp8b:bfp8b:0:bf16:bf16:0",  # unpacker BFP8 -> BF16
    "bfp4b:bfp4b:0:bf16:bf16:0",
    "fp16:fp16:0:fp16:f32:0",   # late FP16 -> FP32 (exponent 31 finite, denormals widened)
    "i32:i32:1:i32:i32:1",
    "u16:u16:0:u16:u16:0",
]


@pytest.mark.parametrize("cfg", CONFIGS)
def test_conversion_matches_ttsim(cfg, lib):
    tile, _, region = run_kernel(cfg)
    (diff,), _ = cross_check(tile, lib, [region], until=UNTIL)
    assert diff.ok, f"{cfg} differs from ttsim\n{diff.text()}"


@pytest.mark.parametrize("cfg", ["f32:f32:1:f32:f32:1", "bf16:bf16:0:bf16:bf16:0", "fp16:fp16:0:fp16:fp16:0",
                                 "f32:f32:1:bf16:bf16:1"])
def test_l1_accumulation_matches_ttsim(cfg, lib):
    """Pack_L1_Acc onto edge-case data already in L1 (L1.md leaves the arithmetic open;
    ttemu follows ttsim's packer)."""
    out = F[cfg.split(":")[4]]
    tile, _, region = run_kernel(cfg, flags=8, old=make_input(out, seed=6))
    (diff,), _ = cross_check(tile, lib, [region], until=UNTIL)
    assert diff.ok, f"{cfg} accumulated differs from ttsim\n{diff.text()}"


@pytest.mark.parametrize("cfg", ["i32:i32:1:i8:i8:1", "f32:f32:1:i8:i8:1"])
def test_int8_saturation_matches_ttsim(cfg, lib):
    """INT32 / FP32 Dst -> INT8 (shift 0, round, saturate; FormatConversion.md), and
    with Read_unsigned the UINT8 clamp."""
    for flags in (0, 1):
        tile, _, region = run_kernel(cfg, flags=flags)
        (diff,), _ = cross_check(tile, lib, [region], until=UNTIL)
        assert diff.ok, f"{cfg} flags {flags} differs from ttsim\n{diff.text()}"


# ReLU.md ReLUStage: 1 plain, 2 min threshold, 3 clamp to the threshold (BF16 / FP16 bits).
RELUS = [1, 2 | (0x3F80 << 4), 3 | (0x3F80 << 4), 3 | (0x4120 << 4), 3 | (0x7F80 << 4)]


@pytest.mark.parametrize("relu", RELUS, ids=[hex(r) for r in RELUS])
@pytest.mark.parametrize("cfg", ["bf16:bf16:0:bf16:bf16:0", "fp16:fp16:0:fp16:fp16:0", "f32:f32:1:bf16:bf16:1"])
def test_relu_matches_ttsim(cfg, relu, lib):
    tile, _, region = run_kernel(cfg, relu)
    (diff,), _ = cross_check(tile, lib, [region], until=UNTIL)
    assert diff.ok, f"{cfg} relu {relu:#x} differs from ttsim\n{diff.text()}"


# FP32 intermediate (32-bit Dst, In_data_format Float32): ttsim differs from the page.
PIN_VALUES = [0x41200001, 0x41201FFF, 0x41202000, 0x7FC00000, 0xFFC00000, 0x7F800000,
              0x3F800000, 0xBF800000, 0x41200000, 0x80000000, 0x7F800001, 0xFF800000]


def page_relu(x: np.ndarray, mode: int, thr_bf16: int) -> np.ndarray:
    """ReLU.md ReLUStage on FP32 values (C float comparisons: false for NaN); the
    threshold is BF16 bits widened to FP32; "return 0" is +0."""
    f = x.view(np.float32)
    t = np.float32(np.array([thr_bf16 << 16], np.uint32).view(np.float32)[0])
    with np.errstate(invalid="ignore"):
        le0, gt = f <= 0, f > t
        if mode == 1:
            r = np.where(le0, np.float32(0), f)
        elif mode == 2:
            r = np.where(f <= t, np.float32(0), f)
        else:
            r = np.where(le0, np.float32(0), np.where(gt, t, f))
    return r.astype(np.float32).view(np.uint32)


def ttsim_relu(x: np.ndarray, mode: int, thr_bf16: int) -> np.ndarray:
    """What ttsim's packer does with an FP32 intermediate (tensix.cpp, read for the
    facts): negative bit patterns (NaNs too) become 0, then unsigned compares of the
    bit patterns; mode 3 compares only the top 19 bits (value >> 13)."""
    t = np.uint32(thr_bf16 << 16)
    v = np.where(x >> 31, np.uint32(0), x).astype(np.uint32)
    if mode == 2:
        v = np.where(v <= t, np.uint32(0), v)
    if mode == 3:
        v = np.where((v >> 13) > (t >> 13), t, v)
    return v.astype(np.uint32)


@pytest.mark.parametrize("mode,thr", [(1, 0), (2, 0x3F80), (3, 0x4120)])
def test_relu_fp32_pinned(mode, thr, lib):
    """Pinned: ReLU.md's ReLUStage compares FP32 floats ("ReLUStage is described as
    operating on floats (FP32)"; `x > Threshold`, `x <= 0`), and ttemu follows it.
    ttsim differs on FP32 intermediates in two ways the page contradicts: mode 3
    compares only the top 19 bits, so values above the threshold by less than 2**-10
    of it pass unclamped (10.0 + 1 ulp stays), and it treats every pattern with the
    sign bit set as negative and NaNs by their bits, so -NaN becomes 0 (modes 1-3) and
    +NaN clamps to the threshold (mode 3), where the page's comparisons, false for
    NaN, return x. Elsewhere the two agree bit for bit."""
    rng = np.random.default_rng(9)
    v = ((rng.integers(120, 135, 1024).astype(np.uint32) << 23) | rng.integers(0, 2**23, 1024).astype(np.uint32)
         | (rng.integers(0, 2, 1024).astype(np.uint32) << 31))
    v[:len(PIN_VALUES)] = PIN_VALUES
    tile, data, region = run_kernel("f32:f32:1:f32:f32:1", mode | (thr << 4), v.tobytes())
    ours = np.frombuffer(tile.read(OUT, 4096), np.uint32)
    assert np.array_equal(ours, page_relu(v, mode, thr))
    _, res = cross_check(tile, lib, [region], until=UNTIL)
    theirs = np.frombuffer(res.regions[0], np.uint32)
    assert np.array_equal(theirs, ttsim_relu(v, mode, thr))
    differ = np.nonzero(ours != theirs)[0]
    assert differ.size and differ.max() < len(PIN_VALUES)  # only at the pinned values


# Configurations the packer's fast forms for 16-bit Dst rows take: the tables of the
# conversion chain (Packers._dst16_form; with TABLE_AFTER = 1 every PACR of the kernel takes
# them) and BF16 to BFP8 / BFP4 / BFP2 (bf16_rows_bfp).
TABLE_CONFIGS = ["bf16:bf16:0:bf16:bfp8b:0", "bf16:bf16:0:bfp8b:bfp8b:0", "bf16:bf16:0:bf16:bfp4b:0",
                 "bf16:bf16:0:bf16:bfp2b:0", "fp16:fp16:0:fp16:fp16:0", "fp16:fp16:0:fp16:f32:0",
                 "bf16:bf16:0:bf16:f32:0", "fp16:fp16:0:fp16:bf16:0", "u16:u16:0:u16:u16:0"]


@pytest.mark.parametrize("cfg", TABLE_CONFIGS)
def test_fast_forms_match_the_chain_and_ttsim(cfg, lib, monkeypatch):
    """The kernel's output with every PACR through a fast form equals the output with
    every PACR through the conversion chain byte for byte, and ttsim's."""
    from ttemu.tensix.units.pack import Packers
    fast = Packers._span_fast
    taken = []

    def recorded(self, *args):
        done = fast(self, *args)
        taken.append(done)
        return done

    monkeypatch.setattr(Packers, "_span_fast", lambda self, *args: False)
    tile, _, (_, addr, size) = run_kernel(cfg)
    chain = tile.read(addr, size)
    hist = tile.tensix.pack.exponent_histogram.copy(), tile.tensix.pack.exponent_histogram_max.copy()
    monkeypatch.setattr(Packers, "_span_fast", recorded)
    monkeypatch.setattr(Packers, "TABLE_AFTER", 1)
    tile, _, region = run_kernel(cfg)
    assert taken and all(taken), "a PACR took the chain"
    assert tile.read(addr, size) == chain
    assert np.array_equal(tile.tensix.pack.exponent_histogram, hist[0])
    assert np.array_equal(tile.tensix.pack.exponent_histogram_max, hist[1]) and hist[1].any()
    (diff,), _ = cross_check(tile, lib, [region], until=UNTIL)
    assert diff.ok, f"{cfg} differs from ttsim\n{diff.text()}"
