"""Wormhole B0 tile facts.

Memory map: tt-isa-documentation WormholeB0/TensixTile/BabyRISCV/README.md ("Memory map").
Reset bits and reset PCs: WormholeB0/TensixTile/SoftReset.md. Reset-PC override
registers live in Tensix backend configuration: TRISC_RESET_PC_SEC<i>_PC is config
word 158+i, TRISC_RESET_PC_OVERRIDE_Reset_PC_Override_en is word 161 (bit i for
TRISC i), NCRISC_RESET_PC_PC word 162 and its enable word 163; config word k is at
MMIO 0xFFEF0000 + 4*k.
"""

from .spec import ArchSpec, CoreSpec, Csr, NocSpec, Region, ResetPC
from .tables import wormhole_b0_tile as _tile

CFG_BASE = 0xFFEF0000


def _cfg(word: int) -> int:
    return CFG_BASE + 4 * word


_CORES = (
    CoreSpec("brisc", 4096, 11, ResetPC(0x0), tensix_thread=0, can_push=True),
    CoreSpec("trisc0", 2048, 12, ResetPC(0x6000, _cfg(161), 0, _cfg(158)), tensix_thread=0, can_push=True),
    CoreSpec("trisc1", 2048, 13, ResetPC(0xA000, _cfg(161), 1, _cfg(159)), tensix_thread=1, can_push=True),
    CoreSpec("trisc2", 2048, 14, ResetPC(0xE000, _cfg(161), 2, _cfg(160)), tensix_thread=2, can_push=True),
    CoreSpec("ncrisc", 4096, 18, ResetPC(0x12000, _cfg(163), 0, _cfg(162)), tensix_thread=None, can_push=False,
             iram=(0xFFC00000, 16 * 1024)),
)

# The generated map follows ttsim; the ISA documentation (which wins) gives larger
# windows for two regions and lists the PIC registers, which ttsim omits.
_DOC_SIZES = {"noc_overlay": 0x40000, "tensix_pc_buf": 0x10000, "tensix_pc1_buf": 0x10000,
              "tensix_pc2_buf": 0x10000, "tensix_inst": 0x10000, "tensix_inst1": 0x10000,
              "tensix_inst2": 0x10000, "tensix_cfg": 0x10000}
_EXTRA = (Region("pic_regs", 0xFFB13000, 0x1000),)

_MAP = tuple(Region(n, b, _DOC_SIZES.get(n, s)) for n, b, s in _tile.REGIONS) + _EXTRA

# CSRs (number -> Csr; kinds in ttemu/arch/spec.py): the Zicntr counters, read-only.
_CSRS = {
    0xC00: Csr("cycle", "cycle"), 0xC80: Csr("cycleh", "cycleh"),
    0xC01: Csr("time", "cycle"), 0xC81: Csr("timeh", "cycleh"),
    0xC02: Csr("instret", "instret"), 0xC82: Csr("instreth", "instreth"),
    0xB00: Csr("mcycle", "cycle"), 0xB80: Csr("mcycleh", "cycleh"),
    0xB02: Csr("minstret", "instret"), 0xB82: Csr("minstreth", "instreth"),
    0xF14: Csr("mhartid", "hartid"),
}

# STALLWAIT condition mask (WormholeB0/TensixTile/TensixCoprocessor/STALLWAIT.md,
# "Condition mask"): 15 bits; a zero mask means 0x7F. Seed 002 lists 13 bits with
# default 0x0F: those are Blackhole's (see blackhole.py).
STALLWAIT_CONDITIONS = (
    (0, "busy", "scalar", "ThCon memory requests outstanding"),
    (1, "busy", "unpack0", "Unpacker 0 busy"),
    (2, "busy", "unpack1", "Unpacker 1 busy"),
    (3, "busy", "pack0", "Packer 0 busy"),
    (4, "busy", "pack1", "Packer 1 busy"),
    (5, "busy", "pack2", "Packer 2 busy"),
    (6, "busy", "pack3", "Packer 3 busy"),
    (7, "busy", "math", "Matrix Unit busy"),
    (8, "src_not_owned", ("A", "unpack"), "SrcA bank not owned by the unpackers"),
    (9, "src_not_owned", ("B", "unpack"), "SrcB bank not owned by the unpackers"),
    (10, "src_not_owned", ("A", "math"), "SrcA bank not owned by the Matrix Unit"),
    (11, "src_not_owned", ("B", "math"), "SrcB bank not owned by the Matrix Unit"),
    (12, "busy_any", "mover", "Mover requests outstanding"),
    (13, "riscv_pending", None, "RISC-V config/GPR request pending"),
    (14, "busy", "sfpu", "Vector Unit busy"),
)

# The NoC interface as tt-metal's firmware sees it on a worker tile (facts: tt-metal
# hw/inc/internal/tt-1xx/wormhole/noc/noc_parameters.h for the register layout and
# command bits; the values below are what ttsim's Wormhole model reads back for its
# first worker tile, physical (1, 1), virtual (18, 18): a 10 x 12 grid, NOC_NODE_ID
# carrying the grid size at bits 12 and 19 and the routing direction at bit 28).
NOC = NocSpec(
    grid=(10, 12),
    tile=(1, 1),
    cmd_buf_stride=0x400,
    addr_bits=36,
    node_id_fields=((10 << 12) | (12 << 19) | (1 << 28), (10 << 12) | (12 << 19)),
    translate=(
        ((0x76543210, 0xFEDCBA98, 0x76432150, 0x00000098), (0x76543210, 0xFEDCBA98, 0x75432160, 0x0000BA98)),
        ((0x76543210, 0xFEDCBA98, 0x23567849, 0x00000001), (0x76543210, 0xFEDCBA98, 0x46789A5B, 0x00000123)),
    ),
    id_logical=18 | (18 << 6),
)

ARCH = ArchSpec(
    name="wormhole_b0",
    riscv_arch_hint="wh",
    # the Wormhole toolchain's tags: _xtttensixwh1p0, older _xttwh1p0
    l1_size=1464 * 1024,
    local_base=0xFFB00000,
    cores=_CORES,
    soft_reset_addr=0xFFB121B0,
    soft_reset_value=0x47800,
    fpu_minus_one_quirk=True,
    wall_clock_lo=0xFFB121F0,
    wall_clock_hi=0xFFB121F8,
    address_map=_MAP,
    registers=_tile.REGISTERS,
    csrs=_CSRS,
    stallwait_conditions=STALLWAIT_CONDITIONS,
    stallwait_default=0x7F,
    noc=NOC,
)
