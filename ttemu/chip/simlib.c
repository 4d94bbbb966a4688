/* ttemu as a drop-in for Tenstorrent's ttsim library (libttsim_wh.so / libttsim_bh.so).
 *
 * Exports ttsim's C ABI (the functions tt-umd dlsym's) and forwards every call to
 * ttemu's chip model in Python (ttemu.chip.host.Host). `ttemu simlib` compiles this
 * file with a generated simlib_config.h:
 *   TTEMU_BOOT       Python source that imports the ttemu package the command ran from
 *                    and binds `host` to a new Host
 *   TTEMU_LIBPYTHON  the shared libpython of that interpreter ("" when it has none)
 *
 * Python: when the host process already runs an interpreter (tt-exalens, tt-umd's
 * Python bindings, ctypes), every call takes the GIL (PyGILState_Ensure) and calls into
 * it; otherwise (a C/C++ host) the first call to libttsim_init loads libpython, starts
 * an interpreter and releases the GIL. Python's API is reached through dlsym, so the
 * library links no libpython and works with a statically linked python too.
 *
 * Clocks: libttsim_clock only adds to a count; the next access (or exit) hands the
 * count to Python, which runs those clocks before serving the access. Nothing can
 * observe the difference (the host sees the device only through accesses), and a
 * clock costs no call into Python.
 *
 * L1 through a TLB window (the harness's polls, tt-exalens's loads): the shim serves
 * a host read or write of a Tensix tile's L1 itself, against the tile's own buffer
 * (its address comes from Python once per TLB configuration, Host.window), when the
 * window's entry names one Tensix tile, the access stays in L1 and in the window, and
 * (a write) touches no translated code; Python first runs the clocks given since the
 * last call when a core is running (Host.clock; a byte Python keeps says whether one
 * is). Anything else takes the Python path, which also reports every refusal. The
 * copy itself runs without the GIL: the client serializes its calls into the library
 * (UMD does), and Python touches those buffers only inside such calls.
 *
 * Shutdown: libttsim_exit may come while the interpreter finalizes (a device object
 * freed at exit) or after it is gone; then Python is not called.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "simlib_config.h"

#define EXPORT __attribute__((visibility("default")))

typedef struct _object PyObject;
typedef struct _ts PyThreadState;

static struct {
    int (*IsInitialized)(void);
    int (*IsFinalizing)(void);
    void (*InitializeEx)(int);
    PyThreadState *(*SaveThread)(void);
    int (*GILEnsure)(void);
    void (*GILRelease)(int);
    PyObject *(*RunString)(const char *, int, PyObject *, PyObject *, void *);
    PyObject *(*DictNew)(void);
    PyObject *(*DictGetItemString)(PyObject *, const char *);
    PyObject *(*GetAttrString)(PyObject *, const char *);
    PyObject *(*CallFunction)(PyObject *, const char *, ...);
    PyObject *(*CallOneArg)(PyObject *, PyObject *);
    PyObject *(*LongFromULL)(unsigned long long);
    PyObject *(*MemoryView)(char *, ssize_t, int);
    unsigned long (*AsUnsignedLong)(PyObject *);
    unsigned long long (*AsUnsignedLongLong)(PyObject *);
    PyObject *(*TupleGetItem)(PyObject *, ssize_t);
    ssize_t (*TupleSize)(PyObject *);
    void (*ErrPrint)(void);
    void (*DecRef)(PyObject *);
} py;

enum { FILE_INPUT = 257, BUF_READ = 0x100, BUF_WRITE = 0x200 };

static void *libpython;
static PyObject *host, *m_config_rd, *m_config_wr, *m_mem_rd, *m_mem_wr, *m_tile_rd, *m_tile_wr, *m_clock, *m_window;
static uint64_t pending;  /* clocks not yet handed to Python */
/* The TLB configuration registers: host writes there (tt-umd programs a window before
 * every access) go straight into the Python model's buffer, without a call. */
static uint64_t tlb_lo, tlb_hi;
static uint8_t *tlb_regs;
static uint32_t tlb_widths; /* bit n: an aligned n-byte write is taken */
/* The fast path for L1 (see the top): BAR0's TLB windows, what each TLB entry was
 * found to reach (for the configuration bytes it had then), and Python's byte that is
 * set while a core runs. */
typedef struct { uint64_t lo, hi; uint32_t first, bits; } window_t;
typedef struct {
    uint8_t raw[16];
    int state; /* 0 not looked up (or changed), 1 a Tensix tile's L1, 2 anything else */
    uint8_t *l1, *code;
    uint64_t l1_size, base;
} target_t;
static window_t windows[8];
static int n_windows;
static target_t *targets;
static uint32_t n_targets, entry_bytes;
static volatile uint8_t *running;
static void (*dma_rd)(uint64_t, void *, uint32_t);
static void (*dma_wr)(uint64_t, const void *, uint32_t);

