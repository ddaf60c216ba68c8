/* Command scanner throughput: MB of command buffer scanned per second, for workloads from
 * the cheapest (a ring of MI_NOOPs) to the most involved (a ring starting many batches, each
 * copied into the shadow buffer through the read callback).  "MB" counts every dword the
 * scanner decodes, ring and batches together (10^6 bytes).  Not a test: it prints numbers. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/scanner/scanner.h"

#define GM_BASE   0x01000000ull
#define GM_SIZE   (8u << 20) /* the guest's memory: 8 MiB */
#define SHADOW_GM 0x20000000ull
#define SHADOW_DW (4u << 20)     /* 16 MiB of shadow */
#define RING_DW   (256u * 1024u) /* 1 MiB ring slice */
#define MIN_SECS  0.3

static uint8_t *guest;
static uint32_t *ring_src, *ring, *shadow;

static int guest_read(void *ctx, uint64_t gm, void *dst, size_t len)
{
    (void)ctx;
    if (gm < GM_BASE || gm + len > GM_BASE + GM_SIZE)
        return -1;
    memcpy(dst, guest + (gm - GM_BASE), len);
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t put_addr(uint32_t *p, uint64_t a)
{
    p[0] = (uint32_t)a;
    p[1] = (uint32_t)(a >> 32);
    return 2;
}

/* A mixed render sequence: stores, register loads and reads, pipe controls. */
static size_t gen_render_mix(uint32_t *p, size_t max)
{
    size_t n = 0, i = 0;

    while (n + 16 <= max) {
        uint64_t a = GM_BASE + (i++ * 64) % (GM_SIZE - 64);
        p[n++] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
        n += put_addr(p + n, a);
        p[n++] = (uint32_t)i;
        p[n++] = GEN9_MI_LOAD_REGISTER_IMM(1);
        p[n++] = GEN9_RING_CS_GPR(GEN9_RCS_BASE, i % 16);
        p[n++] = (uint32_t)i;
        p[n++] = GEN9_PIPE_CONTROL;
        p[n++] = GEN9_PIPE_CONTROL_CS_STALL | GEN9_PIPE_CONTROL_GLOBAL_GTT |
                 GEN9_PIPE_CONTROL_WRITE_IMMEDIATE;
        n += put_addr(p + n, a + 8);
        p[n++] = 0;
        p[n++] = 0;
        p[n++] = GEN9_MI_NOOP;
        p[n++] = GEN9_MI_NOOP;
    }
    return n;
}

/* Blits: alternating fills and copies of 64x64 32 bpp rectangles. */
static size_t gen_blits(uint32_t *p, size_t max)
{
    size_t n = 0, i = 0;

    while (n + 17 <= max) {
        uint64_t a = GM_BASE + (i++ % 64) * 65536;
        p[n++] = GEN9_XY_COLOR_BLT;
        p[n++] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | 1024u;
        p[n++] = GEN9_BLT_COORD(0, 0);
        p[n++] = GEN9_BLT_COORD(64, 64);
        n += put_addr(p + n, a);
        p[n++] = 0xFF00FF00u;
        p[n++] = GEN9_XY_SRC_COPY_BLT;
        p[n++] = GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_SRC_COPY) | 1024u;
        p[n++] = GEN9_BLT_COORD(64, 0);
        p[n++] = GEN9_BLT_COORD(128, 64);
        n += put_addr(p + n, a);
        p[n++] = GEN9_BLT_COORD(0, 0);
        p[n++] = 1024u;
        n += put_addr(p + n, a);
    }
    return n;
}

static size_t gen_noops(uint32_t *p, size_t max)
{
    memset(p, 0, max * 4);
    return max;
}

