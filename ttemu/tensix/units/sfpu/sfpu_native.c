/* The Vector Unit's runs compiled: a run of SFP* instructions (and the INCRWCs walking
 * Dst between them) of a MOP / REPLAY expansion, executed one instruction after the
 * other, lane by lane, in integers.
 *
 * The same results as the instructions' Python executors (ttemu/tensix/units/sfpu/:
 * mad.py / blackhole.py's multiply-adds through fma.py, simple.py, loadstore.py /
 * lsfast.py's table forms), which stay the pure-Python path when this module is not
 * built (batch.py's Python form; tests/test_sfpu_native.py compares the two bit for
 * bit). batch.py decides what a run may hold and resolves operands, modes and the
 * arch's variant of each instruction when it plans the run; this file only executes.
 *
 * The multiply-adds are the step-by-step models of fma.py (fma_wh_plain, fma_bh_plain:
 * tt-isa-documentation Miscellaneous/FMA's bit-perfect models, as ttsim runs them),
 * written again here on the integer fields of one lane.
 *
 * State (numpy buffers, C order): LRegs uint32 [17][32]; LaneFlags and
 * UseLaneFlagsForLaneEnable bool [32]; DstBits flattened uint16 [1024 * 16]; the
 * thread's counters int64 [6] (Dst, Dst_Cr, SrcA, SrcA_Cr, SrcB, SrcB_Cr); the lanes
 * LaneConfig's row masks leave enabled, bool [32].
 */
/* FP operations raise no exceptions anyone reads here: the compiler may evaluate both sides
 * of a select, which lets it vectorise the multiply-add's float64 form (fast_lanes) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#define LANES 32
#define SIGN 0x80000000u
#define NAN_BH 0x7FC00000u

/* operations (batch.py NATIVE_OPS); a record is int32 [8]: op, vd, a, b, c, mod, imm, arg */
enum {
    OP_RWC = 1,    /* INCRWC: a = rwc_cr, b = rwc_d, c = rwc_b, imm = rwc_a */
    OP_LOAD = 2,   /* SFPLOAD: vd, a = LS slot */
    OP_STORE = 3,  /* SFPSTORE: vd, a = LS slot */
    OP_MAD = 4,    /* vd = a * b + c; mod bit 0 negates b, bit 1 c (Blackhole); arg: 1 Blackhole rules */
    OP_ADDI = 5,   /* vd = imm * 1.0 + c (mod bit 1: -c); arg as OP_MAD */
    OP_MULI = 6,   /* vd = imm * c + 0 (mod bit 1: -c); arg as OP_MAD */
    OP_LOADI = 7,  /* mod 0: vd = imm; 1: high half imm, low half kept; 2: low half imm, high kept */
    OP_IADD = 8,   /* SFPIADD: vd, c, b, mod (Mod1), imm (sign-extended Imm12) */
    OP_SETEXP = 9, /* vd = {c.Sign, E, c.Mant}: mod 1 E = imm, 2 E = b.Exp, 0 E = b & 255 */
    OP_SETMAN = 10, /* vd = {c.Sign, c.Exp, M}: mod 1 M = imm, 0 M = b & 0x7FFFFF */
    OP_SETSGN = 11, /* vd = {S, c.Exp, c.Mant}: mod 1 S = imm, 0 S = b.Sign */
    OP_EXEXP = 12, /* vd = c.Exp - imm (bias); flags by mod (SET_CC_SGN_EXP 2, COMP 8) */
    OP_EXMAN = 13, /* vd = c.Mant + imm (hidden bit or 0) */
    OP_ABS = 14,   /* mod 1: FP32 |c| keeping -NaN; 0: two's complement |c| */
    OP_NOT = 15,
    OP_AND = 16, OP_OR = 17, OP_XOR = 18, /* vd = b op c */
    OP_DIVP2 = 19, /* mod 1: exponent += imm (Inf / NaN kept); 0: exponent = imm */
    OP_SETCC = 20, /* flags = mod 8 ? 0 : mod 1 ? imm : c <, !=, >=, == 0 (mod 0, 2, 4, 6), & use */
    OP_ENCC = 21,  /* use = mod 2 ? imm & 1 : mod 1 ? !use : use; flags = mod 8 ? imm & 2 : 1 */
    OP_MOV = 22,   /* vd = c (mod 1: sign inverted); mod == 2 ignores the lane enables */
    OP_LZ = 23,    /* vd = clz(c & (mod 4 ? 0x7FFFFFFF : ~0)); flags: mod 2 c != 0, mod 8 inverted */
    OP_SHFT = 24,  /* vd = b shifted by (mod 1 ? imm : int32 c), left when >= 0; mod 2 arithmetic */
    OP_NOP = 25,
};

