/* Ballooning: gBalloon's Algorithm 1 (with the paper's worked example), its limits, sparse slot
 * sets, the mechanism on a live struct gtt, and the two-threshold controller. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "gtt/balloon.h"
#include "test_gtt_fake.h"

#define MB (UINT64_C(1) << 20)

/* gBalloon Figure 4, 0-based: five slots; vGPU1 [0,1], vGPU2 [2,3], vGPU3 [3,4], vGPU4 [2]. */
static const unsigned EX_P[4] = { 0, 2, 3, 2 };
static const unsigned EX_S[4] = { 2, 2, 2, 1 };

static void test_worked_example_expand_two_left(void **state)
{
    (void)state;
    unsigned L, R;
    /* vGPU4 asks for two more slots: two to the left shares 2 slot-occupancies (vGPU1's),
     * one each side 3, two to the right 3. */
    assert_int_equal(gtt_balloon_expand(5, 4, EX_P, EX_S, 3, 2, &L, &R), 0);
    assert_int_equal(L, 2);
    assert_int_equal(R, 0);
}

static void test_worked_example_reduce(void **state)
{
    (void)state;
    unsigned L, R;
    /* vGPU3 gives back one slot: slot 3 (shared with vGPU2) rather than slot 4. */
    assert_int_equal(gtt_balloon_reduce(5, 4, EX_P, EX_S, 2, 1, &L, &R), 0);
    assert_int_equal(L, 1);
    assert_int_equal(R, 0);
    /* vGPU1 gives back one: neither end is shared; the published loop keeps the first (L=0). */
    assert_int_equal(gtt_balloon_reduce(5, 4, EX_P, EX_S, 0, 1, &L, &R), 0);
    assert_int_equal(L, 0);
    assert_int_equal(R, 1);
}

static void test_algorithm_limits(void **state)
{
    (void)state;
    unsigned L, R;
    assert_int_equal(gtt_balloon_expand(5, 4, EX_P, EX_S, 3, 5, &L, &R), GTT_ELIMIT);
    assert_int_equal(gtt_balloon_reduce(5, 4, EX_P, EX_S, 3, 2, &L, &R), GTT_ELIMIT);
    assert_int_equal(gtt_balloon_expand(5, 4, EX_P, EX_S, 4, 1, &L, &R), GTT_EINVAL);
    assert_int_equal(gtt_balloon_expand(5, 4, EX_P, NULL, 0, 1, &L, &R), GTT_EINVAL);
    unsigned badP[4] = { 0, 2, 4, 2 }; /* vGPU3 would run past slot 4 */
    assert_int_equal(gtt_balloon_expand(5, 4, badP, EX_S, 0, 1, &L, &R), GTT_EINVAL);
    /* At the left edge everything goes right; at the right edge everything goes left. */
    assert_int_equal(gtt_balloon_expand(5, 4, EX_P, EX_S, 0, 2, &L, &R), 0);
    assert_int_equal(L, 0);
    assert_int_equal(R, 2);
    assert_int_equal(gtt_balloon_expand(5, 4, EX_P, EX_S, 2, 2, &L, &R), 0);
    assert_int_equal(L, 2);
    /* Growing to all five slots is allowed. */
    assert_int_equal(gtt_balloon_expand(5, 4, EX_P, EX_S, 3, 4, &L, &R), 0);
    assert_int_equal(L + R, 4);
    assert_int_equal(L, 2);
}

