#include "vmm/console.h"

#include "arch/x86/uart.h"

#include <string.h>

static bool have_uart;

bool console_init(void)
{
    have_uart = uart_init(COM1_PORT, 115200);
    return have_uart;
}

void console_write(const char *buf, size_t len)
{
    if (!have_uart)
        return;
    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '\n')
            uart_putc(COM1_PORT, '\r');
        uart_putc(COM1_PORT, buf[i]);
    }
}

void console_puts(const char *s)
{
    console_write(s, strlen(s));
}

int console_getc(void)
{
    return have_uart ? uart_getc(COM1_PORT) : -1;
}
