/* First frames of a starting wall: 32 vGPUs on the whole stack (vGPU, gtt, sched,
 * scanner, the Gen9 model), each with 32 MiB of low and 128 MiB of high graphics memory as on
 * the 32-guest kiosk wall, so their ranges overlap and every switch-in copies GGTT entries.
 * Four guests keep long work queued; the other 28 start at once and each submits its first
 * frame, a fill of its 128x192 tile.  Every first frame retires within a bound derived from
 * the configuration, in the order the guests asked, each in one dispatch; a balloon drain does
 * not send a first frame behind the others; and the vGPU tells a waiting guest that its work is
 * queued behind others' (the guest library's wait goes on while it is).
 *
 * Time here is the one CPU's on the software model: the model's clock (GPU work, and idle
 * time) plus the GGTT copying, at ENTRY_NS per entry as measured under Bochs; model costs are
 * scaled by COST_X as the boot calibration scales them there. */
#define FX_GUESTS     32u
#define FX_GUEST_RAM  (2ull << 20)
#define FX_HOST_BYTES (8ull << 20)
#define FX_LOW_MIB    32u
#define FX_HIGH_MIB   128u
#define FX_SLICE_NS   SCHED_MS(6) /* the kiosk wall's slice-us */
#include "test_vgpu_fixture.h"

#define BUSY        4u   /* guests 0..3: long work always queued */
#define FIRST       BUSY /* guests BUSY..FX_GUESTS-1 start */
#define STARTING    (FX_GUESTS - BUSY)
#define COST_X      180u /* boot log under Bochs: "model costs x180" */
#define ENTRY_NS    500u /* GGTT copying per entry under Bochs, measured */
#define TILE_W      128u
#define TILE_H      192u
#define BUSY_W      512u /* a busy guest's fill: 512x512, about 12 ms of GPU time */
#define BUSY_H      512u
#define ALIAS_PAGES 16u

static uint64_t machine_ns(struct fx *f)
{
    return fx_now(f) + f->copy_ns;
}

static struct vgpu_render_stats rstats(struct fx *f)
{
    struct vgpu_render_stats rs;
    vgpu_render_stats_get(f->dev, &rs);
    return rs;
}

/* Model costs as calibration sets them under Bochs. */
static void scale_costs(struct fx *f)
{
    struct igpu_model_cost c;
    igpu_model_cost_defaults(&c);
    c.cmd_ns *= COST_X;
    c.blit_ns *= COST_X;
    c.pixel_ps *= COST_X;
    c.write_ns *= COST_X;
    c.batch_ns *= COST_X;
    c.ctx_switch_ns *= COST_X;
    assert_int_equal(igpu_model_set_cost(f->model, &c), IGPU_OK);
}

/* A w x h surface in guest g's low window whose pages alias ALIAS_PAGES pages of its RAM (what
 * the fill writes does not matter, only how long it takes). */
static uint64_t aliased_surface(struct fx *f, unsigned g, unsigned w, unsigned h)
{
    struct fx_guest *q = &f->g[g];
    uint64_t gm = q->gm, bytes = (uint64_t)w * h * 4u, gpa = q->gpa_next;
    for (uint64_t off = 0; off < bytes; off += 4096)
        assert_true(vgpu_mmio_write(fx_v(f, g), VGPU_GGTT_OFFSET + ((gm + off) >> 12) * 8, 8,
                                    (gpa + off % (ALIAS_PAGES * 4096u)) | GEN9_GGTT_PTE_PRESENT));
    q->gm += bytes;
    q->gpa_next += ALIAS_PAGES * 4096u;
    return gm;
}

static uint32_t fill(struct fx *f, unsigned g, uint64_t surf, unsigned w, unsigned h)
{
    uint32_t c[16];
    unsigned n = fx_fill(c, surf, w * 4u, w, h, 0x00100000u + g);
    return fx_submit(f, g, c, n);
}

struct wall {
    struct fx *f;
    uint64_t busy_surf[BUSY], tile[FX_GUESTS];
    unsigned busy_queued[BUSY];
    uint32_t busy_done[BUSY];
};

/* Keeps two workloads queued for each busy guest. */
static void top_up(struct wall *w)
{
    for (unsigned g = 0; g < BUSY; g++) {
        struct tessera_balloon_if b;
        uint32_t done = fx_ext(w->f, g, &b)->completed;
        w->busy_queued[g] -= done - w->busy_done[g];
        w->busy_done[g] = done;
        while (w->busy_queued[g] < 2) {
            fill(w->f, g, w->busy_surf[g], BUSY_W, BUSY_H);
            w->busy_queued[g]++;
        }
    }
}

/* The wall with its busy guests running for a while (their turns and start tags under way),
 * every starting guest set up but silent.  *fill_ns: the GPU time of one tile fill alone. */
