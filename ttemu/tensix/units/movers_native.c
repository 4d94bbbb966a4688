/* The data movers' common routes, compiled: a PACR's conversion of Dst row spans and
 * its write to L1 (pack.py's row forms: fp32_rows_bytes, fp32_rows_bf16_bytes,
 * fp32_rows_fp16_bytes, bf16_rows_bytes, fp16_rows_bytes, bf16_rows_fp32_bytes, then
 * Packers._store), an UNPACR's read of contiguous L1 datums converted to the SrcA / SrcB
 * / Dst layouts and written as whole rows (unpack.py's _read_l1_run, unpack_convert,
 * _write_rows), and MOVA2D's move of SrcA rows to a 16-bit Dst (math.py's move16_rows).
 *
 * The pure-Python path is that code, which runs when this module is not built or
 * TTEMU_NATIVE=off; tests/test_movers_native.py compares the two bit for bit. Each
 * function here does the arithmetic only: the callers decide that the route applies
 * (formats, no edge masking, ReLU, remap or aliasing where the route does not model it)
 * and check addresses against L1 before calling.
 *
 * Dst is DstBits (uint16 [1024][16], Dst.md): a Dst16 BF16 value is sign[15] man7[14:8]
 * exp8[7:0], an FP16 one sign[15] man10[14:5] exp5[4:0]; a Dst32 row's high half is a
 * Dst16 BF16 pattern and its low half the 16 low mantissa bits, 8 DstBits rows further.
 * Src banks are uint32 [64][16] of 19-bit patterns: sign[18] man10[17:8] exp8[7:0].
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* pack_rows forms (pack.py's names) */
#define P_FP32 0      /* fp32_rows_bytes: 32-bit Dst -> Float32 */
#define P_FP32_BF16 1 /* fp32_rows_bf16_bytes: 32-bit Dst rounded -> Float16_b */
#define P_FP32_FP16 2 /* fp32_rows_fp16_bytes: 32-bit Dst -> Float16 */
#define P_BF16 3      /* bf16_rows_bytes: 16-bit Dst BF16 -> Float16_b */
#define P_FP16 4      /* fp16_rows_bytes: 16-bit Dst FP16 -> Float16 */
#define P_BF16_FP32 5 /* bf16_rows_fp32_bytes: 16-bit Dst BF16 -> Float32 */

/* unpack_rows kinds (layout.py's names) */
#define U_SRC_BF16 0   /* Float16_b -> Src: src_from_bf16 */
#define U_SRC_FP16 1   /* Float16 -> Src: src_from_fp16 */
#define U_DST16_BF16 2 /* Float16_b -> Dst16: dst16_from_bf16 */
#define U_DST16_FP16 3 /* Float16 -> Dst16: dst16_from_fp16 */
#define U_DST32 4      /* Float32 (or Int32) -> Dst32: dst32_from_fp32 */
#define U_SRC_TF32 5   /* Float32 -> Src TF32: src_from_tf32(x >> 13) */
#define U_SRC_FP32_BF16 6 /* Float32 -> Src BF16: fp32_to_bf16_flush_trunc, src_from_bf16 */

static inline uint32_t adj16_row(uint32_t row, int remap)
{
    row &= 0x3FF;
    if (remap)
        row = (row & 0x3C7) ^ ((row & 0x030) >> 1) ^ ((row & 0x008) << 2);
    return row;
}

static inline uint32_t adj_row(uint32_t row, int remap, int swizzle)
{
    row = adj16_row(row, remap);
    if (swizzle)
        row = (row & 0x3F3) ^ ((row & 0x018) >> 1) ^ ((row & 0x004) << 1);
    return ((row & 0x1F8) << 1) | (row & 0x207);
}

/* UnshuffleBF16 (SFPLOAD.md): Dst16 BF16 -> IEEE BF16 */
static inline uint32_t unshuffle(uint32_t h) { return (h & 0x8000) | ((h & 0xFF) << 7) | ((h & 0x7F00) >> 8); }

