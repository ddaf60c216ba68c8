/* The pure loader's one way of refusing: a code, and one line in the caller's buffer. */
#ifndef TESSERA_BOOT_LINUX_LOADER_ERROR_H
#define TESSERA_BOOT_LINUX_LOADER_ERROR_H

#include <stddef.h>

/* Writes the formatted line into err (when errlen > 0) and returns rc. */
int loader_error(int rc, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
