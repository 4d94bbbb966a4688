"""RV32IM + Zicsr semantics of the baby cores, instruction by instruction.

Programs are built with the test-only assembler (tests/rv32asm.py) and checked
against a small independent reference written here with plain Python ints. Results
go to L1 at ``RES`` through ``gp`` (x3), which the generated cases never touch.
"""

from __future__ import annotations

import os
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))

import rv32asm as asm  # noqa: E402
from rv32asm import (CSR_CYCLE, CSR_INSTRET, CSR_MHARTID, Program, a0, a1, a2, gp, ra,  # noqa: E402
                     s1, s2, s3, t0, t1, t2, t3, zero)

from ttemu import GuestAssertion, GuestFault, Tile  # noqa: E402

M32 = 0xFFFFFFFF
INT_MIN, INT_MAX = 0x80000000, 0x7FFFFFFF
BASE = {"brisc": 0x0, "trisc0": 0x6000, "trisc1": 0xA000, "trisc2": 0xE000, "ncrisc": 0x12000}
LOCAL = 0xFFB00000
LOCAL_SIZE = {"brisc": 4096, "trisc0": 2048, "trisc1": 2048, "trisc2": 2048, "ncrisc": 4096}
SOFT_RESET = 0xFFB121B0
TRISC_PC0, TRISC_PC_EN = 0xFFEF0278, 0xFFEF0284  # Config words 158..160 and 161
L1_SIZE = 1464 * 1024
SCRATCH = 0x30000  # L1 data used by tests (clear of every core's code)
RES = 0x40000  # L1 result words

FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SOME = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------ reference
def s32(v):
    v &= M32
    return v - (1 << 32) if v & INT_MIN else v


def _div(a, b):
    if b == 0:
        return M32
    if s32(a) == -(1 << 31) and s32(b) == -1:
        return INT_MIN
    return int(Fraction(s32(a), s32(b)))  # int() truncates toward zero


def _rem(a, b):
    if b == 0:
        return a
    if s32(a) == -(1 << 31) and s32(b) == -1:
        return 0
    return s32(a) - s32(b) * int(Fraction(s32(a), s32(b)))


REF = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "sll": lambda a, b: a << (b & 31),
    "slt": lambda a, b: int(s32(a) < s32(b)),
    "sltu": lambda a, b: int(a < b),
    "xor": lambda a, b: a ^ b,
    "srl": lambda a, b: a >> (b & 31),
    "sra": lambda a, b: s32(a) >> (b & 31),
    "or_": lambda a, b: a | b,
    "and_": lambda a, b: a & b,
    "mul": lambda a, b: a * b,
    "mulh": lambda a, b: (s32(a) * s32(b)) >> 32,
    "mulhsu": lambda a, b: (s32(a) * b) >> 32,
    "mulhu": lambda a, b: (a * b) >> 32,
    "div": _div,
    "divu": lambda a, b: a // b if b else M32,
    "rem": _rem,
    "remu": lambda a, b: a % b if b else a,
}
R_OPS = sorted(REF)
# immediate forms: name -> register op of the same semantics (imm sign-extended to 32 bits)
I_OPS = {"addi": "add", "slti": "slt", "sltiu": "sltu", "xori": "xor", "ori": "or_", "andi": "and_",
         "slli": "sll", "srli": "srl", "srai": "sra"}
BRANCH = {
    "beq": lambda a, b: a == b, "bne": lambda a, b: a != b,
    "blt": lambda a, b: s32(a) < s32(b), "bge": lambda a, b: s32(a) >= s32(b),
    "bltu": lambda a, b: a < b, "bgeu": lambda a, b: a >= b,
}

EDGE = [0, 1, 2, 31, 32, 33, 63, 0xFFFF, 0x10000, 0x12345678, INT_MAX, INT_MIN, INT_MIN + 1, M32, M32 - 1]
IMM_EDGE = [0, 1, -1, 2, 31, -2048, 2047, -2047, 0x555, -0x556]
u32 = st.one_of(st.sampled_from(EDGE), st.integers(0, M32))
imm12 = st.one_of(st.sampled_from(IMM_EDGE), st.integers(-2048, 2047))
reg = st.integers(0, 31).filter(lambda r: r != gp)


# ------------------------------------------------------------------ harness
def program(core="brisc"):
    p = Program(BASE[core])
    p.li(gp, RES)
    return p


