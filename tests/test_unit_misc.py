"""Miscellaneous Unit: tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/
MiscellaneousUnit.md, ADCs.md, SETADC.md, SETADCXX.md, SETADCXY.md, SETADCZW.md,
INCADCXY.md, INCADCZW.md, ADDRCRXY.md, ADDRCRZW.md, SETDVALID.md, SrcASrcB.md."""

import random
from types import SimpleNamespace

import pytest

from tensix_harness import make
from ttemu.isa.table import get_table

WH = get_table("wormhole_b0")
WIDTH = {"X": 18, "Y": 13, "Z": 8, "W": 8}
NAMES = ("X", "X_Cr", "Y", "Y_Cr", "Z", "Z_Cr", "W", "W_Cr")


def snapshot(tile):
    """[thread][unit][channel] -> dict of the eight counters."""
    adcs = tile.tensix.adcs
    return [[[{n: getattr(adcs.channel(t, u, c), n) for n in NAMES} for c in range(2)] for u in range(3)]
            for t in range(3)]


def direct(tile, mnemonic, word, thread=0):
    """Run the raw word with ``t.word`` set (ThreadOverride is not a table field)."""
    spec, fields = WH.decode(word)
    assert spec.mnemonic == mnemonic
    return getattr(tile.tensix.misc, mnemonic)(SimpleNamespace(index=thread, word=word), **fields)


def units(mask):
    return [u for u in range(3) if (mask >> u) & 1]


# -- SETADC ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, 2, 3])
@pytest.mark.parametrize("mask", [1, 2, 4, 5, 7])
def test_setadc(dim, mask):
    """SETADC.md: counter and _Cr = NewValue (truncated), ThreadOverride = NewValue >> 16."""
    rng = random.Random(dim * 8 + mask)
    for _ in range(6):
        tile, issue = make()
        value, channel, thread = rng.getrandbits(18), rng.getrandbits(1), rng.randrange(3)
        want = snapshot(tile)
        override = value >> 16
        which = thread if override == 0 else override - 1
        name = "XYZW"[dim]
        for u in units(mask):
            want[which][u][channel][name] = value & ((1 << WIDTH[name]) - 1)
            want[which][u][channel][name + "_Cr"] = value & ((1 << WIDTH[name]) - 1)
        issue(thread, "SETADC", Value=value, DimensionIndex=dim, ChannelIndex=channel, CntSetMask=mask)
        assert snapshot(tile) == want


def test_setadc_thread_override_example():
    tile, issue = make()
    issue(0, "SETADC", Value=0x3_0005, DimensionIndex=0, ChannelIndex=1, CntSetMask=4)
    ch = tile.tensix.adcs.channel(2, 2, 1)  # ThreadOverride 3 -> thread 2
    assert (ch.X, ch.X_Cr) == (0x30005, 0x30005)  # X keeps all 18 bits
    assert tile.tensix.adcs.channel(0, 2, 1).X == 0


# -- SETADCXX --------------------------------------------------------------------------------
def test_setadcxx():
    """SETADCXX.md: both channels' X and X_Cr, the current thread only."""
    tile, issue = make()
    want = snapshot(tile)
    for u in (0, 2):
        want[1][u][0].update(X=0x3FF, X_Cr=0x3FF)
        want[1][u][1].update(X=0x155, X_Cr=0x155)
    issue(1, "SETADCXX", x_start=0x3FF, x_end2=0x155, CntSetMask=0b101)
    assert snapshot(tile) == want


