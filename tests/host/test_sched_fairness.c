/*
 * test_sched_fairness.c — properties of the render scheduler that must hold over long
 * simulated runs (sched/sched_sim.h): fair shares within 1% of weights for saturating guests
 * with workloads from 20 us to 20 ms; work conservation; a runaway is reset without hurting
 * the others; interactive guests under congestion; 64 vGPUs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sched/sched.h"
#include "sched/sched_sim.h"

#define US(x) SCHED_US(x)
#define MS(x) SCHED_MS(x)

static struct sched_sim_guest saturating(uint32_t weight)
{
    struct sched_sim_guest g;
    memset(&g, 0, sizeof(g));
    g.weight = weight;
    g.est_error_pct = 30;
    g.burst = 1;
    g.think_ns = US(2);
    g.max_outstanding = 64;
    return g;
}

static void add_size(struct sched_sim_guest *g, uint64_t ns, uint32_t freq)
{
    g->sizes[g->nsizes++] = (struct sched_sim_size){ ns, freq };
}

/* The full range, 20 us to 20 ms. */
static void mixed_sizes(struct sched_sim_guest *g)
{
    add_size(g, US(20), 40);
    add_size(g, US(50), 20);
    add_size(g, US(210), 15);
    add_size(g, US(1600), 10);
    add_size(g, MS(5), 10);
    add_size(g, MS(20), 5);
}

static struct sched_config fair_config(void)
{
    struct sched_config cfg;
    sched_config_default(&cfg);
    return cfg;
}

static struct sched_sim_params params(uint64_t duration)
{
    struct sched_sim_params p;
    sched_sim_params_default(&p);
    p.duration_ns = duration;
    p.warmup_ns = MS(1000);
    return p;
}

/* Every guest's share of the GPU time is within 1% (relative) of its share of the weights. */
static void assert_shares_within_1pct(const struct sched_sim_guest *g,
                                      const struct sched_sim_guest_result *gr, uint32_t n)
{
    uint64_t total = 0, wsum = 0;
    for (uint32_t i = 0; i < n; i++) {
        total += gr[i].gpu_ns;
        wsum += g[i].weight;
    }
    assert_true(total > 0);
    for (uint32_t i = 0; i < n; i++) {
        /* share / weight_share = gpu_i * wsum / (total * w_i), in ppm */
        uint32_t x = sched_ratio_ppm(gr[i].gpu_ns * wsum, total * g[i].weight);
        if (x < 990000 || x > 1010000)
            print_error("guest %u: weight %u, got %u ppm of its weighted share\n", i, g[i].weight,
                        x);
        assert_in_range(x, 990000, 1010000);
    }
}

/* All guests draw from the same mix of sizes, 20 us .. 20 ms, weights 1:2:3:4. */
static void test_fair_shares_same_mix(void **state)
{
    (void)state;
    struct sched_sim_guest g[4];
    for (uint32_t i = 0; i < 4; i++) {
        g[i] = saturating(i + 1);
        mixed_sizes(&g[i]);
    }
    struct sched_config cfg = fair_config();
    struct sched_sim_params p = params(MS(60000));
    struct sched_sim_result r;
    struct sched_sim_guest_result gr[4];
    assert_int_equal(sched_sim_run(&cfg, g, 4, &p, &r, gr), SCHED_OK);
    assert_shares_within_1pct(g, gr, 4);
    assert_true(sched_ratio_ppm(r.busy_ns, r.window_ns) >= 990000);
}

/* Each guest has its own size: only 20 us, only 20 ms, only 1.6 ms, the full mix. */
static void test_fair_shares_different_sizes(void **state)
{
    (void)state;
    struct sched_sim_guest g[4];
    for (uint32_t i = 0; i < 4; i++)
        g[i] = saturating(i + 1);
    add_size(&g[0], US(20), 1);
    g[0].max_outstanding = 256;
    add_size(&g[1], MS(20), 1);
    add_size(&g[2], US(1600), 1);
    mixed_sizes(&g[3]);
    struct sched_config cfg = fair_config();
    struct sched_sim_params p = params(MS(60000));
    struct sched_sim_result r;
    struct sched_sim_guest_result gr[4];
    assert_int_equal(sched_sim_run(&cfg, g, 4, &p, &r, gr), SCHED_OK);
    assert_shares_within_1pct(g, gr, 4);
    /* Reversed weights: the 20 ms guest now has the smallest. */
    for (uint32_t i = 0; i < 4; i++)
        g[i].weight = 4 - i;
    assert_int_equal(sched_sim_run(&cfg, g, 4, &p, &r, gr), SCHED_OK);
    assert_shares_within_1pct(g, gr, 4);
}

