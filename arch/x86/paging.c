/* Builds on the 4 GiB boot mapping of boot/entry.S (PML4[0] -> one PDPT -> four PDs of 2 MiB
 * pages).  RAM above 4 GiB gets PDs from the page allocator; device ranges get PCD|PWT so MMIO
 * is never cached (SDM Vol. 3A §11.12.3). */
#include "arch/x86/paging.h"

#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"

#include <string.h>

#define BOOT_PDS  4                                             /* boot/entry.S's: 4 GiB */
#define PDPT_SPAN ((uint64_t)PT_ENTRIES * PT_ENTRIES * PAGE_2M) /* one PDPT maps 512 GiB */

extern uint64_t boot_pml4[PT_ENTRIES], boot_pdpt[PT_ENTRIES], boot_pd[BOOT_PDS * PT_ENTRIES];

static struct page_alloc *alloc;
static uint64_t mapped_top = BOOT_PDS * PT_ENTRIES * PAGE_2M;

static bool is_ram(const struct boot_info *bi, uint64_t b, uint64_t e)
{
    for (unsigned i = 0; i < bi->n_mem; i++) {
        const struct boot_mem_region *r = &bi->mem[i];
        if (r->type == BOOT_MEM_RESERVED || r->type == BOOT_MEM_BAD)
            continue;
        if (b < r->base + r->length && r->base < e)
            return true;
    }
    return false;
}

static uint64_t *pd_for(uint64_t addr)
{
    unsigned pdpt_i = PT_INDEX(addr, 2);
    if (!(boot_pdpt[pdpt_i] & PTE_P)) {
        uint64_t page = page_alloc(alloc, 1, 1);
        if (!page)
            return NULL;
        memset((void *)(uintptr_t)page, 0, PAGE_SIZE);
        boot_pdpt[pdpt_i] = page | PTE_P | PTE_W;
    }
    return (uint64_t *)(uintptr_t)(boot_pdpt[pdpt_i] & PTE_ADDR_MASK);
}

uint64_t paging_init(const struct boot_info *bi, struct page_alloc *pa)
{
    alloc = pa;
    for (unsigned i = 0; i < BOOT_PDS * PT_ENTRIES; i++) {
        uint64_t a = (uint64_t)i * PAGE_2M;
        if (a && !is_ram(bi, a, a + PAGE_2M))
            boot_pd[i] |= PTE_PCD | PTE_PWT;
    }
    uint64_t top = 0;
    for (unsigned i = 0; i < bi->n_mem; i++)
        if (bi->mem[i].type == BOOT_MEM_USABLE && bi->mem[i].base + bi->mem[i].length > top)
            top = bi->mem[i].base + bi->mem[i].length;
    /* One PDPT covers 512 GiB, far beyond any appliance. */
    if (top > PDPT_SPAN)
        top = PDPT_SPAN;
    for (uint64_t a = mapped_top; a < top; a += PAGE_2M) {
        uint64_t *pd = pd_for(a);
        if (!pd)
            break;
        pd[PT_INDEX(a, 1)] = (a & PTE_2M_ADDR_MASK) | PTE_P | PTE_W | PTE_PS;
        mapped_top = a + PAGE_2M;
    }
    write_cr3(read_cr3());
    return mapped_top;
}

int paging_map_mmio(uint64_t phys, uint64_t size)
{
    for (uint64_t a = phys & ~(PAGE_2M - 1); a < phys + size; a += PAGE_2M) {
        if (a >= PDPT_SPAN)
            return -1;
        uint64_t *pd = pd_for(a);
        if (!pd)
            return -1;
        uint64_t *pde = &pd[PT_INDEX(a, 1)];
        if (!(*pde & PTE_P))
            *pde = (a & PTE_2M_ADDR_MASK) | PTE_P | PTE_W | PTE_PS | PTE_PCD | PTE_PWT;
    }
    write_cr3(read_cr3());
    return 0;
}
