/*
 * test_sched_fair.c — the fair policy's rules (docs/sched.md, FairGV §3.2.1): tag arithmetic,
 * order by start tag, the wake-up rule, overrun payback, weight change at run time.
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

struct rig {
    uint64_t now;
    struct sched *s;
    uint64_t next_id[8];
    uint64_t cost[8];   /* GPU time of each vGPU's workloads */
    uint32_t budget[8]; /* workloads still to submit (UINT32_MAX: endless) */
    uint32_t depth;     /* queued workloads kept per vGPU */
};

static uint64_t rig_clock(void *ctx)
{
    return ((struct rig *)ctx)->now;
}

static struct rig *rig_new(uint64_t slice, uint32_t nv, const uint32_t *weights)
{
    struct rig *r = calloc(1, sizeof(*r));
    assert_non_null(r);
    struct sched_config cfg;
    sched_config_default(&cfg);
    cfg.slice_ns = slice;
    cfg.max_vgpus = 8;
    struct sched_clock clk = { .now = rig_clock, .ctx = r };
    assert_int_equal(sched_create(&cfg, &clk, &r->s), SCHED_OK);
    r->depth = 2;
    for (uint32_t v = 0; v < nv; v++) {
        assert_int_equal(sched_vgpu_add(r->s, v, weights[v]), SCHED_OK);
        r->budget[v] = UINT32_MAX;
    }
    return r;
}

static void rig_free(struct rig *r)
{
    sched_destroy(r->s);
    free(r);
}

static void refill(struct rig *r, uint32_t v)
{
    while (r->budget[v] > 0 && sched_vgpu_queued(r->s, v) < r->depth) {
        struct sched_workload w = { .id = r->next_id[v]++, .est_ns = r->cost[v] };
        assert_int_equal(sched_submit(r->s, v, &w), SCHED_OK);
        if (r->budget[v] != UINT32_MAX)
            r->budget[v]--;
    }
}

/* Runs until the next turn starts; returns its vGPU (SCHED_NO_VGPU when idle).  Workloads of
 * the current turn are completed with their cost and the clock advanced by it. */
static uint32_t next_turn(struct rig *r, uint32_t nv)
{
    for (;;) {
        for (uint32_t v = 0; v < nv; v++)
            refill(r, v);
        struct sched_decision d;
        assert_int_equal(sched_pick(r->s, &d), SCHED_OK);
        if (d.kind == SCHED_PICK_IDLE)
            return SCHED_NO_VGPU;
        assert_int_equal(d.kind, SCHED_PICK_DISPATCH);
        for (uint32_t k = 0; k < d.count; k++) {
            r->now += r->cost[d.vgpu];
            assert_int_equal(sched_complete(r->s, d.vgpu, d.first_id + k, r->cost[d.vgpu]),
                             SCHED_OK);
        }
        if (d.new_turn)
            return d.vgpu;
    }
}

/* FairGV Fig. 4: weights 1 and 2, 10 ms turns.  vGPU 0 goes first on equal tags; its tag
 * advances by 10 per turn, vGPU 1's by 5, so the order is 0 1 1 0 1 1 0. */
static void test_tags_follow_figure_4(void **state)
{
    (void)state;
    const uint32_t w[2] = { 1, 2 };
    struct rig *r = rig_new(MS(10), 2, w);
    r->cost[0] = r->cost[1] = MS(10);
    const uint32_t order[7] = { 0, 1, 1, 0, 1, 1, 0 };
    const uint64_t tag_before[7] = { 0, 0, MS(5), MS(10), MS(10), MS(15), MS(20) };
    for (int i = 0; i < 7; i++) {
        uint32_t v = next_turn(r, 2);
        assert_int_equal(v, order[i]);
        /* While it runs, its start tag is still the one it was picked with. */
        assert_int_equal((uint64_t)sched_vgpu_key(r->s, v), tag_before[i]);
    }
    /* Finishing the 7th turn: finish = start + L / w = 20 + 10 / 1. */
    assert_int_equal(next_turn(r, 2), 1);
    assert_int_equal((uint64_t)sched_vgpu_key(r->s, 0), MS(30));
    rig_free(r);
}

/* F = S + L / w with the remainder carried: three turns of 10 ns at weight 3 advance the tag
 * by exactly 10 (not 3 * floor(10 / 3) = 9). */
