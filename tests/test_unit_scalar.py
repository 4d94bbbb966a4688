"""Scalar Unit (ThCon): tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/
ScalarUnit.md and the pages of SETDMAREG (SETDMAREG_Immediate.md, SETDMAREG_Special.md),
ADDDMAREG, SUBDMAREG, MULDMAREG, BITWOPDMAREG, CMPDMAREG, SHIFTDMAREG, LOADIND,
STOREIND (STOREIND_L1.md, STOREIND_MMIO.md, STOREIND_Src.md), LOADREG, STOREREG,
ATSWAP, ATCAS, ATINCGET, ATINCGETPTR, REG2FLOP (REG2FLOP_ADC.md,
REG2FLOP_Configuration.md), FLUSHDMA, DMANOP. References are small Python models
written from the pages."""

import random
from types import SimpleNamespace

import pytest

from tensix_harness import make, make_strict, warned
from ttemu import GuestFault, UndefinedBehaviour, Unimplemented
from ttemu.isa.table import get_table
from ttemu.mmio.router import Device

WH = get_table("wormhole_b0")
M32 = 0xFFFFFFFF
GPR_BASE = 0xFFE00000
L1_SIZE = 1464 * 1024


def gprs(tile, t=0):
    return tile.tensix.gprs[t]


def l1_u32(tile, addr):
    return int.from_bytes(tile.l1[addr:addr + 4], "little")


def put_u32(tile, addr, value):
    tile.l1[addr:addr + 4] = (value & M32).to_bytes(4, "little")


def direct(tile, unit, mnemonic, word, thread=0):
    """Run ``word`` on the unit with ``t.word`` set (bits the table does not decode)."""
    spec, fields = WH.decode(word)
    assert spec.mnemonic == mnemonic
    stub = SimpleNamespace(index=thread, word=word)
    return getattr(getattr(tile.tensix, unit), mnemonic)(stub, **fields)


class Stub(Device):
    """An MMIO register block that records accesses and can refuse them."""

    name = "stub"

    def __init__(self):
        self.ready = True
        self.writes = []
        self.reads = []
        self.value = 0

    def read(self, core, addr, width):
        if not self.ready:
            return None
        self.reads.append(addr)
        return self.value

    def write(self, core, addr, width, value):
        if not self.ready:
            return False
        self.writes.append((addr, value))
        return True


def with_stub():
    tile, issue = make()
    stub = Stub()
    tile.router.attach("noc_overlay", stub)  # 0xFFB40000 ..
    return tile, issue, stub


# -- SETDMAREG (immediate) ---------------------------------------------------------------
def test_setdmareg_immediate_halves():
    """SETDMAREG_Immediate.md; ScalarUnit.md: a pair of SETDMAREG sets all 32 bits."""
    tile, issue = make()
    gprs(tile)[5] = 0xAAAAAAAA

    def setdma(thread, half, value):
        issue(thread, "SETDMAREG", RegIndex16b=half, SetSignalsMode=0, Payload_SigSel=value & 0x3FFF,
              Payload_SigSelSize=value >> 14)

    setdma(0, 10, 0xBEEF)  # low half of GPR 5
    assert gprs(tile)[5] == 0xAAAABEEF
    setdma(0, 11, 0xDEAD)
    assert gprs(tile)[5] == 0xDEADBEEF
    setdma(0, 127, 0xFFFF)  # high half of GPR 63
    assert gprs(tile)[63] == 0xFFFF0000
    setdma(2, 0, 0x1234)
    assert gprs(tile, 2)[0] == 0x1234 and gprs(tile, 0)[0] == 0  # per-thread GPRs
    # RISC-V view: T_i sees its own GPRs at REGFILE_BASE, RISCV B all three
    assert tile.read_u32(GPR_BASE + 4 * 5, core="trisc0") == 0xDEADBEEF
    assert tile.read_u32(GPR_BASE + 4 * 0, core="trisc2") == 0x1234
    assert tile.read_u32(GPR_BASE + 4 * (128 + 0), core="brisc") == 0x1234


# -- GPR arithmetic ----------------------------------------------------------------------
def _ref(op, mode, left, right):
    if op == "ADDDMAREG":
        return (left + right) & M32
    if op == "SUBDMAREG":
        return (left - right) & M32
    if op == "MULDMAREG":
        return (left & 0xFFFF) * (right & 0xFFFF)
    if op == "BITWOPDMAREG":
        return (left & right, left | right, left ^ right)[mode]
    if op == "CMPDMAREG":
        return int((left > right, left < right, left == right)[mode])
    if op == "SHIFTDMAREG":
        s = right & 0x1F
        return (left << s) & M32 if mode == 0 else left >> s
    raise AssertionError(op)


ARITH = [("ADDDMAREG", 0), ("SUBDMAREG", 0), ("MULDMAREG", 0), ("BITWOPDMAREG", 0), ("BITWOPDMAREG", 1),
         ("BITWOPDMAREG", 2), ("CMPDMAREG", 0), ("CMPDMAREG", 1), ("CMPDMAREG", 2), ("SHIFTDMAREG", 0),
         ("SHIFTDMAREG", 1)]
EDGES = [0, 1, 2, 0x1F, 0x20, 0x21, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, M32]


