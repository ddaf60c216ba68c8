/*
 * bench_sched_policies.c — the render scheduler's policies side by side.
 *
 * Part 1: FairGV's scenarios in the trace-driven simulator (sched/sched_sim.h), every policy
 *         on the same traces: Min-Max Ratio, Jain's index, aggregated overhead, utilisation,
 *         owner switches.
 * Part 2: decision cost: host nanoseconds per sched_pick() that ends a turn and starts the
 *         next, median and mean of many, for 4..256 vGPUs.
 *
 * Prints numbers; it is not a test.  `make bench MODULE=sched`; docs/benchmarks.md explains.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sched/sched.h"
#include "sched/sched_sim.h"

#define US(x) SCHED_US(x)
#define MS(x) SCHED_MS(x)

/* ---- guests (kernel sizes and call rates after FairGV's Table 3) ---- */

/* An async, GPU-saturating guest (MM, HS): keeps up to max_out workloads queued. */
static struct sched_sim_guest async_guest(uint32_t weight, uint64_t size, uint32_t max_out)
{
    struct sched_sim_guest g;
    memset(&g, 0, sizeof(g));
    g.weight = weight;
    g.sizes[0] = (struct sched_sim_size){ size, 1 };
    g.nsizes = 1;
    g.est_error_pct = 10;
    g.burst = 1;
    g.think_ns = US(5);
    g.max_outstanding = max_out;
    return g;
}

/* A CPU-GPU interactive guest (BS, SRD1): one kernel, then a synchronous wait for it. */
static struct sched_sim_guest sync_guest(uint32_t weight, uint64_t size, uint64_t think,
                                         uint32_t core)
{
    struct sched_sim_guest g = async_guest(weight, size, 1);
    g.sync = true;
    g.think_ns = think;
    g.core = core;
    return g;
}

struct scenario {
    const char *name;
    const char *what;
    struct sched_sim_guest g[64];
    uint32_t n;
    uint32_t ncores;
    uint64_t duration;
};

static uint32_t build(struct scenario *sc, uint32_t max)
{
    uint32_t k = 0;
    static const uint32_t w6[6] = { 1, 2, 2, 3, 3, 4 };

    if (k < max) {
        struct scenario *s = &sc[k++];
        s->name = "3vm-MM";
        s->what = "3 vGPUs 1:2:3, own cores, saturating async 207 us kernels";
        for (uint32_t i = 0; i < 3; i++)
            s->g[i] = async_guest(i + 1, US(207), 64);
        s->n = 3;
    }
    if (k < max) {
        struct scenario *s = &sc[k++];
        s->name = "3vm-HS";
        s->what = "3 vGPUs 1:2:3, own cores, saturating async 133 us kernels";
        for (uint32_t i = 0; i < 3; i++)
            s->g[i] = async_guest(i + 1, US(133), 64);
        s->n = 3;
    }
    if (k < max) {
        struct scenario *s = &sc[k++];
        s->name = "6vm-BS";
        s->what = "6 vGPUs 1:2:2:3:3:4 on 3 cores, interactive: 377 us kernel + sync wait";
        for (uint32_t i = 0; i < 6; i++)
            s->g[i] = sync_guest(w6[i], US(377), US(40), i / 2);
        s->n = 6;
        s->ncores = 3;
    }
    if (k < max) {
        struct scenario *s = &sc[k++];
        s->name = "6vm-SRD1";
        s->what = "6 vGPUs 1:2:2:3:3:4 on 3 cores, interactive: 46 us kernel + sync wait";
        for (uint32_t i = 0; i < 6; i++)
            s->g[i] = sync_guest(w6[i], US(46), US(12), i / 2);
        s->n = 6;
        s->ncores = 3;
    }
    if (k < max) {
        struct scenario *s = &sc[k++];
        s->name = "mixed";
        s->what = "3 vGPUs 1:1:1, saturating: 20 us vs 1.6 ms vs 20 ms, estimates +-50%";
        s->g[0] = async_guest(1, US(20), 256);
        s->g[1] = async_guest(1, US(1600), 16);
        s->g[2] = async_guest(1, MS(20), 4);
        for (uint32_t i = 0; i < 3; i++)
            s->g[i].est_error_pct = 50;
        s->n = 3;
    }
    if (k < max) {
        struct scenario *s = &sc[k++];
        s->name = "sleepy";
        s->what = "3 vGPUs 1:2:3: saturating MM; MM sleeping 50%; MM sleeping 80%";
        s->g[0] = async_guest(1, US(207), 64);
        s->g[1] = async_guest(2, US(207), 8);
        s->g[1].on_ns = MS(20);
        s->g[1].off_ns = MS(20);
        s->g[2] = async_guest(3, US(207), 8);
        s->g[2].on_ns = MS(10);
        s->g[2].off_ns = MS(40);
        s->n = 3;
    }
    if (k < max) {
        struct scenario *s = &sc[k++];
        s->name = "64vm";
        s->what = "64 vGPUs, weights 1..8, saturating async 133/207/377 us kernels";
        for (uint32_t i = 0; i < 64; i++) {
            s->g[i] = async_guest(i % 8 + 1, US(133), 32);
            s->g[i].sizes[1] = (struct sched_sim_size){ US(207), 1 };
            s->g[i].sizes[2] = (struct sched_sim_size){ US(377), 1 };
            s->g[i].nsizes = 3;
        }
        s->n = 64;
        s->duration = MS(60000);
    }
    return k;
}

