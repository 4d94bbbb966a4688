"""The NoC interfaces (ttemu.mmio.noc) and the overlay stream registers
(ttemu.mmio.overlay): what tt-metal firmware reads and the local-tile requests it
issues. Register layout and command bits: tt-metal noc_parameters.h (wormhole)."""

import pytest

from ttemu import Tile
from ttemu.errors import GuestFault, Unimplemented

NOC0, NOC1, OVERLAY = 0xFFB20000, 0xFFB30000, 0xFFB40000
STATUS = 0x200
CTRL_WR, CTRL_RESP, CTRL_AT, CTRL_INLINE, CTRL_BRCST = 1 << 1, 1 << 4, 1 << 0, 1 << 3, 1 << 5


def coord(x, y):
    return x | (y << 6)


def request(tile, base, *, ctrl, targ, targ_xy, ret=0, ret_xy=(1, 1), length=0, data=0, buf=0):
    b = base + buf * 0x400
    w = tile.host_write_u32
    w(b + 0x0, targ & 0xFFFFFFFF)
    w(b + 0x4, (targ >> 32) | (coord(*targ_xy) << 4))  # address bits 32-35, then the coordinate
    w(b + 0xC, ret & 0xFFFFFFFF)
    w(b + 0x10, (ret >> 32) | (coord(*ret_xy) << 4))
    w(b + 0x1C, ctrl)
    w(b + 0x20, length)
    w(b + 0x24, data)
    assert tile.host_read_u32(b + 0x28) == 0  # ready
    w(b + 0x28, 1)


def counter(tile, base, index):
    return tile.host_read_u32(base + STATUS + 4 * index)


def test_node_id_and_tables_describe_a_worker_tile():
    t = Tile("wormhole_b0")
    n0, n1 = t.host_read_u32(NOC0 + 0x2C), t.host_read_u32(NOC1 + 0x2C)
    assert n0 & 0xFFF == coord(1, 1)
    assert n1 & 0xFFF == coord(10 - 1 - 1, 12 - 1 - 1)  # NoC 1 counts from the far corner
    assert (n0 >> 12) & 0x7F == 10 and (n0 >> 19) & 0x7F == 12
    # virtual coordinate 18 translates to physical 1 on NoC 0, both axes
    xt2, yt2 = t.host_read_u32(NOC0 + 0x120), t.host_read_u32(NOC0 + 0x130)
    assert (xt2 >> 8) & 0xF == 1 and (yt2 >> 8) & 0xF == 1
    assert t.host_read_u32(NOC0 + 0x138) == coord(18, 18)
    with pytest.raises(GuestFault, match="read-only"):
        t.host_write_u32(NOC0 + 0x2C, 5)


def test_local_write_copies_l1_and_counts_the_ack():
    t = Tile("wormhole_b0")
    t.write(0x1000, bytes(range(64)))
    request(t, NOC0, ctrl=CTRL_WR | CTRL_RESP, targ=0x1000, targ_xy=(1, 1), ret=0x2000, ret_xy=(18, 18), length=64)
    assert t.read(0x2000, 64) == bytes(range(64))
    assert counter(t, NOC0, 0x1) == 1 and counter(t, NOC0, 0xA) == 1  # write acked, non-posted sent
    request(t, NOC0, ctrl=CTRL_WR, targ=0x1000, targ_xy=(1, 1), ret=0x3000, length=16, buf=1)
    assert counter(t, NOC0, 0xB) == 1 and counter(t, NOC0, 0x1) == 1  # posted: no ack


