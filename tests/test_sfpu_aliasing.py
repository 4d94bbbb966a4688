"""Every Vector Unit instruction with register operands, on both arches, with its operands
aliased (VC == VD, VA == VB == VC == VD, VB == VD, a table register as the destination):
the pages' functional models read every operand of a lane before writing its result, so
an aliased instruction must give what the same instruction gives with the aliased
destination (or source) renamed to another register holding a copy of the same value.
Compared: every LReg, the lane flags, UseLaneFlagsForLaneEnable, the flag stack and the
PRNG, with lanes disabled by the lane flags (issue 22: SFPLZ with CC_NE0 took its flags
from the result when VC == VD).

Each case is (mnemonic, fields, role, r): the fields alias register ``r``; ``role`` is
the field renamed to :data:`T` in the reference run (a destination: then the aliased
run's LReg[r] must equal the reference's LReg[T]).
"""

import numpy as np
import pytest

from tensix_harness import make
from ttemu.isa.table import get_table

U32 = np.uint32
T = 6  # the register the reference run uses instead (no instruction below reads it otherwise)
SPECIAL = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 1, 0x807FFFFF, 0x00800000,
                    0x3F800000, 0xBF800000, 0x7F7FFFFF, 0x33800000, 0x0000001F, 0xFFFFFFE1, 0x00000004], dtype=U32)


def _mod1(m, mod, r, imm=0):
    return (m, dict(instr_mod1=mod, lreg_dest=r, lreg_c=r, imm12_math=imm), "lreg_dest", r)


def _cases_common():
    r = 2
    out = []
    for m, mods in (("SFPDIVP2", (0, 1)), ("SFPEXEXP", (0, 1, 2, 3, 8, 10)), ("SFPEXMAN", (0, 1)),
                    ("SFPIADD", (0, 1, 2, 4, 5, 6, 8, 9, 10)), ("SFPMOV", (0, 1, 2)), ("SFPABS", (0, 1)),
                    ("SFPAND", (0,)), ("SFPOR", (0,)), ("SFPXOR", (0,)), ("SFPNOT", (0,)),
                    ("SFPLZ", (0, 2, 4, 6, 8, 10, 12, 14)), ("SFPSETEXP", (0, 1, 2)), ("SFPSETMAN", (0, 1)),
                    ("SFPSETSGN", (0, 1)), ("SFPSHFT", (0, 1))):
        out += [_mod1(m, mod, r, imm=0x7FD if m == "SFPSHFT" else 0x85) for mod in mods]
    out += [("SFPSWAP", dict(instr_mod1=mod, lreg_dest=r, lreg_src_c=r, imm12_math=0), "lreg_dest", r)
            for mod in range(9)]
    out += [("SFPSHFT2", dict(instr_mod1=mod, lreg_dest=r, lreg_src_c=r, imm12_math=r), "lreg_dest", r)
            for mod in (3, 4, 5, 6)]  # (5 / 6: VB = Imm12 & 15 = VC = VD)
    out += [("SFPSHFT2", dict(instr_mod1=2, lreg_dest=0, lreg_src_c=1, imm12_math=0), "lreg_src_c", 1)]  # copy4 source
    out += [("SFP_STOCH_RND", dict(rnd_mode=rnd, imm8_math=3, lreg_src_b=r, lreg_src_c=r, lreg_dest=r,
                                   instr_mod1=mod), "lreg_dest", r) for mod in range(8) for rnd in (0, 1)]
    out += [(m, dict(lreg_src_a=r, lreg_src_b=r, lreg_src_c=r, lreg_dest=r, instr_mod1=mod), "lreg_dest", r)
            for m in ("SFPMAD", "SFPADD", "SFPMUL") for mod in (0, 4)]
    out += [("SFPLUT", dict(lreg_ind=vd, instr_mod0=mod, dest_reg_addr=0), "lreg_ind", vd)
            for vd in (3, 0, 1) for mod in (0, 4)]  # its input (LReg[3]), its coefficients
    out += [("SFPLUTFP32", dict(lreg_dest=vd, instr_mod1=mod), "lreg_dest", vd)
            for vd in (3, 0, 4, 5) for mod in (0, 2, 3, 6)]
    return out


WORMHOLE = _cases_common() + [("SFPCAST", dict(lreg_src_c=2, lreg_dest=2, instr_mod1=mod), "lreg_dest", 2)
                              for mod in (0, 1)]
BLACKHOLE = _cases_common() + [
    ("SFPCAST", dict(lreg_src_c=2, lreg_dest=2, instr_mod1=mod), "lreg_dest", 2) for mod in (0, 2, 3)] + [
    (m, dict(lreg_src_a=2, lreg_src_b=2, lreg_src_c=2, lreg_dest=2, instr_mod1=mod), "lreg_dest", 2)
    for m, mods in (("SFPMAD", (1, 2, 3, 5)), ("SFPADD", (1, 2, 3)), ("SFPMUL", (1,)), ("SFPMUL24", (0, 1, 4)))
    for mod in mods] + [
    _mod1(m, mod, 2, imm=2) for m, mods in (("SFPGT", (1, 8, 9)), ("SFPLE", (1, 8, 9)), ("SFPARECIP", (0, 1, 2)),
                                            ("SFPAND", (1,)), ("SFPOR", (1,)), ("SFPSHFT", (0, 1, 2, 3, 5, 7)))
    for mod in mods]


