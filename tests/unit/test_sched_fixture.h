/*
 * test_sched_fixture.h — what the scheduler's unit tests share: a clock the test moves by hand
 * (now_ns), two vGPUs on a default configuration, submitting one workload, picking.  Include
 * after cmocka.h.
 */
#ifndef TESSERA_TESTS_UNIT_TEST_SCHED_FIXTURE_H
#define TESSERA_TESTS_UNIT_TEST_SCHED_FIXTURE_H

#include "sched/sched.h"

#define MS(x) SCHED_MS(x)
#define US(x) SCHED_US(x)

static uint64_t now_ns;
static uint64_t clk(void *ctx)
{
    (void)ctx;
    return now_ns;
}

/* vGPUs 0 (weight 100) and 1 (weight w1) on the default configuration with preempt_lag_ns =
 * lag_ns; the clock starts at 0. */
static inline struct sched *mk_pair(uint64_t lag_ns, uint32_t w1)
{
    struct sched_config cfg;
    sched_config_default(&cfg);
    cfg.preempt_lag_ns = lag_ns;
    struct sched_clock c = { .now = clk, .ctx = NULL };
    struct sched *s = NULL;
    now_ns = 0;
    assert_int_equal(sched_create(&cfg, &c, &s), SCHED_OK);
    assert_int_equal(sched_vgpu_add(s, 0, 100), SCHED_OK);
    assert_int_equal(sched_vgpu_add(s, 1, w1), SCHED_OK);
    return s;
}

static inline void submit(struct sched *s, uint32_t v, uint64_t id)
{
    struct sched_workload w = { .id = id, .est_ns = 0 };
    assert_int_equal(sched_submit(s, v, &w), SCHED_OK);
}

static inline struct sched_decision pick(struct sched *s)
{
    struct sched_decision d;
    assert_int_equal(sched_pick(s, &d), SCHED_OK);
    return d;
}

#endif