def test_local_read_inline_write_and_atomic_increment():
    t = Tile("wormhole_b0")
    t.write_u32(0x4000, 0xCAFEF00D)
    request(t, NOC1, ctrl=CTRL_RESP, targ=0x4000, targ_xy=(8, 10), ret=0x5000, ret_xy=(8, 10), length=4)
    assert t.read_u32(0x5000) == 0xCAFEF00D and counter(t, NOC1, 0x2) == 1
    request(t, NOC0, ctrl=CTRL_WR | CTRL_INLINE | CTRL_RESP, targ=0x6000, targ_xy=(1, 1), data=0x1234)
    assert t.read_u32(0x6000) == 0x1234
    t.write_u32(0x7000, 41)
    # NOC_AT_INS_INCR_GET with wrap 31 (a full 32-bit counter), old value returned to 0x7010
    request(t, NOC0, ctrl=CTRL_AT | CTRL_RESP, targ=0x7000, targ_xy=(1, 1), ret=0x7010,
            length=(1 << 12) | (31 << 2), data=1)
    assert t.read_u32(0x7000) == 42 and t.read_u32(0x7010) == 41
    assert counter(t, NOC0, 0x0) == 1


def test_requests_leaving_the_tile_are_reported_not_dropped():
    t = Tile("wormhole_b0")
    with pytest.raises(Unimplemented, match=r"leaves the tile"):
        request(t, NOC0, ctrl=CTRL_WR, targ=0x1000, targ_xy=(1, 1), ret=0x1000, ret_xy=(2, 1), length=32)
    with pytest.raises(Unimplemented, match="multicast"):
        request(t, NOC0, ctrl=CTRL_WR | CTRL_BRCST, targ=0x1000, targ_xy=(1, 1), ret=0x1000, length=32)
    with pytest.raises(Unimplemented, match="only 1"):
        t.host_write_u32(NOC0 + 0x28, 3)


def test_overlay_streams_count_space_available():
    t = Tile("wormhole_b0")
    s5 = OVERLAY + 5 * 0x1000
    t.host_write_u32(s5 + 0x10, 0x20000 | 8)  # size: 17 bits kept, also the space available
    assert t.host_read_u32(s5 + 0x10) == 8 and t.host_read_u32(s5 + 0x100) == 8
    t.host_write_u32(s5 + 0x88, 3 << 6)  # update adds value >> 6
    assert t.host_read_u32(s5 + 0x100) == 11
    t.host_write_u32(s5 + 0x88, ((1 << 17) - 11) << 6)  # wraps modulo 2**17
    assert t.host_read_u32(s5 + 0x100) == 0
    assert t.host_read_u32(OVERLAY + 0x100) == 0  # streams are independent
    with pytest.raises(Unimplemented, match=r"stream 0 register \+0x4"):
        t.host_read_u32(OVERLAY + 0x4)


def test_blackhole_niu_keeps_the_node_in_the_hi_registers():
    """Blackhole: command buffers 0x800 apart, NOC_CMD_CTRL at +0x40, NOC_NODE_ID at
    0x44, the node coordinate in NOC_TARG_ADDR_HI / NOC_RET_ADDR_HI (tt-metal
    blackhole noc_parameters.h); worker tile (1, 2) on a 17 x 12 grid."""
    t = Tile("blackhole")
    base = NOC0 + 0x800  # command buffer 1
    assert t.host_read_u32(NOC0 + 0x44) & 0xFFF == coord(1, 2)
    assert t.host_read_u32(NOC1 + 0x44) & 0xFFF == coord(17 - 1 - 1, 12 - 1 - 2)
    t.write(0x1000, bytes(range(32)))
    for off, v in ((0x0, 0x1000), (0x8, coord(1, 2)), (0xC, 0x2000), (0x14, coord(1, 2)),
                   (0x1C, CTRL_WR | CTRL_RESP), (0x20, 32)):
        t.host_write_u32(base + off, v)
    t.host_write_u32(base + 0x40, 1)
    assert t.read(0x2000, 32) == bytes(range(32))
    assert t.host_read_u32(NOC0 + STATUS + 4) == 1
    t.host_write_u32(base + 0x14, coord(2, 2))
    with pytest.raises(Unimplemented, match=r"node \(2, 2\)"):
        t.host_write_u32(base + 0x40, 1)
    s3 = OVERLAY + 3 * 0x1000  # Blackhole stream register offsets: size 0x28, available 0x4A4
    t.host_write_u32(s3 + 0x28, 16)
    assert t.host_read_u32(s3 + 0x4A4) == 16