def run(p, core="brisc", *, tile=None, max_steps=200_000, outcome="halted"):
    tile = tile or Tile("wormhole_b0")
    tile.write(p.base, p.assemble())
    tile.release([core])
    res = tile.run(max_steps=max_steps)
    assert res.outcome == outcome, res
    return tile, res


def results(tile, n, base=RES):
    data = tile.read(base, 4 * n)
    return [int.from_bytes(data[4 * i:4 * i + 4], "little") for i in range(n)]


def store_result(p, k, r):
    assert 4 * k < 2048
    p.sw(r, 4 * k, gp)


def fault_of(p, core="brisc", exc=GuestFault):
    tile = Tile("wormhole_b0")
    tile.write(p.base, p.assemble())
    tile.release([core])
    with pytest.raises(exc) as info:
        tile.run(max_steps=10_000)
    return info.value


# ------------------------------------------------------------------ ALU: register forms
def check_rtype(op, cases):
    """cases: (a, b, rd, rs1, rs2). rs1 is loaded with a, then rs2 with b."""
    p = program()
    expect = []
    for k, (a, b, rd, rs1, rs2) in enumerate(cases):
        p.li(rs1, a).li(rs2, b)
        getattr(p, op)(rd, rs1, rs2)
        store_result(p, k, rd)
        va = 0 if rs1 == 0 else (b if rs1 == rs2 else a)
        vb = 0 if rs2 == 0 else b
        expect.append(0 if rd == 0 else REF[op](va, vb) & M32)
    p.halt()
    tile, _ = run(p)
    assert results(tile, len(cases)) == expect


@pytest.mark.parametrize("op", R_OPS)
def test_rtype_edge_values(op):
    check_rtype(op, [(a, b, a2, a0, a1) for a in EDGE for b in EDGE])


@pytest.mark.parametrize("op", R_OPS)
@FAST
@given(cases=st.lists(st.tuples(u32, u32, reg, reg, reg), min_size=1, max_size=6))
def test_rtype_random(op, cases):
    check_rtype(op, cases)


# ------------------------------------------------------------------ ALU: immediate forms
def check_itype(op, cases):
    p = program()
    expect = []
    for k, (a, imm, rd, rs1) in enumerate(cases):
        p.li(rs1, a)
        getattr(p, op)(rd, rs1, imm)
        store_result(p, k, rd)
        va = 0 if rs1 == 0 else a
        expect.append(0 if rd == 0 else REF[I_OPS[op]](va, imm & M32) & M32)
    p.halt()
    tile, _ = run(p)
    assert results(tile, len(cases)) == expect


def _imm_values(op):
    return list(range(32)) if op in ("slli", "srli", "srai") else IMM_EDGE


@pytest.mark.parametrize("op", sorted(I_OPS))
def test_itype_edge_values(op):
    check_itype(op, [(a, imm, a2, a0) for a in EDGE for imm in _imm_values(op)])


@pytest.mark.parametrize("op", sorted(I_OPS))
@FAST
@given(data=st.data())
def test_itype_random(op, data):
    imm = st.integers(0, 31) if op in ("slli", "srli", "srai") else imm12
    check_itype(op, data.draw(st.lists(st.tuples(u32, imm, reg, reg), min_size=1, max_size=6)))


# Known answers from the RISC-V spec (M extension table, shifts use rs2[4:0]),
# independent of the reference functions above.
KNOWN = [
    ("div", 7, 0, M32), ("divu", 7, 0, M32), ("rem", 7, 0, 7), ("remu", 7, 0, 7),
    ("div", INT_MIN, M32, INT_MIN), ("rem", INT_MIN, M32, 0),
    ("div", -7 & M32, 2, -3 & M32), ("rem", -7 & M32, 2, -1 & M32), ("rem", 7, -2 & M32, 1),
    ("divu", INT_MIN, M32, 0), ("remu", INT_MIN, M32, INT_MIN),
    ("mul", INT_MAX, 2, 0xFFFFFFFE), ("mul", INT_MIN, M32, INT_MIN),
    ("mulh", INT_MIN, INT_MIN, 0x40000000), ("mulh", INT_MIN, M32, 0), ("mulh", M32, M32, 0),
    ("mulhu", M32, M32, 0xFFFFFFFE), ("mulhsu", M32, M32, M32), ("mulhsu", INT_MIN, M32, 0x80000000),
    ("mulhsu", 1, M32, 0),
    ("sll", 1, 31, INT_MIN), ("sll", 1, 32, 1), ("sll", 1, 33, 2), ("srl", INT_MIN, 32, INT_MIN),
    ("srl", INT_MIN, 33, 0x40000000), ("sra", INT_MIN, 31, M32), ("sra", INT_MIN, 63, M32),
    ("sra", INT_MIN, 32, INT_MIN), ("srl", M32, M32, 1),
    ("slt", INT_MIN, INT_MAX, 1), ("slt", INT_MAX, INT_MIN, 0), ("slt", M32, 0, 1),
    ("sltu", INT_MIN, INT_MAX, 0), ("sltu", 0, M32, 1), ("sltu", 5, 5, 0),
    ("sltiu", 5, -1, 1), ("sltiu", M32, -1, 0), ("slti", M32, 0, 1), ("slti", INT_MIN, -2048, 1),
    ("srai", INT_MIN, 31, M32), ("srli", INT_MIN, 31, 1), ("slli", 3, 31, INT_MIN),
    ("addi", INT_MAX, 1, INT_MIN), ("sub", 0, 1, M32), ("xori", 0x1234, -1, 0x1234 ^ M32),
]


