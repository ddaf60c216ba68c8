/* The guest console: the hypervisor emulates a 16550 UART at TESSERA_GUEST_CONSOLE_PORT for each
 * guest and keeps what it transmits in that guest's ring buffer (shell `console <vm>`).  Polled,
 * as a driver for a real 16550 would be with interrupts off; the UART is not programmed (baud
 * rate and line settings mean nothing to the emulation). */
#include "guests/lib/guest.h"
#include "guests/lib/x86.h"

/* 16550 registers and line-status bits (PC16550D datasheet, Table 2 and §8.6.3). */
#define UART_RBR      0    /* receive buffer (read, DLAB = 0) */
#define UART_THR      0    /* transmit holding register (write, DLAB = 0) */
#define UART_LSR      5    /* line status */
#define UART_LSR_DR   0x01 /* a received byte is waiting in RBR */
#define UART_LSR_THRE 0x20 /* THR is empty: the next byte may be written */

/* Each LSR read is a VM exit; an emulated UART is ready at once, and a wedged one must not hang
 * the guest, so the wait is bounded and the byte goes out anyway. */
#define THRE_POLL_LIMIT 100000

static void put_raw(char c)
{
    for (unsigned n = 0; n < THRE_POLL_LIMIT; n++)
        if (x86_inb(TESSERA_GUEST_CONSOLE_PORT + UART_LSR) & UART_LSR_THRE)
            break;
    x86_outb(TESSERA_GUEST_CONSOLE_PORT + UART_THR, (uint8_t)c);
}

void guest_console_putc(char c)
{
    if (c == '\n')
        put_raw('\r');
    put_raw(c);
}

void guest_console_write(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        guest_console_putc(s[i]);
}

void guest_console_puts(const char *s)
{
    while (*s)
        guest_console_putc(*s++);
}

void guest_console_put_hex(uint64_t v)
{
    char buf[2 + 16 + 1];
    char *p = buf + sizeof(buf) - 1;
    *p = '\0';
    do {
        *--p = "0123456789abcdef"[v & 0xf];
        v >>= 4;
    } while (v);
    *--p = 'x';
    *--p = '0';
    guest_console_puts(p);
}

void guest_console_put_dec(uint64_t v)
{
    char buf[21];
    char *p = buf + sizeof(buf) - 1;
    *p = '\0';
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    guest_console_puts(p);
}

int guest_console_getc(void)
{
    if (!(x86_inb(TESSERA_GUEST_CONSOLE_PORT + UART_LSR) & UART_LSR_DR))
        return -1;
    return x86_inb(TESSERA_GUEST_CONSOLE_PORT + UART_RBR);
}
