/* The ACPI fixed hardware of a Linux guest (vmm/vdev/vacpi_pm.c): SCI_EN reads 1 whatever is
 * written (always ACPI mode), PM1_STS clears by writing 1s, PM1_EN is storage, SLP_EN with the
 * S5 type is a power-off and with another type a refusal, byte and word accesses land in the
 * right lanes, and the PM timer counts 3.579545 MHz from the TSC without overflowing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "vmm/vdev/vacpi_pm.h"

#define TSC_HZ 2000000000ULL

static void test_reset_and_claims(void **state)
{
    struct vacpi_pm pm;
    vacpi_pm_reset(&pm, TSC_HZ);
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM1_CNT_PORT, 2, 0), ACPI_PM1_CNT_SCI_EN);
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM1_EVT_PORT, 4, 0), 0);
    assert_true(vacpi_pm_claims_port(ACPI_PM1_EVT_PORT, 4));
    assert_true(vacpi_pm_claims_port(ACPI_PM_TMR_PORT, 4));
    assert_false(vacpi_pm_claims_port(ACPI_PM_TMR_PORT + 1, 4)); /* runs past the block */
    assert_false(vacpi_pm_claims_port(ACPI_PM_BASE - 1, 1));
    assert_false(vacpi_pm_claims_port(0x3F8, 1));
}

static void test_control(void **state)
{
    struct vacpi_pm pm;
    vacpi_pm_reset(&pm, TSC_HZ);
    /* Clearing SCI_EN does not take the machine out of ACPI mode. */
    assert_int_equal(vacpi_pm_write(&pm, ACPI_PM1_CNT_PORT, 2, 0), VACPI_PM_NONE);
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM1_CNT_PORT, 2, 0) & ACPI_PM1_CNT_SCI_EN,
                     ACPI_PM1_CNT_SCI_EN);
    /* Linux's acpi_hw_legacy_sleep: SLP_TYP first, then SLP_TYP | SLP_EN. */
    uint32_t typ = ACPI_SLP_TYP_S5 << ACPI_PM1_CNT_SLP_TYP_SHIFT;
    assert_int_equal(vacpi_pm_write(&pm, ACPI_PM1_CNT_PORT, 2, typ), VACPI_PM_NONE);
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM1_CNT_PORT, 2, 0), typ | ACPI_PM1_CNT_SCI_EN);
    assert_int_equal(vacpi_pm_write(&pm, ACPI_PM1_CNT_PORT, 2, typ | ACPI_PM1_CNT_SLP_EN),
                     VACPI_PM_POWER_OFF);
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM1_CNT_PORT, 2, 0) & ACPI_PM1_CNT_SLP_EN,
                     0); /* write-only */
    /* S3 is not offered: refused, and the machine keeps running. */
    assert_int_equal(vacpi_pm_write(&pm, ACPI_PM1_CNT_PORT, 2,
                                    (3u << ACPI_PM1_CNT_SLP_TYP_SHIFT) | ACPI_PM1_CNT_SLP_EN),
                     VACPI_PM_SLEEP_REFUSED);
    /* SLP_EN arriving in the high byte alone, after SLP_TYP in the same byte. */
    assert_int_equal(vacpi_pm_write(&pm, ACPI_PM1_CNT_PORT + 1, 1,
                                    (typ | ACPI_PM1_CNT_SLP_EN) >> 8),
                     VACPI_PM_POWER_OFF);
}

static void test_status_and_enable(void **state)
{
    struct vacpi_pm pm;
    vacpi_pm_reset(&pm, TSC_HZ);
    pm.sts = ACPI_PM1_STS_TMR | ACPI_PM1_STS_WAK;
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM1_EVT_PORT, 2, 0),
                     ACPI_PM1_STS_TMR | ACPI_PM1_STS_WAK);
    vacpi_pm_write(&pm, ACPI_PM1_EVT_PORT, 2, ACPI_PM1_STS_WAK); /* write 1 to clear */
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM1_EVT_PORT, 2, 0), ACPI_PM1_STS_TMR);
    vacpi_pm_write(&pm, ACPI_PM1_EVT_PORT, 1, 0); /* 0s change nothing */
    assert_int_equal(pm.sts, ACPI_PM1_STS_TMR);
    vacpi_pm_write(&pm, ACPI_PM1_EVT_PORT + 2, 2, 0x0121); /* PM1_EN: storage */
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM1_EVT_PORT + 2, 2, 0), 0x0121);
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM1_EVT_PORT, 4, 0), 0x01210000u | ACPI_PM1_STS_TMR);
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM1_EVT_PORT + 3, 1, 0), 0x01);
}

static void test_timer(void **state)
{
    struct vacpi_pm pm;
    vacpi_pm_reset(&pm, TSC_HZ);
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM_TMR_PORT, 4, 0), 0);
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM_TMR_PORT, 4, TSC_HZ),
                     ACPI_PM_TMR_HZ); /* one second */
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM_TMR_PORT, 4, TSC_HZ / 2), ACPI_PM_TMR_HZ / 2);
    /* A day of TSC at 2 GHz: no overflow, wraps at 2^32 as the 32-bit counter does. */
    uint64_t day = 86400ULL * TSC_HZ;
    assert_int_equal(vacpi_pm_timer(&pm, day), (uint32_t)(86400ULL * ACPI_PM_TMR_HZ));
    /* The halves read separately agree with the dword; writes to the timer are ignored. */
    uint64_t t = 123456789ULL;
    uint32_t v = vacpi_pm_read(&pm, ACPI_PM_TMR_PORT, 4, t);
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM_TMR_PORT, 2, t) |
                         (vacpi_pm_read(&pm, ACPI_PM_TMR_PORT + 2, 2, t) << 16),
                     v);
    assert_int_equal(vacpi_pm_write(&pm, ACPI_PM_TMR_PORT, 4, 0), VACPI_PM_NONE);
    assert_int_equal(vacpi_pm_read(&pm, ACPI_PM_TMR_PORT, 4, t), v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reset_and_claims),
        cmocka_unit_test(test_control),
        cmocka_unit_test(test_status_and_enable),
        cmocka_unit_test(test_timer),
    };
    return cmocka_run_group_tests_name("vdev_acpi_pm", tests, NULL, NULL);
}