/* -- the multiply-adds (fma.py's step-by-step models) ------------------------------------ */

static inline int clz32(uint32_t x) { return x ? __builtin_clz(x) : 32; }

/* ``v >> s``, OR-ing in a sticky 1 when bits were lost, only if the result is not 0. */
static inline int64_t semi_sticky(int64_t v, int64_t s)
{
    if (s > 40)
        s = 40;
    int64_t r = v >> s;
    int64_t lost = (r << s) != v;
    return r != 0 ? (r | lost) : r;
}

typedef struct {
    int64_t ex, ey, ez, xm, ym, zm3, pm, pe;
    int64_t zs, ps;
} parts;

static inline void operands(uint32_t x, uint32_t y, uint32_t z, parts *o)
{
    o->ex = (x >> 23) & 255;
    o->ey = (y >> 23) & 255;
    o->ez = (z >> 23) & 255;
    o->xm = o->ex ? (int64_t)((x & 0x7FFFFF) | 0x800000) : 0;
    o->ym = o->ey ? (int64_t)((y & 0x7FFFFF) | 0x800000) : 0;
    int64_t zm = o->ez ? (int64_t)((z & 0x7FFFFF) | 0x800000) : 0;
    int64_t p = (o->xm * o->ym) << 3;
    o->pm = (p >> 23) | ((p & 0x7FFFFF) != 0);
    o->zm3 = zm << 3;
    o->zs = z & SIGN;
    o->ps = (x ^ y) & SIGN;
    o->pe = o->ex + o->ey - 127;
}

/* both parts shifted (semi-sticky) to the larger exponent and added */
static inline void add_aligned(int64_t pm, int64_t pe, int64_t ps, int64_t zm, int64_t ze, int64_t zs, int64_t *rs,
                               int64_t *rm, int64_t *re)
{
    int64_t d = pe - ze;
    int64_t p = semi_sticky(pm, d < 0 ? -d : 0);
    int64_t q = semi_sticky(zm, d > 0 ? d : 0);
    *rs = p >= q ? ps : zs;
    *rm = ps == zs ? p + q : (p > q ? p - q : q - p);
    *re = pe > ze ? pe : ze;
}

static inline int64_t clip31(int64_t n) { return n < 0 ? 0 : (n > 31 ? 31 : n); }

static inline int64_t assemble(int64_t re, int64_t rm)
{
    int64_t r = re * ((int64_t)1 << 23) + ((rm >> 3) & 0x7FFFFF);
    return r + ((((rm & 7) + (r & 1)) > 4) ? 1 : 0);
}

static uint32_t fma_wh(uint32_t x, uint32_t y, uint32_t z)
{
    parts o;
    operands(x, y, z, &o);
    int xinf = o.ex == 255, yinf = o.ey == 255, zinf = o.ez == 255;
    int pinf = o.pe >= 255;
    int zisinf = zinf && o.zm3 == 0x4000000;
    int nanp = (xinf && (o.xm != 0x800000 || o.ym == 0)) || (yinf && (o.ym != 0x800000 || o.xm == 0)) ||
               (zisinf && (xinf || yinf || pinf) && o.zs != o.ps);
    int64_t nan = nanp ? (o.ps | 0x7F800001) : ((zinf && !zisinf) ? (o.zs | 0x7F800001) : 0);
    int isnan = nan != 0;
    int infout = (xinf || yinf || zinf || pinf) && !isnan;
    int64_t pe = o.pe > 255 ? 255 : o.pe;
    int64_t pm = o.pm;
    int zerop = pm == 0 || pe < 0;
    if (zerop)
        pm = pe = 0;
    int64_t rs, rm, re;
    add_aligned(pm, pe, o.ps, o.zm3, o.ez, o.zs, &rs, &rm, &re);
    int cancel = rm == 0;
    int64_t n = 5 - clz32((uint32_t)rm);
    re += n;
    if (n <= 0)
        rm = (rm << clip31(-n)) & 0xFFFFFFFF;
    else
        rm = (rm >> clip31(n)) | (rm & 1); /* (a shift by two loses bit 1) */
    int64_t r = assemble(re, rm);
    int64_t out = (isnan ? nan : rs) | r;
    if (re < 0 || (r >> 23) == 0)
        out = nan;
    if (re >= 255)
        out = isnan ? nan : (rs | 0x7F800000);
    if (cancel)
        out = nan;
    if (zerop && !isnan)
        out = o.zm3 != 0 ? (int64_t)z : 0;
    if (infout)
        out = zinf ? (int64_t)z : (o.ps | 0x7F800000);
    return (uint32_t)out;
}

