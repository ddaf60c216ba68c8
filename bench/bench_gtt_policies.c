/* Graphics-memory policies side by side on the same busy/idle traces, to show what
 * each of Tessera's graphics-memory choices buys over the published ones.
 *
 *   static      GVT-g style static partition: private ranges, nothing copied; how many fit?
 *   gs-basic    gScale-basic: private shadow GTT, the incoming vGPU's whole allotment written on
 *               every switch (no slot sharing optimisation), idle vGPUs skipped.
 *   gscale      gScale: 384 MiB slots (one vGPU's high GM) shared round-robin, all low-GM
 *               windows on the same 64 MiB, per-range owner tracking (a window or slot is written
 *               if anyone else's value is in it), idle vGPUs skipped.
 *   tessera-fix 64 MiB slots and low windows spread at creation and never moved, per-entry
 *               owner tracking, predictive copying ahead of each switch (Tessera before
 *               re-placement).
 *   tessera-nb  + re-placement: every 0.5 s the vGPUs that ran in the last period are planned
 *               apart (gtt_plan) and moved (gtt_vgpu_relocate); no balloon controller.
 *   tessera     + the gBalloon controller resizing slot ranges every 0.5 s.
 *   tessera-sp  the same with non-contiguous slot sets (windows re-placed, slot sets not).
 *
 * Every row prints the floor of its case (gtt_floor_cycle: the entries any placement must write
 * per switch when the busy vGPUs take turns, given their sizes and the GGTT and aperture) and
 * Tessera's figure beside it: all entries it wrote per switch (switch path, ahead, balloon and
 * re-placement).
 *
 * Guests ask 64 MiB low / 384 MiB high GM.  GGTT 4 GiB, aperture 256 MiB, host area 16 MiB,
 * fence pool 32 MiB (the same reservation for every policy, so only the copying policy differs).
 * Time advances in 6 ms slices; the scheduler runs the busy vGPUs round-robin and skips idle
 * ones; every 3 s one busy guest goes idle and an idle one becomes busy (fixed seed).
 *
 * Cost of one entry: COST_PS below, derived from gScale's own measurement (see docs/benchmarks.md):
 * gScale-basic copying 64 + 384 MiB = 114688 entries took 21.8% of GPU time with gVirt's 16 ms
 * slice, i.e. 114688 c / (16 ms + 114688 c) = 0.218, c = 38.9 ns per entry (an uncached 8-byte
 * write into the GGTT plus the shadow read).  The benchmark also measures this library's own
 * software cost per entry on this host (writing into RAM), a lower bound. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gtt/gtt.h"

#define MIB      GTT_MIB
#define SLICE_US 6000u
#define COST_PS  38900u /* 38.9 ns per entry */
#define SLICES   3000u  /* 18 s of GPU time per run */
#define PHASE    500u   /* busy set changes every 3 s */
#define PERIOD   83u    /* balloon controller every ~0.5 s (83 x 6 ms) */

enum policy {
    P_STATIC,
    P_BASIC,
    P_GSCALE,
    P_TESSERA_FIX,
    P_TESSERA_NB,
    P_TESSERA,
    P_TESSERA_SP,
    P_COUNT
};
static const char *const policy_name[P_COUNT] = { "static",      "gs-basic",   "gscale",
                                                  "tessera-fix", "tessera-nb", "tessera",
                                                  "tessera-sp" };

/* ---- a minimal machine: the GGTT is an array ----------------------------------------------- */

struct machine {
    uint64_t *ggtt;
    uint32_t n;
};

static void m_write(void *ctx, uint32_t index, uint64_t pte)
{
    struct machine *m = ctx;
    m->ggtt[index] = pte;
}

static int m_translate(void *ctx, unsigned vgpu, uint64_t gpa, uint64_t *hpa)
{
    (void)ctx;
    *hpa = ((uint64_t)(vgpu + 1) << 30) + gpa;
    return 0;
}

/* ---- traces -------------------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* busy[phase][v]: the same trace is replayed for every policy. */
struct trace {
    unsigned n, b, phases;
    unsigned char busy[SLICES / PHASE + 1][GTT_MAX_VGPUS];
};

