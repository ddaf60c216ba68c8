/* Guest-physical ranges emulated by the hypervisor (the vGPU's BAR0 later): an access to one
 * exits as an EPT violation, its instruction is decoded (vmm/vcpu/mmio_decode.c) and the region's
 * handler does the read or write. */
#ifndef TESSERA_VMM_MMIO_H
#define TESSERA_VMM_MMIO_H

#include <stdbool.h>
#include <stdint.h>

struct vm;

struct mmio_region {
    uint64_t base, size;
    /* offset from base; size 1, 2, 4 or 8; false = the access is refused (the guest stops) */
    bool (*read)(void *ctx, uint64_t offset, unsigned size, uint64_t *value);
    bool (*write)(void *ctx, uint64_t offset, unsigned size, uint64_t value);
    void *ctx;
    const char *name;
};

#define MMIO_MAX_REGIONS 8

bool mmio_register(struct vm *vm, const struct mmio_region *r);
const struct mmio_region *mmio_find(const struct vm *vm, uint64_t gpa);
/* Moves the region registered under `name` (a guest moved the BAR it belongs to). */
bool mmio_set_base(struct vm *vm, const char *name, uint64_t base);

/* Guest-virtual to guest-physical through the guest's own page tables (CR3), as the CPU would
 * for a supervisor access; false when unmapped. */
bool guest_virt_to_phys(const struct vm *vm, uint64_t cr3, uint64_t gva, uint64_t *gpa);

#endif
