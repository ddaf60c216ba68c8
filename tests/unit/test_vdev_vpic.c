/* The virtual 8259A pair (vmm/vdev/vpic.c): Linux's own programming sequences (init_8259A,
 * probe_8259A, mask_and_ack_8259A, i8259A_irq_real from arch/x86/kernel/i8259.c, 6.1), edge
 * latching, masks, priority and rotation, specific and non-specific EOI, auto-EOI, the cascade,
 * OCW3 reads and poll, special mask mode, ELCR storage, and the spurious IR7.  Port numbers and
 * command bytes are written out as the 8259A datasheet and Linux give them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "vmm/vdev/vpic.h"

static struct vpic p;

static void out(uint16_t port, uint8_t v)
{
    vpic_write(&p, port, v);
}
static uint8_t in(uint16_t port)
{
    return vpic_read(&p, port);
}

/* arch/x86/kernel/i8259.c init_8259A(auto_eoi): vectors 0x30-0x3F, slave on IR2. */
static void linux_init(bool auto_eoi)
{
    out(0x21, 0xFF);
    out(0xA1, 0xFF);
    out(0x20, 0x11);                   /* ICW1: edge, cascade, ICW4 */
    out(0x21, 0x30);                   /* ICW2 */
    out(0x21, 0x04);                   /* ICW3: slave on IR2 */
    out(0x21, auto_eoi ? 0x03 : 0x01); /* ICW4 */
    out(0xA0, 0x11);
    out(0xA1, 0x38);
    out(0xA1, 0x02); /* ICW3: cascade identity 2 */
    out(0xA1, 0x01);
    out(0x21, 0xFB); /* everything masked but the cascade */
    out(0xA1, 0xFF);
}

/* mask_and_ack_8259A(irq) then the handler's unmask: Linux's edge path for a PIC IRQ. */
static void linux_mask_and_ack(unsigned irq)
{
    if (irq & 8) {
        in(0xA1);
        out(0xA1, in(0xA1) | (uint8_t)(1u << (irq & 7)));
        out(0xA0, (uint8_t)(0x60 + (irq & 7))); /* specific EOI to the slave */
        out(0x20, 0x62);                        /* and to the master for IR2 */
    } else {
        in(0x21);
        out(0x21, in(0x21) | (uint8_t)(1u << irq));
        out(0x20, (uint8_t)(0x60 + irq));
    }
}

static void unmask(unsigned irq)
{
    uint16_t port = irq & 8 ? 0xA1 : 0x21;
    out(port, in(port) & (uint8_t) ~(1u << (irq & 7)));
}

static void pulse(unsigned irq)
{
    vpic_set_irq(&p, irq, true);
    vpic_set_irq(&p, irq, false);
}

static int setup(void **state)
{
    (void)state;
    memset(&p, 0x5A, sizeof p);
    vpic_reset(&p);
    return 0;
}

static void test_reset_masks_everything(void **state)
{
    (void)state;
    assert_int_equal(in(0x21), 0xFF);
    assert_int_equal(in(0xA1), 0xFF);
    pulse(4);
    assert_false(vpic_pending(&p));
}

static void test_ports(void **state)
{
    (void)state;
    const uint16_t mine[] = { 0x20, 0x21, 0xA0, 0xA1, 0x4D0, 0x4D1 };
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        assert_true(vpic_claims_port(mine[i]));
    assert_false(vpic_claims_port(0x22));
    assert_false(vpic_claims_port(0x40));
    assert_false(vpic_claims_port(0x3F8));
}

/* probe_8259A(): IMR writes read back before any ICW (else Linux uses null_legacy_pic). */
static void test_linux_probe(void **state)
{
    (void)state;
    out(0xA1, 0xFF);
    out(0x21, 0xFB);
    assert_int_equal(in(0x21), 0xFB);
    linux_init(false);
    assert_int_equal(in(0x21), 0xFB);
    assert_int_equal(in(0xA1), 0xFF);
}

static void test_linux_irq4_cycle(void **state)
{
    (void)state;
    linux_init(false);
    unmask(4);
    assert_false(vpic_pending(&p));
    vpic_set_irq(&p, 4, true);
    assert_true(vpic_pending(&p));
    assert_int_equal(vpic_ack(&p), 0x34);
    assert_false(vpic_pending(&p));
    /* i8259A_irq_real: OCW3 read ISR, then back to IRR */
    out(0x20, 0x0B);
    assert_int_equal(in(0x20), 0x10);
    out(0x20, 0x0A);
    assert_int_equal(in(0x20), 0x00);
    linux_mask_and_ack(4);
    out(0x20, 0x0B);
    assert_int_equal(in(0x20), 0x00);
    out(0x20, 0x0A);
    /* the line is still high: no new request until it drops and rises */
    unmask(4);
    assert_false(vpic_pending(&p));
    vpic_set_irq(&p, 4, false);
    vpic_set_irq(&p, 4, true);
    assert_true(vpic_pending(&p));
}