static void test_tag_remainder_is_carried(void **state)
{
    (void)state;
    const uint32_t w[2] = { 3, 1 };
    struct rig *r = rig_new(10, 2, w);
    r->cost[0] = 10;
    r->cost[1] = 1000;
    r->budget[1] = 0; /* vGPU 1 stays idle */
    /* Tags at the start of turns 1..4: 0, 3 (rem 1), 6 (rem 2), 10 (rem 0). */
    const int64_t tags[4] = { 0, 3, 6, 10 };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(next_turn(r, 2), 0);
        assert_int_equal(sched_vgpu_key(r->s, 0), tags[i]);
    }
    rig_free(r);
}

/* FairGV Fig. 4 continued: vGPU 0 blocks at 70 ms and wakes at 105 ms; its start tag becomes
 * the global virtual time, 35 — the start tag of vGPU 1, the only active vGPU — not its own
 * 30, so the 35 ms it slept earn it nothing; and it runs next. */
static void test_wakeup_gets_no_credit(void **state)
{
    (void)state;
    const uint32_t w[2] = { 1, 2 };
    struct rig *r = rig_new(MS(10), 2, w);
    r->cost[0] = r->cost[1] = MS(10);
    r->depth = 1;
    r->budget[0] = 3; /* three workloads, then it blocks */
    for (int i = 0; i < 7; i++)
        next_turn(r, 2); /* 0 1 1 0 1 1 0, done at 70 ms */
    /* vGPU 0 has nothing left: vGPU 1 alone at 70, 80 and 90 ms (tags 20, 25, 30). */
    for (int i = 0; i < 3; i++)
        assert_int_equal(next_turn(r, 2), 1);
    assert_int_equal(r->now, MS(100));
    assert_int_equal((uint64_t)sched_vgpu_key(r->s, 0), MS(30));
    /* 100 ms: vGPU 1's next turn, tag 35. */
    refill(r, 1);
    struct sched_decision d;
    assert_int_equal(sched_pick(r->s, &d), SCHED_OK);
    assert_int_equal(d.vgpu, 1);
    assert_true(d.new_turn);
    assert_int_equal((uint64_t)sched_vgpu_key(r->s, 1), MS(35));
    /* 105 ms: vGPU 0 has work again, while vGPU 1's workload is in flight. */
    r->now = MS(105);
    assert_int_equal(sched_virtual_time(r->s), MS(35));
    r->budget[0] = UINT32_MAX;
    refill(r, 0);
    assert_int_equal((uint64_t)sched_vgpu_key(r->s, 0), MS(35));
    /* 110 ms: vGPU 1's turn ends with tag 40; vGPU 0 (35) runs next. */
    r->now = MS(110);
    assert_int_equal(sched_complete(r->s, 1, d.first_id, MS(10)), SCHED_OK);
    assert_int_equal(next_turn(r, 2), 0);
    assert_int_equal((uint64_t)sched_vgpu_key(r->s, 1), MS(40));
    rig_free(r);
}

/* A vGPU that slept long behind an active one gets one turn on waking, not a burst. */
static void test_sleeper_does_not_monopolise(void **state)
{
    (void)state;
    const uint32_t w[2] = { 1, 1 };
    struct rig *r = rig_new(MS(6), 2, w);
    r->cost[0] = r->cost[1] = MS(1);
    r->budget[1] = 0;
    for (int i = 0; i < 50; i++)
        assert_int_equal(next_turn(r, 2), 0); /* 300 ms of vGPU 0 alone */
    r->budget[1] = UINT32_MAX;
    int run = 0, max_run = 0;
    for (int i = 0; i < 20; i++) {
        uint32_t v = next_turn(r, 2);
        run = v == 1 ? run + 1 : 0;
        max_run = run > max_run ? run : max_run;
    }
    assert_true(max_run <= 1);
    rig_free(r);
}

/* Non-preemptive overrun: with a 6 ms slice, vGPU 0's 20 ms workload is charged 20 ms, so
 * vGPU 1 (1 ms workloads, 6 ms turns) gets the turns that bring its tag past 20: 4 of them. */