def test_known_answers():
    p = program()
    for k, (op, a, b, _) in enumerate(KNOWN):
        p.li(a0, a)
        if op in I_OPS:
            getattr(p, op)(a2, a0, b)
        else:
            p.li(a1, b)
            getattr(p, op)(a2, a0, a1)
        store_result(p, k, a2)
    p.halt()
    tile, _ = run(p)
    got = results(tile, len(KNOWN))
    assert [(op, a, b, hex(g)) for (op, a, b, _), g in zip(KNOWN, got)] == \
           [(op, a, b, hex(e)) for op, a, b, e in KNOWN]


def test_x0_is_hardwired_zero():
    p = program()
    p.li(t0, 5)
    p.add(zero, t0, t0)
    p.addi(zero, zero, 7)
    p.lui(zero, 0x12345)
    p.auipc(zero, 0x1)
    p.lw(zero, 0, gp)  # a load into x0 still executes (valid address) but is dropped
    p.csrr(zero, CSR_CYCLE)
    p.mul(zero, t0, t0)
    store_result(p, 0, zero)
    p.add(t1, zero, t0)  # x0 reads as 0
    store_result(p, 1, t1)
    p.jal(zero, 8)  # no link register written
    p.ebreak()
    p.sub(t2, zero, t0)
    store_result(p, 2, t2)
    p.halt()
    tile, _ = run(p)
    assert results(tile, 3) == [0, 5, (-5) & M32]
    assert tile.harts["brisc"].x[0] == 0


@SOME
@given(imms=st.lists(st.integers(0, (1 << 20) - 1), min_size=1, max_size=8),
       core=st.sampled_from(["brisc", "trisc1"]))
def test_lui_auipc(imms, core):
    p = program(core)
    expect = []
    for k, imm in enumerate(imms):
        p.lui(a0, imm)
        store_result(p, 2 * k, a0)
        pc = p.pc
        p.auipc(a1, imm)
        store_result(p, 2 * k + 1, a1)
        expect += [imm << 12, (pc + (imm << 12)) & M32]
    p.halt()
    tile, _ = run(p, core)
    assert results(tile, len(expect)) == expect


# ------------------------------------------------------------------ jumps and branches
@pytest.mark.parametrize("core", ["brisc", "trisc2"])
def test_jal_jalr_links_and_targets(core):
    p = program(core)
    links = []
    # jal forward: ra = address of the jal + 4
    links.append(p.pc + 4)
    p.jal(ra, "t1")
    p.ebreak()
    p.label("t1")
    store_result(p, 0, ra)
    # jalr to an odd address: bit 0 is cleared
    p.la(s1, "t2").addi(s1, s1, 1)
    links.append(p.pc + 4)
    p.jalr(t0, s1, 0)
    p.ebreak()
    p.label("t2")
    store_result(p, 1, t0)
    # jalr with rd == rs1: the target uses the old value
    p.la(s2, "t3")
    links.append(p.pc + 4)
    p.jalr(s2, s2, 0)
    p.ebreak()
    p.label("t3")
    store_result(p, 2, s2)
    # jalr with a negative immediate giving an odd sum
    p.la(s3, "t4").addi(s3, s3, 2047)
    links.append(p.pc + 4)
    p.jalr(a0, s3, -2046)
    p.ebreak()
    p.label("t4")
    store_result(p, 3, a0)
    # jal backward, then jump back with jalr through the link
    p.j("fwd")
    p.label("back")
    p.addi(t3, zero, 42)
    p.jalr(zero, ra, 0)
    p.label("fwd")
    links.append(p.pc + 4)
    p.jal(ra, "back")
    store_result(p, 4, ra)
    store_result(p, 5, t3)
    p.halt()
    tile, _ = run(p, core)
    assert results(tile, 6) == links + [42]


