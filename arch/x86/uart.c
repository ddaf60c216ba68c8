/* 16550 driver for the operator's serial console: polled, because the shell polls on every
 * timer tick and output must work from the first line of boot and from exception handlers. */
#include "arch/x86/uart.h"
#include "arch/x86/cpu.h"

bool uart_init(uint16_t port, uint32_t baud)
{
    /* A missing UART reads back 0xFF; the scratch register tells us one is there. */
    outb(port + UART_SCR, 0x5A);
    if (inb(port + UART_SCR) != 0x5A)
        return false;
    uint16_t div = (uint16_t)(UART_CLOCK_HZ / baud);
    outb(port + UART_IER, 0);
    outb(port + UART_LCR, UART_LCR_DLAB);
    outb(port + UART_DLL, div & 0xFF);
    outb(port + UART_DLM, div >> 8);
    outb(port + UART_LCR, UART_LCR_8N1);
    outb(port + UART_FCR, UART_FCR_ENABLE | UART_FCR_CLEAR);
    outb(port + UART_MCR, UART_MCR_DTR | UART_MCR_RTS | UART_MCR_OUT2);
    return true;
}

void uart_putc(uint16_t port, char c)
{
    /* Bounded wait: a wedged UART must not hang the hypervisor forever. */
    for (unsigned spins = 0; spins < 1000000 && !(inb(port + UART_LSR) & UART_LSR_THRE); spins++)
        cpu_pause();
    outb(port + UART_THR, (uint8_t)c);
}

bool uart_rx_ready(uint16_t port)
{
    return inb(port + UART_LSR) & UART_LSR_DR;
}

int uart_getc(uint16_t port)
{
    return uart_rx_ready(port) ? inb(port + UART_RBR) : -1;
}

bool uart_tx_empty(uint16_t port)
{
    return inb(port + UART_LSR) & UART_LSR_THRE;
}

void uart_put_nowait(uint16_t port, char c)
{
    outb(port + UART_THR, (uint8_t)c);
}
