/* A Linux guest (docs/linux-guest.md): what it has beyond a Tessera guest, and its loader, which
 * boots a bzImage by the 64-bit boot protocol (Linux Documentation/x86/boot.rst): the
 * protected-mode code at its load address, the initrd high in RAM, the command line, the zero
 * page with e820 and a VLFB screen_info, a one-processor MP table, the boot GDT with __BOOT_CS
 * and __BOOT_DS, identity page tables, and the vCPU at load + 0x200 in 64-bit mode with
 * RSI = the zero page and interrupts off. */
#ifndef TESSERA_VMM_LOADER_LINUX_GUEST_H
#define TESSERA_VMM_LOADER_LINUX_GUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/display/linux_fb.h"
#include "vmm/vdev/vacpi_pm.h"

struct vm;

#define LINUX_UNCLAIMED_LOGGED 16u      /* unclaimed MMIO addresses logged per boot */

struct linux_guest {
    struct lfb fb;
    uint8_t reset_control;              /* port 0xCF9 as last written */
    struct vacpi_pm pm;                 /* ACPI fixed hardware: PM1 blocks, PM timer */
    uint64_t unclaimed[LINUX_UNCLAIMED_LOGGED];     /* page addresses already logged */
    unsigned n_unclaimed;
    uint64_t unclaimed_accesses;        /* every access to unclaimed MMIO this boot */
};

/* Once, when the guest's memory is first taken: its Linux state and framebuffer (the
 * configuration's framebuffer-px, or its tile's size).  False with vm->reason set. */
bool linux_guest_allocate(struct vm *vm);

/* Loads the bzImage `kernel` (and the initrd, if initrd_len) into the guest's cleared RAM and
 * fills vm->boot.  False with one line in vm->reason naming the cause: not a bzImage,
 * truncated, corrupt, a boot protocol older than 2.12, too little RAM, an initrd that does
 * not fit, a command line too long, no unrestricted guest on this CPU. */
bool linux_guest_load(struct vm *vm, const void *kernel, uint64_t len, const void *initrd, uint64_t initrd_len);

#endif
