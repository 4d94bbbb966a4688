"""Both arches' multiply-add (sfpu/fma.py) against ttsim's own models, bit for bit.

ttsim's src/fma.cpp holds ``fma_model_wh`` and ``fma_model_bh``, the bit-perfect models
the SFPMAD pages link (tt-isa-documentation Miscellaneous/FMA/README.md); ttsim runs them
for SFPMAD, SFPADD, SFPMUL, SFPADDI, SFPMULI, SFPLUT and SFPLUTFP32. They are compiled at
test time from the tarball in ../shared (tests/oracle_lib.py) and fed the same triples as
ttemu's three forms: the step-by-step one, the float64 one the instructions run, and the
32-lane one the MAD runners use (on a quarter of the triples). Every kind of tests/fma_operands.py and every pairing of
its special values: 118,048 triples per arch; ``TTEMU_FMA_ROUNDS=N`` runs N such rounds
of other seeds (171 make a campaign of 20 million per arch).
"""

import os

import numpy as np
import pytest

from fma_operands import KINDS, SPECIAL, operands
from oracle_lib import ttsim_fma
from ttemu.tensix.units.sfpu.fma import BLACKHOLE, WORMHOLE, fma, fma_rows_into

RULES = {"wormhole_b0": WORMHOLE, "blackhole": BLACKHOLE}
PER_KIND = 10240  # (a multiple of 32)
ROUNDS = int(os.environ.get("TTEMU_FMA_ROUNDS", "1"))


def _triples(seed):
    rng = np.random.default_rng(seed)
    parts = [operands(rng, kind, PER_KIND) for kind in range(KINDS)]
    gx, gy, gz = np.meshgrid(SPECIAL, SPECIAL, SPECIAL, indexing="ij")  # every pairing of the specials
    x, y, z = (np.concatenate([p[i] for p in parts] + [g.ravel()]) for i, g in enumerate((gx, gy, gz)))
    pad = -x.size % 32
    return tuple(np.concatenate([v, v[:pad]]) for v in (x, y, z))


def _mismatches(x, y, z, got, want):
    bad = np.nonzero(got != want)[0]
    return [(hex(x[i]), hex(y[i]), hex(z[i]), hex(got[i]), hex(want[i])) for i in bad[:5]]


@pytest.mark.parametrize("arch", ["wormhole_b0", "blackhole"])
def test_every_form_matches_ttsim_model(arch):
    model = ttsim_fma(arch)
    rules = RULES[arch]
    run = fma_rows_into(32, rules)
    for r in range(ROUNDS):
        x, y, z = _triples((2026 if arch == "blackhole" else 22) + 1000 * r)
        assert x.size >= 100_000
        want = model(x, y, z)
        assert not _mismatches(x, y, z, rules.plain(x, y, z), want)
        assert not _mismatches(x, y, z, fma(x, y, z, rules), want)
        w = np.stack((x, y, z))
        for i in range(0, x.size, 128):  # (a quarter of the lanes: test_sfpu_fma_fast.py pins it to the plain form)
            lanes = slice(i, i + 32)
            assert not _mismatches(x[lanes], y[lanes], z[lanes], run(np.ascontiguousarray(w[:, lanes])), want[lanes])


def test_wormhole_differs_from_a_complete_fusion_as_ttsim_does():
    """ttsim's fma_model_wh on the cases the differential fuzzer found (issue 22):
    ``0x3f479e84 * 0x3f479e84 + 0xb3484880`` is 0x3f1ba7d2 (a completely fused
    multiply-add rounds the exact value to 0x3f1ba7d3: the product keeps 26 fraction
    bits), ``+Inf * 1 + -Inf`` is 0x7f800001 and SFPMULI's ``BF16(0x3b24) * 0xffffff78 +
    0`` is 0xffa3ffa9 (NaN payloads: the computation goes on with the NaN's fields)."""
    model = ttsim_fma("wormhole_b0")
    x = np.array([0x3F479E84, 0x7F800000, 0x3B240000], dtype=np.uint32)
    y = np.array([0x3F479E84, 0x3F800000, 0xFFFFFF78], dtype=np.uint32)
    z = np.array([0xB3484880, 0xFF800000, 0], dtype=np.uint32)
    want = [0x3F1BA7D2, 0x7F800001, 0xFFA3FFA9]
    assert list(model(x, y, z)) == want
    assert list(fma(x, y, z, WORMHOLE)) == want == list(WORMHOLE.plain(x, y, z))
    exact = np.float32(x[:1].view(np.float32).astype(np.float64) ** 2 + z[:1].view(np.float32).astype(np.float64))
    assert exact.view(np.uint32)[0] == 0x3F1BA7D3