@pytest.mark.parametrize("offset", [2, 6, -2])
def test_jump_to_misaligned_target_faults(offset):
    p = program()
    p.la(t0, "target").addi(t0, t0, offset)
    pc = p.pc
    p.jalr(ra, t0, 0)
    p.nop()
    p.label("target")
    p.halt()
    e = fault_of(p)
    assert e.pc == pc and "misaligned" in str(e)


def check_branches(op, pairs):
    """Each case alternates forward and backward branch targets; stores 2 if taken,
    1 if not."""
    p = program()
    expect = []
    for k, (a, b) in enumerate(pairs):
        if k % 2:  # backward
            p.j(f"start{k}")
            p.label(f"taken{k}")
            p.addi(t0, zero, 2)
            p.j(f"done{k}")
            p.label(f"start{k}")
            p.li(a0, a).li(a1, b)
            getattr(p, op)(a0, a1, f"taken{k}")
            p.addi(t0, zero, 1)
        else:
            p.li(a0, a).li(a1, b)
            getattr(p, op)(a0, a1, f"taken{k}")
            p.addi(t0, zero, 1)
            p.j(f"done{k}")
            p.label(f"taken{k}")
            p.addi(t0, zero, 2)
        p.label(f"done{k}")
        store_result(p, k, t0)
        expect.append(2 if BRANCH[op](a, b) else 1)
    p.halt()
    tile, _ = run(p)
    assert results(tile, len(pairs)) == expect


@pytest.mark.parametrize("op", sorted(BRANCH))
def test_branch_edge_values(op):
    check_branches(op, [(a, b) for a in EDGE[::2] for b in EDGE[::2]] + [(a, a) for a in EDGE])


@pytest.mark.parametrize("op", sorted(BRANCH))
@SOME
@given(pairs=st.lists(st.tuples(u32, u32), min_size=1, max_size=8))
def test_branch_random(op, pairs):
    check_branches(op, pairs)


def test_branch_same_register():
    p = program()
    for k, op in enumerate(sorted(BRANCH)):
        p.li(a0, INT_MIN)
        p.addi(t0, zero, 1)
        getattr(p, op)(a0, a0, f"taken{k}")
        p.addi(t0, zero, 0)
        p.label(f"taken{k}")
        store_result(p, k, t0)
    p.halt()
    tile, _ = run(p)
    assert results(tile, 6) == [1 if BRANCH[op](INT_MIN, INT_MIN) else 0 for op in sorted(BRANCH)]


# ------------------------------------------------------------------ loads and stores
def data_window(core, where, size):
    """Address of a ``size``-byte window: in L1, or at the top of the core's local RAM."""
    return SCRATCH if where == "l1" else LOCAL + LOCAL_SIZE[core] - size


LOAD_REF = {
    "lb": (1, True), "lbu": (1, False), "lh": (2, True), "lhu": (2, False), "lw": (4, False),
}


@pytest.mark.parametrize("core", ["brisc", "trisc0", "ncrisc"])
@pytest.mark.parametrize("where", ["l1", "local"])
@SOME
@given(data=st.binary(min_size=16, max_size=16))
def test_loads_sign_and_zero_extension(core, where, data):
    base = data_window(core, where, 16)
    p = program(core)
    p.li(s1, base + 8)  # negative and positive offsets
    expect = []
    for op, (width, signed) in LOAD_REF.items():
        for off in range(0, 16, width):
            getattr(p, op)(a0, off - 8, s1)
            store_result(p, len(expect), a0)
            v = int.from_bytes(data[off:off + width], "little")
            if signed and v >> (8 * width - 1):
                v -= 1 << (8 * width)
            expect.append(v & M32)
    p.halt()
    tile = Tile("wormhole_b0")
    tile.write(base, data, core=core)
    tile, _ = run(p, core, tile=tile)
    assert results(tile, len(expect)) == expect


