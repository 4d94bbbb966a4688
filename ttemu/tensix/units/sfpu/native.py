"""The compiled form of a run (batch.py): the extension ``_sfpu_native`` (sfpu_native.c,
built at install when a C compiler is present; None when it is not built or
``TTEMU_NATIVE=off``) and the translation of a run's instructions into its operations.

:func:`operation` gives the record sfpu_native.c executes for one instruction, with its
operands, mode and the arch's variant resolved here from the instruction and the method
executing it on this tile (``VectorUnit._executor``): an instruction is compiled only
where that method is one whose behaviour the C form repeats (MadOps' and BlackholeOps'
multiply-adds as their MAD runners compute them, SimpleOps' / LoadStoreOps' simple
instructions, Blackhole's SFPAND / SFPOR / SFPSHFT, the fast SFPLOAD / SFPSTORE forms);
anything else keeps the whole run in Python. SFPLOAD / SFPSTORE take their tables from
the fast forms' context when the run starts (:func:`ls_slot`).
"""

from __future__ import annotations

import functools

import numpy as np

from ..fpu_native import load
from .insn import sext
from .loadstore import LOADI_CONSTANT, LoadStoreOps, loadi_value
from .mad import MadOps
from .simple import SimpleOps

MODULE = load("_sfpu_native", __package__)

# sfpu_native.c's operations
(OP_RWC, OP_LOAD, OP_STORE, OP_MAD, OP_ADDI, OP_MULI, OP_LOADI, OP_IADD, OP_SETEXP, OP_SETMAN, OP_SETSGN, OP_EXEXP,
 OP_EXMAN, OP_ABS, OP_NOT, OP_AND, OP_OR, OP_XOR, OP_DIVP2, OP_SETCC, OP_ENCC, OP_MOV, OP_LZ, OP_SHFT,
 OP_NOP) = range(1, 26)
_MADS = {"SFPMAD": OP_MAD, "SFPADD": OP_MAD, "SFPMUL": OP_MAD, "SFPADDI": OP_ADDI, "SFPMULI": OP_MULI}
#: mnemonic -> (the method the C form repeats, its operation)
_SIMPLE = {m: (getattr(SimpleOps, "x_" + m), op) for m, op in (
    ("SFPIADD", OP_IADD), ("SFPSETEXP", OP_SETEXP), ("SFPSETMAN", OP_SETMAN), ("SFPSETSGN", OP_SETSGN),
    ("SFPEXEXP", OP_EXEXP), ("SFPEXMAN", OP_EXMAN), ("SFPABS", OP_ABS), ("SFPNOT", OP_NOT), ("SFPAND", OP_AND),
    ("SFPOR", OP_OR), ("SFPXOR", OP_XOR), ("SFPDIVP2", OP_DIVP2), ("SFPSETCC", OP_SETCC), ("SFPENCC", OP_ENCC),
    ("SFPMOV", OP_MOV), ("SFPLZ", OP_LZ), ("SFPSHFT", OP_SHFT))}


@functools.cache
def _blackhole():
    """Blackhole's executors (:class:`.blackhole.BlackholeOps`) and mnemonic -> (the method
    the C form repeats, its operation) for its own simple instructions; imported only for
    a Blackhole tile's unit (a Wormhole tile never imports that module)."""
    from .blackhole import BlackholeOps

    return BlackholeOps, {"SFPAND": (BlackholeOps.bh_SFPAND, OP_AND), "SFPOR": (BlackholeOps.bh_SFPOR, OP_OR),
                          "SFPSHFT": (BlackholeOps.bh_SFPSHFT, OP_SHFT)}


def _rec(op, vd=0, a=0, b=0, c=0, mod=0, imm=0, arg=0):
    return [op, vd, a, b, c, mod, imm, arg]


def _vb(ins) -> int:
    return ins.vd if ins.vb is None else ins.vb


