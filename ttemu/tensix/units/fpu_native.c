/* The Matrix Unit's floating-point datapath for the 8-bit-exponent Src styles (BF16,
 * TF32) into a BF16 (Dst16) or FP32 (Dst32) Dst, compiled: MVMUL / DOTPV / GAPOOL and
 * ELWADD / ELWSUB / ELWMUL, one instruction after the other, in integers.
 *
 * The same numbers as ttemu/tensix/units/fpu_datapath.py (dot / elw_add / elw_mul, then
 * accumulate) and as the numpy forms of fpu_fused.py, which stay the pure-Python path
 * when this module is not built (tests/test_fpu_native.py compares them bit for bit).
 * See fpu_datapath.py's docstring for the datapath: products of one fidelity phase
 * summed per group of 8 aligned to their largest exponent (each rounded half away from
 * zero), the partial sums and the Dst value aligned to the largest exponent and rounded
 * to the Dst precision.
 *
 * Dst is DstBits (uint16 [1024][16], Dst.md): a Dst16 BF16 value is sign[15] man7[14:8]
 * exp8[7:0]; a Dst32 row's high half is such a pattern and its low half the 16 low
 * mantissa bits, 8 DstBits rows further. The caller gives the first DstBits row of
 * the block (the rows are plain slices: no remapping, no aliasing). Src banks are
 * uint32 [64][16] holding 19-bit patterns: sign[18] man10[17:8] exp8[7:0].
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define ZERO_EXP (-100000) /* the exponent of a zero operand: any sum with it is <= 0 */

/* One operand: signed fidelity bits and exponent (ZERO_EXP for a zero). */
typedef struct {
    int32_t v;
    int32_t e;
} operand;

static inline int32_t src_man(uint32_t x, int bf16)
{
    int32_t man = (int32_t)(((x >> 8) & 0x3FF) | 0x400);
    return bf16 ? (man & 0x7F8) : man;
}

/* SrcA's five bits of fidelity part ``part`` (SrcASrcB.md). */
static inline int32_t srca_bits(int32_t man, int part) { return part ? (man >> 1) & 31 : man >> 6; }

/* SrcB's seven bits of fidelity part ``part``. */
static inline int32_t srcb_bits(int32_t man, int part) { return part ? (man & 15) << 3 : man >> 4; }

static inline operand decode(uint32_t x, int bf16, int is_a, int part)
{
    operand o;
    x &= 0x7FFFF;
    int32_t e = (int32_t)(x & 0xFF);
    if (e == 0) {
        o.v = 0;
        o.e = ZERO_EXP;
        return o;
    }
    int32_t man = src_man(x, bf16);
    int32_t bits = is_a ? srca_bits(man, part) : srcb_bits(man, part);
    o.v = (x >> 18) ? -bits : bits;
    o.e = e;
    return o;
}

