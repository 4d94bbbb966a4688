"""Blackhole tile facts (second target; partial).

Differences from Wormhole B0 that are data here: L1 is 1536 KiB; the reset-PC
override registers are tile debug registers (trisc<i>_reset_pc at 0xFFB12228+4*i,
trisc_reset_pc_override 0xFFB12234, ncrisc_reset_pc 0xFFB12238 with its enable at
0xFFB1223C), per ttsim's tile_regs.json for Blackhole. Local data RAM sizes follow
the same source (8 KiB for B/NC, 4 KiB for the TRISCs at 0xFFB00000).
"""

from ..errors import Unimplemented
from ..riscv import ext as _ext
from .spec import ArchSpec, CoreSpec, Csr, DebugHwSpec, NocSpec, PackerSpec, Region, ResetPC, UnpackerSpec
from .tables import blackhole_tile as _tile

_DBG = 0xFFB12000

# RISC-V cores (BlackholeA0/TensixTile/BabyRISCV/README.md "Instruction set",
# InstructionSet.md): RV32IM, Zicsr, Zaamo, Zba, Zbb, pack/brev8 (Zbkb), grevi.
# The F/Zfh subset (and V on RISCV T2) is documented but not modelled: those opcodes
# stop a run as unimplemented instead of faulting as illegal.
RISCV_EXTENSIONS = _ext.ALL
_FP = "F/Zfh floating point (or V on RISCV T2)"
RISCV_UNMODELLED = {0x07: _FP, 0x27: _FP, 0x43: _FP, 0x47: _FP, 0x4B: _FP, 0x4F: _FP, 0x53: _FP,
                    0x57: "V vector extension (RISCV T2)"}

# CSRs (BabyRISCV/CSRs.md). Counters are read/write ("Read/write alias of mcycle");
# mhartid reads 0 on every core; time/timeh do not exist ("time is not" available).
_SCRATCH_BNC = ("brisc", "ncrisc")
_OVERLAY = Csr("tt_cfg_sstatus", "unmodelled",
               note="on the TRISCs it mirrors a register of some NoC overlay stream (CSRs.md does not say which)")
_CSRS = {
    0x003: Csr("fcsr", "scratch", mask=0xFF),
    0x008: Csr("vstart", "const", 0),
    0x009: Csr("vxsat", "scratch", mask=0x1),
    0x00A: Csr("vxrm", "scratch", mask=0x3),
    0x300: Csr("mstatus", "const", 0x80006600),
    0x301: Csr("misa", "const", 0x40201123),
    0x320: Csr("mcountinhibit", "scratch"),
    0x323: Csr("mhpmevent3", "scratch"),
    0x324: Csr("mhpmevent4", "scratch"),
    # cfg0: chicken bits (performance only in a functional model); StMergeTimer resets to 16
    0x7C0: Csr("cfg0", "scratch", 16 << 13),
    0x7C1: Csr("pmacfg0", "scratch"),
    0x7C2: Csr("pmacfg1", "scratch"),
    0x7C3: Csr("cfg1", "scratch"),
    0x7C4: Csr("hwa_mask", "scratch"),
    0x7C5: Csr("hwa_cfg", "scratch"),
    0x7C6: Csr("vgsrc", "scratch"),
    0xB00: Csr("mcycle", "cycle", writable=True), 0xB80: Csr("mcycleh", "cycleh", writable=True),
    0xB02: Csr("minstret", "instret", writable=True), 0xB82: Csr("minstreth", "instreth", writable=True),
    0xB03: Csr("mhpmcounter3", "unmodelled", note="hardware performance events are not modelled"),
    0xB04: Csr("mhpmcounter4", "unmodelled", note="hardware performance events are not modelled"),
    0xB83: Csr("mhpmcounter3h", "unmodelled", note="hardware performance events are not modelled"),
    0xB84: Csr("mhpmcounter4h", "unmodelled", note="hardware performance events are not modelled"),
    0xBC0: Csr("tt_cfg_qstatus", "unmodelled", note="Tensix frontend queue status is not modelled"),
    0xBC1: Csr("tt_cfg_bstatus", "unmodelled", note="Tensix busy status is not modelled"),
    **{0xBC2 + i: Csr(f"tt_cfg_sstatus{i}", "scratch", cores=_SCRATCH_BNC, other=_OVERLAY) for i in range(8)},
    0xBCA: Csr("intp_restore_pc", "scratch"),
    0xC00: Csr("cycle", "cycle", writable=True), 0xC80: Csr("cycleh", "cycleh", writable=True),
    0xC02: Csr("instret", "instret", writable=True), 0xC82: Csr("instreth", "instreth", writable=True),
    0xC20: Csr("vl", "scratch"),
    0xC21: Csr("vtype", "scratch"),
    0xC22: Csr("vlenb", "scratch", 16),
    0xF14: Csr("mhartid", "const", 0),
}