@pytest.mark.parametrize("op,mode", ARITH)
def test_dmareg_register_and_immediate(op, mode):
    """ADDDMAREG.md .. SHIFTDMAREG.md: register and immediate variants, unsigned,
    wrapping at 32 bits; SHIFTDMAREG uses the low 5 bits of the register."""
    rng = random.Random(op + str(mode))
    tile, issue = make()
    regs = gprs(tile, 1)
    extra = {} if op in ("ADDDMAREG", "SUBDMAREG", "MULDMAREG") else {"OpSel": mode}
    pairs = [(a, b) for a in EDGES for b in EDGES] + [(rng.getrandbits(32), rng.getrandbits(32)) for _ in range(50)]
    for left, right in pairs:
        regs[3], regs[40] = left, right
        issue(1, op, OpARegIndex=3, OpBRegIndex=40, ResultRegIndex=17, OpBisConst=0, **extra)
        assert regs[17] == _ref(op, mode, left, right), (hex(left), hex(right))
    imm_max = 31 if op == "SHIFTDMAREG" else 63
    for left in EDGES + [rng.getrandbits(32) for _ in range(20)]:
        for imm in (0, 1, 5, imm_max):
            regs[3] = left
            issue(1, op, OpARegIndex=3, OpBRegIndex=imm, ResultRegIndex=3, OpBisConst=1, **extra)
            assert regs[3] == _ref(op, mode, left, imm), (hex(left), imm)


def test_dmareg_same_register_and_thread_isolation():
    tile, issue = make()
    gprs(tile, 2)[7] = 0x80000001
    issue(2, "ADDDMAREG", OpARegIndex=7, OpBRegIndex=7, ResultRegIndex=7, OpBisConst=0)
    assert gprs(tile, 2)[7] == 2
    assert gprs(tile, 0)[7] == 0 and gprs(tile, 1)[7] == 0


def test_dmareg_uses_riscv_written_gprs():
    """ScalarUnit.md: RISCV T_i writes GPRs[i] through REGFILE_BASE."""
    tile, issue = make()
    tile.write_u32(GPR_BASE + 4 * 1, 0x12345678, core="trisc1")
    tile.write_u32(GPR_BASE + 4 * 2, 0x0000FFFF, core="trisc1")
    issue(1, "MULDMAREG", OpARegIndex=1, OpBRegIndex=2, ResultRegIndex=3, OpBisConst=0)
    assert tile.read_u32(GPR_BASE + 4 * 3, core="trisc1") == 0x5678 * 0xFFFF


@pytest.mark.parametrize("op,bad", [("BITWOPDMAREG", 3), ("BITWOPDMAREG", 7), ("CMPDMAREG", 3),
                                    ("CMPDMAREG", 7), ("SHIFTDMAREG", 2), ("SHIFTDMAREG", 7)])
def test_dmareg_undefined_modes(op, bad):
    """The pages' default case is undefined: a warning; the result GPR gets 0."""
    tile, issue = make()
    gprs(tile)[0] = 0x00F0F0F0
    gprs(tile)[1] = 0xDEADBEEF
    for _ in range(2):
        issue(0, op, OpARegIndex=0, OpBRegIndex=0, ResultRegIndex=1, OpSel=bad, OpBisConst=0)
    assert op in warned(tile, f"{op} Mode={bad}", times=2)
    assert gprs(tile)[1] == 0
    tile, issue = make_strict()
    with pytest.raises(UndefinedBehaviour, match=op):
        issue(0, op, OpARegIndex=0, OpBRegIndex=0, ResultRegIndex=1, OpSel=bad, OpBisConst=0)


# -- LOADIND -------------------------------------------------------------------------------
def test_loadind_sizes_and_offset():
    """LOADIND.md: address GPR*16 + half-GPR offset, offset += 0/2/4/16, Size 0 (16 bytes
    into four GPRs, ResultReg & 0x3C), 1 (aligned word), 2 / 3 (low half / byte, the
    rest of the GPR kept)."""
    tile, issue = make()
    regs = gprs(tile)
    tile.l1[0x1000:0x1040] = bytes(range(0x40))
    regs[1] = 0x100  # AddrReg: 0x1000 / 16
    regs[2] = 0x0013_0000  # OffsetHalfReg 5 = high half of GPR 2 = 0x13
    regs[20:24] = [0xEEEEEEEE] * 4
    issue(0, "LOADIND", AddrRegIndex=1, DataRegIndex=22, AutoIncSpec=3, OffsetIndex=5, SizeSel=0)
    assert regs[20:24] == [0x13121110 + 0x04040404 * k for k in range(4)]  # 0x1013 & ~15
    assert regs[2] == 0x0023_0000
    issue(0, "LOADIND", AddrRegIndex=1, DataRegIndex=9, AutoIncSpec=1, OffsetIndex=5, SizeSel=1)
    assert regs[9] == 0x23222120 and regs[2] == 0x0025_0000  # 0x1023 & ~3
    regs[9] = 0xCCCCCCCC
    issue(0, "LOADIND", AddrRegIndex=1, DataRegIndex=9, AutoIncSpec=2, OffsetIndex=5, SizeSel=2)
    assert regs[9] == 0xCCCC2524 and regs[2] == 0x0029_0000  # 0x1025 & ~1
    issue(0, "LOADIND", AddrRegIndex=1, DataRegIndex=9, AutoIncSpec=0, OffsetIndex=5, SizeSel=3)
    assert regs[9] == 0xCCCC2529 and regs[2] == 0x0029_0000  # byte at 0x1029


