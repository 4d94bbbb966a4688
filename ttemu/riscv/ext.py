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


def op(ext, f7: int, f3: int, rs2: int, A: str, B: str, sA: str, sB: str) -> str | None:
    """OP (opcode 0x33) encodings beyond RV32IM."""
    if ZBB in ext:
        e = {
            (0x20, 7): f"{A} & ({B} ^ {_M})",  # andn
            (0x20, 6): f"{A} | ({B} ^ {_M})",  # orn
            (0x20, 4): f"{A} ^ {B} ^ {_M}",  # xnor
            (0x05, 4): f"{A} if {sA} < {sB} else {B}",  # min
            (0x05, 5): f"{A} if {A} < {B} else {B}",  # minu
            (0x05, 6): f"{A} if {sA} > {sB} else {B}",  # max
            (0x05, 7): f"{A} if {A} > {B} else {B}",  # maxu
            (0x30, 1): f"(({A} << ({B} & 31)) | ({A} >> (-{B} & 31))) & {_M}",  # rol
            (0x30, 5): f"(({A} >> ({B} & 31)) | ({A} << (-{B} & 31))) & {_M}",  # ror
        }.get((f7, f3))
        if e is not None:
            return e
    if ZBA in ext and f7 == 0x10 and f3 in (2, 4, 6):  # sh1add, sh2add, sh3add
        return f"(({A} << {f3 >> 1}) + {B}) & {_M}"
    if (f7, f3) == (0x04, 4):  # pack (Zbkb); with rs2 = x0 it is Zbb's zext.h
        if XTTZBKB in ext:
            return f"({A} & 0xFFFF) | (({B} & 0xFFFF) << 16)"
        if ZBB in ext and rs2 == 0:
            return f"{A} & 0xFFFF"
    return None


def op_imm(ext, f3: int, imm: int, A: str, sA: str) -> str | None:
    """OP-IMM (opcode 0x13) shift-group encodings (funct3 1 and 5) beyond RV32I;
    ``imm`` is instruction bits [31:20]."""
    if f3 == 1 and ZBB in ext:
        return {
            0x600: f"32 - ({A}).bit_length()",  # clz
            0x601: f"(({A} & -{A}).bit_length() - 1) if {A} else 32",  # ctz
            0x602: f"({A}).bit_count()",  # cpop
            0x604: f"((({A} & 0xFF) ^ 0x80) - 0x80) & {_M}",  # sext.b
            0x605: f"((({A} & 0xFFFF) ^ 0x8000) - 0x8000) & {_M}",  # sext.h
        }.get(imm)
    if f3 != 5:
        return None
    sh = imm & 31
    if imm >> 5 == 0x30 and ZBB in ext:  # rori
        return f"(({A} >> {sh}) | ({A} << {-sh & 31})) & {_M}" if sh else A
    if imm == 0x287 and ZBB in ext:  # orc.b
        return f"ORCB({A})"
    if imm >> 5 == 0x34:  # grevi; rev8 (Zbb) and brev8 (Zbkb) are grevi 24 and 7
        if GREVI in ext or (imm == 0x698 and ZBB in ext) or (imm == 0x687 and XTTZBKB in ext):
            return f"GREV({A}, {sh})"
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
