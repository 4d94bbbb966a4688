"""Blackhole Vector Unit, the non-MAD pages that differ from Wormhole (BlackholeA0
SFPLOAD.md, SFPSTORE.md, Dst.md, SFPAND/SFPOR.md, SFPSHFT.md, SFPSHFT2.md, SFPCAST*.md,
SFPSTOCHRND_*.md, SFPPUSHC.md, SFPPOPC.md, SFPARECIP.md): each against a Python model
written from its page, or the page's own figures."""

import numpy as np
import pytest

from tensix_harness import make
from ttemu.tensix.formats import layout as FL

LANE = np.arange(32)


def _bh():
    tile, issue = make("blackhole")
    return tile, issue, tile.tensix.sfpu


def _thread_cfg(tile, thread, name, value):
    cfg = tile.tensix.config
    index, shift, width = cfg.thread_fields[name]
    word = int(cfg.thread_cfg[thread, index]) & ~(((1 << width) - 1) << shift)
    cfg.thread_set_word(thread, index, word | (value << shift))


# -- SFPLOAD / SFPSTORE ---------------------------------------------------------------------
def test_load_store_round_trip_fp32_and_denormal_flush():
    """SFPSTORE MOD0_FMT_FP32 (BlackholeA0) flushes denormals to signed zero (``ToFP32``);
    SFPLOAD MOD0_FMT_FP32 reads Dst32b back (UnshuffleFP32): even columns of four rows."""
    tile, issue, u = _bh()
    vals = np.array([0x3F800000, 0x00000001, 0x807FFFFF, 0x7FC00000] * 8, dtype=np.uint32)
    vals[8:] = np.arange(24, dtype=np.uint32) * 0x01234567
    u.lreg[1] = vals
    issue(0, "SFPSTORE", lreg_ind=1, instr_mod0=3, sfpu_addr_mode=0, dest_reg_addr=8)
    dst = tile.tensix.dst.read32(8, 4)  # rows 8..11, Dst32b layout
    flushed = np.where((vals & 0x7F800000) == 0, vals & 0x80000000, vals).astype(np.uint32)
    assert np.array_equal(FL.dst32_to_fp32(dst[:, 0::2].ravel()), flushed)
    issue(0, "SFPLOAD", lreg_ind=2, instr_mod0=3, sfpu_addr_mode=0, dest_reg_addr=8)
    assert np.array_equal(u.lreg[2], flushed)
    issue(0, "SFPLOAD", lreg_ind=3, instr_mod0=3, sfpu_addr_mode=0, dest_reg_addr=10)  # odd columns
    assert np.all(u.lreg[3] == 0)


@pytest.mark.parametrize("mod0,stored,loaded", [
    (5, 0x8000_00FF, 0x8000_00FF),  # INT8: eight magnitude bits (Wormhole: seven)
    (12, 0xFFFF_FFFE, 0xFFFF_FFFE),  # INT32_SM: no two's complement conversion any more
    (13, 0x8000_0123, 0x8000_0123),  # INT8_COMP: sign-magnitude, ten bits
    (4, 0x8765_4321, 0x8765_4321),  # INT32: the bits
])
def test_integer_modes(mod0, stored, loaded):
    tile, issue, u = _bh()
    u.lreg[1][:] = stored
    issue(0, "SFPSTORE", lreg_ind=1, instr_mod0=mod0, sfpu_addr_mode=0, dest_reg_addr=0)
    issue(0, "SFPLOAD", lreg_ind=2, instr_mod0=mod0, sfpu_addr_mode=0, dest_reg_addr=0)
    assert np.all(u.lreg[2] == loaded)


def test_int8_load_reads_nine_bit_sign_magnitude():
    """SignMag9ToSignMag32: sign bit 15, magnitude bits 12:5 (two more ignored above)."""
    tile, issue, u = _bh()
    tile.tensix.dst.bits[0:4, :] = (1 << 15) | (0x3FF << 5) | 0x1F
    issue(0, "SFPLOAD", lreg_ind=0, instr_mod0=5, sfpu_addr_mode=0, dest_reg_addr=0)
    assert np.all(u.lreg[0] == 0x800000FF)