@pytest.mark.parametrize("core", ["brisc", "trisc2"])
@pytest.mark.parametrize("where", ["l1", "local"])
@SOME
@given(value=u32)
def test_store_byte_lanes(core, where, value):
    cases = [(op, w, off) for op, w in (("sb", 1), ("sh", 2), ("sw", 4)) for off in range(0, 8, w)]
    base = data_window(core, where, 8 * len(cases))
    fill = bytes(range(0xA0, 0xA8))
    p = program(core)
    p.li(s1, base).li(a0, value)
    expect = b""
    for k, (op, w, off) in enumerate(cases):
        getattr(p, op)(a0, 8 * k + off, s1)
        win = bytearray(fill)
        win[off:off + w] = (value & ((1 << 8 * w) - 1)).to_bytes(w, "little")
        expect += win
    p.halt()
    tile = Tile("wormhole_b0")
    tile.write(base, fill * len(cases), core=core)
    tile, _ = run(p, core, tile=tile)
    assert tile.read(base, len(expect), core=core) == expect


def test_local_ram_is_per_core():
    tile = Tile("wormhole_b0")
    for k, core in enumerate(["brisc", "trisc0", "trisc1", "ncrisc"]):
        p = Program(BASE[core])
        p.li(t0, 0x1000 + k).li(s1, LOCAL)
        p.sw(t0, 0x10, s1)
        p.lw(t1, 0x10, s1)
        p.li(gp, RES)
        store_result(p, k, t1)
        p.halt()
        tile.write(p.base, p.assemble())
    tile.release(["brisc", "trisc0", "trisc1", "ncrisc"])
    assert tile.run(max_steps=10_000).outcome == "halted"
    assert results(tile, 4) == [0x1000, 0x1001, 0x1002, 0x1003]
    for k, core in enumerate(["brisc", "trisc0", "trisc1", "ncrisc"]):
        assert tile.read_u32(LOCAL + 0x10, core=core) == 0x1000 + k
    assert tile.read_u32(LOCAL + 0x10, core="trisc2") == 0


MISALIGNED = [("lh", 2, 1), ("lhu", 2, 3), ("lw", 4, 1), ("lw", 4, 2), ("lw", 4, 3),
              ("sh", 2, 1), ("sw", 4, 1), ("sw", 4, 2), ("sw", 4, 3)]


@pytest.mark.parametrize("op,width,off", MISALIGNED)
@pytest.mark.parametrize("core,where", [("brisc", "l1"), ("trisc1", "l1"), ("trisc2", "local"),
                                        ("ncrisc", "local")])
def test_misaligned_access_faults(op, width, off, core, where):
    addr = data_window(core, where, 16) + off
    p = program(core)
    p.li(s1, addr - off).li(a0, 0x11223344)
    pc = p.pc
    getattr(p, op)(a0, off, s1)
    p.halt()
    e = fault_of(p, core)
    assert not isinstance(e, GuestAssertion)
    msg = str(e)
    assert e.core == core and e.pc == pc
    assert core in msg and f"pc 0x{pc:08x}" in msg and f"0x{addr:08x}" in msg and f"{width}-byte" in msg


UNMAPPED = [("brisc", "lw", 0x20000000), ("brisc", "sw", 0x20000000), ("brisc", "lb", 0x10000000),
            ("brisc", "lw", L1_SIZE), ("ncrisc", "sb", L1_SIZE + 4),
            ("trisc0", "lw", LOCAL + 0x800), ("trisc1", "sw", LOCAL + 0x800), ("trisc2", "lbu", LOCAL + 0xFFF)]


@pytest.mark.parametrize("core,op,addr", UNMAPPED)
def test_unmapped_access_faults(core, op, addr):
    p = program(core)
    p.li(s1, addr)
    pc = p.pc
    getattr(p, op)(a0, 0, s1)
    p.halt()
    e = fault_of(p, core)
    assert e.core == core and e.pc == pc
    assert f"0x{addr:08x}" in str(e) and core in str(e)


@pytest.mark.parametrize("core", ["brisc", "ncrisc"])
def test_upper_local_ram_of_4k_cores(core):
    p = program(core)
    p.li(s1, LOCAL + 0x800).li(a0, 0x5A5A1234)
    p.sw(a0, 0, s1).lw(a1, 0, s1)
    store_result(p, 0, a1)
    p.halt()
    tile, _ = run(p, core)
    assert results(tile, 1) == [0x5A5A1234]
    assert tile.read_u32(LOCAL + 0x800, core=core) == 0x5A5A1234


# ------------------------------------------------------------------ system instructions
def test_ecall_faults():
    p = program()
    pc = p.pc
    p.ecall().halt()
    e = fault_of(p)
    assert type(e) is GuestFault and e.pc == pc and "ecall" in str(e)


def test_ebreak_is_an_assertion():
    p = program("trisc0")
    pc = p.pc
    p.ebreak().halt()
    e = fault_of(p, "trisc0", GuestAssertion)
    assert e.core == "trisc0" and e.pc == pc


