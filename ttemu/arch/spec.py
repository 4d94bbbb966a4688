"""The shapes of per-arch facts (``ArchSpec`` and its parts); the values live in
``wormhole_b0.py`` and ``blackhole.py``."""

from __future__ import annotations

from ..record import Factory, Record


class ResetPC(Record, frozen=True):
    """Where a core starts when it leaves soft reset: ``default`` unless bit
    ``enable_bit`` of the 32-bit register at ``enable_addr`` is set, in which case
    the register at ``pc_addr`` holds the start PC. Addresses are MMIO addresses."""

    default: int
    enable_addr: int | None = None
    enable_bit: int = 0
    pc_addr: int | None = None


class CoreSpec(Record, frozen=True):
    name: str
    local_size: int  # bytes of core-local data RAM at local_base
    reset_bit: int  # bit in the soft reset register; set = held in reset
    reset_pc: ResetPC
    tensix_thread: int | None  # the Tensix thread this core pushes to by default
    can_push: bool  # may push Tensix instructions (.ttinsn / sw to the push address)
    iram: tuple[int, int] | None = None  # (base, size) of a core-local instruction RAM
    local_window: str | None = None  # address-map region showing its local data RAM to every core


class Csr(Record, frozen=True):
    """One CSR of a baby core (``ArchSpec.csrs``: number -> Csr).

    ``kind``: ``cycle``/``cycleh``/``instret``/``instreth`` (the tile clock and the
    core's retired-instruction count, low and high words), ``hartid`` (ttemu's core
    number), ``const`` (reads ``value``), ``scratch`` (storage: reset ``value``,
    writable ``mask``), ``unmodelled`` (listed by the docs, but what it reads depends on
    state ttemu does not model: an access stops the run, quoting ``note``).
    ``writable``: counters only: a write moves the counter (Blackhole's are read/write).
    ``cores``: the cores that have this behaviour (None: all); other cores see ``other``
    (another Csr) or, when None, no such CSR."""

    name: str
    kind: str
    value: int = 0
    writable: bool = False
    mask: int = 0xFFFFFFFF
    cores: tuple | None = None
    other: "Csr | None" = None
    note: str = ""


class Region(Record, frozen=True):
    name: str
    base: int
    size: int

    @property
    def end(self) -> int:
        return self.base + self.size


class NocSpec(Record, frozen=True):
    """The tile's two NoC interfaces (NIUs) as seen from its own cores.

    ``grid``: NoC 0 coordinate extent (x, y); NoC 1 numbers the same nodes from the
    opposite corner. ``tile``: this tile's (x, y) on NoC 0 (a worker tile).
    ``node_id_fields``: NOC_NODE_ID bits above the coordinate, per NoC instance.
    ``translate``: per NoC instance, the X and Y coordinate translation tables (4
    words each, eight 4-bit entries per word: virtual coordinate -> physical).
    ``id_logical``: NOC_ID_LOGICAL (the tile's virtual coordinate)."""

    grid: tuple
    tile: tuple
    cmd_buf_stride: int
    addr_bits: int  # local address bits of a NoC address; the coordinate sits above
    node_id_fields: tuple
    translate: tuple
    id_logical: int


class PackerSpec(Record, frozen=True):
    """The packers (Packers/README.md) as data.

    ``sections``: the Config name prefix of each packer's THCON fields
    (``Packers[i].Config``); their number is the number of packers a PACR's packer mask
    selects from. ``limit_sections``: the prefix of each packer's ``Pack_limit_address`` /
    ``Pack_fifo_size`` (None: the arch has no such output wrap). ``read_interfaces``: the
    Dst read interfaces of a packer: a PACR reads its datum range from each interface
    its interface mask selects, interface k ``k * interface_rows[DstAccessMode]`` Dst rows
    after the first, and packs them one after the other. ``out_yzw_shift``: the output
    address generator adds ``(YZW_Addr & ~0xf) >> out_yzw_shift`` (16-byte units) to the
    L1 address. ``dst_access_cfg``: the Config fields ``(remap_addrs, swizzle_32b)`` that
    permute how Dst rows map to storage for the packers too (BlackholeA0 Dst.md; None:
    the arch has none); strided reads (``interface_rows[1]``) need both set.
    The defaults are the Wormhole pages'."""

    sections: tuple = ("THCON_SEC0_REG1_", "THCON_SEC0_REG8_", "THCON_SEC1_REG1_", "THCON_SEC1_REG8_")
    limit_sections: tuple | None = ("THCON_SEC0_REG9_Pack_0_2_", "THCON_SEC0_REG9_Pack_1_3_",
                                    "THCON_SEC1_REG9_Pack_0_2_", "THCON_SEC1_REG9_Pack_1_3_")
    read_interfaces: int = 1
    interface_rows: tuple = (1,)
    out_yzw_shift: int = 0
    dst_access_cfg: tuple | None = None
    fp16_round10: bool = False
    fp8_e4m3_field: str | None = None


