"""The RISC-V cores' debug interface: pause, single-step, resume, register and memory
access, as an external debugger (tt-exalens) drives it through the tile's debug
registers.

tt-isa-documentation WormholeB0/TensixTile/BabyRISCV/DebugInterface.md: each of RISCV
B, T0, T1, T2 has debug registers ``DR(i)`` (status, command, two arguments, result,
breakpoint modes and addresses), reached through RISCV_DEBUG_REG_RISC_DBG_CNTL_0/1 and
RISC_DBG_STATUS_0/1 ("Debug register access"). RISCV NC has none (its ``ebreak`` still
pauses it, for good). docs/debug-hardware.md lists what is modelled and how.

What "paused" means in the model: the core's hart is in state ``PAUSED`` and the
scheduler skips it (``ttemu.run``); everything else on the tile goes on. Commands act
at once, at the write that triggers them: a memory read returns its value before the
host's next access, a single step retires its instruction then (``run._run_single``,
the run loop's own one-instruction path, so counts and traces are the normal ones); a
step whose instruction waits (a FIFO, a mailbox) leaves the core ``STEPPING`` until the
scheduler retires it. A pause request takes effect at once too: the core stops before
its next instruction (a core pausing itself from its own code stops at the end of its
scheduler turn).
"""

from __future__ import annotations

from ..errors import GuestAssertion, GuestFault, Unimplemented, UsageError
from ..riscv.hart import PAUSED, RESET, RUNNING, STEPPING
from ..riscv.translate import EXIT_PAUSE

# DR(0), the status bitmask
ST_PAUSED = 1 << 0
ST_BREAKPOINT = 1 << 1
ST_WATCHPOINT = 1 << 2
ST_EBREAK = 1 << 3  # ebreak or ecall
# DR(1), the command and control bitmask
CMD_PAUSE = 1 << 0
CMD_STEP = 1 << 1
CMD_CONTINUE = 1 << 2
CMD_READ_REG = 1 << 3
CMD_WRITE_REG = 1 << 4
CMD_READ_MEM = 1 << 5
CMD_WRITE_MEM = 1 << 6
CMD_CLEAR_REGS = 1 << 7
CMD_WRITE_PC = 1 << 8
SLOW_MODE = 1 << 31
_NEEDS_PAUSE = CMD_STEP | CMD_CONTINUE | CMD_READ_REG | CMD_WRITE_REG | CMD_READ_MEM | CMD_WRITE_MEM \
    | CMD_CLEAR_REGS | CMD_WRITE_PC
_NAMES = {CMD_STEP: "single-step", CMD_CONTINUE: "resume", CMD_READ_REG: "GPR read", CMD_WRITE_REG: "GPR write",
          CMD_READ_MEM: "memory read", CMD_WRITE_MEM: "memory write", CMD_CLEAR_REGS: "bulk GPR write",
          CMD_WRITE_PC: "pc write"}
# RISC_DBG_CNTL_0 fields; RISC_DBG_STATUS_0 echoes them, with bit 30 "STATUS_1 valid"
TRIGGER = 1 << 31
STATUS1_VALID = 1 << 30


class DebugCore:
    """One core's debug registers."""

    __slots__ = ("command", "arg0", "arg1", "result", "modes", "addresses", "cause", "half_steps")

    def __init__(self):
        self.command = 0  # DR(1) as last written (bit 31, slow execution mode, persists)
        self.arg0 = 0  # DR(2): GPR index or address
        self.arg1 = 0  # DR(3): data
        self.result = 0  # DR(4)
        self.modes = 0  # DR(5): eight 4-bit breakpoint / watchpoint modes
        self.addresses = [0] * 8  # DR(10 + i)
        self.cause = 0  # DR(0) bits 1-3 and 8-15: why the current pause happened
        self.half_steps = 0  # step commands seen towards the next retired instruction