ILLEGAL = {
    "all-ones": 0xFFFFFFFF,
    "ld (RV64)": asm.i_type(0x03, 3, a0, s1, 0),
    "sd (RV64)": asm.s_type(0x23, 3, s1, a0, 0),
    "branch funct3=2": asm.b_type(0x63, 2, a0, a1, 8),
    "add funct7=0x40": asm.r_type(0x33, 0, 0x40, a0, a1, a2),
    "slli shamt[5]": asm.slli(a0, a1, 1) | (1 << 25),
    "jalr funct3=1": asm.i_type(0x67, 1, a0, a1, 0),
    "flw (no F)": asm.i_type(0x07, 2, a0, a1, 0),
}


@pytest.mark.parametrize("name", sorted(ILLEGAL))
def test_illegal_instruction_faults(name):
    p = program()
    p.nop()
    pc = p.pc
    p.word(ILLEGAL[name]).halt()
    e = fault_of(p)
    assert type(e) is GuestFault and e.pc == pc
    assert "illegal instruction" in str(e) and f"0x{ILLEGAL[name]:08x}" in str(e)


@pytest.mark.parametrize("core,hartid", [("brisc", 0), ("trisc0", 1), ("trisc1", 2), ("trisc2", 3),
                                         ("ncrisc", 4)])
def test_mhartid(core, hartid):
    # ttemu's numbering (brisc, trisc0..2, ncrisc = 0..4); the WH documentation does not
    # list mhartid (Blackhole's CSR page says it always reads 0 there).
    p = program(core)
    p.csrr(a0, CSR_MHARTID)
    store_result(p, 0, a0)
    p.halt()
    tile, _ = run(p, core)
    assert results(tile, 1) == [hartid]


def test_counters_advance():
    p = program()
    p.csrr(s1, CSR_INSTRET).csrr(s2, CSR_CYCLE)
    p.li(t0, 10_000)
    p.label("loop")
    p.addi(t0, t0, -1).bne(t0, zero, "loop")
    p.csrr(a0, CSR_INSTRET).csrr(a1, CSR_CYCLE)
    for k, r in enumerate((s1, s2, a0, a1)):
        store_result(p, k, r)
    p.halt()
    tile, _ = run(p)
    i0, c0, i1, c1 = results(tile, 4)
    between = 2 + 2 + 20_000  # csrr cycle, li, the loop
    assert 0 < i1 - i0 <= between + 1
    assert 0 < c1 - c0 <= between + 1


def test_instret_counts_each_retired_instruction():
    p = Program(BASE["brisc"])
    p.nop().nop().nop()
    p.csrr(a0, CSR_INSTRET)  # three instructions retired before it
    p.nop()
    p.csrr(a1, CSR_INSTRET)
    p.csrr(a2, CSR_CYCLE)  # single core: the tile clock equals this core's count
    p.halt()
    tile, _ = run(p)
    x = tile.harts["brisc"].x
    assert (x[a0], x[a1], x[a2]) == (3, 5, 6)


# ------------------------------------------------------------------ self-modifying code
SMC_WORDS = [asm.addi(a1, a1, 1), asm.addi(a1, a1, 16), asm.addi(a1, a1, 256)]


@pytest.mark.parametrize("core", ["brisc", "trisc0"])
@pytest.mark.parametrize("layout", ["same-block-later", "same-block-earlier", "other-block"])
def test_self_modifying_code(core, layout):
    """A three-pass loop rewrites instruction Q (`addi a1, a1, ...`) each pass; every
    pass must execute the word most recently stored there (1 + 16 + 256)."""
    p = program(core)
    table = SMC_WORDS if layout != "same-block-earlier" else SMC_WORDS[1:] + [SMC_WORDS[2]]
    p.li(s1, SCRATCH).li(s2, 3).li(a1, 0).la(s3, "Q")
    p.label("loop")
    if layout == "same-block-earlier":  # Q runs, then a later store in the block rewrites it
        p.label("Q").emit(SMC_WORDS[0])
        p.lw(t0, 0, s1).sw(t0, 0, s3)
    else:
        p.lw(t0, 0, s1).sw(t0, 0, s3)
        if layout == "other-block":
            p.j("next")
            p.label("next")
        p.nop()
        p.label("Q").emit(SMC_WORDS[0])
    p.addi(s1, s1, 4).addi(s2, s2, -1).bne(s2, zero, "loop")
    store_result(p, 0, a1)
    p.halt()
    tile = Tile("wormhole_b0")
    tile.write(SCRATCH, b"".join(w.to_bytes(4, "little") for w in table))
    tile, _ = run(p, core, tile=tile)
    assert results(tile, 1) == [1 + 16 + 256]


