/*
 * test_sched_policies.c — each policy's basic order behind the common interface, and the
 * policy names the vendor configuration uses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sched/sched.h"

#define MS(x) SCHED_MS(x)

#define NV 4

struct rig {
    struct sched *s;
    uint64_t now;
    uint64_t cost[NV];
    bool busy[NV]; /* keeps two workloads queued */
    uint64_t next_id[NV];
};

static uint64_t rig_clock(void *ctx)
{
    return ((struct rig *)ctx)->now;
}

static struct rig *rig_new(struct sched_config *cfg, uint32_t nv, const uint32_t *w, uint64_t cost)
{
    struct rig *r = calloc(1, sizeof(*r));
    assert_non_null(r);
    struct sched_clock c = { .now = rig_clock, .ctx = r };
    assert_int_equal(sched_create(cfg, &c, &r->s), SCHED_OK);
    for (uint32_t v = 0; v < nv; v++) {
        assert_int_equal(sched_vgpu_add(r->s, v, w[v]), SCHED_OK);
        r->cost[v] = cost;
        r->busy[v] = true;
    }
    return r;
}

static void rig_free(struct rig *r)
{
    sched_destroy(r->s);
    free(r);
}

static void refill(struct rig *r)
{
    for (uint32_t v = 0; v < NV; v++) {
        while (r->busy[v] && sched_vgpu_queued(r->s, v) < 2) {
            struct sched_workload w = { .id = r->next_id[v]++, .est_ns = r->cost[v] };
            assert_int_equal(sched_submit(r->s, v, &w), SCHED_OK);
        }
    }
}

/* Runs to the start of the next turn and returns its vGPU, or SCHED_NO_VGPU when the pick
 * says idle (*retry gets the time it names). */