static struct wall *busy_wall(uint64_t *fill_ns)
{
    struct wall *w = calloc(1, sizeof *w);
    fx_preempt = IGPU_MODEL_PREEMPT_STEP; /* as the hypervisor sets the model */
    w->f = fx_create(NULL);
    fx_preempt = IGPU_MODEL_PREEMPT_RING;
    struct fx *f = w->f;
    scale_costs(f);
    for (unsigned g = 0; g < FX_GUESTS; g++) {
        fx_guest_setup(f, g);
        w->tile[g] = aliased_surface(f, g, TILE_W, TILE_H);
    }
    for (unsigned g = 0; g < BUSY; g++)
        w->busy_surf[g] = aliased_surface(f, g, BUSY_W, BUSY_H);
    /* One tile fill alone: what each first frame costs the GPU (its context switch included). */
    struct igpu_model_stats st;
    igpu_model_stats(f->model, IGPU_BCS, &st);
    uint64_t busy0 = st.busy_ns;
    fill(f, 0, w->tile[0], TILE_W, TILE_H);
    fx_run_until_retired(f, 0);
    igpu_model_stats(f->model, IGPU_BCS, &st);
    *fill_ns = st.busy_ns - busy0;
    w->busy_done[0] = 1;
    fx_entry_ns = ENTRY_NS;
    for (unsigned i = 0; i < 200; i++) {
        top_up(w);
        vgpu_render_step(f->dev);
    }
    return w;
}

static void wall_destroy(struct wall *w)
{
    fx_entry_ns = 0;
    fx_destroy(w->f);
    free(w);
}

/* Steps the render loop, the busy guests kept busy, until every starting guest whose done_ns
 * is 0 has its first frame retired; done_ns[g]: machine time then. */
static void run_first_frames(struct wall *w, uint64_t done_ns[FX_GUESTS])
{
    struct fx *f = w->f;
    unsigned left = 0;
    for (unsigned g = FIRST; g < FX_GUESTS; g++)
        left += !done_ns[g];
    for (unsigned i = 0; i < 2000000 && left; i++) {
        top_up(w);
        vgpu_render_step(f->dev);
        for (unsigned g = FIRST; g < FX_GUESTS; g++)
            if (!done_ns[g] && fx_retired(f, g)) {
                done_ns[g] = machine_ns(f);
                left--;
            }
    }
    assert_int_equal(left, 0);
}

/* The bound.  A starting guest's first frame waits for, at most:
 *  - every starting guest's switch-in and fill: STARTING x (C + F), where C is the copying of
 *    one guest's whole ranges (32 MiB low and two 64 MiB slots: 40960 entries at ENTRY_NS:
 *    20.5 ms; the write-ahead copies the next guest's entries instead of its switch, not as
 *    well) and F one fill with its context switch;
 *  - each busy guest's turn at most once (weighted fair queuing: a starting guest's start tag
 *    is the virtual time, and a busy guest that has run has a larger one), and the turn under
 *    way when they arrived: (BUSY + 1) x (C + slice + one render step), the turn not being
 *    cut for an arrival while the lag plus the owner's switch cost (C) exceed what it used.
 * Without the scheduler's pause and switch cost, arrivals cut each other's first frames after
 * the 500 us lag (a fill is about 1.1 ms here), and each cut one waited behind all later ones:
 * about twice the switches, and the first frames all at the end. */
static uint64_t bound_ns(uint64_t fill_ns)
{
    uint64_t entries = ((uint64_t)FX_LOW_MIB + 2u * 64u) << 20 >> 12;
    uint64_t c = entries * ENTRY_NS, slice = FX_SLICE_NS, step = 200000;
    return STARTING * (c + fill_ns) + (BUSY + 1) * (c + slice + step);
}

static void first_frames_of_28_starting_beside_4_busy(void **state)
{
    (void)state;
    uint64_t fill_ns;
    struct wall *w = busy_wall(&fill_ns);
    struct fx *f = w->f;
    assert_true(fill_ns > SCHED_US(500)); /* longer than the lag: cuttable */
    struct vgpu_render_stats before = rstats(f);
    uint64_t t0 = machine_ns(f), done[FX_GUESTS] = { 0 };
    for (unsigned g = FIRST; g < FX_GUESTS; g++)
        fill(f, g, w->tile[g], TILE_W, TILE_H);
    run_first_frames(w, done);

    uint64_t worst = 0, best = UINT64_MAX;
    bool in_order = true;
    for (unsigned g = FIRST; g < FX_GUESTS; g++) {
        uint64_t took = done[g] - t0;
        worst = took > worst ? took : worst;
        best = took < best ? took : best;
        struct tessera_balloon_if b;
        assert_int_equal(fx_ext(f, g, &b)->completed, 1);
        assert_int_equal(b.resets, 0);
        assert_int_equal(fx_rd(f, g, f->g[g].seq), 1); /* it ran */
        in_order &= g == FIRST || done[g] >= done[g - 1];
    }
    uint64_t bound = bound_ns(fill_ns);
    print_message(
        "     first frames of %u starting guests: %llu to %llu ms after they asked (bound %llu ms); "
        "%llu switches, %llu preemptions\n",
        STARTING, (unsigned long long)(best / 1000000), (unsigned long long)(worst / 1000000),
        (unsigned long long)(bound / 1000000),
        (unsigned long long)(rstats(f).switches - before.switches),
        (unsigned long long)(rstats(f).preemptions - before.preemptions));
    assert_true(worst <= bound);
    /* In the order they asked: weighted fair queuing serves equal start tags first come, first
     * served, and nothing cut a first frame to serve a later one. */
    assert_true(in_order);
    /* No first frame was cut: the only preemptions are of busy guests' long fills. */
    assert_true(rstats(f).preemptions - before.preemptions <= BUSY + 1);
    wall_destroy(w);
}