static void test_place_and_sparse_plans(void **state)
{
    (void)state;
    uint16_t occ[8] = { 2, 1, 0, 0, 1, 3, 0, 1 };
    unsigned start, out[4];
    assert_int_equal(gtt_balloon_place(8, occ, 2, &start), 0);
    assert_int_equal(start, 2);
    assert_int_equal(gtt_balloon_place(8, occ, 3, &start), 0);
    assert_int_equal(start, 1); /* 1+0+0 = 1 beats 0+0+1 at 2 (leftmost tie) */
    assert_int_equal(gtt_balloon_place(8, occ, 9, &start), GTT_ELIMIT);
    uint64_t held = (1u << 0) | (1u << 5) | (1u << 7);
    /* Grow: the three least-occupied slots not held: 2, 3, 6 (all 0). */
    assert_int_equal(gtt_balloon_sparse_grow(8, occ, &held, 3, out), 0);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 3);
    assert_int_equal(out[2], 6);
    /* Shrink: the two most shared held slots: 5 (3) then 0 (2). */
    assert_int_equal(gtt_balloon_sparse_shrink(8, occ, &held, 2, out), 0);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 5);
    assert_int_equal(gtt_balloon_sparse_shrink(8, occ, &held, 4, out), GTT_ELIMIT);
    assert_int_equal(gtt_balloon_sparse_grow(8, occ, &held, 6, out), GTT_ELIMIT);
}

/* ---- on a live struct gtt ----------------------------------------------------------------- */

struct env {
    struct gtt_layout lay;
    struct fake f;
    struct gtt g;
};

/* Five 1 MiB slots and the worked example's four vGPUs (ids 0..3). */
static int make_env_idle(void **state, enum gtt_slot_mode mode, bool count_idle)
{
    struct env *e = calloc(1, sizeof *e);
    struct gtt_layout_params p = {
        .ggtt_bytes = 21 * MB,
        .aperture_bytes = 16 * MB,
        .host_area_bytes = MB,
        .fence_pool_bytes = MB,
        .slot_bytes = MB,
        .n_guests = 0,
    };
    if (!e || gtt_layout_compute(&p, &e->lay, NULL, 0) || e->lay.n_slots != 5)
        return -1;
    fake_init(&e->f, &e->lay);
    struct gtt_config c = fake_config(&e->f, &e->lay);
    c.slots = mode;
    c.balloon_count_idle = count_idle;
    if (gtt_init(&e->g, &c))
        return -1;
    for (unsigned v = 0; v < 4; v++) {
        unsigned sl[2] = { EX_P[v], EX_P[v] + 1 };
        struct gtt_vgpu_spec sp = { .n_slots = EX_S[v],
                                    .slots = sl,
                                    .min_slots = 1,
                                    .max_slots = 4 };
        if (gtt_vgpu_create(&e->g, v, &sp))
            return -1;
        gtt_set_active(&e->g, v, true);
    }
    *state = e;
    return 0;
}

static int setup_contig(void **state)
{
    return make_env_idle(state, GTT_SLOTS_CONTIGUOUS, false);
}
static int setup_sparse(void **state)
{
    return make_env_idle(state, GTT_SLOTS_SPARSE, false);
}
static int setup_published(void **state)
{
    return make_env_idle(state, GTT_SLOTS_CONTIGUOUS, true);
}

static int teardown(void **state)
{
    struct env *e = *state;
    gtt_fini(&e->g);
    fake_fini(&e->f);
    free(e);
    return 0;
}

static void assert_slots(const struct env *e, unsigned v, unsigned n, const unsigned *want)
{
    unsigned got[8];
    assert_int_equal(gtt_vgpu_slots(&e->g, v, got, 8), n);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
}

static void test_live_worked_example(void **state)
{
    struct env *e = *state;
    assert_int_equal(gtt_balloon_grow(&e->g, 3, 2), 0);
    assert_slots(e, 3, 3, (unsigned[]){ 0, 1, 2 });
    /* Nobody else moved. */
    assert_slots(e, 0, 2, (unsigned[]){ 0, 1 });
    assert_slots(e, 1, 2, (unsigned[]){ 2, 3 });
    assert_slots(e, 2, 2, (unsigned[]){ 3, 4 });
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&e->g, 3, &s);
    assert_int_equal(s.n_slots, 3);
    assert_int_equal(s.first_slot, 0);
    assert_int_equal(s.last_slot, 2);
    assert_int_equal(s.shared_slots, 3);
    assert_int_equal(s.max_sharing, 2);
    assert_int_equal(s.st.balloon_grows, 1);
    /* Reduction of vGPU3 (id 2) by one gives back the shared slot 3. */
    assert_int_equal(gtt_balloon_shrink(&e->g, 2, 1), 0);
    assert_slots(e, 2, 1, (unsigned[]){ 4 });
    struct gtt_summary all;
    gtt_summarize(&e->g, &all);
    assert_int_equal(all.slots_used, 5);
    assert_int_equal(all.st.balloon_grows, 1);
    assert_int_equal(all.st.balloon_shrinks, 1);
}

