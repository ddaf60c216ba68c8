/*
 * test_sched_backlog.c — fairness figures over the vGPUs that were backlogged (a guest
 * with nothing to do is not starved), and
 * the prediction of the next owner that predictive copying writes ahead for.
 *
 * A fake clock the test moves by hand; the "engine" is the test itself: it picks, advances the
 * clock by the workloads' GPU time and completes them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sched/sched.h"

#define MS(x) SCHED_MS(x)
#define US(x) SCHED_US(x)
#define MAXV  16u

static uint64_t now_ns;
static uint64_t fake_clock(void *ctx)
{
    (void)ctx;
    return now_ns;
}

struct rig {
    struct sched *s;
    uint64_t next_id[MAXV];
    uint64_t wl_ns[MAXV]; /* GPU time of each of its workloads */
    uint32_t depth[MAXV]; /* saturating: keep this many queued (0: submits by hand) */
};

static struct rig *rig_new(enum sched_policy pol, const uint32_t *weights, unsigned n)
{
    struct rig *r = calloc(1, sizeof *r);
    struct sched_config cfg;
    sched_config_default(&cfg);
    cfg.policy = pol;
    cfg.max_vgpus = MAXV;
    struct sched_clock c = { .now = fake_clock, .ctx = NULL };
    now_ns = 0;
    assert_int_equal(sched_create(&cfg, &c, &r->s), SCHED_OK);
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(sched_vgpu_add(r->s, i, weights[i]), SCHED_OK);
        r->wl_ns[i] = MS(1);
    }
    return r;
}

static void rig_free(struct rig *r)
{
    sched_destroy(r->s);
    free(r);
}

static void submit(struct rig *r, uint32_t v)
{
    struct sched_workload w = { .id = r->next_id[v]++, .est_ns = r->wl_ns[v] };
    assert_int_equal(sched_submit(r->s, v, &w), SCHED_OK);
}

static void top_up(struct rig *r)
{
    for (uint32_t v = 0; v < MAXV; v++)
        while (r->depth[v] && sched_vgpu_queued(r->s, v) < r->depth[v])
            submit(r, v);
}

/* One pick and its completions; the engine idles 1 ms when there is nothing to run.  Returns
 * the decision. */
static struct sched_decision step(struct rig *r)
{
    top_up(r);
    struct sched_decision d;
    assert_int_equal(sched_pick(r->s, &d), SCHED_OK);
    if (d.kind != SCHED_PICK_DISPATCH) {
        now_ns += MS(1);
        return d;
    }
    for (uint32_t k = 0; k < d.count; k++) {
        now_ns += r->wl_ns[d.vgpu];
        assert_int_equal(sched_complete(r->s, d.vgpu, d.first_id + k, r->wl_ns[d.vgpu]), SCHED_OK);
    }
    return d;
}

/* Three saturating vGPUs at 1:2:3 and five that draw one small frame every 100 ms: the five
 * asked for little and got it, so they are not counted, and the figures judge the three. */
static void test_idle_vgpus_do_not_lower_mmr(void **state)
{
    (void)state;
    const uint32_t w[8] = { 100, 200, 300, 100, 100, 150, 200, 100 };
    struct rig *r = rig_new(SCHED_POLICY_FAIR, w, 8);
    for (uint32_t v = 0; v < 3; v++)
        r->depth[v] = 4;
    for (uint32_t v = 3; v < 8; v++)
        r->wl_ns[v] = US(200);
    uint64_t next_frame = 0;
    while (now_ns < MS(3000)) {
        if (now_ns >= next_frame) {
            for (uint32_t v = 3; v < 8; v++)
                if (sched_vgpu_queued(r->s, v) == 0)
                    submit(r, v);
            next_frame += MS(100);
        }
        step(r);
    }
    struct sched_metrics m;
    assert_int_equal(sched_metrics_get(r->s, &m), SCHED_OK);
    assert_int_equal(m.active, 8);     /* all had work ... */
    assert_int_equal(m.backlogged, 3); /* ... three wanted the GPU */
    assert_true(m.mmr_ppm >= 950000);
    assert_true(m.jain_ppm >= 990000);
    uint64_t got3 = 0;
    for (uint32_t v = 0; v < 8; v++) {
        struct sched_vgpu_stats st;
        assert_int_equal(sched_vgpu_stats_get(r->s, v, &st), SCHED_OK);
        assert_int_equal(st.backlogged, v < 3);
        if (v < 3) {
            /* ideal: the three's GPU time by weight 1:2:3, as a part of all GPU time */
            got3 += st.share_ppm;
            assert_true(st.ideal_ppm > 0);
            assert_int_equal(st.weight_share_ppm, w[v] * 1000000u / 600u);
        } else {
            assert_int_equal(st.ideal_ppm, 0);
            assert_int_equal(st.weight_share_ppm, 0);
            assert_true(st.workloads >= 29); /* every frame was served */
            assert_true(st.backlog_ns < MS(3000) / 10);
        }
    }
    struct sched_vgpu_stats a, c;
    sched_vgpu_stats_get(r->s, 0, &a);
    sched_vgpu_stats_get(r->s, 2, &c);
    /* The ideals of the three add up to what the three received. */
    assert_in_range(a.ideal_ppm * 6, got3 - 100, got3 + 100);
    assert_in_range(c.ideal_ppm * 2, got3 - 100, got3 + 100);
    rig_free(r);
}