/* packer_early's DST16_BF16 round with no bits to drop (pack.py _Tables.bf16_round) */
static inline uint32_t bf16_round(uint32_t h)
{
    uint32_t e = h & 0xFF;
    if (e == 0)
        return 0;
    if (e == 0xFF)
        return (h & 0x8000) | 0x7F80;
    return unshuffle(h);
}

/* packer_early's DST16_FP16 round (pack.py _Tables.fp16_round) */
static inline uint32_t fp16_round(uint32_t h)
{
    if ((h & 0x1F) == 0)
        return 0;
    return (h & 0x8000) | ((h & 0x1F) << 10) | ((h >> 5) & 0x3FF);
}

/* round_fp32_mantissa(x, 7) >> 16 from the high half (IEEE BF16) and low half
 * (pack.py _Tables.get_bf16_of_fp32) */
static inline uint32_t fp32_bf16(uint32_t hb, uint32_t lo)
{
    if ((hb & 0x7F80) == 0x7F80)
        return hb & 0xFF80;
    uint32_t r = (hb + (lo >> 15)) & 0xFFFF;
    if ((r & 0x7F80) == 0)
        return 0;
    return r;
}

static int get_buffer(PyObject *o, Py_buffer *b, int writable, Py_ssize_t at_least, const char *what)
{
    if (PyObject_GetBuffer(o, b, (writable ? PyBUF_WRITABLE : 0) | PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (b->len < at_least) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, at least %zd expected", what, b->len, at_least);
        PyBuffer_Release(b);
        return -1;
    }
    return 0;
}

/* One span (row, first column, count): -> 0, or -1 with an exception set. */
static int span_of(PyObject *span, long *row, long *c0, long *n)
{
    if (!PyTuple_Check(span) || PyTuple_GET_SIZE(span) != 3) {
        PyErr_SetString(PyExc_TypeError, "a span is (row, first column, count)");
        return -1;
    }
    *row = PyLong_AsLong(PyTuple_GET_ITEM(span, 0));
    *c0 = PyLong_AsLong(PyTuple_GET_ITEM(span, 1));
    *n = PyLong_AsLong(PyTuple_GET_ITEM(span, 2));
    if (PyErr_Occurred())
        return -1;
    if (*c0 < 0 || *n < 0 || *c0 + *n > 16) {
        PyErr_SetString(PyExc_ValueError, "a span lies within one Dst row");
        return -1;
    }
    return 0;
}

/* pack_rows(form, dst, spans, remap, swizzle, l1, addr, is_code) -> int
 *
 * The datums of Dst row ``spans`` converted by ``form`` and written to L1 from byte
 * ``addr`` (the caller checked that they fit). -> -1 when ``form`` is P_FP32_FP16 and a
 * datum lies where the chain reports an undefined case (nothing written); else the
 * largest exponent the exponent histogram takes from the datums (bits 30:23 of the FP32
 * layout, or FP16's exponent for P_FP16), plus 1 << 16 when a word written is marked in
 * ``is_code`` (the caller invalidates translated code there). */
static PyObject *py_pack_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "pack_rows(form, dst, spans, remap, swizzle, l1, addr, is_code)");
        return NULL;
    }
    long form = PyLong_AsLong(args[0]);
    int remap = PyObject_IsTrue(args[3]), swizzle = PyObject_IsTrue(args[4]);
    Py_ssize_t addr = PyLong_AsSsize_t(args[6]);
    if (PyErr_Occurred())
        return NULL;
    PyObject *spans = args[2];
    if (!PyTuple_Check(spans)) {
        PyErr_SetString(PyExc_TypeError, "spans: a tuple");
        return NULL;
    }
    if (form < P_FP32 || form > P_BF16_FP32) {
        PyErr_SetString(PyExc_ValueError, "pack_rows: unknown form");
        return NULL;
    }
    Py_ssize_t nspans = PyTuple_GET_SIZE(spans);
    Py_ssize_t total = 0;
    for (Py_ssize_t s = 0; s < nspans; s++) {
        long row, c0, n;
        if (span_of(PyTuple_GET_ITEM(spans, s), &row, &c0, &n) < 0)
            return NULL;
        total += n;
    }
    int wide = form == P_FP32 || form == P_BF16_FP32;
    Py_ssize_t nbytes = total * (wide ? 4 : 2);
    Py_buffer db, lb, cb;
    if (get_buffer(args[1], &db, 0, 1024 * 16 * 2, "dst") < 0)
        return NULL;
    if (get_buffer(args[5], &lb, 1, 0, "l1") < 0) {
        PyBuffer_Release(&db);
        return NULL;
    }
    if (get_buffer(args[7], &cb, 0, 0, "is_code") < 0) {
        PyBuffer_Release(&db);
        PyBuffer_Release(&lb);
        return NULL;
    }
    PyObject *result = NULL;
    if (addr < 0 || addr + nbytes > lb.len || (addr + nbytes + 3) / 4 > cb.len) {
        PyErr_SetString(PyExc_ValueError, "pack_rows: beyond L1");
        goto done;
    }
    const uint16_t *bits = (const uint16_t *)db.buf;
    uint8_t *out = (uint8_t *)lb.buf + addr;
    long top = 0;
    if (form == P_FP32_FP16) { /* the undefined case first: nothing written then */
        for (Py_ssize_t s = 0; s < nspans; s++) {
            long row, c0, n;
            span_of(PyTuple_GET_ITEM(spans, s), &row, &c0, &n);
            uint32_t a = adj_row((uint32_t)row, remap, swizzle);
            for (long c = c0; c < c0 + n; c++) {
                uint32_t hb = unshuffle(bits[a * 16 + c]), lo = bits[(a + 8) * 16 + c];
                if (((hb >> 7) & 0xFF) == 112 && ((hb & 0x7F) | lo) != 0) {
                    result = PyLong_FromLong(-1);
                    goto done;
                }
            }
        }
    }
    for (Py_ssize_t s = 0; s < nspans; s++) {
        long row, c0, n;
        span_of(PyTuple_GET_ITEM(spans, s), &row, &c0, &n);
        if (form <= P_FP32_FP16) {
            uint32_t a = adj_row((uint32_t)row, remap, swizzle);
            const uint16_t *hi = bits + a * 16, *lo = bits + (a + 8) * 16;
            for (long c = c0; c < c0 + n; c++) {
                uint32_t hb = unshuffle(hi[c]), l = lo[c], v, e;
                if (form == P_FP32) {
                    out[0] = (uint8_t)l, out[1] = (uint8_t)(l >> 8), out[2] = (uint8_t)hb, out[3] = (uint8_t)(hb >> 8);
                    out += 4;
                    v = hb;
                } else if (form == P_FP32_BF16) {
                    v = fp32_bf16(hb, l);
                    out[0] = (uint8_t)v, out[1] = (uint8_t)(v >> 8);
                    out += 2;
                } else {
                    uint32_t exp = (hb >> 7) & 0xFF, sign = hb & 0x8000, f;
                    if (exp <= 112)
                        f = sign;
                    else if (exp > 143)
                        f = sign | 0x7FFF;
                    else
                        f = sign | ((exp - 112) << 10) | ((hb & 0x7F) << 3) | (l >> 13);
                    out[0] = (uint8_t)f, out[1] = (uint8_t)(f >> 8);
                    out += 2;
                    v = hb;
                }
                e = (v >> 7) & 0xFF;
                if ((long)e > top)
                    top = e;
            }
        } else {
            const uint16_t *r = bits + adj16_row((uint32_t)row, remap) * 16;
            for (long c = c0; c < c0 + n; c++) {
                uint32_t v, e;
                if (form == P_FP16) {
                    v = fp16_round(r[c]);
                    e = (v >> 10) & 0x1F;
                } else {
                    v = bf16_round(r[c]);
                    e = (v >> 7) & 0xFF;
                }
                if (form == P_BF16_FP32) {
                    out[0] = 0, out[1] = 0, out[2] = (uint8_t)v, out[3] = (uint8_t)(v >> 8);
                    out += 4;
                } else {
                    out[0] = (uint8_t)v, out[1] = (uint8_t)(v >> 8);
                    out += 2;
                }
                if ((long)e > top)
                    top = e;
            }
        }
    }
    {
        const uint8_t *code = (const uint8_t *)cb.buf;
        for (Py_ssize_t w = addr >> 2; w < (addr + nbytes + 3) >> 2; w++)
            if (code[w]) {
                top |= 1L << 16;
                break;
            }
    }
    result = PyLong_FromLong(top);
