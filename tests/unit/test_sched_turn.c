/*
 * test_sched_turn.c — the turn mechanism all policies share: sampling prediction, release at
 * the slice, work conservation, watchdog and reset, coscheduling classification and hint,
 * the optional hold, idle/wake, and the API's refusals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tests/unit/test_sched_fixture.h"

static struct sched *mk(const struct sched_config *cfg_in)
{
    struct sched_config cfg;
    if (cfg_in)
        cfg = *cfg_in;
    else
        sched_config_default(&cfg);
    struct sched_clock c = { .now = clk, .ctx = NULL };
    struct sched *s = NULL;
    now_ns = 0;
    assert_int_equal(sched_create(&cfg, &c, &s), SCHED_OK);
    return s;
}

static void submit_n(struct sched *s, uint32_t v, uint64_t first_id, uint32_t n, uint64_t est)
{
    for (uint32_t i = 0; i < n; i++) {
        struct sched_workload w = { .id = first_id + i, .est_ns = est };
        assert_int_equal(sched_submit(s, v, &w), SCHED_OK);
    }
}

/* Completes the decision's workloads, each taking `each` ns. */
static void run(struct sched *s, const struct sched_decision *d, uint64_t each)
{
    for (uint32_t k = 0; k < d->count; k++) {
        now_ns += each;
        assert_int_equal(sched_complete(s, d->vgpu, d->first_id + k, each), SCHED_OK);
    }
}

/* The first 5 workloads of a turn go one by one; then the scanner's estimates, calibrated by
 * what the samples really took (2x the estimate), predict that 25 more fit the 6 ms slice. */
static void test_sampling_calibrates_estimates(void **state)
{
    (void)state;
    struct sched *s = mk(NULL);
    sched_vgpu_add(s, 0, 1);
    submit_n(s, 0, 0, 100, US(100));
    for (int i = 0; i < 5; i++) {
        struct sched_decision d = pick(s);
        assert_int_equal(d.kind, SCHED_PICK_DISPATCH);
        assert_int_equal(d.count, 1);
        assert_int_equal(d.first_id, (uint64_t)i);
        assert_int_equal(d.new_turn, i == 0);
        run(s, &d, US(200));
    }
    struct sched_decision d = pick(s);
    assert_int_equal(d.count, 25);
    assert_int_equal(d.budget_ns, MS(5));
    run(s, &d, US(200));
    /* Slice used: the turn ends and (alone) a new one begins, sampling again. */
    d = pick(s);
    assert_true(d.new_turn);
    assert_false(d.switched);
    assert_int_equal(d.count, 1);
    sched_destroy(s);
}

/* Without estimates the samples' average predicts; with mixed estimates each workload is
 * predicted from its own estimate times the calibration factor. */
static void test_prediction_without_and_with_mixed_estimates(void **state)
{
    (void)state;
    struct sched *s = mk(NULL);
    sched_vgpu_add(s, 0, 1);
    sched_vgpu_add(s, 1, 1);
    submit_n(s, 0, 0, 50, 0);
    struct sched_decision d;
    for (int i = 0; i < 5; i++) {
        d = pick(s);
        assert_int_equal(d.count, 1);
        run(s, &d, US(250));
    }
    d = pick(s);
    assert_int_equal(d.count, 19); /* 4.75 ms left / 250 us */
    run(s, &d, US(250));

    /* vGPU 1: five estimated 100 us (really 200), then ones estimated 1 ms (really 2). */
    submit_n(s, 1, 0, 5, US(100));
    submit_n(s, 1, 5, 10, US(1000));
    d = pick(s); /* vGPU 0's turn ends; 1 begins */
    assert_int_equal(d.vgpu, 1);
    assert_true(d.switched);
    run(s, &d, US(200));
    for (int i = 1; i < 5; i++) {
        d = pick(s);
        assert_int_equal(d.count, 1);
        run(s, &d, US(200));
    }
    d = pick(s);
    assert_int_equal(d.count, 2); /* 5 ms left, 2 ms each: 2 fit, 3 do not */
    sched_destroy(s);
}

