/* What the guest library's files share with each other and not with guest programs. */
#ifndef TESSERA_GUESTS_LIB_INTERNAL_H
#define TESSERA_GUESTS_LIB_INTERNAL_H

#include "tessera/abi/guest.h"

#include <stdbool.h>
#include <stdint.h>

/* Called by start.S with the boot info pointer from RSI; runs guest_main and exits. */
__attribute__((noreturn)) void guest_runtime_start(const struct tessera_boot_info *boot);

void guest_trap_init(void);
/* Sets up the x2APIC timer when the platform offers it (after guest_trap_init). */
void guest_irq_init(void);
/* An interrupt (vector 32-255) arrived at `rip`: runs its handler (trap.c calls it). */
void guest_irq_dispatch(unsigned vector, uint64_t rip);
/* The TSC-deadline timer is running: sleeps wait for its interrupt. */
bool guest_timer_ready(void);
void guest_time_init(uint64_t tsc_hz);
void guest_heap_init(uintptr_t base, uintptr_t limit);

/* The exit hypercall without flushing stdio (for the exception path, where stdio may be the
 * thing that broke). */
__attribute__((noreturn)) void guest_exit_now(uint64_t status);

/* Linker script symbols (guest.ld). */
extern char _image_start[], _image_end[];

#endif
