/* The run queue (vmm/vcpu/run_queue.c) over simulated guests on a simulated clock (1 tick =
 * 1 ns): a guest that sleeps and wakes gets the CPU within a small bound beside neighbours that
 * never sleep, even one that never exits on its own (interrupts off) and one whose exits do
 * work; wake-up preemption is only for guests under their share; spinners share by weight. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vmm/vcpu/run_queue.h"

#define US 1000ull
#define MS 1000000ull

enum kind {
    STOPPED,  /* not running */
    IDLE,     /* halted, no timer */
    SPIN,     /* never halts, exits only when its stop time comes (interrupts off) */
    EXITER,   /* never halts, exits every `every` ns and its exit costs `exit_cost` ns */
    SLEEPER,  /* works `work` ns, then halts until its periodic timer (`period`) */
    LONGWORK, /* runs `every` ns, then an exit whose work takes `exit_cost` ns, asked of
               * rq_defer first (put off: the slice ends, the exit comes again next entry) */
};

struct sim_guest {
    enum kind kind;
    uint64_t every, exit_cost, work, period;
    bool halted;
    uint64_t due, work_left, cpu, entries;
    bool pending;              /* LONGWORK: its exit's work is still to do */
    uint64_t items, deferrals; /* LONGWORK: pieces of work done, times put off */
};

static struct sim {
    uint64_t t, between_cost;
    unsigned n;
    struct sim_guest g[8];
    uint64_t max_overrun; /* the most an entry ran past its stop time (must be 0 but exit costs) */
    unsigned
        cut_every; /* the hypervisor's chores cut the round after every n-th slice (0: never) */
    unsigned slices, order[16]; /* slices run; the guests of the first 16 */
} sim;

static struct run_queue q;

static uint64_t s_now(void *ctx)
{
    return sim.t;
}

static void s_guest(void *ctx, unsigned i, uint64_t now, struct rq_guest *out)
{
    struct sim_guest *g = &sim.g[i];
    out->runs = g->kind != STOPPED;
    if (g->kind == SLEEPER && g->halted && now >= g->due) { /* its timer fired: it wakes */
        g->halted = false;
        g->work_left = g->work;
        g->due += g->period;
    }
    out->halted = g->kind == IDLE || (g->kind == SLEEPER && g->halted);
    out->timer_at = g->kind == SLEEPER ? g->due : RQ_NEVER;
}

static uint64_t s_cpu_ns(void *ctx, unsigned i)
{
    return sim.g[i].cpu;
}

static bool s_slice_begin(void *ctx, unsigned i)
{
    return true;
}

static enum rq_exit s_enter(void *ctx, unsigned i, uint64_t until)
{
    struct sim_guest *g = &sim.g[i];
    uint64_t room = until > sim.t ? until - sim.t
                                  : 1; /* the preemption timer's least is one tick */
    g->entries++;
    switch (g->kind) {
    case SPIN:
        sim.t += room;
        return RQ_RESUME;
    case EXITER: {
        uint64_t run = g->every < room ? g->every : room;
        sim.t += run + g->exit_cost;
        return RQ_RESUME;
    }
    case SLEEPER:
        if (g->work_left) {
            uint64_t run = g->work_left < room ? g->work_left : room;
            sim.t += run;
            g->work_left -= run;
            return RQ_RESUME;
        }
        g->halted = true;
        sim.t += 1 * US;
        return RQ_YIELD;
    case LONGWORK:
        if (!g->pending) {
            if (!g->work_left)
                g->work_left = g->every;
            uint64_t run = g->work_left < room ? g->work_left : room;
            sim.t += run;
            g->work_left -= run;
            if (g->work_left)
                return RQ_RESUME;
            g->pending = true;
        }
        if (rq_defer(&q, i, g->items, g->exit_cost)) {
            sim.t += 1 * US;
            g->deferrals++;
            return RQ_YIELD;
        }
        sim.t += g->exit_cost;
        g->items++;
        g->pending = false;
        return RQ_RESUME;
    default:
        fail_msg("guest %u entered while it cannot run", i);
        return RQ_STOPPED;
    }
}

static void s_slice_end(void *ctx, unsigned i, uint64_t ns)
{
    sim.g[i].cpu += ns;
    if (sim.slices < 16)
        sim.order[sim.slices] = i;
    sim.slices++;
}

static bool s_cut(void *ctx)
{
    return sim.cut_every && sim.slices % sim.cut_every == 0;
}

static bool s_between(void *ctx)
{
    sim.t += sim.between_cost;
    return false;
}