/* Time-slice policies (rr) trust the raw estimates; max_batch caps any dispatch. */
static void test_raw_estimates_and_max_batch(void **state)
{
    (void)state;
    struct sched_config cfg;
    sched_config_default(&cfg);
    cfg.policy = SCHED_POLICY_RR;
    struct sched *s = mk(&cfg);
    sched_vgpu_add(s, 0, 1);
    submit_n(s, 0, 0, 40, MS(1));
    struct sched_decision d = pick(s);
    assert_int_equal(d.count, 16); /* 16 ms quantum, 1 ms estimates */
    sched_destroy(s);

    sched_config_default(&cfg);
    cfg.max_batch = 8;
    s = mk(&cfg);
    sched_vgpu_add(s, 0, 1);
    submit_n(s, 0, 0, 100, US(10));
    for (int i = 0; i < 5; i++) {
        d = pick(s);
        run(s, &d, US(10));
    }
    d = pick(s);
    assert_int_equal(d.count, 8);
    sched_destroy(s);
}

/* A vGPU whose queue runs dry yields at once, slice or not; an empty system is idle. */
static void test_work_conservation(void **state)
{
    (void)state;
    struct sched *s = mk(NULL);
    sched_vgpu_add(s, 0, 8);
    sched_vgpu_add(s, 1, 1);
    struct sched_decision d = pick(s);
    assert_int_equal(d.kind, SCHED_PICK_IDLE);
    assert_int_equal(d.retry_at_ns, SCHED_NEVER);
    submit_n(s, 0, 0, 1, US(100));
    submit_n(s, 1, 0, 10, US(100));
    d = pick(s);
    assert_int_equal(d.vgpu, 0);
    /* While in flight the engine is busy. */
    struct sched_decision busy = pick(s);
    assert_int_equal(busy.kind, SCHED_PICK_BUSY);
    assert_int_equal(busy.vgpu, 0);
    run(s, &d, US(100));
    d = pick(s);
    assert_int_equal(d.vgpu, 1); /* vGPU 0 used 0.1 of 6 ms but had nothing */
    assert_true(d.new_turn);
    struct sched_vgpu_stats st;
    sched_vgpu_stats_get(s, 0, &st);
    assert_int_equal(st.turns, 1);
    assert_int_equal(st.gpu_ns, US(100));
    sched_destroy(s);
}

/* A workload running longer than the watchdog threshold is reported; resetting that vGPU
 * drops its work, charges it the time it held the engine, and the others go on. */
static void test_watchdog_and_reset(void **state)
{
    (void)state;
    struct sched *s = mk(NULL);
    sched_vgpu_add(s, 0, 1);
    sched_vgpu_add(s, 1, 1);
    submit_n(s, 0, 0, 3, US(100));
    submit_n(s, 1, 0, 3, US(100));
    uint32_t v = 77;
    assert_false(sched_watchdog(s, &v));
    struct sched_decision d = pick(s);
    assert_int_equal(d.vgpu, 0);
    now_ns = MS(150);
    assert_false(sched_watchdog(s, &v));
    now_ns = MS(200);
    assert_false(sched_watchdog(s, &v)); /* "longer than", not "as long as" */
    now_ns = MS(200) + 1;
    assert_true(sched_watchdog(s, &v));
    assert_int_equal(v, 0);
    assert_int_equal(sched_vgpu_reset(s, 0), 3);
    assert_int_equal(sched_vgpu_queued(s, 0), 0);
    assert_int_equal(sched_complete(s, 0, 0, 1), SCHED_ESTATE);
    struct sched_vgpu_stats st;
    sched_vgpu_stats_get(s, 0, &st);
    assert_int_equal(st.runaways, 1);
    assert_int_equal(st.dropped, 3);
    assert_int_equal(st.gpu_ns, MS(200) + 1);
    assert_int_equal(sched_vgpu_key(s, 0), (int64_t)(MS(200) + 1)); /* paid for it */
    d = pick(s);
    assert_int_equal(d.vgpu, 1);
    assert_false(sched_watchdog(s, &v));
    /* The reset vGPU works again afterwards. */
    submit_n(s, 0, 10, 1, US(100));
    assert_int_equal(sched_vgpu_queued(s, 0), 1);
    /* Resetting a vGPU that is not running just empties its queue. */
    assert_int_equal(sched_vgpu_reset(s, 0), 1);
    struct sched_metrics m;
    sched_metrics_get(s, &m);
    assert_int_equal(m.runaways, 1);
    sched_destroy(s);
}

