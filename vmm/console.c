#include "vmm/console.h"

#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"
#include "arch/x86/spinlock.h"
#include "arch/x86/uart.h"

#include <string.h>

static bool have_uart;
static char tx[CONSOLE_TX_BYTES];
static size_t tx_head, tx_tail; /* bytes ever queued / ever sent */
static struct spinlock tx_lock; /* the ring, between CPUs */

bool console_init(void)
{
    have_uart = uart_init(COM1_PORT, 115200);
    return have_uart;
}

/* The ring is shared with the tick's interrupt handler and with the other CPUs: touch it with
 * interrupts off and the lock held. */
static uint64_t ring_lock(void)
{
    uint64_t flags = read_rflags();
    irq_disable();
    spin_lock(&tx_lock);
    return flags;
}

static void ring_unlock(uint64_t flags)
{
    spin_unlock(&tx_lock);
    if (flags & RFLAGS_IF)
        irq_enable();
}

static void drain(void)
{
    if (tx_tail == tx_head || !uart_tx_empty(COM1_PORT))
        return;
    for (unsigned n = 0; n < UART_FIFO_BYTES && tx_tail != tx_head; n++)
        uart_put_nowait(COM1_PORT, tx[tx_tail++ % CONSOLE_TX_BYTES]);
}

/* From the tick's interrupt handler: a CPU writing now drains the ring itself. */
void console_tx_poll(void)
{
    if (!have_uart || !spin_trylock(&tx_lock))
        return;
    drain();
    spin_unlock(&tx_lock);
}

static void queue(char c)
{
    while (tx_head - tx_tail == CONSOLE_TX_BYTES) {
        drain(); /* full: wait for the UART, the only case that blocks */
        cpu_pause();
    }
    tx[tx_head++ % CONSOLE_TX_BYTES] = c;
}

/* Queues text, "\n" as "\r\n", and starts sending it; with interrupts off. */
static void queue_text(const char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '\n')
            queue('\r');
        queue(buf[i]);
    }
    drain();
}

void console_write(const char *buf, size_t len)
{
    if (!have_uart)
        return;
    uint64_t f = ring_lock();
    queue_text(buf, len);
    ring_unlock(f);
}

bool console_write_nowait(const char *buf, size_t len)
{
    if (!have_uart)
        return true;
    size_t need = len;
    for (size_t i = 0; i < len; i++)
        need += buf[i] == '\n';
    uint64_t f = ring_lock();
    bool room = CONSOLE_TX_BYTES - (tx_head - tx_tail) >= need;
    if (room)
        queue_text(buf, len);
    ring_unlock(f);
    return room;
}

void console_puts(const char *s)
{
    console_write(s, strlen(s));
}

void console_flush(void)
{
    if (!have_uart)
        return;
    uint64_t f = ring_lock();
    while (tx_tail != tx_head) {
        drain();
        cpu_pause();
    }
    ring_unlock(f);
}

int console_getc(void)
{
    return have_uart ? uart_getc(COM1_PORT) : -1;
}

bool console_input_waiting(void)
{
    return have_uart && uart_rx_ready(COM1_PORT);
}
