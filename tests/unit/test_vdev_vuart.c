/* The virtual 16550's interrupt logic (vmm/vdev/vuart.c): IIR priorities and values, THR-empty
 * raised by THR writes and by enabling ETBEI and cleared by reading IIR, received-data
 * interrupts, FIFO bits in IIR, the OUT2 gate on the output line, every edge passed to the
 * wiring, Linux 8250's start-up THRE test, and the polling behaviour the unikernel guests keep
 * using.  Register offsets and values are written out as the PC16550D datasheet gives them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/vdev/vuart.h"

static struct vuart u;
static char edges[64]; /* '1' rise, '0' fall, in order */
static size_t n_edges;
static char output[64];
static size_t n_output;

static void set_irq(void *ctx, bool level)
{
    assert_ptr_equal(ctx, &u);
    if (n_edges < sizeof edges - 1)
        edges[n_edges++] = level ? '1' : '0';
    edges[n_edges] = 0;
}

static void on_output(void *ctx, char c)
{
    if (n_output < sizeof output - 1)
        output[n_output++] = c;
}

static int setup(void **state)
{
    (void)state;
    assert_true(vuart_init(&u));
    u.set_irq = set_irq;
    u.irq_ctx = &u;
    u.on_output = on_output;
    n_edges = n_output = 0;
    edges[0] = 0;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(u.ring);
    return 0;
}

static void test_polling_driver_sees_no_interrupts(void **state)
{
    (void)state;
    assert_int_equal(vuart_read(&u, 2), 0x01); /* IIR: none pending */
    assert_int_equal(vuart_read(&u, 5), 0x60); /* LSR: THRE | TEMT */
    vuart_write(&u, 0, 'h');
    vuart_write(&u, 0, 'i');
    assert_true(vuart_push_input(&u, 'x'));
    assert_int_equal(vuart_read(&u, 5), 0x61); /* DR */
    assert_int_equal(vuart_read(&u, 0), 'x');
    assert_int_equal(vuart_read(&u, 5), 0x60);
    assert_int_equal(vuart_read(&u, 2), 0x01);
    assert_string_equal(edges, "");
    assert_int_equal(n_output, 2);
    assert_memory_equal(output, "hi", 2);
    assert_int_equal(vuart_read(&u, 6), 0xB0); /* MSR: cable attached */
}

static void test_thre_interrupt(void **state)
{
    (void)state;
    vuart_write(&u, 4, 0x08); /* MCR: OUT2 */
    vuart_write(&u, 1, 0x02); /* IER: ETBEI, THR is empty */
    assert_string_equal(edges, "1");
    assert_int_equal(vuart_read(&u, 2), 0x02); /* IIR: THR empty; reading clears it */
    assert_string_equal(edges, "10");
    assert_int_equal(vuart_read(&u, 2), 0x01);
    vuart_write(&u, 0, 'a'); /* sent at once: empty again */
    assert_string_equal(edges, "101");
    vuart_write(&u, 0, 'b'); /* a fresh edge per byte */
    assert_string_equal(edges, "10101");
    vuart_write(&u, 1, 0x00); /* disabling drops the line */
    assert_string_equal(edges, "101010");
    assert_int_equal(vuart_read(&u, 2), 0x01);
    vuart_write(&u, 1, 0x02); /* 0 -> 1 while empty raises it again */
    assert_string_equal(edges, "1010101");
}

/* serial8250_do_startup(): enable THRI, read IIR, disable, again; a UART that does not raise
 * THRE both times gets UART_BUG_THRE. */
static void test_linux_thre_probe(void **state)
{
    (void)state;
    vuart_write(&u, 1, 0x02);
    uint8_t iir1 = vuart_read(&u, 2);
    vuart_write(&u, 1, 0x00);
    vuart_write(&u, 1, 0x02);
    uint8_t iir2 = vuart_read(&u, 2);
    vuart_write(&u, 1, 0x00);
    assert_int_equal(iir1, 0x02);
    assert_int_equal(iir2, 0x02);
}