static inline int bitlen(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

/* ``use32`` everywhere: 0 a 16-bit Dst; DST32_QUIRK a 32-bit Dst whose accumulator
 * renormalises a sum of exactly -1 unit as if 28 bits long (Wormhole:
 * ArchSpec.fpu_minus_one_quirk); DST32_EXACT a 32-bit Dst without it (Blackhole). */
#define DST32_QUIRK 1
#define DST32_EXACT 2

/* A ``use32`` argument (0, 1 or 2; False / True as 0 / 1) -> the mode, or -1 with an
 * exception set. */
static int dst_mode(PyObject *o)
{
    long m = PyLong_AsLong(o);
    if (m == -1 && PyErr_Occurred())
        return -1;
    if (m < 0 || m > DST32_EXACT) {
        PyErr_SetString(PyExc_ValueError, "use32: 0 (Dst16), 1 (Dst32, Wormhole's -1 quirk) or 2 (Dst32)");
        return -1;
    }
    return (int)m;
}

/* fpu_datapath.accumulate for one element: the Dst value (ed, ds: exponent, twice the
 * signed 24-bit mantissa) plus ``nt`` partial sums (et, vt) -> FP32-layout bits. In
 * int32: every value is below 2**30 in magnitude (|ds| < 2**25, |vt| < 2**29), so an
 * alignment by 31 places gives what the reference's 41 give (0, or -1 below zero), and
 * normalising to 24 bits needs a rounding shift only when the sum is longer. */
static inline uint32_t accumulate(int nt, const int32_t *et, const int32_t *vt, int32_t ed, int32_t ds, int use32)
{
    int32_t emax = ed;
    for (int i = 0; i < nt; ++i)
        if (et[i] > emax)
            emax = et[i];
    int32_t neg = ds < 0 ? -1 : 0;
    int32_t d1 = emax + 1 - ed;
    if (d1 > 31)
        d1 = 31;
    int32_t total = (int32_t)(((int64_t)ds + ((int64_t)1 << (d1 - 1)) + neg) >> d1);
    if (!use32)
        total = (total + 4096 + neg) & ~0x1FFF;
    for (int i = 0; i < nt; ++i) {
        int64_t d = (int64_t)emax + 1 - et[i];
        if (d > 31)
            d = 31;
        int32_t v = (int32_t)(((int64_t)vt[i] + ((int64_t)1 << (d - 1))) >> d);
        if (!use32)
            v = (v + 4096) & ~0x1FFF;
        total += v;
    }
    if (total == 0)
        return 0;
    uint32_t mag = (uint32_t)(total < 0 ? -total : total);
    int nb = 32 - __builtin_clz(mag);
    if (use32 == DST32_QUIRK && total == -1)
        nb = 28; /* -1 renormalises as if 28 bits long (Wormhole) */
    int k = use32 ? nb : nb + 16;
    uint32_t man;
    if (k <= 24)
        man = mag << (24 - k); /* exact */
    else
        man = (uint32_t)(((uint64_t)mag + ((uint64_t)1 << (k - 25))) >> (k - 24));
    if (!use32)
        man <<= 16;
    int32_t e = emax + nb + (int32_t)(man >> 24) - 24;
    if (emax <= 0 || e <= 0)
        return 0;
    man &= 0x7FFFFF;
    uint32_t out = e >= 255 ? (255u << 23) : (((uint32_t)e << 23) | man);
    if (total < 0)
        out |= 0x80000000u;
    return out;
}

/* Dst element ``hi`` (``lo``: the Dst32 low half, 0 for Dst16) -> (ed, ds). */
static inline void dst_decode(uint32_t hi, uint32_t lo, int32_t *ed, int32_t *ds)
{
    *ed = hi & 0xFF;
    if (*ed == 0) {
        *ds = 0;
        return;
    }
    int32_t mant = (1 << 23) | ((int32_t)((hi >> 8) & 0x7F) << 16) | (int32_t)lo;
    *ds = (hi & 0x8000) ? -2 * mant : 2 * mant;
}

/* FP32-layout bits -> the Dst16 pattern of their high half (BF16 -> sign, man7, exp8). */
static inline uint16_t shuf_bf16(uint32_t out)
{
    return (uint16_t)(((out >> 31) << 15) | (((out >> 16) & 0x7F) << 8) | ((out >> 23) & 0xFF));
}

static inline void dst_accumulate(uint16_t *hi, uint16_t *lo, int nt, const int32_t *et, const int32_t *vt,
                                  int add_dst, int use32)
{
    int32_t ed = 0, ds = 0;
    if (add_dst)
        dst_decode(*hi, use32 ? *lo : 0, &ed, &ds);
    uint32_t out = accumulate(nt, et, vt, ed, ds, use32);
    *hi = shuf_bf16(out);
    if (use32)
        *lo = (uint16_t)(out & 0xFFFF);
}

/* decode() of ``rows`` rows of 16 Src values, without branches (written once, compiled
 * twice: decode_rows, and decode_rows_avx2 below). */
static inline __attribute__((always_inline)) void decode_body(const uint32_t *x, int rows, int bf16, int is_a,
                                                              int part, int32_t *v, int32_t *e)
{
    int32_t mmask = bf16 ? 0x7F8 : 0x7FF;
    for (int q = 0; q < rows * 16; ++q) {
        uint32_t y = x[q];
        int32_t ex = (int32_t)(y & 0xFF);
        int32_t man = (int32_t)(((y >> 8) & 0x3FF) | 0x400) & mmask;
        int32_t bits = is_a ? (part ? (man >> 1) & 31 : man >> 6) : (part ? (man & 15) << 3 : man >> 4);
        int32_t sign = -(int32_t)((y >> 18) & 1);
        bits = (bits ^ sign) - sign;
        v[q] = ex ? bits : 0;
        e[q] = ex ? ex : ZERO_EXP;
    }
}

static void decode_rows(const uint32_t *x, int rows, int bf16, int is_a, int part, int32_t *v, int32_t *e)
{
    decode_body(x, rows, bf16, is_a, part, v, e);
}

/* The two partial sums (groups k = 0..7, 8..15) of each of the 16 outputs of SrcB row
 * ``vb``/``eb`` (16 signed fidelity bits and exponents) times SrcA ``va``/``ea`` [k][j]:
 * per group, the products' mantissas m aligned d places below the group's largest
 * exponent ``emx`` and rounded half away from zero, (2m + 2**d - [m < 0]) >> (d + 1) (d
 * capped at 13, where every |m| < 2**12 gives 0), summed exactly. */
static void products(const int32_t (*va)[16], const int32_t (*ea)[16], const int32_t *vb, const int32_t *eb,
                     int32_t (*emx)[16], int32_t (*sum)[16])
{
    for (int g = 0; g < 2; ++g) {
        for (int j = 0; j < 16; ++j) {
            int32_t mx = 2 * ZERO_EXP;
            for (int k = 8 * g; k < 8 * g + 8; ++k) {
                int32_t e = ea[k][j] + eb[k];
                mx = e > mx ? e : mx;
            }
            int32_t sm = 0;
            for (int k = 8 * g; k < 8 * g + 8; ++k) {
                int32_t m = va[k][j] * vb[k];
                int32_t d = mx - (ea[k][j] + eb[k]);
                d = d < 13 ? d : 13;
                sm += (2 * m + (1 << d) - (m < 0)) >> (d + 1);
            }
            emx[g][j] = mx;
            sum[g][j] = sm;
        }
    }
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>
#define HAVE_AVX2_FORM 1

/* products() on 8 lanes at a time (AVX2: per-lane shifts), chosen at run time where
 * the CPU has AVX2 (the same integers). */
__attribute__((target("avx2"))) static void products_avx2(const int32_t (*va)[16], const int32_t (*ea)[16],
                                                         const int32_t *vb, const int32_t *eb, int32_t (*emx)[16],
                                                         int32_t (*sum)[16])
{
    const __m256i one = _mm256_set1_epi32(1), thirteen = _mm256_set1_epi32(13);
    for (int g = 0; g < 2; ++g) {
        for (int h = 0; h < 16; h += 8) {
            __m256i mx = _mm256_set1_epi32(2 * ZERO_EXP);
            for (int k = 8 * g; k < 8 * g + 8; ++k) {
                __m256i e = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)&ea[k][h]), _mm256_set1_epi32(eb[k]));
                mx = _mm256_max_epi32(mx, e);
            }
            __m256i sm = _mm256_setzero_si256();
            for (int k = 8 * g; k < 8 * g + 8; ++k) {
                __m256i m = _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i *)&va[k][h]), _mm256_set1_epi32(vb[k]));
                __m256i e = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)&ea[k][h]), _mm256_set1_epi32(eb[k]));
                __m256i d = _mm256_min_epi32(_mm256_sub_epi32(mx, e), thirteen);
                __m256i t = _mm256_add_epi32(_mm256_add_epi32(m, m), _mm256_sllv_epi32(one, d));
                t = _mm256_add_epi32(t, _mm256_srai_epi32(m, 31));
                sm = _mm256_add_epi32(sm, _mm256_srav_epi32(t, _mm256_add_epi32(d, one)));
            }
            _mm256_storeu_si256((__m256i *)&emx[g][h], mx);
            _mm256_storeu_si256((__m256i *)&sum[g][h], sm);
        }
    }
}
#endif