static void make_trace(struct trace *t, unsigned n, unsigned b, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    t->n = n;
    t->b = b;
    t->phases = SLICES / PHASE + 1;
    unsigned have = 0;
    while (have < b) {
        unsigned v = (unsigned)(rng_next(&seed) % n);
        if (!t->busy[0][v]) {
            t->busy[0][v] = 1;
            have++;
        }
    }
    for (unsigned p = 1; p < t->phases; p++) {
        memcpy(t->busy[p], t->busy[p - 1], sizeof t->busy[p]);
        if (b == n)
            continue;
        unsigned out, in;
        do
            out = (unsigned)(rng_next(&seed) % n);
        while (!t->busy[p][out]);
        do
            in = (unsigned)(rng_next(&seed) % n);
        while (t->busy[p][in]);
        t->busy[p][out] = 0;
        t->busy[p][in] = 1;
    }
}

/* ---- setting a policy up ------------------------------------------------------------------- */

static void layout_params(struct gtt_layout_params *p, enum policy pol, unsigned n,
                          const struct gtt_guest_request *req, uint64_t aperture)
{
    gtt_layout_defaults(p, n, req);
    p->aperture_bytes = aperture;
    switch (pol) {
    case P_STATIC:
        p->share = GTT_SHARE_NONE;
        p->fence_pool_bytes = 0; /* GVT-g partitions fences directly, no pool */
        break;
    case P_BASIC:
    case P_GSCALE:
        p->slot_bytes = 384 * MIB; /* a gScale slot holds one vGPU's high GM */
        break;
    default:
        break;
    }
}

struct run {
    struct machine m;
    struct gtt_layout lay;
    struct gtt g;
};

static int setup(struct run *r, enum policy pol, unsigned n, uint64_t aperture)
{
    struct gtt_guest_request req[GTT_MAX_VGPUS];
    for (unsigned i = 0; i < n; i++)
        req[i] = (struct gtt_guest_request){ 64 * MIB, 384 * MIB };
    struct gtt_layout_params p;
    layout_params(&p, pol, n, req, aperture);
    if (gtt_layout_compute(&p, &r->lay, NULL, 0))
        return -1;
    r->m.n = (uint32_t)(r->lay.ggtt_bytes >> 12);
    r->m.ggtt = calloc(r->m.n, sizeof *r->m.ggtt);
    struct gtt_config c = {
        .layout = &r->lay,
        .ops = { .ctx = &r->m, .ggtt_write = m_write, .translate = m_translate },
        .scratch_pte = 1,
        .copy = pol == P_BASIC  ? GTT_COPY_FULL
              : pol == P_GSCALE ? GTT_COPY_RANGE
                                : GTT_COPY_ENTRY,
        .slots = pol == P_TESSERA_SP ? GTT_SLOTS_SPARSE : GTT_SLOTS_CONTIGUOUS,
    };
    if (!r->m.ggtt || gtt_init(&r->g, &c))
        return -1;
    for (unsigned i = 0; i < n; i++) {
        int rc;
        if (pol == P_BASIC || pol == P_GSCALE) {
            /* gScale: every window on the same low GM, slot i mod slots. */
            unsigned slot = i % r->lay.n_slots;
            struct gtt_vgpu_spec sp = { .low = { r->lay.low_guest.start, 64 * MIB },
                                        .n_slots = 1,
                                        .slots = &slot,
                                        .min_slots = 1,
                                        .max_slots = 1 };
            rc = gtt_vgpu_create(&r->g, i, &sp);
        } else {
            rc = gtt_vgpu_create_from_layout(&r->g, i);
        }
        if (rc)
            return -1;
    }
    return 0;
}

static void teardown(struct run *r)
{
    gtt_fini(&r->g);
    free(r->m.ggtt);
}

/* ---- one simulated run --------------------------------------------------------------------- */

struct result {
    bool fits;
    uint64_t switches, entries_switch, entries_predict, entries_balloon, entries_move;
    uint64_t balloon_events, moves;
    unsigned busy_slots_x100; /* average slots held by the busy vGPUs at the end, x100 */
};

static unsigned next_busy(const unsigned char *busy, unsigned n, unsigned cur)
{
    for (unsigned k = 1; k <= n; k++) {
        unsigned v = (cur == GTT_NO_VGPU ? k - 1 : cur + k) % n;
        if (busy[v])
            return v;
    }
    return GTT_NO_VGPU;
}