/* ppm as a decimal with 3 places, rounded; rotating buffers so several fit in one printf. */
static const char *fmt(uint32_t ppm)
{
    static char buf[8][16];
    static unsigned k;
    char *b = buf[k++ % 8];
    uint32_t milli = (ppm + 500u) / 1000u;
    snprintf(b, sizeof(buf[0]), "%u.%03u", milli / 1000u, milli % 1000u);
    return b;
}

static int run_scenarios(void)
{
    static struct scenario sc[8];
    uint32_t nsc = build(sc, 8);
    struct sched_sim_params p;
    sched_sim_params_default(&p);

    printf("Part 1: FairGV scenarios, simulated (switch %llu us, dispatch gap %llu us, "
           "slice 6 ms, %llu s per run after %llu ms warm-up)\n\n",
           (unsigned long long)(p.switch_ns / 1000), (unsigned long long)(p.dispatch_ns / 1000),
           (unsigned long long)(p.duration_ns / 1000000000ull),
           (unsigned long long)(p.warmup_ns / 1000000ull));
    printf("%-9s %-7s %6s %6s %8s %6s %6s %6s %6s %8s %7s\n", "scenario", "policy", "MMR", "Jain",
           "overhead", "MMR", "Jain", "ovrhd", "util", "switch/s", "hints/s");
    printf("%-17s %-22s %-20s\n", "", "|-- vs share ideal --|", "|-- vs gps ideal --|");
    for (uint32_t i = 0; i < nsc; i++) {
        struct scenario *s = &sc[i];
        struct sched_sim_params ps = p;
        ps.ncores = s->ncores;
        if (s->duration)
            ps.duration_ns = s->duration;
        /* The four policies, then fair with a 50 us hold for interactive vGPUs. */
        for (unsigned pol = 0; pol <= SCHED_POLICY_COUNT; pol++) {
            struct sched_config cfg;
            sched_config_default(&cfg);
            cfg.policy = pol < SCHED_POLICY_COUNT ? (enum sched_policy)pol : SCHED_POLICY_FAIR;
            if (pol == SCHED_POLICY_COUNT)
                cfg.hold_ns = US(50);
            struct sched_sim_eval ev;
            struct sched_sim_guest_result gr[64];
            int rc = sched_sim_evaluate(&cfg, s->g, s->n, &ps, &ev, gr);
            if (rc != SCHED_OK) {
                printf("%-9s %-7s error: %s\n", s->name, sched_policy_name(cfg.policy),
                       sched_strerror(rc));
                return 1;
            }
            uint64_t secs = (ps.duration_ns - ps.warmup_ns) / 1000000ull;
            printf("%-9s %-7s", s->name, cfg.hold_ns ? "fair+h" : sched_policy_name(cfg.policy));
            printf(" %6s %6s %8s %6s %6s %6s %6s", fmt(ev.mmr_ppm), fmt(ev.jain_ppm),
                   fmt(ev.overhead_ppm), fmt(ev.mmr_gps_ppm), fmt(ev.jain_gps_ppm),
                   fmt(ev.overhead_gps_ppm), fmt(ev.utilisation_ppm));
            printf(" %8llu %7llu\n", (unsigned long long)(ev.switches * 1000 / secs),
                   (unsigned long long)(ev.hints * 1000 / secs));
        }
    }
    printf("\n");
    for (uint32_t i = 0; i < nsc; i++)
        printf("  %-9s %s\n", sc[i].name, sc[i].what);
    printf("\n");
    return 0;
}

/* ---- Part 2: decision cost ---- */