/* Scanner estimates that are useless (none at all) or far off do not break fairness: the
 * accounting charges what the GPU really used. */
static void test_fair_shares_without_estimates(void **state)
{
    (void)state;
    struct sched_sim_guest g[3];
    for (uint32_t i = 0; i < 3; i++) {
        g[i] = saturating(1 + 2 * i);
        mixed_sizes(&g[i]);
    }
    g[0].est_unknown = true;
    g[1].est_error_pct = 90;
    struct sched_config cfg = fair_config();
    struct sched_sim_params p = params(MS(60000));
    struct sched_sim_result r;
    struct sched_sim_guest_result gr[3];
    assert_int_equal(sched_sim_run(&cfg, g, 3, &p, &r, gr), SCHED_OK);
    assert_shares_within_1pct(g, gr, 3);
}

/* Work conservation: guests that sleep about 50% and 80% of the time leave their share to
 * the saturating one; the engine stays busy.  rr (GVT-g), which holds back a vGPU whose time
 * slice is used up, leaves it idle instead. */
static void test_work_conservation(void **state)
{
    (void)state;
    struct sched_sim_guest g[3];
    for (uint32_t i = 0; i < 3; i++) {
        g[i] = saturating(i + 1);
        add_size(&g[i], US(207), 1);
    }
    g[1].on_ns = MS(20);
    g[1].off_ns = MS(20);
    g[1].max_outstanding = 8;
    g[2].on_ns = MS(10);
    g[2].off_ns = MS(40);
    g[2].max_outstanding = 8;
    struct sched_config cfg = fair_config();
    struct sched_sim_params p = params(MS(20000));
    struct sched_sim_result r;
    struct sched_sim_guest_result gr[3];
    assert_int_equal(sched_sim_run(&cfg, g, 3, &p, &r, gr), SCHED_OK);
    assert_true(sched_ratio_ppm(r.busy_ns, r.window_ns) >= 985000);
    /* The saturating guest (weight 1 of 6) gets far more than its 1/6. */
    assert_true(sched_ratio_ppm(gr[0].gpu_ns, r.window_ns) >= 300000);
    /* The sleepers still get the GPU whenever they are awake. */
    assert_true(gr[1].gpu_ns > 0 && gr[2].gpu_ns > 0);

    cfg.policy = SCHED_POLICY_RR;
    assert_int_equal(sched_sim_run(&cfg, g, 3, &p, &r, gr), SCHED_OK);
    assert_true(sched_ratio_ppm(r.busy_ns, r.window_ns) <= 950000);
}

/* A guest submits a 5 s runaway: the watchdog reports it, the VMM resets that vGPU, and
 * the others keep their equal shares. */
static void test_runaway_is_isolated(void **state)
{
    (void)state;
    struct sched_sim_guest g[3];
    for (uint32_t i = 0; i < 3; i++) {
        g[i] = saturating(1);
        add_size(&g[i], US(200), 1);
    }
    g[1].runaway_at_ns = MS(2000);
    g[1].runaway_ns = MS(5000);
    struct sched_config cfg = fair_config();
    struct sched_sim_params p = params(MS(12000));
    struct sched_sim_result r;
    struct sched_sim_guest_result gr[3];
    assert_int_equal(sched_sim_run(&cfg, g, 3, &p, &r, gr), SCHED_OK);
    assert_int_equal(gr[0].resets, 0);
    assert_int_equal(gr[1].resets, 1);
    assert_int_equal(gr[2].resets, 0);
    assert_true(gr[1].dropped >= 1);
    uint32_t x = sched_ratio_ppm(gr[0].gpu_ns, gr[2].gpu_ns);
    assert_in_range(x, 990000, 1010000);
    /* The runaway's 200 ms were charged to guest 1: it got that much less useful time. */
    assert_true(gr[1].gpu_ns + MS(150) <= gr[0].gpu_ns);
    assert_true(gr[1].gpu_ns + MS(300) >= gr[0].gpu_ns);
}