static struct result simulate(enum policy pol, const struct trace *t, uint64_t aperture)
{
    struct result res = { 0 };
    struct run *r = calloc(1, sizeof *r);
    if (!r || setup(r, pol, t->n, aperture)) {
        if (r && r->m.ggtt)
            teardown(r);
        free(r);
        return res;
    }
    res.fits = true;
    bool tess = pol >= P_TESSERA_FIX;
    bool ballooned = pol == P_TESSERA || pol == P_TESSERA_SP;
    bool replaced = pol >= P_TESSERA_NB;
    bool ran[GTT_MAX_VGPUS] = { 0 }, movable[GTT_MAX_VGPUS];
    for (unsigned v = 0; v < GTT_MAX_VGPUS; v++)
        movable[v] = true;
    /* Boot: every vGPU has run once (GVT-g writes its entries at creation time). */
    for (unsigned v = 0; v < t->n; v++) {
        gtt_set_active(&r->g, v, true);
        gtt_switch_to(&r->g, v);
    }
    struct gtt_stats base = r->g.st;
    uint64_t seen = 0;
    struct gtt_ctl_params ctl;
    gtt_ctl_defaults(&ctl);

    unsigned cur = GTT_NO_VGPU;
    for (unsigned s = 0; s < SLICES; s++) {
        const unsigned char *busy = t->busy[s / PHASE];
        if (s % PHASE == 0)
            for (unsigned v = 0; v < t->n; v++)
                gtt_set_active(&r->g, v, busy[v]);
        unsigned next = next_busy(busy, t->n, cur);
        if (next != GTT_NO_VGPU && next != cur) {
            if (tess && cur != GTT_NO_VGPU)
                gtt_predict(&r->g, next); /* during cur's slice */
            gtt_switch_to(&r->g, next);
            cur = next;
        }
        if (cur != GTT_NO_VGPU)
            ran[cur] = true;
        if (replaced && s % PERIOD == PERIOD - 1) {
            /* Re-placement: the vGPUs that ran in the last period, planned apart; the one that
             * owns the engine is moved at a later period (its guest is mid-turn). */
            struct gtt_move mv[GTT_MAX_VGPUS];
            int n = gtt_plan(&r->g, &(struct gtt_plan_input){ .busy = ran, .movable = movable }, mv,
                             GTT_MAX_VGPUS, NULL);
            for (int i = 0; i < n; i++)
                if (mv[i].vgpu != cur)
                    gtt_vgpu_relocate(&r->g, mv[i].vgpu, mv[i].low, mv[i].first_slot);
            memset(ran, 0, sizeof ran);
        }
        if (ballooned && s % PERIOD == PERIOD - 1) {
            /* R_copy: CPU share of one core spent copying in this period. */
            uint64_t now = r->g.st.entries_switch + r->g.st.entries_predict +
                           r->g.st.entries_balloon + r->g.st.entries_move;
            uint64_t period_entries = now - seen;
            seen = now;
            uint64_t period_ps = (uint64_t)PERIOD * SLICE_US * 1000000u;
            uint32_t rcopy_ppm = (uint32_t)(period_entries * COST_PS * 1000000u / period_ps);
            uint32_t util[GTT_MAX_VGPUS];
            unsigned want[GTT_MAX_VGPUS];
            for (unsigned v = 0; v < t->n; v++) {
                struct gtt_vgpu *gv = gtt_vgpu_get(&r->g, v);
                util[v] = busy[v] ? 900 : 100;
                want[v] = busy[v] && gv->n_slots < gv->max_slots ? 1 : 0;
            }
            struct gtt_ctl_report rep;
            gtt_balloon_period(&r->g, &ctl, 0, rcopy_ppm, util, want, &rep);
        }
    }
    res.switches = r->g.st.switches - base.switches;
    res.entries_switch = r->g.st.entries_switch - base.entries_switch;
    res.entries_predict = r->g.st.entries_predict - base.entries_predict;
    res.entries_balloon = r->g.st.entries_balloon - base.entries_balloon;
    res.entries_move = r->g.st.entries_move - base.entries_move;
    res.balloon_events = r->g.st.balloon_grows + r->g.st.balloon_shrinks;
    res.moves = r->g.st.moves - base.moves;
    const unsigned char *busy_end = t->busy[(SLICES - 1) / PHASE];
    unsigned nb = 0, slots = 0;
    for (unsigned v = 0; v < t->n; v++)
        if (busy_end[v]) {
            nb++;
            slots += gtt_vgpu_get(&r->g, v)->n_slots;
        }
    /* gScale's 384 MiB slot is six of Tessera's 64 MiB ones: report in 64 MiB units. */
    unsigned unit = (unsigned)(r->lay.slot_bytes / (64 * MIB));
    res.busy_slots_x100 = nb ? slots * unit * 100 / nb : 0;
    teardown(r);
    free(r);
    return res;
}

