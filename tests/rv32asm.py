"""A tiny RV32IM + Zicsr assembler for tests (no cross compiler needed), with the
Blackhole cores' extensions (Zaamo ``amoadd_w(rd, rs2, rs1)``, Zba, Zbb, pack, brev8,
grevi; names that clash with Python take a trailing underscore: ``min_``, ``max_``).

Encoders return one 32-bit instruction word::

    addi(rd, rs1, imm)   lw(rd, imm, rs1)   sw(rs2, imm, rs1)   beq(rs1, rs2, offset)
    jal(rd, offset)      jalr(rd, rs1, imm)  lui(rd, imm20)     csrrs(rd, csr, rs1)

Registers are ints 0..31 (ABI names are module constants: ``zero, ra, sp, ... t6``).
Offsets of branches and jumps are byte offsets relative to the instruction.

:class:`Program` builds a program with labels; every encoder is also a method of it,
and a branch/jump offset (or ``la``'s address) may be a label name, resolved when
the program is assembled::

    p = Program(base=0x0)
    p.li(a0, 0)
    p.label("loop")
    p.addi(a0, a0, 1)
    p.bne(a0, a1, "loop")
    p.halt()                         # jal x0, 0: how ttemu sees a core park
    code: bytes = p.assemble()
    p.addr("loop")                   # address of a label
"""

from __future__ import annotations

import struct
import types

M32 = 0xFFFFFFFF

ABI = ("zero ra sp gp tp t0 t1 t2 s0 s1 a0 a1 a2 a3 a4 a5 a6 a7 "
       "s2 s3 s4 s5 s6 s7 s8 s9 s10 s11 t3 t4 t5 t6").split()
(zero, ra, sp, gp, tp, t0, t1, t2, s0, s1, a0, a1, a2, a3, a4, a5, a6, a7,
 s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, t3, t4, t5, t6) = range(32)
fp = s0

# CSR numbers
CSR_CYCLE, CSR_TIME, CSR_INSTRET = 0xC00, 0xC01, 0xC02
CSR_CYCLEH, CSR_INSTRETH = 0xC80, 0xC82
CSR_MHARTID = 0xF14


# ------------------------------------------------------------------ helpers
def _r(reg):
    if not (isinstance(reg, int) and 0 <= reg < 32):
        raise ValueError(f"bad register {reg!r}")
    return reg


def _signed(value, bits, what):
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if not lo <= value <= hi:
        raise ValueError(f"{what} {value} does not fit {bits} signed bits")
    return value & ((1 << bits) - 1)