/* 1024 batches of 4 KiB (render mix, ending in MI_BATCH_BUFFER_END) started from the ring. */
static size_t gen_batches(uint32_t *p, size_t max)
{
    size_t n = 0, b;
    const size_t batch_dw = 1024;

    for (b = 0; b < 1024 && n + 3 <= max; b++) {
        uint64_t at = GM_BASE + b * batch_dw * 4;
        uint32_t *dst = (uint32_t *)(guest + (at - GM_BASE));
        size_t k = gen_render_mix(dst, batch_dw - 1);
        while (k < batch_dw - 1)
            dst[k++] = GEN9_MI_NOOP;
        dst[k] = GEN9_MI_BATCH_BUFFER_END;
        p[n++] = GEN9_MI_BATCH_BUFFER_START;
        n += put_addr(p + n, at);
    }
    return n;
}

struct workload {
    const char *name;
    enum igpu_engine engine;
    size_t (*gen)(uint32_t *p, size_t max);
};

static void run(const struct workload *wl)
{
    struct igpu_scan_range range = { GM_BASE, GM_SIZE };
    struct igpu_scan_config cfg = {
        .engine = wl->engine,
        .ranges = &range,
        .n_ranges = 1,
        .max_depth = IGPU_SCAN_HW_MAX_DEPTH,
        .max_batches = 4096,
        .read = guest_read,
        .shadow = shadow,
        .shadow_dw = SHADOW_DW,
        .shadow_gm = SHADOW_GM,
    };
    struct igpu_scan_result res;
    size_t n = wl->gen(ring_src, RING_DW);
    double t0, t, bytes;
    unsigned iters = 0;

    cfg.regs = wl->engine == IGPU_RCS ? igpu_scan_default_regs_rcs : igpu_scan_default_regs_bcs;
    cfg.n_regs = wl->engine == IGPU_RCS ? igpu_scan_default_regs_rcs_count
                                        : igpu_scan_default_regs_bcs_count;
    t0 = now();
    do {
        /* The scan rewrites batch starts in its ring copy: start from a fresh copy. */
        memcpy(ring, ring_src, n * 4);
        if (igpu_scan_ring(&cfg, ring, n, &res) != IGPU_SCAN_OK) {
            char buf[200];
            igpu_scan_error_format(&res.err, buf, sizeof(buf));
            fprintf(stderr, "%s: rejected: %s\n", wl->name, buf);
            exit(1);
        }
        iters++;
        t = now() - t0;
    } while (t < MIN_SECS);
    /* The ring copy is part of each iteration; measure it alone and take it out. */
    {
        double c0 = now();
        unsigned i;
        for (i = 0; i < iters; i++)
            memcpy(ring, ring_src, n * 4);
        t -= now() - c0;
    }
    bytes = ((double)n + (double)res.shadow_used_dw) * 4.0;
    printf("%-22s %-4s %9.0f %8" PRIu32 " %7" PRIu32 " %6u %10.1f %8.1f\n", wl->name,
           wl->engine == IGPU_RCS ? "rcs" : "bcs", bytes / 1024.0, res.commands, res.batches, iters,
           bytes * iters / t / 1e6, t / iters / res.commands * 1e9);
}

int main(void)
{
    static const struct workload wls[] = {
        { "MI_NOOP ring", IGPU_RCS, gen_noops },
        { "render mix ring", IGPU_RCS, gen_render_mix },
        { "blit ring", IGPU_BCS, gen_blits },
        { "1024 x 4 KiB batches", IGPU_RCS, gen_batches },
    };
    size_t i;

    guest = calloc(1, GM_SIZE);
    ring_src = calloc(RING_DW, 4);
    ring = calloc(RING_DW, 4);
    shadow = calloc(SHADOW_DW, 4);
    if (!guest || !ring_src || !ring || !shadow)
        return 1;
    printf("Command scanner throughput (MB = 10^6 bytes of commands decoded, ring + batches)\n");
    printf("%-22s %-4s %9s %8s %7s %6s %10s %8s\n", "workload", "eng", "KiB", "commands", "batches",
           "iters", "MB/s", "ns/cmd");
    for (i = 0; i < sizeof(wls) / sizeof(wls[0]); i++)
        run(&wls[i]);
    free(guest);
    free(ring_src);
    free(ring);
    free(shadow);
    return 0;
}
