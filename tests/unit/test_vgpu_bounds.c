/* Bounds on the GPU work of one guest: the balloon period's drain runs a runaway
 * under the watchdog and for a bounded time (preempting it where the GPU can, skipping the
 * period where it cannot), a giant blit is stopped midway by the watchdog, and with preemption
 * a guest of small frames waits a slice, not a hog's whole workload. */
#include "test_vgpu_fixture.h"

#define SURF_W      4096u
#define SURF_H      2048u
#define ALIAS_BYTES (1u << 20)

/* Pixels cost `ps` picoseconds each from now on. */
static void pixel_cost(struct fx *f, uint32_t ps)
{
    struct igpu_model_cost c;
    igpu_model_cost_defaults(&c);
    c.pixel_ps = ps;
    assert_int_equal(igpu_model_set_cost(f->model, &c), IGPU_OK);
}

/* A SURF_W x SURF_H surface at the start of guest g's high memory, every MiB of it on the same
 * MiB of its RAM. */
static uint64_t big_surface(struct fx *f, unsigned g)
{
    uint64_t hi = fx_r(f, g, FX_PV(avail_rs.nonmappable_gmadr.base), 4),
             bytes = (uint64_t)SURF_W * 4u * SURF_H;
    uint64_t gpa = f->g[g].gpa_next;
    f->g[g].gpa_next += ALIAS_BYTES;
    for (uint64_t off = 0; off < bytes; off += 4096)
        assert_true(vgpu_mmio_write(fx_v(f, g), VGPU_GGTT_OFFSET + ((hi + off) >> 12) * 8, 8,
                                    (gpa + off % ALIAS_BYTES) | GEN9_GGTT_PTE_PRESENT));
    return hi;
}

static uint64_t busy(struct fx *f)
{
    struct igpu_model_stats st;
    igpu_model_stats(f->model, IGPU_BCS, &st);
    return st.busy_ns;
}

static struct vgpu_render_stats rstats(struct fx *f)
{
    struct vgpu_render_stats rs;
    vgpu_render_stats_get(f->dev, &rs);
    return rs;
}

/* Steps the render loop until guest g's work has used `ns` of GPU time. */
static void run_for(struct fx *f, uint64_t ns)
{
    uint64_t t0 = busy(f);
    for (unsigned i = 0; i < 100000 && busy(f) - t0 < ns; i++)
        vgpu_render_step(f->dev);
    assert_true(busy(f) - t0 >= ns);
}

static uint32_t runaway(struct fx *f, unsigned g)
{
    uint32_t c[16];
    fx_guest_setup(f, g);
    unsigned n = fx_fill(c, big_surface(f, g), SURF_W * 4u, SURF_W, SURF_H, 0x00FF00FFu);
    return fx_submit(f, g, c, n); /* 8 Mi pixels at 10 ns: 84 ms, the watchdog is 20 */
}

static void period(struct fx *f, int want_rc)
{
    struct gtt_ctl_params p;
    struct gtt_ctl_report rep;
    gtt_ctl_defaults(&p);
    assert_int_equal(vgpu_balloon_period(f->dev, &p, 0, 0, &rep), want_rc);
}

/* The engine can leave the runaway between blit steps: the drain preempts it within its bound,
 * the period runs, and the runaway resumes until the watchdog's 20 ms of its own GPU time. */
static void drain_preempts_a_runaway(void **state)
{
    (void)state;
    fx_preempt = IGPU_MODEL_PREEMPT_STEP;
    struct fx *f = fx_create(NULL);
    fx_preempt = IGPU_MODEL_PREEMPT_RING;
    pixel_cost(f, 10000);
    runaway(f, 0);
    run_for(f, SCHED_MS(5));
    uint64_t t0 = busy(f), periods = rstats(f).balloon_periods;
    period(f, 0);
    assert_true(busy(f) - t0 <= VGPU_DRAIN_MAX_NS);
    assert_int_equal(rstats(f).balloon_periods, periods + 1);
    assert_int_equal(rstats(f).preemptions, 1);
    fx_run_until_retired(f, 0);
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 0, &b)->resets, 1);
    assert_int_equal(b.completed, 0);
    assert_true(busy(f) <= SCHED_MS(20) + SCHED_MS(1));
    assert_int_equal(rstats(f).watchdog_resets, 1);
    fx_destroy(f);
}

/* The engine cannot leave a blit (Gen9's blitter, the model at ring granularity): the drain
 * gives up after its bound and the period is skipped; the watchdog still stops the runaway at
 * 20 ms instead of the 84 ms it would run. */