def test_loadind_offset_wraps_at_16_bits_and_result_overrides_offset():
    tile, issue = make()
    regs = gprs(tile)
    put_u32(tile, 0x2000 + 0xFFFC, 0xCAFEF00D)
    regs[0] = 0x200
    regs[4] = 0xFFFC  # low half of GPR 4 (half 8)
    issue(0, "LOADIND", AddrRegIndex=0, DataRegIndex=5, AutoIncSpec=2, OffsetIndex=8, SizeSel=1)
    assert regs[5] == 0xCAFEF00D and regs[4] == 0x0000  # 0xFFFC + 4 wraps, high half kept
    # the load lands after the increment: loading into the offset's GPR overwrites it
    regs[4] = 0xFFFC
    issue(0, "LOADIND", AddrRegIndex=0, DataRegIndex=4, AutoIncSpec=3, OffsetIndex=8, SizeSel=1)
    assert regs[4] == 0xCAFEF00D


def test_loadind_beyond_l1_is_undefined():
    tile, issue = make()
    gprs(tile)[1] = L1_SIZE // 16
    with pytest.raises(GuestFault, match="LOADIND"):
        issue(0, "LOADIND", AddrRegIndex=1, DataRegIndex=2, AutoIncSpec=0, OffsetIndex=0, SizeSel=1)
    gprs(tile)[1] = 0x10000000  # * 16 wraps to 0: inside L1
    issue(0, "LOADIND", AddrRegIndex=1, DataRegIndex=2, AutoIncSpec=0, OffsetIndex=0, SizeSel=1)


# -- STOREIND ------------------------------------------------------------------------------
def storeind_l1(issue, size, addr_reg, data_reg, incr, half, thread=0):
    return issue(thread, "STOREIND", AddrRegIndex=addr_reg, DataRegIndex=data_reg, AutoIncSpec=incr,
                 OffsetIndex=half, RegSizeSel=size & 1, SizeSel=size >> 1, MemHierSel=1)


def test_storeind_l1_sizes():
    """STOREIND_L1.md."""
    tile, issue = make()
    regs = gprs(tile)
    regs[1] = 0x300  # 0x3000
    regs[8:12] = [0x11111111, 0x22222222, 0x33333333, 0x44444444]
    regs[3] = 0x0000_0017  # half 6 = 0x17
    storeind_l1(issue, 0, 1, 10, 3, 6)  # data GPRs 8..11, address 0x3017 & ~15
    assert [l1_u32(tile, 0x3010 + 4 * k) for k in range(4)] == regs[8:12]
    assert regs[3] == 0x27
    regs[12] = 0xA1B2C3D4
    storeind_l1(issue, 1, 1, 12, 1, 6)  # 0x3027 & ~3
    assert l1_u32(tile, 0x3024) == 0xA1B2C3D4 and regs[3] == 0x29
    storeind_l1(issue, 2, 1, 12, 2, 6)  # 0x3029 & ~1: low half
    assert tile.l1[0x3028:0x302A] == bytes([0xD4, 0xC3]) and regs[3] == 0x2D
    storeind_l1(issue, 3, 1, 12, 0, 6)  # byte at 0x302D
    assert tile.l1[0x302D] == 0xD4 and tile.l1[0x302C] == 0 and regs[3] == 0x2D


def test_storeind_l1_reads_data_after_offset_increment():
    """STOREIND_L1.md: the memcpy follows the Offset increment."""
    tile, issue = make()
    regs = gprs(tile)
    regs[1] = 0x10
    regs[6] = 0x0000_0004
    storeind_l1(issue, 1, 1, 6, 3, 12)  # offset in low half of GPR 6, data GPR 6
    assert l1_u32(tile, 0x104) == 0x14


def test_storeind_l1_undefined_and_riscv_sees_store():
    tile, issue = make()
    regs = gprs(tile)
    regs[1] = (L1_SIZE - 16) // 16
    regs[2] = 0x12345678
    storeind_l1(issue, 1, 1, 2, 0, 127)  # offset: high half of GPR 63 (0)
    assert tile.read_u32(L1_SIZE - 16) == 0x12345678
    regs[63] = 0x0010_0000
    with pytest.raises(GuestFault, match="STOREIND"):
        storeind_l1(issue, 1, 1, 2, 0, 127)


def storeind_mmio(issue, addr_reg, data_reg, incr, half, thread=0):
    return issue(thread, "STOREIND", AddrRegIndex=addr_reg, DataRegIndex=data_reg, AutoIncSpec=incr,
                 OffsetIndex=half, RegSizeSel=0, SizeSel=1, MemHierSel=0)


def test_storeind_mmio_address_and_wait():
    """STOREIND_MMIO.md: 0xFFB00000 + ((GPR + (Offset >> 4)) & 0xFFFFC); the write
    happens before the Offset increment; a device that is not ready holds the thread."""
    tile, issue, stub = with_stub()
    regs = gprs(tile)
    regs[1] = 0x40011  # low two bits dropped
    regs[2] = 0x0000_0030  # Offset (half 4) >> 4 = 3
    regs[3] = 0xFEEDFACE
    storeind_mmio(issue, 1, 3, 3, 4)
    assert stub.writes == [(0xFFB40014, 0xFEEDFACE)]  # 0x40011 + 3 = 0x40014
    assert regs[2] == 0x40
    stub.ready = False
    th = storeind_mmio(issue, 1, 3, 2, 4)
    assert th.held is not None and "MMIO write to 0xffb40014" in th.held_reason and regs[2] == 0x40
    stub.ready = True
    tile.tensix.step()
    assert th.held is None and stub.writes[-1] == (0xFFB40014, 0xFEEDFACE) and regs[2] == 0x44
    regs[1] = 0x100000 + 0x10000  # wraps to 0xFFB10000: below 0xFFB11000
    with pytest.raises(GuestFault, match="STOREIND"):
        storeind_mmio(issue, 1, 3, 0, 4)