def _state(rng):
    lreg = rng.integers(0, 1 << 32, (8, 32), dtype=np.uint64).astype(U32)
    fp = rng.random((8, 32)) < 0.5  # moderate FP32 values
    lreg[fp] = (lreg[fp] & U32(0x807FFFFF)) | (rng.integers(110, 140, int(fp.sum())).astype(U32) << 23)
    pick = rng.random((8, 32)) < 0.2
    lreg[pick] = rng.choice(SPECIAL, int(pick.sum()))
    lreg[7] = rng.integers(0, 16, 32).astype(U32)  # (INDIRECT_VA's index)
    flags = rng.random(32) < 0.7
    return lreg, flags


_UNITS = {}


def _run(arch, mnemonic, fields, lreg, flags):
    tile, issue = _UNITS.get(arch) or _UNITS.setdefault(arch, make(arch))
    u = tile.tensix.sfpu
    u.reset()
    u.lreg[:8] = lreg
    u.use_flags[:] = True  # lanes with a flag clear are disabled
    u.flags[:] = flags
    u.prng[:] = np.arange(1, 33, dtype=U32) * U32(0x9E3779B9)
    widths = {f.name: f.mask for f in get_table(arch).spec(mnemonic).fields}
    issue(0, mnemonic, **{k: v & widths[k] for k, v in fields.items()})  # (immediates cut to the field)
    return (u.lreg.copy(), u.flags.copy(), u.use_flags.copy(), u.stack_flags.copy(), u.stack_size.copy(),
            u.prng.copy())


def _ids(arch, cases):
    return [f"{arch}-{m}-{f.get('instr_mod1', f.get('instr_mod0'))}-{f.get('rnd_mode', '')}{role}{r}"
            for m, f, role, r in cases]


@pytest.mark.parametrize("arch,case", [("wormhole_b0", c) for c in WORMHOLE] + [("blackhole", c) for c in BLACKHOLE],
                         ids=_ids("wh", WORMHOLE) + _ids("bh", BLACKHOLE))
def test_aliased_operands_read_before_the_write(arch, case):
    mnemonic, fields, role, r = case
    rng = np.random.default_rng(abs(hash((mnemonic, tuple(sorted(fields.items()))))) % 2**32)
    for _ in range(3):
        lreg, flags = _state(rng)
        lreg[T] = lreg[r]  # the copy the reference run reads or writes instead
        aliased = _run(arch, mnemonic, fields, lreg, flags)
        ref = _run(arch, mnemonic, {**fields, role: T}, lreg, flags)
        want = ref[0].copy()
        if role in ("lreg_dest", "lreg_ind"):  # the destination renamed: LReg[r] is what LReg[T] got
            want[r] = ref[0][T]
            want[T] = lreg[T]
        np.testing.assert_array_equal(aliased[0], want)
        for got, exp in zip(aliased[1:], ref[1:]):  # flags, flag stack, PRNG
            np.testing.assert_array_equal(got, exp)


def test_sfplz_flags_come_from_the_input_when_vc_is_vd():
    """SFPLZ.md: with CC_NE0 (Mod1 2), LaneFlags = (VC != 0), VC read before VD is
    written: LReg[2] = 0 in even lanes (clz 32, flag false), 1 in odd (clz 31, flag true;
    issue 22: the flags were taken from the result, all true)."""
    tile, issue = make()
    u = tile.tensix.sfpu
    u.lreg[2] = np.arange(32, dtype=U32) & 1
    issue(0, "SFPLZ", instr_mod1=2, lreg_dest=2, lreg_c=2, imm12_math=0)
    assert list(u.lreg[2]) == [32, 31] * 16
    assert list(u.flags) == [False, True] * 16


def test_indirect_destination_is_the_index_register():
    """SFPMAD.md INDIRECT_VD (Mod1 & 8): the destination ``LReg[7] & 15`` may be LReg[7]
    itself; its index is read first: lanes selecting 7 get the result in LReg[7], lanes
    selecting 5 in LReg[5]."""
    tile, issue = make()
    u = tile.tensix.sfpu
    u.lreg[7] = np.where(np.arange(32) % 2, 7, 5).astype(U32)
    u.lreg[1] = np.float32(3.0).view(U32)
    u.lreg[5] = 0x1234
    issue(0, "SFPMAD", lreg_src_a=1, lreg_src_b=1, lreg_src_c=9, lreg_dest=0, instr_mod1=8)  # 3 * 3 + 0
    nine = np.float32(9.0).view(U32)
    odd = np.arange(32) % 2 == 1
    assert np.all(u.lreg[7][odd] == nine) and np.all(u.lreg[7][~odd] == 5)
    assert np.all(u.lreg[5][~odd] == nine) and np.all(u.lreg[5][odd] == 0x1234)