#ifdef HAVE_AVX2_FORM
__attribute__((target("avx2"))) static void decode_rows_avx2(const uint32_t *x, int rows, int bf16, int is_a,
                                                            int part, int32_t *v, int32_t *e)
{
    decode_body(x, rows, bf16, is_a, part, v, e);
}
#endif

typedef void (*decode_fn)(const uint32_t *, int, int, int, int, int32_t *, int32_t *);
static decode_fn decode_best = decode_rows;

typedef void (*products_fn)(const int32_t (*)[16], const int32_t (*)[16], const int32_t *, const int32_t *,
                            int32_t (*)[16], int32_t (*)[16]);
static products_fn products_best = products;

/* One Dst row (16 elements; ``hi`` the Dst16 / high halves, ``lo`` the Dst32 low halves)
 * (+)= ``nt`` partial sums per element, ``et`` / ``vt`` [nt][16]. */
static void accumulate_row(uint16_t *hi, uint16_t *lo, int nt, const int32_t (*et)[16], const int32_t (*vt)[16],
                           int add_dst, int use32)
{
    for (int j = 0; j < 16; ++j) {
        int32_t e[2], v[2];
        for (int q = 0; q < nt; ++q) {
            e[q] = et[q][j];
            v[q] = vt[q][j];
        }
        dst_accumulate(hi + j, lo + j, nt, e, v, add_dst, use32);
    }
}