def operation(unit, ins, run):
    """sfpu_native.c's record for Vector Unit instruction ``ins`` (a thread-issued one a
    run may hold; ``run`` its issue slot's executor), ``("ls", store)`` for an SFPLOAD /
    SFPSTORE by its fast form (its tables come with the run: :func:`ls_slot`), or None
    when the C form does not repeat it."""
    m = ins.mnemonic
    if m in ("SFPLOAD", "SFPSTORE"):
        fast = unit.fast_SFPSTORE if m == "SFPSTORE" else unit.fast_SFPLOAD
        return ("ls", m == "SFPSTORE") if run == fast else None
    fn = getattr(unit._executor(m), "__func__", None)
    vd, mod, imm = ins.vd, ins.mod, ins.imm
    if m in _MADS:
        if not 0 <= vd < 8 or unit.mad_compute(ins) is None:
            return None  # (what the MAD runners compute: no indirect operand, VD < 8)
        if fn is getattr(MadOps, "x_" + m):
            bh, neg = 0, 0  # (Wormhole: Mod1 bits 0, 1 unused)
        elif hasattr(unit, "bh_" + m) and fn is getattr(_blackhole()[0], "bh_" + m):
            bh, neg = 1, mod & 3
        else:
            return None
        op = _MADS[m]
        if op == OP_MAD:
            return _rec(op, vd, ins.va, ins.vb, ins.vc, neg, 0, bh)
        src = vd if ins.vc is None else ins.vc
        return _rec(op, vd, 0, 0, src, neg & 2, _i32((imm & 0xFFFF) << 16), bh)
    if m == "SFPNOP":
        return _rec(OP_NOP)
    if m == "SFPLOADI":
        if fn is not LoadStoreOps.x_SFPLOADI:
            return None
        if mod in LOADI_CONSTANT:
            return _rec(OP_LOADI, vd, mod=0, imm=_i32(int(loadi_value(mod, imm & 0xFFFF)[0])))
        if mod in (8, 10):
            return _rec(OP_LOADI, vd, mod=1 if mod == 8 else 2, imm=imm & 0xFFFF)
        return None  # (an undefined mode: the executor warns)
    hit = _blackhole()[1].get(m) if hasattr(unit, "bh_" + m) else None
    bh = hit is not None and fn is hit[0]
    if not bh:
        hit = _SIMPLE.get(m)
        if hit is None or fn is not hit[0]:
            return None
    op = hit[1]
    vc = ins.vc
    if op == OP_IADD:
        return _rec(op, vd, 0, _vb(ins), vc, mod, _i32(sext(imm, 12) & 0xFFFFFFFF))
    if op in (OP_SETEXP, OP_SETMAN, OP_SETSGN):
        return _rec(op, vd, 0, _vb(ins), vc, mod, imm)
    if op == OP_EXEXP:
        return _rec(op, vd, 0, 0, vc, mod, 0 if mod & 1 else 127)
    if op == OP_EXMAN:
        return _rec(op, vd, 0, 0, vc, mod, 0 if mod & 1 else 1 << 23)
    if op in (OP_ABS, OP_NOT, OP_DIVP2, OP_LZ, OP_SETCC, OP_ENCC):
        return _rec(op, vd, 0, 0, vc, mod, imm)
    if op == OP_MOV:
        return None if mod & 8 else _rec(op, vd, 0, 0, vc, mod)  # (FROM_SPECIAL: the executor)
    if op in (OP_AND, OP_OR, OP_XOR):
        vb = (imm & 15 if ins.vb is None else ins.vb) if bh and mod & 1 else _vb(ins)  # Blackhole USE_VB
        return _rec(op, vd, 0, vb, vc)
    if op == OP_SHFT:
        x = _vb(ins)
        if bh:
            if mod & 1 and mod & 4:
                x = vc
            arith = mod & 2
        else:
            arith = 0
        return _rec(op, vd, 0, x, vc, (mod & 1) | arith, sext(imm, 12))
    return None


def _i32(v: int) -> int:
    return v - (1 << 32) if v & 0x80000000 else v


_ROWS: dict = {}  # id of an index table's first row -> (the row list, its [1024, 32] array)


def _rows_array(rows):
    """The [1024, 32] intp array an index table (a list of per-address rows, loadstore.
    index_tables) is made of."""
    hit = _ROWS.get(id(rows[0]))
    if hit is not None and hit[0] is rows:
        return hit[1]
    base = rows[0].base
    if not (isinstance(base, np.ndarray) and base.shape == (1024, 32) and base.dtype == np.int64
            and base.flags.c_contiguous):
        base = np.ascontiguousarray(np.stack(rows), dtype=np.int64)
    _ROWS[id(rows[0])] = (rows, base)
    return base


def ls_slot(unit, ins, store: bool):
    """The SFPLOAD / SFPSTORE tables of ``ins`` in its thread's current context (the fast
    forms' :meth:`.lsfast.FastLoadStoreOps._ls_fast`): ``(store, conversion table, high
    index table, low index table or None, Imm10 + the address offsets, the lanes
    LaneConfig leaves open, the FP32 flush's low-half mask or None)``, or None where the
    fast form takes its general path or its AddrMod moves a counter."""
    ctx, table, high, low, vd, imm, noop, keep = unit._ls_fast(ins, store)
    if table is None or not noop:
        return None
    return (store, table, _rows_array(high), None if low is None else _rows_array(low), imm,
            ctx.store_open if store else ctx.load_open, keep)


__all__ = ["MODULE", "operation", "ls_slot"]
