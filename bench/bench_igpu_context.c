/* Cost of a context switch on the Gen9 model: two contexts take turns on the blitter, each
 * workload one MI_NOOP pair, so the host time per workload is dominated by the context restore
 * and save (the complete Gen9 register-state page, so that no register survives into another
 * guest's context: 68 registers, 680 bytes read and 684 written per switch) plus ELSP, CSB and the submission helper.  Also a workload of
 * one 256x256 fill per switch, to show the switch against real work.  Host wall clock; the
 * modelled GPU time of a switch is the cost model's ctx_switch_ns (2000 ns by default) either
 * way.  Not a test: it prints numbers. */
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

#define GM_SIZE   (16u << 20)
#define ENTRIES   (GM_SIZE / GEN9_GTT_PAGE_SIZE)
#define DATA_PA   (1u << 20)
#define MEM_SIZE  (DATA_PA + GM_SIZE)
#define HWS       0x0000u
#define LRCA_A    0x1000u
#define LRCA_B    0x3000u
#define RING_A    0x8000u
#define RING_B    0xC000u
#define RING_SIZE 0x4000u
#define DST       (4u << 20)
#define MIN_SECS  0.5

#include "bench/bench_igpu_mem.h"

/* Runs cmds alternately in two contexts (or always in A) for MIN_SECS; prints ns/workload. */
static int run(struct igpu_model *m, const char *name, const uint32_t *cmds, size_t n,
               bool alternate)
{
    struct igpu_csb_event ev[6];
    struct igpu_model_stats s0, s1;
    unsigned work = 0;
    double t0 = now(), t;

    igpu_model_stats(m, IGPU_BCS, &s0);
    do {
        uint32_t lrca = alternate && (work & 1u) ? LRCA_B : LRCA_A;
        if (igpu_model_submit_ring(m, IGPU_BCS, lrca, lrca >> 12, cmds, n) != IGPU_OK)
            return fprintf(stderr, "submit failed\n"), 1;
        igpu_model_run_until_idle(m, IGPU_BCS, UINT64_MAX / 2000u);
        if (igpu_model_fault(m, IGPU_BCS))
            return fprintf(stderr, "%s: %s\n", name, igpu_model_fault(m, IGPU_BCS)->detail), 1;
        while (igpu_csb_read(igpu_model_igpu(m), IGPU_BCS, ev, 6) > 0)
            ;
        work++;
        t = now() - t0;
    } while (t < MIN_SECS);
    igpu_model_stats(m, IGPU_BCS, &s1);
    printf("%-38s %9u %12.0f %10" PRIu64 "\n", name, work, t * 1e9 / work,
           (s1.ctx_switches - s0.ctx_switches) / work);
    return 0;
}

int main(void)
{
    struct igpu_model *m;
    struct igpu *g;
    uint32_t noop[2] = { GEN9_MI_NOOP, GEN9_MI_NOOP };
    uint32_t fill[8] = { GEN9_XY_COLOR_BLT,
                         GEN9_BR13_DEPTH_32 | GEN9_BR13_ROP(GEN9_ROP_PAT_COPY) | 1024u,
                         GEN9_BLT_COORD(0, 0),
                         GEN9_BLT_COORD(256, 256),
                         DST,
                         0,
                         0x123456u,
                         GEN9_MI_NOOP };

    m = bench_model();
    if (!m)
        return 1;
    g = igpu_model_igpu(m);
    if (igpu_engine_init(g, IGPU_BCS, HWS) != IGPU_OK ||
        igpu_model_ctx_init(m, IGPU_BCS, LRCA_A, RING_A, RING_SIZE) != IGPU_OK ||
        igpu_model_ctx_init(m, IGPU_BCS, LRCA_B, RING_B, RING_SIZE) != IGPU_OK)
        return 1;

    printf("Gen9 model context switches (host wall clock per workload; every workload on an idle\n"
           "engine restores its context and saves it at the end)\n");
    printf("%-38s %9s %12s %10s\n", "case", "workloads", "ns/workload", "restores");
    if (run(m, "2 contexts alternating, 2 x MI_NOOP", noop, 2, true) ||
        run(m, "1 context, 2 x MI_NOOP", noop, 2, false) ||
        run(m, "2 contexts alternating, 256x256 fill", fill, 8, true))
        return 1;
    igpu_model_destroy(m);
    free(mem);
    return 0;
}
