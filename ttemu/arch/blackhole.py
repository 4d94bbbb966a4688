"""Blackhole tile facts (second target; partial).

Differences from Wormhole B0 that are data here: L1 is 1536 KiB; the reset-PC
override registers are tile debug registers (trisc<i>_reset_pc at 0xFFB12228+4*i,
trisc_reset_pc_override 0xFFB12234, ncrisc_reset_pc 0xFFB12238 with its enable at
0xFFB1223C), per ttsim's tile_regs.json for Blackhole. Local data RAM sizes follow
the same source (8 KiB for B/NC, 4 KiB for the TRISCs at 0xFFB00000).
"""

from .spec import ArchSpec, CoreSpec, NocSpec, Region, ResetPC
from .tables import blackhole_tile as _tile
from .wormhole_b0 import _CSRS

_DBG = 0xFFB12000

_CORES = (
    CoreSpec("brisc", 8192, 11, ResetPC(0x0), tensix_thread=0, can_push=True),
    CoreSpec("trisc0", 4096, 12, ResetPC(0x6000, _DBG + 0x234, 0, _DBG + 0x228), tensix_thread=0, can_push=True),
    CoreSpec("trisc1", 4096, 13, ResetPC(0xA000, _DBG + 0x234, 1, _DBG + 0x22C), tensix_thread=1, can_push=True),
    CoreSpec("trisc2", 4096, 14, ResetPC(0xE000, _DBG + 0x234, 2, _DBG + 0x230), tensix_thread=2, can_push=True),
    CoreSpec("ncrisc", 8192, 18, ResetPC(0x12000, _DBG + 0x23C, 0, _DBG + 0x238), tensix_thread=None,
             can_push=False),
)

_SKIP = {"brisc_local_mem", "ncrisc_local_mem", "trisc0_local_mem", "trisc1_local_mem", "trisc2_local_mem"}
# ttsim's map gives the overlay one byte; its streams are 4 KiB apart (64 of them), as on
# Wormhole (tt-isa-documentation's Wormhole memory map: 0xFFB40000, 256 KiB).
_SIZES = {"noc_overlay": 0x40000}
_MAP = tuple(Region(n, b, _SIZES.get(n, s)) for n, b, s in _tile.REGIONS if n not in _SKIP and not n.startswith("eth"))

# STALLWAIT conditions as seed 002 lists them (from tt-llk's Blackhole p_stall):
# 13 bits, a zero mask means 0x0F.
STALLWAIT_CONDITIONS = (
    (0, "busy", "scalar", "ThCon memory requests outstanding"),
    (1, "busy", "unpack0", "Unpacker 0 busy"),
    (2, "busy", "unpack1", "Unpacker 1 busy"),
    (3, "busy", "pack0", "Packer busy"),
    (4, "busy", "math", "Matrix Unit busy"),
    (5, "src_not_owned", ("A", "unpack"), "SrcA bank not owned by the unpackers"),
    (6, "src_not_owned", ("B", "unpack"), "SrcB bank not owned by the unpackers"),
    (7, "src_not_owned", ("A", "math"), "SrcA bank not owned by the Matrix Unit"),
    (8, "src_not_owned", ("B", "math"), "SrcB bank not owned by the Matrix Unit"),
    (9, "busy_any", "mover", "Mover requests outstanding"),
    (10, "riscv_pending", None, "RISC-V config/GPR request pending"),
    (11, "busy", "sfpu", "Vector Unit busy"),
    (12, "busy_any", "cfg", "Configuration Unit busy (any thread)"),
)

# NoC interfaces of a Blackhole worker tile: command buffers every 0x800 bytes, the
# node coordinate in NOC_TARG/RET_ADDR_HI, no coordinate translation tables for
# Tensix rows; values as ttsim's Blackhole model reads them back for its first worker
# tile, (1, 2) on a 17 x 12 grid (tt-metal blackhole noc_parameters.h for the layout).
NOC = NocSpec(
    grid=(17, 12),
    tile=(1, 2),
    cmd_buf_stride=0x800,
    addr_bits=64,
    node_id_fields=((17 << 12) | (12 << 19) | (1 << 28), (17 << 12) | (12 << 19)),
    translate=None,
    id_logical=1 | (2 << 6),
)

ARCH = ArchSpec(
    name="blackhole",
    riscv_arch_hint="bh",
    l1_size=1536 * 1024,
    local_base=0xFFB00000,
    cores=_CORES,
    soft_reset_addr=0xFFB121B0,
    soft_reset_value=0x47800,
    wall_clock_lo=0xFFB121F0,
    wall_clock_hi=0xFFB121F8,
    address_map=_MAP,
    registers=_tile.REGISTERS,
    csrs=_CSRS,
    stallwait_conditions=STALLWAIT_CONDITIONS,
    stallwait_default=0x0F,
    noc=NOC,
)
