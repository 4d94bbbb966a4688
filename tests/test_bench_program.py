"""The shared RV32IM benchmark program gives its documented checksum and dynamic
instruction count (shared/bench/README.md: 21,603 + 110,991 x N instructions to
bench_done). Skipped when the shared directory is not beside the checkout."""

import pytest

from oracle_lib import SHARED
from ttemu import Tile

BENCH = SHARED / "bench" / "rv32" / "build" / "bench_tile_n32.elf"


@pytest.mark.skipif(not BENCH.exists(), reason="shared/bench not present")
def test_bench_n32_checksum_and_count():
    tile = Tile()
    tile.load_elf(str(BENCH), start_at_entry=True)
    tile.release(["brisc"])
    done = tile.symbol("bench_done")
    res = tile.run()
    assert res.outcome == "halted"
    assert tile.read_u32(tile.symbol("bench_result")) == 0x5F036018
    # bench_done is followed by the parking jump, which retires once
    assert res.steps == 21_603 + 110_991 * 32 + 1
    assert res.cores["brisc"].pc == done