static void test_live_limits(void **state)
{
    struct env *e = *state;
    /* Max is 4 slots: vGPU 0 holds 2, asks 3. */
    assert_int_equal(gtt_balloon_grow(&e->g, 0, 3), GTT_ELIMIT);
    /* Min is 1: vGPU 3 holds 1. */
    assert_int_equal(gtt_balloon_shrink(&e->g, 3, 1), GTT_ELIMIT);
    assert_int_equal(gtt_balloon_shrink(&e->g, 0, 3), GTT_ELIMIT);
    assert_int_equal(gtt_balloon_grow(&e->g, 9, 1), GTT_ENOENT);
    assert_int_equal(gtt_balloon_grow(&e->g, 0, 0), 0);
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&e->g, 0, &s);
    assert_int_equal(s.st.balloon_refused, 2);
    assert_int_equal(s.n_slots, 2);
    assert_slots(e, 0, 2, (unsigned[]){ 0, 1 });
}

static void test_running_vgpu_gets_new_slots_written(void **state)
{
    struct env *e = *state;
    /* vGPU 2 (slots 3,4) wrote a page into slot 4 and owned it. */
    uint32_t s4 = (uint32_t)(gtt_layout_slot_addr(&e->lay, 4) >> 12);
    gtt_guest_write(&e->g, 2, s4 + 4, gpte(0x8000));
    gtt_switch_to(&e->g, 2);
    assert_int_equal(e->f.ggtt[s4 + 4], hpte(2, 0x8000));
    gtt_switch_to(&e->g, 1);
    /* vGPU 1 (slots 2,3) grows by one while running; both ends add one occupancy, so the
     * published tie rule (first L, i.e. L = 0) takes slot 4 on the right.  Slot 4 must now show
     * vGPU 1's shadow (scratch), not vGPU 2's page. */
    assert_int_equal(gtt_balloon_grow(&e->g, 1, 1), 0);
    assert_true(gtt_vgpu_has_slot(&e->g, 1, 4));
    assert_int_equal(e->f.ggtt[s4 + 4], FAKE_SCRATCH);
    struct gtt_summary all;
    gtt_summarize(&e->g, &all);
    assert_int_equal(all.st.entries_balloon, 256);
    /* A vGPU that is not running grows without touching the GGTT. */
    uint64_t w = e->f.phys_writes;
    assert_int_equal(gtt_balloon_grow(&e->g, 0, 1), 0);
    assert_int_equal(e->f.phys_writes, w);
}

/* With vGPU2 and vGPU3 (ids 1, 2) idle, sharing their slots costs nothing: Tessera's default
 * grows vGPU4 to the right, onto the idle vGPUs, instead of onto the busy vGPU1. */
static void test_idle_sharing_is_free(void **state)
{
    struct env *e = *state;
    gtt_set_active(&e->g, 1, false);
    gtt_set_active(&e->g, 2, false);
    assert_int_equal(gtt_balloon_grow(&e->g, 3, 2), 0);
    assert_slots(e, 3, 3, (unsigned[]){ 2, 3, 4 });
}

/* gBalloon as published counts every vGPU, busy or not: two to the left. */
static void test_published_counts_idle_too(void **state)
{
    struct env *e = *state;
    gtt_set_active(&e->g, 1, false);
    gtt_set_active(&e->g, 2, false);
    assert_int_equal(gtt_balloon_grow(&e->g, 3, 2), 0);
    assert_slots(e, 3, 3, (unsigned[]){ 0, 1, 2 });
}