static uint32_t fma_bh(uint32_t x, uint32_t y, uint32_t z)
{
    parts o;
    operands(x, y, z, &o);
    int zerop = o.pm == 0 || o.pe < 0;
    int64_t rs, rm, re;
    add_aligned(o.pm, o.pe, o.ps, o.zm3, o.ez, o.zs, &rs, &rm, &re);
    int cancel = rm == 0;
    int64_t n = 5 - clz32((uint32_t)rm);
    re += n;
    int low = re <= 0;
    if (low) {
        n += 1;
        re = 0;
    }
    if (n <= 0)
        rm = (rm << clip31(-n)) & 0xFFFFFFFF;
    else
        rm = (rm >> clip31(n)) | ((rm & (n | 1)) != 0);
    int64_t r = assemble(re, rm);
    if (low && (r >> 23) == 0)
        r = 0; /* denormal after rounding: signed zero */
    int64_t out = rs | r;
    if (re >= 255)
        out = rs | 0x7F800000;
    if (cancel)
        out = o.zs & o.ps;
    if (zerop)
        out = o.zm3 != 0 ? (int64_t)z : (o.zs & o.ps);
    int xinf = o.ex == 255, yinf = o.ey == 255, zinf = o.ez == 255;
    if (xinf || yinf || zinf || o.pe >= 255) {
        int nan = (xinf && (o.xm != 0x800000 || o.ym == 0)) || (yinf && (o.ym != 0x800000 || o.xm == 0)) ||
                  (zinf && o.zm3 != 0x4000000) || (zinf && (xinf || yinf) && o.zs != o.ps);
        out = nan ? NAN_BH : (zinf ? (int64_t)z : (o.ps | 0x7F800000));
    }
    return (uint32_t)out;
}

/* fma.py's float64 form (``_direct``, ``fma_rows_into``) for one lane, and the step-by-step
 * model for a lane it does not cover: a denormal operand, a NaN / infinite operand or a
 * product overflowing on its own (2**(p_e - 127) >= 2**128), a non-zero product below
 * 2**-127, or a result whose exponent field is 0 or 1. Otherwise, with g = 2**(max(p_e,
 * z_e) - 127) * 2**-26, the model's sum is RO(P / g) + RO(C / g), exact in float64 (RO:
 * the nearest even integer E, then E + sign(v - E), 0 below one), Wormhole's shift by two
 * dropping bit 1 (_drop_bit1), and rounding it once to FP32 is the model's rounding.
 * (Compiled with -ffp-contract=off: every product and sum rounds on its own.) */
static inline double f32d(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, 4);
    return (double)f;
}

static inline double sgn(double v) { return (double)((v > 0) - (v < 0)); }

#define MAGIC (1.5 * 9007199254740992.0) /* 1.5 * 2**53 */
#define BIT1_MASK ((0x7FFull << 52) | (0x3Full << 24))
#define BIT1_HIT (((1023ull + 28) << 52) | (18ull << 24))

/* the float64 form of one lane (see above); *bad set where the model must decide */
static inline uint32_t fma_fast(uint32_t x, uint32_t y, uint32_t z, int bh, uint8_t *bad)
{
    uint32_t ex = x & 0x7F800000u, ey = y & 0x7F800000u, ez = z & 0x7F800000u;
    int denormal = (!ex && (x & 0x7FFFFF)) | (!ey && (y & 0x7FFFFF)) | (!ez && (z & 0x7FFFFF));
    double gp = f32d(ex) * f32d(ey), gz = f32d(ez); /* 2**(e - 127); 0 for e = 0 */
    double p = f32d(x) * f32d(y);                  /* exact */
    int special = !(gp < 0x1p128) | !(gz < 0x1p128); /* (0 * Inf is NaN: not below either) */
    int under = (gp < 0x1p-127) & (p != 0);
    double big = gp > gz ? gp : gz;
    big = big < 0x1p-900 ? 0x1p-900 : big;
    uint64_t bb;
    memcpy(&bb, &big, 8);
    bb = special ? ((uint64_t)1023 << 52) : bb; /* (any power of two: the lane goes to the model) */
    uint64_t ib = (uint64_t)(2072 - (int64_t)(bb >> 52)) << 52, gb = bb - ((uint64_t)26 << 52);
    double inv, g;
    memcpy(&inv, &ib, 8); /* 2**26 / big */
    memcpy(&g, &gb, 8);   /* big / 2**26 */
    double v0 = p * inv, v1 = f32d(z) * inv;
    double e0 = (v0 + MAGIC) - MAGIC, e1 = (v1 + MAGIC) - MAGIC;
    double s0 = sgn(v0 - e0) * (double)(fabs(v0) >= 1), s1 = sgn(v1 - e1) * (double)(fabs(v1) >= 1);
    double total = (e0 + s0) + (e1 + s1);
    uint64_t tb;
    memcpy(&tb, &total, 8);
    total -= copysign(2.0, total) * (double)(!bh & ((tb & BIT1_MASK) == BIT1_HIT));
    float rf = (float)(total * g);
    uint32_t r;
    memcpy(&r, &rf, 4);
    *bad = denormal | special | under | !(r & 0x7F000000u);
    return r;
}