static const struct rq_ops sim_ops = {
    .now = s_now,
    .guest = s_guest,
    .cpu_ns = s_cpu_ns,
    .slice_begin = s_slice_begin,
    .enter = s_enter,
    .slice_end = s_slice_end,
    .between = s_between,
    .cut = s_cut,
};

static void setup(unsigned n, const struct sim_guest *g, const uint32_t *weight)
{
    memset(&sim, 0, sizeof sim);
    sim.t = 1 * MS;
    sim.between_cost = 200 * US;
    sim.n = n;
    uint64_t slice[8];
    for (unsigned i = 0; i < n; i++) {
        sim.g[i] = g[i];
        sim.g[i].due = sim.t + g[i].period;
        sim.g[i].halted = g[i].kind == SLEEPER;
        slice[i] = 6 * MS * weight[i] / 100;
    }
    rq_init(&q, &sim_ops, n, weight, slice, 1000);
}

static void run_for(uint64_t ns)
{
    uint64_t end = sim.t + ns;
    while (sim.t < end)
        if (!rq_round(&q))
            sim.t += 100 * US; /* nobody wanted the CPU: the idle loop waits for a tick */
}

static const uint32_t equal[8] = { 100, 100, 100, 100, 100, 100, 100, 100 };

/* Guest i, a sleeper, woke about `wakes` times (a few less: the run's end) and each time got the
 * CPU within `bound` ns of its timer's deadline. */
static void assert_wakes_within(unsigned i, uint64_t wakes, uint64_t bound)
{
    struct rq_wake_stats st;
    rq_wake_stats(&q, i, &st);
    assert_in_range(st.wakes, wakes - 10, wakes + 1);
    assert_true(st.late_max_ns <= bound);
}

/* A kiosk that sleeps 10 ms between 0.5 ms frames beside a vCPU that spins with interrupts off
 * (it never exits until its stop time): every wake-up gets the CPU within the least run a cut
 * slice keeps, and the spinner still gets nearly all the rest. */
static void test_sleeper_beside_spinner(void **state)
{
    const struct sim_guest g[] = {
        { .kind = SPIN },
        { .kind = SLEEPER, .work = 500 * US, .period = 10 * MS },
    };
    setup(2, g, equal);
    run_for(2000 * MS);
    assert_wakes_within(1, 200, RQ_MIN_RUN_NS + sim.between_cost);
    assert_true(sim.g[0].cpu > 1700 * MS); /* of 2000 ms: 100 ms the sleeper's, 80 ms between */
}

/* The benchmark's setting, the sleeper last in the round's order: an idle guest, a neighbour
 * whose every exit does 300 us of work for it in the hypervisor, a guest that uses its slices
 * with cheap exits, a stopped one and the sleeper.  Under its share, the sleeper goes before
 * the round's order when it wakes: its wait is one least run, one exit's work and one pass
 * between slices, not the slices of the guests ahead of it in the round. */
static void test_sleeper_among_five(void **state)
{
    const struct sim_guest g[] = {
        { .kind = IDLE },
        { .kind = EXITER, .every = 50 * US, .exit_cost = 300 * US },
        { .kind = EXITER, .every = 100 * US, .exit_cost = 5 * US },
        { .kind = STOPPED },
        { .kind = SLEEPER, .work = 500 * US, .period = 10 * MS },
    };
    setup(5, g, equal);
    run_for(3000 * MS);
    assert_wakes_within(4, 300, RQ_MIN_RUN_NS + 300 * US + 50 * US + sim.between_cost);
    /* The two that never sleep share the rest evenly. */
    uint64_t a = sim.g[1].cpu, b = sim.g[2].cpu;
    assert_true(a * 10 > b * 9 && b * 10 > a * 9);
    assert_int_equal(sim.g[0].entries + sim.g[3].entries, 0);
}

/* A neighbour whose every exit does 7 ms of work (a submission whose long batch is scanned):
 * the work is put off while a sleeper under its share is due within it, so the sleeper's wait
 * stays the small bound, not one exit's work; the neighbour still does nearly all its work. */
static void test_long_exit_work_waits_for_a_wake_up(void **state)
{
    const struct sim_guest g[] = {
        { .kind = LONGWORK, .every = 50 * US, .exit_cost = 7 * MS },
        { .kind = SLEEPER, .work = 500 * US, .period = 10 * MS },
    };
    setup(2, g, equal);
    run_for(2000 * MS);
    assert_wakes_within(1, 200, RQ_MIN_RUN_NS + sim.between_cost);
    assert_true(sim.g[0].deferrals > 0);
    assert_true(sim.g[0].items >= 200); /* of about 250 with no sleeper */
    uint64_t n, waited;
    rq_defer_stats(&q, 0, &n, &waited);
    assert_true(n > 0 && n <= sim.g[0].deferrals && waited > 0);
}