def test_store_from_other_core_rewrites_code():
    """trisc0 patches an instruction brisc keeps executing in a loop; brisc's next
    pass through it runs the new word."""
    tile = Tile("wormhole_b0", quantum=64)
    b = program("brisc")
    b.li(a1, 0).li(s1, SCRATCH)
    b.label("loop")
    b.label("Q").addi(a1, a1, 1)
    b.lw(t0, 0, s1).beq(t0, zero, "loop")  # spin until trisc0 has patched Q
    b.lw(t1, 4, s1).bne(t1, zero, "done")  # then one more pass through Q
    b.addi(t1, zero, 1).sw(t1, 4, s1).j("loop")
    b.label("done")
    store_result(b, 0, a1)
    b.halt()
    t = program("trisc0")
    t.li(s1, SCRATCH).la(s2, b.addr("Q")).li(t0, asm.addi(a1, a1, 0x100))
    t.sw(t0, 0, s2)
    t.addi(t1, zero, 1).sw(t1, 0, s1)
    t.halt()
    tile.write(b.base, b.assemble())
    tile.write(t.base, t.assemble())
    tile.release(["brisc", "trisc0"])
    assert tile.run(max_steps=1_000_000).outcome == "halted"
    n = results(tile, 1)[0]
    assert n & 0xFF >= 1 and 1 <= n >> 8 <= 2  # ran the old word, then the patched one


def test_self_modifying_store_counts_steps_exactly():
    p = Program(BASE["brisc"])
    p.la(t0, "Q").li(t1, asm.addi(a1, a1, 7))
    p.sw(t1, 0, t0)  # rewrites Q, later in the same block
    p.nop().nop()
    p.label("Q").addi(a1, a1, 1)
    p.nop()
    p.halt()
    tile, res = run(p)
    assert tile.harts["brisc"].x[a1] == 7
    assert (res.steps, res.cores["brisc"].steps) == (len(p), len(p))


# ------------------------------------------------------------------ multi-core, run control
@pytest.mark.parametrize("trisc_pc", [None, 0x7000])
def test_brisc_releases_trisc0(trisc_pc):
    b = program("brisc")
    if trisc_pc is not None:
        b.li(t0, TRISC_PC0).li(t1, trisc_pc).sw(t1, 0, t0)
        b.li(t0, TRISC_PC_EN).addi(t1, zero, 1).sw(t1, 0, t0)
    b.li(t0, SOFT_RESET).lw(t1, 0, t0)
    store_result(b, 2, t1)
    b.li(t2, ~(1 << 12) & M32).and_(t1, t1, t2).sw(t1, 0, t0)
    b.li(t3, 0xB0B0).sw(t3, 0, gp)
    b.halt()
    pc = trisc_pc if trisc_pc is not None else 0x6000
    t = Program(pc)
    t.li(gp, RES).li(t3, 0x7070)
    store_result(t, 1, t3)
    t.label("end").halt()
    decoy = program("trisc0")
    decoy.li(t3, 0xBAD)
    store_result(decoy, 1, t3)
    decoy.halt()
    tile = Tile("wormhole_b0")
    if trisc_pc is not None:
        tile.write(decoy.base, decoy.assemble())
    tile.write(b.base, b.assemble())
    tile.write(t.base, t.assemble())
    tile.release(["brisc"])
    res = tile.run(max_steps=10_000)
    assert res.outcome == "halted"
    assert results(tile, 3) == [0xB0B0, 0x7070, 0x47800 & ~(1 << 11)]
    assert res.cores["brisc"].state == res.cores["trisc0"].state == "halted"
    assert res.cores["trisc0"].pc == t.addr("end")
    assert res.cores["trisc1"].state == "reset"
    assert tile.read_u32(SOFT_RESET) == 0x47800 & ~(1 << 11) & ~(1 << 12)


def racing_tile():
    """brisc and trisc0 both bump a shared L1 counter without synchronisation."""
    tile = Tile("wormhole_b0", quantum=100)
    for core, n in (("brisc", 3000), ("trisc0", 2000)):
        p = program(core)
        p.li(s1, SCRATCH).li(t0, n)
        p.label("loop")
        p.lw(a0, 0, s1).addi(a0, a0, 1).sw(a0, 0, s1).addi(t0, t0, -1).bne(t0, zero, "loop")
        p.halt()
        tile.write(p.base, p.assemble())
    tile.release(["brisc", "trisc0"])
    return tile


