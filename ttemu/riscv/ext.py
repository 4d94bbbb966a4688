"""RISC-V extensions beyond RV32IM + Zicsr, as Python expressions for the block
translator. Which ones a core decodes is arch data (``ArchSpec.riscv_extensions``);
an encoding of an extension the arch lacks stays an illegal instruction.

Blackhole (tt-isa-documentation BlackholeA0/TensixTile/BabyRISCV/README.md
"Instruction set" and InstructionSet.md): Zaamo (``amo*.w``, on L1 only: atomics
"cannot be used against MMIO memory locations"), Zba (``sh1add``/``sh2add``/``sh3add``),
Zbb (``andn orn xnor min max minu maxu rol ror rori clz ctz cpop sext.b sext.h zext.h
orc.b rev8``), from Zbkb ``pack`` and ``brev8`` (the toolchain's ``xttzbkb``; ``packh``,
``zip``, ``unzip`` are absent) and ``grevi`` as in Bitmanip 0.94-draft (``rev8`` and
``brev8`` are two of its forms). Encodings: the RISC-V bit-manipulation spec 1.0.0 and
the 0.94 draft (``grevi``: OP-IMM funct3 5, imm[11:5] = 0b0110100).

Each builder returns a Python expression over the operand expressions it is given
(register locals or the literal ``0``), or None when the encoding is not one of the
extension's.
"""

from __future__ import annotations

ZAAMO, ZBA, ZBB, XTTZBKB, GREVI = "zaamo", "zba", "zbb", "xttzbkb", "grevi"
ALL = frozenset((ZAAMO, ZBA, ZBB, XTTZBKB, GREVI))

_M = "0xFFFFFFFF"
_GREV_STAGES = ((1, 0x55555555), (2, 0x33333333), (4, 0x0F0F0F0F), (8, 0x00FF00FF), (16, 0x0000FFFF))


def grev(x: int, k: int) -> int:
    """Generalised reverse (Bitmanip 0.94 ``grev``): for each set bit 2^i of ``k``, swap
    adjacent 2^i-bit blocks. k = 24 reverses the bytes (rev8), k = 7 the bits of each
    byte (brev8), k = 31 the whole word."""
    for step, mask in _GREV_STAGES:
        if k & step:
            x = ((x & mask) << step) | ((x >> step) & mask)
    return x & 0xFFFFFFFF


def orc_b(x: int) -> int:
    """Zbb orc.b: each byte becomes 0xFF if any of its bits is set, else 0x00."""
    return sum(0xFF << s for s in (0, 8, 16, 24) if (x >> s) & 0xFF)


#: callables the generated code may name (globals of the block functions)
HELPERS = {"GREV": grev, "ORCB": orc_b}


#: OP (opcode 0x33) encodings beyond RV32IM: (funct7, funct3) -> (extension, mnemonic,
#: expression over A, B (unsigned) and sA, sB (signed)); the translator and the
#: disassembler both read it
OP = {
    (0x20, 7): (ZBB, "andn", "{A} & ({B} ^ " + _M + ")"),
    (0x20, 6): (ZBB, "orn", "{A} | ({B} ^ " + _M + ")"),
    (0x20, 4): (ZBB, "xnor", "{A} ^ {B} ^ " + _M),
    (0x05, 4): (ZBB, "min", "{A} if {sA} < {sB} else {B}"),
    (0x05, 5): (ZBB, "minu", "{A} if {A} < {B} else {B}"),
    (0x05, 6): (ZBB, "max", "{A} if {sA} > {sB} else {B}"),
    (0x05, 7): (ZBB, "maxu", "{A} if {A} > {B} else {B}"),
    (0x30, 1): (ZBB, "rol", "(({A} << ({B} & 31)) | ({A} >> (-{B} & 31))) & " + _M),
    (0x30, 5): (ZBB, "ror", "(({A} >> ({B} & 31)) | ({A} << (-{B} & 31))) & " + _M),
    (0x10, 2): (ZBA, "sh1add", "(({A} << 1) + {B}) & " + _M),
    (0x10, 4): (ZBA, "sh2add", "(({A} << 2) + {B}) & " + _M),
    (0x10, 6): (ZBA, "sh3add", "(({A} << 3) + {B}) & " + _M),
    # pack (Zbkb); with rs2 = x0 it is Zbb's zext.h (the one form Zbb alone has)
    (0x04, 4): (XTTZBKB, "pack", "({A} & 0xFFFF) | (({B} & 0xFFFF) << 16)"),
}
ZEXT_H = (ZBB, "zext.h", "{A} & 0xFFFF")

#: OP-IMM (opcode 0x13) funct3 1 encodings beyond RV32I, by instruction bits [31:20]
OP_IMM_UNARY = {
    0x600: (ZBB, "clz", "32 - ({A}).bit_length()"),
    0x601: (ZBB, "ctz", "(({A} & -{A}).bit_length() - 1) if {A} else 32"),
    0x602: (ZBB, "cpop", "({A}).bit_count()"),
    0x604: (ZBB, "sext.b", "((({A} & 0xFF) ^ 0x80) - 0x80) & " + _M),
    0x605: (ZBB, "sext.h", "((({A} & 0xFFFF) ^ 0x8000) - 0x8000) & " + _M),
}


