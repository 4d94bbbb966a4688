"""The tile's NoC interfaces (NIU 0 at 0xFFB20000, NIU 1 at 0xFFB30000 on Wormhole).

What firmware reads and writes (register layout and command bits: tt-metal
``noc_parameters.h``; values the chip reports: :class:`ttemu.arch.NocSpec`):

* four command buffers per NIU (``NOC_TARG_ADDR_LO/MID``, ``NOC_RET_ADDR_LO/MID``,
  ``NOC_PACKET_TAG``, ``NOC_CTRL``, ``NOC_AT_LEN_BE``, ``NOC_AT_DATA``), kept as
  written; ``NOC_CMD_CTRL`` reads 0 (ready: a request completes as it is issued) and
  writing 1 issues the buffer's request;
* ``NOC_NODE_ID``, the coordinate translation tables and ``NOC_ID_LOGICAL`` (read
  only, from the arch data); ``NIU_CFG_0`` and ``ROUTER_CFG_*`` (stored);
* the status counters at ``NOC_STATUS(n)`` that firmware polls to know its requests
  are done (write acks, read responses, atomic responses, posted sends).

Requests whose source and destination are this tile (reads, writes, inline writes,
atomic increments) are carried out on L1 and the counters advance as the response
arrives at once. ttemu models one tile: a request to or from any other node stops
the run as unimplemented, naming the node and address; nothing is dropped.
"""

from __future__ import annotations

from ..errors import Unimplemented
from .router import RegisterBank

# NOC_STATUS counter indices (noc_parameters.h)
ATOMIC_RESP_RECEIVED = 0x0
WR_ACK_RECEIVED = 0x1
RD_RESP_RECEIVED = 0x2
POSTED_ATOMIC_SENT = 0x7
NONPOSTED_WR_REQ_SENT = 0xA
POSTED_WR_REQ_SENT = 0xB
STATUS_BASE = 0x200

# NOC_CTRL bits
CMD_AT = 1 << 0
CMD_WR = 1 << 1
CMD_WR_BE = 1 << 2
CMD_WR_INLINE = 1 << 3
CMD_RESP_MARKED = 1 << 4  # non-posted: the request is acknowledged
CMD_BRCST = 1 << 5

AT_INS_INCR_GET = 1
#: command-buffer registers (offsets come from the arch's generated register table)
CMD_REGS = ("targ_addr_lo", "targ_addr_mid", "targ_addr_hi", "ret_addr_lo", "ret_addr_mid", "ret_addr_hi",
            "ctrl", "at_len_be", "at_data", "cmd_ctrl")


