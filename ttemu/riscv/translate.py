"""Block translator: straight-line RV32IM code becomes one Python function.

Each basic block (up to a branch, jump, system instruction or ``max_len``
instructions) is decoded once, turned into Python source and compiled; the run loop
caches the function per start pc. Inside a block the guest registers live in Python
locals (loaded on entry, written back on every exit, including exceptions), so most
instructions become one Python statement.

A block stops *exactly* at an instruction that cannot complete yet (a store into a
full Tensix FIFO, a TTSync load, an empty mailbox): the registers are written back,
the hart records the pc of that instruction and how many instructions of the block
did retire, and the block returns the STALL exit code. The run loop retries the
instruction later, with nothing applied twice. A store that hits translated code
invalidates the affected blocks and ends the current block right after the store, so
the next instruction is fetched afresh.

Return values: the next pc (>= 0), or one of the negative exit codes below, with the
hart's ``exit_pc`` / ``exit_delta`` set (delta: retired instructions minus the
block's nominal count).

Semantics follow the RISC-V unprivileged ISA (RV32I, M, Zicsr) as the Wormhole B0
baby cores implement it (tt-isa-documentation WormholeB0/TensixTile/BabyRISCV/README.md),
plus the extensions the arch lists (Blackhole: Zaamo, Zba, Zbb, pack/brev8, grevi;
``ext.py`` builds their expressions),
except where ttemu deliberately reports a guest fault instead of the hardware's silent
behaviour: misaligned accesses, ``ecall``, illegal instructions (docs/architecture.md lists them).
``ecall`` / ``ebreak`` call the tile's debug interface, which raises that error or, on a
tile whose ebreaks pause as hardware's do, pauses the core (``EXIT_PAUSE``;
ttemu/mmio/riscv_debug.py).
"""

from __future__ import annotations

from array import array
from functools import cache

from . import ext as _ext
from .codecache import CodeCache, source_digest

M32 = 0xFFFFFFFF
EXIT_HALT = -1  # parked in jal x0, 0
EXIT_STALL = -2  # an access was not ready; retry at exit_pc
EXIT_RESUME = -3  # ended early (a store hit translated code); carry on at exit_pc
EXIT_SYNC = -4  # a CSR block asks the run loop to bring the step counts up to date first
EXIT_PAUSE = -5  # ebreak / ecall paused the core (its debug interface; exit_pc is the next pc)
EXIT_CODES = (EXIT_HALT, EXIT_STALL, EXIT_RESUME, EXIT_SYNC, EXIT_PAUSE)
MAX_BLOCK = 64
#: major opcodes that never end a block (unless their encoding is illegal)
_THROUGH = frozenset((0x37, 0x17, 0x03, 0x23, 0x13, 0x33, 0x0F, 0x2F))


@cache
def _translator_digest() -> bytes:
    """The translator's version, for the block cache: a digest of this file and ext.py."""
    return source_digest(__file__, _ext.__file__)


def sext(v: int, bits: int) -> int:
    return v - ((v >> (bits - 1)) & 1) * (1 << bits)


def div(a: int, b: int) -> int:
    """Signed 32-bit division with RISC-V's results for /0 (-1) and INT_MIN/-1 (INT_MIN)."""
    a = (a ^ 0x80000000) - 0x80000000
    b = (b ^ 0x80000000) - 0x80000000
    if b == 0:
        return M32
    q = abs(a) // abs(b)
    return (-q if (a < 0) != (b < 0) else q) & M32


def rem(a: int, b: int) -> int:
    """Signed 32-bit remainder: x % 0 = x, INT_MIN % -1 = 0; sign follows the dividend."""
    sa = (a ^ 0x80000000) - 0x80000000
    sb = (b ^ 0x80000000) - 0x80000000
    if sb == 0:
        return a & M32
    r = abs(sa) % abs(sb)
    return (-r if sa < 0 else r) & M32


