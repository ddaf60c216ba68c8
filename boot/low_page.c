/* A page below 1 MiB for code that must start in real mode (an AP's trampoline).  Pure. */
#include "arch/x86/regs.h"
#include "boot/boot_info.h"

static bool overlaps(uint64_t a, uint64_t b, uint64_t base, uint64_t length)
{
    return length && a < base + length && base < b;
}

/* Usable in the memory map and in no other region or module: some maps list overlapping
 * regions, and the reserved one wins. */
static bool page_free(const struct boot_info *bi, uint64_t p)
{
    bool usable = false;
    for (unsigned i = 0; i < bi->n_mem; i++) {
        const struct boot_mem_region *r = &bi->mem[i];
        if (!overlaps(p, p + PAGE_SIZE, r->base, r->length))
            continue;
        if (r->type != BOOT_MEM_USABLE)
            return false;
        if (r->base <= p && p + PAGE_SIZE - r->base <= r->length)
            usable = true;
    }
    for (unsigned i = 0; i < bi->n_modules; i++)
        if (overlaps(p, p + PAGE_SIZE, bi->modules[i].start,
                     bi->modules[i].end - bi->modules[i].start))
            return false;
    return usable;
}

bool boot_find_low_page(const struct boot_info *bi, uint64_t lo, uint64_t hi, uint64_t *page)
{
    lo = (lo + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1);
    for (uint64_t p = hi & ~(uint64_t)(PAGE_SIZE - 1); p >= lo + PAGE_SIZE; p -= PAGE_SIZE) {
        if (page_free(bi, p - PAGE_SIZE)) {
            *page = p - PAGE_SIZE;
            return true;
        }
    }
    return false;
}