#ifdef HAVE_AVX2_FORM
/* The eight 32-bit lanes of ``x`` (each 0..65535) to p[0..7] as uint16. */
__attribute__((target("avx2"))) static inline void store8_u16(uint16_t *p, __m256i x)
{
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(x, x), 0x08); /* lanes 0-3, 4-7 */
    _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(packed));
}

/* accumulate() on 8 lanes: (x + 2**(d - 1) [+ neg]) >> d, d capped at 31. */
__attribute__((target("avx2"))) static inline __m256i align8(__m256i x, __m256i emax1, __m256i e, __m256i neg)
{
    __m256i d = _mm256_min_epi32(_mm256_sub_epi32(emax1, e), _mm256_set1_epi32(31));
    __m256i half = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_sub_epi32(d, _mm256_set1_epi32(1)));
    return _mm256_srav_epi32(_mm256_add_epi32(_mm256_add_epi32(x, half), neg), d);
}

__attribute__((target("avx2"))) static void accumulate_row_avx2(uint16_t *hi, uint16_t *lo, int nt,
                                                               const int32_t (*et)[16], const int32_t (*vt)[16],
                                                               int add_dst, int use32)
{
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    const __m256i round16 = _mm256_set1_epi32(4096), mask16 = _mm256_set1_epi32(~0x1FFF);
    for (int h = 0; h < 16; h += 8) {
        __m256i ed = zero, ds = zero;
        if (add_dst) {
            __m256i x = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(hi + h)));
            __m256i l = use32 ? _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(lo + h))) : zero;
            ed = _mm256_and_si256(x, _mm256_set1_epi32(0xFF));
            __m256i mant = _mm256_or_si256(
                _mm256_or_si256(_mm256_set1_epi32(1 << 23),
                                _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(x, 8), _mm256_set1_epi32(0x7F)), 16)),
                l);
            __m256i sgn = _mm256_cmpeq_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x8000)), _mm256_set1_epi32(0x8000));
            __m256i v = _mm256_add_epi32(mant, mant);
            v = _mm256_sub_epi32(_mm256_xor_si256(v, sgn), sgn);
            ds = _mm256_andnot_si256(_mm256_cmpeq_epi32(ed, zero), v);
        }
        __m256i e0 = _mm256_loadu_si256((const __m256i *)&et[0][h]), v0 = _mm256_loadu_si256((const __m256i *)&vt[0][h]);
        __m256i emax = _mm256_max_epi32(ed, e0);
        __m256i e1 = zero, v1 = zero;
        if (nt == 2) {
            e1 = _mm256_loadu_si256((const __m256i *)&et[1][h]);
            v1 = _mm256_loadu_si256((const __m256i *)&vt[1][h]);
            emax = _mm256_max_epi32(emax, e1);
        }
        __m256i emax1 = _mm256_add_epi32(emax, one);
        __m256i neg = _mm256_srai_epi32(ds, 31);
        __m256i total = align8(ds, emax1, ed, neg);
        __m256i t0 = align8(v0, emax1, e0, zero);
        __m256i t1 = nt == 2 ? align8(v1, emax1, e1, zero) : zero;
        if (!use32) {
            total = _mm256_and_si256(_mm256_add_epi32(_mm256_add_epi32(total, round16), neg), mask16);
            t0 = _mm256_and_si256(_mm256_add_epi32(t0, round16), mask16);
            if (nt == 2)
                t1 = _mm256_and_si256(_mm256_add_epi32(t1, round16), mask16);
        }
        total = _mm256_add_epi32(_mm256_add_epi32(total, t0), t1);
        __m256i mag = _mm256_abs_epi32(total);
        /* bit length: the float exponent of mag, less one where rounding carried it up */
        __m256i fe = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(mag)), 23);
        __m256i ebit = _mm256_sub_epi32(fe, _mm256_set1_epi32(127));
        __m256i up = _mm256_cmpgt_epi32(_mm256_sllv_epi32(one, ebit), mag);
        __m256i nb = _mm256_add_epi32(_mm256_add_epi32(ebit, one), up); /* up is -1 where true */
        if (use32 == DST32_QUIRK)
            nb = _mm256_blendv_epi8(nb, _mm256_set1_epi32(28), _mm256_cmpeq_epi32(total, _mm256_set1_epi32(-1)));
        __m256i k = use32 ? nb : _mm256_add_epi32(nb, _mm256_set1_epi32(16));
        __m256i k24 = _mm256_sub_epi32(k, _mm256_set1_epi32(24));
        __m256i shl = _mm256_max_epi32(_mm256_sub_epi32(zero, k24), zero);
        __m256i shr = _mm256_max_epi32(k24, zero);
        __m256i add = _mm256_sllv_epi32(one, _mm256_sub_epi32(k24, one)); /* 0 where k <= 24 (count >= 32) */
        __m256i man = _mm256_srlv_epi32(_mm256_add_epi32(_mm256_sllv_epi32(mag, shl), add), shr);
        if (!use32)
            man = _mm256_slli_epi32(man, 16);
        __m256i e = _mm256_add_epi32(_mm256_add_epi32(emax, nb), _mm256_sub_epi32(_mm256_srli_epi32(man, 24),
                                                                                    _mm256_set1_epi32(24)));
        __m256i isz = _mm256_or_si256(_mm256_cmpeq_epi32(total, zero),
                                      _mm256_or_si256(_mm256_cmpgt_epi32(one, emax), _mm256_cmpgt_epi32(one, e)));
        man = _mm256_and_si256(man, _mm256_set1_epi32(0x7FFFFF));
        __m256i over = _mm256_cmpgt_epi32(e, _mm256_set1_epi32(254));
        __m256i out = _mm256_blendv_epi8(_mm256_or_si256(_mm256_slli_epi32(e, 23), man), _mm256_set1_epi32(255 << 23),
                                         over);
        out = _mm256_or_si256(out, _mm256_and_si256(total, _mm256_set1_epi32((int32_t)0x80000000u)));
        out = _mm256_andnot_si256(isz, out);
        __m256i oh = _mm256_or_si256(
            _mm256_or_si256(_mm256_slli_epi32(_mm256_srli_epi32(out, 31), 15),
                            _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(out, 16), _mm256_set1_epi32(0x7F)), 8)),
            _mm256_and_si256(_mm256_srli_epi32(out, 23), _mm256_set1_epi32(0xFF)));
        store8_u16(hi + h, oh);
        if (use32)
            store8_u16(lo + h, _mm256_and_si256(out, _mm256_set1_epi32(0xFFFF)));
    }
}
#endif

