/* Interrupt arbitration (vmm/vdev/virq.c): the 8259's ExtINT through LINT0 goes first and
 * ignores the APIC's TPR and ISR; a masked or non-ExtINT LINT0 keeps the PIC out; the APIC's
 * own interrupts follow; acknowledging takes from the right controller. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "vmm/vdev/virq.h"

#define M_TPR  0x808u
#define M_EOI  0x80Bu
#define M_LVT0 0x835u

static struct vlapic l;
static struct vpic p;

static int setup(void **state)
{
    (void)state;
    vlapic_reset(&l, 1);
    vpic_reset(&p);
    /* Linux's init_8259A with IRQ 4 unmasked */
    const uint8_t seq[][2] = { { 0x20, 0x11 }, { 0x21, 0x30 }, { 0x21, 0x04 }, { 0x21, 0x01 },
                               { 0xA0, 0x11 }, { 0xA1, 0x38 }, { 0xA1, 0x02 }, { 0xA1, 0x01 },
                               { 0x21, 0xEB }, { 0xA1, 0xFF } };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
        vpic_write(&p, seq[i][0], seq[i][1]);
    return 0;
}

static void test_nothing(void **state)
{
    (void)state;
    assert_int_equal(virq_next(&l, &p), VIRQ_NONE);
    assert_int_equal(virq_ack(&l, &p), -1);
}

static void test_extint_first_and_past_tpr(void **state)
{
    (void)state;
    vlapic_accept(&l, 0xEC);
    vpic_set_irq(&p, 4, true);
    assert_int_equal(vlapic_wrmsr(&l, M_TPR, 0xF0, 0), VLAPIC_OK); /* blocks every APIC class */
    assert_int_equal(virq_next(&l, &p), VIRQ_PIC);
    assert_int_equal(virq_ack(&l, &p), 0x34);
    assert_int_equal(virq_next(&l, &p), VIRQ_NONE); /* 0xEC is behind the TPR */
    assert_int_equal(vlapic_wrmsr(&l, M_TPR, 0, 0), VLAPIC_OK);
    assert_int_equal(virq_next(&l, &p), VIRQ_LAPIC);
    assert_int_equal(virq_ack(&l, &p), 0xEC);
    /* the ExtINT never entered the APIC's ISR: one EOI ends 0xEC and nothing else is there */
    assert_int_equal(vlapic_ppr(&l), 0xE0);
    assert_int_equal(vlapic_wrmsr(&l, M_EOI, 0, 0), VLAPIC_OK);
    assert_int_equal(vlapic_ppr(&l), 0);
}

static void test_lint0_masked_or_fixed_keeps_pic_out(void **state)
{
    (void)state;
    vpic_set_irq(&p, 4, true);
    assert_int_equal(vlapic_wrmsr(&l, M_LVT0, 0x10700, 0), VLAPIC_OK);
    assert_int_equal(virq_next(&l, &p), VIRQ_NONE);
    assert_int_equal(vlapic_wrmsr(&l, M_LVT0, 0x00030, 0), VLAPIC_OK);
    assert_int_equal(virq_next(&l, &p), VIRQ_NONE);
    assert_int_equal(vlapic_wrmsr(&l, M_LVT0, 0x00700, 0), VLAPIC_OK);
    assert_int_equal(virq_next(&l, &p), VIRQ_PIC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_nothing, setup),
        cmocka_unit_test_setup(test_extint_first_and_past_tpr, setup),
        cmocka_unit_test_setup(test_lint0_masked_or_fixed_keeps_pic_out, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