static void fatal(const char *category, const char *text) {
    fprintf(stderr, "[0] ERROR: %s: ttemu: %s\n", category, text);
    fflush(stderr);
    _exit(1);
}

static void *find(const char *name) {
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!p && libpython) p = dlsym(libpython, name);
    return p;
}

#define NEED(field, name)                                                   \
    do {                                                                    \
        *(void **)&py.field = find(name);                                   \
        if (!py.field) fatal("ConfigurationError", "Python lacks " name);   \
    } while (0)

static void bind_python(void) {
    if (py.IsInitialized) return;
    if (!dlsym(RTLD_DEFAULT, "Py_IsInitialized")) {
        if (!TTEMU_LIBPYTHON[0])
            fatal("ConfigurationError", "this library was built by a Python without a shared libpython: "
                                        "load it from a Python process (tt-exalens, tt-umd's Python API)");
        libpython = dlopen(TTEMU_LIBPYTHON, RTLD_NOW | RTLD_GLOBAL);
        if (!libpython) fatal("ConfigurationError", dlerror());
    }
    NEED(IsInitialized, "Py_IsInitialized");
    *(void **)&py.IsFinalizing = find("Py_IsFinalizing");
    if (!py.IsFinalizing) *(void **)&py.IsFinalizing = find("_Py_IsFinalizing");
    NEED(InitializeEx, "Py_InitializeEx");
    NEED(SaveThread, "PyEval_SaveThread");
    NEED(GILEnsure, "PyGILState_Ensure");
    NEED(GILRelease, "PyGILState_Release");
    NEED(RunString, "PyRun_StringFlags");
    NEED(DictNew, "PyDict_New");
    NEED(DictGetItemString, "PyDict_GetItemString");
    NEED(GetAttrString, "PyObject_GetAttrString");
    NEED(CallFunction, "PyObject_CallFunction");
    NEED(CallOneArg, "PyObject_CallOneArg");
    NEED(LongFromULL, "PyLong_FromUnsignedLongLong");
    NEED(MemoryView, "PyMemoryView_FromMemory");
    NEED(AsUnsignedLong, "PyLong_AsUnsignedLong");
    NEED(AsUnsignedLongLong, "PyLong_AsUnsignedLongLong");
    NEED(TupleGetItem, "PyTuple_GetItem");
    NEED(TupleSize, "PyTuple_Size");
    NEED(ErrPrint, "PyErr_Print");
    NEED(DecRef, "Py_DecRef");
}

/* Python is usable from this thread now (not finalizing, not gone). */
static int python_alive(void) {
    return py.IsInitialized && py.IsInitialized() && !(py.IsFinalizing && py.IsFinalizing());
}

/* A call that returned NULL: the Python side reports its own errors and ends the
 * process, so this is an exception that escaped it (a bug in ttemu). */
static void check(PyObject *result, const char *what) {
    if (result) return;
    py.ErrPrint();
    fprintf(stderr, "[0] ERROR: InternalError: ttemu: %s raised (a bug in ttemu; traceback above)\n", what);
    fflush(stderr);
    _exit(70);
}

static PyObject *method(const char *name) {
    PyObject *m = py.GetAttrString(host, name);
    check(m, name);
    return m;
}

