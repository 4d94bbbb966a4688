"""One Tensix tile: L1, the five cores with their local memories, the MMIO router,
the Tensix coprocessor, and the Python API used by the CLI and by tests.

    tile = Tile("wormhole_b0")
    tile.load_elf("build/brisc.elf", core="brisc")
    result = tile.run(max_steps=1_000_000)
    tile.read_u32(0x100)

Memory map: tt-isa-documentation WormholeB0/TensixTile/BabyRISCV/README.md.
Soft reset and reset PCs: WormholeB0/TensixTile/SoftReset.md.
"""

from __future__ import annotations

from .arch import CORE_IDS, CORE_NAMES, get_arch
from .condition import as_condition
from .diagnostics import Diagnostics
from .elf import ElfImage, read_elf
from .errors import ElfError, GuestFault, Unimplemented, UsageError
from .mmio.debug import DebugRegs
from .mmio.riscv_debug import RiscvDebug
from .mmio.localram import LocalRamWindow
from .mmio.mailbox import Mailboxes
from .mmio.noc import Niu
from .mmio.overlay import NocOverlay
from .mmio.router import RegisterBank, Router
from .riscv import csr as csrmod
from .riscv.hart import RESET, RUNNING, Hart
from .riscv.translate import EXIT_CODES, Translator, div, rem

_BIG = 1 << 60