/* Interactive = more than 10 sync waits in a 10 ms window (this one or the last); the hint
 * comes with the pick that starts its turn. */
static void test_interactive_classification_and_hint(void **state)
{
    (void)state;
    struct sched *s = mk(NULL);
    sched_vgpu_add(s, 0, 1);
    sched_vgpu_add(s, 1, 1);
    for (int i = 0; i < 10; i++) {
        now_ns = (uint64_t)i * US(500);
        sched_sync_wait(s, 0);
    }
    assert_false(sched_vgpu_interactive(s, 0));
    sched_sync_wait(s, 0);
    assert_true(sched_vgpu_interactive(s, 0));
    now_ns = MS(15); /* next window: still, from the last one */
    assert_true(sched_vgpu_interactive(s, 0));
    struct sched_vgpu_stats st;
    sched_vgpu_stats_get(s, 0, &st);
    assert_true(st.interactive);

    submit_n(s, 0, 0, 1, US(100));
    submit_n(s, 1, 0, 1, US(100));
    struct sched_decision d = pick(s);
    assert_int_equal(d.vgpu, 0);
    assert_true(d.cosched_hint);
    run(s, &d, US(100));
    d = pick(s);
    assert_int_equal(d.vgpu, 1);
    assert_false(d.cosched_hint); /* vGPU 1 never waited */
    run(s, &d, US(100));

    now_ns = MS(25); /* two windows later: no longer */
    assert_false(sched_vgpu_interactive(s, 0));
    submit_n(s, 0, 1, 1, US(100));
    d = pick(s);
    assert_int_equal(d.vgpu, 0);
    assert_false(d.cosched_hint);
    sched_vgpu_stats_get(s, 0, &st);
    assert_int_equal(st.hints, 1);
    sched_destroy(s);

    /* Hints switched off by configuration. */
    struct sched_config cfg;
    sched_config_default(&cfg);
    cfg.cosched_hints = false;
    s = mk(&cfg);
    sched_vgpu_add(s, 0, 1);
    for (int i = 0; i < 20; i++)
        sched_sync_wait(s, 0);
    assert_true(sched_vgpu_interactive(s, 0));
    submit_n(s, 0, 0, 1, US(100));
    d = pick(s);
    assert_false(d.cosched_hint);
    sched_destroy(s);
}

/* Waits counted per GPU time: a guest that waits after every 377 us kernel is interactive
 * (26 waits per 10 ms of its GPU time) even when it is served only every 5 ms; one that
 * streams kernels and waits once is not. */
static void test_interactive_by_gpu_time(void **state)
{
    (void)state;
    struct sched *s = mk(NULL);
    sched_vgpu_add(s, 0, 1);
    sched_vgpu_add(s, 1, 1);
    for (int i = 0; i < 20; i++) {
        now_ns = (uint64_t)i * MS(5);
        submit_n(s, 0, (uint64_t)i, 1, SCHED_US(377));
        sched_sync_wait(s, 0);
        struct sched_decision d = pick(s);
        assert_int_equal(d.vgpu, 0);
        assert_int_equal(d.cosched_hint, i >= 3); /* from 1.1 ms of service on */
        run(s, &d, SCHED_US(377));
        assert_int_equal(pick(s).kind, SCHED_PICK_IDLE); /* queue dry: the turn ends */
        assert_true(sched_vgpu_interactive(s, 0) == (i >= 2));
    }
    submit_n(s, 1, 0, 20, SCHED_US(377));
    sched_sync_wait(s, 1);
    for (int i = 0; i < 20; i++) {
        struct sched_decision d = pick(s);
        run(s, &d, SCHED_US(377));
    }
    assert_false(sched_vgpu_interactive(s, 1));
    sched_destroy(s);
}

