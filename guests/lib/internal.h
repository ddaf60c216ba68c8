/* What the guest library's files share with each other and not with guest programs. */
#ifndef TESSERA_GUESTS_LIB_INTERNAL_H
#define TESSERA_GUESTS_LIB_INTERNAL_H

#include "tessera/abi/guest.h"

#include <stdint.h>

/* Called by start.S with the boot info pointer from RSI; runs guest_main and exits. */
__attribute__((noreturn)) void guest_runtime_start(const struct tessera_boot_info *boot);

void guest_trap_init(void);
void guest_time_init(uint64_t tsc_hz);
void guest_heap_init(uintptr_t base, uintptr_t limit);

/* The exit hypercall without flushing stdio (for the exception path, where stdio may be the
 * thing that broke). */
__attribute__((noreturn)) void guest_exit_now(uint64_t status);

/* Linker script symbols (guest.ld). */
extern char _image_start[], _image_end[];

#endif