/* Share of GPU time lost to copying on the switch path over the whole run: the GPU waits for
 * those entries, so copy / (copy + busy slices), in hundredths of a percent. */
static unsigned gpu_share_bp(uint64_t entries, uint32_t slice_us)
{
    uint64_t copy_ps = entries * COST_PS;
    uint64_t run_ps = (uint64_t)SLICES * slice_us * 1000000u;
    return (unsigned)(copy_ps * 10000 / (copy_ps + run_ps));
}

/* CPU time spent copying (switch path, predictive and balloon) as a share of one core. */
static unsigned cpu_share_bp(uint64_t entries, uint32_t slice_us)
{
    uint64_t copy_ps = entries * COST_PS;
    uint64_t run_ps = (uint64_t)SLICES * slice_us * 1000000u;
    return (unsigned)(copy_ps * 10000 / run_ps);
}

/* ---- measured software cost per entry ------------------------------------------------------ */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double measure_entry_ns(void)
{
    struct run *r = calloc(1, sizeof *r);
    if (!r || setup(r, P_BASIC, 2, 256 * MIB))
        return 0;
    gtt_set_active(&r->g, 0, true);
    gtt_set_active(&r->g, 1, true);
    uint64_t e0 = r->g.st.entries_switch;
    double t0 = now_ns();
    for (unsigned k = 0; k < 200; k++)
        gtt_switch_to(&r->g, k & 1);
    double t1 = now_ns();
    uint64_t e = r->g.st.entries_switch - e0;
    teardown(r);
    free(r);
    return e ? (t1 - t0) / (double)e : 0;
}

/* ---- the floor ----------------------------------------------------------------------------- */

/* Entries any placement must write per switch while b busy guests of this benchmark take turns:
 * the floor of their low windows in the guest low area plus that of their slot ranges in the
 * slots (gtt_floor_cycle, per cycle of b switches). */
static uint64_t floor_per_switch(unsigned n, unsigned b, uint64_t aperture)
{
    struct gtt_guest_request req[GTT_MAX_VGPUS];
    for (unsigned i = 0; i < n; i++)
        req[i] = (struct gtt_guest_request){ 64 * MIB, 384 * MIB };
    struct gtt_layout_params p;
    static struct gtt_layout lay;
    layout_params(&p, P_TESSERA, n, req, aperture);
    if (b < 2 || gtt_layout_compute(&p, &lay, NULL, 0))
        return 0;
    uint64_t low[GTT_MAX_VGPUS], high[GTT_MAX_VGPUS];
    for (unsigned i = 0; i < b; i++) {
        low[i] = (64 * MIB) >> 12;
        high[i] = gtt_layout_slots_for(&lay, 384 * MIB);
    }
    uint64_t cycle = gtt_floor_cycle(lay.low_guest.size >> 12, low, b) +
                     gtt_floor_cycle(lay.n_slots, high, b) * (lay.slot_bytes >> 12);
    return cycle / b;
}

/* Host time of one gtt_plan() call with every one of n vGPUs busy, after they took turns once
 * (what the hypervisor pays every balloon period). */
static double measure_plan_us(unsigned n)
{
    struct run *r = calloc(1, sizeof *r);
    if (!r || setup(r, P_TESSERA_NB, n, 256 * MIB))
        return 0;
    bool busy[GTT_MAX_VGPUS] = { 0 }, movable[GTT_MAX_VGPUS];
    for (unsigned v = 0; v < GTT_MAX_VGPUS; v++)
        movable[v] = true, busy[v] = v < n;
    for (unsigned v = 0; v < n; v++) {
        gtt_set_active(&r->g, v, true);
        gtt_switch_to(&r->g, v);
    }
    struct gtt_move mv[GTT_MAX_VGPUS];
    double t0 = now_ns();
    for (unsigned k = 0; k < 20; k++)
        gtt_plan(&r->g, &(struct gtt_plan_input){ .busy = busy, .movable = movable }, mv,
                 GTT_MAX_VGPUS, NULL);
    double t1 = now_ns();
    teardown(r);
    free(r);
    return (t1 - t0) / 20 / 1000;
}