static uint32_t next_turn(struct rig *r, uint64_t *retry)
{
    for (;;) {
        refill(r);
        struct sched_decision d;
        assert_int_equal(sched_pick(r->s, &d), SCHED_OK);
        if (d.kind == SCHED_PICK_IDLE) {
            if (retry)
                *retry = d.retry_at_ns;
            return SCHED_NO_VGPU;
        }
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

static uint64_t gpu_of(struct rig *r, uint32_t v)
{
    struct sched_vgpu_stats st;
    assert_int_equal(sched_vgpu_stats_get(r->s, v, &st), SCHED_OK);
    return st.gpu_ns;
}

static struct sched_config config(enum sched_policy p)
{
    struct sched_config cfg;
    sched_config_default(&cfg);
    cfg.policy = p;
    cfg.max_vgpus = NV;
    return cfg;
}

/* fair: turns in proportion to weight (equal costs: exactly 1:2:3 over 60 turns). */
static void test_fair_order(void **state)
{
    (void)state;
    struct sched_config cfg = config(SCHED_POLICY_FAIR);
    const uint32_t w[3] = { 1, 2, 3 };
    struct rig *r = rig_new(&cfg, 3, w, MS(6));
    int turns[3] = { 0, 0, 0 };
    for (int i = 0; i < 60; i++)
        turns[next_turn(r, NULL)]++;
    assert_int_equal(turns[0], 10);
    assert_int_equal(turns[1], 20);
    assert_int_equal(turns[2], 30);
    assert_int_equal(sched_get_policy(r->s), SCHED_POLICY_FAIR);
    rig_free(r);
}

/* rr: first in, first out, a 16 ms quantum each. */
static void test_rr_round_robin(void **state)
{
    (void)state;
    struct sched_config cfg = config(SCHED_POLICY_RR);
    cfg.rr_balance_ns = MS(1000);
    const uint32_t w[3] = { 1, 1, 1 };
    struct rig *r = rig_new(&cfg, 3, w, MS(16));
    for (int i = 0; i < 9; i++)
        assert_int_equal(next_turn(r, NULL), (uint32_t)(i % 3));
    rig_free(r);
}

/* rr: weights act through the per-period time slice; a vGPU that used its slice is skipped
 * until a later balance adds to it. */
static void test_rr_skips_exhausted(void **state)
{
    (void)state;
    struct sched_config cfg = config(SCHED_POLICY_RR);
    const uint32_t w[2] = { 1, 99 }; /* 1 ms and 99 ms per 100 ms */
    struct rig *r = rig_new(&cfg, 2, w, MS(16));
    assert_int_equal(next_turn(r, NULL), 0);
    assert_int_equal(sched_vgpu_key(r->s, 0), (int64_t)MS(1)); /* while it runs */
    for (int i = 0; i < 7; i++)
        assert_int_equal(next_turn(r, NULL), 1);
    assert_int_equal(sched_vgpu_key(r->s, 0), -(int64_t)MS(14)); /* -15 + 1 at 100 ms */
    rig_free(r);
}

/* rr does not conserve work: with its time slice used, a backlogged vGPU waits for the next
 * balance even though the engine is free. */
static void test_rr_not_work_conserving(void **state)
{
    (void)state;
    struct sched_config cfg = config(SCHED_POLICY_RR);
    const uint32_t w[2] = { 1, 1 }; /* 50 ms each per 100 ms */
    struct rig *r = rig_new(&cfg, 2, w, MS(16));
    r->busy[1] = false;
    for (int i = 0; i < 4; i++)
        assert_int_equal(next_turn(r, NULL), 0);
    uint64_t retry = 0;
    assert_int_equal(next_turn(r, &retry), SCHED_NO_VGPU);
    assert_int_equal(r->now, MS(64));
    assert_int_equal(retry, MS(100));
    r->now = MS(100);
    assert_int_equal(next_turn(r, NULL), 0);
    rig_free(r);
}

/* credit: vGPUs with credit (UNDER) go before those without (OVER), whatever the order they
 * queued in. */
static void test_credit_under_before_over(void **state)
{
    (void)state;
    struct sched_config cfg = config(SCHED_POLICY_CREDIT);
    cfg.credit_period_ns = MS(1000); /* no refill during the test */
    const uint32_t w[3] = { 1, 1, 1 };
    struct rig *r = rig_new(&cfg, 3, w, MS(10));
    r->busy[2] = false;
    assert_int_equal(next_turn(r, NULL), 0); /* credit 0 -> -10 ms: OVER */
    assert_int_equal(next_turn(r, NULL), 1); /* same */
    r->busy[2] = true;                       /* arrives with credit 0: UNDER */
    assert_int_equal(next_turn(r, NULL), 2); /* ahead of 0, which queued first */
    assert_int_equal(next_turn(r, NULL), 0);
    assert_int_equal(next_turn(r, NULL), 1);
    assert_int_equal(sched_vgpu_key(r->s, 2), -(int64_t)MS(10));
    rig_free(r);
}

/* credit: refills per period in proportion to weight give 1:3 shares over time. */
static void test_credit_weighted_over_time(void **state)
{
    (void)state;
    struct sched_config cfg = config(SCHED_POLICY_CREDIT);
    const uint32_t w[2] = { 1, 3 };
    struct rig *r = rig_new(&cfg, 2, w, MS(1));
    while (r->now < MS(3000))
        next_turn(r, NULL);
    uint64_t a = gpu_of(r, 0), b = gpu_of(r, 1);
    assert_true(b * 100 >= a * 270 && b * 100 <= a * 330);
    rig_free(r);
}

/* las: the least served goes first — a newcomer runs until it has caught up, and weights
 * do not matter. */
static void test_las_least_attained_first(void **state)
{
    (void)state;
    struct sched_config cfg = config(SCHED_POLICY_LAS);
    cfg.las_decay_ns = MS(10000);
    const uint32_t w[3] = { 1, 4, 1 };
    struct rig *r = rig_new(&cfg, 3, w, MS(1));
    r->busy[2] = false;
    for (int i = 0; i < 20; i++)
        assert_int_equal(next_turn(r, NULL), (uint32_t)(i % 2)); /* equal, despite 1:4 */
    r->busy[2] = true;
    /* 0 and 1 have 60 ms each (one of them still running); 2 has none: 10 turns in a row. */
    int run = 0;
    while (next_turn(r, NULL) == 2)
        run++;
    assert_int_equal(run, 10);
    rig_free(r);
}

/* las: attained service halves every decay period. */
static void test_las_decay(void **state)
{
    (void)state;
    struct sched_config cfg = config(SCHED_POLICY_LAS);
    const uint32_t w[1] = { 1 };
    struct rig *r = rig_new(&cfg, 1, w, MS(1));
    for (int i = 0; i < 17; i++)
        next_turn(r, NULL); /* 16 turns charged (96 ms), the 17th running */
    assert_int_equal(sched_vgpu_key(r->s, 0), (int64_t)MS(96));
    next_turn(r, NULL); /* at 102 ms: halve to 48, then charge the 17th */
    assert_int_equal(sched_vgpu_key(r->s, 0), (int64_t)MS(54));
    rig_free(r);
}

static void test_policy_names(void **state)
{
    (void)state;
    static const char *names[] = { "fair", "rr", "credit", "las" };
    for (unsigned i = 0; i < 4; i++) {
        enum sched_policy p = SCHED_POLICY_COUNT;
        assert_int_equal(sched_policy_from_name(names[i], &p), SCHED_OK);
        assert_int_equal(p, (enum sched_policy)i);
        assert_string_equal(sched_policy_name(p), names[i]);
    }
    enum sched_policy p;
    assert_int_equal(sched_policy_from_name("FAIR", &p), SCHED_EINVAL);
    assert_int_equal(sched_policy_from_name("", &p), SCHED_EINVAL);
    assert_int_equal(sched_policy_from_name("fairer", &p), SCHED_EINVAL);
    assert_int_equal(sched_policy_from_name(NULL, &p), SCHED_EINVAL);
    assert_int_equal(sched_policy_from_name("rr", NULL), SCHED_EINVAL);
    assert_null(sched_policy_name(SCHED_POLICY_COUNT));
}

/* Every policy serves every backlogged vGPU (no starvation) through the same interface. */
static void test_all_policies_serve_everyone(void **state)
{
    (void)state;
    for (unsigned p = 0; p < SCHED_POLICY_COUNT; p++) {
        struct sched_config cfg = config((enum sched_policy)p);
        const uint32_t w[4] = { 1, 2, 3, 4 };
        struct rig *r = rig_new(&cfg, 4, w, SCHED_US(300));
        while (r->now < MS(2000)) {
            if (next_turn(r, NULL) == SCHED_NO_VGPU)
                r->now += MS(1);
        }
        for (uint32_t v = 0; v < 4; v++)
            assert_true(gpu_of(r, v) >= MS(100));
        struct sched_metrics m;
        assert_int_equal(sched_metrics_get(r->s, &m), SCHED_OK);
        assert_int_equal(m.active, 4);
        assert_true(m.switches > 0);
        rig_free(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fair_order),
        cmocka_unit_test(test_rr_round_robin),
        cmocka_unit_test(test_rr_skips_exhausted),
        cmocka_unit_test(test_rr_not_work_conserving),
        cmocka_unit_test(test_credit_under_before_over),
        cmocka_unit_test(test_credit_weighted_over_time),
        cmocka_unit_test(test_las_least_attained_first),
        cmocka_unit_test(test_las_decay),
        cmocka_unit_test(test_policy_names),
        cmocka_unit_test(test_all_policies_serve_everyone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
