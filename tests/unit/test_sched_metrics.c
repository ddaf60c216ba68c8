/*
 * test_sched_metrics.c — the measures (MMR, Jain's index, water filling, ratios, the
 * scheduler's own metrics) and the building blocks under them (heap, lists, exact muldiv).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sched/sched.h"
#include "sched/sched_heap.h"
#include "sched/sched_list.h"
#include "sched/sched_math.h"

#define MS(x) SCHED_MS(x)

static void test_muldiv_exact(void **state)
{
    (void)state;
    assert_int_equal(sched_muldiv(6, 7, 3), 14);
    assert_int_equal(sched_muldiv(1ull << 63, 4, 8), 1ull << 62);
    assert_int_equal(sched_muldiv(1000000000000ull, 1000000000000ull, 1000000ull),
                     1000000000000000000ull);
    assert_int_equal(sched_muldiv(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX);
    assert_int_equal(sched_muldiv(UINT64_MAX, 3, 4), (UINT64_MAX / 4) * 3 + 2);
    assert_int_equal(sched_muldiv(1ull << 63, 4, 1), UINT64_MAX); /* does not fit */
    assert_int_equal(sched_muldiv(5, 5, 0), UINT64_MAX);
    assert_int_equal(sched_muldiv(0, UINT64_MAX, 7), 0);
    assert_int_equal(sched_sat_add(UINT64_MAX - 1, 5), UINT64_MAX);
}

static void test_ratio_and_fairness(void **state)
{
    (void)state;
    assert_int_equal(sched_ratio_ppm(1, 2), 500000);
    assert_int_equal(sched_ratio_ppm(0, 0), SCHED_PPM);
    assert_int_equal(sched_ratio_ppm(1, 0), UINT32_MAX);
    assert_int_equal(sched_ratio_ppm(UINT64_MAX, 1), UINT32_MAX);

    uint32_t mmr, jain;
    const uint64_t ideal[3] = { 100, 200, 300 };
    const uint64_t exact[3] = { 100, 200, 300 };
    assert_int_equal(sched_fairness(exact, ideal, 3, &mmr, &jain), 3);
    assert_int_equal(mmr, SCHED_PPM);
    assert_int_equal(jain, SCHED_PPM);
    /* Equal service against 1:2:3: x = 1, 1/2, 1/3; MMR 1/3; Jain 3.361/4.083 = 0.8231. */
    const uint64_t equal[3] = { 200, 200, 200 };
    sched_fairness(equal, ideal, 3, &mmr, &jain);
    assert_in_range(mmr, 333300, 333400);
    assert_in_range(jain, 823000, 823300);
    /* Entries with no ideal are left out. */
    const uint64_t ideal0[3] = { 0, 200, 300 };
    assert_int_equal(sched_fairness(equal, ideal0, 3, &mmr, &jain), 2);
    assert_in_range(mmr, 666600, 666700);
    /* Large values (hours of nanoseconds) do not overflow. */
    const uint64_t big_ideal[2] = { 3600ull * 1000000000ull, 7200ull * 1000000000ull };
    const uint64_t big_ach[2] = { 3600ull * 1000000000ull, 3600ull * 1000000000ull };
    sched_fairness(big_ach, big_ideal, 2, &mmr, &jain);
    assert_int_equal(mmr, 500000);
    assert_in_range(jain, 899900, 900100); /* (1.5)^2 / (2 * 1.25) = 0.9 */
    assert_int_equal(sched_fairness(NULL, ideal, 3, &mmr, &jain), 0);
    assert_int_equal(mmr, SCHED_PPM);
}

static void test_waterfill(void **state)
{
    (void)state;
    uint64_t share[3];
    const uint32_t w111[3] = { 1, 1, 1 };
    const uint64_t d1[3] = { 10, 100, 100 };
    assert_int_equal(sched_waterfill(w111, d1, 3, 100, share), SCHED_OK);
    assert_int_equal(share[0], 10);
    assert_int_equal(share[1], 45);
    assert_int_equal(share[2], 45);

    const uint32_t w123[3] = { 1, 2, 3 };
    const uint64_t d2[3] = { 100, 100, 100 };
    sched_waterfill(w123, d2, 3, 60, share);
    assert_int_equal(share[0], 10);
    assert_int_equal(share[1], 20);
    assert_int_equal(share[2], 30);

    /* The heavy consumer wants little: the rest is split 1:2 among the others. */
    const uint64_t d3[3] = { 100, 100, 6 };
    sched_waterfill(w123, d3, 3, 60, share);
    assert_int_equal(share[2], 6);
    assert_int_equal(share[0], 18);
    assert_int_equal(share[1], 36);

    /* Everyone satisfied: capacity left over. */
    const uint64_t d4[3] = { 1, 2, 3 };
    sched_waterfill(w123, d4, 3, 60, share);
    assert_int_equal(share[0] + share[1] + share[2], 6);

    const uint32_t w0[3] = { 1, 0, 1 };
    assert_int_equal(sched_waterfill(w0, d4, 3, 60, share), SCHED_EINVAL);
    assert_int_equal(sched_waterfill(NULL, d4, 3, 60, share), SCHED_EINVAL);
}

