/* A C host of a ttsim-ABI library (ttsim's, or ttemu's from `ttemu simlib`): what
 * tt-umd does, without tt-umd. Built and run by tests/test_simlib.py:
 *
 *   simlib_driver LIB wh|bh X Y PROGRAM.bin N
 *
 * dlopens LIB, installs DMA callbacks, initialises it, reads the PCI config space,
 * programs a TLB window onto the Tensix tile at NoC 0 (X, Y) (Wormhole: the first
 * 16-MiB window, one 64-bit entry; Blackhole: the first 2-MiB window, three 32-bit
 * words), writes and reads back L1, loads PROGRAM.bin at BRISC's reset PC with N as
 * its input (tests/simlib_umd_client.py's layout), releases BRISC through the soft
 * reset register and polls its done flag, clock(1) after every read. Prints
 * `key value` lines.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BAR0 0x100000000ull
#define SOFT_RESET 0xFFB121B0u
#define INPUT 0x1000u
#define RESULT 0x1004u
#define DONE 0x1008u

static void (*init)(void), (*fini)(void), (*clk)(uint32_t);
static uint32_t (*cfg_rd)(uint32_t, uint32_t);
static void (*rd)(uint64_t, void *, uint32_t), (*wr)(uint64_t, const void *, uint32_t);
static void (*set_cb)(void (*)(uint64_t, void *, uint32_t), void (*)(uint64_t, const void *, uint32_t));
static int blackhole;
static uint32_t tx, ty;

static void dma_rd(uint64_t a, void *p, uint32_t n) { (void)a; memset(p, 0, n); }
static void dma_wr(uint64_t a, const void *p, uint32_t n) { (void)a; (void)p; (void)n; }

/* Point TLB 0 (Blackhole) / 166 (Wormhole) at `addr` on the tile; return the BAR0 address. */
static uint64_t window(uint32_t addr) {
    if (blackhole) {
        uint32_t cfg[3] = {addr >> 21, (tx << 11) | (ty << 17), 0};
        for (int i = 0; i < 3; i++) wr(BAR0 + 0x1FC00000 + 4 * i, &cfg[i], 4);
        return BAR0 + (addr & 0x1FFFFF);
    }
    uint64_t cfg = (addr >> 24) | ((uint64_t)tx << 12) | ((uint64_t)ty << 18);
    wr(BAR0 + 0x1FC00000 + 8 * 166, &cfg, 8);
    return BAR0 + 0xB000000 + (addr & 0xFFFFFF);
}

static uint32_t rd32(uint32_t addr) {
    uint32_t v;
    rd(window(addr), &v, 4);
    clk(1);
    return v;
}

static void wr32(uint32_t addr, uint32_t v) { wr(window(addr), &v, 4); }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define SYM(v, name)                                                    \
    do {                                                                \
        *(void **)&v = dlsym(h, name);                                  \
        if (!v) { fprintf(stderr, "missing %s\n", name); return 2; }    \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s LIB wh|bh X Y PROGRAM.bin N\n", argv[0]);
        return 2;
    }
    blackhole = !strcmp(argv[2], "bh");
    tx = atoi(argv[3]);
    ty = atoi(argv[4]);
    uint32_t n = atoi(argv[6]);
    void *h = dlopen(argv[1], RTLD_LAZY);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 2; }
    SYM(init, "libttsim_init"); SYM(fini, "libttsim_exit"); SYM(clk, "libttsim_clock");
    SYM(cfg_rd, "libttsim_pci_config_rd32"); SYM(rd, "libttsim_pci_mem_rd_bytes");
    SYM(wr, "libttsim_pci_mem_wr_bytes"); SYM(set_cb, "libttsim_set_pci_dma_mem_callbacks");
    set_cb(dma_rd, dma_wr);
    init();
    printf("id 0x%08x\n", cfg_rd(0, 0));
    printf("absent 0x%08x\n", cfg_rd(1 << 3, 0));
    printf("bar0 0x%08x%08x\n", cfg_rd(0, 0x14), cfg_rd(0, 0x10));

    uint8_t block[256], back[256];
    for (int i = 0; i < 256; i++) block[i] = (uint8_t)(i * 13 + 5);
    wr(window(0x8000), block, sizeof block);
    rd(window(0x8000), back, sizeof back);
    clk(1);
    printf("block %s\n", memcmp(block, back, sizeof block) ? "differs" : "ok");

    FILE *f = fopen(argv[5], "rb");
    if (!f) { perror(argv[5]); return 2; }
    uint8_t code[4096];
    size_t len = fread(code, 1, sizeof code, f);
    fclose(f);
    uint32_t reset = rd32(SOFT_RESET);
    printf("reset 0x%x\n", reset);
    wr(window(0), code, (uint32_t)len);
    wr32(INPUT, n);
    wr32(DONE, 0);
    double t = now();
    wr32(SOFT_RESET, reset & ~(1u << 11));
    uint32_t polls = 0;
    while (rd32(DONE) != 1 && polls < 10 * n + 1000) polls++;
    printf("polls %u\n", polls);
    printf("result %u\n", rd32(RESULT));
    printf("seconds %.6f\n", now() - t);
    fflush(stdout);
    fini();
    return 0;
}
