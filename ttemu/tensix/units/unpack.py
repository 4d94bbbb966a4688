"""Unpackers: UNPACR (regular, increment-context-counter and flush-cache forms) from
L1 into SrcA / SrcB / Dst.

tt-isa-documentation WormholeB0/TensixTile/TensixCoprocessor/UNPACR.md,
UNPACR_Regular.md, UNPACR_IncrementContextCounter.md, UNPACR_FlushCache.md,
ADCs.md, SrcASrcB.md, Dst.md. Instructions are methods named after their mnemonics
(see ttemu.tensix.units).

Instruction fields. The table names the fields after assembly.yaml; the pages' syntax
``TT_OP_UNPACR(...)`` lists the same 13 operands high bits first, so:

====================  ============================================================
table field           UNPACR_Regular.md operand
====================  ============================================================
Unpack_block_selection  WhichUnpacker
AddrMode              (Ch1YInc << 6) | (Ch1ZInc << 4) | (Ch0YInc << 2) | Ch0ZInc
CfgContextCntInc      0 (``true`` selects the increment-context-counter form)
CfgContextId          ContextNumber
AddrCntContextId      ContextADC
OvrdThreadId          MultiContextMode
SetDatValid           FlipSrc
rareb_en              0 (Wormhole; Blackhole's table has ``srcb_bcast`` there)
ZeroWrite2            AllDatumsAreZero
AutoIncContextID      UseContextCounter
RowSearch             RowSearch
SearchCacheFlush      0 (``true`` selects the flush-cache form)
Last                  0
====================  ============================================================

Model notes and decisions (where the pages leave a choice):

* The increment-context-counter page lists 12 operands; read by position from the
  start, its ``true`` is the third operand, CfgContextCntInc. CfgContextCntInc = 1 is
  that form (any other field set with it, or the value 2 / 3, is undefined); otherwise
  SearchCacheFlush = 1 is the flush-cache form (only WhichUnpacker and
  MultiContextMode may accompany it); otherwise the regular form. Other fields set
  with the first two forms are undefined: a warning, and the form runs as documented.
* ``Last`` (bit 0): the pages' syntax shows 0, but tt-llk sets it on every UNPACR it
  emits (``TT_OP_UNPACR(..., 1)`` in llk_unpack_*.h) and ttsim refuses an UNPACR
  without it. assembly.yaml describes it as flushing the unpacker's data-accumulation
  buffers to memory at the end of a task: buffering the functional model does not
  have, so it changes nothing here, in any form.
* ``rareb_en`` (bit 5, "srcb rarefy on uncompress_done", assembly.yaml) concerns
  compressed input, which is not modelled: setting it is undefined (a warning).
  Blackhole's bit 5 is ``srcb_bcast`` ("broadcast starting row into adjacent 8 rows on
  SrcB", Blackhole assembly.yaml); tt-llk's Blackhole code leaves it 0 and setting it
  stops the run as unimplemented.
* The instruction completes as it issues. It waits (``Wait``) before changing any state
  while it would write at least one datum and the bank the unpacker writes
  (``SrcA[Unpackers[0].SrcBank]`` for unpacker 0, also when unpacking to Dst;
  ``SrcB[Unpackers[1].SrcBank]`` for unpacker 1) is not owned by the unpackers.
* ``Unpackers[i].SrcRow[thread]`` lives on the SrcA/SrcB state as
  ``cop.src.src_row["A"|"B"][thread]`` (shared with STOREIND and SETDVALID); it is
  kept as 6 bits, like ``SrcRowBase``. A SrcA row at or beyond 64 after adding
  SrcRow is undefined (the page only bounds the row before the addition).
* ``Unpackers[i].ContextCounter[thread]`` is :attr:`Unpackers.context_counter`.
* Compressed input (``IsUncompressed`` false) is not modelled: Unimplemented.
  The flush-cache form is a no-op (the row-start cache is not modelled, as on the page).
* Address units: every L1 address is tracked in sixteenths of a byte, so BFP4 / BFP2
  datum addresses and the exponent pointer (1/16 byte per datum) are exact integers.

Blackhole (no BlackholeA0 UNPACR page: the Wormhole pages apply, with these
differences as data, ``ArchSpec.unpacker`` and the arch's Config table): the
configuration fields are read by name from the Blackhole layout (the tile descriptor
at ``THCON_SEC{u}_REG0_TileDescriptor``); an unpacker reads 32 datums per L1 row for
formats wider than 8 bits (tt-llk's Blackhole tilize reads a whole 32-datum tile row
before RowStride); FP8 may be E4M3 (``THCON_SEC{u}_REG1_Unp_LF8_4b_exp``). When a
bank is handed to the Matrix Unit, its OutDataFormat code is kept with it
(``SrcState.fmt``): Blackhole's Matrix Unit reads a Src bank's format from there.
"""

from __future__ import annotations

import numpy as np

from ...errors import GuestFault, UndefinedBehaviour, Unimplemented
from ..formats import DataFormat, datum_bits, from_hw_code, is_bfp, unpack_convert, unpack_writes_dst32
from ..regs.dst import adj16, adj_rows
from ..regs.src import MATH, UNPACK
from . import Unit, Wait, op
from .fpu_native import load as _load_native

#: the data movers' compiled routes (movers_native.c), or None: the pure-Python path
_NATIVE = _load_native("_movers_native")

#: Instructions of this unit not implemented yet (each stops a run as unimplemented).
PENDING = frozenset()

_WHICH = ("A", "B")
_F = DataFormat


_LE_UINT = {1: np.dtype("u1"), 2: np.dtype("<u2"), 4: np.dtype("<u4")}  # L1 datums of 1, 2, 4 bytes
_MASK19, _U16, _LO16 = np.uint32(0x7FFFF), np.uint32(16), np.uint32(0xFFFF)
#: (InDataFormat, OutDataFormat, to Dst) -> movers_native.unpack_rows's kind: the
#: conversions unpack_convert makes that the compiled route has (the layouts of
#: formats/layout.py), and the L1 bytes of a datum
_NATIVE_KINDS = {(DataFormat.Float16_b, DataFormat.Float16_b, False): (0, 2),
                 (DataFormat.Float16, DataFormat.Float16, False): (1, 2),
                 (DataFormat.Float16_b, DataFormat.Float16_b, True): (2, 2),
                 (DataFormat.Float16, DataFormat.Float16, True): (3, 2),
                 (DataFormat.Float32, DataFormat.Float32, True): (4, 4),
                 (DataFormat.Float32, DataFormat.Tf32, True): (4, 4),
                 (DataFormat.Tf32, DataFormat.Tf32, True): (4, 4),
                 (DataFormat.Float32, DataFormat.Tf32, False): (5, 4),
                 (DataFormat.Float32, DataFormat.Float16_b, False): (6, 4)}