static void boot(int embedded) {
    PyObject *ns = py.DictNew();
    check(ns, "PyDict_New");
    PyObject *r = py.RunString(embedded ? "embedded = True\n" : "embedded = False\n", FILE_INPUT, ns, ns, NULL);
    check(r, "boot");
    py.DecRef(r);
    r = py.RunString(TTEMU_BOOT, FILE_INPUT, ns, ns, NULL);
    if (!r) {
        py.ErrPrint();
        fatal("ConfigurationError", "could not start ttemu's chip model (Python traceback above)");
    }
    py.DecRef(r);
    host = py.DictGetItemString(ns, "host"); /* borrowed: ns is kept for the process */
    check(host, "boot: no host");
    m_config_rd = method("config_rd32");
    m_config_wr = method("config_wr32");
    m_mem_rd = method("mem_rd");
    m_mem_wr = method("mem_wr");
    m_tile_rd = method("tile_rd");
    m_tile_wr = method("tile_wr");
    PyObject *t = py.CallFunction(method("tlb_registers"), NULL);
    check(t, "tlb_registers");
    tlb_lo = py.AsUnsignedLongLong(py.TupleGetItem(t, 0));
    tlb_hi = py.AsUnsignedLongLong(py.TupleGetItem(t, 1));
    tlb_regs = (uint8_t *)(uintptr_t)py.AsUnsignedLongLong(py.TupleGetItem(t, 2));
    tlb_widths = (uint32_t)py.AsUnsignedLong(py.TupleGetItem(t, 3));
    py.DecRef(t);
    m_clock = method("clock");
    m_window = method("window");
    t = py.CallFunction(method("fast_path"), NULL);
    check(t, "fast_path");
    PyObject *ws = py.TupleGetItem(t, 0);
    n_windows = (int)py.TupleSize(ws);
    if (n_windows > 8) fatal("ConfigurationError", "fast path: more than 8 kinds of TLB window");
    for (int i = 0; i < n_windows; i++) {
        PyObject *w = py.TupleGetItem(ws, i);
        windows[i].lo = py.AsUnsignedLongLong(py.TupleGetItem(w, 0));
        windows[i].hi = py.AsUnsignedLongLong(py.TupleGetItem(w, 1));
        windows[i].first = (uint32_t)py.AsUnsignedLong(py.TupleGetItem(w, 2));
        windows[i].bits = (uint32_t)py.AsUnsignedLong(py.TupleGetItem(w, 3));
    }
    n_targets = (uint32_t)py.AsUnsignedLong(py.TupleGetItem(t, 1));
    entry_bytes = (uint32_t)py.AsUnsignedLong(py.TupleGetItem(t, 2));
    running = (volatile uint8_t *)(uintptr_t)py.AsUnsignedLongLong(py.TupleGetItem(t, 3));
    py.DecRef(t);
    targets = calloc(n_targets, sizeof *targets);
    if (!targets || entry_bytes > sizeof targets->raw) fatal("ConfigurationError", "fast path: no memory");
    if (dma_rd || dma_wr) {
        r = py.CallFunction(method("set_dma"), "KK", (unsigned long long)(uintptr_t)dma_rd,
                            (unsigned long long)(uintptr_t)dma_wr);
        check(r, "set_dma");
        py.DecRef(r);
    }
}

static void require_running(void) {
    if (!host) fatal("ConfigurationError", "sim is not running (libttsim_init was not called)");
}

static unsigned long long take_clocks(void) {
    unsigned long long n = pending;
    pending = 0;
    return n;
}

EXPORT void libttsim_set_pci_dma_mem_callbacks(void (*rd)(uint64_t, void *, uint32_t),
                                               void (*wr)(uint64_t, const void *, uint32_t)) {
    if (host) fatal("ConfigurationError", "sim is already running");
    dma_rd = rd;
    dma_wr = wr;
}

EXPORT void libttsim_init(void) {
    if (host) fatal("ConfigurationError", "sim is already running");
    bind_python();
    if (!py.IsInitialized()) {
        py.InitializeEx(0);
        boot(1);
        py.SaveThread();
        return;
    }
    int g = py.GILEnsure();
    boot(0);
    py.GILRelease(g);
}

EXPORT void libttsim_exit(void) {
    require_running();
    if (python_alive()) {
        int g = py.GILEnsure();
        PyObject *r = py.CallFunction(method("exit"), "K", take_clocks());
        check(r, "exit");
        py.DecRef(r);
        py.GILRelease(g);
    }
    host = NULL;
}

EXPORT void libttsim_clock(uint32_t n_clocks) {
    require_running();
    pending += n_clocks;
}

EXPORT uint32_t libttsim_pci_config_rd32(uint32_t bus_device_function, uint32_t offset) {
    require_running();
    int g = py.GILEnsure();
    PyObject *r = py.CallFunction(m_config_rd, "II", bus_device_function, offset);
    check(r, "config_rd32");
    uint32_t v = (uint32_t)py.AsUnsignedLong(r);
    py.DecRef(r);
    py.GILRelease(g);
    return v;
}

EXPORT void libttsim_pci_config_wr32(uint32_t bus_device_function, uint32_t offset, uint32_t data) {
    require_running();
    int g = py.GILEnsure();
    PyObject *r = py.CallFunction(m_config_wr, "III", bus_device_function, offset, data);
    check(r, "config_wr32");
    py.DecRef(r);
    py.GILRelease(g);
}

/* One access: host.<m>(clocks, [x, y,] address, memoryview of the caller's buffer). */
static void forward(PyObject *m, const char *what, int tile, uint32_t x, uint32_t y, uint64_t addr, void *p,
                   uint32_t size, int flags) {
    require_running();
    int g = py.GILEnsure();
    PyObject *buf = py.MemoryView((char *)p, size, flags);
    check(buf, what);
    unsigned long long clocks = take_clocks(), a = addr;
    PyObject *r = tile ? py.CallFunction(m, "KIIKO", clocks, x, y, a, buf) : py.CallFunction(m, "KKO", clocks, a, buf);
    check(r, what);
    py.DecRef(r);
    py.DecRef(buf);
    py.GILRelease(g);
}