_CORES = (
    CoreSpec("brisc", 8192, 11, ResetPC(0x0), tensix_thread=0, can_push=True,
             local_window="brisc_local_mem"),
    CoreSpec("trisc0", 4096, 12, ResetPC(0x6000, _DBG + 0x234, 0, _DBG + 0x228), tensix_thread=0, can_push=True,
             local_window="trisc0_local_mem"),
    CoreSpec("trisc1", 4096, 13, ResetPC(0xA000, _DBG + 0x234, 1, _DBG + 0x22C), tensix_thread=1, can_push=True,
             local_window="trisc1_local_mem"),
    CoreSpec("trisc2", 4096, 14, ResetPC(0xE000, _DBG + 0x234, 2, _DBG + 0x230), tensix_thread=2, can_push=True,
             local_window="trisc2_local_mem"),
    CoreSpec("ncrisc", 8192, 18, ResetPC(0x12000, _DBG + 0x23C, 0, _DBG + 0x238), tensix_thread=None,
             can_push=False, local_window="ncrisc_local_mem"),
)

# The address map follows ttsim's tile map with the ISA documentation's sizes where
# they differ (BabyRISCV/README.md "Memory map", which wins): RISCV T<i>'s 4 KiB local
# RAM fills an 8 KiB slow-path window twice, the instruction-push, PCBuf and config
# windows are 64 KiB, the overlay 256 KiB (its streams are 4 KiB apart, 64 of them);
# the PIC registers (0xFFB13000, with the pc snapshots at 0xFFB13138) are documented but
# absent from ttsim's map. Ethernet-only regions are not part of a Tensix tile.
_SIZES = {"riscv_local_mem": 0x2000, "noc_overlay": 0x40000, "trisc0_local_mem": 0x2000, "trisc1_local_mem": 0x2000,
          "trisc2_local_mem": 0x2000, "tensix_inst": 0x10000, "tensix_inst1": 0x10000, "tensix_inst2": 0x10000,
          "tensix_pc_buf": 0x10000, "tensix_pc1_buf": 0x10000, "tensix_pc2_buf": 0x10000,
          "tensix_cfg": 0x10000}
_EXTRA = (Region("pic_regs", 0xFFB13000, 0x1000),)
_MAP = tuple(Region(n, b, _SIZES.get(n, s)) for n, b, s in _tile.REGIONS if not n.startswith("eth")) + _EXTRA

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


# The debug hardware (docs/debug-hardware.md). No BlackholeA0 page describes the RISC-V
# debug interface or the daisychain; the facts are tt-exalens 0.4.2's (Tenstorrent's
# debugger, which drives Blackhole silicon): BlackholeBabyRiscDebug.step issues the step
# command twice per instruction ("a bug in hardware"), and its Blackhole daisychain map
# (hardware/blackhole/functional_worker_debug_bus_signals.py) puts each thread's RWC
# counters in 20-bit slots: SrcA at 20*t, SrcA_Cr at 20*t + 10, SrcB at 60 + 20*t (_Cr
# +10), Dst at 120 + 20*t (_Cr +10), and the fidelity phases at bit 60 of SignalSel 4
# ("rwc_fidelity_phase_cnt"). Two of that map's masks (rwc1_srca 0x3F000000, rwc1_srcb
# 0x3F00000 at Read32Sel 2) are each one hex digit off the 20-bit pattern every other
# RWC entry follows; ttemu follows the pattern. ttsim's Blackhole model agrees for Dst
# and the fidelity phases and packs SrcA / SrcB 16 bits apart (the Wormhole layout).
DEBUG_HW = DebugHwSpec(
    step_commands=2,
    rwc_bits=(("SrcA", 0, 20, 6), ("SrcA_Cr", 10, 20, 6), ("SrcB", 60, 20, 6), ("SrcB_Cr", 70, 20, 6),
              ("Dst", 120, 20, 10), ("Dst_Cr", 130, 20, 10)),
    fidelity_bit=60,
)