def storeind_src(issue, srcb, addr_reg, data_reg, incr, half, thread=0):
    return issue(thread, "STOREIND", AddrRegIndex=addr_reg, DataRegIndex=data_reg, AutoIncSpec=incr,
                 OffsetIndex=half, RegSizeSel=int(srcb), SizeSel=0, MemHierSel=0)


def bf16_lo_ref(x):
    s, m, e = (x >> 15) & 1, (x >> 8) & 0x7F, x & 0xFF
    return (s << 18) | (m << 11) | e


def bf16_hi_ref(x):
    s, e, m = x >> 31, (x >> 23) & 0xFF, (x >> 16) & 0x7F
    return (s << 18) | (m << 11) | e


def test_storeind_src_a_and_b():
    """STOREIND_Src.md: four BF16 values (lo/hi of GPR DataReg & 0x3C, then of the next
    GPR) into columns (Addr & 3) * 4 .. +3; SrcA row (Addr >> 2) - 4 (rows below 4
    dropped) plus SrcRow, SrcB row Addr >> 2 plus SrcRow."""
    tile, issue = make()
    regs = gprs(tile)
    src = tile.tensix.src
    regs[8] = 0x3F80_C1A5  # hi: BF16 1.0 (S,E,M); lo: S,M,E layout
    regs[9] = 0xBF40_7F01
    regs[1] = 4 * 4 + 2  # SrcA row 0, columns 8..11
    storeind_src(issue, False, 1, 10, 0, 0)
    want = [bf16_lo_ref(0xC1A5), bf16_hi_ref(0x3F80C1A5), bf16_lo_ref(0x7F01), bf16_hi_ref(0xBF407F01)]
    assert list(src.data["A"][0, 0, 8:12]) == want
    assert want[1] == (0x7F << 0) | 0  # 1.0: exponent 127, mantissa 0, sign 0
    assert src.data["A"].sum() == sum(want)
    regs[1] = 3 * 4  # Row -1: nothing written
    storeind_src(issue, False, 1, 8, 0, 0)
    assert src.data["A"].sum() == sum(want)
    # SrcB: row Addr >> 2; the offset (half 10 = low half of GPR 5) >> 4 adds 63
    regs[1] = 0
    regs[5] = 15 * 4 * 16 + 3 * 16  # Offset >> 4 = 63: row 15, columns 12..15
    storeind_src(issue, True, 1, 8, 3, 10)
    assert list(src.data["B"][0, 15, 12:16]) == want
    assert regs[5] == 15 * 4 * 16 + 3 * 16 + 16


def test_storeind_src_rows_follow_setdvalid():
    """SETDVALID.md sets SrcRow[CurrentThread] = SRCx_SET_Base << 4 and flips the
    unpackers' bank; STOREIND adds SrcRow (STOREIND_Src.md)."""
    tile, issue = make()
    regs = gprs(tile, 1)
    src = tile.tensix.src
    regs[0] = 0x3F800000
    issue(1, "SETC16", setc16_reg=3, setc16_value=2)  # SRCA_SET_Base = 2
    issue(1, "SETC16", setc16_reg=4, setc16_value=3)  # SRCB_SET_Base = 3
    issue(1, "SETDVALID", setvalid=3)
    assert src.unpack_bank == {"A": 1, "B": 1}
    regs[1] = (4 + 1) * 4  # SrcA row 1 -> 1 + 32
    storeind_src(issue, False, 1, 0, 0, 127, thread=1)
    assert src.data["A"][1, 33, 1] == bf16_hi_ref(0x3F800000)
    regs[1] = 2 * 4  # SrcB row 2 -> 2 + 48
    storeind_src(issue, True, 1, 0, 0, 127, thread=1)
    assert src.data["B"][1, 50, 1] == bf16_hi_ref(0x3F800000)
    # SRCA_SET_SetOvrdWithAddr: row used as is, up to 63, SrcRow not added
    issue(1, "SETC16", setc16_reg=3, setc16_value=2 | 4)
    regs[1] = (4 + 60) * 4 + 3
    storeind_src(issue, False, 1, 0, 0, 127, thread=1)
    assert src.data["A"][1, 60, 13] == bf16_hi_ref(0x3F800000)


def test_storeind_src_waits_for_unpacker_ownership():
    tile, issue = make()
    src = tile.tensix.src
    regs = gprs(tile)
    regs[0] = 0x40000000
    src.allowed["A"][0] = "math"
    regs[1] = 4 * 4
    th = storeind_src(issue, False, 1, 0, 1, 4)  # Offset: low half of GPR 2
    assert th.held is not None and "SrcA bank 0" in th.held_reason
    assert regs[2] == 0 and src.data["A"].sum() == 0  # nothing changed while waiting
    src.allowed["A"][0] = "unpack"
    tile.tensix.step()
    assert th.held is None and src.data["A"][0, 0, 1] == bf16_hi_ref(0x40000000)
    assert regs[2] == 2  # Offset incremented once


