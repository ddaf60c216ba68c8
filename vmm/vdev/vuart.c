/* The virtual 16550 (see vuart.h).  Register and bit names: arch/x86/uart.h (PC16550D). */
#include "vmm/vdev/vuart.h"

#include "arch/x86/uart.h"

#include <stdlib.h>
#include <string.h>

bool vuart_init(struct vuart *u)
{
    memset(u, 0, sizeof *u);
    u->ring = malloc(VUART_RING_BYTES);
    return u->ring != NULL;
}

void vuart_reset(struct vuart *u)
{
    u->ier = u->lcr = u->mcr = u->scr = u->dll = u->dlm = 0;
    u->fifo = u->thre_pending = u->line = false;
    u->rx_head = u->rx_count = 0;
}

/* The pending source of highest priority (datasheet Table 4), as IIR bits 3:0. */
static uint8_t interrupt_id(const struct vuart *u)
{
    if ((u->ier & UART_IER_ERBFI) && u->rx_count)
        return UART_IIR_RDA;
    if ((u->ier & UART_IER_ETBEI) && u->thre_pending)
        return UART_IIR_THRE;
    return UART_IIR_NO_INT;
}

/* INTR reaches the PC's interrupt controller only while MCR.OUT2 is set. */
static void update_line(struct vuart *u)
{
    bool level = interrupt_id(u) != UART_IIR_NO_INT && (u->mcr & UART_MCR_OUT2);
    if (level == u->line)
        return;
    u->line = level;
    if (u->set_irq)
        u->set_irq(u->irq_ctx, level);
}

static void emit(struct vuart *u, char c)
{
    u->ring[u->ring_head % VUART_RING_BYTES] = c;
    u->ring_head++;
    if (u->on_output)
        u->on_output(u->ctx, c);
}

static uint8_t read_rbr(struct vuart *u)
{
    if (!u->rx_count)
        return 0;
    uint8_t c = u->rx[u->rx_head];
    u->rx_head = (u->rx_head + 1) % VUART_RX_BYTES;
    u->rx_count--;
    update_line(u);
    return c;
}

static uint8_t read_iir(struct vuart *u)
{
    uint8_t id = interrupt_id(u);
    if (id == UART_IIR_THRE) {
        u->thre_pending = false; /* reading IIR with THRE as the source clears it */
        update_line(u);
    }
    return id | (u->fifo ? UART_IIR_FIFOS : 0);
}

uint8_t vuart_read(struct vuart *u, unsigned reg)
{
    bool dlab = u->lcr & UART_LCR_DLAB;
    switch (reg) {
    case UART_RBR:
        return dlab ? u->dll : read_rbr(u);
    case UART_IER:
        return dlab ? u->dlm : u->ier;
    case UART_IIR:
        return read_iir(u);
    case UART_LCR:
        return u->lcr;
    case UART_MCR:
        return u->mcr;
    case UART_LSR:
        return UART_LSR_THRE | UART_LSR_TEMT | (u->rx_count ? UART_LSR_DR : 0);
    case UART_MSR:
        return VUART_MSR_CABLE;
    case UART_SCR:
        return u->scr;
    }
    return 0xFF;
}

static void write_thr(struct vuart *u, uint8_t v)
{
    /* Writing THR clears THR-empty; the byte leaves at once, so THR is empty again and the
     * interrupt is raised anew: the output drops and rises, an edge for the PIC. */
    u->thre_pending = false;
    update_line(u);
    emit(u, (char)v);
    u->thre_pending = true;
    update_line(u);
}

static void write_ier(struct vuart *u, uint8_t v)
{
    uint8_t old = u->ier;
    u->ier = v & UART_IER_MASK;
    if (!(old & UART_IER_ETBEI) && (u->ier & UART_IER_ETBEI))
        u->thre_pending = true; /* enabling it while THR is empty raises it */
    update_line(u);
}

static void write_fcr(struct vuart *u, uint8_t v)
{
    u->fifo = v & UART_FCR_ENABLE;
    if (v & UART_FCR_CLEAR_RX)
        u->rx_head = u->rx_count = 0;
    update_line(u); /* the transmitter is always empty: CLEAR_TX changes nothing */
}

void vuart_write(struct vuart *u, unsigned reg, uint8_t v)
{
    bool dlab = u->lcr & UART_LCR_DLAB;
    switch (reg) {
    case UART_THR:
        if (dlab)
            u->dll = v;
        else
            write_thr(u, v);
        break;
    case UART_IER:
        if (dlab)
            u->dlm = v;
        else
            write_ier(u, v);
        break;
    case UART_FCR:
        write_fcr(u, v);
        break;
    case UART_LCR:
        u->lcr = v;
        break;
    case UART_MCR:
        u->mcr = v & UART_MCR_MASK;
        update_line(u);
        break;
    case UART_SCR:
        u->scr = v;
        break;
    default:
        break; /* LSR and MSR are read-only */
    }
}

bool vuart_push_input(struct vuart *u, uint8_t c)
{
    if (u->rx_count == VUART_RX_BYTES)
        return false;
    u->rx[(u->rx_head + u->rx_count) % VUART_RX_BYTES] = c;
    u->rx_count++;
    update_line(u);
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