def _op_entry(ext, f7, f3, rs2):
    """The OP table's entry an encoding executes as under ``ext``, or None."""
    entry = OP.get((f7, f3))
    if entry is None:
        return None
    if entry[1] == "pack" and XTTZBKB not in ext:
        return ZEXT_H if ZBB in ext and rs2 == 0 else None
    return entry if entry[0] in ext else None


def op(ext, f7: int, f3: int, rs2: int, A: str, B: str, sA: str, sB: str) -> str | None:
    """OP (opcode 0x33) encodings beyond RV32IM."""
    entry = _op_entry(ext, f7, f3, rs2)
    return None if entry is None else entry[2].format(A=A, B=B, sA=sA, sB=sB)


def _op_imm_entry(ext, f3, imm):
    """-> (extension, mnemonic, expression, shift operand or None) or None."""
    if f3 == 1:
        entry = OP_IMM_UNARY.get(imm)
        return entry + (None,) if entry is not None and entry[0] in ext else None
    if f3 != 5:
        return None
    sh = imm & 31
    if imm >> 5 == 0x30 and ZBB in ext:  # rori
        return (ZBB, "rori", "(({A} >> %d) | ({A} << %d)) & %s" % (sh, -sh & 31, _M) if sh else "{A}", sh)
    if imm == 0x287 and ZBB in ext:
        return (ZBB, "orc.b", "ORCB({A})", None)
    if imm >> 5 == 0x34:  # grevi; rev8 (Zbb) and brev8 (Zbkb) are grevi 24 and 7
        expr = "GREV({A}, %d)" % sh
        if imm == 0x698 and (ZBB in ext or GREVI in ext):
            return (ZBB, "rev8", expr, None)
        if imm == 0x687 and (XTTZBKB in ext or GREVI in ext):
            return (XTTZBKB, "brev8", expr, None)
        if GREVI in ext:
            return (GREVI, "grevi", expr, sh)
    return None


def op_imm(ext, f3: int, imm: int, A: str, sA: str) -> str | None:
    """OP-IMM (opcode 0x13) shift-group encodings (funct3 1 and 5) beyond RV32I;
    ``imm`` is instruction bits [31:20]."""
    entry = _op_imm_entry(ext, f3, imm)
    return None if entry is None else entry[2].format(A=A)


_ABI = ("zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
        "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6")


def disasm(ext, word: int) -> tuple | None:
    """(mnemonic, operands) of an extension instruction of ``ext``, or None: the names
    the RISC-V bit-manipulation spec (and objdump) give them."""
    opcode, rd, f3, rs1 = word & 0x7F, (word >> 7) & 31, (word >> 12) & 7, (word >> 15) & 31
    if opcode == 0x33:
        rs2 = (word >> 20) & 31
        entry = _op_entry(ext, word >> 25, f3, rs2)
        if entry is None:
            return None
        if entry is ZEXT_H or (rs2 == 0 and entry[1] == "pack" and ZBB in ext):  # objdump's name for it
            return "zext.h", f"{_ABI[rd]}, {_ABI[rs1]}"
        return entry[1], f"{_ABI[rd]}, {_ABI[rs1]}, {_ABI[rs2]}"
    if opcode == 0x13:
        entry = _op_imm_entry(ext, f3, word >> 20)
        if entry is None:
            return None
        ops = f"{_ABI[rd]}, {_ABI[rs1]}"
        return entry[1], ops if entry[3] is None else f"{ops}, {entry[3]}"
    return None


#: Zaamo funct5 -> the value stored, over the old word ``_o`` and the operand B / sB
def amo(ext, funct5: int, B: str, sB: str) -> str | None:
    if ZAAMO not in ext:
        return None
    so = "((_o ^ 0x80000000) - 0x80000000)"
    return {
        0x00: f"(_o + {B}) & {_M}",  # amoadd.w
        0x01: B,  # amoswap.w
        0x04: f"_o ^ {B}",  # amoxor.w
        0x08: f"_o | {B}",  # amoor.w
        0x0C: f"_o & {B}",  # amoand.w
        0x10: f"_o if {so} < {sB} else {B}",  # amomin.w
        0x14: f"_o if {so} > {sB} else {B}",  # amomax.w
        0x18: f"_o if _o < {B} else {B}",  # amominu.w
        0x1C: f"_o if _o > {B} else {B}",  # amomaxu.w
    }.get(funct5)


AMO_NAMES = {0x00: "amoadd.w", 0x01: "amoswap.w", 0x04: "amoxor.w", 0x08: "amoor.w", 0x0C: "amoand.w",
             0x10: "amomin.w", 0x14: "amomax.w", 0x18: "amominu.w", 0x1C: "amomaxu.w"}