typedef void (*accumulate_fn)(uint16_t *, uint16_t *, int, const int32_t (*)[16], const int32_t (*)[16], int, int);
static accumulate_fn accumulate_best = accumulate_row;

/* One MVMUL: Dst rows (DstBits row r..r+n, low halves 8 further with use32) += SrcB
 * rows brow..brow+n @ SrcA rows arow..arow+16, fidelity phase ``phase``. */
static void mvmul_job(uint16_t *dst, const uint32_t *A, const uint32_t *B, int arow, int brow, int n, int r,
                      int phase, int bf16, int use32)
{
    int32_t va[16][16], ea[16][16], vb[8][16], eb[8][16];
    int pa = phase & 1, pb = (phase >> 1) & 1;
    decode_best(A + arow * 16, 16, bf16, 1, pa, &va[0][0], &ea[0][0]);
    decode_best(B + brow * 16, n, bf16, 0, pb, &vb[0][0], &eb[0][0]);
    int32_t adj = -127 - (pa ? 5 : 0) - (pb ? 7 : 0);
    for (int i = 0; i < n; ++i) {
        int32_t emx[2][16], sum[2][16];
        products_best((const int32_t(*)[16])va, (const int32_t(*)[16])ea, vb[i], eb[i], emx, sum);
        for (int g = 0; g < 2; ++g)
            for (int j = 0; j < 16; ++j) {
                int32_t esop = emx[g][j] + adj;
                emx[g][j] = esop;
                sum[g][j] = esop <= 0 ? 0 : sum[g][j] * 16384;
            }
        uint16_t *hi = dst + (r + i) * 16;
        accumulate_best(hi, hi + 8 * 16, 2, emx, sum, 1, use32);
    }
}

#ifdef HAVE_AVX2_FORM
/* mvmul_job on 8 lanes at a time (AVX2), the same integers: products() with each group's
 * exponents summed once, the products as pmaddwd of 16-bit halves (|SrcA bits| < 2**5,
 * |SrcB bits| < 2**7: the SrcB operand's high half is zero, so the SrcA operand's sign-
 * extension high half adds nothing), and the sums scaled and zeroed by their exponent
 * (esop <= 0) in the same registers. */