# -- Tensix instruction fields --------------------------------------------------------
# The Blackhole table names fields as tt-llk's assembly.yaml does; where a name or the
# packing differs from the Wormhole pages' the implementations follow, these adapters
# map one onto the other (facts: assembly.yaml, ttsim's Blackhole decode table and its
# remapping "clear_mode |= use_32_bit_mode << 2", "dst = where").
def _zeroacc(f):
    """ZEROACC: Blackhole's ``where`` is Wormhole's Imm10 (wider), ``clear_mode`` bits
    20:19 the Mode, bit 18 ``use_32_bit_mode`` Wormhole's UseDst32b (clear_mode bit 2);
    ``addr_mode`` (bits 16:14) selects one of the eight ADDR_MOD slots;
    ``clear_zero_flags`` (bit 17) is Wormhole's Revert (ttsim: rows keep their contents
    and become valid). Bits 23:21 of ``clear_mode`` (beyond tt-llk's
    ``is_valid(clear_mode, 5)`` use) are not a mode: the implementation sees bits 1:0."""
    return {"dst": f["where"], "AddrMode": f["addr_mode"], "clear_mode": f["use_32_bit_mode"] << 2 | f["clear_mode"] & 3,
            "Revert": f["clear_zero_flags"]}


def _rename(**names):
    def adapt(f):
        return {names.get(k, k): v for k, v in f.items()}
    adapt.renames = names
    return adapt


def _unpacr_nop(f):
    """UNPACR_NOP: Blackhole's fields (assembly.yaml; tt-llk's TT_OP_UNPACR_NOP) onto
    Wormhole's NoOp encoding (tt-llk's Wormhole p_unpacr_nop), which the implementation
    follows. ``Unpack_Pop`` 2 (UNP_NOP) is 0b010. ``Unpack_Pop`` 1 (UNP_CLR_SRC) is
    0b001 | ``Src_ClrVal_Ctrl`` 1 (negative infinity) << 2 | ``Bank_Clr_Ctrl`` (all
    banks) << 3 | ``Stall_Clr_Cntrl`` (wait for the unpacker's own bank) << 4 |
    ``Set_Dvalid`` << 6. ``Clr_to1_fmt_Ctrl`` 3 ("sets dvalid of Src Regs, but NOP in
    all other respects") is 0b111. UNP_POP (overlay messages), clearing to 1 or to
    ``UNP{u}_NOP_REG_CLR_VAL``, and the undocumented bits stop the run as
    unimplemented."""
    u = f["Unpacker_Select"]
    pop, clr, fmt1 = f["Unpack_Pop"], f["Src_ClrVal_Ctrl"], f["Clr_to1_fmt_Ctrl"]
    rest = {k: f[k] for k in ("Bank_Clr_Ctrl", "Stall_Clr_Cntrl", "Set_Dvalid", "Msg_Clr_Cnt", "Stream_Id")}

    def unmodelled(what):
        return Unimplemented(f"UNPACR_NOP {what} (Unpack_Pop={pop} Src_ClrVal_Ctrl={clr} Clr_to1_fmt_Ctrl={fmt1} "
                             + " ".join(f"{k}={v}" for k, v in rest.items()) + ") is not modelled")

    if fmt1 == 3:
        if clr or any(rest.values()):
            raise unmodelled("set-dvalid flavour with other fields")
        return {"Unpack_block_selection": u, "NoOp": 0b111}
    if fmt1:
        raise unmodelled("Clr_to1_fmt_Ctrl 1..2 (clear to 1)")
    if rest["Msg_Clr_Cnt"] or rest["Stream_Id"] or pop in (0, 3):
        raise unmodelled("UNP_POP (overlay message clearing)")
    if rest["Set_Dvalid"] > 1:
        raise unmodelled("Set_Dvalid bits 11:9")
    if pop == 2:
        if clr or any(rest.values()):
            raise unmodelled("UNP_NOP with other fields")
        return {"Unpack_block_selection": u, "NoOp": 0b010}
    if clr > 1:
        raise unmodelled("Src_ClrVal_Ctrl 2 / 3 (clear to 1 / to UNP_NOP_REG_CLR_VAL)")
    no_op = (0b001 | clr << 2 | rest["Bank_Clr_Ctrl"] << 3 | rest["Stall_Clr_Cntrl"] << 4
             | rest["Set_Dvalid"] << 6)
    return {"Unpack_block_selection": u, "NoOp": no_op}