static void test_overrun_is_paid_back(void **state)
{
    (void)state;
    const uint32_t w[2] = { 1, 1 };
    struct rig *r = rig_new(MS(6), 2, w);
    r->cost[0] = MS(20);
    r->cost[1] = MS(1);
    r->depth = 8;
    assert_int_equal(next_turn(r, 2), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(next_turn(r, 2), 1);
    assert_int_equal(next_turn(r, 2), 0);
    assert_int_equal((uint64_t)sched_vgpu_key(r->s, 0), MS(20));
    struct sched_vgpu_stats st;
    assert_int_equal(sched_vgpu_stats_get(r->s, 0, &st), SCHED_OK);
    assert_int_equal(st.overrun_ns, MS(14));
    /* Over a long run the two get the same GPU time despite 20x different workloads. */
    for (int i = 0; i < 2000; i++)
        next_turn(r, 2);
    struct sched_vgpu_stats a, b;
    sched_vgpu_stats_get(r->s, 0, &a);
    sched_vgpu_stats_get(r->s, 1, &b);
    uint64_t diff = a.gpu_ns > b.gpu_ns ? a.gpu_ns - b.gpu_ns : b.gpu_ns - a.gpu_ns;
    assert_true(diff <= MS(26)); /* within one overrun + one slice */
    rig_free(r);
}

static uint64_t gpu_of(struct rig *r, uint32_t v)
{
    struct sched_vgpu_stats st;
    assert_int_equal(sched_vgpu_stats_get(r->s, v, &st), SCHED_OK);
    return st.gpu_ns;
}

/* Weights 1:1, then 1:3 at run time: the following period splits 1:3. */
static void test_weight_change_mid_run(void **state)
{
    (void)state;
    const uint32_t w[2] = { 1, 1 };
    struct rig *r = rig_new(MS(6), 2, w);
    r->cost[0] = r->cost[1] = US(500);
    r->depth = 16;
    for (int i = 0; i < 100; i++)
        next_turn(r, 2);
    uint64_t a = gpu_of(r, 0), b = gpu_of(r, 1);
    assert_true(a * 100 >= b * 95 && b * 100 >= a * 95);

    assert_int_equal(sched_vgpu_set_weight(r->s, 1, 3), SCHED_OK);
    sched_metrics_reset(r->s);
    for (int i = 0; i < 400; i++)
        next_turn(r, 2);
    a = gpu_of(r, 0);
    b = gpu_of(r, 1);
    /* b / a within 3 +- 3% */
    assert_true(b * 100 >= a * 291 && b * 100 <= a * 309);
    struct sched_metrics m;
    assert_int_equal(sched_metrics_get(r->s, &m), SCHED_OK);
    assert_true(m.mmr_ppm >= 970000);
    assert_int_equal(sched_vgpu_set_weight(r->s, 1, 0), SCHED_EINVAL);
    assert_int_equal(sched_vgpu_set_weight(r->s, 1, SCHED_WEIGHT_MAX + 1), SCHED_EINVAL);
    assert_int_equal(sched_vgpu_set_weight(r->s, 5, 2), SCHED_ENOENT);
    rig_free(r);
}

/* A vGPU added later starts at the current virtual time: it does not get to catch up on
 * the time before it existed. */
static void test_newcomer_starts_at_virtual_time(void **state)
{
    (void)state;
    const uint32_t w[1] = { 1 };
    struct rig *r = rig_new(MS(6), 1, w);
    r->cost[0] = r->cost[1] = MS(1);
    for (int i = 0; i < 30; i++)
        next_turn(r, 1);
    uint64_t gvt = sched_virtual_time(r->s);
    assert_true(gvt >= MS(170));
    assert_int_equal(sched_vgpu_add(r->s, 1, 1), SCHED_OK);
    r->budget[1] = UINT32_MAX;
    assert_true((uint64_t)sched_vgpu_key(r->s, 1) >= gvt);
    int ones = 0;
    for (int i = 0; i < 10; i++)
        ones += next_turn(r, 2) == 1;
    assert_in_range(ones, 4, 6);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tags_follow_figure_4),
        cmocka_unit_test(test_tag_remainder_is_carried),
        cmocka_unit_test(test_wakeup_gets_no_credit),
        cmocka_unit_test(test_sleeper_does_not_monopolise),
        cmocka_unit_test(test_overrun_is_paid_back),
        cmocka_unit_test(test_weight_change_mid_run),
        cmocka_unit_test(test_newcomer_starts_at_virtual_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