/* With a hold, an interactive vGPU whose queue ran dry keeps the engine for its next
 * submission, and pays for the idle time; without one it would yield. */
static void test_hold_for_interactive(void **state)
{
    (void)state;
    struct sched_config cfg;
    sched_config_default(&cfg);
    cfg.hold_ns = US(50);
    struct sched *s = mk(&cfg);
    sched_vgpu_add(s, 0, 1);
    sched_vgpu_add(s, 1, 1);
    for (int i = 0; i < 11; i++)
        sched_sync_wait(s, 0);
    submit_n(s, 0, 0, 1, US(100));
    submit_n(s, 1, 0, 5, US(100));
    struct sched_decision d = pick(s);
    assert_true(d.cosched_hint);
    run(s, &d, US(100)); /* now 100 us */
    d = pick(s);
    assert_int_equal(d.kind, SCHED_PICK_IDLE); /* held for vGPU 0 */
    assert_int_equal(d.vgpu, 0);
    assert_int_equal(d.retry_at_ns, US(150));
    now_ns = US(120);
    submit_n(s, 0, 1, 1, US(100));
    d = pick(s);
    assert_int_equal(d.vgpu, 0); /* same turn goes on */
    assert_false(d.new_turn);
    run(s, &d, US(100)); /* now 220 us, 20 us held + 200 used */
    now_ns = US(270);    /* hold expired: release */
    d = pick(s);
    assert_int_equal(d.vgpu, 1);
    assert_int_equal(sched_vgpu_key(s, 0), (int64_t)(US(200) + US(20) + US(50)));
    sched_destroy(s);
}

/* idle(): out of scheduling with its work kept; wake(): back, without credit. */
static void test_idle_and_wake(void **state)
{
    (void)state;
    struct sched *s = mk(NULL);
    sched_vgpu_add(s, 0, 1);
    sched_vgpu_add(s, 1, 1);
    submit_n(s, 0, 0, 100, US(500));
    submit_n(s, 1, 0, 100, US(500));
    assert_int_equal(sched_vgpu_idle(s, 0), SCHED_OK);
    for (int i = 0; i < 20; i++) {
        struct sched_decision d = pick(s);
        assert_int_equal(d.vgpu, 1);
        run(s, &d, US(500));
    }
    assert_int_equal(sched_vgpu_queued(s, 0), 100);
    assert_int_equal(sched_vgpu_wake(s, 0), SCHED_OK);
    /* vGPU 1 is running with start tag 18 ms (3 turns of 6 ms done);
     * vGPU 0 comes back at that virtual time, not at 0. */
    assert_int_equal(sched_vgpu_key(s, 0), sched_vgpu_key(s, 1));
    /* Idling the running vGPU ends its turn at the next pick. */
    sched_vgpu_idle(s, 1);
    struct sched_decision d = pick(s);
    assert_int_equal(d.vgpu, 0);
    assert_int_equal(sched_vgpu_idle(s, 9), SCHED_ENOENT);
    assert_int_equal(sched_vgpu_wake(s, 9), SCHED_ENOENT);
    sched_destroy(s);
}

