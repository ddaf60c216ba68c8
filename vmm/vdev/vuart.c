#include "vmm/vdev/vuart.h"

#include "arch/x86/uart.h"

#include <stdlib.h>
#include <string.h>

#define LSR_TEMT 0x40               /* transmitter empty (datasheet: LSR bit 6) */

bool vuart_init(struct vuart *u)
{
    memset(u, 0, sizeof *u);
    u->ring = malloc(VUART_RING_BYTES);
    return u->ring != NULL;
}

void vuart_reset(struct vuart *u)
{
    u->ier = u->lcr = u->mcr = u->scr = u->dll = u->dlm = 0;
    u->rx_head = u->rx_count = 0;
}

static void emit(struct vuart *u, char c)
{
    u->ring[u->ring_head % VUART_RING_BYTES] = c;
    u->ring_head++;
    if (u->on_output)
        u->on_output(u->ctx, c);
}

uint8_t vuart_read(struct vuart *u, unsigned reg)
{
    bool dlab = u->lcr & UART_LCR_DLAB;
    switch (reg) {
    case UART_RBR:
        if (dlab)
            return u->dll;
        if (!u->rx_count)
            return 0;
        {
            uint8_t c = u->rx[u->rx_head];
            u->rx_head = (u->rx_head + 1) % VUART_RX_BYTES;
            u->rx_count--;
            return c;
        }
    case UART_IER: return dlab ? u->dlm : u->ier;
    case UART_IIR: return UART_IIR_NO_INT;          /* no interrupts are ever pending */
    case UART_LCR: return u->lcr;
    case UART_MCR: return u->mcr;
    case UART_LSR: return UART_LSR_THRE | LSR_TEMT | (u->rx_count ? UART_LSR_DR : 0);
    case UART_MSR: return 0xB0;                     /* CTS, DSR, DCD: a cable is attached */
    case UART_SCR: return u->scr;
    }
    return 0xFF;
}

void vuart_write(struct vuart *u, unsigned reg, uint8_t v)
{
    bool dlab = u->lcr & UART_LCR_DLAB;
    switch (reg) {
    case UART_THR:
        if (dlab) u->dll = v;
        else emit(u, (char)v);
        break;
    case UART_IER:
        if (dlab) u->dlm = v;
        else u->ier = v & 0x0F;
        break;
    case UART_FCR:
        if (v & UART_FCR_CLEAR)
            u->rx_head = u->rx_count = 0;
        break;
    case UART_LCR: u->lcr = v; break;
    case UART_MCR: u->mcr = v; break;
    case UART_SCR: u->scr = v; break;
    default: break;                                 /* LSR and MSR are read-only */
    }
}

bool vuart_push_input(struct vuart *u, uint8_t c)
{
    if (u->rx_count == VUART_RX_BYTES)
        return false;
    u->rx[(u->rx_head + u->rx_count) % VUART_RX_BYTES] = c;
    u->rx_count++;
    return true;
}

void vuart_replay(const struct vuart *u, void (*out)(const char *s, size_t n, void *ctx), void *ctx)
{
    size_t n = u->ring_head < VUART_RING_BYTES ? u->ring_head : VUART_RING_BYTES;
    size_t start = (u->ring_head - n) % VUART_RING_BYTES;
    size_t first = VUART_RING_BYTES - start < n ? VUART_RING_BYTES - start : n;
    out(u->ring + start, first, ctx);
    if (first < n)
        out(u->ring, n - first, ctx);
}