__attribute__((target("avx2"))) static void mvmul_job_avx2(uint16_t *dst, const uint32_t *A, const uint32_t *B,
                                                          int arow, int brow, int n, int r, int phase, int bf16,
                                                          int use32)
{
    int32_t va[16][16] __attribute__((aligned(32))), ea[16][16] __attribute__((aligned(32)));
    int32_t vb[8][16], eb[8][16];
    int pa = phase & 1, pb = (phase >> 1) & 1;
    decode_rows_avx2(A + arow * 16, 16, bf16, 1, pa, &va[0][0], &ea[0][0]);
    decode_rows_avx2(B + brow * 16, n, bf16, 0, pb, &vb[0][0], &eb[0][0]);
    const __m256i adj = _mm256_set1_epi32(-127 - (pa ? 5 : 0) - (pb ? 7 : 0));
    const __m256i one = _mm256_set1_epi32(1), thirteen = _mm256_set1_epi32(13), zero = _mm256_setzero_si256();
    for (int i = 0; i < n; ++i) {
        int32_t emx[2][16] __attribute__((aligned(32))), sum[2][16] __attribute__((aligned(32)));
        for (int g = 0; g < 2; ++g) {
            __m256i ebk[8], vbk[8];
#pragma GCC unroll 8
            for (int q = 0; q < 8; ++q) {
                ebk[q] = _mm256_set1_epi32(eb[i][8 * g + q]);
                vbk[q] = _mm256_set1_epi32(vb[i][8 * g + q] & 0xFFFF);
            }
            for (int h = 0; h < 16; h += 8) {
                __m256i e[8];
                __m256i mx = _mm256_set1_epi32(2 * ZERO_EXP);
#pragma GCC unroll 8
                for (int q = 0; q < 8; ++q) {
                    e[q] = _mm256_add_epi32(_mm256_load_si256((const __m256i *)&ea[8 * g + q][h]), ebk[q]);
                    mx = _mm256_max_epi32(mx, e[q]);
                }
                __m256i sm = zero;
#pragma GCC unroll 8
                for (int q = 0; q < 8; ++q) {
                    __m256i m = _mm256_madd_epi16(_mm256_load_si256((const __m256i *)&va[8 * g + q][h]), vbk[q]);
                    __m256i d = _mm256_min_epi32(_mm256_sub_epi32(mx, e[q]), thirteen);
                    __m256i t = _mm256_add_epi32(_mm256_add_epi32(m, m), _mm256_sllv_epi32(one, d));
                    t = _mm256_add_epi32(t, _mm256_srai_epi32(m, 31));
                    sm = _mm256_add_epi32(sm, _mm256_srav_epi32(t, _mm256_add_epi32(d, one)));
                }
                __m256i esop = _mm256_add_epi32(mx, adj);
                _mm256_store_si256((__m256i *)&emx[g][h], esop);
                _mm256_store_si256((__m256i *)&sum[g][h],
                                   _mm256_and_si256(_mm256_cmpgt_epi32(esop, zero), _mm256_slli_epi32(sm, 14)));
            }
        }
        uint16_t *hi = dst + (r + i) * 16;
        accumulate_row_avx2(hi, hi + 8 * 16, 2, (const int32_t(*)[16])emx, (const int32_t(*)[16])sum, 1, use32);
    }
}
#endif

typedef void (*mvmul_fn)(uint16_t *, const uint32_t *, const uint32_t *, int, int, int, int, int, int, int);
static mvmul_fn mvmul_best = mvmul_job;