# -- SETADCXY / SETADCZW ---------------------------------------------------------------------
@pytest.mark.parametrize("op,dims", [("SETADCXY", "XY"), ("SETADCZW", "ZW")])
def test_setadc_pairs(op, dims):
    """SETADCXY.md / SETADCZW.md: each of the four counters selected by its bit."""
    rng = random.Random(op)
    for _ in range(30):
        tile, issue = make()
        for t in range(3):  # non-zero start so "unchanged" is visible
            for u in range(3):
                for c in range(2):
                    for n in NAMES:
                        tile.tensix.adcs.channel(t, u, c).set(n, rng.getrandbits(8))
        vals = [rng.getrandbits(3) for _ in range(4)]
        bits, mask, thread = rng.getrandbits(4), rng.randrange(8), rng.randrange(3)
        want = snapshot(tile)
        for u in units(mask):
            for k in range(4):
                if (bits >> k) & 1:
                    want[thread][u][k >> 1][dims[k & 1]] = vals[k]
                    want[thread][u][k >> 1][dims[k & 1] + "_Cr"] = vals[k]
        issue(thread, op, BitMask=bits, Ch0_X=vals[0], Ch0_Y=vals[1], Ch1_X=vals[2], Ch1_Y=vals[3],
              CntSetMask=mask)
        assert snapshot(tile) == want


@pytest.mark.parametrize("op", ["SETADCXY", "SETADCZW", "INCADCXY", "INCADCZW", "ADDRCRXY", "ADDRCRZW"])
@pytest.mark.parametrize("override,target", [(0, 1), (1, 0), (2, 1), (3, 2)])
def test_thread_override(op, override, target):
    """ThreadOverride (bits 18..19, raw encoding only): WhichThread = ThreadOverride - 1,
    or the current thread (here 1) for 0."""
    tile, _ = make()
    fields = dict(Ch0_X=5, CntSetMask=1)
    if op[:3] != "INC":
        fields["BitMask"] = 1
    word = WH.encode(op, **fields) | (override << 18)
    direct(tile, op, word, thread=1)
    dim = "Z" if op.endswith("ZW") else "X"
    for t in range(3):
        assert getattr(tile.tensix.adcs.channel(t, 0, 0), dim) == (5 if t == target else 0)


# -- INCADCXY / INCADCZW ---------------------------------------------------------------------
@pytest.mark.parametrize("op,dims", [("INCADCXY", "XY"), ("INCADCZW", "ZW")])
def test_incadc(op, dims):
    """INCADCXY.md / INCADCZW.md: all four counters += Inc, wrapping at their width,
    _Cr unchanged."""
    rng = random.Random(op)
    for _ in range(30):
        tile, issue = make()
        thread, mask = rng.randrange(3), rng.randrange(8)
        for u in range(3):
            for c in range(2):
                for n in NAMES:
                    width = WIDTH[n[0]]
                    # bias towards the top of the range to exercise wraparound
                    tile.tensix.adcs.channel(thread, u, c).set(n, (1 << width) - 1 - rng.getrandbits(3))
        incs = [rng.getrandbits(3) for _ in range(4)]
        want = snapshot(tile)
        for u in units(mask):
            for k in range(4):
                ch, n = want[thread][u][k >> 1], dims[k & 1]
                ch[n] = (ch[n] + incs[k]) & ((1 << WIDTH[n]) - 1)
        issue(thread, op, Ch0_X=incs[0], Ch0_Y=incs[1], Ch1_X=incs[2], Ch1_Y=incs[3], CntSetMask=mask)
        assert snapshot(tile) == want