static void test_heap_order_and_removal(void **state)
{
    (void)state;
    struct sched_heap h;
    assert_int_equal(sched_heap_init(&h, 64), 0);
    uint64_t x = 12345;
    for (uint32_t id = 0; id < 64; id++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        assert_int_equal(sched_heap_push(&h, id, (x >> 40) % 50, id), 0);
    }
    assert_int_equal(sched_heap_push(&h, 3, 0, 0), -1);  /* already in */
    assert_int_equal(sched_heap_push(&h, 64, 0, 0), -1); /* out of range */
    for (uint32_t id = 0; id < 64; id += 3)
        assert_int_equal(sched_heap_remove(&h, id), 0);
    assert_int_equal(sched_heap_remove(&h, 0), -1);
    assert_false(sched_heap_contains(&h, 3));
    assert_true(sched_heap_contains(&h, 4));
    sched_heap_halve_keys(&h);
    uint64_t last_key = 0, last_seq = 0;
    uint32_t n = 0;
    bool first = true;
    while (sched_heap_top(&h)) {
        const struct sched_heap_entry *t = sched_heap_top(&h);
        uint64_t k = t->key, sq = t->seq;
        assert_true(first || k > last_key || (k == last_key && sq > last_seq));
        assert_int_equal(sched_heap_pop(&h), (uint32_t)sq); /* seq == id */
        last_key = k;
        last_seq = sq;
        first = false;
        n++;
    }
    assert_int_equal(n, 64 - 22);
    assert_int_equal(sched_heap_pop(&h), UINT32_MAX);
    sched_heap_fini(&h);
}

static void test_lists(void **state)
{
    (void)state;
    struct sched_list_node nodes[8] = { 0 };
    struct sched_list a, b;
    sched_list_init(&a, nodes, 0);
    sched_list_init(&b, nodes, 1);
    for (uint32_t i = 0; i < 5; i++)
        sched_list_append(&a, i);
    sched_list_append(&a, 2); /* already on a list: ignored */
    sched_list_remove(&a, 2);
    sched_list_remove(&b, 3); /* not on b: no-op */
    sched_list_append(&b, 2);
    assert_true(sched_list_contains(&b, 2));
    assert_false(sched_list_contains(&a, 2));
    const uint32_t want[4] = { 0, 1, 3, 4 };
    for (int i = 0; i < 4; i++)
        assert_int_equal(sched_list_pop(&a), want[i]);
    assert_int_equal(sched_list_pop(&a), SCHED_LIST_NIL);
    assert_int_equal(a.n, 0);
    assert_int_equal(sched_list_pop(&b), 2);
}

static uint64_t fake_now;
static uint64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

/* The scheduler's own metrics: shares, share vs weight, MMR, utilisation, switches. */
static void test_scheduler_metrics(void **state)
{
    (void)state;
    struct sched_config cfg;
    sched_config_default(&cfg);
    struct sched_clock c = { .now = fake_clock, .ctx = NULL };
    struct sched *s;
    fake_now = 0;
    assert_int_equal(sched_create(&cfg, &c, &s), SCHED_OK);
    sched_vgpu_add(s, 0, 1);
    sched_vgpu_add(s, 1, 3);
    sched_vgpu_add(s, 2, 5); /* never has work: not in the measures */
    uint64_t id[2] = { 0, 0 };
    for (int turn = 0; turn < 400; turn++) {
        for (uint32_t v = 0; v < 2; v++) {
            while (sched_vgpu_queued(s, v) < 2) {
                struct sched_workload w = { .id = id[v]++, .est_ns = MS(2) };
                sched_submit(s, v, &w);
            }
        }
        struct sched_decision d;
        sched_pick(s, &d);
        for (uint32_t k = 0; k < d.count; k++) {
            fake_now += MS(2);
            sched_complete(s, d.vgpu, d.first_id + k, MS(2));
        }
        fake_now += SCHED_US(10); /* a little idle engine between dispatches */
    }
    struct sched_metrics m;
    assert_int_equal(sched_metrics_get(s, &m), SCHED_OK);
    assert_int_equal(m.vgpus, 3);
    assert_int_equal(m.active, 2);
    assert_int_equal(m.busy_ns, 400 * MS(2));
    assert_int_equal(m.elapsed_ns, 400 * (MS(2) + SCHED_US(10)));
    assert_in_range(m.utilisation_ppm, 995000, 995100);
    assert_true(m.mmr_ppm >= 960000); /* off by at most one 6 ms turn in 200 ms */
    assert_true(m.jain_ppm >= 999000);
    assert_int_equal(m.picks, 400);
    assert_true(m.switches >= 2 && m.switches <= m.turns);
    struct sched_vgpu_stats a, b, z;
    sched_vgpu_stats_get(s, 0, &a);
    sched_vgpu_stats_get(s, 1, &b);
    sched_vgpu_stats_get(s, 2, &z);
    assert_int_equal(a.weight_share_ppm, 250000);
    assert_int_equal(b.weight_share_ppm, 750000);
    assert_int_equal(z.weight_share_ppm, 0);
    assert_in_range(a.share_ppm, 240000, 260000);
    assert_int_equal(a.share_ppm + b.share_ppm, SCHED_PPM);
    assert_int_equal(a.workloads + b.workloads, 400);
    assert_int_equal(sched_vgpu_stats_get(s, 7, &z), SCHED_ENOENT);
    assert_int_equal(sched_metrics_get(s, NULL), SCHED_EINVAL);

    sched_metrics_reset(s);
    sched_metrics_get(s, &m);
    assert_int_equal(m.busy_ns, 0);
    assert_int_equal(m.switches, 0);
    assert_int_equal(m.active, 2); /* still backlogged */
    sched_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_muldiv_exact), cmocka_unit_test(test_ratio_and_fairness),
        cmocka_unit_test(test_waterfill),    cmocka_unit_test(test_heap_order_and_removal),
        cmocka_unit_test(test_lists),        cmocka_unit_test(test_scheduler_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
