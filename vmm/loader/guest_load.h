/* Puts a guest into its RAM: the ELF image from its GRUB module, the boot information, the GDT
 * and the identity page tables of the guest ABI (include/tessera/abi/guest.h). */
#ifndef TESSERA_VMM_GUEST_LOAD_H
#define TESSERA_VMM_GUEST_LOAD_H

#include <stdbool.h>

#include "vmm/vm.h"

/* Clears the guest's RAM and loads everything; on failure returns false with the reason in
 * vm->reason.  *entry receives the ELF entry point. */
bool guest_load(struct vm *vm, const void *image, uint64_t image_len, uint64_t *entry);

#endif