def test_determinism():
    outs = []
    for _ in range(2):
        tile = racing_tile()
        res = tile.run(max_steps=1_000_000)
        outs.append((res.outcome, res.steps, {c: (r.pc, r.steps, r.state) for c, r in res.cores.items()},
                     tile.read(0, 0x40000), [list(h.x) for h in tile.harts.values()]))
    assert outs[0] == outs[1]
    assert outs[0][0] == "halted"


def counting_program(core, body, res=RES):
    """li gp, res; li a0, 0; loop: ``body`` x addi a0, a0, 1; sw a0, 0(gp); j loop"""
    p = Program(BASE[core])
    p.li(gp, res)
    p.li(a0, 0)
    p.label("loop")
    for _ in range(body):
        p.addi(a0, a0, 1)
    p.sw(a0, 0, gp).j("loop")
    return p


def expected_count(setup, body, n):
    """(a0, stored value) after exactly n instructions of counting_program."""
    if n <= setup:
        return 0, 0
    full, part = divmod(n - setup, body + 2)
    return full * body + min(part, body), full * body + (body if part > body else 0)


@pytest.mark.parametrize("body", [1, 40])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 63, 64, 65, 100, 1001, 4097, 8191, 8192, 12345, 20000])
def test_max_steps_is_exact(body, n):
    p = counting_program("brisc", body)
    tile, res = run(p, max_steps=n, outcome="step-limit")
    assert res.steps == n and res.cores["brisc"].steps == n
    assert (tile.harts["brisc"].x[a0], results(tile, 1)[0]) == expected_count(4, body, n)


@pytest.mark.parametrize("n", [8193, 8200, 8228])
def test_max_steps_is_exact_just_above_the_quantum(n):
    # 4 set-up instructions, then 47-instruction blocks: the first turn (quantum 8192)
    # stops after 4 + 47 * 175 = 8229 instructions.
    p = counting_program("brisc", 45)
    _, res = run(p, max_steps=n, outcome="step-limit")
    assert res.steps == n


@pytest.mark.parametrize("n", [777, 5000, 9001])
def test_max_steps_is_exact_with_two_cores(n):
    tile = Tile("wormhole_b0", quantum=1000)
    for core in ("brisc", "trisc0"):
        p = counting_program(core, 3, RES + (0 if core == "brisc" else 4))
        tile.write(p.base, p.assemble())
    tile.release(["brisc", "trisc0"])
    res = tile.run(max_steps=n)
    assert res.outcome == "step-limit" and res.steps == n
    assert res.cores["brisc"].steps + res.cores["trisc0"].steps == n


def test_until_stops():
    p = program()
    p.li(s1, 500).li(a0, 0)
    p.label("loop")
    p.addi(a0, a0, 1).sw(a0, 0, gp).bne(a0, s1, "loop")
    p.addi(t0, zero, 1)
    store_result(p, 1, t0)
    p.label("spin")
    p.sw(a0, 8, gp).j("spin")  # keeps storing: never idle, never halted
    tile = Tile("wormhole_b0")
    tile.write(p.base, p.assemble())
    tile.release(["brisc"])
    res = tile.run(max_steps=10_000_000, until=[(RES + 4, 1)])
    assert res.outcome == "until"
    assert results(tile, 2) == [500, 1]
    assert res.steps < 100_000


def test_until_on_local_memory():
    p = program("trisc1")
    p.li(s1, LOCAL).li(t0, 0xD0E)
    p.sw(t0, 0x40, s1)
    p.label("spin")
    p.sw(t0, 0, gp).j("spin")
    tile = Tile("wormhole_b0")
    tile.write(p.base, p.assemble())
    tile.release(["trisc1"])
    res = tile.run(max_steps=10_000_000, until=[(LOCAL + 0x40, 0xD0E, "trisc1")])
    assert res.outcome == "until"


def test_spinning_reader_goes_idle():
    p = program()
    p.li(s1, SCRATCH)
    p.label("spin")
    p.lw(t0, 0, s1).beq(t0, zero, "spin")
    p.halt()
    tile = Tile("wormhole_b0")
    tile.write(p.base, p.assemble())
    tile.release(["brisc"])
    res = tile.run(max_steps=10_000_000, idle_steps=1000)
    assert res.outcome == "idle"
    assert res.steps < 3 * tile.quantum
    assert res.cores["brisc"].state == "running"