def sext(value, bits=32):
    """Sign-extend the low ``bits`` bits of ``value`` to a Python int."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


# ------------------------------------------------------------------ formats
def r_type(opcode, f3, f7, rd, rs1, rs2):
    return (f7 << 25) | (_r(rs2) << 20) | (_r(rs1) << 15) | (f3 << 12) | (_r(rd) << 7) | opcode


def i_type(opcode, f3, rd, rs1, imm):
    return (_signed(imm, 12, "I-immediate") << 20) | (_r(rs1) << 15) | (f3 << 12) | (_r(rd) << 7) | opcode


def s_type(opcode, f3, rs1, rs2, imm):
    v = _signed(imm, 12, "S-immediate")
    return ((v >> 5) << 25) | (_r(rs2) << 20) | (_r(rs1) << 15) | (f3 << 12) | ((v & 31) << 7) | opcode


def b_type(opcode, f3, rs1, rs2, offset):
    if offset & 1:
        raise ValueError(f"branch offset {offset} is odd")
    v = _signed(offset, 13, "branch offset")
    return (((v >> 12) & 1) << 31) | (((v >> 5) & 0x3F) << 25) | (_r(rs2) << 20) | (_r(rs1) << 15) \
        | (f3 << 12) | (((v >> 1) & 0xF) << 8) | (((v >> 11) & 1) << 7) | opcode


def u_type(opcode, rd, imm20):
    if not 0 <= imm20 < (1 << 20):
        raise ValueError(f"U-immediate {imm20:#x} does not fit 20 bits")
    return (imm20 << 12) | (_r(rd) << 7) | opcode


def j_type(opcode, rd, offset):
    if offset & 1:
        raise ValueError(f"jump offset {offset} is odd")
    v = _signed(offset, 21, "jump offset")
    return (((v >> 20) & 1) << 31) | (((v >> 1) & 0x3FF) << 21) | (((v >> 11) & 1) << 20) \
        | (((v >> 12) & 0xFF) << 12) | (_r(rd) << 7) | opcode


# ------------------------------------------------------------------ RV32I
def lui(rd, imm20): return u_type(0x37, rd, imm20)
def auipc(rd, imm20): return u_type(0x17, rd, imm20)
def jal(rd, offset): return j_type(0x6F, rd, offset)
def jalr(rd, rs1, imm=0): return i_type(0x67, 0, rd, rs1, imm)


def _branch(f3):
    return lambda rs1, rs2, offset: b_type(0x63, f3, rs1, rs2, offset)


beq, bne, blt, bge, bltu, bgeu = (_branch(f) for f in (0, 1, 4, 5, 6, 7))


def _load(f3):
    return lambda rd, imm, rs1: i_type(0x03, f3, rd, rs1, imm)


lb, lh, lw, lbu, lhu = (_load(f) for f in (0, 1, 2, 4, 5))


def _store(f3):
    return lambda rs2, imm, rs1: s_type(0x23, f3, rs1, rs2, imm)


sb, sh, sw = (_store(f) for f in (0, 1, 2))


def _opimm(f3):
    return lambda rd, rs1, imm: i_type(0x13, f3, rd, rs1, imm)


addi, slti, sltiu, xori, ori, andi = (_opimm(f) for f in (0, 2, 3, 4, 6, 7))


def _shimm(f3, f7):
    def enc(rd, rs1, shamt):
        if not 0 <= shamt < 32:
            raise ValueError(f"shift amount {shamt} is not 0..31")
        return (f7 << 25) | (shamt << 20) | (_r(rs1) << 15) | (f3 << 12) | (_r(rd) << 7) | 0x13
    return enc


slli, srli, srai = _shimm(1, 0), _shimm(5, 0), _shimm(5, 0x20)


def _op(f3, f7):
    return lambda rd, rs1, rs2: r_type(0x33, f3, f7, rd, rs1, rs2)


add, sub, sll, slt, sltu = _op(0, 0), _op(0, 0x20), _op(1, 0), _op(2, 0), _op(3, 0)
xor, srl, sra, or_, and_ = _op(4, 0), _op(5, 0), _op(5, 0x20), _op(6, 0), _op(7, 0)

# ------------------------------------------------------------------ RV32M
mul, mulh, mulhsu, mulhu = _op(0, 1), _op(1, 1), _op(2, 1), _op(3, 1)
div, divu, rem, remu = _op(4, 1), _op(5, 1), _op(6, 1), _op(7, 1)


# ------------------------------------------------------------------ Blackhole extensions
# Zba, Zbb (bit-manipulation spec 1.0.0), pack/brev8 (Zbkb), grevi (Bitmanip 0.94 draft),
# Zaamo (A extension 2.1): register forms are R-type on OP; unary forms are OP-IMM with
# a fixed imm[11:0].
andn, orn, xnor = _op(7, 0x20), _op(6, 0x20), _op(4, 0x20)
min_, minu, max_, maxu = _op(4, 0x05), _op(5, 0x05), _op(6, 0x05), _op(7, 0x05)
rol, ror = _op(1, 0x30), _op(5, 0x30)
sh1add, sh2add, sh3add = _op(2, 0x10), _op(4, 0x10), _op(6, 0x10)
pack = _op(4, 0x04)


def _unary(f3, imm12):
    return lambda rd, rs1: (imm12 << 20) | (_r(rs1) << 15) | (f3 << 12) | (_r(rd) << 7) | 0x13


clz, ctz, cpop = _unary(1, 0x600), _unary(1, 0x601), _unary(1, 0x602)
sext_b, sext_h = _unary(1, 0x604), _unary(1, 0x605)
orc_b, rev8, brev8 = _unary(5, 0x287), _unary(5, 0x698), _unary(5, 0x687)


def zext_h(rd, rs1): return pack(rd, rs1, 0)


def rori(rd, rs1, shamt):
    if not 0 <= shamt < 32:
        raise ValueError(f"shift amount {shamt}")
    return _unary(5, 0x600 | shamt)(rd, rs1)


def grevi(rd, rs1, shamt):
    if not 0 <= shamt < 32:
        raise ValueError(f"grevi amount {shamt}")
    return _unary(5, 0x680 | shamt)(rd, rs1)


def _amo(funct5):
    def enc(rd, rs2, rs1, aq=0, rl=0):
        return r_type(0x2F, 2, (funct5 << 2) | (aq << 1) | rl, rd, rs1, rs2)
    return enc


amoadd_w, amoswap_w, amoxor_w, amoor_w, amoand_w = (_amo(f) for f in (0x00, 0x01, 0x04, 0x08, 0x0C))
amomin_w, amomax_w, amominu_w, amomaxu_w = (_amo(f) for f in (0x10, 0x14, 0x18, 0x1C))


# ------------------------------------------------------------------ system, Zicsr
def fence(): return 0x0FF0000F
def fence_i(): return 0x0000100F
def ecall(): return 0x00000073
def ebreak(): return 0x00100073


def _csr(f3):
    def enc(rd, csr, rs1_or_zimm):
        if not 0 <= csr < 4096:
            raise ValueError(f"CSR number {csr:#x}")
        return (csr << 20) | (_r(rs1_or_zimm) << 15) | (f3 << 12) | (_r(rd) << 7) | 0x73
    return enc


csrrw, csrrs, csrrc, csrrwi, csrrsi, csrrci = (_csr(f) for f in (1, 2, 3, 5, 6, 7))


# ------------------------------------------------------------------ pseudo-instructions
def nop(): return addi(0, 0, 0)
def mv(rd, rs): return addi(rd, rs, 0)
def j(offset): return jal(0, offset)
def ret(): return jalr(0, ra, 0)
def halt(): return jal(0, 0)
def csrr(rd, csr): return csrrs(rd, csr, 0)
def csrw(csr, rs): return csrrw(0, csr, rs)


def hi_lo(value):
    """Split a 32-bit value into (lui imm20, addi imm12) so that lui+addi builds it."""
    value &= M32
    lo = sext(value & 0xFFF, 12)
    hi = ((value - lo) >> 12) & 0xFFFFF
    return hi, lo


def li(rd, value):
    """Load a 32-bit constant: always ``lui rd, hi; addi rd, rd, lo`` (two words, so
    the size of a program does not depend on the values in it)."""
    hi, lo = hi_lo(value)
    return [lui(rd, hi), addi(rd, rd, lo)]


ENCODERS = {name: fn for name, fn in dict(globals()).items()
            if isinstance(fn, types.FunctionType) and not name.startswith("_") and name not in
            ("r_type", "i_type", "s_type", "b_type", "u_type", "j_type", "sext", "hi_lo")}

# argument index of a pc-relative offset that may be given as a label
_LABEL_ARG = {"beq": 2, "bne": 2, "blt": 2, "bge": 2, "bltu": 2, "bgeu": 2, "jal": 1, "j": 0}


class Program:
    """A sequence of instructions at ``base`` with labels. Every encoder of this module
    is a method (``p.addi(a0, a0, 1)``); ``p.la(rd, label_or_addr)`` loads an address
    (``lui`` + ``addi``), ``p.word(v)`` emits data, ``p.label(name)`` marks the next
    address."""

    def __init__(self, base: int = 0):
        self.base = base
        self.items: list = []  # ints, or callables(pc) -> int (resolved at assembly)
        self.labels: dict[str, int] = {}

    @property
    def pc(self) -> int:
        """Address of the next instruction."""
        return self.base + 4 * len(self.items)

    def label(self, name: str):
        """Mark the next address as ``name`` (see :meth:`addr`)."""
        if name in self.labels:
            raise ValueError(f"label {name!r} defined twice")
        self.labels[name] = self.pc
        return self

    def addr(self, name: str) -> int:
        return self.labels[name]

    def word(self, value: int):
        self.items.append(value & M32)
        return self

    def emit(self, words):
        for w in words if isinstance(words, (list, tuple)) else [words]:
            self.items.append(w)
        return self

    def la(self, rd: int, target):
        """rd = address of a label (or an int address)."""
        def part(k):
            def resolve(pc):
                addr = self.labels[target] if isinstance(target, str) else target
                return li(rd, addr)[k]
            return resolve
        self.items.extend([part(0), part(1)])
        return self

    def __getattr__(self, name):
        fn = ENCODERS.get(name)
        if fn is None:
            raise AttributeError(name)
        pos = _LABEL_ARG.get(name)

        def method(*args):
            if pos is not None and isinstance(args[pos], str):
                lab = args[pos]

                def resolve(pc, args=args):
                    a = list(args)
                    if lab not in self.labels:
                        raise ValueError(f"undefined label {lab!r}")
                    a[pos] = self.labels[lab] - pc
                    return fn(*a)
                self.items.append(resolve)
            else:
                self.emit(fn(*args))
            return self
        return method

    def words(self) -> list[int]:
        out = []
        for k, item in enumerate(self.items):
            out.append(item(self.base + 4 * k) if callable(item) else item)
        return out

    def assemble(self) -> bytes:
        return struct.pack(f"<{len(self.items)}I", *self.words())

    def __len__(self):
        return len(self.items)
