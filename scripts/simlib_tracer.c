/* A tracing stand-in for a ttsim-ABI library: logs every call a client (tt-umd,
 * tt-exalens, tt-llk's harness) makes, with its arguments and the bytes moved, and
 * forwards it to the real library. How docs/simlib.md's protocol facts were found.
 *
 *   gcc -shared -fPIC -O1 -o DIR/libttsim_wh.so scripts/simlib_tracer.c -ldl
 *   cp soc_descriptor.yaml DIR/        # the real library's, or one `ttemu simlib` wrote
 *   TTSIM_TRACE_REAL=/path/to/real/libttsim_wh.so TTSIM_TRACE_OUT=calls.log \
 *       tt-exalens -s DIR/libttsim_wh.so --commands="brxy 1-1 0x100 2; x"
 *
 * Runs of clock(1) between other calls are folded into one line; bytes beyond the
 * first 64 of an access are elided. Data are shown in memory order.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *real;
static FILE *out;
static uint64_t folded, total;
static void (*f_init)(void), (*f_exit)(void), (*f_clock)(uint32_t);
static uint32_t (*f_cfg_rd)(uint32_t, uint32_t);
static void (*f_cfg_wr)(uint32_t, uint32_t, uint32_t);
static void (*f_rd)(uint64_t, void *, uint32_t), (*f_wr)(uint64_t, const void *, uint32_t);
static void (*f_trd)(uint32_t, uint32_t, uint64_t, void *, uint32_t);
static void (*f_twr)(uint32_t, uint32_t, uint64_t, const void *, uint32_t);
static void (*f_cb)(void *, void *);

static void load(void) {
    if (real) return;
    const char *path = getenv("TTSIM_TRACE_REAL");
    real = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!real) {
        fprintf(stderr, "simlib_tracer: set TTSIM_TRACE_REAL to the real library (%s)\n", path ? dlerror() : "unset");
        _exit(99);
    }
    const char *log = getenv("TTSIM_TRACE_OUT");
    out = log ? fopen(log, "w") : stderr;
    setvbuf(out, NULL, _IOLBF, 0);
    *(void **)&f_init = dlsym(real, "libttsim_init");
    *(void **)&f_exit = dlsym(real, "libttsim_exit");
    *(void **)&f_clock = dlsym(real, "libttsim_clock");
    *(void **)&f_cfg_rd = dlsym(real, "libttsim_pci_config_rd32");
    *(void **)&f_cfg_wr = dlsym(real, "libttsim_pci_config_wr32");
    *(void **)&f_rd = dlsym(real, "libttsim_pci_mem_rd_bytes");
    *(void **)&f_wr = dlsym(real, "libttsim_pci_mem_wr_bytes");
    *(void **)&f_trd = dlsym(real, "libttsim_tile_rd_bytes");
    *(void **)&f_twr = dlsym(real, "libttsim_tile_wr_bytes");
    *(void **)&f_cb = dlsym(real, "libttsim_set_pci_dma_mem_callbacks");
}

static void line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void line(const char *fmt, ...) {
    if (folded) {
        fprintf(out, "[%ld] clock(1) x%llu (%llu clocks so far)\n", (long)syscall(SYS_gettid),
                (unsigned long long)folded, (unsigned long long)total);
        folded = 0;
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(out, "[%ld] ", (long)syscall(SYS_gettid));
    vfprintf(out, fmt, ap);
    va_end(ap);
}

static void bytes(const void *p, uint32_t n) {
    const uint8_t *b = p;
    for (uint32_t i = 0; i < n && i < 64; i++) fprintf(out, "%02x", b[i]);
    fprintf(out, n > 64 ? "...\n" : "\n");
}

void libttsim_set_pci_dma_mem_callbacks(void *rd, void *wr) {
    load();
    line("set_pci_dma_mem_callbacks rd=%p wr=%p\n", rd, wr);
    f_cb(rd, wr);
}

void libttsim_init(void) { load(); line("init\n"); f_init(); }

void libttsim_exit(void) { load(); line("exit\n"); f_exit(); }

void libttsim_clock(uint32_t n) {
    load();
    total += n;
    if (n == 1) folded++;
    else line("clock(%u)\n", n);
    f_clock(n);
}

uint32_t libttsim_pci_config_rd32(uint32_t bdf, uint32_t off) {
    load();
    uint32_t v = f_cfg_rd(bdf, off);
    line("pci_config_rd32 bdf=0x%x offset=0x%x -> 0x%08x\n", bdf, off, v);
    return v;
}

void libttsim_pci_config_wr32(uint32_t bdf, uint32_t off, uint32_t v) {
    load();
    line("pci_config_wr32 bdf=0x%x offset=0x%x <- 0x%08x\n", bdf, off, v);
    f_cfg_wr(bdf, off, v);
}

void libttsim_pci_mem_rd_bytes(uint64_t a, void *p, uint32_t n) {
    load();
    f_rd(a, p, n);
    line("pci_mem_rd 0x%llx n=%u -> ", (unsigned long long)a, n);
    bytes(p, n);
}

void libttsim_pci_mem_wr_bytes(uint64_t a, const void *p, uint32_t n) {
    load();
    line("pci_mem_wr 0x%llx n=%u <- ", (unsigned long long)a, n);
    bytes(p, n);
    f_wr(a, p, n);
}

void libttsim_tile_rd_bytes(uint32_t x, uint32_t y, uint64_t a, void *p, uint32_t n) {
    load();
    line("tile_rd %u-%u 0x%llx n=%u\n", x, y, (unsigned long long)a, n);
    f_trd(x, y, a, p, n);
}

void libttsim_tile_wr_bytes(uint32_t x, uint32_t y, uint64_t a, const void *p, uint32_t n) {
    load();
    line("tile_wr %u-%u 0x%llx n=%u <- ", x, y, (unsigned long long)a, n);
    bytes(p, n);
    f_twr(x, y, a, p, n);
}