@pytest.mark.parametrize("srcb,addr,ovrd,key,row", [
    (True, 16 * 4, 0, "SrcB Row>=16", 16), (False, 20 * 4, 0, "SrcA Row>=16", 16),
    (False, 68 * 4, 1, "SrcA Row>=64", 0), (True, 0x10000 + 4 * 5, 0, "Src Addr&0xf0000", 5),
    (False, 0x10000 + 4 * 9, 0, "Src Addr&0xf0000", 5)])
def test_storeind_src_undefined_rows(srcb, addr, ovrd, key, row):
    """STOREIND_Src.md's undefined rows: a warning; address bits 16..19 are ignored, the
    row (plus SrcRow) wraps to the 64-row bank."""
    tile, issue = make()
    gprs(tile)[0] = 0x3F80_4000  # BF16 2.0, 1.0
    gprs(tile)[1] = addr
    if ovrd:
        issue(0, "SETC16", setc16_reg=3, setc16_value=4)
    assert storeind_src(issue, srcb, 1, 0, 0, 127).held is None
    warned(tile, f"STOREIND {key}")
    src = tile.tensix.src
    which = "B" if srcb else "A"
    col = (addr & 3) * 4
    assert list(src.data[which][0, row, col:col + 2]) == [bf16_lo_ref(0x4000), bf16_hi_ref(0x3F804000)]
    tile, issue = make_strict()
    gprs(tile)[1] = addr
    if ovrd:
        issue(0, "SETC16", setc16_reg=3, setc16_value=4)
    with pytest.raises(UndefinedBehaviour, match="STOREIND"):
        storeind_src(issue, srcb, 1, 0, 0, 127)


# -- LOADREG / STOREREG --------------------------------------------------------------------
def test_loadreg_storereg():
    """LOADREG.md / STOREREG.md: 0xFFB00000 + (AddrLo << 2)."""
    tile, issue, stub = with_stub()
    regs = gprs(tile)
    regs[7] = 0x600DF00D
    issue(0, "STOREREG", RegAddr=0x40020 >> 2, TdmaDataRegIndex=7)
    assert stub.writes == [(0xFFB40020, 0x600DF00D)]
    stub.value = 0x12345678
    issue(0, "LOADREG", RegAddr=0x40024 >> 2, TdmaDataRegIndex=8)
    assert regs[8] == 0x12345678 and stub.reads == [0xFFB40024]
    stub.ready = False
    th = issue(0, "LOADREG", RegAddr=0x40028 >> 2, TdmaDataRegIndex=9)
    assert th.held is not None and "0xffb40028" in th.held_reason
    stub.ready = True
    tile.tensix.step()
    assert th.held is None and regs[9] == 0x12345678


@pytest.mark.parametrize("op", ["LOADREG", "STOREREG"])
def test_loadreg_storereg_low_window_undefined(op):
    tile, issue = make()
    with pytest.raises(GuestFault, match=op):
        issue(0, op, RegAddr=0x10FFC >> 2, TdmaDataRegIndex=0)


def test_loadreg_reads_a_real_register():
    """The RISCV_TDMA status register (reset value 8) is visible through LOADREG."""
    tile, issue = make()
    issue(0, "LOADREG", RegAddr=0x11014 >> 2, TdmaDataRegIndex=1)
    assert gprs(tile)[1] == tile.read_u32(0xFFB11014)


# -- atomics -------------------------------------------------------------------------------
def test_atswap_mask():
    """ATSWAP.md: 16-bit granules of four GPRs (DataReg & 0x3C) selected by the mask;
    the GPRs are not written back."""
    tile, issue = make()
    regs = gprs(tile)
    regs[1] = 0x80  # 0x800
    tile.l1[0x800:0x810] = b"\xEE" * 16
    regs[12:16] = [0x11110000, 0x33332222, 0x55554444, 0x77776666]
    issue(0, "ATSWAP", AddrRegIndex=1, DataRegIndex=13, SwapMask=0b10100101, MemHierSel=0)
    halves = [int.from_bytes(tile.l1[0x800 + 2 * i:0x802 + 2 * i], "little") for i in range(8)]
    assert halves == [0x0000, 0xEEEE, 0x2222, 0xEEEE, 0xEEEE, 0x5555, 0xEEEE, 0x7777]
    assert regs[12:16] == [0x11110000, 0x33332222, 0x55554444, 0x77776666]


def test_atswap_single_data_reg():
    """ATSWAP.md: SingleDataReg (bit 22, raw encoding only) places GPR DataReg at byte
    (DataReg & 3) * 4 of a zero line."""
    tile, _ = make()
    regs = gprs(tile)
    regs[1] = 0x80
    regs[14] = 0xABCD1234
    tile.l1[0x800:0x810] = b"\xEE" * 16
    word = WH.encode("ATSWAP", AddrRegIndex=1, DataRegIndex=14, SwapMask=0xFF) | (1 << 22)
    direct(tile, "scalar", "ATSWAP", word)
    assert tile.l1[0x800:0x810] == bytes(8) + (0xABCD1234).to_bytes(4, "little") + bytes(4)


