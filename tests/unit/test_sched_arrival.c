/*
 * test_sched_arrival.c — preemption on arrival (docs/sched.md): with the fair policy, a vGPU
 * whose work arrives on an empty queue cuts the running turn once the owner is cfg.preempt_lag_ns
 * ahead of it in virtual time, not at the slice's end; vGPUs that stay backlogged still take
 * turns of a whole slice; and a vGPU that arrives again and again gets no more than its weight.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/test_sched_fixture.h"

static void test_default_lag_is_on(void **state)
{
    (void)state;
    struct sched_config cfg;
    sched_config_default(&cfg);
    assert_int_equal(cfg.preempt_lag_ns, US(500));
    cfg.slice_ns = US(200); /* a lag longer than the slice is allowed: the slice rule acts */
    assert_int_equal(sched_config_check(&cfg, NULL, 0), SCHED_OK);
}

/* vGPU 1's frame arrives while vGPU 0 runs a long workload: due once vGPU 0 is the lag ahead
 * (both start at virtual time 0), long before the slice's end; without a lag, at the slice. */
static void test_arrival_cuts_the_turn_after_the_lag(void **state)
{
    (void)state;
    struct sched *s = mk_pair(US(500), 100);
    submit(s, 0, 1);
    assert_int_equal(pick(s).vgpu, 0);
    submit(s, 1, 1);
    assert_false(sched_preempt_due(s, US(500)));
    assert_true(sched_preempt_due(s, US(501)));
    assert_int_equal(sched_preempted(s, 0, US(501)), SCHED_OK);
    assert_int_equal(pick(s).vgpu, 1);
    sched_destroy(s);

    s = mk_pair(0, 100);
    submit(s, 0, 1);
    pick(s);
    submit(s, 1, 1);
    assert_false(sched_preempt_due(s, MS(5)));
    assert_true(sched_preempt_due(s, MS(6)));
    sched_destroy(s);
}

/* Cutting a turn brings its owner back later, and bringing it back costs the engine what its
 * switch-ins cost (sched_vgpu_switch_cost): an arrival cuts the turn only once the owner is the
 * lag plus that cost ahead of it.  A cost of 0 is the plain lag. */
static void test_arrival_lag_counts_the_owners_switch_cost(void **state)
{
    (void)state;
    struct sched *s = mk_pair(US(500), 100);
    assert_int_equal(sched_vgpu_switch_cost(s, 0, MS(3)), SCHED_OK);
    assert_int_equal(sched_vgpu_switch_cost(s, 7, MS(3)), SCHED_ENOENT);
    submit(s, 0, 1);
    assert_int_equal(pick(s).vgpu, 0);
    submit(s, 1, 1);
    assert_false(sched_preempt_due(s, US(501)));
    assert_false(sched_preempt_due(s, MS(3) + US(500)));
    assert_true(sched_preempt_due(s, MS(3) + US(501)));
    /* A cost beyond the slice leaves the slice rule: due at the quota, not before. */
    assert_int_equal(sched_vgpu_switch_cost(s, 0, MS(40)), SCHED_OK);
    assert_false(sched_preempt_due(s, MS(5)));
    assert_true(sched_preempt_due(s, MS(6)));
    sched_destroy(s);
}

/* An arrival that is ahead of the owner (it used more lately) is not owed the GPU: it waits
 * until the owner has caught up with it and is the lag past it.  The rule serves who is owed
 * the GPU, not whoever asks. */
static void test_arrival_ahead_of_the_owner_waits(void **state)
{
    (void)state;
    struct sched *s = mk_pair(US(500), 100);
    submit(s, 0, 1);
    pick(s);
    now_ns += MS(1);
    assert_int_equal(sched_complete(s, 0, 1, MS(1)), SCHED_OK); /* vGPU 0's tag: 1 ms */
    submit(s, 1, 1);
    pick(s);
    now_ns += MS(5);
    assert_int_equal(sched_complete(s, 1, 1, MS(5)), SCHED_OK); /* vGPU 1's tag: 5 ms */
    submit(s, 0, 2);
    assert_int_equal(pick(s).vgpu, 0);
    submit(s, 1, 2); /* 4 ms ahead of vGPU 0's tag: not owed the GPU yet */
    assert_false(sched_preempt_due(s, MS(4)));
    assert_true(sched_preempt_due(s, MS(4) + US(501)));
    sched_destroy(s);
}

/* Runs two vGPUs on a preemptive engine in 50 us steps for `ms` ms: vGPU v submits workloads
 * of work[v] ns, keeping inflight[v] of them queued; one with inflight 0 submits one workload
 * gap[v] after the last completed (it arrives each time).  Returns each one's GPU time;
 * *preemptions and *worst_wait (vGPU 1's longest time from submission to dispatch) as seen. */
