/* 16550 UART (PC16550D datasheet; the PC's COM1 sits at I/O port 0x3F8, IRQ 4). */
#ifndef TESSERA_ARCH_X86_UART_H
#define TESSERA_ARCH_X86_UART_H

#include <stdbool.h>
#include <stdint.h>

#define COM1_PORT     0x3F8
#define UART_CLOCK_HZ 115200 /* divisor latch input: 1.8432 MHz / 16 */

/* Register offsets from the base port (datasheet Table 2). */
#define UART_RBR 0 /* receive buffer (read, DLAB=0) */
#define UART_THR 0 /* transmit holding (write, DLAB=0) */
#define UART_DLL 0 /* divisor latch low (DLAB=1) */
#define UART_IER 1 /* interrupt enable (DLAB=0) */
#define UART_DLM 1 /* divisor latch high (DLAB=1) */
#define UART_IIR 2 /* interrupt identification (read) */
#define UART_FCR 2 /* FIFO control (write) */
#define UART_LCR 3 /* line control */
#define UART_MCR 4 /* modem control */
#define UART_LSR 5 /* line status */
#define UART_MSR 6 /* modem status */
#define UART_SCR 7 /* scratch */

#define UART_LCR_8N1    0x03
#define UART_LCR_DLAB   0x80
#define UART_FCR_ENABLE 0x01
#define UART_MCR_DTR    0x01
#define UART_MCR_RTS    0x02
#define UART_MCR_OUT2   0x08
#define UART_MCR_LOOP   0x10
#define UART_MCR_MASK   0x1F /* bits 7:5 always read 0 */
#define UART_LSR_DR     0x01 /* data ready */
#define UART_LSR_THRE   0x20 /* transmit holding register empty */
#define UART_LSR_TEMT   0x40 /* transmitter empty */
/* Interrupt enable (datasheet Table 2, IER bits 0-3). */
#define UART_IER_ERBFI 0x01 /* received data available */
#define UART_IER_ETBEI 0x02 /* transmitter holding register empty */
#define UART_IER_ELSI  0x04 /* receiver line status */
#define UART_IER_EDSSI 0x08 /* modem status */
#define UART_IER_MASK  0x0F
/* Interrupt identification (datasheet Table 4): bit 0 = 0 when one is pending, bits 3:1 the
 * source (highest priority first: line status, data/timeout, THR empty, modem status), bits 7:6
 * set while the FIFOs are enabled. */
#define UART_IIR_NO_INT  0x01
#define UART_IIR_RLS     0x06
#define UART_IIR_RDA     0x04
#define UART_IIR_TIMEOUT 0x0C
#define UART_IIR_THRE    0x02
#define UART_IIR_MSI     0x00
#define UART_IIR_FIFOS   0xC0
/* FIFO control (datasheet Table 2, FCR). */
#define UART_FCR_CLEAR_RX 0x02
#define UART_FCR_CLEAR_TX 0x04
#define UART_FCR_CLEAR    (UART_FCR_CLEAR_RX | UART_FCR_CLEAR_TX)

/* Sets up the UART for `baud` 8N1 with FIFOs; false when no UART answers at `port`. */
bool uart_init(uint16_t port, uint32_t baud);
void uart_putc(uint16_t port, char c);
/* True when the transmitter (and its 16-byte FIFO) is empty: up to UART_FIFO_BYTES may go. */
bool uart_tx_empty(uint16_t port);
void uart_put_nowait(uint16_t port, char c);
#define UART_FIFO_BYTES 16 /* 16550A transmit FIFO */
/* Next received byte, or -1 when none is waiting (never blocks). */
int uart_getc(uint16_t port);
/* True when a received byte is waiting (uart_getc would return it). */
bool uart_rx_ready(uint16_t port);

#endif