def test_atswap_beyond_l1_undefined():
    tile, issue = make()
    gprs(tile)[1] = L1_SIZE // 16
    with pytest.raises(GuestFault, match="ATSWAP"):
        issue(0, "ATSWAP", AddrRegIndex=1, DataRegIndex=0, SwapMask=1)


def test_atcas_success_and_retry():
    """ATCAS.md: wait until L1 word == CmpVal, then set SetVal; while waiting the Scalar
    Unit is busy for every thread (ScalarUnit.md), other units are not."""
    tile, issue = make()
    gprs(tile)[2] = 0x40  # 0x400, Ofs 2 -> 0x408
    put_u32(tile, 0x408, 5)
    issue(0, "ATCAS", AddrRegIndex=2, Sel32b=2, CmpVal=5, SwapVal=9)
    assert l1_u32(tile, 0x408) == 9
    th = issue(0, "ATCAS", AddrRegIndex=2, Sel32b=2, CmpVal=3, SwapVal=0xF)
    assert th.held is not None and "ATCAS" in th.held_reason
    other = issue(1, "SETDMAREG", RegIndex16b=0, SetSignalsMode=0, Payload_SigSel=7)
    assert other.held is not None and "Scalar Unit" in other.held_reason and gprs(tile, 1)[0] == 0
    assert issue(2, "NOP").held is None  # other units proceed
    tile.write_u32(0x408, 3)  # e.g. a RISC-V store
    tile.tensix.step()
    assert th.held is None and other.held is None
    assert l1_u32(tile, 0x408) == 0xF and gprs(tile, 1)[0] == 7


def test_atcas_compares_whole_word():
    tile, issue = make()
    put_u32(tile, 0, 0x10 | 5)
    th = issue(0, "ATCAS", AddrRegIndex=0, Sel32b=0, CmpVal=5, SwapVal=1)
    assert th.held is not None


@pytest.mark.parametrize("width", [0, 3, 7, 15, 30, 31])
def test_atincget(width):
    """ATINCGET.md: IntMask = (2 << IntWidth) - 1; the GPR receives the original."""
    rng = random.Random(width)
    for _ in range(20):
        tile, issue = make()
        regs = gprs(tile)
        orig, inc = rng.getrandbits(32), rng.getrandbits(32)
        regs[1], regs[4] = 0x20, inc
        put_u32(tile, 0x20C, orig)
        issue(0, "ATINCGET", AddrRegIndex=1, DataRegIndex=4, Sel32b=3, WrapVal=width)
        mask = ((2 << width) - 1) & M32
        assert l1_u32(tile, 0x20C) == (((orig + inc) & mask) | (orig & ~mask)) & M32
        assert regs[4] == orig


def fifo(tile, addr, rd, wr):
    put_u32(tile, addr, rd)
    put_u32(tile, addr + 4, wr)


def test_atincgetptr_push_pop():
    """ATINCGETPTR.md: push (Ofs 1) waits while full, pop (Ofs 0) while empty; the
    counter wraps within IntMask = 2**IntWidth - 1; the GPR receives the original."""
    tile, issue = make()
    regs = gprs(tile)
    regs[1] = 0x100  # FIFO at 0x1000
    # IntWidth 3: capacity 4, counters mod 8
    fifo(tile, 0x1000, 6, 7)
    issue(0, "ATINCGETPTR", AddrRegIndex=1, DataRegIndex=2, Sel32b=1, WrapVal=3, IncrVal=0, NoIncr=0)
    assert l1_u32(tile, 0x1004) == 0 and regs[2] == 7  # Wr 7 -> 0 (wraps in 3 bits)
    issue(0, "ATINCGETPTR", AddrRegIndex=1, DataRegIndex=2, Sel32b=0, WrapVal=3, IncrVal=1, NoIncr=0)
    assert l1_u32(tile, 0x1000) == 0 and regs[2] == 6  # Rd 6 + 2 -> 0
    # Wr - Rd == 4: full
    fifo(tile, 0x1000, 0xFFFFFFFE, 2)
    th = issue(0, "ATINCGETPTR", AddrRegIndex=1, DataRegIndex=2, Sel32b=1, WrapVal=3, IncrVal=0, NoIncr=0)
    assert th.held is not None and "full" in th.held_reason
    put_u32(tile, 0x1000, 0xFFFFFFFF)
    tile.tensix.step()
    assert th.held is None and l1_u32(tile, 0x1004) == 3 and regs[2] == 2


def test_atincgetptr_empty_and_noincr():
    tile, issue = make()
    regs = gprs(tile)
    fifo(tile, 0, 5, 5)
    th = issue(0, "ATINCGETPTR", AddrRegIndex=0, DataRegIndex=2, Sel32b=0, WrapVal=4, IncrVal=0, NoIncr=1)
    assert th.held is not None and "empty" in th.held_reason
    put_u32(tile, 4, 6)
    tile.tensix.step()
    assert th.held is None and regs[2] == 5 and l1_u32(tile, 0) == 5  # NoIncr: no change


def test_atincgetptr_intwidth_zero():
    """IntWidth 0: capacity 0x8000, IntMask 0 (the counter never changes)."""
    tile, issue = make()
    fifo(tile, 0, 0, 0x7FFF)
    issue(0, "ATINCGETPTR", AddrRegIndex=0, DataRegIndex=2, Sel32b=1, WrapVal=0, IncrVal=0, NoIncr=0)
    assert l1_u32(tile, 4) == 0x7FFF and gprs(tile)[2] == 0x7FFF
    fifo(tile, 0, 0, 0x8000)
    assert issue(0, "ATINCGETPTR", AddrRegIndex=0, DataRegIndex=2, Sel32b=1, WrapVal=0, IncrVal=0,
                 NoIncr=0).held is not None


