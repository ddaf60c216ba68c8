#ifndef TESSERA_VMM_LIBC_GLUE_H
#define TESSERA_VMM_LIBC_GLUE_H

#include <stddef.h>

/* Gives malloc its region; until then allocations fail (printf works without it). */
void libc_heap_init(void *base, size_t size);
size_t libc_heap_used(void);
size_t libc_heap_size(void);

#endif
