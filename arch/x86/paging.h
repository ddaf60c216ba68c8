/* The hypervisor's own address space: identity mapping of all RAM (write-back) and of the MMIO
 * hole below 4 GiB (uncached), in 2 MiB pages. */
#ifndef TESSERA_ARCH_X86_PAGING_H
#define TESSERA_ARCH_X86_PAGING_H

#include <stdint.h>

#include "arch/x86/page_alloc.h"
#include "boot/boot_info.h"

/* Marks the non-RAM parts of the boot mapping uncached and maps RAM above 4 GiB, with page
 * tables from `pa`.  Returns the highest mapped address. */
uint64_t paging_init(const struct boot_info *bi, struct page_alloc *pa);
/* Makes sure [phys, phys + size) is mapped (uncached) for device access; false if it cannot be. */
int paging_map_mmio(uint64_t phys, uint64_t size);

#endif