# -- ADDRCRXY / ADDRCRZW ---------------------------------------------------------------------
@pytest.mark.parametrize("op,dims", [("ADDRCRXY", "XY"), ("ADDRCRZW", "ZW")])
def test_addrcr(op, dims):
    """ADDRCRXY.md / ADDRCRZW.md: selected counters: _Cr += Inc; counter = _Cr."""
    rng = random.Random(op)
    for _ in range(30):
        tile, issue = make()
        thread, mask, bits = rng.randrange(3), rng.randrange(8), rng.getrandbits(4)
        for u in range(3):
            for c in range(2):
                for n in NAMES:
                    width = WIDTH[n[0]]
                    tile.tensix.adcs.channel(thread, u, c).set(n, (1 << width) - 1 - rng.getrandbits(4))
        incs = [rng.getrandbits(3) for _ in range(4)]
        want = snapshot(tile)
        for u in units(mask):
            for k in range(4):
                if (bits >> k) & 1:
                    ch, n = want[thread][u][k >> 1], dims[k & 1]
                    ch[n + "_Cr"] = (ch[n + "_Cr"] + incs[k]) & ((1 << WIDTH[n]) - 1)
                    ch[n] = ch[n + "_Cr"]
        issue(thread, op, BitMask=bits, Ch0_X=incs[0], Ch0_Y=incs[1], Ch1_X=incs[2], Ch1_Y=incs[3],
              CntSetMask=mask)
        assert snapshot(tile) == want


def test_adc_sequence_example():
    """A typical packer address sequence: SETADCXY clears, INCADCXY steps Y, ADDRCRXY
    moves to the next row base."""
    tile, issue = make()
    issue(0, "SETADCXY", BitMask=0xF, CntSetMask=4)
    for _ in range(3):
        issue(0, "INCADCXY", Ch0_Y=1, CntSetMask=4)
    ch = tile.tensix.adcs.channel(0, 2, 0)
    assert (ch.Y, ch.Y_Cr) == (3, 0)
    issue(0, "ADDRCRXY", BitMask=0b0010, Ch0_Y=4, CntSetMask=4)
    assert (ch.Y, ch.Y_Cr) == (4, 4)


# -- SETDVALID -------------------------------------------------------------------------------
def test_setdvalid():
    """SETDVALID.md: the unpackers' bank goes to the Matrix Unit, the unpacker flips bank
    and SrcRow[CurrentThread] = SRCx_SET_Base << 4."""
    tile, issue = make()
    src = tile.tensix.src
    issue(2, "SETC16", setc16_reg=3, setc16_value=1)  # SRCA_SET_Base
    issue(2, "SETC16", setc16_reg=4, setc16_value=3)  # SRCB_SET_Base
    issue(2, "SETDVALID", setvalid=1)
    assert src.allowed == {"A": ["math", "unpack"], "B": ["unpack", "unpack"]}
    assert src.unpack_bank == {"A": 1, "B": 0}
    assert src.src_row["A"] == [0, 0, 16] and src.src_row["B"] == [0, 0, 0]
    assert src.owned_by("A", "math") and src.owned_by("A", "unpack")
    issue(2, "SETDVALID", setvalid=2)
    assert src.allowed["B"] == ["math", "unpack"] and src.unpack_bank["B"] == 1
    assert src.src_row["B"] == [0, 0, 48]
    issue(0, "SETDVALID", setvalid=3)  # both flip back to bank 0; bank 1 goes to math too
    assert src.allowed == {"A": ["math", "math"], "B": ["math", "math"]}
    assert src.unpack_bank == {"A": 0, "B": 0}
    assert src.src_row["A"] == [0, 0, 16]  # thread 0's base is 0
    issue(0, "SETDVALID", setvalid=0)  # nothing
    assert src.unpack_bank == {"A": 0, "B": 0}


def test_nop():
    tile, issue = make()
    assert issue(0, "NOP").held is None


def test_thread_override_through_the_frontend():
    """Once the frontend exposes the executing word as ``t.word``, the raw ThreadOverride
    bits take effect on pushed instructions too."""
    from tensix_harness import push_word

    tile, _ = make()
    word = WH.encode("SETADCXY", BitMask=1, Ch0_X=6, CntSetMask=1) | (3 << 18)
    push_word(tile, 0, word)
    if not hasattr(tile.tensix.threads[0], "word"):
        pytest.skip("the frontend does not expose t.word yet")
    assert tile.tensix.adcs.channel(2, 0, 0).X == 6 and tile.tensix.adcs.channel(0, 0, 0).X == 0