done:
    PyBuffer_Release(&db);
    PyBuffer_Release(&lb);
    PyBuffer_Release(&cb);
    return result;
}

/* unpack_rows(kind, l1, start, n, dest, row0, per_row, stride) -> None
 *
 * ``n`` (a multiple of 16 and of ``per_row``) datums from L1, ``per_row`` one after the
 * other from byte ``start``, ``start + stride``, ... (Tileize_mode's rows; the caller
 * checked the range), converted by ``kind`` and written as whole rows from row ``row0``
 * of ``dest``: a Src bank (uint32 [64][16], 19-bit values) for the U_SRC_* kinds,
 * DstBits (uint16 [1024][16]) otherwise; ``U_DST32`` writes Dst32 rows (AdjRow without
 * remapping: the high halves, the low halves 8 rows further). */
static PyObject *py_unpack_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "unpack_rows(kind, l1, start, n, dest, row0, per_row, stride)");
        return NULL;
    }
    long kind = PyLong_AsLong(args[0]);
    Py_ssize_t start = PyLong_AsSsize_t(args[2]), n = PyLong_AsSsize_t(args[3]);
    long row0 = PyLong_AsLong(args[5]);
    Py_ssize_t per = PyLong_AsSsize_t(args[6]), stride = PyLong_AsSsize_t(args[7]);
    if (PyErr_Occurred())
        return NULL;
    if (kind < U_SRC_BF16 || kind > U_SRC_FP32_BF16 || n < 0 || n & 15 || row0 < 0 || per <= 0 || n % per
        || stride < 0) {
        PyErr_SetString(PyExc_ValueError, "unpack_rows: bad kind, count, row or stride");
        return NULL;
    }
    int to_src = kind == U_SRC_BF16 || kind == U_SRC_FP16 || kind == U_SRC_TF32 || kind == U_SRC_FP32_BF16;
    int nb = (kind == U_DST32 || kind == U_SRC_TF32 || kind == U_SRC_FP32_BF16) ? 4 : 2;
    long nrows = (long)(n / 16);
    Py_buffer lb, db;
    if (get_buffer(args[1], &lb, 0, 0, "l1") < 0)
        return NULL;
    if (start < 0 || (n && start + (n / per - 1) * stride + per * nb > lb.len)) {
        PyBuffer_Release(&lb);
        PyErr_SetString(PyExc_ValueError, "unpack_rows: beyond L1");
        return NULL;
    }
    long rows_needed = (to_src || kind != U_DST32) ? row0 + nrows : 1024;
    if (get_buffer(args[4], &db, 1, rows_needed * 16 * (to_src ? 4 : 2), "dest") < 0) {
        PyBuffer_Release(&lb);
        return NULL;
    }
    if ((to_src && row0 + nrows > 64) || row0 + nrows > 1024) {
        PyErr_SetString(PyExc_ValueError, "unpack_rows: beyond the register");
        PyBuffer_Release(&lb);
        PyBuffer_Release(&db);
        return NULL;
    }
    const uint8_t *in = (const uint8_t *)lb.buf + start;
    for (Py_ssize_t k = 0; k < n; k++) {
        const uint8_t *p = in + (k / per) * stride + (k % per) * nb;
        uint32_t x = (uint32_t)p[0] | ((uint32_t)p[1] << 8);
        if (nb == 4)
            x |= ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
        if (to_src) {
            uint32_t t;
            if (kind == U_SRC_TF32) {
                t = (x >> 13) & 0x7FFFF;
            } else if (kind == U_SRC_FP32_BF16) { /* exponent 0 flushed to a signed zero, truncated */
                if ((x & 0x7F800000) == 0)
                    x &= 0x80000000;
                t = (x >> 16) << 3;
            } else {
                t = kind == U_SRC_BF16 ? x << 3 : ((x & 0x8000) << 3) | (x & 0x7FFF);
            }
            /* WriteSrcTF32 (src_from_tf32), then the 19-bit mask */
            ((uint32_t *)db.buf)[row0 * 16 + k] = ((t & 0x40000) | ((t & 0x3FF) << 8) | ((t & 0x3FC00) >> 10)) & 0x7FFFF;
        } else if (kind == U_DST32) { /* WriteDstFP32: the high half BF16-shuffled, the low half as is */
            uint16_t *bits = (uint16_t *)db.buf;
            uint32_t a = adj_row((uint32_t)(row0 + k / 16), 0, 0), hi = x >> 16;
            bits[a * 16 + k % 16] = (uint16_t)((hi & 0x8000) | ((hi & 0x7F) << 8) | ((hi & 0x7F80) >> 7));
            bits[(a + 8) * 16 + k % 16] = (uint16_t)x;
        } else {
            ((uint16_t *)db.buf)[row0 * 16 + k]
                = (uint16_t)(kind == U_DST16_BF16 ? (x & 0x8000) | ((x & 0x7F) << 8) | ((x & 0x7F80) >> 7)
                                                 : (x & 0x8000) | ((x & 0x3FF) << 5) | ((x & 0x7C00) >> 10));
        }
    }
    PyBuffer_Release(&lb);
    PyBuffer_Release(&db);
    Py_RETURN_NONE;
}