_DST32_KIND = 4


def src_rows(src):
    """``Unpackers[0].SrcRow[3]`` / ``Unpackers[1].SrcRow[3]`` as ``{"A": [...], "B": [...]}``
    on the SrcA/SrcB state (created on first use; the same attribute the Scalar Unit
    uses for STOREIND to Src)."""
    rows = getattr(src, "src_row", None)
    if rows is None:
        rows = src.src_row = {"A": [0, 0, 0], "B": [0, 0, 0]}
    return rows


def _span_bounds(dat_u, n, row_shift, row_stride_u, ds_u):
    """The lowest and highest of UNPACR's datum addresses (sixteenths of a byte) without
    FIFO wrapping: datum k (0 <= k < n, n > 0) at ``dat_u + (k >> row_shift) *
    row_stride_u + (k & (2**row_shift - 1)) * ds_u``, strides not negative. The lowest
    is datum 0's; the highest the last datum's or the end of the row before it."""
    m = (1 << row_shift) - 1
    r_last = (n - 1) >> row_shift
    hi = dat_u + r_last * row_stride_u + ((n - 1) & m) * ds_u
    if r_last:
        hi = max(hi, dat_u + (r_last - 1) * row_stride_u + m * ds_u)
    return dat_u, hi


class _UnpackView:
    """Configuration-derived values of one UNPACR setting (see Unpackers._view)."""


def tile_descriptor(words) -> dict:
    """Decode the 128-bit ``TileDescriptor`` (UNPACR_Regular.md, "Configuration")
    from its four 32-bit words."""
    v = 0
    for k, w in enumerate(words):
        v |= (int(w) & 0xFFFFFFFF) << (32 * k)
    return {
        "InDataFormat": v & 0xF,
        "IsUncompressed": (v >> 4) & 1,
        "NoBFPExpSection": (v >> 5) & 1,
        "BlobsPerXYPlane": (v >> 8) & 7,
        "XDim": (v >> 16) & 0xFFFF,
        "YDim": (v >> 32) & 0xFF,
        "ZDim": (v >> 48) & 0xFF,
        "WDim": (v >> 64) & 0xFF,
        "BlobsYStart": [(v >> (80 + 4 * k)) & 0xF for k in range(8)],
        "DigestSize": (v >> 120) & 0xFF,
    }


def encode_tile_descriptor(*, InDataFormat=0, IsUncompressed=1, NoBFPExpSection=0, BlobsPerXYPlane=0,
                           XDim=0, YDim=0, ZDim=0, WDim=0, BlobsYStart=(0,) * 8, DigestSize=0) -> list:
    """The four Config words of a TileDescriptor (inverse of :func:`tile_descriptor`)."""
    v = (InDataFormat & 0xF) | ((IsUncompressed & 1) << 4) | ((NoBFPExpSection & 1) << 5)
    v |= (BlobsPerXYPlane & 7) << 8
    v |= (XDim & 0xFFFF) << 16
    v |= (YDim & 0xFF) << 32
    v |= (ZDim & 0xFF) << 48
    v |= (WDim & 0xFF) << 64
    for k, b in enumerate(BlobsYStart):
        v |= (b & 0xF) << (80 + 4 * k)
    v |= (DigestSize & 0xFF) << 120
    return [(v >> (32 * k)) & 0xFFFFFFFF for k in range(4)]


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


