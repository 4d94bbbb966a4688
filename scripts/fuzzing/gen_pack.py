"""Unpackers and packers: format conversions, ReLU, L1 accumulation, edge masks.

One thread (T0) unpacks one or two tiles of edge-case data (NaNs, infinities, denormals,
-0, rounding boundaries, saturation, BFP shared exponents) with unpacker 0 straight to
Dst or into SrcA and from there to Dst (MOVA2D, 8 rows at a time), then packs them with
packer 0 to L1 in the output format through the packer's intermediate format
(ALU_FORMAT_SPEC_REG2_Dstacc), the routes tt-llk configures
(tests/test_pack_formats_ttsim.py lists them; firmware/pack_formats runs them one at a
time): Float32 / Float16 / Float16_b / Tf32 / Bfp8_b / Bfp4_b / Bfp2_b / Int32 / Int8 /
UInt16. On top: ReLU modes 1-3 with thresholds (STACC_RELU; not with an FP32
intermediate unless relu-fp32 is let in, nor a BF16 NaN threshold unless
relu-nan-threshold is), L1 accumulation onto data already in L1
(Float32 / Float16 / Float16_b outputs), Read_unsigned for Int8, edge masks (the masks
ttsim models: 0, 1, 0xFFFF per mask, rows mapped to mask 0 or 1).

Layouts (firmware/llk/llk_tilize.h): tilize, a row-major Float32 / Float16_b matrix
(32 rows, 32 or 64 columns) read face by face by unpacker 0's Tileize_mode (RowStride
from Shift_amount_cntx0..2; Wormhole: Blackhole's tilizer takes a whole tile and its
packer reassembles the faces, not generated), and untilize: one PACR per face row (16
datums, its own L1 address) into a row-major matrix.
"""

from __future__ import annotations

import numpy as np

from . import data, scaffold
from .program import INPUT_BASE, OUTPUT_BASE, Builder

WH = "wormhole_b0"
F = dict(f32=0, fp16=1, tf32=4, bf16=5, bfp8b=6, bfp4b=7, i32=8, u16=9, i8=14, bfp2b=15)
TILE_BYTES = {0: 4096, 4: 4096, 8: 4096, 1: 2048, 5: 2048, 9: 2048, 6: 1088, 7: 576, 15: 320, 14: 1024}
# in : unpacker out : to Dst : packer intermediate : L1 out : 32-bit Dst
ROUTES = [
    "f32:f32:1:f32:f32:1", "f32:f32:1:bf16:bf16:1", "f32:f32:1:f32:fp16:1", "f32:f32:1:f32:bfp8b:1",
    "f32:f32:1:f32:bfp4b:1", "f32:bf16:0:bf16:bf16:0", "f32:fp16:0:fp16:fp16:0", "f32:tf32:0:f32:f32:1",
    "bf16:bf16:0:bf16:bfp2b:0", "bf16:bf16:0:bfp8b:bfp8b:0", "bfp8b:bfp8b:0:bf16:bf16:0",
    "bfp4b:bfp4b:0:bf16:bf16:0", "fp16:fp16:0:fp16:f32:0", "i32:i32:1:i32:i32:1", "u16:u16:0:u16:u16:0",
    "bf16:bf16:0:bf16:bf16:0", "fp16:fp16:0:fp16:fp16:0", "i32:i32:1:i8:i8:1", "f32:f32:1:i8:i8:1",
]
L1_ACC_OUT = (0, 1, 5)


def tile_data(rng, fmt) -> bytes:
    """One tile of ``fmt`` in L1: edge-case values (data.floats) in the float formats,
    random bits elsewhere, BFP exponents around 1.0 with 0, 1 and 255 among them."""
    if fmt in (0, 4):
        return data.floats(rng, 1024).tobytes()
    if fmt == 5:
        return (data.floats(rng, 1024) >> 16).astype(np.uint16).tobytes()
    if fmt == 8:
        return data.integers(rng, 1024).tobytes()
    b = rng.integers(0, 256, TILE_BYTES[fmt], dtype=np.uint8)
    if fmt in (6, 7, 15):
        b[:64] = rng.integers(100, 140, 64)
        b[:4] = [0, 1, 255, 127]
    return b.tobytes()