/* A balloon period drains the GPU while a starting guest's first frame is on it: the drain is
 * a pause, and that frame is taken up again before any later guest's. */
static void a_drained_first_frame_goes_on_first(void **state)
{
    (void)state;
    uint64_t fill_ns;
    struct wall *w = busy_wall(&fill_ns);
    struct fx *f = w->f;
    uint64_t done[FX_GUESTS] = { 0 };
    for (unsigned g = FIRST; g < FX_GUESTS; g++)
        fill(f, g, w->tile[g], TILE_W, TILE_H);
    /* Run until some starting guest's fill has been on the GPU for a render step. */
    unsigned victim = FX_GUESTS;
    for (unsigned i = 0; i < 2000000 && victim == FX_GUESTS; i++) {
        top_up(w);
        unsigned owner = vgpu_render_owner(f->dev);
        vgpu_render_step(f->dev);
        if (owner >= FIRST && owner < FX_GUESTS && owner == vgpu_render_owner(f->dev) &&
            !fx_retired(f, owner))
            victim = owner;
    }
    assert_true(victim < FX_GUESTS);
    uint64_t preemptions = rstats(f).preemptions;
    struct gtt_ctl_params p;
    struct gtt_ctl_report rep;
    gtt_ctl_defaults(&p);
    assert_true(vgpu_balloon_period(f->dev, &p, 0, 0, &rep) >= 0);
    assert_int_equal(rstats(f).preemptions, preemptions + 1); /* the drain cut it */
    assert_false(fx_retired(f, victim));
    run_first_frames(w, done);
    for (unsigned g = victim + 1; g < FX_GUESTS; g++)
        assert_true(done[victim] <= done[g]);
    wall_destroy(w);
}

/* What a waiting guest is told (struct tessera_work_if): its work queued behind the busy
 * guests' is `waiting`; once it ran, nothing waits and `gpu_us` holds the GPU time it used. */
static void the_work_extension_says_queued_or_ran(void **state)
{
    (void)state;
    uint64_t fill_ns;
    struct wall *w = busy_wall(&fill_ns);
    struct fx *f = w->f;
    const uint32_t base = VGT_PVINFO_PAGE + (uint32_t)TESSERA_WORK_OFFSET;
    unsigned g = FX_GUESTS - 1;
    assert_int_equal(fx_r(f, g, base + offsetof(struct tessera_work_if, magic), 4),
                     TESSERA_WORK_MAGIC);
    assert_int_equal(fx_r(f, g, base + offsetof(struct tessera_work_if, waiting), 4), 0);
    uint32_t gpu_us = (uint32_t)fx_r(f, g, base + offsetof(struct tessera_work_if, gpu_us), 4);
    fill(f, g, w->tile[g], TILE_W, TILE_H);
    assert_int_equal(fx_r(f, g, base + offsetof(struct tessera_work_if, waiting), 4), 1);
    uint64_t done[FX_GUESTS] = { 0 };
    for (unsigned k = FIRST; k < FX_GUESTS - 1; k++)
        done[k] = 1; /* only g starts here */
    run_first_frames(w, done);
    assert_int_equal(fx_r(f, g, base + offsetof(struct tessera_work_if, waiting), 4), 0);
    uint32_t used = (uint32_t)fx_r(f, g, base + offsetof(struct tessera_work_if, gpu_us), 4) -
                    gpu_us;
    assert_true(used >= fill_ns / 1000 / 2 && used <= 2 * fill_ns / 1000 + 1);
    /* Read-only for the guest. */
    vgpu_mmio_write(fx_v(f, g), base + offsetof(struct tessera_work_if, waiting), 4, 5);
    assert_int_equal(fx_r(f, g, base + offsetof(struct tessera_work_if, waiting), 4), 0);
    wall_destroy(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_frames_of_28_starting_beside_4_busy),
        cmocka_unit_test(a_drained_first_frame_goes_on_first),
        cmocka_unit_test(the_work_extension_says_queued_or_ran),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