static void test_regrown_slot_is_not_stale(void **state)
{
    struct env *e = *state;
    /* vGPU 0 (slots 0,1) puts a page in slot 1 and owns it physically. */
    uint32_t s1 = (uint32_t)(gtt_layout_slot_addr(&e->lay, 1) >> 12);
    gtt_guest_write(&e->g, 0, s1, gpte(0x8000));
    gtt_switch_to(&e->g, 0);
    gtt_switch_to(&e->g, 3);
    /* It gives slot 1 back (no other holder on either end: the first candidate, the right end)
     * and the physical entries stop pointing at its pages. */
    assert_int_equal(gtt_balloon_shrink(&e->g, 0, 1), 0);
    assert_false(gtt_vgpu_has_slot(&e->g, 0, 1));
    assert_int_equal(e->f.ggtt[s1], FAKE_SCRATCH);
    /* Growing back gives an empty shadow, and a switch must show exactly that. */
    assert_int_equal(gtt_balloon_grow(&e->g, 0, 1), 0);
    assert_true(gtt_vgpu_has_slot(&e->g, 0, 1));
    gtt_switch_to(&e->g, 0);
    uint64_t pte;
    assert_int_equal(gtt_shadow_pte(&e->g, 0, s1, &pte), 0);
    assert_int_equal(pte, FAKE_SCRATCH);
    assert_int_equal(e->f.ggtt[s1], FAKE_SCRATCH);
}

static void test_sparse_mode_picks_any_slots(void **state)
{
    struct env *e = *state;
    /* Occupancy 1,1,2,2,1.  vGPU 3 (holds slot 2) grows by 2: the least occupied slots it does
     * not hold are 0, 1 and 4 (1 each): take 0 and 1. */
    assert_int_equal(gtt_balloon_grow(&e->g, 3, 2), 0);
    assert_slots(e, 3, 3, (unsigned[]){ 0, 1, 2 });
    /* vGPU 1 (slots 2,3; occupancy now 2,2... slot 2 has vGPUs 1,3 and slot 3 has 1,2)
     * shrinks by one: both are shared by two; the higher one goes. */
    assert_int_equal(gtt_balloon_shrink(&e->g, 1, 1), 0);
    assert_slots(e, 1, 1, (unsigned[]){ 2 });
    /* Non-contiguous sets are fine here. */
    assert_int_equal(gtt_balloon_grow(&e->g, 1, 1), 0);
    assert_slots(e, 1, 2, (unsigned[]){ 2, 3 });
    assert_int_equal(gtt_balloon_shrink(&e->g, 2, 1), 0);
    assert_int_equal(gtt_balloon_grow(&e->g, 2, 2), 0);
    unsigned got[8];
    assert_int_equal(gtt_vgpu_slots(&e->g, 2, got, 8), 3);
}

static void test_sparse_create_accepts_gaps(void **state)
{
    struct env *e = *state;
    unsigned sl[2] = { 0, 4 };
    struct gtt_vgpu_spec sp = { .n_slots = 2, .slots = sl, .max_slots = 3 };
    assert_int_equal(gtt_vgpu_create(&e->g, 7, &sp), 0);
    assert_slots(e, 7, 2, sl);
}

static void test_grow_from_nothing_is_placed(void **state)
{
    struct env *e = *state;
    struct gtt_vgpu_spec sp = { .n_slots = 0, .max_slots = 2 };
    assert_int_equal(gtt_vgpu_create(&e->g, 5, &sp), 0);
    /* Occupancy 1,1,2,2,1: two slots with the least total are 0-1. */
    assert_int_equal(gtt_balloon_grow(&e->g, 5, 2), 0);
    assert_slots(e, 5, 2, (unsigned[]){ 0, 1 });
}

/* ---- controller --------------------------------------------------------------------------- */

