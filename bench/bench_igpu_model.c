/* Gen9 model blit throughput: how fast the software model executes XY_COLOR_BLT and
 * XY_SRC_COPY_BLT on the host (wall-clock pixels/s and MB/s of destination written), for
 * full-screen and small blits, 32 and 16 bpp, linear and X-tiled. Each blit goes through the
 * whole path: ELSP submission, context restore, ring fetch, GGTT translation and the memory
 * callbacks. The last column is the GPU time the cost model charges per blit (default costs).
 * "MB" is 10^6 bytes. Not a test: it prints numbers. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drivers/igpu/gen9_cmd.h"
#include "drivers/igpu/gen9_context.h"
#include "drivers/igpu/gen9_gtt.h"
#include "drivers/igpu/gen9_regs.h"
#include "drivers/igpu/model/igpu_model.h"

#define GM_SIZE   (64u << 20) /* graphics memory modelled */
#define ENTRIES   (GM_SIZE / GEN9_GTT_PAGE_SIZE)
#define DATA_PA   (1u << 20) /* GGTT entries below, pages above */
#define MEM_SIZE  (DATA_PA + GM_SIZE)
#define HWS       0x0000u
#define LRCA      0x1000u
#define RING      0x4000u
#define RING_SIZE 0x4000u
#define DST       (4u << 20)
#define SRC       (32u << 20)
#define MIN_SECS  0.3

#include "bench/bench_igpu_mem.h"

struct bcase {
    const char *name;
    bool copy;
    uint32_t depth, cpp;
    uint32_t w, h;
    bool tiled;
};

/* One blit of the case, as ring dwords; returns the count. */
static size_t emit(const struct bcase *c, uint32_t *p)
{
    uint32_t pitch = c->tiled ? 8192u : c->w * c->cpp;
    uint32_t br13 = c->depth | GEN9_BR13_ROP(c->copy ? GEN9_ROP_SRC_COPY : GEN9_ROP_PAT_COPY) |
                    (c->tiled ? pitch / 4u : pitch);
    size_t n = 0;
    p[n++] = (c->copy ? GEN9_XY_SRC_COPY_BLT : GEN9_XY_COLOR_BLT) |
             (c->tiled ? GEN9_BLT_DST_TILED : 0);
    p[n++] = br13;
    p[n++] = GEN9_BLT_COORD(0, 0);
    p[n++] = GEN9_BLT_COORD(c->w, c->h);
    p[n++] = DST;
    p[n++] = 0;
    if (c->copy) {
        p[n++] = GEN9_BLT_COORD(0, 0);
        p[n++] = c->w * c->cpp;
        p[n++] = SRC;
        p[n++] = 0;
    } else {
        p[n++] = 0xFF336699u;
    }
    return n;
}

static int run_case(struct igpu_model *m, const struct bcase *c)
{
    uint32_t cmds[64];
    size_t n = 0;
    unsigned per_submit = 4, blits = 0;
    struct igpu_csb_event ev[6];
    struct igpu_model_stats s0, s1;
    double t0, t;
    const struct igpu_model_fault *f;

    for (unsigned i = 0; i < per_submit; i++)
        n += emit(c, cmds + n);
    igpu_model_stats(m, IGPU_BCS, &s0);
    t0 = now();
    do {
        if (igpu_model_submit_ring(m, IGPU_BCS, LRCA, 1, cmds, n) != IGPU_OK) {
            fprintf(stderr, "submit failed\n");
            return 1;
        }
        igpu_model_run_until_idle(m, IGPU_BCS, UINT64_MAX / 2000u);
        if ((f = igpu_model_fault(m, IGPU_BCS))) {
            fprintf(stderr, "%s: model fault: %s\n", c->name, f->detail);
            return 1;
        }
        while (igpu_csb_read(igpu_model_igpu(m), IGPU_BCS, ev, 6) > 0)
            ;
        blits += per_submit;
        t = now() - t0;
    } while (t < MIN_SECS);
    igpu_model_stats(m, IGPU_BCS, &s1);
    {
        double px = (double)blits * c->w * c->h;
        double gpu_ns = (double)(s1.busy_ns - s0.busy_ns) / blits;
        printf("%-26s %9u %10.1f %10.1f %12.0f\n", c->name, blits, px / t / 1e6,
               px * c->cpp / t / 1e6, gpu_ns);
    }
    return 0;
}

int main(void)
{
    static const struct bcase cases[] = {
        { "fill 1920x1080 32bpp", false, GEN9_BR13_DEPTH_32, 4, 1920, 1080, false },
        { "copy 1920x1080 32bpp", true, GEN9_BR13_DEPTH_32, 4, 1920, 1080, false },
        { "fill 1920x1080 16bpp", false, GEN9_BR13_DEPTH_16_565, 2, 1920, 1080, false },
        { "fill 1920x1080 X-tiled", false, GEN9_BR13_DEPTH_32, 4, 1920, 1080, true },
        { "fill 256x256 32bpp", false, GEN9_BR13_DEPTH_32, 4, 256, 256, false },
        { "copy 256x256 32bpp", true, GEN9_BR13_DEPTH_32, 4, 256, 256, false },
        { "fill 16x16 32bpp", false, GEN9_BR13_DEPTH_32, 4, 16, 16, false },
    };
    struct igpu_model *m;
    struct igpu *g;

    m = bench_model();
    if (!m)
        return 1;
    g = igpu_model_igpu(m);
    for (uint32_t i = 0; i < 16u << 20; i++)
        mem[DATA_PA + SRC + i] = (uint8_t)(i * 31u);
    if (igpu_engine_init(g, IGPU_BCS, HWS) != IGPU_OK ||
        igpu_model_ctx_init(m, IGPU_BCS, LRCA, RING, RING_SIZE) != IGPU_OK)
        return 1;

    printf("Gen9 model blit throughput (host wall clock; MB = 10^6 bytes written)\n");
    printf("%-26s %9s %10s %10s %12s\n", "case", "blits", "Mpixel/s", "MB/s", "model ns/blit");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (run_case(m, &cases[i]))
            return 1;
    igpu_model_destroy(m);
    free(mem);
    return 0;
}
