"""Blackhole Vector Unit against ttsim's Blackhole model, bit for bit.

A BRISC program (tests/bh_prog.py) pushes Tensix words to thread 0: it fills LReg[0..2]
lane by lane with FP32 patterns (random, and the edge cases: +-0, +-Inf, NaNs,
denormals, the extremes), runs SFP* instructions on them, SFPSTOREs each result to its
own four Dst32 rows and column parity, and packs the FP32 tile to L1 (PACR, as
tt-llk's Blackhole pack MOP does). ttemu and ttsim run the same tile; L1 must agree.
Only instruction forms ttsim's Blackhole model accepts are used (it refuses, e.g.,
stochastic rounding, SFPCAST Mod1 1 / 2, SFPSTOCHRND RoundingMode != 0).
"""

import numpy as np
import pytest

import bh_prog
from oracle_lib import require_ttsim
from test_bh_pack import FP32, OUT, pack_cfg, pack_tile_insns
from ttemu.cmd.oracle import cross_check
from ttemu.tensix.units.sfpu.fma import fma_bh

SPECIALS = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00123, 0x00000001, 0x807FFFFF,
            0x7F7FFFFF, 0xFF7FFFFF, 0x00800000, 0x3F800000, 0xBF800000, 0x3F7FFFFF]


@pytest.fixture(scope="module")
def lib():
    return require_ttsim("blackhole")