static void test_controller_f_and_bands(void **state)
{
    (void)state;
    struct gtt_ctl_params p;
    gtt_ctl_defaults(&p);
    assert_int_equal(p.th_low, 500);
    assert_int_equal(p.th_high, 1000);
    assert_int_equal(p.period_ms, 500);
    assert_int_equal(gtt_ctl_f(&p, 0, 0), 0);
    assert_int_equal(gtt_ctl_f(&p, 250000, 25000), 500);     /* 0.25 + 0.25 */
    assert_int_equal(gtt_ctl_f(&p, 2000000, 1000000), 2000); /* each term capped at 1 */
    struct gtt_ctl_vgpu v[3] = {
        { .id = 0,
          .slots = 6,
          .min_slots = 1,
          .max_slots = 8,
          .util_permille = 900,
          .grow_request = 2 },
        { .id = 1, .slots = 6, .min_slots = 1, .max_slots = 8, .util_permille = 100 },
        { .id = 2, .slots = 3, .min_slots = 1, .max_slots = 8, .util_permille = 0 },
    };
    struct gtt_ctl_action a[8];
    enum gtt_ctl_band b;
    uint32_t f;
    /* Low: grant, shrink nobody. */
    assert_int_equal(gtt_ctl_decide(&p, 100000, 10000, v, 3, a, 8, &b, &f), 1);
    assert_int_equal(b, GTT_CTL_LOW);
    assert_int_equal(f, 200);
    assert_int_equal(a[0].kind, GTT_CTL_GROW);
    assert_int_equal(a[0].vgpu, 0);
    assert_int_equal(a[0].q, 2);
    /* Exactly the low threshold: middle band.  Grant, and shrink one slot of the vGPU with the
     * most unused memory (6 x 0.9 = 5.4 slots for vGPU 1 beats 3 x 1.0 for vGPU 2). */
    assert_int_equal(gtt_ctl_decide(&p, 250000, 25000, v, 3, a, 8, &b, &f), 2);
    assert_int_equal(b, GTT_CTL_MID);
    assert_int_equal(a[0].kind, GTT_CTL_GROW);
    assert_int_equal(a[1].kind, GTT_CTL_SHRINK);
    assert_int_equal(a[1].vgpu, 1);
    assert_int_equal(a[1].q, 1);
    /* High: refuse the request, reclaim two slots from the largest holders (0 and 1 tie at 6;
     * the less used one first, then the other). */
    assert_int_equal(gtt_ctl_decide(&p, 500000, 50000, v, 3, a, 8, &b, &f), 3);
    assert_int_equal(b, GTT_CTL_HIGH);
    assert_int_equal(a[0].kind, GTT_CTL_REFUSE);
    assert_int_equal(a[1].kind, GTT_CTL_SHRINK);
    assert_int_equal(a[1].vgpu, 0);
    assert_int_equal(a[1].q, 1);
    assert_int_equal(a[2].kind, GTT_CTL_SHRINK);
    assert_int_equal(a[2].vgpu, 1);
    assert_int_equal(a[2].q, 1);
    /* Nobody above minimum: nothing to reclaim. */
    for (unsigned i = 0; i < 3; i++)
        v[i].min_slots = v[i].slots;
    assert_int_equal(gtt_ctl_decide(&p, 500000, 50000, v, 3, a, 8, &b, &f), 1);
    assert_int_equal(gtt_ctl_decide(&p, 250000, 25000, v, 3, a, 8, &b, &f), 1);
    /* Bad parameters. */
    p.th_low = 1500;
    assert_int_equal(gtt_ctl_decide(&p, 0, 0, v, 3, a, 8, &b, &f), GTT_EINVAL);
}

/* A period in the low band where vGPU 3 asks for two slots: Algorithm 1 places them left, as
 * in the example (slots 0-2).  Its request is withdrawn afterwards. */
static void period_grows_vgpu3(struct env *e, const struct gtt_ctl_params *p, uint32_t *util,
                               unsigned *req, struct gtt_ctl_report *rep)
{
    req[3] = 2;
    assert_true(gtt_balloon_period(&e->g, p, 0, 0, util, req, rep) >= 1);
    assert_slots(e, 3, 3, (unsigned[]){ 0, 1, 2 });
    req[3] = 0;
}

