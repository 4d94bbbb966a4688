"""Scaffolding shared by the generators: reading Dst back through the packer, and the
Tensix-side 32-bit Config write.

Dst is not visible to the host, so results in Dst reach L1 through packer 0 with the
configuration tt-llk writes for a 32-bit Dst packed as Float32 (FP32 intermediate,
Read_32b_data; FormatConversion.md: FP32 -> FP32 is the identity, so raw bits arrive),
one tile (64 rows of 16 datums) at a time:

- Wormhole (firmware/llk/llk_pack.h, tt-llk cpack_common.h configure_pack): all four
  packers' REG1 words alike, channel-0 strides of a 4-byte datum, one PACR per face
  (256 datums, SETADCXX 0..255), ADDR_MOD_PACK 2 steps Z (next face), 3 clears Y and Z.
- Blackhole (tt-llk tt_llk_blackhole configure_pack, llk_pack.h): one packer, four
  PACRs of four rows per face (SETADCXX 0..15), ADDR_MOD_PACK 0 steps Y by 4, 2 clears
  Y and steps Z, 1 clears Y and Z.
"""

from __future__ import annotations

FP32, FP16, BF16, INT32, INT8 = 0, 1, 5, 8, 14
PACK_ADC = 0b100
TILE_ROWS = 64  # 32-bit Dst rows in one 32 x 32 tile
TILE_BYTES = 4096


def pack_setup(b, in_fmt=FP32, out_fmt=FP32, dst32=True, *, relu=0, l1_acc=0, edge_mask=0xFFFF, bpd=None,
               extra=None):
    """Configure packer 0 (and on Wormhole its three siblings alike) for Dst tiles.
    ``bpd``: bytes per datum of the intermediate (the channel-0 strides; default from
    ``in_fmt``); ``extra``: more Config fields."""
    if bpd is None:
        bpd = 4 if in_fmt in (FP32, INT32, TF32) else 1 if in_fmt == INT8 else 2
    wh = b.arch == "wormhole_b0"
    regs = ("THCON_SEC0_REG1", "THCON_SEC0_REG8", "THCON_SEC1_REG1", "THCON_SEC1_REG8") if wh else ("THCON_SEC0_REG1",)
    fields = {
        "PCK0_ADDR_CTRL_XY_REG_0_Xstride": bpd if wh else 0,
        "PCK0_ADDR_CTRL_XY_REG_0_Ystride": 16 * bpd,
        "PCK0_ADDR_CTRL_ZW_REG_0_Zstride": 256 * bpd,
        "PCK0_ADDR_CTRL_ZW_REG_0_Wstride": 1024 * bpd,
        "PCK_DEST_RD_CTRL_Read_32b_data": int(dst32),
        "PCK_EDGE_OFFSET_SEC0_mask": edge_mask,
        "ALU_FORMAT_SPEC_REG2_Dstacc": in_fmt,
    }
    if not wh:
        del fields["PCK0_ADDR_CTRL_XY_REG_0_Xstride"]
    for r in regs:
        fields[f"{r}_Exp_section_size"] = 4
        fields[f"{r}_Disable_zero_compress"] = 1
        fields[f"{r}_Out_data_format"] = out_fmt
        fields[f"{r}_In_data_format"] = in_fmt
        fields[f"{r}_Pack_L1_Acc"] = l1_acc
    for i in range(len(regs)):
        fields[f"PACK_COUNTERS_SEC{i}_pack_reads_per_xy_plane"] = 1
    if relu:
        fields.update(relu_fields(b, relu))
    fields.update(extra or {})
    b.cfg(**fields)
    ymod = b.thread_fields["ADDR_MOD_PACK_SEC0_YsrcIncr"][0]
    if wh:
        mods = {2: 1 << 12, 3: (1 << 5) | (1 << 13)}  # Z += 1; clear Y and Z
    else:
        mods = {0: 4, 1: (1 << 5) | (1 << 13), 2: (1 << 5) | (1 << 12)}
    for slot, value in mods.items():
        b.push("SETC16", setc16_reg=ymod + slot, setc16_value=value)
    b.push("SETADCXY", CntSetMask=PACK_ADC, BitMask=0xF if wh else 0b1011)
    b.push("SETADCZW", CntSetMask=PACK_ADC, BitMask=0xF)
    b.push("SETADCXX", CntSetMask=PACK_ADC, x_start=0, x_end2=255 if wh else 15)


TF32, BFP8_B, UINT16 = 4, 6, 9
UNPACK_ADC = (0b001, 0b010)


def out_unit(fmt) -> int:
    """Bytes per unit of the unpacker's output address for output format ``fmt``."""
    return 4 if fmt in (FP32, TF32, INT32) else 2 if fmt in (FP16, BF16, UINT16) else 1


def alu_config(b, srca, srcb, dst32, dstacc):
    """Config word 1 as firmware/llk/llk_unpack.h (tt-llk _llk_math_hw_configure_ and
    configure_pack) writes it: the Src formats, Dstacc (the packer's intermediate),
    32-bit Dst for the FPU and the SFPU."""
    b.cfg(ALU_FORMAT_SPEC_REG0_SrcA=srca, ALU_FORMAT_SPEC_REG1_SrcB=srcb, ALU_FORMAT_SPEC_REG2_Dstacc=dstacc,
          ALU_ACC_CTRL_Fp32_enabled=int(dst32), ALU_ACC_CTRL_SFPU_Fp32_enabled=int(dst32))


