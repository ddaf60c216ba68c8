/* A guest's virtual 16550 at COM1: what it writes goes to a 64 KiB ring (shell `console <vm>`
 * shows it, earlier output included); what the operator types while attached is its input.
 * Pure: no hardware access.
 *
 * Registers follow the PC16550D datasheet, with its interrupt semantics: IIR names the
 * highest-priority pending source (received data > THR empty; line-status and modem-status
 * interrupts never occur, as no line errors or modem-line changes are emulated), "THR empty" is
 * raised after every THR write (output is instant) and when IER.ETBEI goes from 0 to 1, and is
 * cleared by reading IIR while it is the source or by writing THR; IIR bits 7:6 are set while
 * FCR enables the FIFOs.  The interrupt output, gated by MCR.OUT2 as the PC wires it, is passed
 * to set_irq() on every change (the glue drives the guest's PIC IRQ 4 with it).  A driver that
 * polls LSR with IER = 0 sees no interrupts at all.  The receive FIFO holds VUART_RX_BYTES
 * whether or not FCR enables FIFOs. */
#ifndef TESSERA_VMM_VUART_H
#define TESSERA_VMM_VUART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VUART_RING_BYTES 65536
#define VUART_RX_BYTES   64
#define VUART_MSR_CABLE  0xB0 /* MSR: DCD, DSR, CTS (a cable is attached), no deltas */

struct vuart {
    uint8_t ier, lcr, mcr, scr, dll, dlm;
    bool fifo;         /* FCR bit 0: FIFOs enabled (IIR reads with bits 7:6 set) */
    bool thre_pending; /* the THR-empty interrupt is pending */
    bool line;         /* the interrupt output as last passed to set_irq */
    uint8_t rx[VUART_RX_BYTES];
    unsigned rx_head, rx_count;
    char *ring;                           /* VUART_RING_BYTES, allocated once */
    size_t ring_head;                     /* total bytes ever written (position = head % size) */
    void (*on_output)(void *ctx, char c); /* live output while attached, else NULL */
    void *ctx;
    void (*set_irq)(void *irq_ctx, bool level); /* the interrupt output; may be NULL */
    void *irq_ctx;
};

bool vuart_init(struct vuart *u);
/* Registers and input to their reset values (output line low, without calling set_irq); keeps
 * the output history and the wiring (on_output, set_irq). */
void vuart_reset(struct vuart *u);
/* A guest access to port offset `reg` (0..7) of the UART. */
uint8_t vuart_read(struct vuart *u, unsigned reg);
void vuart_write(struct vuart *u, unsigned reg, uint8_t value);
/* Operator input while attached; false when the receive FIFO is full. */
bool vuart_push_input(struct vuart *u, uint8_t c);
/* Calls out() with the kept output, oldest first. */
void vuart_replay(const struct vuart *u, void (*out)(const char *s, size_t n, void *ctx),
                  void *ctx);

#endif