/* las ignores weights: two saturating vGPUs at 1:4 get 1:1.  Both were backlogged, so the one
 * that should have had four fifths and got half is starved: MMR (1/2 / 4/5) / (1/2 / 1/5) =
 * 1/4.  An idle vGPU beside them changes nothing. */
static void test_starved_backlogged_vgpu_lowers_mmr(void **state)
{
    (void)state;
    const uint32_t w[3] = { 100, 400, 300 };
    struct rig *r = rig_new(SCHED_POLICY_LAS, w, 3);
    r->depth[0] = r->depth[1] = 4;
    while (now_ns < MS(2000))
        step(r);
    struct sched_metrics m;
    sched_metrics_get(r->s, &m);
    assert_int_equal(m.backlogged, 2);
    assert_in_range(m.mmr_ppm, 230000, 270000);
    struct sched_vgpu_stats b;
    sched_vgpu_stats_get(r->s, 1, &b);
    assert_true(b.backlogged);
    assert_in_range(b.share_ppm, 480000, 520000);
    assert_in_range(b.ideal_ppm, 790000, 810000);

    /* The same pair under fair: the figures say it is fair. */
    rig_free(r);
    r = rig_new(SCHED_POLICY_FAIR, w, 3);
    r->depth[0] = r->depth[1] = 4;
    while (now_ns < MS(2000))
        step(r);
    sched_metrics_get(r->s, &m);
    assert_int_equal(m.backlogged, 2);
    assert_true(m.mmr_ppm >= 970000);
    rig_free(r);
}

/* The threshold: backlogged for at least half of the interval (cfg.backlog_min_ppm). */
static void test_backlog_threshold_and_reset(void **state)
{
    (void)state;
    const uint32_t w[2] = { 100, 100 };
    struct rig *r = rig_new(SCHED_POLICY_FAIR, w, 2);
    /* vGPU 0: one workload of 6 ms at t = 0; vGPU 1: one of 4 ms queued behind it. */
    r->wl_ns[0] = MS(6);
    r->wl_ns[1] = MS(4);
    submit(r, 0);
    submit(r, 1);
    step(r); /* 0 runs 0..6 ms */
    step(r); /* 1 runs 6..10 ms: it had work from 0 to 10 */
    now_ns = MS(20);
    struct sched_vgpu_stats a, b;
    sched_vgpu_stats_get(r->s, 0, &a);
    sched_vgpu_stats_get(r->s, 1, &b);
    assert_int_equal(a.backlog_ns, MS(6));
    assert_int_equal(b.backlog_ns, MS(10));
    assert_false(a.backlogged); /* 30% of 20 ms */
    assert_true(b.backlogged);  /* 50% */
    struct sched_metrics m;
    sched_metrics_get(r->s, &m);
    assert_int_equal(m.backlogged, 1);
    assert_int_equal(m.mmr_ppm, SCHED_PPM); /* one vGPU is fair to itself */

    /* Suspended time does not count; a reset starts the count afresh. */
    submit(r, 0);
    sched_vgpu_idle(r->s, 0);
    now_ns = MS(30);
    sched_vgpu_stats_get(r->s, 0, &a);
    assert_int_equal(a.backlog_ns, MS(6));
    sched_vgpu_wake(r->s, 0);
    now_ns = MS(35);
    sched_vgpu_stats_get(r->s, 0, &a);
    assert_int_equal(a.backlog_ns, MS(11));
    sched_metrics_reset(r->s);
    now_ns = MS(40);
    sched_vgpu_stats_get(r->s, 0, &a);
    sched_vgpu_stats_get(r->s, 1, &b);
    assert_int_equal(a.backlog_ns, MS(5)); /* still has its workload */
    assert_true(a.backlogged);
    assert_int_equal(b.backlog_ns, 0);
    assert_false(b.backlogged);
    rig_free(r);
}

/* Saturating vGPUs with unequal weights: at the start of every turn the prediction names the
 * next different owner the scheduler then really picks. */