def unpack_setup(b, u, in_fmt, out_fmt, to_dst=False):
    """Unpacker ``u`` for whole 32 x 32 tiles of ``in_fmt`` into SrcA (u = 0) / SrcB
    (u = 1) or Dst (u = 0, ``to_dst``) as ``out_fmt``: the words tt-llk's
    configure_unpack_AB writes (firmware/llk/llk_unpack.h llk_unpack_config): the
    tile descriptor (XDim from Tile_x_dim_cntx0 for unpacker 0, YDim 1, ZDim 4 faces,
    uncompressed), REG2 (Throttle_mode 2, contexts 0..7 uncompressed), the channel-1
    strides, Dest_cntx0/1_address 64 and Tile_x_dim 256 for unpacker 0,
    SRCA_SET_SetOvrdWithAddr; one UNPACR then moves 1024 datums (SETADCXX 0..1023)."""
    cf = b.cfg_fields
    sec = f"THCON_SEC{u}"
    unit = out_unit(out_fmt)
    desc = cf[f"{sec}_REG0_TileDescriptor"][0]
    b.cfg_word(desc, (in_fmt & 0xF) | (1 << 4) | ((256 if u else 0) << 16), "TileDescriptor word 0")
    b.cfg_word(desc + 1, 1 | (4 << 16), "TileDescriptor word 1: YDim 1, ZDim 4")
    b.cfg(**{f"{sec}_REG2_Out_data_format": out_fmt, f"{sec}_REG2_Throttle_mode": 2})
    zc = {f"{sec}_REG2_Disable_zero_compress_cntx{i}": 1 for i in range(8)}
    zc[f"{sec}_REG2_Unpack_if_sel_cntx0"] = int(to_dst)
    b.cfg(**zc)
    b.cfg(**{f"UNP{u}_ADDR_CTRL_ZW_REG_1_Zstride": 256 * unit})
    if u == 0:
        b.cfg(UNP0_ADDR_CTRL_XY_REG_1_Ystride=16 * unit)
        b.cfg(THCON_SEC0_REG5_Dest_cntx0_address=64, THCON_SEC0_REG5_Dest_cntx1_address=64)
        b.cfg(THCON_SEC0_REG5_Tile_x_dim_cntx0=256, THCON_SEC0_REG5_Tile_x_dim_cntx1=256)
        b.cfg(UNP0_ADD_DEST_ADDR_CNTR_add_dest_addr_cntr=1)
        b.push("SETC16", setc16_reg=b.thread_fields["SRCA_SET_Base"][0], setc16_value=0 if to_dst else 4)
    adc = UNPACK_ADC[u]
    b.push("SETADCXY", CntSetMask=adc, BitMask=0xF)
    b.push("SETADCZW", CntSetMask=adc, BitMask=0xF)
    b.push("SETADCXX", CntSetMask=adc, x_start=0, x_end2=1023)


def unpack_tile(b, u, l1_addr, flip=True):
    """UNPACR of the tile at ``l1_addr`` (16-byte aligned) with unpacker ``u``, handing
    the bank to the Matrix Unit (SetDatValid) unless not ``flip``."""
    b.cfg(**{f"THCON_SEC{u}_REG3_Base_address": (l1_addr >> 4) - 1})
    b.push("UNPACR", Unpack_block_selection=u, OvrdThreadId=1, SetDatValid=int(flip), Last=1)


def dst_label(bpd=4):
    """``label(i)`` of element i of packed Dst tiles (64 rows each, face by face)."""

    def label(i):
        tile, k = divmod(i, 1024)
        face, rc = divmod(k, 256)
        return f"Dst{32 if bpd == 4 else 16}b row {64 * tile + 16 * face + rc // 16} col {rc % 16}"

    return label


def relu_fields(b, relu):
    """``relu``: the STACC_RELU word's value as tt-llk builds it (mode | threshold << 4)."""
    return {"STACC_RELU_ApplyRelu": relu & 0xF, "STACC_RELU_ReluThreshold": relu >> 4}


def pack_tiles(b, l1_addr: int, ntiles: int = 1, first_row: int = 0, *, bpd: int = 4, tile_bytes=None):
    """Pack ``ntiles`` tiles of Dst from row ``first_row`` (32-bit rows, or 16-bit ones
    with ``bpd`` 2) to ``l1_addr``, ``tile_bytes`` apart (default: 1024 datums of ``bpd``).
    The Dst offset and L1 address are RISC-V Config writes, so the builder waits for the
    thread to drain first."""
    wh = b.arch == "wormhole_b0"
    for k in range(ntiles):
        addr = l1_addr + k * (tile_bytes or 1024 * bpd)
        b.cfg(DEST_TARGET_REG_CFG_PACK_SEC0_Offset=first_row + k * TILE_ROWS,
              THCON_SEC0_REG1_L1_Dest_addr=(addr >> 4) - 1 if wh else (1 << 31) | ((addr >> 4) - 1))
        if wh:
            for f in range(4):
                b.push("PACR", AddrMode=2 if f < 3 else 3, PackSel=1, Last=int(f == 3))
        else:
            for f in range(4):
                for r in range(4):
                    last = r == 3
                    mode = (1 if f == 3 else 2) if last else 0
                    b.push("PACR", ReadIntfSel=0, AddrMode=mode, Last=int(last and f == 3))
