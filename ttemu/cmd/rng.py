"""numpy's ``default_rng(seed).uniform(low, high, n)`` without ``numpy.random``, for a
manifest's generated inputs: the same numbers, bit for bit. Importing numpy.random
costs about 10 ms of CPU a process (it loads OpenSSL among others); generating a
tile's numbers here takes about 0.15 ms. Very large inputs, other generators and
anything unusual use numpy itself.

The algorithms are numpy's (numpy/random/bit_generator.pyx ``SeedSequence``,
numpy/random/src/pcg64 ``PCG64`` with the XSL-RR output, ``next_double`` and
``random_uniform``); tests/test_rng.py compares with numpy on random seeds and ranges.
"""

from __future__ import annotations

import math

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
M128 = (1 << 128) - 1
PCG_MULT = (2549297995355413924 << 64) | 4865540595714422341
#: above this many numbers numpy's own generator is the faster way
MAX_PLAIN = 32768


def seed_sequence_state(seed: int, n_words: int) -> list:
    """``SeedSequence(seed).generate_state(n_words, np.uint32)`` for an int ``seed`` >= 0."""
    entropy = []
    while True:
        entropy.append(seed & M32)
        seed >>= 32
        if not seed:
            break
    hash_const = 0x43B0D7E5

    def hashmix(value):
        nonlocal hash_const
        value ^= hash_const
        hash_const = (hash_const * 0x931E8875) & M32
        value = (value * hash_const) & M32
        return value ^ (value >> 16)

    def mix(x, y):
        r = (0xCA01F9DD * x - 0x4973F715 * y) & M32
        return r ^ (r >> 16)

    pool = [hashmix(entropy[i] if i < len(entropy) else 0) for i in range(4)]
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hashmix(pool[i_src]))
    for i_src in range(4, len(entropy)):
        for i_dst in range(4):
            pool[i_dst] = mix(pool[i_dst], hashmix(entropy[i_src]))
    hash_b = 0x8B51F9DD
    out = []
    for i in range(n_words):
        v = pool[i % 4] ^ hash_b
        hash_b = (hash_b * 0x58F38DED) & M32
        v = (v * hash_b) & M32
        out.append(v ^ (v >> 16))
    return out


def uniform(seed, low, high, n):
    """-> a float64 array of ``n`` numbers equal, bit for bit, to
    ``numpy.random.default_rng(seed).uniform(low, high, n)``, or None when this case is
    left to numpy (a seed that is not an int >= 0, bounds that are not numbers, a range
    that is not finite or has its sign bit set, more than MAX_PLAIN numbers).

    The generator's 128-bit states are stepped with Python ints (the one sequential
    part); the XSL-RR output, ``next_double`` and ``low + range * x`` are whole-array
    numpy operations, each rounding as numpy's C loop does."""
    if type(seed) is not int or seed < 0 or n > MAX_PLAIN:
        return None
    if type(low) not in (int, float) or type(high) not in (int, float):
        return None
    try:
        low = float(low)
        rng = float(high) - low
    except OverflowError:
        return None
    if not math.isfinite(rng) or math.copysign(1.0, rng) < 0:  # numpy refuses these (its test is
        return None  # the sign bit of high - low: a range of -0.0, as high=-0.0, low=0 gives, too)
    import numpy as np

    w = seed_sequence_state(seed, 8)
    w = [w[2 * i] | (w[2 * i + 1] << 32) for i in range(4)]  # four little-endian uint64
    inc = ((((w[2] << 64) | w[3]) << 1) | 1) & M128
    state = inc  # pcg_setseq_128_srandom_r: step from 0, add the initial state, step
    state = (state + ((w[0] << 64) | w[1])) & M128
    state = (state * PCG_MULT + inc) & M128
    states = []
    put = states.append
    for _ in range(n):
        state = (state * PCG_MULT + inc) & M128
        put(state)
    both = np.frombuffer(b"".join([s.to_bytes(16, "little") for s in states]), dtype="<u8").reshape(n, 2)
    lo, hi = both[:, 0].astype(np.uint64), both[:, 1].astype(np.uint64)
    x = hi ^ lo
    rot = hi >> np.uint64(58)
    x = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
    doubles = (x >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)
    return low + rng * doubles
