/* The guest loaders, one per guest kind, behind struct guest_loader (vmm/vm.h); the
 * composition root registers them with vm_add_loader and vm_start calls the one for the
 * guest's kind.  Each clears the guest's RAM, puts the image in, fills vm->boot, and on failure
 * leaves one line naming the cause in vm->reason. */
#ifndef TESSERA_VMM_LOADER_LOADERS_H
#define TESSERA_VMM_LOADER_LOADERS_H

#include "vmm/vm.h"

/* A Tessera guest (guest_load.c): the ELF image from its GRUB module, the boot information, the
 * GDT and the identity page tables of the guest ABI (include/tessera/abi/guest.h); RSI at entry
 * is the boot information. */
extern const struct guest_loader tessera_loader;

/* A Linux guest (linux_load.c, docs/linux-guest.md): a bzImage by the 64-bit boot protocol
 * (Linux Documentation/x86/boot.rst): the protected-mode code at its load address, the initrd
 * high in RAM, the command line, the zero page with e820 and a VLFB screen_info for the
 * framebuffer its board has (vm->lfb), ACPI tables, a one-processor MP table, the boot GDT with
 * __BOOT_CS and __BOOT_DS, identity page tables, and the vCPU at load + 0x200 in 64-bit mode
 * with RSI = the zero page and interrupts off.  Refuses with the cause: not a bzImage,
 * truncated, corrupt, a boot protocol older than 2.12, too little RAM, an initrd that does not
 * fit, a command line too long, no unrestricted guest on this CPU. */
extern const struct guest_loader linux_loader;

#endif