/* A request that arrives while masked is latched and delivered on unmask. */
static void test_masked_request_latched(void **state)
{
    (void)state;
    linux_init(false);
    pulse(4);
    assert_false(vpic_pending(&p));
    assert_int_equal(in(0x20), 0x10); /* IRR shows it */
    unmask(4);
    assert_int_equal(vpic_ack(&p), 0x34);
}

static void test_priority_and_nesting(void **state)
{
    (void)state;
    linux_init(false);
    out(0x21, 0x00);
    pulse(4);
    pulse(1);
    assert_int_equal(vpic_ack(&p), 0x31); /* IR1 before IR4 */
    assert_false(vpic_pending(&p));       /* IR4 waits behind IR1 in service */
    pulse(0);
    assert_int_equal(vpic_ack(&p), 0x30); /* IR0 nests above IR1 */
    out(0x20, 0x20);                      /* non-specific EOI: ends IR0 */
    out(0x20, 0x0B);
    assert_int_equal(in(0x20), 0x02);
    out(0x20, 0x20); /* ends IR1 */
    assert_int_equal(vpic_ack(&p), 0x34);
}

static void test_cascade(void **state)
{
    (void)state;
    linux_init(false);
    unmask(12);
    vpic_set_irq(&p, 12, true);
    assert_true(vpic_pending(&p));
    assert_int_equal(in(0x20) & 0x04, 0x04); /* master IRR shows IR2 */
    assert_int_equal(vpic_ack(&p), 0x3C);
    out(0x20, 0x0B);
    out(0xA0, 0x0B);
    assert_int_equal(in(0x20), 0x04);
    assert_int_equal(in(0xA0), 0x10);
    linux_mask_and_ack(12);
    assert_int_equal(in(0x20), 0x00);
    assert_int_equal(in(0xA0), 0x00);
    /* a masked slave input does not reach the master */
    vpic_set_irq(&p, 12, false);
    pulse(12);
    assert_false(vpic_pending(&p));
    unmask(12);
    assert_int_equal(vpic_ack(&p), 0x3C);
}

static void test_auto_eoi(void **state)
{
    (void)state;
    linux_init(true);
    unmask(4);
    unmask(3);
    pulse(4);
    assert_int_equal(vpic_ack(&p), 0x34);
    out(0x20, 0x0B);
    assert_int_equal(in(0x20), 0x00); /* nothing stays in service */
    pulse(4);
    assert_int_equal(vpic_ack(&p), 0x34);
}

static void test_specific_eoi_and_rotation(void **state)
{
    (void)state;
    linux_init(false);
    out(0x21, 0x00);
    pulse(3);
    pulse(5);
    assert_int_equal(vpic_ack(&p), 0x33);
    out(0x20, 0x63); /* specific EOI for IR3 */
    assert_int_equal(vpic_ack(&p), 0x35);
    out(0x20, 0xA0); /* rotate on non-specific EOI: IR5 lowest */
    pulse(5);
    pulse(6);
    assert_int_equal(vpic_ack(&p), 0x36); /* IR6 now has the highest priority */
    out(0x20, 0xE6);                      /* rotate on specific EOI: IR6 lowest */
    assert_int_equal(vpic_ack(&p), 0x35);
    out(0x20, 0x20);
    out(0x20, 0xC7); /* set priority: IR7 lowest, IR0 highest */
    pulse(7);
    pulse(0);
    assert_int_equal(vpic_ack(&p), 0x30);
}

static void test_rotate_in_auto_eoi(void **state)
{
    (void)state;
    linux_init(true);
    out(0x21, 0x00);
    out(0x20, 0x80); /* set rotate in auto-EOI */
    pulse(1);
    assert_int_equal(vpic_ack(&p), 0x31); /* IR1 becomes lowest */
    pulse(1);
    pulse(3);
    assert_int_equal(vpic_ack(&p), 0x33);
}