class Niu(RegisterBank):
    def __init__(self, tile, region, regs, instance):
        super().__init__(region.name, region.base, regs)
        self.tile = tile
        self.instance = instance
        spec = tile.noc
        self.spec = spec
        gx, gy = spec.grid
        x, y = spec.tile
        self.xy = (x, y) if instance == 0 else (gx - 1 - x, gy - 1 - y)
        at = {name: off for off, name, *_ in regs}
        stride = spec.cmd_buf_stride
        #: command-buffer register -> offset in buffer 0 (``*_hi`` only where the arch has them)
        self.cmd = {r: at[f"noc_{r}[0]"] for r in CMD_REGS if f"noc_{r}[0]" in at}
        self.hooks[at["noc_node_id"]] = (lambda core, addr: self.xy[0] | (self.xy[1] << 6)
                                         | spec.node_id_fields[instance], self._read_only)
        if spec.translate is not None:
            xt, yt = spec.translate[instance]
            for k in range(4):
                self.hooks[at[f"noc_x_id_translate_table_{k}"]] = (lambda core, addr, v=xt[k]: v, self._read_only)
                self.hooks[at[f"noc_y_id_translate_table_{k}"]] = (lambda core, addr, v=yt[k]: v, self._read_only)
        self.hooks[at["noc_id_logical"]] = (lambda core, addr: spec.id_logical, self._read_only)
        for buf in range(4):
            self.hooks[buf * stride + self.cmd["cmd_ctrl"]] = (
                lambda core, addr: 0, lambda core, addr, value, b=buf: self._issue(b, value))

    def _read_only(self, core, addr, value):
        from ..errors import GuestFault

        raise GuestFault(f"write to read-only {self.name} register {self._label(addr - self.base)} "
                         f"at 0x{addr:08x}")

    # -- requests ---------------------------------------------------------------------
    def _cmd(self, buf, name):
        off = self.cmd.get(name)
        return 0 if off is None else self.values.get(buf * self.spec.cmd_buf_stride + off, 0)

    def _count(self, index, n=1):
        off = STATUS_BASE + 4 * index
        self.values[off] = (self.values.get(off, 0) + n) & 0xFFFFFFFF

    def _node(self, coord):
        """A request's 12-bit coordinate -> physical (x, y) on this NoC, through the
        translation tables (identity below 16) where the arch has them."""
        x, y = coord & 0x3F, (coord >> 6) & 0x3F
        if self.spec.translate is None:
            return x, y
        xt, yt = self.spec.translate[self.instance]

        def lookup(table, v):
            return (table[v >> 3] >> (4 * (v & 7))) & 0xF if v < 32 else v

        return lookup(xt, x), lookup(yt, y)

    def _address(self, buf, which):
        """-> (local address, 12-bit node coordinate) of the buffer's target or return
        address: the coordinate sits above ``addr_bits`` of LO|MID (Wormhole) or in the
        HI register (Blackhole)."""
        full = self._cmd(buf, f"{which}_addr_lo") | (self._cmd(buf, f"{which}_addr_mid") << 32)
        if f"{which}_addr_hi" in self.cmd:
            return full, self._cmd(buf, f"{which}_addr_hi") & 0xFFF
        bits = self.spec.addr_bits
        return full & ((1 << bits) - 1), (full >> bits) & 0xFFF

    def _local(self, what, coord, addr):
        node = self._node(coord)
        if node != self.xy:
            raise Unimplemented(f"NoC {self.instance} {what} to node {node} (address 0x{addr:x}) leaves the tile "
                                f"at {self.xy}: ttemu models one tile")

    def _issue(self, buf, value):
        if value != 1:
            raise Unimplemented(f"{self.name}: NOC_CMD_CTRL[{buf}] = 0x{value:x} (only 1, send request, is modelled)")
        ctrl = self._cmd(buf, "ctrl")
        targ, targ_node = self._address(buf, "targ")
        ret, ret_node = self._address(buf, "ret")
        length = self._cmd(buf, "at_len_be")
        acked = bool(ctrl & CMD_RESP_MARKED)
        if ctrl & CMD_BRCST:
            raise Unimplemented(f"NoC {self.instance} multicast (NOC_CTRL 0x{ctrl:x}) leaves the tile: ttemu models "
                                "one tile")
        if ctrl & CMD_AT:
            self._local("atomic", targ_node, targ)
            self._local("atomic response", ret_node, ret)
            ins = (length >> 12) & 0xF
            if ins != AT_INS_INCR_GET:
                raise Unimplemented(f"NoC atomic instruction {ins} (NOC_AT_LEN_BE 0x{length:x}) is not modelled")
            wrap = (length >> 2) & 0x1F
            old = self.tile.read_u32(targ & ~3)
            mask = (2 << wrap) - 1 if wrap < 31 else 0xFFFFFFFF
            new = (old & ~mask) | ((old + self._cmd(buf, "at_data")) & mask)
            self.tile.guest_store(targ & ~3, new)
            self.tile.guest_store(ret & ~3, old)
            self._count(ATOMIC_RESP_RECEIVED if acked else POSTED_ATOMIC_SENT)
        elif ctrl & CMD_WR and ctrl & CMD_WR_INLINE:
            self._local("inline write", targ_node, targ)
            if ctrl & CMD_WR_BE:
                raise Unimplemented("NoC inline write with byte enables (NOC_CMD_WR_BE) is not modelled")
            self.tile.guest_store(targ & ~3, self._cmd(buf, "at_data"))
            self._count_write(acked)
        elif ctrl & CMD_WR:
            self._local("write source", targ_node, targ)
            self._local("write", ret_node, ret)
            if ctrl & CMD_WR_BE:
                raise Unimplemented("NoC write with byte enables (NOC_CMD_WR_BE) is not modelled")
            self.tile.copy_l1(targ, ret, length)
            self._count_write(acked)
        else:
            self._local("read", targ_node, targ)
            self._local("read response", ret_node, ret)
            self.tile.copy_l1(targ, ret, length)
            self._count(RD_RESP_RECEIVED)
        return True

    def _count_write(self, acked):
        if acked:
            self._count(NONPOSTED_WR_REQ_SENT)
            self._count(WR_ACK_RECEIVED)
        else:
            self._count(POSTED_WR_REQ_SENT)