static void drain_of_an_unpreemptible_runaway_is_bounded(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    pixel_cost(f, 10000);
    runaway(f, 0);
    run_for(f, SCHED_MS(5));
    uint64_t t0 = busy(f), periods = rstats(f).balloon_periods;
    period(f, VGPU_BALLOON_BUSY);
    uint64_t spent = busy(f) - t0;
    assert_true(spent >= VGPU_DRAIN_MAX_NS && spent <= VGPU_DRAIN_MAX_NS + SCHED_MS(1));
    assert_int_equal(rstats(f).balloon_periods, periods);
    assert_int_equal(rstats(f).drains_busy, 1);
    fx_run_until_retired(f, 0);
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 0, &b)->resets, 1);
    assert_true(busy(f) <= SCHED_MS(20) + SCHED_MS(1));
    period(f, 0); /* idle now: the next period runs */
    fx_destroy(f);
}

/* One blit of 52 ms under a 20 ms watchdog: the reset comes midway through the blit, and the
 * rows it had not reached are untouched. */
static void watchdog_stops_a_giant_blit_midway(void **state)
{
    (void)state;
    struct fx *f = fx_create(NULL);
    fx_guest_setup(f, 0);
    pixel_cost(f, 100000);
    const unsigned w = 1024, h = 512;
    uint64_t surf = fx_gm_alloc(f, 0, w * h * 4 / 4096, NULL);
    uint32_t c[16];
    unsigned n = fx_fill(c, surf, w * 4u, w, h, 0x00ABCDEFu);
    fx_submit(f, 0, c, n);
    fx_run_until_retired(f, 0);
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 0, &b)->resets, 1);
    assert_int_equal(fx_rd(f, 0, surf), 0x00ABCDEFu);
    assert_int_equal(fx_rd(f, 0, surf + (uint64_t)(h - 1) * w * 4u), 0);
    struct igpu_model_stats st;
    igpu_model_stats(f->model, IGPU_BCS, &st);
    assert_true(st.pixels < (uint64_t)w * h / 2);
    assert_true(st.busy_ns <= SCHED_MS(20) + SCHED_MS(1));
    fx_destroy(f);
}

/* A hog keeps 10 ms workloads queued (legal: the watchdog is 20 ms); beside it, equal weight, a
 * guest draws small frames one at a time.  Every frame waits at most about a slice (500 us),
 * not a hog workload, and the hog's workloads still all complete across their preemptions. */
static void preemption_keeps_frames_within_a_slice(void **state)
{
    (void)state;
    fx_preempt = IGPU_MODEL_PREEMPT_STEP;
    struct fx *f = fx_create(NULL);
    fx_preempt = IGPU_MODEL_PREEMPT_RING;
    pixel_cost(f, 10000);
    fx_guest_setup(f, 0);
    fx_guest_setup(f, 1);
    uint64_t hog_surf = big_surface(f, 0);
    uint32_t c[16];
    unsigned n = fx_fill(c, hog_surf, SURF_W * 4u, SURF_W, 256, 0x00112233u); /* 10.5 ms */
    for (int i = 0; i < 6; i++)
        fx_submit(f, 0, c, n);
    uint64_t worst = 0;
    for (int frame = 0; frame < 20; frame++) {
        run_for(f, SCHED_MS(1));
        n = fx_fill(c, f->g[1].fb, FX_FB_W * 4, FX_FB_W, FX_FB_H, 0x00300000u + frame);
        uint64_t t0 = fx_now(f);
        fx_submit(f, 1, c, n);
        fx_run_until_retired(f, 1);
        uint64_t waited = fx_now(f) - t0;
        worst = waited > worst ? waited : worst;
    }
    assert_true(worst <= SCHED_US(1000));
    assert_true(rstats(f).preemptions >= 10);
    fx_run_until_retired(f, 0);
    struct tessera_balloon_if b;
    assert_int_equal(fx_ext(f, 0, &b)->completed, 6);
    assert_int_equal(b.resets, 0);
    assert_int_equal(fx_ext(f, 1, &b)->completed, 20);
    fx_destroy(f);
}

/* One guest on a model that preempts between blit steps, its pixels slow enough (10 ns) for a
 * workload to be caught midway. */
static struct fx *preemptible_guest(void)
{
    fx_preempt = IGPU_MODEL_PREEMPT_STEP;
    struct fx *f = fx_create(NULL);
    fx_preempt = IGPU_MODEL_PREEMPT_RING;
    pixel_cost(f, 10000);
    fx_guest_setup(f, 0);
    return f;
}

/* Appends to c[n..] a store into the last page of guest 0's high GM (mapped here), so the
 * workload touches both of its slots; returns the new length. */
