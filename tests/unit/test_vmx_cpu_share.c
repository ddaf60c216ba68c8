/* Which guest is owed the CPU (vmm/vcpu/cpu_share.c): rendering counts with the vCPU's time,
 * weights scale it, old use is forgotten by halves. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "vmm/vcpu/cpu_share.h"

#define MS 1000000ull

static struct cpu_share s;

static void two_guests(uint32_t w0, uint32_t w1)
{
    cpu_share_init(&s, 0);
    cpu_share_set_weight(&s, 0, w0);
    cpu_share_set_weight(&s, 1, w1);
}

/* Guest 1's vCPU idles but its GPU work took 60 ms of CPU; guest 0 polled for 2 ms.  Guest 0
 * is owed the CPU the rendering holds, not the other way round. */
static void test_rendering_counts(void **state)
{
    two_guests(100, 100);
    uint64_t victim = 2 * MS, hog = 0 * MS + 60 * MS;
    assert_true(cpu_share_owed(&s, 0, victim, 1, hog));
    assert_false(cpu_share_owed(&s, 1, hog, 0, victim));
}

static void test_not_owed_to_itself_or_strangers(void **state)
{
    two_guests(100, 100);
    assert_false(cpu_share_owed(&s, 0, 0, 0, 50 * MS));
    assert_false(cpu_share_owed(&s, 5, 0, 1, 50 * MS)); /* no weight: not a guest */
    assert_false(cpu_share_owed(&s, CPU_SHARE_MAX, 0, 1, 50 * MS));
    assert_false(cpu_share_owed(&s, 0, 10 * MS, 1, 10 * MS)); /* equal: nobody cuts in */
}

/* Weight 300 against 100: 30 ms of use weighs as 10 ms. */
static void test_weight_scales(void **state)
{
    two_guests(300, 100);
    assert_true(cpu_share_owed(&s, 0, 29 * MS, 1, 10 * MS));
    assert_false(cpu_share_owed(&s, 0, 31 * MS, 1, 10 * MS));
    assert_int_equal(cpu_share_load(&s, 0, 30 * MS), 10 * MS);
}

/* Guest 0 used 80 ms long ago, guest 1 now uses 10 ms a period: after a few periods guest 0's
 * old use no longer puts it behind, and the halving happens once per period however often
 * the loop asks. */
static void test_old_use_is_forgotten(void **state)
{
    two_guests(100, 100);
    uint64_t t[2] = { 80 * MS, 0 };
    uint64_t now = 0;
    assert_true(cpu_share_owed(&s, 1, t[1], 0, t[0])); /* 0 < 80: guest 1 is owed */
    for (unsigned p = 0; p < 4; p++) {
        now += CPU_SHARE_PERIOD_NS;
        cpu_share_tick(&s, now, t, 2);
        cpu_share_tick(&s, now + 1, t, 2); /* same period: no second halving */
        t[1] += 10 * MS;
    }
    /* guest 0: 80 -> 40 -> 20 -> 10 -> 5 ms; guest 1: 0, 5, 7.5, 8.75 ms recent + 10 this period */
    assert_int_equal(cpu_share_load(&s, 0, t[0]), 5 * MS);
    assert_int_equal(cpu_share_load(&s, 1, t[1]), 8750000ull + 10 * MS);
    assert_true(cpu_share_owed(&s, 0, t[0], 1, t[1]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rendering_counts),
        cmocka_unit_test(test_not_owed_to_itself_or_strangers),
        cmocka_unit_test(test_weight_scales),
        cmocka_unit_test(test_old_use_is_forgotten),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