static void test_api_refusals(void **state)
{
    (void)state;
    struct sched_config cfg;
    sched_config_default(&cfg);
    cfg.queue_depth = 2;
    struct sched *s = mk(&cfg);
    assert_int_equal(sched_vgpu_add(s, 0, 0), SCHED_EINVAL);
    assert_int_equal(sched_vgpu_add(s, 64, 1), SCHED_EINVAL);
    assert_int_equal(sched_vgpu_add(s, 0, 1), SCHED_OK);
    assert_int_equal(sched_vgpu_add(s, 0, 1), SCHED_EEXIST);
    struct sched_workload w = { .id = 1, .est_ns = 10 };
    assert_int_equal(sched_submit(s, 3, &w), SCHED_ENOENT);
    assert_int_equal(sched_submit(s, 0, NULL), SCHED_EINVAL);
    assert_int_equal(sched_submit(s, 0, &w), SCHED_OK);
    w.id = 2;
    assert_int_equal(sched_submit(s, 0, &w), SCHED_OK);
    w.id = 3;
    assert_int_equal(sched_submit(s, 0, &w), SCHED_EFULL);
    assert_int_equal(sched_complete(s, 0, 1, 10), SCHED_ESTATE); /* not dispatched */
    struct sched_decision d = pick(s);
    assert_int_equal(d.first_id, 1);
    assert_int_equal(sched_complete(s, 0, 2, 10), SCHED_ESTATE); /* out of order */
    assert_int_equal(sched_vgpu_remove(s, 0), SCHED_EBUSY);
    assert_int_equal(sched_complete(s, 0, 1, 10), SCHED_OK);
    assert_int_equal(sched_complete(s, 0, 1, 10), SCHED_ESTATE); /* only one in flight */
    assert_int_equal(sched_vgpu_remove(s, 0), SCHED_OK);
    assert_int_equal(sched_vgpu_remove(s, 0), SCHED_ENOENT);
    assert_int_equal(sched_current(s), SCHED_NO_VGPU);
    assert_int_equal(sched_pick(s, NULL), SCHED_EINVAL);
    assert_int_equal(sched_sync_wait(s, 0), SCHED_ENOENT);
    d = pick(s);
    assert_int_equal(d.kind, SCHED_PICK_IDLE);
    /* The id can be used again. */
    assert_int_equal(sched_vgpu_add(s, 0, 2), SCHED_OK);
    sched_destroy(s);
    sched_destroy(NULL);

    struct sched_clock c = { .now = clk, .ctx = NULL };
    struct sched_clock noclock = { .now = NULL, .ctx = NULL };
    sched_config_default(&cfg);
    assert_int_equal(sched_create(&cfg, &noclock, &s), SCHED_EINVAL);
    assert_int_equal(sched_create(NULL, &c, &s), SCHED_EINVAL);
    char msg[80];
    cfg.max_vgpus = 0;
    assert_int_equal(sched_config_check(&cfg, msg, sizeof(msg)), SCHED_EINVAL);
    assert_non_null(strstr(msg, "max_vgpus"));
    sched_config_default(&cfg);
    cfg.slice_ns = 0;
    assert_int_equal(sched_create(&cfg, &c, &s), SCHED_EINVAL);
    assert_int_equal(sched_config_check(&cfg, msg, sizeof(msg)), SCHED_EINVAL);
    assert_non_null(strstr(msg, "slice"));
    sched_config_default(&cfg);
    cfg.policy = SCHED_POLICY_COUNT;
    assert_int_equal(sched_config_check(&cfg, NULL, 0), SCHED_EINVAL);
    sched_config_default(&cfg);
    cfg.hold_ns = cfg.slice_ns + 1;
    assert_int_equal(sched_config_check(&cfg, NULL, 0), SCHED_EINVAL);
    sched_config_default(&cfg);
    cfg.max_vgpus = SCHED_MAX_VGPUS;
    assert_int_equal(sched_config_check(&cfg, NULL, 0), SCHED_OK);
    assert_string_equal(sched_strerror(SCHED_EFULL), "vGPU queue full");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sampling_calibrates_estimates),
        cmocka_unit_test(test_prediction_without_and_with_mixed_estimates),
        cmocka_unit_test(test_raw_estimates_and_max_batch),
        cmocka_unit_test(test_work_conservation),
        cmocka_unit_test(test_watchdog_and_reset),
        cmocka_unit_test(test_interactive_classification_and_hint),
        cmocka_unit_test(test_interactive_by_gpu_time),
        cmocka_unit_test(test_hold_for_interactive),
        cmocka_unit_test(test_idle_and_wake),
        cmocka_unit_test(test_api_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
