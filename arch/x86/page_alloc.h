/* Physical page allocator: a bitmap over the usable RAM the boot loader reported, minus reserved
 * ranges (the image, modules, loader data, firmware areas).  Pure: it only does arithmetic on
 * ranges and a caller-provided bitmap, so it is unit-tested on the host. */
#ifndef TESSERA_ARCH_X86_PAGE_ALLOC_H
#define TESSERA_ARCH_X86_PAGE_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86/regs.h" /* PAGE_SIZE, PAGE_SHIFT */

struct phys_range {
    uint64_t base, end; /* [base, end), bytes */
};

struct page_alloc {
    uint64_t first_pfn;    /* frame number of bitmap bit 0 */
    uint64_t n_frames;     /* bits in the bitmap */
    uint64_t *bitmap;      /* bit set = not available */
    uint64_t *allocated;   /* bit set = handed out by page_alloc (so page_free
                                           can refuse reserved pages and holes) */
    uint64_t usable_pages; /* free at init time */
    uint64_t free_pages;
    uint64_t next_hint; /* where the next search starts */
};

/* Bytes of bitmap storage needed to cover the usable ranges (both bitmaps). */
size_t page_alloc_bitmap_bytes(const struct phys_range *usable, unsigned n_usable);

/* First page-aligned place of `bytes` inside a usable range and outside every reserved range,
 * at or above `min_addr`; false when there is none.  Used to home the bitmap itself. */
bool phys_find_free(const struct phys_range *usable, unsigned n_usable,
                    const struct phys_range *reserved, unsigned n_reserved, uint64_t bytes,
                    uint64_t min_addr, uint64_t *out);

/* Marks every whole page inside a usable range and outside all reserved ranges as free. */
void page_alloc_init(struct page_alloc *pa, uint64_t *bitmap, const struct phys_range *usable,
                     unsigned n_usable, const struct phys_range *reserved, unsigned n_reserved);

/* `count` contiguous pages aligned to `align_pages` (a power of two); 0 when none are left. */
uint64_t page_alloc(struct page_alloc *pa, uint64_t count, uint64_t align_pages);

/* Returns pages; false (and nothing changes) if any of them is not currently allocated. */
bool page_free(struct page_alloc *pa, uint64_t phys, uint64_t count);

bool page_is_free(const struct page_alloc *pa, uint64_t phys);

#endif