class RiscvDebug:
    """The debug interface of every core of a tile, and the register pair that
    multiplexes them. Its methods are also the Python API (``tile.riscv_debug``):
    :meth:`pause`, :meth:`resume`, :meth:`step`, :meth:`status`, :meth:`read_gpr`, ...

    ``ebreak_pauses``: what ``ebreak`` and ``ecall`` do. False (ttemu's default for a
    run: ``ebreak`` is tt-llk's LLK_ASSERT, an error; ``ecall`` a guest fault); True, as
    hardware does: the core pauses after the instruction with status bit 3 set, for a
    debugger to inspect and resume (how a host driving the tile through its registers,
    such as tt-exalens, expects them).
    """

    def __init__(self, tile):
        self.tile = tile
        spec = tile.arch.debug_hw
        self.which = spec.cores  # Which_RISCV -> core name
        self.step_commands = spec.step_commands
        self.cores = {name: DebugCore() for name in tile.harts}
        self.ebreak_pauses = False
        self.cntl0 = 0  # RISC_DBG_CNTL_0
        self.cntl1 = 0  # RISC_DBG_CNTL_1
        self.status1 = 0  # RISC_DBG_STATUS_1
        self.valid = False  # RISC_DBG_STATUS_0 bit 30

    # -- RISCV_DEBUG_REG_RISC_DBG_* -------------------------------------------------------
    def write_cntl0(self, value: int) -> None:
        """A read or write of ``DR(DR_i)`` of core ``Which_RISCV`` happens when ``Trigger``
        (bit 31) changes from false to true."""
        old, self.cntl0 = self.cntl0, value
        if not value & TRIGGER or old & TRIGGER:
            return
        core = self.which[(value >> 17) & 3]
        index = value & 0x7FF
        if value >> 16 & 1:
            self.valid = False
            self.dr_write(core, index, self.cntl1)
        else:
            self.status1 = self.dr_read(core, index)
            self.valid = True

    def read_status0(self) -> int:
        c = self.cntl0
        return (c & 0x7FF) | ((c >> 16 & 1) << ((c >> 17) & 3) << 13) | (STATUS1_VALID if self.valid else 0) \
            | (c & TRIGGER)

    # -- the DR registers -------------------------------------------------------------------
    def dr_read(self, core: str, i: int) -> int:
        d = self.cores[core]
        if i == 0:
            return self.status(core)
        if i == 1:
            return d.command
        if i == 2:
            return d.arg0
        if i == 3:
            return d.arg1
        if i == 4:
            return d.result
        if i == 5:
            return d.modes
        if 10 <= i < 18:
            return d.addresses[i - 10]
        self.tile.undefined(f"{core} DR({i}) read", f"{core}: read of debug register DR({i}) (DebugInterface.md "
                                                    "defines DR(0)-DR(5) and DR(10)-DR(17)); ttemu reads 0")
        return 0

    def dr_write(self, core: str, i: int, value: int) -> None:
        d = self.cores[core]
        value &= 0xFFFFFFFF
        if i in (0, 4):
            return  # read-only: "writes discarded"
        if i == 1:
            self.command(core, value)
        elif i == 2:
            d.arg0 = value
        elif i == 3:
            d.arg1 = value
        elif i == 5:
            modes = [(value >> (4 * k)) & 0xF for k in range(8)]
            on = [k for k, m in enumerate(modes) if 8 <= m <= 11]
            if on:
                raise Unimplemented(f"{core}: hardware breakpoints / memory watchpoints (DR(5) = 0x{value:08x} "
                                    f"enables #{', #'.join(map(str, on))}) are not modelled")
            d.modes = value
        elif 10 <= i < 18:
            d.addresses[i - 10] = value
        else:
            self.tile.undefined(f"{core} DR({i}) write", f"{core}: write of 0x{value:x} to debug register DR({i}) "
                                                         "(not defined by DebugInterface.md); ttemu ignores it")

    def command(self, core: str, value: int) -> None:
        """A write to DR(1): the actions its bits ask for, in the order pause; GPR and
        memory access; pc write; step / resume."""
        d = self.cores[core]
        hart = self.tile.harts[core]
        d.command = value
        if value & CMD_PAUSE:
            self.pause(core)
        acts = value & _NEEDS_PAUSE
        if not acts:
            return
        if hart.state != PAUSED:
            what = ", ".join(n for bit, n in _NAMES.items() if acts & bit)
            self.tile.undefined(f"{core} debug command while not paused",
                                f"{core}: debug command 0x{value:08x} ({what}) while the core is "
                                f"{hart.state}, not paused (DebugInterface.md: valid only when paused); "
                                "ttemu ignores it")
            return
        if acts & (CMD_READ_MEM | CMD_WRITE_MEM) and (acts & (CMD_STEP | CMD_CONTINUE)
                                                     or acts & CMD_READ_MEM and acts & CMD_WRITE_MEM):
            self.tile.undefined(f"{core} debug memory command combined",
                                f"{core}: debug command 0x{value:08x} combines a memory access with another "
                                "memory access, a step or a resume (DebugInterface.md: cannot be combined); "
                                "ttemu does them one after the other")
        if acts & CMD_CLEAR_REGS:
            for n in range(1, 32):
                hart.set_reg(n, 0)
        if acts & CMD_WRITE_REG:
            if not 0 <= d.arg0 < 32:
                self.tile.undefined(f"{core} debug GPR write index", f"{core}: debug GPR write of register "
                                    f"{d.arg0} (DR(2) must be 1-31; the pc is written with DR(1) bit 8); ignored")
            else:
                hart.set_reg(d.arg0, d.arg1)
        if acts & CMD_READ_REG:
            v = hart.reg(d.arg0)
            if v is None:
                self.tile.undefined(f"{core} debug GPR read index", f"{core}: debug GPR read of register {d.arg0} "
                                    "(DR(2) must be 0-31, or 32 for the pc); ttemu reads 0")
                v = 0
            d.result = v
        if acts & CMD_WRITE_MEM:
            self.tile.core_write_u32(core, d.arg0, d.arg1)
        if acts & CMD_READ_MEM:
            d.result = self.tile.core_read_u32(core, d.arg0)
        if acts & CMD_WRITE_PC:
            # DebugInterface.md "Writing pc": in slow execution mode the new pc comes from
            # the command argument register (the page names DR(4), the result register;
            # tt-exalens's flush, which works on silicon, puts it in DR(3)), else the pc is
            # set as by a soft reset. In-flight instructions are dropped (none are in
            # flight in the model) and the core stays paused unless bit 2 resumes it.
            hart.pc = d.arg1 if value & SLOW_MODE else self.tile.reset_pc(core)
            hart.stall = None
            d.cause = 0
            d.half_steps = 0
        elif acts & CMD_STEP:
            self.step(core)
        if acts & CMD_CONTINUE:
            self.resume(core)

    # -- operations (also the Python API) -----------------------------------------------------
    def _debuggable(self, core):
        if core not in self.cores:
            raise UsageError(f"unknown core {core!r}")
        if core not in self.which:
            raise UsageError(f"{core} has no debug interface (DebugInterface.md: RISCV NC has none)")
        return self.tile.harts[core]

    def status(self, core: str) -> int:
        """DR(0): bit 0 paused, bit 1 breakpoint, bit 2 memory watchpoint, bit 3 ebreak /
        ecall (bits 1-3 say why the current pause happened)."""
        hart = self.tile.harts[core]
        if hart.state != PAUSED:
            return 0
        return ST_PAUSED | self.cores[core].cause

    def pause(self, core: str) -> None:
        """Pause a core before its next instruction (no effect if already paused)."""
        hart = self._debuggable(core)
        if hart.state == PAUSED:
            return
        if hart.state == RESET:
            self.tile.undefined(f"{core} debug pause in reset", f"{core}: debug pause while the core is held "
                                "in soft reset (DebugInterface.md: valid while executing normally); ignored")
            return
        hart.state = PAUSED
        d = self.cores[core]
        d.cause = 0
        d.half_steps = 0

    def resume(self, core: str) -> None:
        """Resume a paused core."""
        hart = self._debuggable(core)
        if hart.state not in (PAUSED, STEPPING):
            return
        hart.state = RUNNING
        d = self.cores[core]
        d.cause = 0
        d.half_steps = 0
        self.tile.activity[0] = 1

    def step(self, core: str) -> None:
        """One single-step command. The instruction retires now, unless it waits (then
        the core is ``STEPPING`` until the scheduler retires it); on an arch whose
        ``step_commands`` is 2 every second command retires one."""
        hart = self._debuggable(core)
        if hart.state != PAUSED:
            return
        d = self.cores[core]
        d.half_steps += 1
        if d.half_steps < self.step_commands:
            return
        d.half_steps = 0
        d.cause = 0
        hart.state = STEPPING
        self.retry_step(hart)

    def retry_step(self, hart) -> bool:
        """Run the stepping core's instruction (the run loop calls this for a core left
        ``STEPPING``): True if it retired, and the core is paused again."""
        from ..run import _run_single

        hart.stall = None
        retired = _run_single(self.tile, hart, 1, self.tile.tracer)
        if retired or hart.state != STEPPING:  # HALTED (j .) or PAUSED (ebreak) after one instruction
            hart.state = PAUSED
            self.tile.activity[0] = 1
            return True
        return False

    def read_gpr(self, core: str, n: int) -> int:
        """x0-x31, 32 the pc, of a paused core (as DR(1) bit 3 does)."""
        hart = self._debuggable(core)
        if hart.state != PAUSED:
            raise UsageError(f"{core} is {hart.state}, not paused: its registers are read only while paused")
        v = hart.reg(n)
        if v is None:
            raise UsageError(f"register {n}: 0-31, or 32 for the pc")
        return v

    def ebreak(self, hart, pc: int, what: str) -> int:
        """``ebreak`` / ``ecall`` at ``pc`` (called by the translated code): pause the core
        after it (ebreak_pauses), or raise ttemu's error."""
        if not self.ebreak_pauses:
            if what == "ecall":
                raise GuestFault("ecall (these cores pause on ecall; ttemu treats it as a fault)", hart.name, pc)
            sym = self.tile.symbolize(hart.name, pc)
            raise GuestAssertion(f"ebreak (LLK_ASSERT){' in ' + sym if sym else ''}", hart.name, pc)
        hart.state = PAUSED
        d = self.cores[hart.name]
        d.cause = ST_EBREAK
        d.half_steps = 0
        return EXIT_PAUSE

    # -- tile events ---------------------------------------------------------------------------
    def core_reset(self, core: str) -> None:
        """The core entered or left soft reset: no pause, no cause."""
        d = self.cores[core]
        d.cause = 0
        d.half_steps = 0

    def describe(self, hart) -> str:
        """A paused (or stepping) core, for a hang diagnosis."""
        if hart.state == STEPPING:
            return f"single-stepping at pc 0x{hart.pc:x}, waiting: {hart.stall or 'to retire'}"
        why = " after ebreak/ecall" if self.cores[hart.name].cause & ST_EBREAK else ""
        return f"paused by its debug interface{why} at pc 0x{hart.pc:x}"