class Insn:
    """One decoded instruction inside a block being translated."""

    __slots__ = ("pc", "word", "code", "reads", "writes", "term", "kind")

    def __init__(self, pc, word):
        self.pc = pc
        self.word = word
        self.code = []  # python statements (may reference the placeholders {WB}, {EXIT...})
        self.reads = set()
        self.writes = set()
        self.term = False  # ends the block
        self.kind = None  # "store", "tt", ... (activity)


def _reg(i):
    return f"r{i}" if i else "0"


class Translator:
    """Translates blocks for one hart. ``env`` supplies the objects the generated code
    uses (memory views, slow paths); see :meth:`ttemu.tile.Tile._make_env`.

    ``l1_size``, ``local_base``/``local_size`` are baked into the code as literals.
    ``fetch(pc)`` returns the instruction word or raises a GuestFault.
    """

    def __init__(self, env, fetch, l1_size, local_base, local_size, can_push, on_translate=None,
                 extensions=frozenset(), unmodelled=None, helpers=None):
        self.env = env
        # arch data: the extensions decoded beyond RV32IM (ext.py), opcode -> name of an
        # extension the docs list but ttemu does not model, and extra callables the
        # generated code of those extensions names (globals, not block arguments)
        self.ext = frozenset(extensions)
        self.unmodelled = unmodelled or {}
        self.globals = {**_ext.HELPERS, **(helpers or {})} if self.ext else dict(helpers or {})
        self.fetch = fetch
        self.L1E = l1_size
        self.LB = local_base
        self.LE = local_base + local_size
        self.can_push = can_push
        self.on_translate = on_translate  # callback(start_pc, [pcs]) for code tracking
        self.argnames = tuple(sorted(env))
        self.code_cache = CodeCache()  # translated blocks kept on disk between runs (codecache.py)
        self._key_prefix = None

    # -- decoding -----------------------------------------------------------------
    def decode(self, pc, word, k, count):
        """Build the statements of one instruction. ``k`` is its index in the block,
        ``count`` the block's instruction count (known after the first pass)."""
        ins = Insn(pc, word)
        c = ins.code
        npc = (pc + 4) & M32
        if word & 3 != 3:
            # .ttinsn: the Tensix word rotated left by two; semantics of sw to INSTRN_BUF_BASE.
            tw = ((word >> 2) | (word << 30)) & M32
            ins.kind = "store"
            c.append(f"if not TT({tw}, {pc}):")
            c.append(f"    {{WB}}return EX({EXIT_STALL}, {pc}, {k - count})")
            return ins
        op = word & 0x7F
        rd = (word >> 7) & 31
        f3 = (word >> 12) & 7
        rs1 = (word >> 15) & 31
        rs2 = (word >> 20) & 31
        f7 = word >> 25
        imm_i = sext(word >> 20, 12)
        A, B, D = _reg(rs1), _reg(rs2), f"r{rd}"
        sA = f"(({A} ^ 0x80000000) - 0x80000000)"
        sB = f"(({B} ^ 0x80000000) - 0x80000000)"

        def reads(*regs):
            ins.reads.update(r for r in regs if r)

        def write(expr):
            if rd:
                ins.writes.add(rd)
                c.append(f"{D} = {expr}")

        def illegal():
            ins.code = [f"ILL({pc}, {word})"]
            ins.reads.clear()
            ins.writes.clear()
            ins.term = True
            return ins

        if op == 0x37:  # LUI
            write(str(word & 0xFFFFF000))
        elif op == 0x17:  # AUIPC
            write(str((pc + (word & 0xFFFFF000)) & M32))
        elif op == 0x6F:  # JAL
            imm = sext(((word >> 31) << 20) | (((word >> 12) & 0xFF) << 12)
                       | (((word >> 20) & 1) << 11) | (((word >> 21) & 0x3FF) << 1), 21)
            target = (pc + imm) & M32
            ins.term = True
            if rd == 0 and imm == 0:
                c.append(f"{{WB}}return EX({EXIT_HALT}, {pc}, {k + 1 - count})")
                return ins
            write(str(npc))
            if target & 3:
                c.append(f"MISJ({pc}, {target})")
            else:
                c.append(f"{{WB}}return {target}")
        elif op == 0x67:  # JALR
            if f3:
                return illegal()
            reads(rs1)
            ins.term = True
            c.append(f"_t = ({A} + {imm_i}) & 0xFFFFFFFE")
            write(str(npc))
            c.append(f"if _t & 2: MISJ({pc}, _t)")
            c.append("{WB}return _t")
        elif op == 0x63:  # branches
            imm = sext(((word >> 31) << 12) | (((word >> 7) & 1) << 11)
                       | (((word >> 25) & 0x3F) << 5) | (((word >> 8) & 0xF) << 1), 13)
            cond = {0: f"{A} == {B}", 1: f"{A} != {B}", 4: f"{sA} < {sB}", 5: f"{sA} >= {sB}",
                    6: f"{A} < {B}", 7: f"{A} >= {B}"}.get(f3)
            if cond is None:
                return illegal()
            reads(rs1, rs2)
            target = (pc + imm) & M32
            ins.term = True
            taken = f"MISJ({pc}, {target})" if target & 3 else f"return {target}"
            c.append("{WB}")
            c.append(f"if {cond}: {taken}")
            c.append(f"return {npc}")
        elif op == 0x03:  # loads
            if f3 not in (0, 1, 2, 4, 5):
                return illegal()
            reads(rs1)
            width = {0: 1, 1: 2, 2: 4, 4: 1, 5: 2}[f3]
            signed = f3 in (0, 1)
            tgt = D if rd else "_v"
            if rd:
                ins.writes.add(rd)
            fast_l1 = {0: "((m[_a] ^ 0x80) - 0x80) & 0xFFFFFFFF", 4: "m[_a]",
                       1: "((h[_a >> 1] ^ 0x8000) - 0x8000) & 0xFFFFFFFF", 5: "h[_a >> 1]",
                       2: "w[_a >> 2]"}[f3]
            off = f"_a - {self.LB}"
            fast_lo = {0: f"((lm[{off}] ^ 0x80) - 0x80) & 0xFFFFFFFF", 4: f"lm[{off}]",
                       1: f"((lh[({off}) >> 1] ^ 0x8000) - 0x8000) & 0xFFFFFFFF", 5: f"lh[({off}) >> 1]",
                       2: f"lw[({off}) >> 2]"}[f3]
            al = {1: "", 2: " and not _a & 1", 4: " and not _a & 3"}[width]
            c.append(f"_a = ({A} + {imm_i}) & 0xFFFFFFFF")
            c.append(f"if _a < {self.L1E}{al}: {tgt} = {fast_l1}")
            c.append(f"elif {self.LB} <= _a < {self.LE}{al}: {tgt} = {fast_lo}")
            c.append("else:")
            c.append(f"    _v = LD(_a, {width}, {signed}, {pc})")
            c.append("    if _v is None:")
            c.append(f"        {{WB}}return EX({EXIT_STALL}, {pc}, {k - count})")
            if rd:
                c.append(f"    {D} = _v")
        elif op == 0x23:  # stores
            if f3 > 2:
                return illegal()
            reads(rs1, rs2)
            ins.kind = "store"
            imm = sext(((word >> 25) << 5) | rd, 12)
            width = 1 << f3
            val = {0: f"{B} & 0xFF", 1: f"{B} & 0xFFFF", 2: B}[f3]
            l1 = {0: f"m[_a] = {val}", 1: f"h[_a >> 1] = {val}", 2: f"w[_a >> 2] = {val}"}[f3]
            off = f"_a - {self.LB}"
            lo = {0: f"lm[{off}] = {val}", 1: f"lh[({off}) >> 1] = {val}", 2: f"lw[({off}) >> 2] = {val}"}[f3]
            al = {1: "", 2: " and not _a & 1", 4: " and not _a & 3"}[width]
            c.append(f"_a = ({A} + {imm}) & 0xFFFFFFFF")
            c.append(f"if _a < {self.L1E}{al}:")
            c.append(f"    {l1}")
            c.append("    if ic[_a >> 2]:")
            c.append("        SMC(_a)")
            c.append(f"        {{WB}}return EX({EXIT_RESUME}, {npc}, {k + 1 - count})")
            c.append(f"elif {self.LB} <= _a < {self.LE}{al}: {lo}")
            c.append(f"elif not ST(_a, {width}, {B}, {pc}):")
            c.append(f"    {{WB}}return EX({EXIT_STALL}, {pc}, {k - count})")
        elif op == 0x13:  # OP-IMM
            reads(rs1)
            sh = rs2
            if f3 == 1:
                if f7:
                    e = _ext.op_imm(self.ext, f3, word >> 20, A, sA)
                    if e is None:
                        return illegal()
                    write(e)
                else:
                    write(f"({A} << {sh}) & 0xFFFFFFFF")
            elif f3 == 5:
                if f7 == 0:
                    write(f"{A} >> {sh}")
                elif f7 == 0x20:
                    write(f"({sA} >> {sh}) & 0xFFFFFFFF")
                else:
                    e = _ext.op_imm(self.ext, f3, word >> 20, A, sA)
                    if e is None:
                        return illegal()
                    write(e)
            else:
                u = imm_i & M32
                write({0: f"({A} + {imm_i}) & 0xFFFFFFFF", 2: f"1 if {sA} < {imm_i} else 0",
                       3: f"1 if {A} < {u} else 0", 4: f"{A} ^ {u}", 6: f"{A} | {u}", 7: f"{A} & {u}"}[f3])
        elif op == 0x33:  # OP
            reads(rs1, rs2)
            e = {(0, 0): f"({A} + {B}) & 0xFFFFFFFF", (0x20, 0): f"({A} - {B}) & 0xFFFFFFFF",
                 (0, 1): f"({A} << ({B} & 31)) & 0xFFFFFFFF", (0, 2): f"1 if {sA} < {sB} else 0",
                 (0, 3): f"1 if {A} < {B} else 0", (0, 4): f"{A} ^ {B}", (0, 5): f"{A} >> ({B} & 31)",
                 (0x20, 5): f"({sA} >> ({B} & 31)) & 0xFFFFFFFF", (0, 6): f"{A} | {B}", (0, 7): f"{A} & {B}",
                 (1, 0): f"({A} * {B}) & 0xFFFFFFFF", (1, 1): f"(({sA} * {sB}) >> 32) & 0xFFFFFFFF",
                 (1, 2): f"(({sA} * {B}) >> 32) & 0xFFFFFFFF", (1, 3): f"({A} * {B}) >> 32",
                 (1, 4): f"DIV({A}, {B})", (1, 5): f"({A} // {B}) if {B} else 0xFFFFFFFF",
                 (1, 6): f"REM({A}, {B})", (1, 7): f"({A} % {B}) if {B} else {A}"}.get((f7, f3))
            if e is None:
                e = _ext.op(self.ext, f7, f3, rs2, A, B, sA, sB)
            if e is None:
                return illegal()
            write(e)
        elif op == 0x0F:  # MISC-MEM: fence / fence.i execute as nop on these cores
            if f3 not in (0, 1):
                return illegal()
            c.append("pass")
        elif op == 0x73:  # SYSTEM
            if f3 == 0:
                # ECALL / EBREAK raise (ttemu's default: a fault / an LLK_ASSERT) or pause
                # the core and return EXIT_PAUSE (tile.ebreak_pauses, as hardware does)
                if word == 0x00000073:
                    c.append(f"{{WB}}return EX(ECALL({pc}), {npc}, {k + 1 - count})")
                elif word == 0x00100073:
                    c.append(f"{{WB}}return EX(EBREAK({pc}), {npc}, {k + 1 - count})")
                else:
                    return illegal()
                ins.term = True
            elif f3 == 4:
                return illegal()
            else:
                csr = word >> 20
                if f3 & 4:
                    src = str(rs1)  # zimm
                else:
                    src = A
                    reads(rs1)
                ins.kind = "csr"
                if k == 0 and count:
                    c.append(f"if HART.synced != {pc}: return EX({EXIT_SYNC}, {pc}, {-count})")
                    c.append("HART.synced = -1")
                write_flag = 1 if (f3 & 3) == 1 or rs1 != 0 else 0
                tgt = D if rd else "_v"
                if rd:
                    ins.writes.add(rd)
                c.append(f"{tgt} = CSR({f3 & 3}, {csr}, {src}, {write_flag}, {pc})")
        elif op == 0x2F:  # AMO (Zaamo): a read-modify-write of an aligned L1 word
            e = _ext.amo(self.ext, f7 >> 2, B, sB) if f3 == 2 else None
            if e is None:
                return illegal()
            reads(rs1, rs2)
            ins.kind = "store"
            name = _ext.AMO_NAMES[f7 >> 2]
            c.append(f"_a = {A}")
            c.append(f"if _a >= {self.L1E} or _a & 3: XFAULT({pc}, '{name} at 0x%08x: ' % _a + "
                     f"('misaligned' if _a & 3 else 'atomics only reach L1'))")
            c.append("_o = w[_a >> 2]")
            c.append(f"w[_a >> 2] = {e}")
            write("_o")
            c.append("if ic[_a >> 2]:")
            c.append("    SMC(_a)")
            c.append(f"    {{WB}}return EX({EXIT_RESUME}, {npc}, {k + 1 - count})")
        elif op in self.unmodelled:
            ins.code = [f"XUNIMPL({pc}, {word}, {self.unmodelled[op]!r})"]
            ins.term = True
        else:
            return illegal()
        return ins

    # -- block assembly -----------------------------------------------------------
    def translate(self, start, max_len=MAX_BLOCK):
        """-> (function, instruction count) for the block starting at ``start``."""
        return self._translate(start, max_len, False)

    def translate_steps(self, start):
        """-> (function, instruction count): the block starting at ``start`` (as
        :meth:`translate` makes it) as a *step block*, ``f(K, E)``, which runs the block's
        instructions ``K`` to ``E - 1`` (``0 <= K < E <= count``) and returns as a
        one-instruction block would after the last of them: the next pc, or an exit
        whose ``exit_delta`` counts from the block's start (``count + exit_delta`` is the
        index after the last instruction that retired). One translation serves an exact
        run of any length from any of the block's instructions (``ttemu.run._run_steps``:
        a host clock of one instruction per core), where a one-instruction block per pc
        costs a compilation each."""
        return self._translate(start, MAX_BLOCK, True)

    def _translate(self, start, max_len, steps):
        first = self.fetch(start)
        key = None
        if self.code_cache.dir is not None:
            key, span = self._cache_key(start, first, max_len)
            if key is not None and steps:
                key = b"steps:" + key
            hit = self.code_cache.get(key) if key is not None else None
            if (type(hit) is tuple and len(hit) == 2 and type(hit[0]) is int and 0 < hit[0] <= span
                    and getattr(hit[1], "co_filename", None) == f"<block 0x{start:08x}>"):
                return self._install(hit[1], start, hit[0])
        code, count = self._compile(start, first, max_len, steps)
        if key is not None:
            self.code_cache.put(key, (count, code))
        return self._install(code, start, count)

    def _cache_key(self, start, first, max_len):
        """What the block at ``start`` is made from: the translator's version and
        settings, ``start``, ``max_len`` and the words from ``start`` up to the first
        one that may end a block (a superset of the block's own words). -> (key, number
        of those words), key None when there is no cache."""
        if self._key_prefix is None:
            digest = _translator_digest()
            if not digest:
                self.code_cache.dir = None
                return None, 0
            settings = (self.L1E, self.LB, self.LE, sorted(self.ext), sorted(self.unmodelled.items()),
                        self.argnames)
            self._key_prefix = digest + repr(settings).encode()
        words = [first]
        pc = start
        word = first
        # a CSR access goes on past itself when it starts the block (else one ends before it)
        through = word & 0x7F == 0x73 and (word >> 12) & 7 not in (0, 4)
        while len(words) < max_len and (through or word & 3 != 3 or word & 0x7F in _THROUGH):
            through = False
            pc = (pc + 4) & M32
            word = self._fetch_or_none(pc)
            if word is None:
                break
            words.append(word)
        return self._key_prefix + b"%d,%d:" % (start, max_len) + array("I", words).tobytes(), len(words)

    def _install(self, code, start, count):
        ns = dict(self.env)
        ns.update(self.globals)
        exec(code, ns)
        if self.on_translate is not None:
            self.on_translate(start, [(start + 4 * k) & M32 for k in range(count)])
        return ns["_blk"], count

    def _compile(self, start, first, max_len, steps=False):
        """Decode the block at ``start`` and compile its Python function (a step block
        with ``steps``, see :meth:`translate_steps`): -> (code, count)."""
        pcs, words = [], []
        pc = start
        word = first
        while True:
            probe = self.decode(pc, word, 0, 0)
            if probe.kind == "csr" and pcs:
                break  # a CSR access starts its own block (so its counters are exact)
            pcs.append(pc)
            words.append(word)
            if probe.term or len(pcs) >= max_len:
                break
            pc = (pc + 4) & M32
            word = self._fetch_or_none(pc)
            if word is None:
                break
        count = len(pcs)
        insns = [self.decode(p, wd, k, count) for k, (p, wd) in enumerate(zip(pcs, words))]
        regs = set()
        written = set()
        for ins in insns:
            regs |= ins.reads | ins.writes
            written |= ins.writes
        wb = "".join(f"x[{r}] = r{r}; " for r in sorted(written))
        body = (self._step_body if steps else self._block_body)(insns, wb)
        head = [f"r{r} = x[{r}]" for r in sorted(regs)]
        args = ("K", "E") if steps else ()
        src = [f"def _blk({', '.join(args + tuple(f'{n}={n}' for n in self.argnames))}):"]
        src += ["    " + line for line in head]
        if written:
            src.append("    try:")
            src += ["        " + line for line in body]
            src.append("    except BaseException:")
            src.append("        " + wb.rstrip("; ").replace("; ", "\n        "))
            src.append("        raise")
        else:
            src += ["    " + line for line in body]
        return compile("\n".join(src) + "\n", f"<block 0x{start:08x}>", "exec"), count

    @staticmethod
    def _block_body(insns, wb):
        body = []
        if any(ins.kind == "store" for ins in insns):
            body.append("ACT[0] = 1")
        for ins in insns:
            for line in ins.code:
                body.append(line.replace("{WB}", wb))
        last = insns[-1]
        if not last.term:
            body.append(f"{wb}return {(last.pc + 4) & M32}")
        return body

    @staticmethod
    def _step_body(insns, wb):
        """Instruction ``k`` runs when ``K <= k``; after it, the block returns when ``E``
        says it was the last. A store marks activity as its own one-instruction block
        does (before the attempt)."""
        body = []
        last = len(insns) - 1
        for k, ins in enumerate(insns):
            code = (["ACT[0] = 1"] if ins.kind == "store" else []) + [line.replace("{WB}", wb) for line in ins.code]
            npc = (ins.pc + 4) & M32
            if k == last:  # reached only from K <= k, and E is then k + 1
                body += code
                if not ins.term:
                    body.append(f"{wb}return {npc}")
                break
            body.append(f"if K <= {k}:")
            body += ["    " + line for line in code]
            body.append(f"    if E == {k + 1}:")
            body.append(f"        {wb}return {npc}")
        return body

    def _fetch_or_none(self, pc):
        try:
            return self.fetch(pc)
        except Exception:
            return None  # the next block will fault when (if) it gets there