static void test_poll(void **state)
{
    (void)state;
    linux_init(false);
    out(0x21, 0x00);
    out(0x20, 0x0C);                  /* OCW3 poll */
    assert_int_equal(in(0x20), 0x00); /* nothing pending */
    pulse(5);
    out(0x20, 0x0C);
    assert_int_equal(in(0x20), 0x85);
    out(0x20, 0x0B);
    assert_int_equal(in(0x20), 0x20); /* the poll put IR5 in service */
}

static void test_special_mask_mode(void **state)
{
    (void)state;
    linux_init(false);
    out(0x21, 0x00);
    pulse(3);
    assert_int_equal(vpic_ack(&p), 0x33);
    pulse(5);
    assert_false(vpic_pending(&p)); /* behind IR3 in service */
    out(0x21, 0x08);                /* mask IR3 ... */
    out(0x20, 0x68);                /* ... and set special mask mode */
    assert_true(vpic_pending(&p));
    assert_int_equal(vpic_ack(&p), 0x35);
    out(0x20, 0x48); /* reset special mask mode */
}

static void test_icw1_resets(void **state)
{
    (void)state;
    linux_init(false);
    out(0x21, 0x00);
    pulse(4);
    vpic_set_irq(&p, 6, true);
    assert_int_equal(vpic_ack(&p), 0x34);
    out(0x20, 0x11); /* re-initialise */
    out(0x21, 0x50);
    out(0x21, 0x04);
    out(0x21, 0x01);
    assert_int_equal(in(0x21), 0x00); /* IMR cleared */
    out(0x20, 0x0B);
    assert_int_equal(in(0x20), 0x00); /* ISR cleared */
    out(0x20, 0x0A);
    assert_int_equal(in(0x20), 0x00); /* IRR cleared */
    assert_false(vpic_pending(&p));   /* IR6 still high: needs a new edge */
    vpic_set_irq(&p, 6, false);
    vpic_set_irq(&p, 6, true);
    assert_int_equal(vpic_ack(&p), 0x56);
}

static void test_single_mode_no_icw3(void **state)
{
    (void)state;
    out(0x20, 0x13); /* single, ICW4 */
    out(0x21, 0x40);
    out(0x21, 0x01); /* ICW4 at once, no ICW3 */
    out(0x21, 0xFE); /* OCW1: IR0 unmasked */
    assert_int_equal(in(0x21), 0xFE);
    pulse(0);
    assert_int_equal(vpic_ack(&p), 0x40);
}

static void test_spurious_ir7(void **state)
{
    (void)state;
    linux_init(false);
    assert_int_equal(vpic_ack(&p), 0x37);
    out(0x20, 0x0B);
    assert_int_equal(in(0x20), 0x00); /* a spurious IR7 is not put in service */
}

static void test_elcr_storage(void **state)
{
    (void)state;
    out(0x4D0, 0xFF);
    out(0x4D1, 0xFF);
    assert_int_equal(in(0x4D0), 0xF8); /* IRQ 0-2 are always edge */
    assert_int_equal(in(0x4D1), 0xDE); /* IRQ 8 and 13 too */
}

static void test_bad_irq_ignored(void **state)
{
    (void)state;
    linux_init(false);
    out(0x21, 0x00);
    out(0xA1, 0x00);
    vpic_set_irq(&p, 16, true);
    vpic_set_irq(&p, 1000, true);
    assert_false(vpic_pending(&p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_reset_masks_everything, setup),
        cmocka_unit_test_setup(test_ports, setup),
        cmocka_unit_test_setup(test_linux_probe, setup),
        cmocka_unit_test_setup(test_linux_irq4_cycle, setup),
        cmocka_unit_test_setup(test_masked_request_latched, setup),
        cmocka_unit_test_setup(test_priority_and_nesting, setup),
        cmocka_unit_test_setup(test_cascade, setup),
        cmocka_unit_test_setup(test_auto_eoi, setup),
        cmocka_unit_test_setup(test_specific_eoi_and_rotation, setup),
        cmocka_unit_test_setup(test_rotate_in_auto_eoi, setup),
        cmocka_unit_test_setup(test_poll, setup),
        cmocka_unit_test_setup(test_special_mask_mode, setup),
        cmocka_unit_test_setup(test_icw1_resets, setup),
        cmocka_unit_test_setup(test_single_mode_no_icw3, setup),
        cmocka_unit_test_setup(test_spurious_ir7, setup),
        cmocka_unit_test_setup(test_elcr_storage, setup),
        cmocka_unit_test_setup(test_bad_irq_ignored, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