# -- REG2FLOP ------------------------------------------------------------------------------
def test_reg2flop_configuration():
    """REG2FLOP_Configuration.md: THCON_CFGREG_BASE_ADDR32 (52) + index of the thread's
    bank; 128-bit for SizeSel 0; indices >= GLOBAL - THCON (100) are undefined."""
    tile, issue = make()
    regs = gprs(tile)
    cfg = tile.tensix.config
    regs[4:8] = [0xA0, 0xA1, 0xA2, 0xA3]
    issue(0, "REG2FLOP", RegIndex=6, FlopIndex=6, SizeSel=0)
    assert [cfg.word(52 + 4 + k, 0) for k in range(4)] == [0xA0, 0xA1, 0xA2, 0xA3]
    issue(0, "SETC16", setc16_reg=0, setc16_value=1)  # CFG_STATE_ID_StateID = 1
    issue(0, "REG2FLOP", RegIndex=5, FlopIndex=99, SizeSel=1)
    assert cfg.word(52 + 99, 1) == 0xA1 and cfg.word(52 + 99, 0) == 0
    assert tile.read_u32(0xFFEF0000 + 4 * (188 + 52 + 99)) == 0xA1  # RISC-V view, bank 1
    issue(0, "REG2FLOP", RegIndex=5, FlopIndex=100, SizeSel=1)  # not a THCON_ word: undefined
    warned(tile, "REG2FLOP Config not THCON_")
    assert cfg.word(52 + 100, 1) == 0xA1 == cfg.word(52 + 100, 0)  # written as WRCFG would (global)
    tile, issue = make_strict()
    with pytest.raises(UndefinedBehaviour, match="REG2FLOP"):
        issue(0, "REG2FLOP", RegIndex=5, FlopIndex=100, SizeSel=1)


def reg2flop_adc(issue, thread, reg, size, shift8, xyzw, cr, adcsel, channel, override=0, threadsel=0):
    flop = (channel << 5) | (adcsel << 3) | (cr << 2) | xyzw
    return issue(thread, "REG2FLOP", RegIndex=reg, FlopIndex=flop, ContextId_2=threadsel, ByteOffset=shift8,
                 TargetSel=2 | override, SizeSel=size)


def adc_value_ref(value, size, shift8):
    if size == 0:
        return 0
    if size == 1:
        return value if shift8 == 0 else 0
    if size == 2:
        return value & 0xFFFF if shift8 == 0 else value >> 16 if shift8 == 2 else 0
    return (value >> (8 * shift8)) & 0xFF


@pytest.mark.parametrize("size", [0, 1, 2, 3])
@pytest.mark.parametrize("shift8", [0, 1, 2, 3])
def test_reg2flop_adc_value_selection(size, shift8):
    """REG2FLOP_ADC.md: SizeSel / Shift8 select the value; X keeps 18 bits."""
    tile, issue = make()
    gprs(tile, 1)[3] = 0xFEDCBA98
    reg2flop_adc(issue, 1, 3, size, shift8, xyzw=0, cr=0, adcsel=1, channel=1)
    ch = tile.tensix.adcs.channel(1, 1, 1)
    assert ch.X == adc_value_ref(0xFEDCBA98, size, shift8) & 0x3FFFF and ch.X_Cr == 0


def test_reg2flop_adc_targets():
    tile, issue = make()
    adcs = tile.tensix.adcs
    gprs(tile)[3] = 0x12345
    reg2flop_adc(issue, 0, 3, 1, 0, xyzw=1, cr=1, adcsel=2, channel=0)  # Packers Y_Cr
    assert adcs.channel(0, 2, 0).Y_Cr == 0x12345 & 0x1FFF and adcs.channel(0, 2, 0).Y == 0
    reg2flop_adc(issue, 0, 3, 3, 0, xyzw=3, cr=0, adcsel=0, channel=1, override=1, threadsel=2)  # T2's W
    assert adcs.channel(2, 0, 1).W == 0x45 and adcs.channel(0, 0, 1).W == 0
    before = repr(adcs.adc)
    reg2flop_adc(issue, 0, 3, 1, 0, xyzw=2, cr=0, adcsel=3, channel=0)  # ADCSel 3: nothing
    reg2flop_adc(issue, 0, 3, 1, 0, xyzw=2, cr=0, adcsel=0, channel=0, override=1, threadsel=3)  # thread 3
    assert repr(adcs.adc) == before


def test_reg2flop_undocumented_target():
    tile, issue = make()
    with pytest.raises(Unimplemented, match="REG2FLOP"):
        issue(0, "REG2FLOP", RegIndex=0, FlopIndex=0, TargetSel=1, SizeSel=1)


# -- SETDMAREG (special) -------------------------------------------------------------------
def setdma_special(issue, thread, result_size, which, source, in_half, out_half):
    return issue(thread, "SETDMAREG", RegIndex16b=out_half, SetSignalsMode=1,
                 Payload_SigSel=(which << 7) | (source << 3) | in_half, Payload_SigSelSize=result_size)


