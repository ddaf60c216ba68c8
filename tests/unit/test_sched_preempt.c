/*
 * test_sched_preempt.c — cutting a turn short inside a long workload: when preemption is due,
 * what a preempted vGPU is charged, that its unfinished workloads resume first and together,
 * that the watchdog keeps counting across the preemption, that a pause for the caller's own
 * work keeps the owner's turn, and that with equal weights a vGPU of short workloads gets its
 * turn within a slice of a hog of 110 ms workloads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/unit/test_sched_fixture.h"

/* The slice rule alone; preemption on arrival: test_sched_arrival.c. */
static struct sched *mk(void)
{
    return mk_pair(0, 100);
}

/* vGPU 0's turn with one workload, vGPU 1 arriving, and vGPU 0 preempted after `ran_ns`: the
 * next pick is vGPU 1's. */
static void cut_for_an_arrival(struct sched *s, uint64_t ran_ns)
{
    submit(s, 0, 1);
    pick(s);
    submit(s, 1, 1);
    now_ns += ran_ns;
    assert_int_equal(sched_preempted(s, 0, ran_ns), SCHED_OK);
    assert_int_equal(pick(s).vgpu, 1);
}

static void test_due_only_past_quota_with_someone_waiting(void **state)
{
    (void)state;
    struct sched *s = mk();
    submit(s, 0, 1);
    struct sched_decision d = pick(s);
    assert_int_equal(d.vgpu, 0);
    assert_false(sched_preempt_due(s, MS(5)));  /* within the 6 ms slice */
    assert_false(sched_preempt_due(s, MS(50))); /* nobody else wants the GPU */
    submit(s, 1, 1);
    assert_false(sched_preempt_due(s, MS(5)));
    assert_true(sched_preempt_due(s, MS(6)));
    assert_int_equal(sched_preempted(s, 1, MS(6)), SCHED_ESTATE); /* not the owner */
    sched_destroy(s);
}

static void test_preempted_work_resumes_first_and_is_charged(void **state)
{
    (void)state;
    struct sched *s = mk();
    submit(s, 0, 1);
    submit(s, 0, 2);
    struct sched_decision d = pick(s);
    assert_int_equal(d.count, 1); /* sampling: one at a time */
    submit(s, 1, 1);
    now_ns += MS(7);
    assert_true(sched_preempt_due(s, MS(7)));
    assert_int_equal(sched_preempted(s, 0, MS(7)), SCHED_OK);
    assert_int_equal(sched_vgpu_inflight(s, 0), 0);
    assert_int_equal(sched_vgpu_queued(s, 0), 2);
    struct sched_vgpu_stats st;
    sched_vgpu_stats_get(s, 0, &st);
    assert_int_equal(st.gpu_ns, MS(7));

    d = pick(s); /* vGPU 0 paid 7 ms: vGPU 1 is owed */
    assert_int_equal(d.vgpu, 1);
    now_ns += US(100);
    assert_int_equal(sched_complete(s, 1, 1, US(100)), SCHED_OK);

    d = pick(s);
    assert_int_equal(d.vgpu, 0);
    assert_int_equal(d.first_id, 1); /* the preempted workload, not restarted */
    assert_true(d.count >= 1);
    now_ns += MS(1);
    assert_int_equal(sched_complete(s, 0, 1, MS(1)), SCHED_OK);
    sched_vgpu_stats_get(s, 0, &st);
    assert_int_equal(st.gpu_ns, MS(8));
    assert_int_equal(st.workloads, 1);
    sched_destroy(s);
}

/* A pause (the engine left for the caller's own work, e.g. graphics memory changing hands) is
 * charged like a preemption, but the owner's turn goes on: its unfinished workload resumes at
 * the next pick although another vGPU arrived meanwhile and is owed the GPU by virtual time,
 * and the turn still ends at its quota. */
static void test_pause_keeps_the_turn(void **state)
{
    (void)state;
    struct sched *s = mk();
    submit(s, 0, 1);
    submit(s, 0, 2);
    assert_int_equal(pick(s).vgpu, 0);
    submit(s, 1, 1); /* arrives while vGPU 0 runs */
    now_ns += MS(2);
    assert_int_equal(sched_paused(s, 1, MS(2)), SCHED_ESTATE); /* not the owner */
    assert_int_equal(sched_paused(s, 0, MS(2)), SCHED_OK);
    assert_int_equal(sched_current(s), 0);
    assert_int_equal(sched_vgpu_inflight(s, 0), 0);
    struct sched_vgpu_stats st;
    sched_vgpu_stats_get(s, 0, &st);
    assert_int_equal(st.gpu_ns, MS(2));
    struct sched_decision d = pick(s);
    assert_int_equal(d.vgpu, 0);
    assert_false(d.new_turn);
    assert_int_equal(d.first_id, 1); /* resumed, not restarted */
    now_ns += MS(4);
    assert_int_equal(sched_complete(s, 0, 1, MS(4)), SCHED_OK); /* 6 ms: the quota */
    assert_int_equal(pick(s).vgpu, 1);
    sched_destroy(s);

    /* The same cut as a preemption ends the turn: vGPU 1, behind in virtual time, goes first. */
    s = mk();
    cut_for_an_arrival(s, MS(2));
    sched_destroy(s);
}