class UnpackerSpec(Record, frozen=True):
    """The unpackers' parameters that differ between arches; the defaults are the
    Wormhole pages' model (UNPACR_Regular.md).

    ``row_datums_wide``: datums an unpacker reads per L1 row (before RowStride moves to
    the next row) for input formats wider than 8 bits; formats of 8 bits or fewer
    read 16. ``fp8_e4m3_field``: the Config field (``{u}``: the unpacker) that makes
    FP8 input E4M3 instead of E5M2, or None where FP8 is always E5M2.
    ``fp8_max_to_ones``: an E5M2 datum whose exponent and mantissa are all ones
    becomes an FP16 with an all-ones mantissa (not the FP8's bits shifted up)."""

    row_datums_wide: int = 16
    fp8_e4m3_field: str | None = None
    fp8_max_to_ones: bool = False


class DebugHwSpec(Record, frozen=True):
    """The debug hardware external debuggers (tt-exalens) drive, as data
    (docs/debug-hardware.md lists the sources).

    ``cores``: the core each ``Which_RISCV`` value of RISC_DBG_CNTL_0 reaches (RISCV NC
    has no debug interface: WormholeB0/TensixTile/BabyRISCV/DebugInterface.md).
    ``step_commands``: single-step commands per retired instruction (Blackhole: two,
    as tt-exalens 0.4.2 issues them, "a bug in hardware"; one where the page applies).
    ``rwc_bits``: where the debug daisychain (DaisySel 3, SignalSel 2 and 3 read as one
    256-bit value, SignalSel 3 holding bits 128-255) presents each thread's RWC
    counters: (RWC field, bit of thread 0, bits between threads, width).
    ``fidelity_bit``: the bit of thread 0's FidelityPhase at DaisySel 3, SignalSel 4
    (two bits per thread)."""

    cores: tuple = ("brisc", "trisc0", "trisc1", "trisc2")
    step_commands: int = 1
    # WormholeB0/TensixTile/DebugDaisychain.md, "RWCs"
    rwc_bits: tuple = (("SrcA", 0, 16, 6), ("SrcA_Cr", 8, 16, 6), ("SrcB", 48, 16, 6), ("SrcB_Cr", 56, 16, 6),
                       ("Dst", 96, 32, 10), ("Dst_Cr", 112, 32, 10))
    fidelity_bit: int = 62