/* ELWADD / ELWSUB (kind 0 / 1) or ELWMUL (2) on the 8 Dst rows at DstBits row r. */
static void elw_job(uint16_t *dst, const uint32_t *A, const uint32_t *B, int arow, int brow, int r, int phase,
                    int kind, int add_dst, int bcast_row, int bcast_col0, int bf16, int use32)
{
    int32_t adj = -127 - ((phase & 1) ? 5 : 0) - ((phase & 2) ? 7 : 0);
    for (int i = 0; i < 8; ++i) {
        int32_t ets[1][16], vts[1][16];
        for (int j = 0; j < 16; ++j) {
            uint32_t x = A[(arow + i) * 16 + j] & 0x7FFFF;
            uint32_t y = B[(brow + (bcast_row ? 0 : i)) * 16 + (bcast_col0 ? 0 : j)] & 0x7FFFF;
            int32_t ea = (int32_t)(x & 0xFF), eb = (int32_t)(y & 0xFF);
            int32_t sa = (int32_t)(x >> 18), sb = (int32_t)(y >> 18);
            int32_t ma = ea ? src_man(x, bf16) : 0, mb = eb ? src_man(y, bf16) : 0;
            int32_t et, vt;
            if (kind == 2) {
                int32_t e = ea + eb + adj;
                if (!ea || !eb || e <= 0) {
                    et = 0;
                    vt = 0;
                } else {
                    int32_t man = srca_bits(ma, phase & 1) * srcb_bits(mb, (phase >> 1) & 1) * 16384;
                    et = e;
                    vt = sa == sb ? man : -man;
                }
            } else {
                if (kind == 1)
                    sb ^= 1;
                int32_t ka = (ea << 10) | (ma & 0x3FF), kb = (eb << 10) | (mb & 0x3FF);
                if (ka < kb) {
                    int32_t t;
                    t = sa; sa = sb; sb = t;
                    t = ea; ea = eb; eb = t;
                    t = ma; ma = mb; mb = t;
                }
                int32_t d = ea - eb;
                if (d >= 12)
                    mb = 0;
                else if (d > 0)
                    mb = (mb + (1 << (d - 1))) >> d;
                int32_t man = (sa == sb ? ma + mb : ma - mb) * 16384;
                et = ea - ((phase & 1) ? 5 : 0) - ((phase & 2) ? 7 : 0);
                vt = sa == 1 ? -man : man;
            }
            ets[0][j] = et;
            vts[0][j] = vt;
        }
        uint16_t *hi = dst + (r + i) * 16;
        accumulate_best(hi, hi + 8 * 16, 1, ets, vts, add_dst, use32);
    }
}

/* Buffers ------------------------------------------------------------------------------- */

static int get_buf(PyObject *obj, Py_buffer *view, int writable, Py_ssize_t need, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    if (view->len < need) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, %zd needed", what, view->len, need);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Dst (written), SrcA and SrcB of a call, held while its jobs run. */
typedef struct {
    Py_buffer d, a, b;
} Operands;

static int get_operands(PyObject *const *args, Operands *o)
{
    if (get_buf(args[0], &o->d, 1, 1024 * 16 * 2, "dst") < 0)
        return -1;
    if (get_buf(args[1], &o->a, 0, 64 * 16 * 4, "srca") < 0) {
        PyBuffer_Release(&o->d);
        return -1;
    }
    if (get_buf(args[2], &o->b, 0, 64 * 16 * 4, "srcb") < 0) {
        PyBuffer_Release(&o->a);
        PyBuffer_Release(&o->d);
        return -1;
    }
    return 0;
}

static void release_operands(Operands *o)
{
    PyBuffer_Release(&o->b);
    PyBuffer_Release(&o->a);
    PyBuffer_Release(&o->d);
}

/* One job (five int32 fields, see mvmul / elw below) applied to the operands; -1 (no
 * exception set) when its fields are out of range, nothing done. */
typedef int (*JobFn)(Operands *o, const int32_t *jb, int bf16, int use32);

static int mvmul_checked(Operands *o, const int32_t *jb, int bf16, int use32)
{
    int arow = jb[0], brow = jb[1], rows = jb[2], r = jb[3], phase = jb[4];
    int span = use32 ? 8 + rows : rows;
    if (arow < 0 || arow + 16 > 64 || brow < 0 || rows < 1 || rows > 8 || brow + rows > 64 || r < 0 ||
        r + span > 1024 || phase < 0 || phase > 3)
        return -1;
    mvmul_best((uint16_t *)o->d.buf, (const uint32_t *)o->a.buf, (const uint32_t *)o->b.buf, arow, brow, rows, r,
              phase, bf16, use32);
    return 0;
}

static int elw_checked(Operands *o, const int32_t *jb, int bf16, int use32)
{
    int arow = jb[0], brow = jb[1], r = jb[2], phase = jb[3], flags = jb[4];
    int kind = flags & 3, bcast_row = (flags >> 3) & 1;
    if (arow < 0 || arow + 8 > 64 || brow < 0 || brow + (bcast_row ? 1 : 8) > 64 || r < 0 ||
        r + (use32 ? 16 : 8) > 1024 || phase < 0 || phase > 3 || kind == 3)
        return -1;
    elw_job((uint16_t *)o->d.buf, (const uint32_t *)o->a.buf, (const uint32_t *)o->b.buf, arow, brow, r, phase, kind,
            (flags >> 2) & 1, bcast_row, (flags >> 4) & 1, bf16, use32);
    return 0;
}

/* NAME(dst, srca, srcb, jobs, bf16, use32): ``jobs`` an int32 buffer of [n][5], applied
 * in order (a job out of range stops there, with a ValueError naming it). */
static PyObject *run_jobs(PyObject *const *args, Py_ssize_t nargs, JobFn fn, const char *name)
{
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "%s(dst, srca, srcb, jobs, bf16, use32)", name);
        return NULL;
    }
    int bf16 = PyObject_IsTrue(args[4]), use32 = dst_mode(args[5]);
    if (bf16 < 0 || use32 < 0)
        return NULL;
    Operands o;
    if (get_operands(args, &o) < 0)
        return NULL;
    Py_buffer j;
    if (get_buf(args[3], &j, 0, 0, "jobs") < 0) {
        release_operands(&o);
        return NULL;
    }
    const int32_t *jobs = (const int32_t *)j.buf;
    Py_ssize_t n = j.len / (5 * 4);
    int ok = 1;
    for (Py_ssize_t q = 0; q < n && ok; ++q)
        if (fn(&o, jobs + 5 * q, bf16, use32) < 0) {
            PyErr_Format(PyExc_ValueError, "%s job %zd out of range", name, q);
            ok = 0;
        }
    PyBuffer_Release(&j);
    release_operands(&o);
    if (!ok)
        return NULL;
    Py_RETURN_NONE;
}

