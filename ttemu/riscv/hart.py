"""Per-core architectural state."""

from __future__ import annotations

from ..record import Factory, Record

# Hart.state values
RESET = "reset"  # held in soft reset (never released, or put back)
RUNNING = "running"
HALTED = "halted"  # parked in a self-loop (jal x0, 0)
# paused by its debug interface (a host or core wrote the pause command, or ebreak /
# ecall on a tile whose ebreaks pause: ttemu.mmio.riscv_debug); not scheduled
PAUSED = "paused"
# paused, asked to single-step, and that instruction has not retired yet (it waits on
# a FIFO, a mailbox...): the scheduler retries it alone and the core pauses again
STEPPING = "stepping"


class Hart(Record, eq=False):
    """One baby RISC-V core. ``x`` holds the 32 integer registers (x[0] stays 0).

    ``blocks`` caches translated code: pc -> (function, instruction count); negative
    keys are the special exits (halt, stall) the run loop recognises. ``stall``
    names what the core waits on while an access is not ready, else None.
    """

    name: str
    index: int  # trace id: 0 brisc, 1-3 trisc0-2, 4 ncrisc
    local: bytearray  # core-local data RAM
    x: list = Factory(lambda: [0] * 32)
    pc: int = 0
    state: str = RESET
    steps: int = 0  # retired instructions
    released: bool = False  # ever left soft reset during this run
    stall: str | None = None
    blocks: dict = Factory(dict)
    single: dict = Factory(dict)  # one-instruction blocks (tracing, exact step limits)
    stepped: dict = Factory(dict)  # pc -> (step block, index, count): host clocks (ttemu.run._run_steps)
    step_spans: dict = Factory(dict)  # start pc of a step block -> its instruction count
    # written by a block's special exit: (kind, pc, count correction)
    exit_pc: int = 0
    exit_delta: int = 0
    synced: int = -1  # pc of a CSR block whose step counts the run loop just brought up to date
    tensix_pushed: int = 0
    csr_scratch: dict = Factory(dict)

    def reg(self, n: int) -> int | None:
        """Register ``n`` as debuggers number them (gdb's RISC-V numbering, and the debug
        interface's DR(2) index): x0-x31, 32 the pc; None for any other number."""
        if n == 32:
            return self.pc & 0xFFFFFFFF
        if 0 <= n < 32:
            return self.x[n] & 0xFFFFFFFF
        return None

    def set_reg(self, n: int, value: int) -> bool:
        """Write register ``n`` (numbered as :meth:`reg`); x0 stays zero. False for a
        number that names no register."""
        if n == 32:
            self.pc = value & 0xFFFFFFFF
            return True
        if 0 < n < 32:
            self.x[n] = value & 0xFFFFFFFF
            return True
        return n == 0

    def reset_registers(self, pc: int) -> None:
        for i in range(32):
            self.x[i] = 0
        self.pc = pc
        self.stall = None