static void test_prediction_follows_fair_order(void **state)
{
    (void)state;
    const uint32_t w[5] = { 100, 150, 200, 300, 100 };
    struct rig *r = rig_new(SCHED_POLICY_FAIR, w, 5);
    for (uint32_t v = 0; v < 5; v++) {
        r->depth[v] = 3;
        r->wl_ns[v] = US(700 + 300 * v);
    }
    uint32_t predicted = SCHED_NO_VGPU, owner = SCHED_NO_VGPU;
    unsigned checked = 0;
    for (unsigned i = 0; i < 4000; i++) {
        struct sched_decision d = step(r);
        if (d.kind != SCHED_PICK_DISPATCH || !d.new_turn)
            continue;
        if (d.vgpu != owner && predicted != SCHED_NO_VGPU) {
            assert_int_equal(d.vgpu, predicted);
            checked++;
        }
        owner = d.vgpu;
        /* As the render loop asks: right after the turn started (it is not in the queue). */
        predicted = sched_predict_next(r->s, MS(200));
        assert_int_not_equal(predicted, owner);
    }
    assert_true(checked > 500);
    rig_free(r);
}

/* A guest that submits one frame at a time is not runnable while another runs, but it was
 * backlogged a moment ago: it is predicted; forgotten once it has been quiet too long, and
 * never predicted without the recent window. */
static void test_prediction_includes_recently_backlogged(void **state)
{
    (void)state;
    const uint32_t w[3] = { 100, 100, 100 };
    struct rig *r = rig_new(SCHED_POLICY_FAIR, w, 3);
    r->depth[0] = 4;       /* heavy */
    r->wl_ns[1] = US(500); /* frame at a time */
    r->wl_ns[2] = US(500);
    submit(r, 2); /* 2 drew once, long ago */
    step(r);
    step(r);
    now_ns = MS(1000);
    submit(r, 1);
    struct sched_decision d;
    for (;;) {
        d = step(r);
        if (d.kind == SCHED_PICK_DISPATCH && d.vgpu == 1)
            break;
    }
    d = step(r); /* 1's queue is empty: heavy takes its turn */
    assert_int_equal(d.kind, SCHED_PICK_DISPATCH);
    assert_int_equal(d.vgpu, 0);
    assert_int_equal(sched_vgpu_queued(r->s, 1), 0);
    assert_int_equal(sched_predict_next(r->s, MS(200)), 1);
    assert_int_equal(sched_predict_next(r->s, 0), SCHED_NO_VGPU);
    /* Runnable work comes first: 2 submits, it is in the queue, it is next. */
    submit(r, 2);
    assert_int_equal(sched_predict_next(r->s, MS(200)), 2);
    rig_free(r);

    /* Quiet for longer than the window: not predicted. */
    r = rig_new(SCHED_POLICY_FAIR, w, 3);
    r->depth[0] = 4;
    r->wl_ns[1] = US(500);
    submit(r, 1);
    step(r);
    while (now_ns < MS(500))
        step(r);
    assert_int_equal(sched_current(r->s), 0);
    assert_int_equal(sched_predict_next(r->s, MS(200)), SCHED_NO_VGPU);
    assert_int_equal(sched_predict_next(r->s, MS(600)), 1);
    rig_free(r);
}

/* Other policies: the prediction is whoever their select() would take at that moment.  Their
 * periodic accounting (rr's balance, credit's refill, las's decay) may run between the
 * prediction and the next pick and change the order, so most, not all, predictions hold
 * (fair has no such accounting: test_prediction_follows_fair_order holds it to every turn). */
static void test_prediction_other_policies(void **state)
{
    (void)state;
    const enum sched_policy pols[3] = { SCHED_POLICY_RR, SCHED_POLICY_CREDIT, SCHED_POLICY_LAS };
    const uint32_t w[3] = { 100, 200, 300 };
    for (unsigned p = 0; p < 3; p++) {
        struct rig *r = rig_new(pols[p], w, 3);
        for (uint32_t v = 0; v < 3; v++)
            r->depth[v] = 3;
        uint32_t predicted = SCHED_NO_VGPU, owner = SCHED_NO_VGPU;
        unsigned checked = 0, right = 0;
        for (unsigned i = 0; i < 3000; i++) {
            struct sched_decision d = step(r);
            if (d.kind != SCHED_PICK_DISPATCH || !d.new_turn)
                continue;
            if (d.vgpu != owner && predicted != SCHED_NO_VGPU) {
                right += d.vgpu == predicted;
                checked++;
            }
            owner = d.vgpu;
            predicted = sched_predict_next(r->s, MS(200));
            assert_int_not_equal(predicted, owner);
        }
        assert_true(checked > 50);
        assert_true(right * 4 >= checked * 3); /* measured: rr 97%, credit 80%, las 100% */
        rig_free(r);
    }
    assert_int_equal(sched_predict_next(NULL, 0), SCHED_NO_VGPU);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_vgpus_do_not_lower_mmr),
        cmocka_unit_test(test_starved_backlogged_vgpu_lowers_mmr),
        cmocka_unit_test(test_backlog_threshold_and_reset),
        cmocka_unit_test(test_prediction_follows_fair_order),
        cmocka_unit_test(test_prediction_includes_recently_backlogged),
        cmocka_unit_test(test_prediction_other_policies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