TENSIX_FIELD_ADAPTERS = {
    "UNPACR_NOP": _unpacr_nop,
    "ZEROACC": _zeroacc,
    "MOVB2D": _rename(movb2d_instr_mod="instr_mod"),
    **{m: _rename(pool_addr_mode="addr_mode") for m in ("MPOOL3S1", "APOOL3S1", "MPOOL3S2", "APOOL3S2",
                                                        "GMPOOL", "GAPOOL")},
}

# Vector Unit instructions whose BlackholeA0 page is the Wormhole page ("The behavior
# is identical between Wormhole and Blackhole", or the same text): the Wormhole
# implementations serve them, with the Blackhole-only SFPGT / SFPLE.
SFPU_SHARED = frozenset({
    "SFPABS", "SFPCOMPC", "SFPCONFIG", "SFPDIVP2", "SFPENCC", "SFPEXEXP", "SFPEXMAN", "SFPIADD", "SFPLOADI",
    "SFPLZ", "SFPMOV", "SFPNOP", "SFPNOT", "SFPSETCC", "SFPSETEXP", "SFPSETMAN", "SFPSETSGN", "SFPTRANSP",
    "SFPXOR", "SFPGT", "SFPLE",
    "SFPSWAP",  # the BlackholeA0 page adds only a scheduling caution for SFPLOADMACRO sequences
})
# The rest of the Vector Unit follows its BlackholeA0 page: mnemonic -> the method
# (ttemu/tensix/units/sfpu/blackhole.py). SFPLOADMACRO's page differs only in the
# sub-unit table (insn.CAN_EXECUTE lists the Blackhole-only instructions) and the AddrMod
# width, so the Wormhole implementation serves, calling this arch's SFPLOAD / SFPSTORE.
SFPU_VARIANTS = {m: "bh_" + m for m in (
    "SFPLOAD", "SFPSTORE", "SFPMAD", "SFPADD", "SFPMUL", "SFPADDI", "SFPMULI", "SFPLUT", "SFPLUTFP32",
    "SFPMUL24", "SFPARECIP", "SFPCAST", "SFPSHFT", "SFPSHFT2", "SFP_STOCH_RND", "SFPAND", "SFPOR",
    "SFPPUSHC", "SFPPOPC")}
SFPU_VARIANTS["SFPLOADMACRO"] = "x_SFPLOADMACRO"
# Operands the Blackhole table (assembly.yaml) makes wider than the BlackholeA0 page's
# encoding: the page's bits only (SFPLUTFP32's bits 19:16 are Mod1Mirror, read only by
# the scheduling logic; VA and VC are u4; Imm10 is bits 9:0, AddrMod bits 15:13).
SFPU_FIELD_MASKS = {
    "SFPLUTFP32": {"lreg_dest": 0xF},
    "SFPCAST": {"lreg_src_c": 0xF},
    "SFPMAD": {"lreg_src_a": 0xF}, "SFPADD": {"lreg_src_a": 0xF}, "SFPMUL": {"lreg_src_a": 0xF},
    "SFPMUL24": {"lreg_src_a": 0xF},
    "SFPLOAD": {"dest_reg_addr": 0x3FF}, "SFPSTORE": {"dest_reg_addr": 0x3FF},
    "SFPLOADMACRO": {"dest_reg_addr": 0x3FF},
    "SFP_STOCH_RND": {"rnd_mode": 0x3},
}
# SFPMAD.md (BlackholeA0) "Instruction scheduling": hardware stalls a thread whose next
# Vector Unit instruction reads what an MAD sub-unit instruction writes (SFPADD, SFPMUL,
# SFPADDI, SFPMULI, SFPLUT, SFPLUTFP32, SFPMUL24 "as per SFPMAD"), and SFPSHFT2.md stalls
# anything but SFPNOP after Mod1 2, 3, 4; neither applies inside SFPLOADMACRO sequences.
SFPU_INTERLOCKED = frozenset({"SFPMAD", "SFPADD", "SFPMUL", "SFPADDI", "SFPMULI", "SFPLUT", "SFPLUTFP32",
                              "SFPMUL24", "SFPSHFT2"})

