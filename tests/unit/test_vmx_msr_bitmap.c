/* MSR bitmap (vmm/vcpu/msr_bitmap.c): exact bit positions of the four 1 KiB quarters (SDM Vol. 3C
 * §25.6.9), set/clear policy, and the MSRs outside both ranges that always exit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "vmm/vcpu/msr_bitmap.h"

/* A few architectural MSR numbers (SDM Vol. 4 Table 2-2) used as examples. */
#define T_IA32_TIME_STAMP_COUNTER 0x00000010u
#define T_IA32_APIC_BASE          0x0000001Bu
#define T_IA32_EFER               0xC0000080u
#define T_IA32_FS_BASE            0xC0000100u
#define T_IA32_KERNEL_GS_BASE     0xC0000102u

static uint8_t bm[MSR_BITMAP_BYTES];
static uint8_t expect[MSR_BITMAP_BYTES];

static int setup(void **state)
{
    (void)state;
    memset(bm, 0x5A, sizeof bm);
    msr_bitmap_init(bm);
    memset(expect, 0xFF, sizeof expect);
    return 0;
}

static void test_init_intercepts_everything(void **state)
{
    (void)state;
    assert_memory_equal(bm, expect, sizeof bm);
    const uint32_t msrs[] = { 0, 0x10, 0x1FFF, 0xC0000000u, 0xC0000080u, 0xC0001FFFu };
    for (size_t i = 0; i < sizeof msrs / sizeof msrs[0]; i++) {
        assert_true(msr_bitmap_exits(bm, msrs[i], false));
        assert_true(msr_bitmap_exits(bm, msrs[i], true));
    }
}

/* Reading the TSC MSR (0x10): byte 0x10/8 = 2, bit 0 of the read-low quarter. */
static void test_low_read_only(void **state)
{
    (void)state;
    assert_int_equal(msr_bitmap_allow(bm, T_IA32_TIME_STAMP_COUNTER, true, false), 0);
    expect[MSR_BITMAP_READ_LOW + 2] = 0xFE;
    assert_memory_equal(bm, expect, sizeof bm);
    assert_false(msr_bitmap_exits(bm, T_IA32_TIME_STAMP_COUNTER, false));
    assert_true(msr_bitmap_exits(bm, T_IA32_TIME_STAMP_COUNTER, true));
    /* neighbours untouched */
    assert_true(msr_bitmap_exits(bm, T_IA32_TIME_STAMP_COUNTER + 1, false));
    assert_true(msr_bitmap_exits(bm, T_IA32_TIME_STAMP_COUNTER - 1, false));
}

/* APIC_BASE 0x1B: byte 3, bit 3, in the write-low quarter (offset 2048). */
static void test_low_write_only(void **state)
{
    (void)state;
    assert_int_equal(msr_bitmap_allow(bm, T_IA32_APIC_BASE, false, true), 0);
    expect[MSR_BITMAP_WRITE_LOW + 3] = (uint8_t) ~(1u << 3);
    assert_memory_equal(bm, expect, sizeof bm);
    assert_true(msr_bitmap_exits(bm, T_IA32_APIC_BASE, false));
    assert_false(msr_bitmap_exits(bm, T_IA32_APIC_BASE, true));
}

/* EFER 0xC0000080: index 0x80 -> byte 16, bit 0 at offsets 1024 (read) and 3072 (write). */
static void test_high_both(void **state)
{
    (void)state;
    assert_int_equal(msr_bitmap_allow(bm, T_IA32_EFER, true, true), 0);
    expect[MSR_BITMAP_READ_HIGH + 16] = 0xFE;
    expect[MSR_BITMAP_WRITE_HIGH + 16] = 0xFE;
    assert_memory_equal(bm, expect, sizeof bm);
    assert_int_equal(msr_bitmap_allow(bm, T_IA32_FS_BASE, true, true), 0);
    assert_int_equal(msr_bitmap_allow(bm, T_IA32_KERNEL_GS_BASE, true, false), 0);
    expect[MSR_BITMAP_READ_HIGH + 32] = (uint8_t) ~((1u << 0) | (1u << 2));
    expect[MSR_BITMAP_WRITE_HIGH + 32] = (uint8_t) ~(1u << 0);
    assert_memory_equal(bm, expect, sizeof bm);
    assert_false(msr_bitmap_exits(bm, T_IA32_KERNEL_GS_BASE, false));
    assert_true(msr_bitmap_exits(bm, T_IA32_KERNEL_GS_BASE, true));
}