struct load {
    uint64_t work, gap;
    uint32_t keep;
};
static void run(struct sched *s, const struct load l[2], uint64_t ms, uint64_t got[2],
                uint64_t *preemptions, uint64_t *worst_wait)
{
    const uint64_t step = US(50);
    uint64_t id[2] = { 0, 0 }, left[2] = { 0, 0 }, ran = 0, next[2] = { 0, 0 }, sub1 = 0;
    uint32_t queued[2] = { 0, 0 };
    got[0] = got[1] = 0;
    *preemptions = *worst_wait = 0;
    uint64_t done_id[2] = { 0, 0 };
    while (now_ns < MS(ms)) {
        for (uint32_t v = 0; v < 2; v++) {
            uint32_t want = l[v].keep ? l[v].keep : 1;
            while (queued[v] < want && now_ns >= next[v]) {
                submit(s, v, ++id[v]);
                if (queued[v]++ == 0 && v == 1)
                    sub1 = now_ns;
                next[v] = l[v].keep ? 0 : SCHED_NEVER;
            }
        }
        struct sched_decision d = pick(s);
        if (d.kind == SCHED_PICK_IDLE) {
            now_ns += step;
            continue;
        }
        uint32_t v = d.vgpu;
        if (d.kind == SCHED_PICK_DISPATCH && d.new_turn && v == 1 && now_ns - sub1 > *worst_wait)
            *worst_wait = now_ns - sub1;
        if (d.kind == SCHED_PICK_DISPATCH && left[v] == 0)
            left[v] = l[v].work;
        if (sched_preempt_due(s, ran)) {
            assert_int_equal(sched_preempted(s, v, ran), SCHED_OK);
            got[v] += ran;
            ran = 0;
            (*preemptions)++;
            continue;
        }
        now_ns += step;
        ran += step;
        if ((left[v] -= step) == 0) {
            assert_int_equal(sched_complete(s, v, ++done_id[v], ran), SCHED_OK);
            got[v] += ran;
            ran = 0;
            queued[v]--;
            if (!l[v].keep)
                next[v] = now_ns + l[v].gap;
            /* The next queued workload of v (if the turn goes on) starts now. */
            if (queued[v])
                left[v] = l[v].work;
        }
    }
}

/* A hog of 110 ms workloads, two queued, beside 100 us frames 2 ms apart (so each arrives
 * early in a hog turn): each frame waits at most the lag and one step; without the rule, for
 * the rest of the hog's slice. */
static void test_frames_wait_the_lag_not_a_slice(void **state)
{
    (void)state;
    const struct load l[2] = { { MS(110), 0, 2 }, { US(100), MS(2), 0 } };
    uint64_t got[2], pre, worst;
    struct sched *s = mk_pair(US(500), 100);
    run(s, l, 2000, got, &pre, &worst);
    assert_true(worst <= US(500) + US(100));
    assert_true(got[1] >= 900 * US(100));
    sched_destroy(s);

    s = mk_pair(0, 100);
    run(s, l, 2000, got, &pre, &worst);
    assert_true(worst > MS(3));
    sched_destroy(s);
}

/* Two vGPUs that never run dry: no arrivals after the first, so turns stay a slice long (one
 * preemption per 6 ms) and the time is shared by weight. */
static void test_backlogged_vgpus_keep_whole_slices(void **state)
{
    (void)state;
    const struct load l[2] = { { MS(20), 0, 2 }, { MS(20), 0, 2 } };
    uint64_t got[2], pre, worst;
    struct sched *s = mk_pair(US(500), 100);
    run(s, l, 1200, got, &pre, &worst);
    assert_true(pre <= 1200 / 6 + 2);
    assert_true(got[0] >= MS(560) && got[1] >= MS(560));
    sched_destroy(s);
}

/* A vGPU of 3 ms workloads that lets its queue run dry after each one (an arrival every time)
 * beside a hog, weights 1:1 then 1:3: it preempts the hog only while it is owed time, so the
 * GPU time follows the weights (within 5%). */
static void test_repeated_arrivals_get_their_weight_only(void **state)
{
    (void)state;
    const struct load l[2] = { { MS(110), 0, 2 }, { MS(3), 0, 0 } };
    static const uint32_t w1[] = { 100, 300 };
    for (unsigned k = 0; k < 2; k++) {
        uint64_t got[2], pre, worst;
        struct sched *s = mk_pair(US(500), w1[k]);
        run(s, l, 3000, got, &pre, &worst);
        uint64_t total = got[0] + got[1], ideal1 = total * w1[k] / (100 + w1[k]);
        assert_true(got[1] * 100 <= ideal1 * 105 && got[1] * 100 >= ideal1 * 95);
        sched_destroy(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_lag_is_on),
        cmocka_unit_test(test_arrival_cuts_the_turn_after_the_lag),
        cmocka_unit_test(test_arrival_lag_counts_the_owners_switch_cost),
        cmocka_unit_test(test_arrival_ahead_of_the_owner_waits),
        cmocka_unit_test(test_frames_wait_the_lag_not_a_slice),
        cmocka_unit_test(test_backlogged_vgpus_keep_whole_slices),
        cmocka_unit_test(test_repeated_arrivals_get_their_weight_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