/* the float64 form over the 32 lanes: one loop the compiler vectorises (no-trapping-math
 * above lets it evaluate both sides of a select), in SSE2 and, chosen at load where the
 * CPU has it, AVX2 (the same IEEE operations lane by lane: the same bits) */
typedef void (*fast_fn)(const uint32_t *, const uint32_t *, const uint32_t *, uint32_t *, uint8_t *, int);

static void fast_lanes(const uint32_t *x, const uint32_t *y, const uint32_t *z, uint32_t *out, uint8_t *bad, int bh)
{
    for (int l = 0; l < LANES; ++l)
        out[l] = fma_fast(x[l], y[l], z[l], bh, &bad[l]);
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define HAVE_AVX2_FORM
__attribute__((target("avx2"))) static void fast_lanes_avx2(const uint32_t *x, const uint32_t *y, const uint32_t *z,
                                                           uint32_t *out, uint8_t *bad, int bh)
{
    for (int l = 0; l < LANES; ++l)
        out[l] = fma_fast(x[l], y[l], z[l], bh, &bad[l]);
}
#endif

static fast_fn fast_best = fast_lanes;

/* ``out[l] = x[l] * y[l] + z[l]`` for the 32 lanes (the float64 form, then the model where
 * it must decide) */
static void fma_lanes(const uint32_t *x, const uint32_t *y, const uint32_t *z, uint32_t *out, int bh)
{
    uint8_t bad[LANES];
    fast_best(x, y, z, out, bad, bh);
    for (int l = 0; l < LANES; ++l)
        if (bad[l])
            out[l] = bh ? fma_bh(x[l], y[l], z[l]) : fma_wh(x[l], y[l], z[l]);
}

/* -- buffers ----------------------------------------------------------------------------------- */

static int get_buf(PyObject *obj, Py_buffer *view, int writable, Py_ssize_t size, const char *what)
{
    if (PyObject_GetBuffer(obj, view, writable ? PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS : PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (size && view->len != size) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", what, view->len, size);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

#define MAX_SLOTS 16
#define DST_MASK (1024 * 16 - 1)

/* one SFPLOAD / SFPSTORE's tables (native.py ls_slot); its index tables address DstBits
 * (uint16 [1024 * 16]): every index is masked to that range (they are in it) */
typedef struct {
    Py_buffer table, high, low, open, keep;
    int has_low, has_keep, store;
    int64_t base;
} ls_slot;

static void release_slots(ls_slot *s, int n)
{
    for (int i = 0; i < n; ++i) {
        PyBuffer_Release(&s[i].table);
        PyBuffer_Release(&s[i].high);
        if (s[i].has_low)
            PyBuffer_Release(&s[i].low);
        PyBuffer_Release(&s[i].open);
        if (s[i].has_keep)
            PyBuffer_Release(&s[i].keep);
    }
}

/* slot tuple: (store?, table, high, low or None, base, open, keep or None) */
static int get_slot(PyObject *t, ls_slot *s)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 7) {
        PyErr_SetString(PyExc_TypeError, "LS slot: (store, table, high, low, base, open, keep)");
        return -1;
    }
    s->store = PyObject_IsTrue(PyTuple_GET_ITEM(t, 0));
    s->base = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 4));
    if (s->store < 0 || PyErr_Occurred())
        return -1;
    if (get_buf(PyTuple_GET_ITEM(t, 1), &s->table, 0, s->store ? 65536 * 2 : 65536 * 4, "table") < 0)
        return -1;
    if (get_buf(PyTuple_GET_ITEM(t, 2), &s->high, 0, 1024 * LANES * 8, "high") < 0)
        goto f_table;
    s->has_low = PyTuple_GET_ITEM(t, 3) != Py_None;
    if (s->has_low && get_buf(PyTuple_GET_ITEM(t, 3), &s->low, 0, 1024 * LANES * 8, "low") < 0)
        goto f_high;
    if (get_buf(PyTuple_GET_ITEM(t, 5), &s->open, 0, LANES, "open") < 0)
        goto f_low;
    s->has_keep = PyTuple_GET_ITEM(t, 6) != Py_None;
    if (s->has_keep && get_buf(PyTuple_GET_ITEM(t, 6), &s->keep, 0, 65536 * 2, "keep") < 0)
        goto f_open;
    return 0;
f_open:
    PyBuffer_Release(&s->open);
f_low:
    if (s->has_low)
        PyBuffer_Release(&s->low);
f_high:
    PyBuffer_Release(&s->high);
f_table:
    PyBuffer_Release(&s->table);
    return -1;
}