# The packers: one packer (tt-llk cpack_common.h NUM_PACKERS = 1; its configuration is
# THCON_SEC0_REG1_*, the only THCON packer section ttsim's Blackhole model reads) with
# four Dst read interfaces (assembly.yaml PACR ReadIntfSel: "Bit mask to select up to 4
# Dest Read intf", 0 = all four; interface k reads Dst row base + k: tt-llk llk_pack.h,
# ttsim). No Pack_limit_address / Pack_fifo_size (absent from Blackhole's Config). The
# channel-1 YZW address is in bytes (tt-llk's fast untilize programs a byte row stride;
# ttsim adds YZW_Addr >> 4). Dst rows go through Adj16 / Adj32 with
# DEST_ACCESS_CFG_remap_addrs / swizzle_32b (BlackholeA0 Dst.md: they "also affect how
# packers address Dst"). DstAccessMode 1 (strided, "[0,8,16,24]" in storage rows) reads
# Dst rows base + 16k with both set, as tt-llk's untilize sets them
# (_llk_math_reconfig_remap_: "stride of 16") and ttsim reads them. Two conversions
# Wormhole lacks (tt-llk's configure_pack sets them; ttsim's Blackhole packer has them):
# Round_10b_mant with an FP16 Dstacc rounds an FP32 Dst (or widens a BF16 Dst) to FP16,
# and Pac_LF8_4b_exp makes the FP8 output E4M3 (tt-llk's Fp8_e4m3).
PACKERS = PackerSpec(
    sections=("THCON_SEC0_REG1_",),
    limit_sections=None,
    read_interfaces=4,
    interface_rows=(1, 16),
    out_yzw_shift=4,
    dst_access_cfg=("DEST_ACCESS_CFG_remap_addrs", "DEST_ACCESS_CFG_swizzle_32b"),
    fp16_round10=True,
    fp8_e4m3_field="Pac_LF8_4b_exp",
)
# The unpackers (no BlackholeA0 UNPACR page: the Wormhole pages apply except for these
# facts, from tt-llk's Blackhole unpacker code and ttsim's Blackhole model): an unpacker
# reads 32 datums per L1 row for formats wider than 8 bits (tt-llk's Blackhole tilize
# reads a whole 32-wide tile row per RowStride, "whole-tile unpacking"); FP8 input is
# E4M3 while THCON_SEC{u}_REG1_Unp_LF8_4b_exp is set (tt-llk's Fp8_e4m3); an E5M2 datum
# with exponent and mantissa all ones becomes an FP16 mantissa of all ones (ttsim).
UNPACKER = UnpackerSpec(row_datums_wide=32, fp8_e4m3_field="THCON_SEC{u}_REG1_Unp_LF8_4b_exp", fp8_max_to_ones=True)

ARCH = ArchSpec(
    name="blackhole",
    riscv_arch_hint="bh",
    # _xtttensixbh1p0 (older _xttbh1p0) on TRISC code; BRISC/NCRISC firmware carries only
    # the Blackhole toolchain's bit-manipulation tag
    riscv_arch_markers=("_xttzbkb",),
    riscv_extensions=RISCV_EXTENSIONS,
    riscv_unmodelled=RISCV_UNMODELLED,
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
    tensix_field_adapters=TENSIX_FIELD_ADAPTERS,
    tensix_adapt_to="wormhole_b0",
    sfpu_shared=SFPU_SHARED,
    sfpu_variants=SFPU_VARIANTS,
    sfpu_field_masks=SFPU_FIELD_MASKS,
    sfpu_interlocked=SFPU_INTERLOCKED,
    addr_mod_bits=3,
    cfg_layout_native=False,
    # BlackholeA0 BackendConfiguration.md, tt-metal blackhole cfg_defines.h: CFG_STATE_SIZE
    # 56, THD_STATE_SIZE 68, GLOBAL_CFGREG_BASE_ADDR32 180 (tt-llk writes words 209..220:
    # SCRATCH_SEC*, DEST_ACCESS_CFG, which SFPLOAD / SFPSTORE read); ConfigDualWrite after Config
    cfg_bank_words=224,
    thread_cfg_words=68,
    cfg_global_base=180,
    cfg_dual_write=True,
    # tt-llk's Blackhole datacopy clears Dst zero flags face by face (ZEROACC CLR_16 with
    # clear_zero_flags, budabackend#2730)
    zeroacc_revert_modes=frozenset({0, 1}),
    # BlackholeA0 ATGETM.md: "Blackhole only has four mutexes" (index 1 does not exist)
    mutexes=(0, 2, 3, 4),
    # STREAMWAIT.md C0 / C1: STREAM_CURR_PHASE_REG_INDEX, STREAM_NUM_MSGS_RECEIVED_REG_INDEX
    # (tt-metal blackhole noc_overlay_parameters.h)
    streamwait_regs=(29, 259),
    packers=PACKERS,
    unpacker=UNPACKER,
    debug_hw=DEBUG_HW,
)