def test_dst_remap_and_swizzle():
    """Dst.md (BlackholeA0): Adj16 with DEST_ACCESS_CFG_remap_addrs and Adj32 with
    swizzle_32b permute rows; a store and a load agree, and land on the page's rows."""
    tile, issue, u = _bh()
    cfg = tile.tensix.config
    cfg.set("DEST_ACCESS_CFG_remap_addrs", 1)
    cfg.set("DEST_ACCESS_CFG_swizzle_32b", 1)
    u.lreg[1] = (LANE + 1).astype(np.uint32)
    issue(0, "SFPSTORE", lreg_ind=1, instr_mod0=6, sfpu_addr_mode=0, dest_reg_addr=8)  # UINT16 -> Dst16b

    def adj16(r):
        return (r & 0x3C7) ^ ((r & 0x030) >> 1) ^ ((r & 0x008) << 2)
    for lane in range(32):
        row, col = adj16(8 + lane // 8), (lane & 7) * 2
        assert tile.tensix.dst.bits[row, col] == lane + 1, lane
    assert int(tile.tensix.dst.bits[8:12].astype(np.int64).sum()) != 32 * 33 // 2  # not the plain rows
    u.lreg[2][:] = 0xABCD0000
    issue(0, "SFPLOAD", lreg_ind=2, instr_mod0=6, sfpu_addr_mode=0, dest_reg_addr=8)  # UINT16: zero-extend
    assert np.array_equal(u.lreg[2], (LANE + 1).astype(np.uint32))
    u.lreg[3] = (LANE * 0x01010101 + 0x3F000000).astype(np.uint32)
    issue(0, "SFPSTORE", lreg_ind=3, instr_mod0=4, sfpu_addr_mode=0, dest_reg_addr=16)

    def adj32(r):
        r = adj16(r)
        r = (r & 0x3F3) ^ ((r & 0x018) >> 1) ^ ((r & 0x004) << 1)
        return ((r & 0x1F8) << 1) | (r & 0x207)
    for lane in range(32):
        row, col = adj32(16 + lane // 8), (lane & 7) * 2
        hi, lo = int(tile.tensix.dst.bits[row, col]), int(tile.tensix.dst.bits[row + 8, col])
        assert FL.dst32_to_fp32(np.array([(hi << 16) | lo], np.uint32))[0] == u.lreg[3][lane]
    issue(0, "SFPLOAD", lreg_ind=4, instr_mod0=4, sfpu_addr_mode=0, dest_reg_addr=16)
    assert np.array_equal(u.lreg[4], u.lreg[3])


def test_int32_all_addressing_uses_the_sp_rwc():
    """MOD0_FMT_INT32_ALL (BlackholeA0): Addr = Imm10 + SpOffset + (DstOffset & 3); SFPSTORE
    then steps RWC Sp up by SFPU_STACK_Incr, SFPLOAD steps it down first (when non-zero);
    every lane is written whatever the lane enables."""
    tile, issue, u = _bh()
    _thread_cfg(tile, 0, "SFPU_STACK_Incr", 4)
    tile.tensix.config.set("DEST_SP_BASE_Base", 16)
    rwc = tile.tensix.rwcs.rwc[0]
    rwc.Dst = 64  # ignored but for its low two bits
    u.use_flags[:] = True
    u.flags[:] = False  # every lane disabled
    u.lreg[1][:] = 0x11111111
    issue(0, "SFPSTORE", lreg_ind=1, instr_mod0=10, sfpu_addr_mode=0, dest_reg_addr=0)
    assert rwc.Sp == 4
    u.lreg[1][:] = 0x22222222
    issue(0, "SFPSTORE", lreg_ind=1, instr_mod0=10, sfpu_addr_mode=0, dest_reg_addr=0)
    assert rwc.Sp == 8
    assert np.all(FL.dst32_to_fp32(tile.tensix.dst.read32(16, 4)[:, 0::2].ravel()) == 0x11111111)
    assert np.all(FL.dst32_to_fp32(tile.tensix.dst.read32(20, 4)[:, 0::2].ravel()) == 0x22222222)
    issue(0, "SFPLOAD", lreg_ind=2, instr_mod0=10, sfpu_addr_mode=0, dest_reg_addr=0)  # Sp 8 -> 4: row 20
    assert rwc.Sp == 4 and np.all(u.lreg[2] == 0x22222222)
    # other modes: Addr = Imm10 + DstOffset + (SpOffset & 3)
    u.flags[:] = True
    rwc.Sp = 2  # SpOffset 18: & 3 = 2 -> odd columns
    rwc.Dst = 20
    issue(0, "SFPLOAD", lreg_ind=3, instr_mod0=4, sfpu_addr_mode=0, dest_reg_addr=0)
    assert np.array_equal(u.lreg[3], FL.dst32_to_fp32(tile.tensix.dst.read32(20, 4)[:, 1::2].ravel()))


def test_three_bit_addr_mod_moves_dst_rwc():
    """AddrMod is three bits on Blackhole (SFPLOAD.md encoding): slot 5 applies
    ADDR_MOD_DST_SEC5 (ApplyPartialAddrMod)."""
    tile, issue, u = _bh()
    _thread_cfg(tile, 0, "ADDR_MOD_DST_SEC5_DestIncr", 4)
    issue(0, "SFPLOAD", lreg_ind=0, instr_mod0=3, sfpu_addr_mode=5, dest_reg_addr=0)
    issue(0, "SFPSTORE", lreg_ind=0, instr_mod0=3, sfpu_addr_mode=5, dest_reg_addr=0)
    assert tile.tensix.rwcs.rwc[0].Dst == 8


# -- simple sub-unit -------------------------------------------------------------------------
@pytest.mark.parametrize("mnemonic,fn", [("SFPAND", np.bitwise_and), ("SFPOR", np.bitwise_or)])
def test_and_or_use_vb(mnemonic, fn):
    """SFPAND.md / SFPOR.md (BlackholeA0): USE_VB (Mod1 1) takes VB from bits 15:12."""
    tile, issue, u = _bh()
    rng = np.random.default_rng(5)
    for r in (1, 2, 3):
        u.lreg[r] = rng.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    l1, l2, l3 = u.lreg[1].copy(), u.lreg[2].copy(), u.lreg[3].copy()
    issue(0, mnemonic, lreg_dest=1, lreg_c=2, imm12_math=3, instr_mod1=1)
    assert np.array_equal(u.lreg[1], fn(l3, l2))
    issue(0, mnemonic, lreg_dest=3, lreg_c=2, imm12_math=0, instr_mod1=0)  # VB = VD
    assert np.array_equal(u.lreg[3], fn(l3, l2))
    del l1


def test_sfpshft_modes():
    """SFPSHFT.md (BlackholeA0): logical left/right by LReg[VC] or Imm12; ARITHMETIC (2)
    shifts right keeping the sign; ARG_IMM_USE_VC (4, with ARG_IMM) shifts LReg[VC]."""
    tile, issue, u = _bh()
    x = np.array([0x80000010, 0x7FFFFFFF, 0xF0F0F0F0, 1] * 8, dtype=np.uint32)
    amt = np.array([-4, 3, -31, 31] * 8, dtype=np.int32)
    u.lreg[1], u.lreg[2] = x, amt.view(np.uint32)

    def ref(v, a, arith):
        v, a = int(v), int(a)
        if a >= 0:
            return (v << (a & 31)) & 0xFFFFFFFF
        s = (-a) & 31
        return ((v - (1 << 32) if v >> 31 else v) >> s) & 0xFFFFFFFF if arith else v >> s
    for mod in (0, 2):
        u.lreg[3] = x
        issue(0, "SFPSHFT", lreg_dest=3, lreg_c=2, imm12_math=0, instr_mod1=mod)
        assert list(u.lreg[3]) == [ref(v, a, mod == 2) for v, a in zip(x, amt)]
    issue(0, "SFPSHFT", lreg_dest=4, lreg_c=1, imm12_math=0xFFC, instr_mod1=1 | 2 | 4)  # LReg[1] >> 4 arithmetic
    assert list(u.lreg[4]) == [ref(v, -4, True) for v in x]


def test_sfpshft2_shflshr1_fills_zero():
    """SFPSHFT2.md (BlackholeA0) fixes SUBVEC_SHFLSHR1: lane 0 of each group of eight gets 0."""
    tile, issue, u = _bh()
    u.lreg[1] = (LANE + 100).astype(np.uint32)
    issue(0, "SFPSHFT2", lreg_dest=2, lreg_src_c=1, imm12_math=0, instr_mod1=4)
    want = np.where(LANE & 7, LANE + 99, 0)
    assert np.array_equal(u.lreg[2], want.astype(np.uint32))


def test_sfpcast_int_modes():
    """SFPCAST_IntAbs.md (Mod1 2): two's complement |x|, -2**31 stays; SFPCAST_IntInt.md
    (Mod1 3): two's complement -> sign-magnitude; Mod1 0: Wormhole's SM32 -> FP32."""
    tile, issue, u = _bh()
    v = np.array([5, -5, 0, -(2**31), 2**31 - 1, -1] * 5 + [7, -7], dtype=np.int64)
    u.lreg[1] = (v & 0xFFFFFFFF).astype(np.uint32)
    issue(0, "SFPCAST", lreg_src_c=1, lreg_dest=2, instr_mod1=2)
    assert list(u.lreg[2]) == [(abs(int(x)) & 0xFFFFFFFF) if x != -(2**31) else 0x80000000 for x in v]
    issue(0, "SFPCAST", lreg_src_c=1, lreg_dest=3, instr_mod1=3)
    assert list(u.lreg[3]) == [(0x80000000 | (-int(x) & 0xFFFFFFFF)) & 0xFFFFFFFF if x < 0 else int(x) for x in v]
    u.lreg[4] = np.where(v < 0, 0x80000000 | np.abs(v), v).astype(np.uint32)
    issue(0, "SFPCAST", lreg_src_c=4, lreg_dest=5, instr_mod1=0)
    assert np.array_equal(u.lreg[5][v != -(2**31)], v[v != -(2**31)].astype(np.float32).view(np.uint32))


def test_sfparecip_page_figures():
    """SFPARECIP.md: ApproxRecip(1.0) = 0.99609375, ApproxExp(1.0) = 2.703125, and for
    2**-126 <= x < 2**126, 0.9944/x < ApproxRecip(x) < 1.0054/x (sign rejoined); for
    0 <= x < 2, 0.9922 e**x < ApproxExp(x) < 1.016 e**x; COND_RECIP (Mod1 1) only where
    LReg[VB] < 0, dropping the sign."""
    tile, issue, u = _bh()
    rng = np.random.default_rng(11)
    x = np.exp2(rng.uniform(-125.9, 125.9, 32)).astype(np.float32) * np.where(LANE % 2, -1, 1).astype(np.float32)
    x[0] = 1.0
    u.lreg[1] = x.view(np.uint32)
    issue(0, "SFPARECIP", lreg_c=1, lreg_dest=2, imm12_math=0, instr_mod1=0)
    r = u.lreg[2].view(np.float32).astype(np.float64)
    assert r[0] == 0.99609375
    ratio = r * x.astype(np.float64)
    assert np.all((ratio > 0.9944) & (ratio < 1.0054))
    e = np.linspace(0, 1.999, 32).astype(np.float32)
    e[0] = 1.0
    u.lreg[3] = e.view(np.uint32)
    issue(0, "SFPARECIP", lreg_c=3, lreg_dest=4, imm12_math=0, instr_mod1=2)
    got = u.lreg[4].view(np.float32).astype(np.float64)
    assert got[0] == 2.703125
    ratio = got / np.exp(e.astype(np.float64))
    assert np.all((ratio > 0.9922) & (ratio < 1.016))
    u.lreg[5] = np.where(LANE < 16, 0xFFFFFFFF, 1).astype(np.uint32)  # VB: negative in lanes 0..15
    issue(0, "SFPARECIP", lreg_c=1, lreg_dest=6, imm12_math=5, instr_mod1=1)
    lo = LANE < 16
    assert np.array_equal(u.lreg[6][~lo], u.lreg[1][~lo])
    assert np.array_equal(u.lreg[6][lo], u.lreg[2][lo] & 0x7FFFFFFF)


# -- round sub-unit -------------------------------------------------------------------------------
def test_stochrnd_round_to_zero_and_its_documented_bug():
    """SFPSTOCHRND_FloatInt.md (BlackholeA0): RoundingMode 2 rounds toward zero, except that
    0.9999998807907, 0.9999999403954 and 1.999999880791 round away (the page's bug);
    nearest (0) rounds half away from zero. FP32 -> INT16 (Mod1 7)."""
    tile, issue, u = _bh()
    x = np.array([0.9999998807907, 0.9999999403954, 1.999999880791, 2.7, -2.7, 2.5, -0.49, 100.999] * 4,
                 dtype=np.float32)
    u.lreg[1] = x.view(np.uint32)

    def sm(v):
        return [(0x80000000 | -int(a)) if a < 0 else int(a) for a in v]
    issue(0, "SFP_STOCH_RND", lreg_src_c=1, lreg_src_b=1, lreg_dest=2, instr_mod1=7, imm8_math=0, rnd_mode=2)
    assert list(u.lreg[2][:8]) == sm([1, 1, 2, 2, -2, 2, 0, 100])
    issue(0, "SFP_STOCH_RND", lreg_src_c=1, lreg_src_b=1, lreg_dest=3, instr_mod1=7, imm8_math=0, rnd_mode=0)
    assert list(u.lreg[3][:8]) == sm([1, 1, 2, 3, -3, 3, 0, 101])


def test_stochrnd_fp16b_round_to_zero_and_prng_always_advances():
    """SFPSTOCHRND_FloatFloat.md: FP32 -> BF16 precision (Mod1 1) with RoundingMode 2 keeps
    the top 16 bits unless the discarded 16 are all ones (``>= 0x7fffff >> 7``); the PRNG
    advances in every enabled lane whatever the mode."""
    tile, issue, u = _bh()
    u.lreg[1] = np.array([0x3F80FFFF, 0x3F80FFFE, 0xBF817FFF, 0x40490FDB] * 8, dtype=np.uint32)
    u.prng[:] = 0x12345678
    issue(0, "SFP_STOCH_RND", lreg_src_c=1, lreg_src_b=1, lreg_dest=2, instr_mod1=1, imm8_math=0, rnd_mode=2)
    assert list(u.lreg[2][:4]) == [0x3F810000, 0x3F800000, 0xBF810000, 0x40490000]
    assert np.all(u.prng != 0x12345678)


def test_stochrnd_intint_round_to_zero_bug_beyond_22_bits():
    """SFPSTOCHRND_IntInt.md (BlackholeA0): the magnitude shifted right by Imm5 (UseImm5,
    Mod1 bit 3) is rounded on its low 23 discarded bits only: toward zero (RoundingMode 2)
    is right for shifts up to 22, and "sometimes incorrect" beyond: 0xFFFFFF >> 24 gives 1.
    Mod1 5 (INT32_TO_INT8) keeps the sign and clamps to 127."""
    tile, issue, u = _bh()
    vals = [31, 0x80000000 | 31, 0xFFFFFF, 0x7FFFFFFF]
    u.lreg[1] = np.array(vals * 8, dtype=np.uint32)
    for imm, want in ((4, [1, 0x80000001, 127, 127]), (24, [0, 0, 1, 127])):
        issue(0, "SFP_STOCH_RND", lreg_src_c=1, lreg_src_b=1, lreg_dest=2, instr_mod1=8 | 5, imm8_math=imm,
              rnd_mode=2)
        assert list(u.lreg[2][:4]) == want, imm


# -- conditional execution -----------------------------------------------------------------------
def test_sfppushc_mutates_the_top():
    """SFPPUSHC.md (BlackholeA0): Mod1 1..12 replace the top's LaneFlags with
    BooleanOp(Mod1, Top, LaneFlags) and its UseLaneFlagsForLaneEnable with the current one;
    13 inverts LaneFlags and stores them; 14 / 15 store constants; no push."""
    tile, issue, u = _bh()
    a = LANE % 2 == 0
    b = LANE % 3 == 0
    ops = {1: b, 2: ~b, 3: a & b, 4: a | b, 5: a & ~b, 6: a | ~b, 7: ~a & b, 8: ~a | b, 9: ~a & ~b,
           10: ~a | ~b, 11: a != b, 12: a == b}
    for mod, want in ops.items():
        u.stack_size[:] = 1
        u.stack_flags[0] = a
        u.stack_use[0] = False
        u.flags[:] = b
        u.use_flags[:] = False
        issue(0, "SFPPUSHC", lreg_dest=0, lreg_c=0, imm12_math=0, instr_mod1=mod)
        assert np.all(u.stack_size == 1)
        assert np.array_equal(u.stack_flags[0], want), mod
    u.flags[:] = b
    issue(0, "SFPPUSHC", lreg_dest=0, lreg_c=0, imm12_math=0, instr_mod1=13)
    assert np.array_equal(u.flags, ~b) and np.array_equal(u.stack_flags[0], ~b)
    issue(0, "SFPPUSHC", lreg_dest=0, lreg_c=0, imm12_math=0, instr_mod1=15)
    assert not u.stack_flags[0].any() and u.stack_use[0].all()
    issue(0, "SFPPUSHC", lreg_dest=0, lreg_c=0, imm12_math=0, instr_mod1=0)  # plain push
    assert np.all(u.stack_size == 2)


def test_sfppopc_full_stack_bug_is_fixed():
    """SFPPOPC.md (BlackholeA0) drops Wormhole's bug: Mod1 != 0 on a full stack leaves the
    bottom entry alone."""
    results = {}
    for arch in ("blackhole", "wormhole_b0"):
        tile, issue = make(arch)
        u = tile.tensix.sfpu
        u.stack_size[:] = 8
        u.stack_flags[:] = False
        u.stack_flags[7] = True
        issue(0, "SFPPOPC", lreg_dest=0, lreg_c=0, imm12_math=0, instr_mod1=1)
        results[arch] = bool(u.stack_flags[0].all())
        assert u.flags.all()  # Mod1 1: LaneFlags = Top.LaneFlags
    assert results == {"blackhole": False, "wormhole_b0": True}


def test_every_blackhole_vector_unit_instruction_is_implemented():
    tile, _ = make("blackhole")
    sfp = {s.mnemonic for s in tile.tensix.table if s.unit == "sfpu"}
    assert sfp <= tile.tensix.implemented


# -- SFPLOADMACRO ----------------------------------------------------------------------------
@pytest.mark.parametrize("store_delay", [2, 1])
def test_sfploadmacro_runs_blackhole_load_mul24_and_store(store_delay):
    """SFPLOADMACRO.md (BlackholeA0): its SFPLOAD part is Blackhole's (MOD0_FMT_INT8 keeps
    eight magnitude bits), SFPMUL24 (Blackhole only) may be scheduled to the MAD sub-unit
    from an InstructionTemplate (VB overridden by the loaded register), and the store
    sub-unit's SFPSTORE writes back with the load's Mod0 and Addr. With the store on the
    cycle right after the SFPMUL24 (delay 1) nothing stalls inside a sequence (SFPMAD.md):
    ttemu reports the hazard and the store sees the value from before the multiply."""
    tile, issue, u = _bh()
    mags = (np.arange(32) * 8 + 7) & 0xFF  # up to 255
    signs = (np.arange(32) % 3 == 0).astype(np.uint16)
    for lane in range(32):
        row, col = 8 + lane // 8, (lane & 7) * 2
        tile.tensix.dst.bits[row, col] = (signs[lane] << 15) | (mags[lane] << 5)
    template = bh_word("SFPMUL24", lreg_src_a=1, lreg_src_b=0, lreg_src_c=9, lreg_dest=0, instr_mod1=0)
    u.lreg[0][:] = template
    issue(0, "SFPCONFIG", instr_mod1=0, config_dest=0, imm16_math=0)  # InstructionTemplate[0]
    # MAD: template 0, VB = loaded VD, delay 0; store: delay 2 (SFPMAD.md: a MAD result
    # inside a sequence needs a cycle's gap, the hardware does not stall for it)
    seq = ((0x80 | 4) << 8) | ((3 | (store_delay << 3)) << 24)
    issue(0, "SFPCONFIG", instr_mod1=1, config_dest=4, imm16_math=seq & 0xFFFF)
    u.lreg[0][:] = seq
    issue(0, "SFPCONFIG", instr_mod1=0, config_dest=4, imm16_math=0)  # Sequence[0] (all 32 bits)
    issue(0, "SFPCONFIG", instr_mod1=1, config_dest=8, imm16_math=1 << 4)  # macro 0's store uses the load's Mod0
    u.lreg[1][:] = 3
    issue(0, "SFPLOADMACRO", lreg_ind=(0 << 2) | 2, instr_mod0=5, sfpu_addr_mode=0, dest_reg_addr=8)
    for _ in range(4):
        issue(0, "SFPNOP")
    sm = (signs.astype(np.uint32) << 31) | mags.astype(np.uint32)
    product = ((3 * sm.astype(np.uint64)) & 0x7FFFFF).astype(np.uint32)
    assert np.array_equal(u.lreg[2], product)
    stored = product if store_delay == 2 else sm
    want = FL.sign_mag11_to_dst16_int8(stored)
    got = np.array([tile.tensix.dst.bits[8 + lane // 8, (lane & 7) * 2] for lane in range(32)])
    assert np.array_equal(got, want)
    assert any("hazard" in site for site in tile.diagnostics.sites) == (store_delay == 1)


def bh_word(mnemonic, **fields):
    from ttemu.isa.table import get_table
    return get_table("blackhole").encode(mnemonic, **fields)


def test_setrwc_sets_the_sfpu_sp():
    """SETRWC's Blackhole BitMask bit 4 ("SFPU SP", assembly.yaml) sets the RWC Sp from
    rwc_d:rwc_b:rwc_a, which MOD0_FMT_INT32_ALL addresses Dst with (SFPLOAD.md)."""
    tile, issue, u = _bh()
    issue(0, "SETRWC", BitMask=16, rwc_a=8, rwc_b=0, rwc_d=0, rwc_cr=0, clear_ab_vld=0)
    assert tile.tensix.rwcs.rwc[0].Sp == 8
    u.lreg[1] = LANE.astype(np.uint32)
    issue(0, "SFPSTORE", lreg_ind=1, instr_mod0=10, sfpu_addr_mode=0, dest_reg_addr=0)  # rows 8..11
    assert np.array_equal(FL.dst32_to_fp32(tile.tensix.dst.read32(8, 4)[:, 0::2].ravel()), LANE)