/* -- the run -------------------------------------------------------------------------------- */

static inline int writes(int vd) { return vd < 8 || vd == 16; }

static inline uint32_t shift(uint32_t x, int64_t amount, int arith)
{
    if (amount >= 0)
        return x << (amount & 31);
    unsigned by = (unsigned)((-amount) & 31);
    return arith ? (uint32_t)((int32_t)x >> by) : x >> by;
}

/* run(ops, lreg, flags, use_flags, dst, rwc, unmasked, slots, sp) */
static PyObject *py_run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "run(ops, lreg, flags, use_flags, dst, rwc, unmasked, slots, sp)");
        return NULL;
    }
    PyObject *slot_tuple = args[7];
    if (!PyTuple_Check(slot_tuple) || PyTuple_GET_SIZE(slot_tuple) > MAX_SLOTS) {
        PyErr_SetString(PyExc_TypeError, "slots: a tuple of at most 16 LS slots");
        return NULL;
    }
    int64_t sp = PyLong_AsLongLong(args[8]);
    if (PyErr_Occurred())
        return NULL;
    Py_buffer ob, lb, fb, ub, db, rb, mb;
    if (get_buf(args[0], &ob, 0, 0, "ops") < 0)
        return NULL;
    if (get_buf(args[1], &lb, 1, 17 * LANES * 4, "lreg") < 0)
        goto f_ops;
    if (get_buf(args[2], &fb, 1, LANES, "flags") < 0)
        goto f_lreg;
    if (get_buf(args[3], &ub, 1, LANES, "use_flags") < 0)
        goto f_flags;
    if (get_buf(args[4], &db, 1, 1024 * 16 * 2, "dst") < 0)
        goto f_use;
    if (get_buf(args[5], &rb, 1, 6 * 8, "rwc") < 0)
        goto f_dst;
    if (get_buf(args[6], &mb, 0, LANES, "unmasked") < 0)
        goto f_rwc;
    ls_slot slots[MAX_SLOTS];
    int nslots = (int)PyTuple_GET_SIZE(slot_tuple);
    for (int i = 0; i < nslots; ++i)
        if (get_slot(PyTuple_GET_ITEM(slot_tuple, i), &slots[i]) < 0) {
            release_slots(slots, i);
            goto f_mask;
        }
    const int32_t *ops = (const int32_t *)ob.buf;
    Py_ssize_t nops = ob.len / (8 * 4);
    uint32_t(*L)[LANES] = (uint32_t(*)[LANES])lb.buf;
    uint8_t *flags = (uint8_t *)fb.buf, *use = (uint8_t *)ub.buf;
    const uint8_t *unmasked = (const uint8_t *)mb.buf;
    uint16_t *dst = (uint16_t *)db.buf;
    int64_t *rwc = (int64_t *)rb.buf;
    for (Py_ssize_t q = 0; q < nops; ++q) { /* validate first: nothing changes on a bad run */
        const int32_t *op = ops + 8 * q;
        if (op[0] < OP_RWC || op[0] > OP_NOP || op[1] < 0 || op[1] > 16 || op[2] < 0 || op[2] > 16 || op[3] < 0 ||
            op[3] > 16 || op[4] < 0 || op[4] > 16 ||
            ((op[0] == OP_LOAD || op[0] == OP_STORE) &&
             (op[2] >= nslots || slots[op[2]].store != (op[0] == OP_STORE)))) {
            PyErr_Format(PyExc_ValueError, "run: operation %zd out of range", q);
            release_slots(slots, nslots);
            goto f_mask;
        }
    }
    for (Py_ssize_t q = 0; q < nops; ++q) {
        const int32_t *op = ops + 8 * q;
        int vd = op[1], a = op[2], b = op[3], c = op[4], mod = op[5];
        int32_t imm = op[6];
        uint8_t en[LANES]; /* the lanes enabled (not read by SFPNOP, INCRWC, SFPLOAD / SFPSTORE, SFPENCC) */
        int kind = op[0];
        if (kind != OP_NOP && kind != OP_RWC && kind != OP_LOAD && kind != OP_STORE && kind != OP_ENCC)
            for (int l = 0; l < LANES; ++l) /* (bitwise on 0 / 1: vectorised) */
                en[l] = (unmasked[l] != 0) & ((use[l] == 0) | (flags[l] != 0));
        switch (op[0]) {
        case OP_NOP:
            break;
        case OP_RWC: { /* INCRWC (a = rwc_cr, b = rwc_d, c = rwc_b, imm = rwc_a) */
            int cr = a;
            if (cr & 1)
                rwc[2] = rwc[3] = (rwc[3] + imm) & 0x3F;
            else
                rwc[2] = (rwc[2] + imm) & 0x3F;
            if (cr & 2)
                rwc[4] = rwc[5] = (rwc[5] + c) & 0x3F;
            else
                rwc[4] = (rwc[4] + c) & 0x3F;
            if (cr & 4)
                rwc[0] = rwc[1] = (rwc[1] + b) & 0x3FF;
            else
                rwc[0] = (rwc[0] + b) & 0x3FF;
            break;
        }
        case OP_LOAD: {
            ls_slot *s = &slots[a];
            int64_t addr = (s->base + rwc[0] + sp) & 0x3FF;
            const int64_t *hi = (const int64_t *)s->high.buf + addr * LANES;
            const int64_t *lo = s->has_low ? (const int64_t *)s->low.buf + addr * LANES : NULL;
            const uint32_t *table = (const uint32_t *)s->table.buf;
            const uint8_t *open = (const uint8_t *)s->open.buf;
            for (int l = 0; l < LANES; ++l)
                if (open[l] && (!use[l] || flags[l])) {
                    uint32_t v = table[dst[hi[l] & DST_MASK]];
                    if (lo)
                        v |= dst[lo[l] & DST_MASK];
                    L[vd][l] = v;
                }
            break;
        }
        case OP_STORE: {
            ls_slot *s = &slots[a];
            int64_t addr = (s->base + rwc[0] + sp) & 0x3FF;
            const int64_t *hi = (const int64_t *)s->high.buf + addr * LANES;
            const int64_t *lo = s->has_low ? (const int64_t *)s->low.buf + addr * LANES : NULL;
            const uint16_t *table = (const uint16_t *)s->table.buf;
            const uint16_t *keep = s->has_keep ? (const uint16_t *)s->keep.buf : NULL;
            const uint8_t *open = (const uint8_t *)s->open.buf;
            uint8_t act[LANES];
            uint32_t x[LANES];
            for (int l = 0; l < LANES; ++l) {
                act[l] = open[l] && (!use[l] || flags[l]);
                x[l] = L[vd][l];
            }
            for (int l = 0; l < LANES; ++l) /* every high half, then every low half (lsfast.py) */
                if (act[l])
                    dst[hi[l] & DST_MASK] = table[x[l] >> 16];
            if (lo)
                for (int l = 0; l < LANES; ++l)
                    if (act[l]) {
                        uint16_t v = (uint16_t)x[l];
                        dst[lo[l] & DST_MASK] = keep ? (uint16_t)(v & keep[x[l] >> 16]) : v;
                    }
            break;
        }
        case OP_MAD: {
            int bh = op[7];
            uint32_t nb = (mod & 1) ? SIGN : 0, nc = (mod & 2) ? SIGN : 0;
            uint32_t xs[LANES], ys[LANES], zs[LANES], d[LANES];
            for (int l = 0; l < LANES; ++l) {
                xs[l] = L[a][l];
                ys[l] = L[b][l] ^ nb;
                zs[l] = L[c][l] ^ nc;
            }
            fma_lanes(xs, ys, zs, d, bh);
            for (int l = 0; l < LANES; ++l)
                if (en[l])
                    L[vd][l] = d[l];
            break;
        }
        case OP_ADDI:
        case OP_MULI: {
            int bh = op[7];
            uint32_t nc = (mod & 2) ? SIGN : 0;
            uint32_t xs[LANES], ys[LANES], zs[LANES], d[LANES];
            for (int l = 0; l < LANES; ++l) {
                uint32_t v = L[c][l] ^ nc;
                xs[l] = (uint32_t)imm;
                ys[l] = op[0] == OP_ADDI ? 0x3F800000u : v;
                zs[l] = op[0] == OP_ADDI ? v : 0;
            }
            fma_lanes(xs, ys, zs, d, bh);
            for (int l = 0; l < LANES; ++l)
                if (en[l])
                    L[vd][l] = d[l];
            break;
        }
        case OP_LOADI:
            if (vd < 8)
                for (int l = 0; l < LANES; ++l)
                    if (en[l]) {
                        uint32_t old = L[vd][l], k = (uint32_t)imm;
                        L[vd][l] = mod == 0 ? k : (mod == 1 ? ((k << 16) | (old & 0xFFFF)) : ((old & 0xFFFF0000u) | k));
                    }
            break;
        case OP_IADD:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l) {
                    uint32_t cv = L[c][l], dv;
                    if (mod & 1)
                        dv = cv + (uint32_t)imm;
                    else if (mod & 2)
                        dv = cv - L[b][l];
                    else
                        dv = cv + L[b][l];
                    if (en[l]) {
                        L[vd][l] = dv;
                        if (vd < 8) {
                            uint8_t f = flags[l];
                            if (!(mod & 4))
                                f = (dv & SIGN) != 0;
                            if (mod & 8)
                                f = !f;
                            flags[l] = f;
                        }
                    }
                }
            break;
        case OP_SETEXP:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l)
                    if (en[l]) {
                        uint32_t e = (mod & 1) ? ((uint32_t)imm & 0xFF)
                                               : ((mod & 2) ? ((L[b][l] >> 23) & 0xFF) : (L[b][l] & 0xFF));
                        L[vd][l] = (L[c][l] & 0x807FFFFFu) | (e << 23);
                    }
            break;
        case OP_SETMAN:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l)
                    if (en[l]) {
                        uint32_t m = (mod & 1) ? (((uint32_t)imm & 0xFFF) << 11) : (L[b][l] & 0x7FFFFF);
                        L[vd][l] = (L[c][l] & 0xFF800000u) | m;
                    }
            break;
        case OP_SETSGN:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l)
                    if (en[l]) {
                        uint32_t s = (mod & 1) ? (((uint32_t)imm & 1) << 31) : (L[b][l] & SIGN);
                        L[vd][l] = (L[c][l] & 0x7FFFFFFFu) | s;
                    }
            break;
        case OP_EXEXP:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l)
                    if (en[l]) {
                        int32_t dv = (int32_t)((L[c][l] >> 23) & 0xFF) - imm;
                        L[vd][l] = (uint32_t)dv;
                        if (vd < 8) {
                            uint8_t f = flags[l];
                            if (mod & 2)
                                f = dv < 0;
                            if (mod & 8)
                                f = !f;
                            flags[l] = f;
                        }
                    }
            break;
        case OP_EXMAN:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l)
                    if (en[l])
                        L[vd][l] = (L[c][l] & 0x7FFFFF) + (uint32_t)imm;
            break;
        case OP_ABS:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l)
                    if (en[l]) {
                        uint32_t x = L[c][l];
                        int neg = x >= SIGN;
                        if (mod & 1)
                            L[vd][l] = (neg && x < 0xFF800000u) ? (x & 0x7FFFFFFFu) : x;
                        else
                            L[vd][l] = neg ? 0u - x : x;
                    }
            break;
        case OP_NOT:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l)
                    if (en[l])
                        L[vd][l] = ~L[c][l];
            break;
        case OP_AND:
        case OP_OR:
        case OP_XOR:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l)
                    if (en[l]) {
                        uint32_t x = L[b][l], y = L[c][l];
                        L[vd][l] = op[0] == OP_AND ? (x & y) : (op[0] == OP_OR ? (x | y) : (x ^ y));
                    }
            break;
        case OP_DIVP2:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l)
                    if (en[l]) {
                        uint32_t x = L[c][l], e = (x >> 23) & 0xFF, k = (uint32_t)imm & 0xFF;
                        if (mod & 1)
                            e = e == 255 ? e : ((e + k) & 0xFF);
                        else
                            e = k;
                        L[vd][l] = (x & 0x807FFFFFu) | (e << 23);
                    }
            break;
        case OP_SETCC:
            for (int l = 0; l < LANES; ++l)
                if (en[l]) {
                    uint8_t f;
                    if (mod & 8)
                        f = 0;
                    else if (mod & 1)
                        f = imm & 1;
                    else {
                        int32_t v = (int32_t)L[c][l];
                        f = mod == 0 ? v < 0 : mod == 2 ? v != 0 : mod == 4 ? v >= 0 : v == 0;
                    }
                    flags[l] = f && use[l];
                }
            break;
        case OP_ENCC:
            for (int l = 0; l < LANES; ++l) {
                if (mod & 2)
                    use[l] = imm & 1;
                else if (mod & 1)
                    use[l] = !use[l];
                flags[l] = (mod & 8) ? ((imm & 2) != 0) : 1;
            }
            break;
        case OP_MOV:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l)
                    if (en[l] || mod == 2)
                        L[vd][l] = L[c][l] ^ ((mod & 1) ? SIGN : 0);
            break;
        case OP_LZ:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l)
                    if (en[l]) {
                        uint32_t x = L[c][l];
                        if (mod & 4)
                            x &= 0x7FFFFFFF;
                        L[vd][l] = (uint32_t)clz32(x);
                        if (vd < 8) {
                            uint8_t f = flags[l];
                            if (mod & 2)
                                f = x != 0;
                            if (mod & 8)
                                f = !f;
                            flags[l] = f;
                        }
                    }
            break;
        case OP_SHFT:
            if (writes(vd))
                for (int l = 0; l < LANES; ++l)
                    if (en[l]) {
                        int64_t amount = (mod & 1) ? (int64_t)imm : (int64_t)(int32_t)L[c][l];
                        L[vd][l] = shift(L[b][l], amount, mod & 2);
                    }
            break;
        }
    }
    release_slots(slots, nslots);
    PyBuffer_Release(&mb);
    PyBuffer_Release(&rb);
    PyBuffer_Release(&db);
    PyBuffer_Release(&ub);
    PyBuffer_Release(&fb);
    PyBuffer_Release(&lb);
    PyBuffer_Release(&ob);
    Py_RETURN_NONE;