/* What TLB entry `entry` reaches now: looked up in Python when its configuration
 * bytes changed (Host.window: a Tensix tile's L1 buffer, or None for anything else,
 * including a configuration the Python path will refuse). */
static target_t *target(uint32_t entry) {
    target_t *t = &targets[entry];
    const uint8_t *raw = tlb_regs + (size_t)entry * entry_bytes;
    if (t->state && !memcmp(t->raw, raw, entry_bytes)) return t;
    memcpy(t->raw, raw, entry_bytes);
    int g = py.GILEnsure();
    PyObject *arg = py.LongFromULL(entry);
    check(arg, "window");
    PyObject *r = py.CallOneArg(m_window, arg);
    check(r, "window");
    py.DecRef(arg);
    t->state = 2;
    if (py.TupleSize(r) == 4) {
        t->l1 = (uint8_t *)(uintptr_t)py.AsUnsignedLongLong(py.TupleGetItem(r, 0));
        t->l1_size = py.AsUnsignedLongLong(py.TupleGetItem(r, 1));
        t->code = (uint8_t *)(uintptr_t)py.AsUnsignedLongLong(py.TupleGetItem(r, 2));
        t->base = py.AsUnsignedLongLong(py.TupleGetItem(r, 3));
        t->state = 1;
    }
    py.DecRef(r);
    py.GILRelease(g);
    return t;
}

/* The L1 bytes a BAR0 access at paddr reaches, or NULL (then the Python path serves it). */
static uint8_t *l1_at(uint64_t paddr, uint32_t size, target_t **out) {
    for (int i = 0; i < n_windows; i++) {
        const window_t *w = &windows[i];
        if (paddr < w->lo || paddr >= w->hi) continue;
        uint64_t rel = paddr - w->lo, off = rel & ((1ull << w->bits) - 1);
        uint32_t entry = w->first + (uint32_t)(rel >> w->bits);
        if (!size || off + size > (1ull << w->bits) || entry >= n_targets) return NULL;
        target_t *t = target(entry);
        uint64_t addr = t->base | off;
        if (t->state != 1 || addr + size > t->l1_size) return NULL;
        *out = t;
        return t->l1 + addr;
    }
    return NULL;
}

/* Clocks given since the last call are run (in Python) before an access when a core runs. */
static void run_clocks(void) {
    if (!pending || !*running) return;
    int g = py.GILEnsure();
    PyObject *arg = py.LongFromULL(take_clocks());
    check(arg, "clock");
    PyObject *r = py.CallOneArg(m_clock, arg);
    check(r, "clock");
    py.DecRef(r);
    py.DecRef(arg);
    py.GILRelease(g);
}

EXPORT void libttsim_pci_mem_rd_bytes(uint64_t paddr, void *p, uint32_t size) {
    require_running();
    target_t *t;
    uint8_t *l1 = l1_at(paddr, size, &t);
    if (l1) {
        run_clocks();
        memcpy(p, l1, size);
        return;
    }
    forward(m_mem_rd, "mem_rd", 0, 0, 0, paddr, p, size, BUF_WRITE);
}

EXPORT void libttsim_pci_mem_wr_bytes(uint64_t paddr, const void *p, uint32_t size) {
    require_running();
    if (paddr >= tlb_lo && paddr < tlb_hi && size < 32 && (tlb_widths >> size & 1) && !(paddr & (size - 1)) &&
        paddr + size <= tlb_hi) {
        memcpy(tlb_regs + (paddr - tlb_lo), p, size);
        return;
    }
    target_t *t;
    uint8_t *l1 = l1_at(paddr, size, &t);
    if (l1) {
        /* the clocks first: they may translate code in the range (which Python then drops) */
        run_clocks();
        uint64_t first = (uint64_t)(l1 - t->l1) >> 2, last = ((uint64_t)(l1 - t->l1) + size - 1) >> 2;
        while (first <= last && !t->code[first]) first++;
        if (first > last) {
            memcpy(l1, p, size);
            return;
        }
    }
    forward(m_mem_wr, "mem_wr", 0, 0, 0, paddr, (void *)p, size, BUF_READ);
}

EXPORT void libttsim_tile_rd_bytes(uint32_t x, uint32_t y, uint64_t addr, void *p, uint32_t size) {
    forward(m_tile_rd, "tile_rd", 1, x, y, addr, p, size, BUF_WRITE);
}

EXPORT void libttsim_tile_wr_bytes(uint32_t x, uint32_t y, uint64_t addr, const void *p, uint32_t size) {
    forward(m_tile_wr, "tile_wr", 1, x, y, addr, (void *)p, size, BUF_READ);
}