/*
 * K schedulers in the same state are driven in lock step; one timed block is one
 * sched_pick() on each of them, back to back, so the clock's resolution and cost are spread
 * over K picks.  Every workload costs more than a slice, so each pick ends the owner's turn
 * and starts the next: the policy's whole decision (charge, re-queue, select).  The fake
 * scheduler clock advances with the simulated GPU time, so periodic accounting (rr balance,
 * credit refill, las decay) happens at its real rate and shows in the mean.
 */
#define K      16u
#define BLOCKS 12000u
#define DEPTH  4u

struct inst {
    struct sched *s;
    uint64_t now;
    uint64_t next_id[256];
};

static uint64_t inst_clock(void *ctx)
{
    return ((const struct inst *)ctx)->now;
}

static uint64_t host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void refill(struct inst *in, uint32_t v)
{
    while (sched_vgpu_queued(in->s, v) < DEPTH) {
        struct sched_workload w = { .id = in->next_id[v]++, .est_ns = MS(7) };
        sched_submit(in->s, v, &w);
    }
}

/* ns per pick: median and mean over BLOCKS blocks of K picks. */
static int pick_cost(enum sched_policy pol, uint32_t n, uint64_t *median, uint64_t *mean)
{
    static struct inst in[K];
    static struct sched_decision d[K];
    uint64_t *t = malloc(BLOCKS * sizeof(*t));
    int rc = t ? 0 : -1;
    memset(in, 0, sizeof(in));
    for (uint32_t k = 0; k < K && rc == 0; k++) {
        struct sched_config cfg;
        sched_config_default(&cfg);
        cfg.policy = pol;
        cfg.max_vgpus = n;
        cfg.queue_depth = DEPTH;
        struct sched_clock clk = { .now = inst_clock, .ctx = &in[k] };
        if (sched_create(&cfg, &clk, &in[k].s) != SCHED_OK) {
            rc = -1;
            break;
        }
        for (uint32_t v = 0; v < n; v++) {
            sched_vgpu_add(in[k].s, v, v % 8 + 1);
            refill(&in[k], v);
        }
    }
    uint64_t sum = 0;
    for (uint32_t b = 0; b < BLOCKS && rc == 0; b++) {
        uint64_t t0 = host_ns();
        for (uint32_t k = 0; k < K; k++)
            sched_pick(in[k].s, &d[k]);
        t[b] = host_ns() - t0;
        sum += t[b];
        for (uint32_t k = 0; k < K; k++) {
            if (d[k].kind != SCHED_PICK_DISPATCH) {
                in[k].now += MS(1);
                continue;
            }
            for (uint32_t j = 0; j < d[k].count; j++) {
                in[k].now += MS(7);
                sched_complete(in[k].s, d[k].vgpu, d[k].first_id + j, MS(7));
            }
            refill(&in[k], d[k].vgpu);
        }
    }
    if (rc == 0) {
        qsort(t, BLOCKS, sizeof(*t), cmp_u64);
        *median = (t[BLOCKS / 2] + K / 2) / K;
        *mean = (sum / BLOCKS + K / 2) / K;
    }
    for (uint32_t k = 0; k < K; k++)
        sched_destroy(in[k].s);
    free(t);
    return rc;
}

static int run_pick_cost(void)
{
    static const uint32_t sizes[] = { 4, 8, 16, 32, 64, 128, 256 };
    const size_t ns = sizeof(sizes) / sizeof(sizes[0]);
    uint64_t med[SCHED_POLICY_COUNT][7], avg[SCHED_POLICY_COUNT][7];
    for (unsigned pol = 0; pol < SCHED_POLICY_COUNT; pol++)
        for (size_t i = 0; i < ns; i++)
            if (pick_cost((enum sched_policy)pol, sizes[i], &med[pol][i], &avg[pol][i]) != 0)
                return 1;
    printf("Part 2: decision cost, host ns per sched_pick() that ends a turn and starts the "
           "next\n(blocks of %u picks on %u schedulers in lock step, %u blocks)\n\n",
           K, K, BLOCKS);
    for (int which = 0; which < 2; which++) {
        printf("%-7s", which ? "mean" : "median");
        for (size_t i = 0; i < ns; i++)
            printf(" %6u", sizes[i]);
        printf("   vGPUs\n");
        for (unsigned pol = 0; pol < SCHED_POLICY_COUNT; pol++) {
            printf("%-7s", sched_policy_name((enum sched_policy)pol));
            for (size_t i = 0; i < ns; i++)
                printf(" %6llu", (unsigned long long)(which ? avg : med)[pol][i]);
            printf("\n");
        }
        printf("\n");
    }
    return 0;
}

int main(void)
{
    if (run_scenarios() != 0)
        return 1;
    return run_pick_cost();
}