f_mask:
    PyBuffer_Release(&mb);
f_rwc:
    PyBuffer_Release(&rb);
f_dst:
    PyBuffer_Release(&db);
f_use:
    PyBuffer_Release(&ub);
f_flags:
    PyBuffer_Release(&fb);
f_lreg:
    PyBuffer_Release(&lb);
f_ops:
    PyBuffer_Release(&ob);
    return NULL;
}

/* fma(x, y, z, out, blackhole, model): out[i] = x[i] * y[i] + z[i] as the arch computes it
 * (uint32 buffers of one length), by fma_lane, or with ``model`` by the step-by-step
 * model alone; for tests. */
static PyObject *py_fma(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "fma(x, y, z, out, blackhole, model)");
        return NULL;
    }
    int bh = PyObject_IsTrue(args[4]), model = PyObject_IsTrue(args[5]);
    if (bh < 0 || model < 0)
        return NULL;
    Py_buffer x, y, z, o;
    if (get_buf(args[0], &x, 0, 0, "x") < 0)
        return NULL;
    if (get_buf(args[1], &y, 0, x.len, "y") < 0)
        goto f_x;
    if (get_buf(args[2], &z, 0, x.len, "z") < 0)
        goto f_y;
    if (get_buf(args[3], &o, 1, x.len, "out") < 0)
        goto f_z;
    const uint32_t *xs = x.buf, *ys = y.buf, *zs = z.buf;
    uint32_t *os = o.buf;
    Py_ssize_t n = x.len / 4, i = 0;
    if (model)
        for (; i < n; ++i)
            os[i] = bh ? fma_bh(xs[i], ys[i], zs[i]) : fma_wh(xs[i], ys[i], zs[i]);
    for (; i + LANES <= n; i += LANES)
        fma_lanes(xs + i, ys + i, zs + i, os + i, bh);
    for (; i < n; ++i) {
        uint8_t bad;
        os[i] = fma_fast(xs[i], ys[i], zs[i], bh, &bad);
        if (bad)
            os[i] = bh ? fma_bh(xs[i], ys[i], zs[i]) : fma_wh(xs[i], ys[i], zs[i]);
    }
    PyBuffer_Release(&o);
    PyBuffer_Release(&z);
    PyBuffer_Release(&y);
    PyBuffer_Release(&x);
    Py_RETURN_NONE;