class Unpackers(Unit):
    name = "unpack"

    def __init__(self, cop):
        self.cop = cop
        arch = cop.tile.arch
        #: L1 size in bytes (ReadL1Bytes: "Address must be in L1").
        self.l1_bytes = arch.l1_size
        self.spec = arch.unpacker
        #: Config word index of THCON_SEC[u]_REG0_TileDescriptor (128 bits: four words).
        self.descriptor_word = tuple(cop.config.fields[f"THCON_SEC{u}_REG0_TileDescriptor"][0] for u in (0, 1))
        #: ``Unpackers[i].ContextCounter[thread]`` (uint3).
        self.context_counter = [[0, 0, 0], [0, 0, 0]]
        #: unpack_convert argument sets (formats, flags) that convert without stopping the run
        self._formats_ok = set()
        #: a waiting attempt's inputs (thread, unpacker, context, counters, Src bank) -> (its
        #: configuration view, its Wait), for attempts that issued no warning (_regular)
        self._waits = {}
        #: whole output rows written as slices (_write_rows; tests compare both forms)
        self.fast_rows = True
        #: the compiled route for those (movers_native.c), or None: the pure-Python one
        self.native = _NATIVE

    # -- UNPACR: form dispatch --------------------------------------------------------
    @op
    def UNPACR(self, t, Unpack_block_selection, AddrMode, CfgContextCntInc, CfgContextId, AddrCntContextId,
               OvrdThreadId, SetDatValid, ZeroWrite2, AutoIncContextID, RowSearch, SearchCacheFlush,
               Last, rareb_en=0, srcb_bcast=0):
        """UNPACR.md: three forms, chosen by CfgContextCntInc / SearchCacheFlush (see the
        module docstring for the field mapping). ``rareb_en`` is Wormhole's bit 5,
        ``srcb_bcast`` Blackhole's."""
        u = Unpack_block_selection
        if srcb_bcast:
            raise Unimplemented(f"t{t.index} UNPACR srcb_bcast=1 (broadcast SrcB's starting row into the 8 adjacent "
                                "rows) is not modelled")
        if CfgContextCntInc:
            others = (AddrMode, CfgContextId, AddrCntContextId, OvrdThreadId, SetDatValid, rareb_en, ZeroWrite2,
                      AutoIncContextID, RowSearch, SearchCacheFlush)
            if CfgContextCntInc != 1 or any(others):
                self.cop.tile.undefined(f"t{t.index} UNPACR CfgContextCntInc+fields",
                                        f"t{t.index} UNPACR: CfgContextCntInc={CfgContextCntInc} with other fields "
                                        "set matches none of the documented forms (UNPACR.md); ran as "
                                        "UNPACR_IncrementContextCounter")
            return self._increment_context_counter(t, u)
        if SearchCacheFlush:
            others = (AddrMode, CfgContextId, AddrCntContextId, SetDatValid, rareb_en, ZeroWrite2,
                      AutoIncContextID, RowSearch)
            if any(others):
                self.cop.tile.undefined(f"t{t.index} UNPACR SearchCacheFlush+fields",
                                        f"t{t.index} UNPACR: SearchCacheFlush with other fields set matches none "
                                        "of the documented forms (UNPACR_FlushCache.md); ran as the flush")
            return None  # UNPACR_FlushCache.md: the cache is not modelled
        if rareb_en:
            self.cop.tile.undefined(f"t{t.index} UNPACR rareb_en",
                                    f"t{t.index} UNPACR: rareb_en=1 (srcb rarefy on uncompress_done) with "
                                    "uncompressed input; ignored")
        return self._regular(t, u, AddrMode, CfgContextId, AddrCntContextId, bool(OvrdThreadId), bool(SetDatValid),
                             bool(ZeroWrite2), bool(AutoIncContextID), bool(RowSearch))

    # -- UNPACR_NOP -------------------------------------------------------------------
    @op
    def UNPACR_NOP(self, t, Unpack_block_selection, NoOp):
        """UNPACR_NOP (opcode 0x43): no page in the ISA documentation. Modelled from
        assembly.yaml's field description, tt-llk's ``p_unpacr_nop`` values and ttsim's
        observable behaviour, in the forms tt-llk emits (llk_unpack_*.h):

        * ``UNP_ZEROSRC`` (0b001) / ``UNP_NEGINFSRC`` (0b101): once the bank the Matrix
          Unit uses is no longer handed to it ("stall clear until data ready is 0"),
          or with bit 4 (``UNP_ZEROSRC_STALL_RESET_WR_RDY``, "stall clear until write
          ready is 1"; Blackhole's ``WAIT_LIKE_UNPACR``) once the unpacker's own bank
          is no longer handed to it (as UNPACR waits), the unpacker's current bank of
          SrcA (unpacker 0) or SrcB (unpacker 1) is cleared to 0, or SrcA to all ones
          (negative infinity, as ZEROSRC.md's NegativeInfSrcA); with bit 3
          (``UNP_ZEROSRC_RESET_ALL_BANKS``) both banks are cleared; with bit 6
          (``UNP_ZEROSRC_SET_DVALID``) the unpacker's bank is then handed to the Matrix
          Unit as below. Clearing both banks after waiting only for the unpacker's
          own bank, while the other is handed to the Matrix Unit, is undefined (tt-llk:
          "must not be paired"): a warning, and both are cleared.
        * ``UNP_SET_DVALID`` (0b111): the unpacker's current bank is handed to the Matrix
          Unit and the unpacker moves to the other bank (SETDVALID.md's flip).
        * ``UNP_NOP`` (0b010): a delay between unpacks; nothing else.
        Other forms (``UNP_POP`` 0/3/4: overlay message clearing) stop the run as
        unimplemented. Blackhole's fields reach this encoding through its adapter
        (ttemu/arch/blackhole.py)."""
        which = _WHICH[Unpack_block_selection]
        src = self.cop.src
        kind = NoOp & 0x7
        if kind == 0b010 and not NoOp >> 3:
            return None
        if kind == 0b111 and not NoOp >> 3:
            return self._hand_to_math(t, which)
        if kind in (0b001, 0b101) and not NoOp & ~0b1011111:
            if kind == 0b101 and which == "B":
                raise Unimplemented(f"t{t.index} UNPACR_NOP: negative-infinity clear of SrcB")
            own_bank = bool(NoOp & 0b10000)
            wait_bank = src.unpack_bank[which] if own_bank else src.math_bank[which]
            if src.allowed[which][wait_bank] == MATH:
                whose = "the unpacker's" if own_bank else "the Matrix Unit's"
                return Wait(f"UNPACR_NOP: Src{which} bank {wait_bank} ({whose}) still handed to the Matrix Unit")
            value = 0x7FFFF if kind == 0b101 else 0
            if NoOp & 0b1000:
                if MATH in src.allowed[which]:
                    self.cop.undefined(f"UNPACR_NOP all banks Src{which} math",
                                       f"clears both Src{which} banks while one is handed to the Matrix Unit; "
                                       "both cleared")
                src.data[which][:] = value
            else:
                src.data[which][src.unpack_bank[which]][:] = value
            if NoOp & 0b1000000:
                return self._hand_to_math(t, which)
            return None
        raise Unimplemented(f"t{t.index} UNPACR_NOP NoOp=0x{NoOp:x} (unpacker {Unpack_block_selection}): only the "
                            "zero-Src, negative-infinity, set-dvalid and delay forms are modelled")

    def _hand_to_math(self, t, which):
        """The unpackers' current Src bank goes to the Matrix Unit; the unpacker moves
        to the other bank and its SrcRow becomes SRCA_SET_Base / SRCB_SET_Base << 4."""
        src = self.cop.src
        bank = src.unpack_bank[which]
        if src.allowed[which][bank] == MATH:
            self.cop.tile.undefined(f"t{t.index} UNPACR_NOP set-dvalid Src{which} valid",
                                    f"t{t.index} UNPACR_NOP: Src{which} bank {bank} is already handed to the "
                                    "Matrix Unit; handed again")
        src.allowed[which][bank] = MATH
        src.unpack_bank[which] = bank ^ 1
        u = _WHICH.index(which)
        src.fmt[which][bank] = self.cop.config.tget(t.index, f"THCON_SEC{u}_REG2_Out_data_format")
        base = "SRCA_SET_Base" if which == "A" else "SRCB_SET_Base"
        src.src_row[which][t.index] = self.cop.config.thread_get(t.index, base) << 4
        return None

    def _increment_context_counter(self, t, u):
        """UNPACR_IncrementContextCounter.md."""
        cfg = self.cop.config
        bank = cfg.bank_of(t.index)
        which = self.context_counter[u][t.index]
        inc = (which + 1) & 7
        if inc >= (1 << cfg.get(f"THCON_SEC{u}_REG2_Context_count", bank)):
            inc = 0
        self.context_counter[u][t.index] = inc
        return None

    # -- UNPACR: regular form ---------------------------------------------------------
    def _regular(self, t, u, AddrMode, ContextNumber, ContextADC, MultiContextMode, FlipSrc, AllDatumsAreZero,
                 UseContextCounter, RowSearch):
        """UNPACR_Regular.md, functional model, step by step (datums vectorised)."""
        cop = self.cop
        cfg = cop.config
        thread = t.index
        bank = cfg.bank_of(thread)

        g = cfg.values[bank].__getitem__  # cfg.get(name, bank)

        def ub(text):
            return UndefinedBehaviour(f"t{thread} UNPACR (unpacker {u}): {text}")

        # Context and ADC selection.
        warned_ctx = False
        if MultiContextMode:
            ctx = self.context_counter[u][thread] if UseContextCounter else ContextNumber
            ctx = (ctx + cfg.thread_get(thread, f"UNPACK_MISC_CFG_CfgContextOffset_{u}")) & 7
            which_adc = ContextADC
            if u == 1 and ctx >= 2:
                self.cop.undefined("UNPACR unpacker 1 context>=2",
                                   f"context {ctx} >= 2 on unpacker 1 (UNPACR_Regular.md: undefined); unpacker 1 "
                                   f"has two contexts, ttemu uses context {ctx & 1}")
                ctx &= 1
                warned_ctx = True
            if which_adc == 3:
                raise ub("ContextADC = 3")
        else:
            ctx = 0
            which_adc = thread

        v = self._view(thread, u, bank, MultiContextMode, ctx)
        in_addr = (g(v.base_field) + (g(v.offset_field) & 0xFFFF) + v.in_addr_add) * 16
        # A retry of a waiting attempt that issued no warning, with the same view, input
        # address, counters and Src bank, waits again and does nothing else (see the Wait
        # return below).
        which = _WHICH[u]
        src = cop.src
        sbank = src.unpack_bank[which]
        bank_busy = src.allowed[which][sbank] != UNPACK  # (the attempt will wait, if it reads datums)
        wait_key = None
        if not RowSearch and bank_busy:
            adc_u = cop.adcs.adc
            c0, c1 = adc_u[which_adc][u].channel
            z0, o1 = adc_u[thread][u].channel
            wait_key = (thread, u, ctx, which_adc, MultiContextMode, sbank, c0.X, c0.Y, c1.X, z0.Z, z0.W,
                        o1.Y, o1.Z, o1.W, in_addr)
            hit = self._waits.get(wait_key)
            if hit is not None and hit[0] is v:
                return hit[1]
        quiet = not warned_ctx  # no warning issued by this attempt (so far)
        desc = v.desc
        xdim, ydim, zdim, wdim = v.xdim, v.ydim, v.zdim, v.wdim
        in_fmt, out_fmt, bits, ds_u, bfp, force_exp = v.in_fmt, v.out_fmt, v.bits, v.ds_u, v.bfp, v.force_exp
        exp_u = None
        if bfp and not force_exp:
            exp_u = in_addr * 16
            if in_fmt in (_F.Bfp8_b, _F.Bfp8) or not desc["NoBFPExpSection"]:
                n_exp = _ceil_div(xdim * ydim * zdim * wdim, 16)
                in_addr += _ceil_div(n_exp, 16) * 16

        # First datum and datum count (uncompressed).
        adcs = cop.adcs
        adc_xy = adcs.channel(which_adc, u, 0)
        adc_zw = adcs.channel(thread, u, 0)
        ch1_x = adcs.channel(which_adc, u, 1).X
        if not RowSearch:
            xpos, ypos, xend = adc_xy.X, adc_xy.Y, ch1_x + 1
        elif desc["BlobsPerXYPlane"]:
            if MultiContextMode and u == 0:
                # UNP0_BLOBS_Y_START_CNTX[WhichContext & 2]: two contexts per 32-bit word
                word = g("UNP0_BLOBS_Y_START_CNTX_01_blobs_y_start" if not (ctx & 2)
                         else "UNP0_BLOBS_Y_START_CNTX_23_blobs_y_start")
                ystart = [(word >> (4 * k)) & 0xF for k in range(8)]
            else:
                ystart = desc["BlobsYStart"]
            xpos = ystart[adc_xy.Y & 7] << 4
            ypos = 0
            x71 = (adc_xy.X & 7) + 1
            xend = (xdim & 0x1F0) if x71 == desc["BlobsPerXYPlane"] else (ystart[x71 & 7] << 4)
        else:
            xpos, ypos, xend = 0, adc_xy.Y, ch1_x
        first = ((adc_zw.W * zdim + adc_zw.Z) * ydim + ypos) * xdim + xpos
        n = xend - xpos
        if n < 0:
            raise GuestFault(f"t{thread} UNPACR (unpacker {u}): datum count XEnd - XPos = {xend} - {xpos} is "
                             "negative (it wraps around 2**32: billions of datums)")

        limit = v.limit
        fifo = v.fifo

        def wrap(a_u):
            return a_u - fifo if a_u > limit else a_u

        if exp_u is not None:
            exp_u = wrap(exp_u + first)
        dat_u = wrap(in_addr * 16 + first * ds_u)

        tileize = v.tileize
        row_stride_u = v.row_stride_u

        # Output address.
        to_dst, transpose = v.to_dst, v.transpose
        out = adcs.channel(thread, u, 1)
        out_addr = v.out_base + out.Y * v.out_ystride + out.Z * v.out_zstride + out.W * v.out_wstride
        if out_fmt in (_F.Float32, _F.Tf32, _F.Int32):
            if out_addr & 3:
                quiet = False
                self.cop.undefined("UNPACR OutAddr&3",
                                   f"unpacker {u}: output address {out_addr} not a multiple of 4 for a 32-bit "
                                   "OutDataFormat (UNPACR_Regular.md: undefined); ttemu drops the low bits (the "
                                   "page's OutAddr >>= 2)")
            out_addr >>= 2
        elif out_fmt in (_F.Float16, _F.Float16_b, _F.UInt16):
            if out_addr & 1:
                quiet = False
                self.cop.undefined("UNPACR OutAddr&1",
                                   f"unpacker {u}: output address {out_addr} odd for a 16-bit OutDataFormat "
                                   "(UNPACR_Regular.md: undefined); ttemu drops the low bit (the page's "
                                   "OutAddr >>= 1)")
            out_addr >>= 1
        if MultiContextMode and u == 0:
            ctx_out = v.ctx_out
            if to_dst or v.add_dest_addr_cntr:
                out_addr += ctx_out
            else:
                out_addr = ctx_out

        ups, interleave, col_shift = v.ups, v.interleave, v.col_shift

        # Compatibility checks.
        if (transpose or tileize) and dat_u % 256:
            raise ub("Haloize_mode / Tileize_mode need the first datum at a 16-byte aligned address")
        if tileize and ups > 0:
            raise ub("Tileize_mode with upsampling")
        if to_dst and (col_shift or transpose):
            raise ub("unpacking to Dst with a column shift or Haloize_mode")

        # Datum addresses (sixteenths of a byte): row r starts at Wrap(start(r-1) + RowStride).
        row_shift = v.row_shift
        # rows of whole-byte datums back to back without FIFO wrapping: datum k at
        # dat_u + k * ds_u (read as one slice below)
        contiguous = not fifo and not ds_u & 15 and row_stride_u == ds_u << row_shift
        # whole rows of whole-byte datums RowStride apart (Tileize_mode), from a byte
        # address, without FIFO wrapping: read as one strided view of L1 below
        strided = (not contiguous and not fifo and not bfp and self.fast_rows and not (ds_u | dat_u | row_stride_u) & 15
                   and n and not n & ((1 << row_shift) - 1))

        # An UNPACR that will wait for its Src bank (below) is retried until the bank is
        # handed back; each attempt does what it did (warnings, checks that stop the run)
        # but reads and converts no datums, whose values would be thrown away.
        waiting = n > 0 and bank_busy
        # without FIFO wrapping, a waiting attempt checks the bounds of the addresses
        # below without making them (_span_bounds)
        bounds_only = waiting and not fifo

        idx = None if (contiguous and not bfp) or bounds_only or strided else np.arange(n, dtype=np.int64)
        nrows = (n + (1 << row_shift) - 1) >> row_shift
        if contiguous or bounds_only or strided:
            pass
        elif fifo:
            starts = np.empty(nrows, dtype=np.int64)
            a = dat_u
            for r in range(nrows):
                starts[r] = a
                a = wrap(a + row_stride_u)
        else:
            starts = dat_u + np.arange(nrows, dtype=np.int64) * row_stride_u
        if not contiguous and not bounds_only and not strided:
            addr_u = starts[idx >> row_shift] + (idx & ((1 << row_shift) - 1)) * ds_u if n else idx

        # Exponent addresses: +1/16 byte per datum, Wrap at each 16-byte boundary.
        exp_bits = None
        if bfp:
            if force_exp:
                exp_bits = np.full(0 if waiting else n, v.forced_shared_exp, dtype=np.uint32)
            else:
                if fifo:
                    pos = np.empty(n, dtype=np.int64)
                    e, k0 = exp_u, 0
                    while k0 < n:
                        k = min(n - k0, 256 - (e % 256))
                        pos[k0:k0 + k] = e + np.arange(k)
                        k0 += k
                        e += k
                        if e % 256 == 0:
                            e = wrap(e)
                elif bounds_only:  # exp_u + k for k < n, one byte each
                    self._check_l1(t, u, exp_u >> 4, ((exp_u + n - 1) >> 4) + 1, 1)
                else:
                    pos = exp_u + idx
                exp_bits = (np.zeros(0, dtype=np.uint32) if bounds_only
                            else self._read_l1(t, u, pos >> 4, 8, 0, check_only=waiting))

        # Read and convert.
        if ((contiguous or strided) and n and not waiting and not bfp and not AllDatumsAreZero and not ups
                and self.fast_rows and self.native is not None and not (out_addr | n) & 15):
            kind = _NATIVE_KINDS.get((in_fmt, out_fmt, to_dst))
            # (rows of datums in L1: one of n, or Tileize_mode's RowStride apart)
            per, stride = (n, 0) if contiguous else (1 << row_shift, row_stride_u >> 4)
            written = kind is not None and self._rows_native(t, u, kind, dat_u >> 4, n, per, stride, out_addr >> 4,
                                                             to_dst, transpose, col_shift, src_rows(src)[which][thread])
        else:
            written = False
        if not written:
            if n and contiguous:  # whole bytes one after the other: one slice of L1
                raw = self._read_l1_run(t, u, dat_u >> 4, n, bits, check_only=waiting)
            elif strided and not waiting:
                raw = self._read_l1_rows(t, u, dat_u >> 4, nrows, 1 << row_shift, row_stride_u >> 4, bits)
            elif bounds_only:
                lo_u, hi_u = _span_bounds(dat_u, n, row_shift, row_stride_u, ds_u)
                nbytes = max(bits // 8, 1)
                self._check_l1(t, u, lo_u >> 4, (hi_u >> 4) + nbytes, nbytes)
                raw = np.zeros(0, dtype=np.uint32)
            elif n:
                raw = self._read_l1(t, u, addr_u >> 4, bits, (addr_u & 15) >> 1, check_only=waiting)
            else:
                raw = np.zeros(0, dtype=np.uint32)
            unsigned = v.unsigned
            conv_out = out_fmt
            if not to_dst and in_fmt == out_fmt == _F.Float32:
                # tt-llk follows its last unpack to Dst with one FP32 unpack to SrcA, datums
                # zeroed (a TEN-3868 workaround, cunpack_common.h unpack_to_dest_tile_done).
                quiet = False
                self.cop.undefined("UNPACR FP32->FP32 Src",
                                   f"unpacker {u}: FP32 -> FP32 into Src{'AB'[u]} (UNPACR_Regular.md FormatConversion: "
                                   "undefined; ttsim refuses it); ttemu converts as FP32 -> TF32")
                conv_out = _F.Tf32
            if waiting:
                # no datums: only what stops the run for these formats (known from an earlier attempt)
                key = (in_fmt, conv_out, to_dst, exp_bits is None, bool(unsigned), v.fp8_e4m3)
                if key not in self._formats_ok:
                    unpack_convert(raw, in_fmt, conv_out, to_dst=to_dst, exps=exp_bits, int8_unsigned=bool(unsigned),
                                   fp8_e4m3=v.fp8_e4m3, fp8_max_to_ones=self.spec.fp8_max_to_ones)
                    self._formats_ok.add(key)
                result = Wait(f"Src{which} bank {sbank} owned by the Matrix Unit (unpacker {u})")
                if quiet and wait_key is not None:
                    if len(self._waits) >= 64:
                        self._waits.clear()
                    self._waits[wait_key] = (v, result)
                return result
            values = unpack_convert(raw, in_fmt, conv_out, to_dst=to_dst, exps=exp_bits, int8_unsigned=bool(unsigned),
                                    fp8_e4m3=v.fp8_e4m3, fp8_max_to_ones=self.spec.fp8_max_to_ones)
            if AllDatumsAreZero:
                values = np.zeros_like(values)

            # Output slots: each datum then UpsampleZeroes zeroes (skipped when interleaving).
            per = ups + 1
            if per == 1:
                slot_vals = values if values.dtype == np.uint32 else values.astype(np.uint32)
                oaddr = out_addr  # n slots from out_addr on (_write)
            else:
                slot = np.arange(n * per, dtype=np.int64)
                keep = (slot % per == 0) if interleave else np.ones(n * per, dtype=bool)
                slot_vals = np.zeros(n * per, dtype=np.uint32)
                slot_vals[::per] = values
                slot = slot[keep]
                slot_vals = slot_vals[keep]
                oaddr = out_addr + slot

        rows_state = src_rows(src)
        if not written and n:
            self._write(t, u, oaddr, slot_vals, to_dst, transpose, col_shift, out_fmt, rows_state[which][thread])

        # Counters for the next instruction.
        if MultiContextMode and UseContextCounter:
            inc = (ctx + 1) & 7
            if inc >= (1 << v.context_count):
                inc = 0
            self.context_counter[u][thread] = inc
        ch0zinc, ch0yinc = AddrMode & 3, (AddrMode >> 2) & 3
        ch1zinc, ch1yinc = (AddrMode >> 4) & 3, (AddrMode >> 6) & 3
        for i in sorted({thread, which_adc}):
            c0 = adcs.channel(i, u, 0)
            c0.set("Y", c0.Y + ch0yinc)
            c0.set("Z", c0.Z + ch0zinc)
            c1 = adcs.channel(i, u, 1)
            c1.set("Y", c1.Y + ch1yinc)
            c1.set("Z", c1.Z + ch1zinc)
        base_row = (cfg.thread_get(thread, "SRCB_SET_Base" if u else "SRCA_SET_Base") << 4) & 0x3F
        if FlipSrc:
            sb = src.unpack_bank[which]
            src.allowed[which][sb] = MATH
            src.unpack_bank[which] = sb ^ 1
            src.fmt[which][sb] = v.out_code
            rows_state[which][thread] = base_row
        elif v.src_reg_set_upd:
            rows_state[which][thread] = (rows_state[which][thread] + 16 + base_row) & 0x3F
        return None

    def _view(self, thread, u, bank, MultiContextMode, ctx):
        """The configuration-derived values of an UNPACR (UNPACR_Regular.md) for this
        thread, unpacker, bank and context, kept with the bank's field values until a
        write to a Config word they were read from (they read no ThreadConfig field:
        ``SRCA_SET_Base`` / ``SRCB_SET_Base`` are read by each UNPACR)."""
        cfg = self.cop.config
        values = cfg.values[bank]
        key = ("unpack_view", thread, u, bool(MultiContextMode), ctx)
        hit = values.get(key)
        if hit is not None:
            return hit
        sec = f"THCON_SEC{u}_"
        unp = f"UNP{u}_"
        read = []  # the fields read, which the view depends on

        def g(name):  # cfg.get(name, bank)
            read.append(name)
            return values[name]

        v = _UnpackView()
        desc = v.desc = tile_descriptor([cfg.word(self.descriptor_word[u] + k, bank) for k in range(4)])
        if MultiContextMode:
            uncompressed = g(f"{sec}REG2_Disable_zero_compress_cntx{ctx}")
        else:
            uncompressed = desc["IsUncompressed"]
        if MultiContextMode and u == 0:
            v.xdim = g(f"{sec}REG5_Tile_x_dim_cntx{ctx & 3}")
        else:
            v.xdim = desc["XDim"]
        v.ydim = desc["YDim"]
        v.zdim = desc["ZDim"] or 1
        v.wdim = desc["WDim"] or 1
        if MultiContextMode and g(f"{sec}REG2_Ovrd_data_format"):
            in_code = g(f"{sec}REG7_Unpack_data_format_cntx{ctx}")
            out_code = g(f"{sec}REG7_Unpack_out_data_format_cntx{ctx}")
        else:
            in_code = desc["InDataFormat"]
            out_code = g(f"{sec}REG2_Out_data_format")
        v.in_fmt = from_hw_code(in_code)
        v.out_fmt = from_hw_code(out_code)
        v.out_code = out_code
        bits = v.bits = datum_bits(v.in_fmt)
        v.ds_u = bits * 2  # datum size in sixteenths of a byte
        row_datums = self.spec.row_datums_wide if bits > 8 else 16
        v.row_shift = row_datums.bit_length() - 1
        e4m3 = self.spec.fp8_e4m3_field
        v.fp8_e4m3 = bool(e4m3 and g(e4m3.format(u=u)))

        if not uncompressed:
            raise Unimplemented(f"t{thread} UNPACR (unpacker {u}): compressed input (IsUncompressed = 0) is not "
                                "modelled")

        # Input address (bytes).
        # (the base and offset fields, rewritten per tile, are read by each UNPACR: not kept)
        if MultiContextMode and ctx != 0:
            v.base_field = f"{sec}REG{3 if ctx < 4 else 4}_Base_cntx{ctx}_address"
            v.offset_field = f"{sec}REG7_Offset_cntx{ctx & 3}_address" if ctx & 3 else f"{sec}REG7_Offset_address"
        else:
            v.base_field = f"{sec}REG3_Base_address"
            v.offset_field = f"{sec}REG7_Offset_address"
        v.in_addr_add = 1 + desc["DigestSize"]

        v.force_exp = g(f"{sec}REG2_Force_shared_exp")
        v.bfp = is_bfp(v.in_fmt)

        v.limit = g(f"{sec}REG2_Unpack_limit_address") * 256
        v.fifo = g(f"{sec}REG2_Unpack_fifo_size") * 256
        tileize = v.tileize = g(f"{sec}REG2_Tileize_mode")
        if tileize:
            row_stride = ((g(f"{sec}REG2_Shift_amount_cntx0") << 4) | (g(f"{sec}REG2_Shift_amount_cntx1") << 8)
                          | (g(f"{sec}REG2_Shift_amount_cntx2") << 12))
        else:
            row_stride = bits * row_datums // 8  # one row of datums, contiguous
        v.row_stride_u = row_stride * 16
        if u == 0:
            sel = f"{sec}REG2_Unpack_if_sel_cntx{ctx}" if MultiContextMode else f"{sec}REG2_Unpack_If_Sel"
            v.to_dst = bool(g(sel))
            v.transpose = bool(g(f"{sec}REG2_Haloize_mode"))
        else:
            v.to_dst = v.transpose = False
        v.out_base = g(f"{unp}ADDR_BASE_REG_1_Base")
        v.out_ystride = g(f"{unp}ADDR_CTRL_XY_REG_1_Ystride")
        v.out_zstride = g(f"{unp}ADDR_CTRL_ZW_REG_1_Zstride")
        v.out_wstride = g(f"{unp}ADDR_CTRL_ZW_REG_1_Wstride")
        if MultiContextMode and u == 0:
            v.ctx_out = g(f"{sec}REG5_Dest_cntx{ctx & 3}_address")
            v.add_dest_addr_cntr = g(f"{unp}ADD_DEST_ADDR_CNTR_add_dest_addr_cntr")
        v.ups = (1 << g(f"{sec}REG2_Upsample_rate")) - 1
        v.interleave = g(f"{sec}REG2_Upsample_and_interleave")
        v.col_shift = 0 if (tileize or u == 1) else g(f"{sec}REG2_Shift_amount_cntx{ctx & 3}")
        v.forced_shared_exp = g(f"{unp}FORCED_SHARED_EXP_shared_exp")
        v.unsigned = g("ALU_FORMAT_SPEC_REG0_SrcBUnsigned" if u else "ALU_FORMAT_SPEC_REG0_SrcAUnsigned")
        v.context_count = g(f"{sec}REG2_Context_count")
        v.src_reg_set_upd = g(f"{sec}REG2_Unpack_Src_Reg_Set_Upd")
        values.keep(key, v, read, [self.descriptor_word[u] + k for k in range(4)])
        return v

    def _read_l1(self, t, u, byte_addr, bits, bit_shift, check_only=False):
        """``ReadL1Bytes`` (UNPACR_Regular.md) for arrays of addresses: ``bits`` wide
        datums at ``byte_addr`` (plus ``bit_shift`` bits for sub-byte datums).
        ``check_only``: only stop the run for an address outside L1 (no datums)."""
        byte_addr = np.asarray(byte_addr, dtype=np.int64)
        if byte_addr.size == 0:
            return np.zeros(0, dtype=np.uint32)
        nbytes = max(bits // 8, 1)
        lo, hi = int(byte_addr.min()), int(byte_addr.max()) + nbytes
        self._check_l1(t, u, lo, hi, nbytes)
        if check_only:
            return np.zeros(0, dtype=np.uint32)
        l1 = np.frombuffer(self.cop.tile.l1, dtype=np.uint8)
        if bits >= 8:
            v = l1[byte_addr].astype(np.uint32)
            for k in range(1, nbytes):
                v |= l1[byte_addr + k].astype(np.uint32) << np.uint32(8 * k)
            return v
        shift = np.asarray(bit_shift, dtype=np.uint32)
        return (l1[byte_addr].astype(np.uint32) >> shift) & np.uint32((1 << bits) - 1)

    def _check_l1(self, t, u, lo, hi, nbytes):
        """Reads of the bytes ``lo`` .. ``hi - 1`` (datums of ``nbytes``) stay inside L1."""
        if lo < 0 or hi > self.l1_bytes:
            bad = lo if lo < 0 else hi - nbytes
            raise GuestFault(f"t{t.index} UNPACR (unpacker {u}): reads L1 address {bad:#x}, outside L1 "
                             "(UNPACR_Regular.md: undefined; there is no memory there)")

    def _read_l1_run(self, t, u, start, n, bits, check_only=False):
        """:meth:`_read_l1` of ``n`` (> 0) whole-byte datums one after the other from
        byte ``start``: one slice of L1, read little-endian."""
        nbytes = bits // 8
        self._check_l1(t, u, start, start + n * nbytes, nbytes)
        if check_only:
            return np.zeros(0, dtype=np.uint32)
        return np.frombuffer(self.cop.tile.l1, dtype=_LE_UINT[nbytes], count=n, offset=start).astype(np.uint32)

    def _read_l1_rows(self, t, u, start, nrows, per_row, stride, bits):
        """:meth:`_read_l1` of ``nrows`` rows of ``per_row`` whole-byte datums, row r from
        byte ``start + r * stride`` (>= 0): one strided view of L1, read little-endian."""
        nbytes = bits // 8
        end = start + (nrows - 1) * stride + per_row * nbytes
        self._check_l1(t, u, start, end, nbytes)
        region = np.frombuffer(self.cop.tile.l1, dtype=np.uint8, count=end - start, offset=start)
        rows = np.ndarray((nrows, per_row), dtype=_LE_UINT[nbytes], buffer=region, strides=(stride, nbytes))
        return rows.reshape(-1).astype(np.uint32)

    def _write(self, t, u, oaddr, vals, to_dst, transpose, col_shift, out_fmt, src_row):
        """The writes of the main loop of UNPACR_Regular.md into SrcB / SrcA / Dst: datum k
        to output slot ``oaddr[k]``, or (``oaddr`` an int) to slot ``oaddr + k``."""
        if type(oaddr) is int:
            if self.fast_rows and not (oaddr | vals.size) & 15 and self._write_rows(
                    t, u, oaddr >> 4, vals.reshape(-1, 16), to_dst, transpose, col_shift, out_fmt, src_row):
                return
            oaddr = oaddr + np.arange(vals.size, dtype=np.int64)
        cop = self.cop
        thread = t.index
        row = oaddr >> 4
        col = oaddr & 15
        if u == 1:
            data = cop.src.data["B"][cop.src.unpack_bank["B"]]
            data[(row + src_row) & 0x3F, col] = vals & 0x7FFFF
            return
        ovrd = cop.config.thread_get(thread, "SRCA_SET_SetOvrdWithAddr")
        if not to_dst:
            ok = (row >= 4) & (col >= col_shift)
            row, col, vals = row[ok] - 4, col[ok] - col_shift, vals[ok]
            if row.size == 0:
                return
            if ovrd:
                if int(row.max()) >= 64:
                    cop.undefined("UNPACR SrcA Row>=64",
                                  f"unpacker 0: SrcA row {int(row.max())} >= 64 with SRCA_SET_SetOvrdWithAddr "
                                  "(UNPACR_Regular.md: undefined); ttemu wraps the row to the 64-row bank")
            else:
                if int(row.max()) >= 16:
                    cop.undefined("UNPACR SrcA Row>=16",
                                  f"unpacker 0: SrcA row {int(row.max())} (output address / 16 - 4) >= 16 "
                                  "(UNPACR_Regular.md: undefined); ttemu adds SrcRow and wraps the row to the "
                                  "64-row bank")
                row = row + src_row
            row = row & 63
            if transpose:
                low = row & 15
                row, col = (row & ~15) | col, low
            data = cop.src.data["A"][cop.src.unpack_bank["A"]]
            data[row, col] = vals & 0x7FFFF
            return
        row = (row - 4) & (15 if ovrd else 0x3FF)
        bits = cop.dst.bits
        remap = self._dst_remap()
        if unpack_writes_dst32(out_fmt):
            adj = adj_rows(row, *remap)
            bits[adj, col] = (vals >> 16).astype(np.uint16)
            bits[adj + 8, col] = (vals & 0xFFFF).astype(np.uint16)
        else:
            bits[cop.dst.map16(adj16(row, remap[0]), write=True), col] = (vals & 0xFFFF).astype(np.uint16)

    def _rows_native(self, t, u, kind, start, n, per, stride, row0, to_dst, transpose, col_shift, src_row):
        """:meth:`_read_l1_run` / :meth:`_read_l1_rows`, ``unpack_convert`` and
        :meth:`_write_rows` of ``n`` datums from L1 (``per`` one after the other from byte
        ``start``, ``start + stride``, ...) to whole output rows ``row0``.. in one compiled
        call (movers_native.unpack_rows, conversion ``kind``): -> False (nothing done) where
        ``_write_rows`` would not write them as whole rows (or would transpose them)."""
        code, nbytes = kind
        target = None if transpose else self._row_target(t, u, row0, n >> 4, to_dst, col_shift,
                                                          code == _DST32_KIND, src_row)
        if target is None:
            return False
        self._check_l1(t, u, start, start + (n // per - 1) * stride + per * nbytes, nbytes)
        self.native.unpack_rows(code, self.cop.tile.l1, start, n, target[0], target[1], per, stride)
        return True

    def _row_target(self, t, u, row0, nrows, to_dst, col_shift, dst32, src_row):
        """Where whole output rows ``row0``.. land as one slice of rows: (the SrcB / SrcA
        bank or DstBits, the first row; ``dst32``: Dst32 rows, whose AdjRows the writer
        takes), or None where they do not (a column shift, a partly dropped or wrapping
        block, a remapped Dst, an aliased one for Dst16 rows)."""
        cop = self.cop
        if u == 1:
            first = (row0 + src_row) & 0x3F
            return None if first + nrows > 64 else (cop.src.data["B"][cop.src.unpack_bank["B"]], first)
        if col_shift or row0 < 4:
            return None
        ovrd = cop.config.thread_get(t.index, "SRCA_SET_SetOvrdWithAddr")
        row = row0 - 4
        if not to_dst:
            if row + nrows - 1 >= (64 if ovrd else 16):
                return None  # (undefined: the general form warns)
            if not ovrd:
                row += src_row
            row &= 63
            return None if row + nrows > 64 else (cop.src.data["A"][cop.src.unpack_bank["A"]], row)
        if ovrd or (row & 0x3FF) + nrows > 1024 or self._dst_remap() != (0, 0) or (not dst32 and cop.dst.aliased16):
            return None
        return cop.dst.bits, row & 0x3FF

    def _write_rows(self, t, u, row0, vals, to_dst, transpose, col_shift, out_fmt, src_row):
        """:meth:`_write` of whole output rows ``row0``.. (``vals``: one row of 16 per
        row) as slices of rows where they do not wrap: -> False (nothing written) where
        this form does not apply (a column shift, a transposed or partly dropped or
        wrapping block, a remapped or aliased Dst)."""
        nrows = vals.shape[0]
        dst32 = to_dst and unpack_writes_dst32(out_fmt)
        target = self._row_target(t, u, row0, nrows, to_dst, col_shift, dst32, src_row)
        if target is None:
            return False
        data, row = target
        if not to_dst:
            if not transpose:
                data[row:row + nrows] = vals & _MASK19
                return True
            if row & 15 or nrows & 15:
                return False
            # Haloize_mode: row r, column c of a face lands in row c, column r
            data[row:row + nrows] = (vals & _MASK19).reshape(-1, 16, 16).transpose(0, 2, 1).reshape(-1, 16)
            return True
        if dst32:
            adj = adj_rows(np.arange(row, row + nrows))
            data[adj] = vals >> _U16
            data[adj + 8] = vals & _LO16
        else:
            data[row:row + nrows] = vals & _LO16
        return True

    def _dst_remap(self):
        """(remap_addrs, swizzle_32b) of Config DEST_ACCESS_CFG: BlackholeA0 Dst.md's
        ``Dst16b[Row]`` is ``DstBits[Adj16(Row)]`` (``Adj32`` for Dst32b) for every access,
        the unpackers' writes included; (0, 0) where the arch has no such fields."""
        cfg = self.cop.config
        if "DEST_ACCESS_CFG_remap_addrs" not in cfg.fields:
            return (0, 0)
        return (cfg.get("DEST_ACCESS_CFG_remap_addrs"), cfg.get("DEST_ACCESS_CFG_swizzle_32b"))