def _inputs(seed):
    """Three LReg vectors: random FP32 in a moderate exponent range, with the specials
    spread over the lanes (different lanes for each register)."""
    rng = np.random.default_rng(seed)
    regs = []
    for r in range(3):
        v = (rng.integers(0, 2, 32).astype(np.uint32) << 31) | (rng.integers(110, 145, 32).astype(np.uint32) << 23) \
            | rng.integers(0, 1 << 23, 32).astype(np.uint32)
        lanes = rng.choice(32, len(SPECIALS) // 2, replace=False)
        v[lanes] = rng.choice(SPECIALS, lanes.size)
        regs.append(v)
    regs[1][0] = regs[0][0] ^ 0x80000000  # exact cancellation in one lane
    regs[2][0] = 0x80000000
    return regs


def _fill(regs):
    """Tensix words writing ``regs[i]`` to LReg[i], one lane at a time (lane k enabled
    alone by LaneFlags = (LReg[15] - 2k == 0))."""
    out = []
    for lane in range(32):
        out += [("SFPENCC", dict(instr_mod1=10, lreg_dest=0, lreg_c=0, imm12_math=3)),  # enable, all flags set
                ("SFPIADD", dict(instr_mod1=5, lreg_dest=7, lreg_c=15, imm12_math=(-2 * lane) & 0xFFF)),
                ("SFPSETCC", dict(instr_mod1=6, lreg_dest=0, lreg_c=7, imm12_math=0))]
        for r, v in enumerate(regs):
            out += [("SFPLOADI", dict(lreg_ind=r, instr_mod0=8, imm16=int(v[lane]) >> 16)),
                    ("SFPLOADI", dict(lreg_ind=r, instr_mod0=10, imm16=int(v[lane]) & 0xFFFF))]
    out.append(("SFPENCC", dict(instr_mod1=10, lreg_dest=0, lreg_c=0, imm12_math=0)))  # all lanes, unconditional
    return out


def _mov(dst, src):
    return ("SFPMOV", dict(instr_mod1=0, lreg_dest=dst, lreg_c=src, imm12_math=0))


def _store(slot, reg=3, mod0=4):
    """SFPSTORE LReg[reg] to result slot ``slot`` (0..31): rows 4 * (slot // 2), odd
    columns for odd slots."""
    return ("SFPSTORE", dict(lreg_ind=reg, instr_mod0=mod0, sfpu_addr_mode=0,
                             dest_reg_addr=4 * (slot // 2) + 2 * (slot & 1)))


def _mad(m, a, b, c, mod=0, d=3):
    return (m, dict(lreg_src_a=a, lreg_src_b=b, lreg_src_c=c, lreg_dest=d, instr_mod1=mod))


def _simple(m, c, mod=0, imm=0, d=3):
    return (m, dict(lreg_c=c, lreg_dest=d, instr_mod1=mod, imm12_math=imm))


# Each entry: the instructions leaving a result in LReg[3] (or the register named), stored
# with SFPSTORE MOD0_FMT_INT32 (raw bits) unless given.
SEQUENCES = [
    [_mad("SFPMAD", 0, 1, 2, 0)],
    [_mad("SFPMAD", 0, 1, 2, 1)],  # NEGATE_VB
    [_mad("SFPMAD", 0, 1, 2, 2)],  # NEGATE_VC
    [_mad("SFPMAD", 1, 2, 0, 3)],
    [_mad("SFPADD", 10, 0, 1, 0)],
    [_mad("SFPADD", 10, 1, 2, 2)],
    [_mad("SFPMUL", 0, 2, 9, 0)],
    [_mad("SFPMUL", 1, 0, 9, 1)],
    [_mov(3, 0), ("SFPMULI", dict(instr_mod1=0, lreg_dest=3, imm16_math=0x3FC0))],
    [_mov(3, 1), ("SFPADDI", dict(instr_mod1=0, lreg_dest=3, imm16_math=0xC080))],
    [_mad("SFPMUL24", 0, 1, 9, 0)],
    [_mad("SFPMUL24", 1, 2, 9, 1)],
    [_simple("SFPARECIP", 0)],
    [_simple("SFPARECIP", 2)],
    [_mov(3, 0), _simple("SFPSHFT", 1, mod=2, d=3)],  # arithmetic by LReg[1]
    [_mov(3, 2), _simple("SFPSHFT", 0, mod=1 | 2, imm=0xFFB, d=3)],  # arithmetic right by 5
    [_mov(3, 1), _simple("SFPSHFT", 0, mod=1, imm=7, d=3)],
    [_simple("SFPAND", 1, mod=1, imm=2)],  # USE_VB: LReg[2] & LReg[1]
    [_simple("SFPOR", 0, mod=1, imm=1)],
    [("SFPCAST", dict(lreg_src_c=0, lreg_dest=3, instr_mod1=3))],  # two's complement -> sign-magnitude
    [("SFPCAST", dict(lreg_src_c=2, lreg_dest=3, instr_mod1=0))],
    [("SFP_STOCH_RND", dict(rnd_mode=0, imm8_math=0, lreg_src_b=0, lreg_src_c=0, lreg_dest=3, instr_mod1=1))],
    [("SFP_STOCH_RND", dict(rnd_mode=0, imm8_math=0, lreg_src_b=2, lreg_src_c=2, lreg_dest=3, instr_mod1=7))],
    [("SFPSHFT2", dict(instr_mod1=5, lreg_dest=3, lreg_src_c=1, imm12_math=0))],  # LReg[0] shifted by LReg[1]
    [("SFPSHFT2", dict(instr_mod1=4, lreg_dest=3, lreg_src_c=2, imm12_math=0))],  # SHFLSHR1 (fixed on BH)
    [_mov(3, 2), ("SFPLUTFP32", dict(lreg_dest=7, instr_mod1=2)), _mov(3, 7)],
    [_mov(3, 0), _mov(4, 1), ("SFPSWAP", dict(instr_mod1=1, lreg_dest=3, lreg_src_c=4, imm12_math=0))],
    [_mov(3, 0), _simple("SFPGT", 1, mod=8, d=3)],
    [_mov(3, 2), _simple("SFPLE", 0, mod=8, d=3)],
    [_mad("SFPMAD", 0, 1, 2, 0), ("SFPSTORE", dict(lreg_ind=3, instr_mod0=3, sfpu_addr_mode=0, dest_reg_addr=124)),
     ("SFPLOAD", dict(lreg_ind=3, instr_mod0=3, sfpu_addr_mode=0, dest_reg_addr=124))],  # FP32: denormals flushed
    [_mov(3, 0), ("SFPSTORE", dict(lreg_ind=3, instr_mod0=12, sfpu_addr_mode=0, dest_reg_addr=124)),
     ("SFPLOAD", dict(lreg_ind=3, instr_mod0=12, sfpu_addr_mode=0, dest_reg_addr=124))],  # INT32_SM: no conversion
]


def _program(seed):
    regs = _inputs(seed)
    insns = [("ZEROACC", dict(clear_mode=3, use_32_bit_mode=1))] + _fill(regs)
    for slot, seq in enumerate(SEQUENCES):
        insns += seq + [_store(slot)]
    return regs, insns + pack_tile_insns()


@pytest.mark.parametrize("seed", [1, 2])
def test_sfpu_sequences_bit_identical_to_ttsim(lib, seed):
    regs, insns = _program(seed)
    nbytes = 4096
    tile = bh_prog.run(pack_cfg(FP32, FP32, True), insns, l1={OUT: bytes(nbytes)}, max_steps=400_000)
    diffs, res = cross_check(tile, lib, [("out", OUT, nbytes)], until=bh_prog.DONE)
    assert diffs[0].ok, diffs[0].text()
    # and the first result is the page's multiply-add of the inputs (not, say, all zeros)
    out = np.frombuffer(tile.read(OUT, nbytes), "<u4").reshape(4, 16, 16)  # faces of 16 rows
    rows = np.concatenate([out[0], out[1], out[2], out[3]])
    slot0 = rows[0:4, 0::2].ravel()
    want = fma_bh(regs[0], regs[1], regs[2])
    finite = (want & 0x7F800000) != 0x7F800000
    assert np.array_equal(slot0[finite], want[finite])


BF16 = 5

# 16-bit Dst: SFPSTORE's 16-bit conversions (each stored to its own slot), loads back
SEQUENCES_16 = [
    [_mov(3, 0), ("SFPSTORE", dict(lreg_ind=3, instr_mod0=2, sfpu_addr_mode=0, dest_reg_addr=0))],  # BF16
    [_mov(3, 1), ("SFPSTORE", dict(lreg_ind=3, instr_mod0=2, sfpu_addr_mode=0, dest_reg_addr=2))],
    [_mov(3, 2), ("SFPSTORE", dict(lreg_ind=3, instr_mod0=6, sfpu_addr_mode=0, dest_reg_addr=4))],  # UINT16
    [_mov(3, 0), ("SFPSTORE", dict(lreg_ind=3, instr_mod0=15, sfpu_addr_mode=0, dest_reg_addr=6))],  # HI16_ONLY
    [_mov(3, 1), ("SFPSTORE", dict(lreg_ind=3, instr_mod0=14, sfpu_addr_mode=0, dest_reg_addr=8))],  # LO16_ONLY
    # BF16 load of what was stored, through the multiply-add, stored as BF16 again
    [("SFPLOAD", dict(lreg_ind=4, instr_mod0=2, sfpu_addr_mode=0, dest_reg_addr=0)),
     ("SFPLOAD", dict(lreg_ind=5, instr_mod0=2, sfpu_addr_mode=0, dest_reg_addr=2)),
     _mad("SFPMAD", 4, 5, 2, 0, d=6),
     ("SFPSTORE", dict(lreg_ind=6, instr_mod0=2, sfpu_addr_mode=0, dest_reg_addr=10))],
    # UINT16 / HI16_ONLY / LO16_ONLY loads into a register holding other bits
    [_mov(6, 2), ("SFPLOAD", dict(lreg_ind=6, instr_mod0=15, sfpu_addr_mode=0, dest_reg_addr=4)),
     ("SFPSTORE", dict(lreg_ind=6, instr_mod0=6, sfpu_addr_mode=0, dest_reg_addr=12))],
    [("SFPLOAD", dict(lreg_ind=6, instr_mod0=6, sfpu_addr_mode=0, dest_reg_addr=6)),
     _simple("SFPSHFT", 0, mod=1, imm=0xFF8, d=6),  # >> 8
     ("SFPSTORE", dict(lreg_ind=6, instr_mod0=6, sfpu_addr_mode=0, dest_reg_addr=14))],
]


@pytest.mark.parametrize("seed", [3])
def test_sfpu_16bit_dst_bit_identical_to_ttsim(lib, seed):
    """SFPSTORE's BF16 / UINT16 / HI16_ONLY / LO16_ONLY conversions into a 16-bit Dst, and
    SFPLOAD's BF16 / UINT16 / HI16_ONLY back, packed as BF16: L1 matches ttsim's."""
    regs = _inputs(seed)
    insns = [("ZEROACC", dict(clear_mode=3, use_32_bit_mode=0))] + _fill(regs)
    for seq in SEQUENCES_16:
        insns += seq
    insns += pack_tile_insns()
    nbytes = 2048
    tile = bh_prog.run(pack_cfg(BF16, BF16, False), insns, l1={OUT: bytes(nbytes)}, max_steps=400_000)
    diffs, res = cross_check(tile, lib, [("out", OUT, nbytes)], until=bh_prog.DONE)
    assert diffs[0].ok, diffs[0].text()
    out = np.frombuffer(tile.read(OUT, nbytes), "<u2")
    x = regs[0][:8]
    want = np.where((x & 0x7F800000) == 0, x & 0x80000000, x) >> 16  # ToBF16: flush, truncate
    finite = (x & 0x7F800000) != 0x7F800000
    assert np.array_equal(out[0:16:2][finite], want[finite].astype(np.uint16))  # row 0, even columns