/* 150 ms of a workload in two pieces with another vGPU's turn between: the watchdog (200 ms)
 * fires after 200 ms of its own running, not of wall time, and not after 200 ms more. */
static void test_watchdog_counts_across_preemption(void **state)
{
    (void)state;
    struct sched *s = mk();
    uint32_t v;
    cut_for_an_arrival(s, MS(150));
    now_ns += MS(190); /* another vGPU's long workload */
    assert_false(sched_watchdog(s, &v));
    assert_int_equal(sched_complete(s, 1, 1, MS(190)), SCHED_OK);
    struct sched_decision d = pick(s);
    assert_int_equal(d.vgpu, 0);
    now_ns += MS(49);
    assert_false(sched_watchdog(s, &v));
    now_ns += MS(2);
    assert_true(sched_watchdog(s, &v));
    assert_int_equal(v, 0);
    assert_int_equal(sched_vgpu_reset(s, 0), 1);
    assert_int_equal(sched_vgpu_queued(s, 0), 0);
    /* It paid for each millisecond it held the engine once: 150 before the preemption, 51
     * after, never the 150 again; the GPU's busy time does not exceed the time that passed. */
    struct sched_vgpu_stats st;
    assert_int_equal(sched_vgpu_stats_get(s, 0, &st), SCHED_OK);
    assert_int_equal(st.gpu_ns, MS(150) + MS(51));
    struct sched_metrics m;
    assert_int_equal(sched_metrics_get(s, &m), SCHED_OK);
    assert_true(m.busy_ns <= m.elapsed_ns);
    sched_destroy(s);
}

/* A hog with 110 ms workloads beside a vGPU of 100 us frames, equal weights, the hog preempted
 * whenever it is due: every frame waits at most a slice (6 ms) plus the step it was preempted
 * at, and the frames' owner gets all the time it asks for. */
static void test_short_frames_wait_a_slice_not_a_workload(void **state)
{
    (void)state;
    struct sched *s = mk();
    const uint64_t step = US(50), hog_work = MS(110), frame = US(100);
    uint64_t hog_left = hog_work, hog_id = 1, frame_id = 0, worst_wait = 0, frames = 0;
    uint64_t hog_ran = 0, next_frame = MS(1), frame_submitted = 0;
    bool frame_pending = false;
    submit(s, 0, hog_id);
    submit(s, 0, hog_id + 1);
    while (now_ns < 2000 * MS(1)) {
        if (!frame_pending && now_ns >= next_frame) {
            submit(s, 1, ++frame_id);
            frame_pending = true;
            frame_submitted = now_ns;
        }
        struct sched_decision d = pick(s);
        if (d.kind == SCHED_PICK_BUSY && d.vgpu == 0) {
            if (sched_preempt_due(s, hog_ran)) {
                assert_int_equal(sched_preempted(s, 0, hog_ran), SCHED_OK);
                hog_ran = 0;
                continue;
            }
            now_ns += step; /* one step of the hog's blit */
            hog_ran += step;
            if ((hog_left -= step) == 0) {
                assert_int_equal(sched_complete(s, 0, hog_id, hog_ran), SCHED_OK);
                submit(s, 0, hog_id + 2);
                hog_id++;
                hog_left = hog_work;
                hog_ran = 0;
            }
            continue;
        }
        if (d.kind == SCHED_PICK_DISPATCH && d.vgpu == 1) {
            uint64_t wait = now_ns - frame_submitted;
            worst_wait = wait > worst_wait ? wait : worst_wait;
            now_ns += frame;
            assert_int_equal(sched_complete(s, 1, frame_id, frame), SCHED_OK);
            frames++;
            frame_pending = false;
            next_frame = now_ns + MS(30);
            continue;
        }
        if (d.kind == SCHED_PICK_IDLE)
            now_ns += step;
        /* DISPATCH of the hog: its workloads are now in flight, the loop runs them. */
    }
    assert_true(worst_wait <= MS(6) + step);
    assert_true(frames >= 2000 / 31 - 1);
    sched_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_due_only_past_quota_with_someone_waiting),
        cmocka_unit_test(test_preempted_work_resumes_first_and_is_charged),
        cmocka_unit_test(test_pause_keeps_the_turn),
        cmocka_unit_test(test_watchdog_counts_across_preemption),
        cmocka_unit_test(test_short_frames_wait_a_slice_not_a_workload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