class Tile:
    """A tile. All state lives on the instance; two tiles can run side by side."""

    def __init__(self, arch="wormhole_b0", *, quantum: int = 8192, record: bool = False, noc=None,
                 ebreak_pauses: bool = False):
        try:
            self.arch = get_arch(arch) if isinstance(arch, str) else arch
        except KeyError:
            raise UsageError(f"unknown arch {arch!r} (wormhole_b0 or blackhole)") from None
        a = self.arch
        #: the NoC interfaces' facts (ttemu.arch.NocSpec): the arch's worker tile, unless a
        #: chip (ttemu.chip) places this tile elsewhere on the grid
        self.noc = noc if noc is not None else a.noc
        self.quantum = quantum
        self.l1 = bytearray(a.l1_size)
        self.l1_words = memoryview(self.l1).cast("I")
        self.l1_halves = memoryview(self.l1).cast("H")
        self.is_code = bytearray(a.l1_size // 4)  # 1 where a translated block covers the word
        self.code_map: dict[int, list] = {}  # L1 word index -> [(hart, block start pc)]
        self.activity = [0]  # set by stores, pushes and device side effects (idle detection)
        self.steps = 0  # retired RISC-V instructions, all cores
        self.soft_reset = a.soft_reset_value
        self.images: dict[str, ElfImage] = {}
        self.entry_override: dict[str, int] = {}  # core -> start pc (a lone ELF's entry point)
        self.tracer = None
        self.debug = None  # a debugger's run control (ttemu.debug.DebugControl), if one is attached
        self.progress = None  # called between scheduler rounds (a display; see cmd/progress.py)
        self.last_stall: str | None = None  # set by a device refusing an access ("{pc}" placeholder)
        self.diagnostics = Diagnostics()
        #: with ``record``: what the host did, in order: ("write", addr, bytes, core, staged),
        #: ("release", soft-reset value) and ("run", [(addr, value, width, mask) until
        #: conditions]) entries (an oracle plan replays them; ttemu.cmd.oracle)
        self.host_log: list | None = [] if record else None
        self.specs = {c.name: c for c in a.cores}
        self.harts: dict[str, Hart] = {}
        self.iram: dict[str, bytearray] = {}
        for spec in a.cores:
            hart = Hart(spec.name, CORE_IDS[spec.name], bytearray(spec.local_size))
            for code in EXIT_CODES:
                hart.blocks[code] = (lambda code=code: code, _BIG)
            self.harts[spec.name] = hart
            if spec.iram:
                self.iram[spec.name] = bytearray(spec.iram[1])
        self.router = Router(a)
        # the cores' debug interface (pause, step, registers: mmio/riscv_debug.py)
        self.riscv_debug = RiscvDebug(self)
        self.riscv_debug.ebreak_pauses = ebreak_pauses
        self._attach_devices()
        self.translators = {name: self._make_translator(h) for name, h in self.harts.items()}

    # -- devices ---------------------------------------------------------------
    def _attach_devices(self):
        a = self.arch
        for region in a.address_map:
            if region.name in a.registers and region.name != "riscv_debug_regs":
                writable = not region.name.startswith("noc")
                self.router.attach(region.name, RegisterBank(region.name, region.base, a.registers[region.name],
                                                             writable))
        if self.noc is not None:
            for i in range(2):
                region = a.region(f"noc{i}_regs")
                self.router.attach(region.name, Niu(self, region, a.registers[region.name], i))
            overlay = a.region("noc_overlay")
            self.router.attach(overlay.name, NocOverlay(overlay, a.registers[overlay.name]))
        dbg = a.region("riscv_debug_regs")
        self.debug_regs = DebugRegs(self, dbg, a.registers.get("riscv_debug_regs", []))
        self.router.attach(dbg.name, self.debug_regs)
        # The Tensix coprocessor is built on first use (a RISC-V-only program never
        # pays for it): until then its MMIO regions route to a placeholder that builds it.
        self._tensix = None
        lazy = _LazyCoprocessorPort(self)
        for name in TENSIX_REGIONS:
            if any(r.name == name for r in a.address_map):  # (tensix_dst: Blackhole only)
                self.router.attach(name, lazy)
        self.mailboxes = Mailboxes(self)
        self.mailboxes.attach(self.router)
        for spec in a.cores:
            if spec.local_window:
                self.router.attach(spec.local_window, LocalRamWindow(self, a.region(spec.local_window), spec.name))

    @property
    def tensix(self):
        """The Tensix coprocessor (:class:`ttemu.tensix.coprocessor.Coprocessor`)."""
        if self._tensix is None:
            from .tensix.coprocessor import Coprocessor

            self._tensix = Coprocessor(self)
            self._tensix.attach(self.router)
        return self._tensix

    # -- translation environment ------------------------------------------------
    def _make_translator(self, hart: Hart) -> Translator:
        spec = self.specs[hart.name]
        a = self.arch
        name = hart.name
        router = self.router
        local_base, local_size = a.local_base, spec.local_size
        local_end = local_base + a.local_window  # a property (a max over the cores): once, not per access
        l1_size = a.l1_size
        iram = self.iram.get(name)
        iram_base = spec.iram[0] if spec.iram else None

        def where(addr):
            region = router.region_name(addr)
            return f" ({region})" if region else ""

        def check(addr, width, verb, pc):
            if addr & (width - 1):
                raise GuestFault(f"misaligned {width}-byte {verb} at 0x{addr:08x}{where(addr)}", name, pc)
            if local_base <= addr < local_end or addr < l1_size:
                # the part of the local window this core lacks, or an access running off L1's end
                raise GuestFault(f"{width}-byte {verb} at unmapped address 0x{addr:08x}"
                                 f" ({name} local data RAM is {local_size} bytes)" if addr >= local_base else
                                 f"{width}-byte {verb} at 0x{addr:08x} runs past the end of L1", name, pc)
            if iram_base is not None and iram_base <= addr < iram_base + len(iram):
                raise GuestFault(f"{width}-byte {verb} at 0x{addr:08x}: the instruction RAM is not "
                                 "accessible by loads and stores", name, pc)
            entry = router.lookup(addr)
            if entry is None:
                raise GuestFault(f"{width}-byte {verb} at unmapped address 0x{addr:08x}", name, pc)
            if entry[1] is None:
                raise Unimplemented(f"{name} pc 0x{pc:08x}: {width}-byte {verb} at 0x{addr:08x} in "
                                    f"{entry[0].name}: this region is not modelled")
            return entry[1]

        passed = {}  # addr << 3 | width -> the router entry of an access check() let through

        def device(addr, width, verb, pc):
            """check(), once per address and width: what it tests does not change, and the
            router entry (not its device: the Tensix replaces a placeholder) is kept."""
            entry = passed.get(addr << 3 | width)
            if entry is None:
                check(addr, width, verb, pc)
                entry = passed[addr << 3 | width] = router.lookup(addr)
            return entry[1]

        def LD(addr, width, signed, pc):
            dev = device(addr, width, "load", pc)
            try:
                v = dev.read(name, addr, width)
            except (GuestFault, Unimplemented) as e:
                raise _locate(e, name, pc) from None
            if v is None:
                hart.stall = _stall_text(self.last_stall, pc) or f"waiting on a load from 0x{addr:08x}{where(addr)}"
                self.last_stall = None
                return None
            if signed:
                bits = 8 * width
                v = (v - ((v >> (bits - 1)) & 1) * (1 << bits)) & 0xFFFFFFFF
            return v

        # addr -> (push, origin): a Tensix instruction push address a 4-byte store of this core
        # reached, where push(value, origin) is what its device's write does (see PushPort.pusher)
        pushes = {}

        def ST(addr, width, value, pc):
            fast = pushes.get(addr)
            if fast is not None and width == 4:
                try:
                    ok = fast[0](value, fast[1])
                except (GuestFault, Unimplemented) as e:
                    raise _locate(e, name, pc) from None
            else:
                dev = device(addr, width, "store", pc)
                try:
                    ok = dev.write(name, addr, width, value)
                except (GuestFault, Unimplemented) as e:
                    raise _locate(e, name, pc) from None
                if width == 4 and ok is not None:
                    pusher = getattr(dev, "pusher", None)
                    if pusher is not None:  # (a store that went through: the next ones may skip device)
                        pushes[addr] = pusher(name, addr)
            if not ok:
                hart.stall = _stall_text(self.last_stall, pc) or f"waiting on a store to 0x{addr:08x}{where(addr)}"
                self.last_stall = None
                return False
            self.activity[0] = 1
            return True

        push_addr = self.arch.region("tensix_inst").base

        tt_origins = {}  # pc -> f".ttinsn pc 0x{pc:08x}" (made once per pc)

        def TT(word, pc):
            if not spec.can_push:
                raise GuestFault(f".ttinsn 0x{word:08x}: {name} cannot push Tensix instructions", name, pc)
            origin = tt_origins.get(pc)
            if origin is None:
                origin = tt_origins[pc] = f".ttinsn pc 0x{pc:08x}"
            try:
                ok = self.tensix.push_from_core(name, push_addr, word, origin)
            except (GuestFault, Unimplemented) as e:
                raise _locate(e, name, pc) from None
            if not ok:
                hart.stall = _stall_text(self.last_stall, pc) or "stalled pushing a Tensix instruction"
                self.last_stall = None
            return ok

        def EX(kind, pc, delta):
            hart.exit_pc = pc
            hart.exit_delta = delta
            return kind

        def ILL(pc, word):
            raise GuestFault(f"illegal instruction 0x{word:08x}", name, pc)

        debug_hw = self.riscv_debug

        def ECALL(pc):
            return debug_hw.ebreak(hart, pc, "ecall")

        def EBREAK(pc):
            return debug_hw.ebreak(hart, pc, "ebreak")

        def MISJ(pc, target):
            raise GuestFault(f"jump to misaligned address 0x{target:08x}", name, pc)

        def SMC(addr):
            self.invalidate_code(addr)

        csr = csrmod.CsrFile(self, hart)

        def CSR(op, num, src, wr, pc):
            try:
                return csr.access(op, num, src, wr)
            except (GuestFault, Unimplemented) as e:
                raise _locate(e, name, pc) from None

        env = {
            "x": hart.x, "m": self.l1, "w": self.l1_words, "h": self.l1_halves,
            "lm": hart.local, "lw": memoryview(hart.local).cast("I"), "lh": memoryview(hart.local).cast("H"),
            "ic": self.is_code, "ACT": self.activity,
            "LD": LD, "ST": ST, "TT": TT, "EX": EX, "ILL": ILL, "ECALL": ECALL, "EBREAK": EBREAK,
            "MISJ": MISJ, "SMC": SMC, "CSR": CSR, "DIV": div, "REM": rem, "HART": hart,
        }

        words = self.l1_words

        def fetch(pc):
            if pc & 3:
                raise GuestFault(f"instruction fetch from misaligned pc 0x{pc:08x}", name, pc)
            if pc < l1_size:
                return words[pc >> 2]
            if iram is not None and iram_base <= pc < iram_base + len(iram):
                return int.from_bytes(iram[pc - iram_base:pc - iram_base + 4], "little")
            raise GuestFault(f"instruction fetch from 0x{pc:08x}{where(pc)}: code runs only from L1"
                             + (" or the instruction RAM" if iram is not None else ""), name, pc)

        def on_translate(start, pcs):
            for p in pcs:
                if p < l1_size:
                    i = p >> 2
                    self.is_code[i] = 1
                    self.code_map.setdefault(i, []).append((hart, start))

        def XFAULT(pc, text):
            raise GuestFault(text, name, pc)

        def XUNIMPL(pc, word, what):
            raise Unimplemented(f"{name} pc 0x{pc:08x}: instruction 0x{word:08x} ({what}) is not modelled")

        return Translator(env, fetch, l1_size, local_base, local_size, spec.can_push, on_translate,
                          extensions=a.riscv_extensions, unmodelled=a.riscv_unmodelled,
                          helpers={"XFAULT": XFAULT, "XUNIMPL": XUNIMPL})

    def invalidate_code(self, addr: int) -> None:
        """A store hit translated code: drop every block (of any core) covering the word."""
        i = addr >> 2
        self.is_code[i] = 0
        for hart, start in self.code_map.pop(i, ()):
            hart.blocks.pop(start, None)
            hart.single.pop(start, None)
            for k in range(hart.step_spans.pop(start, 0)):
                hart.stepped.pop(start + 4 * k, None)

    def warn(self, text: str, site: str | None = None) -> None:
        self.diagnostics.warn(text, site)

    def undefined(self, site: str, text: str) -> None:
        """Behaviour the docs leave undefined: a counted warning (an error with --strict)."""
        self.diagnostics.undefined(site, text)

    @property
    def warnings(self) -> list:
        return self.diagnostics.texts

    # -- time -------------------------------------------------------------------
    def clock(self) -> int:
        """The wall clock: advances with execution (retired instructions, all cores),
        so it is deterministic."""
        return self.steps

    # -- soft reset -------------------------------------------------------------
    def set_soft_reset(self, value: int) -> None:
        old = self.soft_reset
        self.soft_reset = value
        if self._tensix is not None:
            self._tensix.soft_reset_changed(old, value)
        for spec in self.arch.cores:
            bit = 1 << spec.reset_bit
            hart = self.harts[spec.name]
            if old & bit and not value & bit:
                hart.reset_registers(self.reset_pc(spec.name))
                hart.state = RUNNING
                hart.released = True
                self.riscv_debug.core_reset(spec.name)
                self.activity[0] = 1
            elif value & bit and not old & bit:
                hart.state = RESET
                hart.stall = None
                self.riscv_debug.core_reset(spec.name)
                if self._tensix is not None:
                    self._tensix.core_reset(spec.name)
                self.mailboxes.discard_writable(spec.name)

    def reset_pc(self, core: str) -> int:
        if core in self.entry_override:
            return self.entry_override[core]
        rp = self.specs[core].reset_pc
        if rp.enable_addr is not None:
            if (self._register_value(rp.enable_addr) >> rp.enable_bit) & 1:
                return self._register_value(rp.pc_addr)
        return rp.default

    def _register_value(self, addr):
        """What the hardware latches from a register: the stored value of a plain
        register (Blackhole's NCRISC reset-PC registers are write-only to software),
        else what a read returns."""
        entry = self.router.lookup(addr)
        dev = entry[1] if entry else None
        if isinstance(dev, RegisterBank) and addr - dev.base not in dev.hooks and addr - dev.base in dev.values:
            return dev.values[addr - dev.base]
        return self.host_read_u32(addr)

    def set_start_pc(self, core: str, pc: int) -> None:
        """Make ``core`` leave reset at ``pc`` instead of its reset PC."""
        if core not in self.specs:
            raise UsageError(f"unknown core {core!r} (one of {', '.join(CORE_NAMES)})")
        self.entry_override[core] = pc

    def release(self, cores) -> None:
        """Clear the soft-reset bits of ``cores`` (what BRISC or the host does)."""
        mask = 0
        for c in cores:
            if c not in self.specs:
                raise UsageError(f"unknown core {c!r} (one of {', '.join(CORE_NAMES)})")
            mask |= 1 << self.specs[c].reset_bit
        self.set_soft_reset(self.soft_reset & ~mask)
        if self.host_log is not None:
            self.host_log.append(("release", self.soft_reset))

    # -- host memory access -----------------------------------------------------------
    def _locate_local(self, addr, n, core):
        a = self.arch
        if a.local_base <= addr < a.local_base + a.local_window:
            if core is None:
                raise UsageError(f"address 0x{addr:08x} is core-local memory: name the core (CORE:ADDR)")
            hart = self.harts[core]
            off = addr - a.local_base
            if off + n > len(hart.local):
                raise UsageError(f"0x{addr:08x}+{n} is beyond {core}'s {len(hart.local)}-byte local memory")
            return hart.local, off, None
        for name, ram in self.iram.items():
            base = self.specs[name].iram[0]
            if base <= addr < base + len(ram):
                if addr + n > base + len(ram):
                    raise UsageError(f"0x{addr:08x}+{n} runs past {name}'s instruction RAM")
                return ram, addr - base, self.harts[name]
        return None

    def write(self, addr: int, data: bytes, core: str | None = None, *, staged: bool = False) -> None:
        """Host write of raw bytes to L1, a core's local memory, the NCRISC IRAM, or
        (4-byte multiples) MMIO registers. ``staged``: a core-local ELF segment whose
        bytes are also written to L1 for the start-up code to copy (see load_elf)."""
        n = len(data)
        if self.host_log is not None:
            self.host_log.append(("write", addr, bytes(data), core, staged))
        if addr + n <= self.arch.l1_size:
            self.l1[addr:addr + n] = data
            for i in range(addr >> 2, (addr + n + 3) >> 2):
                if self.is_code[i]:
                    self.invalidate_code(i << 2)
            return
        loc = self._locate_local(addr, n, core)
        if loc is not None:
            buf, off, code_owner = loc
            buf[off:off + n] = data
            if code_owner is not None:  # instruction RAM: forget its translations
                for cache in (code_owner.blocks, code_owner.single, code_owner.stepped, code_owner.step_spans):
                    for k in [k for k in cache if k >= self.arch.l1_size]:
                        del cache[k]
            return
        if n % 4 or addr % 4:
            raise UsageError(f"MMIO write at 0x{addr:08x}: whole 32-bit words only")
        for i in range(0, n, 4):
            self.host_write_u32(addr + i, int.from_bytes(data[i:i + 4], "little"), core)

    def read(self, addr: int, n: int, core: str | None = None) -> bytes:
        if addr + n <= self.arch.l1_size:
            return bytes(self.l1[addr:addr + n])
        loc = self._locate_local(addr, n, core)
        if loc is not None:
            buf, off, _ = loc
            return bytes(buf[off:off + n])
        if n % 4 or addr % 4:
            raise UsageError(f"MMIO read at 0x{addr:08x}: whole 32-bit words only")
        return b"".join(self.host_read_u32(addr + i, core).to_bytes(4, "little") for i in range(0, n, 4))

    def core_read_u32(self, core: str, addr: int) -> int:
        """A 32-bit load made as if ``core`` executed ``lw`` (its debug interface's memory
        read): L1, its own local data RAM, any MMIO register with its side effects."""
        return self._core_access(core, addr, None)

    def core_write_u32(self, core: str, addr: int, value: int) -> None:
        """A 32-bit store made as if ``core`` executed ``sw`` (its debug interface's
        memory write); translated code it hits is dropped."""
        self._core_access(core, addr, value & 0xFFFFFFFF)

    def _core_access(self, core, addr, value):
        a = self.arch
        hart = self.harts[core]
        verb = "load" if value is None else "store"
        if addr & 3:
            raise GuestFault(f"debug-interface {verb} at misaligned address 0x{addr:08x}", core, hart.pc)
        if addr < a.l1_size or a.local_base <= addr < a.local_base + a.local_window:
            if addr >= a.l1_size and addr - a.local_base >= len(hart.local):
                raise GuestFault(f"debug-interface {verb} at unmapped address 0x{addr:08x} ({core} local data "
                                 f"RAM is {len(hart.local)} bytes)", core, hart.pc)
            if value is None:
                return self.read_u32(addr, core)
            self.write_u32(addr, value, core)
            self.activity[0] = 1
            return None
        tr = self.translators[core]
        stall = hart.stall
        if value is None:
            v = tr.env["LD"](addr, 4, False, hart.pc)
            done = v is not None
        else:
            done = v = tr.env["ST"](addr, 4, value, hart.pc)
        if not done:
            why = hart.stall
            hart.stall = stall
            raise Unimplemented(f"{core}: a debug-interface {verb} at 0x{addr:08x} would wait ({why}); hardware "
                                "keeps the core busy until it completes, ttemu does not model the wait")
        return v if value is None else None

    def guest_store(self, addr: int, value: int) -> None:
        """A 32-bit store made by a device on the tile's behalf (a NoC request)."""
        self.write_u32(addr, value)
        self.activity[0] = 1

    def copy_l1(self, src: int, dst: int, n: int) -> None:
        """Bytes moved by a device on the tile's behalf (a NoC read or write)."""
        self.write(dst, self.read(src, n))
        self.activity[0] = 1

    def write_u32(self, addr: int, value: int, core: str | None = None) -> None:
        self.write(addr, (value & 0xFFFFFFFF).to_bytes(4, "little"), core)

    def read_u32(self, addr: int, core: str | None = None) -> int:
        return int.from_bytes(self.read(addr, 4, core), "little")

    def host_write_u32(self, addr, value, core=None):
        entry = self.router.lookup(addr)
        if entry is None or entry[1] is None:
            what = "unmapped" if entry is None else f"{entry[0].name}, not modelled"
            raise UsageError(f"host write to 0x{addr:08x}: {what}")
        if not entry[1].write(core, addr, 4, value & 0xFFFFFFFF):
            raise UsageError(f"host write to 0x{addr:08x} would block")

    def host_read_u32(self, addr, core=None):
        entry = self.router.lookup(addr)
        if entry is None or entry[1] is None:
            what = "unmapped" if entry is None else f"{entry[0].name}, not modelled"
            raise UsageError(f"host read of 0x{addr:08x}: {what}")
        v = entry[1].read(core, addr, 4)
        if v is None:
            raise UsageError(f"host read of 0x{addr:08x} would block")
        return v

    # -- ELF loading --------------------------------------------------------------------
    def load_elf(self, path: str, core: str | None = None, *, start_at_entry: bool = False,
                 local_data: int | None = None) -> str:
        """Load an ELF for ``core`` (inferred when None; see :func:`infer_core`).

        Every PT_LOAD segment's file bytes are written; NOBITS parts (memsz beyond
        filesz) are not, as tt-exalens does not write NOBITS sections: the tile's
        memory starts zeroed, and data the host placed there earlier survives. A
        segment at the core-local address is also written to L1 at the ELF's
        ``__loader_init_start`` (tt-llk start-up code copies local data from there), or
        at ``local_data`` when given (tt-metal firmware copies it from
        ``MEM_<CORE>_INIT_LOCAL_L1_BASE_SCRATCH``, which the ELF does not name).
        With ``start_at_entry`` the core leaves reset at the ELF's entry point instead
        of its reset PC (how a lone ELF runs). Returns the core name."""
        img = read_elf(path)
        _check_isa(img)
        if core is None:
            core = infer_core(img, self.arch)
        if core not in self.specs:
            raise UsageError(f"unknown core {core!r} (one of {', '.join(CORE_NAMES)})")
        if core in self.images:
            raise UsageError(f"two ELFs for {core}: {self.images[core].path} and {path}")
        self._check_placement(img, core, local_data)
        for seg in img.segments:
            if not seg.data:
                continue
            staged = self._staging_address(img, seg, local_data)
            self.write(seg.vaddr, seg.data, core, staged=staged is not None)
            if staged is not None:
                self.write(staged, seg.data)
        self.images[core] = img
        if start_at_entry:
            self.entry_override[core] = img.entry
        return core

    def _check_placement(self, img, core, local_data=None):
        a = self.arch
        spec = self.specs[core]
        name = img.path
        for seg in img.segments:
            lo, hi = seg.vaddr, seg.vaddr + seg.memsz
            if hi <= a.l1_size:
                self._check_overlap(img, core, seg)
                continue
            if a.local_base <= lo < a.local_base + a.local_window:
                if hi > a.local_base + spec.local_size:
                    raise ElfError(f"{name}: segment 0x{lo:08x}-0x{hi:08x} does not fit {core}'s "
                                   f"{spec.local_size}-byte local memory (it would overlap another core's)")
                continue
            if spec.iram and spec.iram[0] <= lo and hi <= spec.iram[0] + spec.iram[1]:
                continue
            raise ElfError(f"{name}: segment 0x{lo:08x}-0x{hi:08x} is outside {core}'s memory "
                           f"(L1 0x0-0x{a.l1_size:x}, local 0x{a.local_base:08x}+0x{spec.local_size:x}"
                           + (f", IRAM 0x{spec.iram[0]:08x}+0x{spec.iram[1]:x}" if spec.iram else "") + ")")
        for seg in img.segments:
            staged = self._staging_address(img, seg, local_data)
            if staged is not None and staged + len(seg.data) > a.l1_size:
                raise ElfError(f"{name}: local data staged at __loader_init_start+0x{seg.vaddr - a.local_base:x} "
                               "runs past the end of L1")

    def _staging_address(self, img, seg, local_data=None):
        """Where the loader also puts a core-local segment: L1 at
        ``__loader_init_start + (vaddr - local base)`` (tt-llk), or at ``local_data +
        (vaddr - local base)`` when given (None if not applicable)."""
        a = self.arch
        start = local_data if local_data is not None else img.symbols.get("__loader_init_start")
        if start is None or not seg.data or not a.local_base <= seg.vaddr < a.local_base + a.local_window:
            return None
        return start + seg.vaddr - a.local_base

    def _check_overlap(self, img, core, seg):
        """Two ELFs may not put file bytes on the same L1 bytes (NOBITS holes, such as
        tt-llk's shared runtime-arguments block, may coincide)."""
        lo, hi = seg.vaddr, seg.vaddr + len(seg.data)
        if lo == hi:
            return
        for other, oimg in self.images.items():
            for oseg in oimg.segments:
                olo, ohi = oseg.vaddr, oseg.vaddr + len(oseg.data)
                if ohi <= self.arch.l1_size and lo < ohi and olo < hi:
                    raise ElfError(f"{img.path}: segment 0x{lo:08x}-0x{hi:08x} overlaps {other}'s "
                                   f"segment 0x{olo:08x}-0x{ohi:08x} in L1")

    def covered(self, addr: int) -> bool:
        """Some loaded ELF segment has file bytes at ``addr``."""
        return any(seg.vaddr <= addr < seg.vaddr + len(seg.data) for img in self.images.values()
                   for seg in img.segments)

    def symbol(self, name: str) -> int:
        """Address of a symbol from any loaded ELF (brisc first)."""
        for core in CORE_NAMES:
            img = self.images.get(core)
            if img and name in img.symbols:
                return img.symbols[name]
        raise KeyError(name)

    def symbolize(self, core: str, addr: int) -> str | None:
        img = self.images.get(core)
        return img.symbolize(addr) if img else None

    # -- running --------------------------------------------------------------------------
    def default_release(self) -> list:
        if "brisc" in self.images:
            return ["brisc"]
        return [c for c in CORE_NAMES if c in self.images]

    def run(self, *, max_steps=None, until=(), idle_steps=None):
        from .run import run

        if self.host_log is not None:
            until = [as_condition(u) for u in until]
            self.host_log.append(("run", [u.as_plan() for u in until]))
        return run(self, max_steps=max_steps, until=until, idle_steps=idle_steps)


#: Address-map regions served by the Tensix coprocessor (see Coprocessor.attach).
TENSIX_REGIONS = ("tensix_inst", "tensix_inst1", "tensix_inst2", "tensix_mop_cfg", "tensix_pc_buf",
                  "tensix_pc1_buf", "tensix_pc2_buf", "tensix_cfg", "tensix_regfile", "riscv_tdma_regs",
                  "tensix_dst")


class _LazyCoprocessorPort:
    """Stands in for the coprocessor's devices until the first access builds it."""

    def __init__(self, tile):
        self.tile = tile

    def _device(self, addr):
        self.tile.tensix  # builds the coprocessor, which attaches its own devices
        return self.tile.router.lookup(addr)[1]

    def read(self, core, addr, width):
        return self._device(addr).read(core, addr, width)

    def write(self, core, addr, width, value):
        return self._device(addr).write(core, addr, width, value)


def _stall_text(template, pc):
    return template.replace("{pc}", f"0x{pc:x}") if template else None


def _locate(err, core, pc):
    """Give a device's error the core and pc of the access (devices do not know them)."""
    if getattr(err, "core", None) is None and isinstance(err, GuestFault):
        new = type(err)(str(err), core, pc)
        return new
    if isinstance(err, Unimplemented) and not str(err).startswith(core):
        return Unimplemented(f"{core} pc 0x{pc:08x}: {err}")
    return err


def _check_isa(img: ElfImage) -> None:
    """The cores fetch 32-bit instructions only (no C extension: tt-isa-documentation
    BabyRISCV/README.md): an ELF built for compressed instructions cannot run. Its RISC-V
    arch attribute, or the ELF header's RVC flag, says so before any code does."""
    import os
    import re

    attr = img.arch_attr or ""
    # "rv32i2p1_m2p0_a2p1_c2p0_zca1p0": single letters in the first part (they may run
    # together: "rv32imac") or alone after an underscore; Zc* extensions by name
    parts = attr.lower().split("_")
    letters = set(re.findall(r"([a-z])(?:\d+(?:p\d+)?)?", parts[0][4:])) if parts[0][:4] in ("rv32", "rv64") else set()
    letters |= {p[0] for p in parts[1:] if re.fullmatch(r"[a-z](\d+(p\d+)?)?", p)}
    found = "c" if "c" in letters else next((p for p in parts[1:] if p.startswith("zc")), None)
    why = (f"RISC-V arch attribute {attr!r} includes {found}" if found else
           "ELF header flag EF_RISCV_RVC" if img.flags & 1 else None)
    if why:
        raise ElfError(f"{os.path.basename(img.path)}: built for compressed instructions ({why}); the tile's "
                       "cores execute 32-bit instructions only: rebuild with -march=rv32im (no c)")


def infer_core(img: ElfImage, arch) -> str:
    """Which core an ELF is for: a core name in the file name (or tt-llk's
    unpack/math/pack kernel names), else the core whose reset PC is the entry point,
    else brisc (a lone ELF runs from its entry point on BRISC)."""
    import os

    base = os.path.basename(img.path).lower()
    for name in ("ncrisc", "trisc0", "trisc1", "trisc2", "brisc"):
        if name in base:
            return name
    for key, name in (("unpack", "trisc0"), ("math", "trisc1"), ("pack", "trisc2")):
        if key in base:
            return name
    for spec in arch.cores:
        if spec.reset_pc.default == img.entry and img.entry != 0:
            return spec.name
    return "brisc"