f_z:
    PyBuffer_Release(&z);
f_y:
    PyBuffer_Release(&y);
f_x:
    PyBuffer_Release(&x);
    return NULL;
}

/* simd(name or None): the multiply-add's vector form, "avx2" (where the CPU has it) or
 * "sse2" (the baseline form, the only one off x86-64), picked for tests comparing the two;
 * -> the one in use */
static PyObject *py_simd(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "simd(name or None)");
        return NULL;
    }
    if (args[0] != Py_None) {
        const char *name = PyUnicode_AsUTF8(args[0]);
        if (name == NULL)
            return NULL;
        if (strcmp(name, "sse2") == 0)
            fast_best = fast_lanes;
        else if (strcmp(name, "avx2") == 0) {
#ifdef HAVE_AVX2_FORM
            if (__builtin_cpu_supports("avx2"))
                fast_best = fast_lanes_avx2;
#endif
        } else {
            PyErr_SetString(PyExc_ValueError, "simd: \"sse2\" or \"avx2\"");
            return NULL;
        }
    }
    return PyUnicode_FromString(fast_best == fast_lanes ? "sse2" : "avx2");
}

static PyMethodDef methods[] = {
    {"simd", (PyCFunction)(void (*)(void))py_simd, METH_FASTCALL, "The multiply-add's vector form (tests)."},
    {"run", (PyCFunction)(void (*)(void))py_run, METH_FASTCALL, "A planned run of Vector Unit instructions."},
    {"fma", (PyCFunction)(void (*)(void))py_fma, METH_FASTCALL, "The arch's multiply-add, element by element."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_sfpu_native",
    "The Vector Unit's runs compiled (sfpu_native.c); batch.py's Python form is the pure-Python path.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__sfpu_native(void)
{
#ifdef HAVE_AVX2_FORM
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        fast_best = fast_lanes_avx2;
#endif
    return PyModule_Create(&module);
}