/* ---- capacity ------------------------------------------------------------------------------ */

static unsigned max_fit(enum policy pol, uint64_t aperture, uint64_t pool)
{
    struct gtt_guest_request req[GTT_MAX_VGPUS];
    static struct gtt_layout lay;
    unsigned best = 0;
    for (unsigned n = 1; n <= GTT_MAX_VGPUS; n++) {
        for (unsigned i = 0; i < n; i++)
            req[i] = (struct gtt_guest_request){ 64 * MIB, 384 * MIB };
        struct gtt_layout_params p;
        layout_params(&p, pol, n, req, aperture);
        if (pool)
            p.fence_pool_bytes = pool;
        if (gtt_layout_compute(&p, &lay, NULL, 0))
            break;
        best = n;
    }
    return best;
}

/* `bench_gtt_policies curve N`: entries per switch against the number of busy guests, for
 * make bench-system's plot (bench/system/report.py): busy, tessera-fix switch path and all,
 * tessera-nb switch path, ahead and all, floor. */
static int curve(unsigned n)
{
    static struct trace t;
    const unsigned bs[] = { 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64 };
    printf(
        "busy fix-switch fix-total switch ahead total floor (%u guests of 64 + 384 MiB, per switch)\n",
        n);
    for (unsigned i = 0; i < sizeof bs / sizeof bs[0] && bs[i] <= n; i++) {
        make_trace(&t, n, bs[i], 0x9e3779b97f4a7c15u ^ (n * 131u + bs[i]));
        struct result f = simulate(P_TESSERA_FIX, &t, 256 * MIB);
        struct result r = simulate(P_TESSERA_NB, &t, 256 * MIB);
        uint64_t fs = f.switches ? f.switches : 1, rs = r.switches ? r.switches : 1;
        printf("%u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
               bs[i], f.entries_switch / fs, (f.entries_switch + f.entries_predict) / fs,
               r.entries_switch / rs, r.entries_predict / rs,
               (r.entries_switch + r.entries_predict + r.entries_move) / rs,
               floor_per_switch(n, bs[i], 256 * MIB));
    }
    return 0;
}