static void test_receive_interrupt_and_priority(void **state)
{
    (void)state;
    vuart_write(&u, 4, 0x0B); /* DTR, RTS, OUT2 */
    vuart_write(&u, 1, 0x03); /* ERBFI | ETBEI */
    assert_string_equal(edges, "1");
    vuart_push_input(&u, 'k');
    vuart_push_input(&u, 'm');
    assert_int_equal(vuart_read(&u, 2), 0x04); /* received data outranks THR empty */
    assert_int_equal(vuart_read(&u, 2), 0x04); /* and reading IIR does not clear it */
    assert_int_equal(vuart_read(&u, 0), 'k');
    assert_int_equal(vuart_read(&u, 2), 0x04);
    assert_int_equal(vuart_read(&u, 0), 'm');
    assert_int_equal(vuart_read(&u, 2), 0x02); /* then THR empty shows */
    assert_int_equal(vuart_read(&u, 2), 0x01);
    assert_string_equal(edges, "10"); /* the line stayed high until then */
    vuart_push_input(&u, 'z');
    assert_string_equal(edges, "101");
    assert_int_equal(vuart_read(&u, 0), 'z');
    assert_string_equal(edges, "1010");
}

static void test_out2_gates_the_line(void **state)
{
    (void)state;
    vuart_write(&u, 1, 0x01); /* ERBFI, OUT2 still clear */
    vuart_push_input(&u, 'q');
    assert_int_equal(vuart_read(&u, 2), 0x04); /* pending in IIR ... */
    assert_string_equal(edges, "");            /* ... but not on the PIC's input */
    vuart_write(&u, 4, 0x08);
    assert_string_equal(edges, "1");
    vuart_write(&u, 4, 0x00);
    assert_string_equal(edges, "10");
}

static void test_fifo_bits_and_clear(void **state)
{
    (void)state;
    vuart_write(&u, 2, 0x01); /* FCR: enable FIFOs */
    assert_int_equal(vuart_read(&u, 2), 0xC1);
    vuart_write(&u, 4, 0x08);
    vuart_write(&u, 1, 0x01);
    vuart_push_input(&u, '1');
    vuart_push_input(&u, '2');
    assert_int_equal(vuart_read(&u, 2), 0xC4);
    vuart_write(&u, 2, 0x03); /* clear the receive FIFO */
    assert_int_equal(vuart_read(&u, 5) & 0x01, 0);
    assert_int_equal(vuart_read(&u, 2), 0xC1);
    assert_string_equal(edges, "10");
    vuart_write(&u, 2, 0x00);
    assert_int_equal(vuart_read(&u, 2), 0x01);
}

static void test_divisor_latch_is_not_data(void **state)
{
    (void)state;
    vuart_write(&u, 4, 0x08);
    vuart_write(&u, 3, 0x80); /* LCR: DLAB */
    vuart_write(&u, 0, 0x01); /* DLL */
    vuart_write(&u, 1, 0x02); /* DLM, not IER */
    assert_int_equal(vuart_read(&u, 0), 0x01);
    assert_int_equal(vuart_read(&u, 1), 0x02);
    vuart_write(&u, 3, 0x03);
    assert_int_equal(vuart_read(&u, 1), 0x00); /* IER untouched */
    assert_int_equal(n_output, 0);
    assert_string_equal(edges, "");
}

static void test_rx_fifo_full(void **state)
{
    (void)state;
    for (unsigned i = 0; i < VUART_RX_BYTES; i++)
        assert_true(vuart_push_input(&u, (uint8_t)i));
    assert_false(vuart_push_input(&u, 0xFF));
    for (unsigned i = 0; i < VUART_RX_BYTES; i++)
        assert_int_equal(vuart_read(&u, 0), (uint8_t)i);
    assert_int_equal(vuart_read(&u, 0), 0); /* empty RBR reads 0 */
}

static void test_reset_keeps_wiring_and_history(void **state)
{
    (void)state;
    vuart_write(&u, 4, 0x08);
    vuart_write(&u, 1, 0x02);
    vuart_write(&u, 0, 'x');
    vuart_reset(&u);
    assert_int_equal(vuart_read(&u, 1), 0);
    assert_int_equal(vuart_read(&u, 2), 0x01);
    assert_false(u.line);
    assert_ptr_equal(u.set_irq, set_irq);
    assert_int_equal(u.ring_head, 1);
    vuart_write(&u, 4, 0x08);
    size_t before = n_edges;
    vuart_write(&u, 1, 0x02);
    assert_int_equal(n_edges, before + 1);
    assert_int_equal(edges[n_edges - 1], '1');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_polling_driver_sees_no_interrupts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_thre_interrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_linux_thre_probe, setup, teardown),
        cmocka_unit_test_setup_teardown(test_receive_interrupt_and_priority, setup, teardown),
        cmocka_unit_test_setup_teardown(test_out2_gates_the_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fifo_bits_and_clear, setup, teardown),
        cmocka_unit_test_setup_teardown(test_divisor_latch_is_not_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rx_fifo_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reset_keeps_wiring_and_history, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
