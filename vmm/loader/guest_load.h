/* What both loaders (loaders.h) put into a guest's RAM: the boot GDT's descriptors and the
 * identity page tables of the guest ABI (include/tessera/abi/guest.h). */
#ifndef TESSERA_VMM_GUEST_LOAD_H
#define TESSERA_VMM_GUEST_LOAD_H

#include <stdbool.h>

#include "vmm/vm.h"

/* Flat segment descriptors of the boot GDTs (SDM Vol. 3A §3.4.5): 64-bit code and data, DPL 0. */
#define GUEST_GDT_CODE64 0x00AF9A000000FFFFULL
#define GUEST_GDT_DATA   0x00CF92000000FFFFULL

/* Identity page tables at TESSERA_GUEST_PT_BASE over the low 4 GiB, or all RAM if more, with
 * 2 MiB pages, so that an access outside the guest's RAM reaches EPT (and is stopped or
 * emulated there) instead of faulting in the guest.  False (reason in vm->reason) if they do
 * not fit below 1 MiB. */
bool guest_identity_map(struct vm *vm);

#endif
