/* Extra identity mappings in the guest's own page tables.  The ABI promises boot tables over
 * guest RAM only (today's hypervisor maps the low 4 GiB as well, but a guest must not count on
 * it); device memory above RAM (and, for hostile-mem, addresses the guest does not
 * own) needs a mapping before the guest can touch it, or the access is a #PF inside the guest
 * and never reaches the hypervisor's EPT.  Tables are identity-mapped (the boot tables live in
 * guest RAM, new ones in .bss), so a table's physical address is also its pointer. */
#include "guests/lib/guest.h"
#include "guests/lib/x86.h"

#include <stdint.h>
#include <string.h>

/* Enough for mappings in a few distinct GiB regions (each needs at most a new PDPT and PD). */
#define SPARE_TABLES 8

static uint64_t spare[SPARE_TABLES][PT_ENTRIES] __attribute__((aligned(PAGE_SIZE)));
static unsigned spare_used;

/* The table an entry points to, creating an empty one if the entry is not present. */
static uint64_t *next_table(uint64_t *entry)
{
    if (*entry & PTE_P)
        return (uint64_t *)(uintptr_t)(*entry & PTE_ADDR_MASK);
    if (spare_used == SPARE_TABLES)
        return NULL;
    uint64_t *t = spare[spare_used++];
    memset(t, 0, PAGE_SIZE);
    *entry = (uint64_t)(uintptr_t)t | PTE_P | PTE_W;
    return t;
}

bool guest_map_uncached(uint64_t gpa, uint64_t len)
{
    uint64_t first = gpa & ~(PAGE_2M - 1);
    if (len == 0 || gpa + len < gpa || gpa + len > (1ULL << (PAGING_VA_BITS - 1)))
        return false; /* the lower canonical half: identity addresses stay canonical */
    uint64_t *pml4 = (uint64_t *)(uintptr_t)(x86_read_cr3() & PTE_ADDR_MASK);

    for (uint64_t page = first; page < gpa + len; page += PAGE_2M) {
        uint64_t *pdpt = next_table(&pml4[PT_INDEX(page, 3)]);
        if (!pdpt)
            return false;
        uint64_t *pdpte = &pdpt[PT_INDEX(page, 2)];
        if ((*pdpte & PTE_P) && (*pdpte & PTE_PS))
            continue; /* already inside a 1 GiB page */
        uint64_t *pd = next_table(pdpte);
        if (!pd)
            return false;
        uint64_t *pde = &pd[PT_INDEX(page, 1)];
        if (*pde & PTE_P)
            continue; /* guest RAM or an earlier mapping: keep its caching */
        *pde = page | PTE_P | PTE_W | PTE_PS | PTE_PCD | PTE_PWT;
        x86_invlpg(page);
    }
    return true;
}