def packer_state(tile):
    pack = tile.tensix.pack
    pack.acc_tile_size = [[0x100 * i + t for t in range(3)] for i in range(4)]
    pack.last_thread = [1, 0, 1, 2]
    pack.last_tile_size = [0x11, 0x22, 0x33, 0xFFFF]
    pack.all_zero_flags = [0xF0000001, 0xF0000002, 0xF0000003, 0xF0000004]
    pack.exponent_histogram = [bytes(range(32 * i, 32 * i + 32)) for i in range(4)]
    pack.exponent_histogram_max_exponent = 0x87
    pack.resets = []
    pack.reset_acc_tile_size = pack.resets.append
    return pack


def test_setdmareg_special_sources():
    """SETDMAREG_Special.md: Values[4] per InputSource, written 16/32/128 bits."""
    tile, issue = make()
    packer_state(tile)
    regs = gprs(tile, 1)
    setdma_special(issue, 1, 2, 0, 0, 0, 8 * 2)  # AccTileSize/LastTileSize -> GPRs 8..11
    assert regs[8:12] == [(0x001 << 16) | 0x11, (0x101 << 16), (0x201 << 16) | 0x33, (0x301 << 16)]
    setdma_special(issue, 1, 1, 0, 1, 5, 2 * 3)  # AllZeroFlags[2] -> GPR 3
    assert regs[3] == 0xF0000003
    setdma_special(issue, 1, 0, 0, 1, 3, 2 * 4 + 1)  # high half of AllZeroFlags[1] -> GPR 4 high
    assert regs[4] == 0xF0000000
    setdma_special(issue, 1, 2, 2, 6, 0, 2 * 20)  # ExponentHistogram[2] bytes 0..15
    assert regs[20:24] == [int.from_bytes(bytes(range(64 + 4 * k, 68 + 4 * k)), "little") for k in range(4)]
    setdma_special(issue, 1, 2, 3 | 4, 7, 0, 2 * 20)  # WhichPackers & 3 = 3, bytes 16..31
    assert regs[20] == int.from_bytes(bytes(range(96 + 16, 96 + 20)), "little")
    setdma_special(issue, 1, 1, 0b0101, 8, 0, 2 * 30)  # AllZeroFlags bit 0 of each; reset mask
    assert regs[30] == 0b0101 and tile.tensix.pack.resets == [0, 2]
    setdma_special(issue, 1, 1, 0, 9, 0, 2 * 31)
    assert regs[31] == 0x87
    setdma_special(issue, 1, 2, 0, 12, 0, 2 * 32)  # no such source: zeros
    assert regs[32:36] == [0, 0, 0, 0]


def test_setdmareg_special_tile_header():
    """SETDMAREG_Special.md, InputSource 2..5: TileSize (+1), DataFormat, the
    DisableZeroCompression choice, AllZeroFlags; ResultSize 3 keeps reserved fields."""
    tile, issue = make()
    packer_state(tile)
    cfg = tile.tensix.config
    cfg.set("THCON_SEC1_REG1_Out_data_format", 5, 0)  # packer 2
    cfg.set("THCON_SEC1_REG1_Disable_zero_compress", 1, 0)
    regs = gprs(tile, 1)
    regs[12:16] = [0xAAAAAAAA] * 4
    setdma_special(issue, 1, 3, 0, 4, 0, 2 * 13)  # packer 2, into GPRs 12..15 (& 0x3C)
    assert regs[12:16] == [0xAAAA0034, 0xAA15AAAA, 0xF0000003, 0xAAAAAAAA]
    setdma_special(issue, 1, 2, 0, 4, 0, 2 * 12)
    assert regs[12:16] == [0x34, 0x00150000, 0xF0000003, 0]
    # override: All_pack_disable_zero_compress bit i
    cfg.set("THCON_SEC0_REG1_All_pack_disable_zero_compress_ovrd", 1, 0)
    cfg.set("THCON_SEC0_REG1_All_pack_disable_zero_compress", 0b1011, 0)
    setdma_special(issue, 1, 2, 0, 4, 0, 2 * 12)
    assert regs[13] == 0x00050000
    setdma_special(issue, 1, 2, 0, 3, 0, 2 * 12)  # packer 1: last thread 0 -> TileSize 1
    assert regs[12:14] == [1, 0x00100000]
    # thread 2 / packer 3: LastTileSize 0xFFFF + 1 wraps to 0
    gprs(tile, 2)[0] = M32
    setdma_special(issue, 2, 1, 0, 5, 0, 0)
    assert gprs(tile, 2)[0] == 0


def test_setdmareg_special_without_packer_state():
    """With no packer state (packers not run), everything reads as 0, TileSize as 1."""
    tile, issue = make()
    setdma_special(issue, 0, 2, 0xF, 8, 0, 0)
    setdma_special(issue, 0, 2, 0, 2, 0, 8)
    assert gprs(tile)[0:8] == [0, 0, 0, 0, 1, 0, 0, 0]


# -- FLUSHDMA / DMANOP ---------------------------------------------------------------------
def test_flushdma_and_dmanop_complete():
    """FLUSHDMA.md: nothing outstanding in the model, so it completes; DMANOP.md."""
    tile, issue = make()
    for mask in (0, 1, 0xF):
        assert issue(0, "FLUSHDMA", FlushSpec=mask).held is None
    assert issue(0, "DMANOP").held is None
    assert tile.tensix.threads[0].issued == 4