int main(int argc, char **argv)
{
    static struct trace t;
    const unsigned ns[] = { 3, 15, 32, 64 };
    if (argc == 3 && strcmp(argv[1], "curve") == 0)
        return curve((unsigned)atoi(argv[2]));

    printf("gtt policies: guests 64 MiB low / 384 MiB high, GGTT 4 GiB, aperture 256 MiB, "
           "host 16 MiB, fence pool 32 MiB\n");
    printf("slice %u ms, %u slices per run (busy set changes every %u slices), cost %u.%u ns "
           "per entry (from gScale's 21.8%%, see docs/benchmarks.md)\n",
           SLICE_US / 1000, SLICES, PHASE, COST_PS / 1000, COST_PS % 1000 / 100);
    printf("measured software cost of this library's copy loop into RAM: %.2f ns/entry "
           "(lower bound; the real GGTT is uncached MMIO)\n",
           measure_entry_ns());
    printf("measured cost of one re-placement plan (gtt_plan) with all busy: %.0f us at 15, "
           "%.0f us at 32, %.0f us at 64 vGPUs\n\n",
           measure_plan_us(15), measure_plan_us(32), measure_plan_us(64));

    printf("entries/sw: entries written on the switch path per switch; ahead/sw: written ahead\n"
           "of the switch while the previous vGPU runs; total/sw: every entry written per switch\n"
           "(switch path, ahead, balloon, re-placement); floor/sw: the least any placement must\n"
           "write per switch while the busy guests take turns (their sizes, the GGTT and the\n"
           "aperture; transitions of the busy set not counted); x floor: total / floor;\n"
           "gpu%%: share of GPU time lost to switch-path copying (6 ms slice, and gVirt's 16 ms\n"
           "for comparison with gScale); cpu%%: all copying as a share of one CPU core;\n"
           "slots/busy: 64 MiB slots held by each busy guest at the end (6 = the 384 MiB asked);\n"
           "balloon: grow/shrink events; moves: re-placements\n\n");
    printf("%-11s %3s %4s %4s %8s %10s %9s %9s %9s %7s %7s %8s %7s %10s %7s %5s\n", "policy", "N",
           "busy", "fits", "switches", "entries/sw", "ahead/sw", "total/sw", "floor/sw", "x floor",
           "gpu%6ms", "gpu%16ms", "cpu%6ms", "slots/busy", "balloon", "moves");
    for (unsigned ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        unsigned n = ns[ni];
        const unsigned bs[4] = { 1, 3, n / 2, n };
        unsigned nb = 0, uniq[4];
        for (unsigned k = 0; k < 4; k++) {
            bool dup = bs[k] == 0 || bs[k] > n;
            for (unsigned j = 0; j < nb; j++)
                /* cppcheck-suppress uninitvar ; j < nb: only entries already written are read */
                dup |= uniq[j] == bs[k];
            if (!dup)
                uniq[nb++] = bs[k];
        }
        for (unsigned bi = 0; bi < nb; bi++) {
            make_trace(&t, n, uniq[bi], 0x9e3779b97f4a7c15u ^ (n * 131u + uniq[bi]));
            uint64_t floor = floor_per_switch(n, uniq[bi], 256 * MIB);
            for (unsigned pol = 0; pol < P_COUNT; pol++) {
                struct result r = simulate((enum policy)pol, &t, 256 * MIB);
                if (!r.fits) {
                    printf("%-11s %3u %4u %4s %8s %10s %9s %9s %9" PRIu64 " %7s %7s %8s %7s "
                           "%10s %7s %5s\n",
                           policy_name[pol], n, uniq[bi], "no", "-", "-", "-", "-", floor, "-", "-",
                           "-", "-", "-", "-", "-");
                    continue;
                }
                uint64_t all = r.entries_switch + r.entries_predict + r.entries_balloon +
                               r.entries_move;
                uint64_t sw = r.switches ? r.switches : 1;
                unsigned g6 = gpu_share_bp(r.entries_switch, SLICE_US);
                unsigned g16 = gpu_share_bp(r.entries_switch, 16000);
                unsigned c6 = cpu_share_bp(all, SLICE_US);
                char xf[16] = "-";
                if (floor)
                    snprintf(xf, sizeof xf, "%.2f", (double)all / (double)sw / (double)floor);
                printf("%-11s %3u %4u %4s %8" PRIu64 " %10" PRIu64 " %9" PRIu64 " %9" PRIu64
                       " %9" PRIu64 " %7s %4u.%02u %5u.%02u %4u.%02u %7u.%02u %7" PRIu64
                       " %5" PRIu64 "\n",
                       policy_name[pol], n, uniq[bi], "yes", r.switches, r.entries_switch / sw,
                       r.entries_predict / sw, all / sw, floor, xf, g6 / 100, g6 % 100, g16 / 100,
                       g16 % 100, c6 / 100, c6 % 100, r.busy_slots_x100 / 100,
                       r.busy_slots_x100 % 100, r.balloon_events, r.moves);
            }
        }
        printf("\n");
    }

    printf("maximum N that fits (64/384 MiB guests, 4 GiB GGTT; sharing policies are bounded "
           "only by the %u vGPU ids):\n",
           GTT_MAX_VGPUS);
    printf("%-10s %14s %14s\n", "policy", "aperture 256", "aperture 512");
    for (unsigned pol = 0; pol < P_COUNT; pol++)
        printf("%-10s %14u %14u\n", policy_name[pol], max_fit((enum policy)pol, 256 * MIB, 0),
               max_fit((enum policy)pol, 512 * MIB, 0));
    /* gScale itself reserved 300 MB of low GM for its fence pool. */
    printf("%-10s %14u %14u   (gScale's own 300 MiB fence pool)\n", "gscale-300",
           max_fit(P_GSCALE, 256 * MIB, 300 * MIB), max_fit(P_GSCALE, 512 * MIB, 300 * MIB));
    return 0;
}