static unsigned store_to_both_slots(struct fx *f, uint32_t *c, unsigned n)
{
    uint64_t hi = big_surface(f, 0),
             hi_size = fx_r(f, 0, FX_PV(avail_rs.nonmappable_gmadr.size), 4);
    assert_true(vgpu_mmio_write(fx_v(f, 0), VGPU_GGTT_OFFSET + ((hi + hi_size - 4096) >> 12) * 8, 8,
                                f->g[0].gpa_next | GEN9_GGTT_PTE_PRESENT));
    c[n++] = GEN9_MI_STORE_DATA_IMM | GEN9_MI_SDI_USE_GGTT;
    c[n++] = (uint32_t)(hi + hi_size - 4);
    c[n++] = 0;
    c[n++] = 1;
    return n;
}

/* The operator shrinks a guest while its long workload is preempted: work that uses none of
 * the slot that goes away continues and completes; work that uses it is dropped (it cannot be
 * scanned again half executed). */
static void shrink_keeps_or_drops_preempted_work(void **state)
{
    (void)state;
    for (int uses_slots = 0; uses_slots < 2; uses_slots++) {
        struct fx *f = preemptible_guest();
        const unsigned w = 1024, h = 512;
        uint64_t surf = fx_gm_alloc(f, 0, w * h * 4 / 4096, NULL); /* low window */
        uint32_t c[32];
        unsigned n = fx_fill(c, surf, w * 4u, w, h, 0x00C0FFEEu); /* 5 ms */
        if (uses_slots) {
            n = store_to_both_slots(f, c, n); /* both of its slots */
            n += fx_fill(c + n, fx_r(f, 0, FX_PV(avail_rs.nonmappable_gmadr.base), 4), 4096, 1024,
                         1, 0);
        }
        fx_submit(f, 0, c, n);
        run_for(f, SCHED_MS(1));
        char err[160];
        assert_int_equal(vgpu_balloon_adjust(f->dev, 0, -1, err, sizeof err), 0);
        assert_int_equal(rstats(f).preemptions, 1);
        fx_run_until_retired(f, 0);
        struct tessera_balloon_if b;
        fx_ext(f, 0, &b);
        assert_int_equal(b.resets, uses_slots ? 1 : 0);
        assert_int_equal(b.completed, uses_slots ? 0 : 1);
        if (!uses_slots)
            assert_int_equal(fx_rd(f, 0, surf + (uint64_t)(h - 1) * w * 4u), 0x00C0FFEEu);
        fx_destroy(f);
    }
}

/* The controller's reclaim (copy overhead high) while the drain has just preempted work that
 * uses the guest's slots: the guest keeps them this period and its work completes; without that
 * work, the same period takes a slot. */
static void controller_leaves_preempted_work_its_slots(void **state)
{
    (void)state;
    struct fx *f = preemptible_guest();
    const unsigned w = 1024, h = 512;
    uint64_t surf = fx_gm_alloc(f, 0, w * h * 4 / 4096, NULL);
    uint32_t c[32];
    unsigned n = fx_fill(c, surf, w * 4u, w, h, 0x00C0FFEEu);
    n = store_to_both_slots(f, c, n);
    fx_submit(f, 0, c, n);
    run_for(f, SCHED_MS(1));
    struct gtt_ctl_params p;
    struct gtt_ctl_report rep;
    gtt_ctl_defaults(&p);
    struct tessera_balloon_if b;
    fx_ext(f, 0, &b);
    unsigned slots = b.slots;
    assert_true(slots >= 2);
    assert_int_equal(vgpu_balloon_period(f->dev, &p, 0, 200000, &rep), 0);
    assert_int_equal(rstats(f).preemptions, 1);
    fx_ext(f, 0, &b);
    assert_int_equal(b.slots, slots);
    fx_run_until_retired(f, 0);
    fx_ext(f, 0, &b);
    assert_int_equal(b.resets, 0);
    assert_int_equal(b.completed, 1);
    /* Nothing preempted now: the next reclaim takes a slot. */
    assert_int_equal(vgpu_balloon_period(f->dev, &p, 0, 200000, &rep), 0);
    fx_ext(f, 0, &b);
    assert_true(b.slots < slots);
    fx_destroy(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(drain_preempts_a_runaway),
        cmocka_unit_test(drain_of_an_unpreemptible_runaway_is_bounded),
        cmocka_unit_test(watchdog_stops_a_giant_blit_midway),
        cmocka_unit_test(preemption_keeps_frames_within_a_slice),
        cmocka_unit_test(shrink_keeps_or_drops_preempted_work),
        cmocka_unit_test(controller_leaves_preempted_work_its_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