/* move16(src, src_row, n, dst, dst_row, fp16, flush) -> None
 *
 * MOVA2D to a 16-bit Dst (math.py move16_rows): rows src_row.. of the Src bank ``src``
 * (uint32 [64][16]; bits above 18 ignored) -> DstBits rows dst_row.. (the caller keeps
 * both inside their arrays): RemoveHighExponent (``fp16``) or RemoveLowMantissa, then
 * with ``flush`` 0 where the exponent byte is 0. */
static PyObject *py_move16(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "move16(src, src_row, n, dst, dst_row, fp16, flush)");
        return NULL;
    }
    long src_row = PyLong_AsLong(args[1]), n = PyLong_AsLong(args[2]), dst_row = PyLong_AsLong(args[4]);
    int fp16 = PyObject_IsTrue(args[5]), flush = PyObject_IsTrue(args[6]);
    if (PyErr_Occurred())
        return NULL;
    if (src_row < 0 || n < 0 || dst_row < 0 || src_row + n > 64 || dst_row + n > 1024) {
        PyErr_SetString(PyExc_ValueError, "move16: rows out of range");
        return NULL;
    }
    Py_buffer sb, db;
    if (get_buffer(args[0], &sb, 0, 64 * 16 * 4, "src") < 0)
        return NULL;
    if (get_buffer(args[3], &db, 1, 1024 * 16 * 2, "dst") < 0) {
        PyBuffer_Release(&sb);
        return NULL;
    }
    const uint32_t *s = (const uint32_t *)sb.buf + src_row * 16;
    uint16_t *d = (uint16_t *)db.buf + dst_row * 16;
    uint32_t hi = fp16 ? 0xFFE0 : 0xFF00, low = fp16 ? 0x1F : 0xFF;
    for (long k = 0; k < n * 16; k++) {
        uint32_t x = s[k];
        uint32_t v = ((x >> 3) & hi) | (x & low);
        if (flush && (x & 0xFF) == 0)
            v = 0;
        d[k] = (uint16_t)v;
    }
    PyBuffer_Release(&sb);
    PyBuffer_Release(&db);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"pack_rows", (PyCFunction)(void (*)(void))py_pack_rows, METH_FASTCALL,
     "A PACR's Dst row spans converted and written to L1."},
    {"unpack_rows", (PyCFunction)(void (*)(void))py_unpack_rows, METH_FASTCALL,
     "An UNPACR's contiguous L1 datums converted and written as whole rows."},
    {"move16", (PyCFunction)(void (*)(void))py_move16, METH_FASTCALL, "MOVA2D rows to a 16-bit Dst."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_movers_native",
    "The data movers' common routes compiled (movers_native.c); pack.py, unpack.py and math.py hold the "
    "pure-Python path.", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__movers_native(void) { return PyModule_Create(&module); }
