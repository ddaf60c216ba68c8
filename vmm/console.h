/* The operator's console: the serial port the shell runs on.  Output is byte-exact except that
 * "\n" becomes "\r\n" for terminals.  It goes through a transmit ring that the 1 kHz tick drains
 * into the UART's FIFO, so printing (at 115200 baud, 11.5 KB/s) never holds up the guests;
 * only a full ring makes a writer wait. */
#ifndef TESSERA_VMM_CONSOLE_H
#define TESSERA_VMM_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

#define CONSOLE_TX_BYTES (256 * 1024)

bool console_init(void);
void console_write(const char *buf, size_t len);
/* The same, but never waits: false (and nothing queued) when the ring has no room for all of
 * it.  For what a guest prints while the operator watches its console: a guest printing
 * faster than the serial line must not hold the CPU in its exit until the UART catches up. */
bool console_write_nowait(const char *buf, size_t len);
void console_puts(const char *s);
/* A received byte or -1; never blocks. */
int console_getc(void);
/* True when a received byte waits for console_getc. */
bool console_input_waiting(void);
/* Moves what the UART can take now from the ring to the UART (the tick calls it). */
void console_tx_poll(void);
/* Sends everything still queued, waiting for the UART: before a reset or a stop. */
void console_flush(void);

#endif
