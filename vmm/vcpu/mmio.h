/* Reaching guest memory as the guest's CPU would, for emulating an MMIO access (exit_mem.c):
 * the instruction at RIP is fetched through the guest's own page tables and decoded
 * (vmm/vcpu/mmio_decode.c); the region's device on the guest's I/O bus does the read or write. */
#ifndef TESSERA_VMM_MMIO_H
#define TESSERA_VMM_MMIO_H

#include <stdbool.h>
#include <stdint.h>

struct vm;

/* Guest-virtual to guest-physical through the guest's own page tables (CR3), as the CPU would
 * for a supervisor access; false when unmapped. */
bool guest_virt_to_phys(const struct vm *vm, uint64_t cr3, uint64_t gva, uint64_t *gpa);

#endif