class ArchSpec(Record, frozen=True):
    name: str
    riscv_arch_hint: str  # substring of the ELF's RISC-V arch attribute naming this arch
    l1_size: int
    local_base: int
    cores: tuple[CoreSpec, ...]
    soft_reset_addr: int
    soft_reset_value: int
    wall_clock_lo: int
    wall_clock_hi: int
    address_map: tuple[Region, ...]  # every MMIO region the tile decodes
    registers: dict = Factory(dict)  # region name -> {offset: (name, rw, reset)}
    csrs: dict = Factory(dict)  # number -> Csr
    # RISC-V extensions beyond RV32IM + Zicsr the cores decode (ttemu/riscv/ext.py names
    # them); anything else is an illegal instruction. ``riscv_unmodelled``: major opcode
    # -> the extension the docs list for it that ttemu does not model (stops the run, exit 6).
    riscv_extensions: frozenset = frozenset()
    riscv_unmodelled: dict = Factory(dict)
    # substrings of an ELF's RISC-V arch attribute (beyond ``riscv_arch_hint``) that mark
    # code built for this arch, e.g. an extension only its toolchain emits
    riscv_arch_markers: tuple = ()
    # Tensix backend configuration geometry (BackendConfiguration.md): words per
    # Config bank (CFG_STATE_SIZE*4), ThreadConfig entries per thread (THD_STATE_SIZE),
    # and GLOBAL_CFGREG_BASE_ADDR32 (writes at or above it land in both banks).
    # STALLWAIT condition bits: (bit, kind, argument, label); kinds are answered by
    # Coprocessor.condition(). ``stallwait_default`` replaces a zero condition mask.
    stallwait_conditions: tuple = ()
    stallwait_default: int = 0x7F
    cfg_bank_words: int = 188
    thread_cfg_words: int = 57
    cfg_global_base: int = 152
    # Blackhole maps ConfigDualWrite (one bank's worth of words; a write lands in both
    # banks, a read returns bank 0) between Config[1] and ThreadConfig
    cfg_dual_write: bool = False
    # The Matrix Unit's accumulator renormalises a sum of exactly -1 unit (FP32 Dst) as
    # if it were 28 bits long (Wormhole B0; ttsim's Wormhole model, not its Blackhole one)
    fpu_minus_one_quirk: bool = False
    noc: NocSpec | None = None
    # Tensix instructions whose fields this arch's table names or packs differently from
    # the implementations' parameters (written after the Wormhole ISA pages): mnemonic ->
    # function(fields dict) -> the implementation's keyword arguments (raising
    # Unimplemented for field values it cannot map)
    tensix_field_adapters: dict = Factory(dict)
    tensix_adapt_to: str | None = None  # the arch whose encodings the adapters produce
    # Vector Unit (SFPU) instructions the Wormhole implementations serve on this arch
    # (None: all of them, as on Wormhole itself)
    sfpu_shared: frozenset | None = None
    # Vector Unit instructions whose page on this arch differs from Wormhole's: mnemonic ->
    # the VectorUnit method (``bh_<MNEMONIC>`` ...) that implements this arch's page
    sfpu_variants: dict = Factory(dict)
    # Vector Unit fields this arch's table makes wider than the page's encoding: mnemonic ->
    # {field name: mask of the bits the page gives that operand}
    sfpu_field_masks: dict = Factory(dict)
    # Vector Unit instructions whose "on the next cycle" read rules the hardware enforces
    # itself (automatic stalling) when a thread issues them; SFPLOADMACRO-scheduled ones
    # still leave it to software
    sfpu_interlocked: frozenset = frozenset()
    # width of the instructions' AddrMod field: 2 (an ADDR_MOD slot 0..3, +4 with
    # ExtraAddrModBit / ADDR_MOD_SET_Base) or 3 (the slot 0..7 itself)
    addr_mod_bits: int = 2
    # False when the Tensix implementations (written after the Wormhole pages) may name
    # configuration fields this arch's layout lacks: such a read stops the run as
    # unimplemented, naming the field, instead of failing inside ttemu
    cfg_layout_native: bool = True
    # ZEROACC modes in which its Revert bit (Blackhole: clear_zero_flags) is defined:
    # ZEROACC.md names ONE_ROW (0); elsewhere it is undefined behaviour (a warning)
    zeroacc_revert_modes: frozenset = frozenset({0})
    # Sync Unit mutex indices (ATGETM.md; any other index waits forever)
    mutexes: tuple = (0, 2, 3, 4, 5, 6, 7)
    # STREAMWAIT condition registers (NoC overlay stream register indices of C0, C1);
    # empty where the arch has no STREAMWAIT
    streamwait_regs: tuple = ()
    # the packers (PACR): how many, their configuration, their Dst read interfaces
    packers: PackerSpec = Factory(PackerSpec)
    unpacker: UnpackerSpec = Factory(UnpackerSpec)
    debug_hw: DebugHwSpec = Factory(DebugHwSpec)

    @property
    def local_window(self) -> int:
        """Bytes of address space at ``local_base`` that belong to core-local data RAM
        (the largest core's RAM; a smaller core faults on the rest)."""
        return max(c.local_size for c in self.cores)

    def core(self, name: str) -> CoreSpec:
        for c in self.cores:
            if c.name == name:
                return c
        raise KeyError(name)

    def region(self, name: str) -> Region:
        for r in self.address_map:
            if r.name == name:
                return r
        raise KeyError(name)