class PackGen:
    def __init__(self, b: Builder, rng, allow):
        self.b = b
        self.rng = rng
        self.allow = allow
        self.wh = b.arch == WH
        k = rng.random()
        self.layout = "tilize" if k < 0.12 and self.wh else "untilize" if k < 0.24 else "tiles"
        route = ROUTES[int(rng.integers(len(ROUTES)))]
        if self.layout != "tiles":
            route = str(rng.choice(["f32:f32:1:f32:f32:1", "bf16:bf16:0:bf16:bf16:0", "f32:tf32:0:f32:f32:1"]
                                   if self.layout == "untilize" else
                                   ["f32:tf32:0:f32:f32:1", "bf16:bf16:0:bf16:bf16:0"]))
        n = route.split(":")
        self.route = route
        self.in_fmt, self.uout, self.inter, self.out = F[n[0]], F[n[1]], F[n[3]], F[n[4]]
        self.to_dst, self.dst32 = bool(int(n[2])), bool(int(n[5]))
        self.ntiles = int(rng.integers(1, 3))
        self.cols = 32 * self.ntiles  # row-major matrices: 32 rows, 32 columns per tile

    def row_bytes(self, fmt):
        return self.cols * (4 if fmt in (0, 4) else 2)

    def run(self):
        if self.layout == "tilize":
            return self.tilize()
        b = self.b
        rng = self.rng
        scaffold.alu_config(b, self.uout, self.uout, self.dst32, self.inter)
        scaffold.unpack_setup(b, 0, self.in_fmt, self.uout, self.to_dst)
        tf = b.thread_fields
        if not self.to_dst:  # MOVA2D walk: slot 1 steps SrcA and Dst by 8 rows
            b.push("SETC16", setc16_reg=tf["ADDR_MOD_AB_SEC1_SrcAIncr"][0], setc16_value=8)
            b.push("SETC16", setc16_reg=tf["ADDR_MOD_DST_SEC1_DestIncr"][0], setc16_value=8)
        for t in range(self.ntiles):
            addr = INPUT_BASE + 0x1000 * t
            b.input(addr, self.sanitise(tile_data(rng, self.in_fmt)))
            with b.unit(f"tile {t}"):
                if self.to_dst:
                    b.cfg(THCON_SEC0_REG5_Dest_cntx0_address=64 + 16 * 64 * t)
                    scaffold.unpack_tile(b, 0, addr, flip=False)
                else:
                    scaffold.unpack_tile(b, 0, addr)
                    b.push("SETRWC", BitMask=0xF)
                    b.push("SETC16", setc16_reg=tf["DEST_TARGET_REG_CFG_MATH_Offset"][0], setc16_value=64 * t)
                    for _ in range(8):
                        b.push("MOVA2D", **self.mova2d())
                    b.push("SETRWC", clear_ab_vld=1, BitMask=0xF)
        self.pack()

    def sanitise(self, tile: bytes) -> bytes:
        """FP32 -> FP16 in the packer (late conversion) is undefined for 2**-15 < |x| <
        2**-14 (Packers/FormatConversion.md): such inputs become 2**-15 exactly."""
        if not (self.in_fmt == 0 and self.inter == 0 and self.out == 1):
            return tile
        v = np.frombuffer(tile, "<u4").copy()
        bad = ((v >> 23) & 0xFF) == 112
        v[bad] &= 0xFF800000
        return v.tobytes()

    def copy_to_dst(self, t):
        """SrcA (flipped to the Matrix Unit) -> Dst rows 64 t.. by eight MOVA2Ds, SrcA back."""
        b = self.b
        b.push("SETRWC", BitMask=0xF)
        b.push("SETC16", setc16_reg=b.thread_fields["DEST_TARGET_REG_CFG_MATH_Offset"][0], setc16_value=64 * t)
        for _ in range(8):
            b.push("MOVA2D", **self.mova2d())
        b.push("SETRWC", clear_ab_vld=1, BitMask=0xF)

    def tilize(self):
        """Wormhole tilize (llk_tilize.h, LLK_TILIZE_WHOLE_TILE 0): one UNPACR per face,
        Tileize_mode with RowStride = the matrix's row bytes, the face's output at
        Channel[1].Y * 256 datums; SrcA to Dst by MOVA2D; tiles packed."""
        b = self.b
        fmt = self.in_fmt
        rb = self.row_bytes(fmt)
        datum = 4 if fmt in (0, 4) else 2
        scaffold.alu_config(b, self.uout, self.uout, self.dst32, self.inter)
        scaffold.unpack_setup(b, 0, fmt, self.uout, False)
        b.cfg(THCON_SEC0_REG2_Tileize_mode=1, THCON_SEC0_REG2_Shift_amount_cntx0=(rb >> 4) & 0xF,
              THCON_SEC0_REG2_Shift_amount_cntx1=(rb >> 8) & 0xF, THCON_SEC0_REG2_Shift_amount_cntx2=(rb >> 12) & 0xF)
        b.cfg(UNP0_ADDR_CTRL_XY_REG_1_Ystride=256 * scaffold.out_unit(self.uout))
        b.push("SETADCXX", CntSetMask=scaffold.UNPACK_ADC[0], x_start=0, x_end2=255)
        tf = b.thread_fields
        b.push("SETC16", setc16_reg=tf["ADDR_MOD_AB_SEC1_SrcAIncr"][0], setc16_value=8)
        b.push("SETC16", setc16_reg=tf["ADDR_MOD_DST_SEC1_DestIncr"][0], setc16_value=8)
        b.input(INPUT_BASE, tile_data(self.rng, fmt) * self.ntiles)  # 32 rows of rb bytes
        for t in range(self.ntiles):
            tl = INPUT_BASE + 32 * datum * t
            with b.unit(f"tilize tile {t}"):
                b.push("SETADCXY", CntSetMask=scaffold.UNPACK_ADC[0], BitMask=0b1000)
                for f in range(4):
                    addr = tl + (f >> 1) * 16 * rb + (f & 1) * 16 * datum
                    b.cfg(THCON_SEC0_REG3_Base_address=(addr >> 4) - 1)
                    b.push("UNPACR", Unpack_block_selection=0, AddrMode=1 << 6, OvrdThreadId=1,
                           SetDatValid=int(f == 3), Last=1)
                self.copy_to_dst(t)
        self.pack()

    def mova2d(self):
        return dict(dst=0, instr_mod=2, src=0, dest_32b_lo=0, addr_mode=1)

    def pack(self):
        b = self.b
        rng = self.rng
        extra = {}
        feats = set()
        relu = 0
        if self.out in (1, 5, 0) and self.inter in (0, 1, 5) and rng.random() < 0.4:
            mode = int(rng.integers(1, 4))
            thr = int(rng.choice([0x3F80, 0x4120, 0x7F80, 0x0000, 0xBF80, int(data.floats(rng, 1)[0] >> 16)]))
            thr &= 0x7FFF  # ReLU.md: a negative threshold is undefined (ttsim refuses it in every mode)
            nan_thr = mode >= 2 and self.inter != 1 and thr & 0x7F80 == 0x7F80 and thr & 0x7F
            if nan_thr and "relu-nan-threshold" not in self.allow:
                thr &= 0x7F80  # a BF16 NaN threshold becomes +Inf (the same draws: other programs unchanged)
            relu = mode | thr << 4
            if self.inter == 0 or self.dst32 and self.inter not in (1, 5):
                if "relu-fp32" not in self.allow:
                    relu = 0
                else:
                    feats.add("relu-fp32")
            if relu and nan_thr and "relu-nan-threshold" in self.allow:
                feats.add("relu-nan-threshold")
        l1_acc = int(self.out in L1_ACC_OUT and rng.random() < 0.3)
        if self.inter == 14 and rng.random() < 0.5:
            extra["PCK_DEST_RD_CTRL_Read_unsigned"] = 1
        mask0 = 0xFFFF
        if rng.random() < 0.3:
            mask0 = int(rng.choice([0, 1, 0xFFFF]))
            extra["PCK_EDGE_OFFSET_SEC1_mask"] = int(rng.choice([0, 1, 0xFFFF]))
            for i in range(16):
                extra[f"TILE_ROW_SET_MAPPING_0_row_set_mapping_{i}"] = int(rng.integers(0, 2))
        bpd = 4 if self.inter in (0, 4, 8) else 1 if self.inter == 14 else 2
        out_bytes = TILE_BYTES[self.out] * self.ntiles
        if l1_acc:
            b.input(OUTPUT_BASE, tile_data(rng, self.out) * self.ntiles)
        with b.unit("pack options") as g:
            scaffold.pack_setup(b, self.inter, self.out, self.dst32, relu=relu, l1_acc=l1_acc, edge_mask=mask0,
                                bpd=bpd, extra=extra)
        b.prog.group_features[g] = feats
        if self.layout == "untilize":
            self.untilize()
        else:
            scaffold.pack_tiles(b, OUTPUT_BASE, self.ntiles, bpd=bpd, tile_bytes=TILE_BYTES[self.out])
        route, relu_text = self.route, f" relu={relu:#x}" if relu else ""
        b.prog.groups[g] = (f"pack {route}{relu_text}{' l1acc' if l1_acc else ''}{' mask' if mask0 != 0xFFFF else ''}"
                            f"{' ' + self.layout if self.layout != 'tiles' else ''}")
        b.output("out", OUTPUT_BASE, out_bytes, 4 if out_bytes % 4 == 0 else 2,
                 lambda i: f"L1 out word {i} ({route})")

    def untilize(self):
        """One PACR per face row (16 datums, SETADCXX 0..15), channel-0 Y stepping by one
        row (ADDR_MOD_PACK slot 3: YsrcIncr 1), each row to its place in a row-major
        matrix (llk_tilize.h llk_untilize_pack_tile)."""
        b = self.b
        wh = self.wh
        out = self.out
        rb = self.row_bytes(out)
        datum = 4 if out in (0, 4) else 2
        b.push("SETC16", setc16_reg=b.thread_fields["ADDR_MOD_PACK_SEC0_YsrcIncr"][0] + 3, setc16_value=1)
        b.push("SETADCXX", CntSetMask=scaffold.PACK_ADC, x_start=0, x_end2=15)
        for t in range(self.ntiles):
            tl = OUTPUT_BASE + 32 * datum * t
            b.cfg(DEST_TARGET_REG_CFG_PACK_SEC0_Offset=64 * t)
            b.push("SETADCXY", CntSetMask=scaffold.PACK_ADC, BitMask=0b0010)
            for f in range(4):
                addr = tl + (f >> 1) * 16 * rb + (f & 1) * 16 * datum
                for r in range(16):
                    b.cfg(THCON_SEC0_REG1_L1_Dest_addr=((addr >> 4) - 1) if wh else (1 << 31) | ((addr >> 4) - 1))
                    if wh:
                        b.push("PACR", AddrMode=3, PackSel=1, Last=1)
                    else:
                        b.push("PACR", AddrMode=3, ReadIntfSel=1, Last=1)
                    addr += rb

def generate(arch: str, seed: int, allow=frozenset()):
    rng = np.random.default_rng([seed, 23])
    b = Builder(arch, "pack", seed)
    with b.on(0):
        PackGen(b, rng, allow).run()
    return b.prog