/* NAME(dst, srca, srcb, f0, f1, f2, f3, f4, bf16, use32): one job, its five fields as
 * arguments. */
static PyObject *run_one(PyObject *const *args, Py_ssize_t nargs, JobFn fn, const char *name)
{
    if (nargs != 10) {
        PyErr_Format(PyExc_TypeError, "%s(dst, srca, srcb, five job fields, bf16, use32)", name);
        return NULL;
    }
    int32_t jb[5];
    for (int i = 0; i < 5; ++i) {
        long v = PyLong_AsLong(args[3 + i]);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        if (v < INT32_MIN || v > INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "%s: operands out of range", name);
            return NULL;
        }
        jb[i] = (int32_t)v;
    }
    int bf16 = PyObject_IsTrue(args[8]), use32 = dst_mode(args[9]);
    if (bf16 < 0 || use32 < 0)
        return NULL;
    Operands o;
    if (get_operands(args, &o) < 0)
        return NULL;
    int rc = fn(&o, jb, bf16, use32);
    release_operands(&o);
    if (rc < 0) {
        PyErr_Format(PyExc_ValueError, "%s: operands out of range", name);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* mvmul: jobs of (SrcA row, SrcB row, rows, DstBits row, phase). */
static PyObject *py_mvmul(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return run_jobs(args, nargs, mvmul_checked, "mvmul");
}

/* elw: jobs of (SrcA row, SrcB row, DstBits row, phase, flags: kind (0 add, 1 sub, 2 mul)
 * | AddDst << 2 | BroadcastSrcBRow << 3 | BroadcastSrcBCol0 << 4). */
static PyObject *py_elw(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return run_jobs(args, nargs, elw_checked, "elw");
}

/* mvmul1(dst, srca, srcb, arow, brow, rows, r, phase, bf16, use32): one MVMUL. */
static PyObject *py_mvmul1(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return run_one(args, nargs, mvmul_checked, "mvmul1");
}

/* elw1(dst, srca, srcb, arow, brow, r, phase, flags, bf16, use32): one ELW*. */
static PyObject *py_elw1(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return run_one(args, nargs, elw_checked, "elw1");
}

static PyMethodDef methods[] = {
    {"mvmul1", (PyCFunction)(void (*)(void))py_mvmul1, METH_FASTCALL, "One MVMUL applied to DstBits."},
    {"elw1", (PyCFunction)(void (*)(void))py_elw1, METH_FASTCALL, "One ELWADD / ELWSUB / ELWMUL applied to DstBits."},
    {"mvmul", (PyCFunction)(void (*)(void))py_mvmul, METH_FASTCALL, "MVMULs applied to DstBits, in order."},
    {"elw", (PyCFunction)(void (*)(void))py_elw, METH_FASTCALL, "ELWADD / ELWSUB / ELWMULs applied to DstBits."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fpu_native",
    "The Matrix Unit's datapath compiled (fpu_native.c); fpu_fused.py is the pure-Python path.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fpu_native(void)
{
#ifdef HAVE_AVX2_FORM
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        products_best = products_avx2;
        decode_best = decode_rows_avx2;
        accumulate_best = accumulate_row_avx2;
        mvmul_best = mvmul_job_avx2;
    }
#endif
    return PyModule_Create(&module);
}