/* Sleepers due every 2 and 3 ms: 7 ms of work never fits between their wake-ups, and would
 * wait forever if it waited for room.  Each piece waits at most as long as it takes. */
static void test_put_off_work_is_not_starved(void **state)
{
    const struct sim_guest g[] = {
        { .kind = LONGWORK, .every = 50 * US, .exit_cost = 7 * MS },
        { .kind = SLEEPER, .work = 100 * US, .period = 2 * MS },
        { .kind = SLEEPER, .work = 100 * US, .period = 3 * MS },
    };
    setup(3, g, equal);
    run_for(2000 * MS);
    uint64_t n, waited;
    rq_defer_stats(&q, 0, &n, &waited);
    assert_true(n > 0);
    assert_true(waited / n <= 7 * MS + RQ_MIN_RUN_NS + sim.between_cost);
    assert_true(sim.g[0].items >= 100);
}

/* Wake-up preemption is for guests under their share: a guest that sleeps in short steps but
 * wants 90 % of the CPU gets no more than its half beside an equal-weight spinner by waking
 * often. */
static void test_waking_often_takes_no_more_than_share(void **state)
{
    const struct sim_guest g[] = {
        { .kind = SLEEPER, .work = 4500 * US, .period = 5 * MS },
        { .kind = SPIN },
    };
    setup(2, g, equal);
    run_for(3000 * MS);
    uint64_t a = sim.g[0].cpu, b = sim.g[1].cpu;
    assert_true(a * 100 < (a + b) * 55 && b * 100 > (a + b) * 45);
}

/* Spinners with weights 100 and 200 share the CPU one to two. */
static void test_spinners_share_by_weight(void **state)
{
    const struct sim_guest g[] = { { .kind = SPIN }, { .kind = SPIN } };
    const uint32_t w[] = { 100, 200 };
    setup(2, g, w);
    run_for(3000 * MS);
    uint64_t a = sim.g[0].cpu, b = sim.g[1].cpu;
    assert_true(b * 100 > a * 190 && b * 100 < a * 210);
}

/* Input at the shell cuts rounds short: the next round goes on with the guests that had no turn
 * yet, so however often it comes, the spinners keep sharing by weight. */
static void test_cut_rounds_go_on_where_they_stopped(void **state)
{
    const struct sim_guest g[] = { { .kind = SPIN }, { .kind = SPIN }, { .kind = SPIN } };
    const uint32_t w[] = { 100, 200, 100 };
    setup(3, g, w);
    sim.cut_every = 1;
    for (unsigned calls = 0; sim.slices < 6; calls++) {
        unsigned before = sim.slices;
        assert_true(calls < 8);
        assert_true(rq_round(&q)); /* cut, or spinners that want more: back at once */
        assert_in_range(sim.slices, before, before + 1);
    }
    /* Two rounds, at most one slice per call, each guest once a round. */
    for (unsigned k = 0; k < 6; k++)
        assert_int_equal(sim.order[k], k % 3);
    run_for(3000 * MS);
    uint64_t a = sim.g[0].cpu, b = sim.g[1].cpu, c = sim.g[2].cpu;
    assert_true(b * 100 > a * 190 && b * 100 < a * 210);
    assert_true(c * 100 > a * 95 && c * 100 < a * 105);
}

/* What the render loop asks between slices: a halted guest whose timer fired, under its share,
 * is owed the CPU by the one being rendered for, and is a pending wake-up until it runs. */
static void test_owed_and_wake_pending(void **state)
{
    const struct sim_guest g[] = {
        { .kind = SPIN },
        { .kind = SLEEPER, .work = 100 * US, .period = 10 * MS },
    };
    setup(2, g, equal);
    run_for(50 * MS);
    sim.g[1].due = sim.t + 5 * MS;
    assert_false(rq_wake_pending(&q));
    assert_false(rq_owed(&q, 0));
    sim.t += 5 * MS;
    assert_true(rq_owed(&q, 0));
    assert_true(rq_wake_pending(&q));
    assert_false(rq_owed(&q, 1)); /* the spinner has used more: nothing is owed to it */
    rq_round(&q);
    assert_false(rq_wake_pending(&q));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sleeper_beside_spinner),
        cmocka_unit_test(test_cut_rounds_go_on_where_they_stopped),
        cmocka_unit_test(test_sleeper_among_five),
        cmocka_unit_test(test_long_exit_work_waits_for_a_wake_up),
        cmocka_unit_test(test_put_off_work_is_not_starved),
        cmocka_unit_test(test_waking_often_takes_no_more_than_share),
        cmocka_unit_test(test_spinners_share_by_weight),
        cmocka_unit_test(test_owed_and_wake_pending),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
