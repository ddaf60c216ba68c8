/* Where a guest's vCPU runs (vmm/smp/placement.c): the CPU it asks for when that one can run
 * guests, else folded onto those that can, spread as the configuration spread them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "vmm/smp/placement.h"

static void a_usable_cpu_is_kept(void **state)
{
    (void)state;
    assert_int_equal(smp_place(0x3, 0), 0);
    assert_int_equal(smp_place(0x3, 1), 1);
    assert_int_equal(smp_place(0xF, 3), 3);
}

static void one_cpu_takes_everything(void **state)
{
    (void)state;
    for (unsigned want = 0; want < 64; want++)
        assert_int_equal(smp_place(0x1, want), 0);
    /* The boot CPU counts as usable even when the mask leaves it out. */
    assert_int_equal(smp_place(0x0, 5), 0);
}

static void missing_cpus_fold_onto_the_usable_ones(void **state)
{
    (void)state;
    /* A configuration for four cores on two: 0 1 2 3 -> 0 1 0 1. */
    assert_int_equal(smp_place(0x3, 2), 0);
    assert_int_equal(smp_place(0x3, 3), 1);
    /* CPU 1 lost or without VT-x, CPUs 0, 2, 3 usable: 1 -> the second usable, CPU 2. */
    assert_int_equal(smp_place(0xD, 1), 2);
    assert_int_equal(smp_place(0xD, 63), 0); /* 63 mod 3 = 0 */
}

static void out_of_range_wants_fold_too(void **state)
{
    (void)state;
    assert_int_equal(smp_place(0x3, 64), 0);
    assert_int_equal(smp_place(0x3, 65), 1);
    assert_int_equal(smp_place(~0ULL, 63), 63);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_usable_cpu_is_kept),
        cmocka_unit_test(one_cpu_takes_everything),
        cmocka_unit_test(missing_cpus_fold_onto_the_usable_ones),
        cmocka_unit_test(out_of_range_wants_fold_too),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