static void test_controller_period_on_live_state(void **state)
{
    struct env *e = *state;
    struct gtt_ctl_params p;
    gtt_ctl_defaults(&p);
    uint32_t util[GTT_MAX_VGPUS] = { 0 };
    unsigned req[GTT_MAX_VGPUS] = { 0 };
    struct gtt_ctl_report rep;
    period_grows_vgpu3(e, &p, util, req, &rep);
    assert_int_equal(rep.band, GTT_CTL_LOW);
    assert_int_equal(rep.granted, 1);
    /* High copy overhead: requests refused, two slots reclaimed. */
    req[0] = 1;
    assert_true(gtt_balloon_period(&e->g, &p, 0, 200000, util, req, &rep) >= 1);
    assert_int_equal(rep.band, GTT_CTL_HIGH);
    assert_int_equal(rep.refused, 1);
    assert_int_equal(rep.shrunk_slots, 2);
    struct gtt_summary all;
    gtt_summarize(&e->g, &all);
    assert_int_equal(all.st.balloon_refused, 1);
    /* A request beyond the vGPU's maximum is refused, not granted past it. */
    req[0] = 0;
    req[3] = 5;
    assert_true(gtt_balloon_period(&e->g, &p, 0, 0, util, req, &rep) >= 1);
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&e->g, 3, &s);
    assert_true(s.n_slots <= 4);
}

/* A held vGPU (its preempted work is half done) keeps its slots through the controller's
 * reclaim and refuses a shrink until it is released; its neighbours are still decided. */
static void test_held_slots_are_not_reclaimed(void **state)
{
    struct env *e = *state;
    struct gtt_ctl_params p;
    gtt_ctl_defaults(&p);
    uint32_t util[GTT_MAX_VGPUS] = { 0 };
    unsigned req[GTT_MAX_VGPUS] = { 0 };
    struct gtt_ctl_report rep;
    period_grows_vgpu3(e, &p, util, req, &rep);
    gtt_vgpu_hold_slots(&e->g, 3, true);
    assert_int_equal(gtt_balloon_shrink(&e->g, 3, 1), GTT_EBUSY);
    assert_true(gtt_balloon_period(&e->g, &p, 0, 200000, util, req, &rep) >= 0);
    assert_int_equal(rep.band, GTT_CTL_HIGH);
    assert_slots(e, 3, 3, (unsigned[]){ 0, 1, 2 });
    /* Released, the same reclaim takes vGPU 3's extra slots. */
    gtt_vgpu_hold_slots(&e->g, 3, false);
    assert_true(gtt_balloon_period(&e->g, &p, 0, 200000, util, req, &rep) >= 1);
    assert_true(rep.shrunk_slots >= 1);
    struct gtt_vgpu_summary s;
    gtt_vgpu_summarize(&e->g, 3, &s);
    assert_true(s.n_slots < 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example_expand_two_left),
        cmocka_unit_test(test_worked_example_reduce),
        cmocka_unit_test(test_algorithm_limits),
        cmocka_unit_test(test_place_and_sparse_plans),
        cmocka_unit_test_setup_teardown(test_live_worked_example, setup_contig, teardown),
        cmocka_unit_test_setup_teardown(test_live_limits, setup_contig, teardown),
        cmocka_unit_test_setup_teardown(test_running_vgpu_gets_new_slots_written, setup_contig,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_idle_sharing_is_free, setup_contig, teardown),
        cmocka_unit_test_setup_teardown(test_published_counts_idle_too, setup_published, teardown),
        cmocka_unit_test_setup_teardown(test_regrown_slot_is_not_stale, setup_contig, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_mode_picks_any_slots, setup_sparse, teardown),
        cmocka_unit_test_setup_teardown(test_sparse_create_accepts_gaps, setup_sparse, teardown),
        cmocka_unit_test_setup_teardown(test_grow_from_nothing_is_placed, setup_contig, teardown),
        cmocka_unit_test(test_controller_f_and_bands),
        cmocka_unit_test_setup_teardown(test_controller_period_on_live_state, setup_contig,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_held_slots_are_not_reclaimed, setup_contig, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