/* The last MSR of each range sits in the last byte of its quarter, bit 7. */
static void test_range_edges(void **state)
{
    (void)state;
    assert_int_equal(msr_bitmap_allow(bm, MSR_RANGE_LOW_LAST, true, true), 0);
    assert_int_equal(msr_bitmap_allow(bm, MSR_RANGE_HIGH_LAST, true, true), 0);
    assert_int_equal(msr_bitmap_allow(bm, MSR_RANGE_LOW_FIRST, true, true), 0);
    assert_int_equal(msr_bitmap_allow(bm, MSR_RANGE_HIGH_FIRST, true, true), 0);
    expect[MSR_BITMAP_READ_LOW + 1023] = 0x7F;
    expect[MSR_BITMAP_WRITE_LOW + 1023] = 0x7F;
    expect[MSR_BITMAP_READ_HIGH + 1023] = 0x7F;
    expect[MSR_BITMAP_WRITE_HIGH + 1023] = 0x7F;
    expect[MSR_BITMAP_READ_LOW] = 0xFE;
    expect[MSR_BITMAP_WRITE_LOW] = 0xFE;
    expect[MSR_BITMAP_READ_HIGH] = 0xFE;
    expect[MSR_BITMAP_WRITE_HIGH] = 0xFE;
    assert_memory_equal(bm, expect, sizeof bm);
}

/* allow() sets the policy, so it can intercept again. */
static void test_reintercept(void **state)
{
    (void)state;
    assert_int_equal(msr_bitmap_allow(bm, T_IA32_EFER, true, true), 0);
    assert_int_equal(msr_bitmap_allow(bm, T_IA32_EFER, false, true), 0);
    assert_true(msr_bitmap_exits(bm, T_IA32_EFER, false));
    assert_false(msr_bitmap_exits(bm, T_IA32_EFER, true));
    assert_int_equal(msr_bitmap_allow(bm, T_IA32_EFER, false, false), 0);
    assert_memory_equal(bm, expect, sizeof bm);
}

static void test_outside_ranges_always_exit(void **state)
{
    (void)state;
    const uint32_t outside[] = { 0x2000,      0x12345,     0xBFFFFFFFu, 0xC0002000u,
                                 0xC0010000u, 0xFFFFFFFFu, 0x40000000u };
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
        assert_int_equal(msr_bitmap_allow(bm, outside[i], true, true), -1);
        assert_true(msr_bitmap_exits(bm, outside[i], false));
        assert_true(msr_bitmap_exits(bm, outside[i], true));
    }
    assert_memory_equal(bm, expect, sizeof bm);
    /* even a bitmap that allows everything */
    memset(bm, 0, sizeof bm);
    assert_true(msr_bitmap_exits(bm, 0x2000, false));
    assert_false(msr_bitmap_exits(bm, 0x1FFF, true));
    assert_int_equal(msr_bitmap_allow(NULL, 0x10, true, true), -1);
    assert_true(msr_bitmap_exits(NULL, 0x10, false));
}

/* Each in-range MSR owns exactly one bit per direction, and every bit belongs to one MSR. */
static void test_every_msr_one_bit(void **state)
{
    (void)state;
    static uint32_t owner_count[MSR_BITMAP_BYTES * 8];
    memset(owner_count, 0, sizeof owner_count);
    const uint32_t firsts[2] = { MSR_RANGE_LOW_FIRST, MSR_RANGE_HIGH_FIRST };
    for (int r = 0; r < 2; r++) {
        for (uint32_t m = firsts[r]; m <= firsts[r] + 0x1FFF; m++) {
            msr_bitmap_init(bm);
            assert_int_equal(msr_bitmap_allow(bm, m, true, true), 0);
            unsigned cleared = 0;
            for (unsigned i = 0; i < MSR_BITMAP_BYTES * 8; i++) {
                if (!((bm[i / 8] >> (i % 8)) & 1)) {
                    cleared++;
                    owner_count[i]++;
                }
            }
            assert_int_equal(cleared, 2);
            assert_false(msr_bitmap_exits(bm, m, false));
            assert_false(msr_bitmap_exits(bm, m, true));
        }
    }
    for (unsigned i = 0; i < MSR_BITMAP_BYTES * 8; i++)
        assert_int_equal(owner_count[i], 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_init_intercepts_everything, setup),
        cmocka_unit_test_setup(test_low_read_only, setup),
        cmocka_unit_test_setup(test_low_write_only, setup),
        cmocka_unit_test_setup(test_high_both, setup),
        cmocka_unit_test_setup(test_range_edges, setup),
        cmocka_unit_test_setup(test_reintercept, setup),
        cmocka_unit_test_setup(test_outside_ranges_always_exit, setup),
        cmocka_unit_test_setup(test_every_msr_one_bit, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
