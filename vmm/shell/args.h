/* Splitting a command line into words and reading numbers from them, strictly: "12x", "",
 * "0x" and values that overflow are errors, never silently truncated. */
#ifndef TESSERA_VMM_SHELL_ARGS_H
#define TESSERA_VMM_SHELL_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#define SHELL_MAX_ARGS 8

/* Splits `line` in place at spaces and tabs.  Returns the word count, or -1 when there are more
 * than `max` words. */
int args_split(char *line, char **argv, int max);

/* Decimal, or hexadecimal with a 0x prefix. */
bool args_parse_u64(const char *s, uint64_t *out);
bool args_parse_u32(const char *s, uint32_t *out);

#endif
