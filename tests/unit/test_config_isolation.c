/* The configuration of performance isolation: the per-workload limit of
 * /scheduler workload-limit-us and each guest's share of the fence pool (fence-pool-kib), their
 * defaults, and each rejection naming node and property. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "config/config.h"
#include "test_config_fixture.h"
#include "test_config_expect.h"

#define KIB 1024ull

static void test_defaults_are_the_watchdog_and_the_fair_split(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(2);
    accept(t);
    assert_int_equal(t_out.scheduler.workload_limit_us, CFG_DEFAULT_WORKLOAD_LIMIT_US);
    uint64_t shares[TESSERA_MAX_GUESTS];
    cfg_fence_shares(&t_out, shares);
    assert_int_equal(shares[0], CFG_FENCE_POOL_KIB * KIB / 2);
    assert_int_equal(shares[1], CFG_FENCE_POOL_KIB * KIB / 2);
}

static void test_a_kiosk_sets_a_lower_workload_limit(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(1);
    t_u32(t, "scheduler", "workload-limit-us", 20000);
    accept(t);
    assert_int_equal(t_out.scheduler.workload_limit_us, 20000);
    t_u32(t, "scheduler", "workload-limit-us", 50);
    REJECT(t, "/scheduler: workload-limit-us: expected 100..10000000", "got 50");
    t_u32(t, "scheduler", "workload-limit-us", 5000);
    REJECT(t, "/scheduler: workload-limit-us: expected at least slice-us (6000), got 5000");
}

/* Shares given are kept; the guests without one split what is left equally, in whole pages. */
static void test_fence_pool_shares_given_and_split(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(3);
    t_u32(t, "guests/kiosk1", "fence-pool-kib", 1024);
    accept(t);
    uint64_t shares[TESSERA_MAX_GUESTS];
    cfg_fence_shares(&t_out, shares);
    assert_int_equal(shares[1], 1024 * KIB);
    assert_int_equal(shares[0], (CFG_FENCE_POOL_KIB - 1024) / 2 * KIB);
    assert_int_equal(shares[2], shares[0]);
    t_u32(t, "guests/kiosk0", "fence-pool-kib", 10);
    REJECT(t, "/guests/kiosk0: fence-pool-kib: expected a multiple of 4", "got 10");
}

static void test_rejects_shares_beyond_the_pool(void **state)
{
    (void)state;
    struct t_cfg *t = t_base(3);
    t_u32(t, "guests/kiosk0", "fence-pool-kib", 20000);
    t_u32(t, "guests/kiosk2", "fence-pool-kib", 16000);
    REJECT(t, "/guests/kiosk2: fence-pool-kib: the guests' fence-pool shares add up to 36000 KiB, "
              "the fence pool holds 32768 KiB");
    t_u32(t, "guests/kiosk2", "fence-pool-kib", 12768);
    REJECT(t, "/guests/kiosk2: fence-pool-kib: the shares given add up to 32768 KiB of the 32768 "
              "KiB fence pool: less than 4 KiB is left for each guest without a share (1)");
    t_u32(t, "guests/kiosk2", "fence-pool-kib", 12764);
    accept(t);
    t_u32(t, "guests/kiosk1", "fence-pool-kib", 40000);
    REJECT(t, "/guests/kiosk1: fence-pool-kib: expected 4..32768", "got 40000");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_are_the_watchdog_and_the_fair_split),
        cmocka_unit_test(test_a_kiosk_sets_a_lower_workload_limit),
        cmocka_unit_test(test_fence_pool_shares_given_and_split),
        cmocka_unit_test(test_rejects_shares_beyond_the_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