/* Interactive guests (a kernel, then a synchronous wait), six on three cores, weights
 * 1:2:2:3:3:4: fair keeps MMR >= 0.99; the busy ones are classified interactive. */
static void test_interactive_congested(void **state)
{
    (void)state;
    static const uint32_t w[6] = { 1, 2, 2, 3, 3, 4 };
    struct sched_sim_guest g[6];
    for (uint32_t i = 0; i < 6; i++) {
        g[i] = saturating(w[i]);
        add_size(&g[i], US(46), 1);
        g[i].sync = true;
        g[i].think_ns = US(12);
        g[i].core = i / 2;
    }
    struct sched_config cfg = fair_config();
    struct sched_sim_params p = params(MS(10000));
    p.ncores = 3;
    struct sched_sim_eval ev;
    struct sched_sim_guest_result gr[6];
    assert_int_equal(sched_sim_evaluate(&cfg, g, 6, &p, &ev, gr), SCHED_OK);
    assert_true(ev.mmr_ppm >= 990000);
    assert_true(ev.jain_ppm >= 999000);
    assert_true(ev.hints > 0);
    assert_true(gr[5].hints > 0); /* weight 4: many waits per 10 ms */
    for (uint32_t i = 0; i < 6; i++)
        assert_true(gr[i].sync_waits > 0);
}

/* 64 vGPUs with weights 1..8 stay close to their weights. */
static void test_sixty_four_vgpus(void **state)
{
    (void)state;
    struct sched_sim_guest g[64];
    for (uint32_t i = 0; i < 64; i++) {
        g[i] = saturating(i % 8 + 1);
        add_size(&g[i], US(133), 1);
        add_size(&g[i], US(207), 1);
        add_size(&g[i], US(377), 1);
        g[i].max_outstanding = 16;
    }
    struct sched_config cfg = fair_config();
    struct sched_sim_params p = params(MS(30000));
    struct sched_sim_result r;
    struct sched_sim_guest_result gr[64];
    assert_int_equal(sched_sim_run(&cfg, g, 64, &p, &r, gr), SCHED_OK);
    uint64_t ideal[64], ach[64];
    for (uint32_t i = 0; i < 64; i++) {
        ideal[i] = g[i].weight;
        ach[i] = gr[i].gpu_ns;
    }
    uint32_t mmr, jain;
    sched_fairness(ach, ideal, 64, &mmr, &jain);
    /* A weight-1 vGPU has ~100 ms in 29 s, so one 6 ms turn is 6%. */
    assert_true(mmr >= 900000);
    assert_true(jain >= 999000);
}

/* Same seed, same run: the simulator is deterministic; another seed differs. */
static void test_simulation_is_deterministic(void **state)
{
    (void)state;
    struct sched_sim_guest g[2];
    for (uint32_t i = 0; i < 2; i++) {
        g[i] = saturating(i + 1);
        mixed_sizes(&g[i]);
    }
    struct sched_config cfg = fair_config();
    struct sched_sim_params p = params(MS(3000));
    struct sched_sim_result r1, r2;
    struct sched_sim_guest_result a[2], b[2];
    assert_int_equal(sched_sim_run(&cfg, g, 2, &p, &r1, a), SCHED_OK);
    assert_int_equal(sched_sim_run(&cfg, g, 2, &p, &r2, b), SCHED_OK);
    assert_memory_equal(a, b, sizeof(a));
    assert_int_equal(r1.events, r2.events);
    p.seed = 2;
    assert_int_equal(sched_sim_run(&cfg, g, 2, &p, &r2, b), SCHED_OK);
    assert_true(a[0].workloads != b[0].workloads || a[1].workloads != b[1].workloads);
    /* Bad input is refused. */
    g[0].nsizes = 0;
    assert_int_equal(sched_sim_run(&cfg, g, 2, &p, &r1, a), SCHED_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fair_shares_same_mix),
        cmocka_unit_test(test_fair_shares_different_sizes),
        cmocka_unit_test(test_fair_shares_without_estimates),
        cmocka_unit_test(test_work_conservation),
        cmocka_unit_test(test_runaway_is_isolated),
        cmocka_unit_test(test_interactive_congested),
        cmocka_unit_test(test_sixty_four_vgpus),
        cmocka_unit_test(test_simulation_is_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
