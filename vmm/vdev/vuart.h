/* A guest's virtual 16550 at COM1: what it writes goes to a 64 KiB ring (shell `console <vm>`
 * shows it, earlier output included); what the operator types while attached is its input.
 * Register behaviour follows the PC16550D datasheet closely enough for a polling driver. */
#ifndef TESSERA_VMM_VUART_H
#define TESSERA_VMM_VUART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VUART_RING_BYTES 65536
#define VUART_RX_BYTES   64

struct vuart {
    uint8_t ier, lcr, mcr, scr, dll, dlm;
    uint8_t rx[VUART_RX_BYTES];
    unsigned rx_head, rx_count;
    char *ring;                 /* VUART_RING_BYTES, allocated once */
    size_t ring_head;           /* total bytes ever written (position = head % size) */
    void (*on_output)(void *ctx, char c);   /* live output while attached, else NULL */
    void *ctx;
};

bool vuart_init(struct vuart *u);
void vuart_reset(struct vuart *u);     /* registers and input; keeps the output history */
/* A guest access to port offset `reg` (0..7) of the UART. */
uint8_t vuart_read(struct vuart *u, unsigned reg);
void vuart_write(struct vuart *u, unsigned reg, uint8_t value);
/* Operator input while attached; false when the receive FIFO is full. */
bool vuart_push_input(struct vuart *u, uint8_t c);
/* Calls out() with the kept output, oldest first. */
void vuart_replay(const struct vuart *u, void (*out)(const char *s, size_t n, void *ctx), void *ctx);

#endif
