/* The operator's console: the serial port the shell runs on.  Output is byte-exact except that
 * "\n" becomes "\r\n" for terminals. */
#ifndef TESSERA_VMM_CONSOLE_H
#define TESSERA_VMM_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

bool console_init(void);
void console_write(const char *buf, size_t len);
void console_puts(const char *s);
/* A received byte or -1; never blocks. */
int console_getc(void);

#endif
