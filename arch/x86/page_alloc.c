/* Bitmap page allocator (see page_alloc.h).  First fit from a rolling hint, so repeated small
 * allocations do not rescan the low, already-used part of memory. */
#include "arch/x86/page_alloc.h"

#include <string.h>

#define BITS 64u

static uint64_t page_up(uint64_t a)
{
    return (a + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
}
static uint64_t page_down(uint64_t a)
{
    return a & ~(PAGE_SIZE - 1);
}

static bool bit_get(const uint64_t *bm, uint64_t i)
{
    return bm[i / BITS] >> (i % BITS) & 1;
}
static void bit_set(uint64_t *bm, uint64_t i)
{
    bm[i / BITS] |= 1ULL << (i % BITS);
}
static void bit_clear(uint64_t *bm, uint64_t i)
{
    bm[i / BITS] &= ~(1ULL << (i % BITS));
}

static void usable_span(const struct phys_range *u, unsigned n, uint64_t *lo, uint64_t *hi)
{
    *lo = UINT64_MAX;
    *hi = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t b = page_up(u[i].base), e = page_down(u[i].end);
        if (e <= b)
            continue;
        if (b < *lo)
            *lo = b;
        if (e > *hi)
            *hi = e;
    }
    if (*hi == 0)
        *lo = 0;
}

size_t page_alloc_bitmap_bytes(const struct phys_range *usable, unsigned n_usable)
{
    uint64_t lo, hi;
    usable_span(usable, n_usable, &lo, &hi);
    uint64_t frames = (hi - lo) >> PAGE_SHIFT;
    /* Two bitmaps: "not available" and "handed out by page_alloc". */
    return (size_t)(2 * ((frames + BITS - 1) / BITS) * sizeof(uint64_t));
}

static bool overlaps_reserved(uint64_t b, uint64_t e, const struct phys_range *r, unsigned n,
                              uint64_t *skip_to)
{
    for (unsigned i = 0; i < n; i++) {
        if (r[i].base < r[i].end && b < r[i].end && r[i].base < e) {
            *skip_to = page_up(r[i].end);
            return true;
        }
    }
    return false;
}

bool phys_find_free(const struct phys_range *usable, unsigned n_usable,
                    const struct phys_range *reserved, unsigned n_reserved, uint64_t bytes,
                    uint64_t min_addr, uint64_t *out)
{
    /* Sizes and addresses so close to 2^64 that rounding up would wrap have no place. */
    if (bytes > UINT64_MAX - PAGE_SIZE || min_addr > UINT64_MAX - PAGE_SIZE)
        return false;
    bytes = page_up(bytes);
    for (unsigned i = 0; i < n_usable; i++) {
        uint64_t start = usable[i].base > min_addr ? usable[i].base : min_addr;
        if (start > UINT64_MAX - PAGE_SIZE)
            continue;
        uint64_t b = page_up(start);
        uint64_t e = page_down(usable[i].end);
        uint64_t skip;
        while (b < e && e - b >= bytes) {
            if (!overlaps_reserved(b, b + bytes, reserved, n_reserved, &skip)) {
                *out = b;
                return true;
            }
            if (skip <= b) /* a reserved range reaching the top of the address space */
                break;
            b = skip;
        }
    }
    return false;
}

/* Frees the whole pages of [b, e) that are not already free. */
static void free_span(struct page_alloc *pa, uint64_t b, uint64_t e)
{
    for (uint64_t a = page_up(b); a + PAGE_SIZE <= e; a += PAGE_SIZE) {
        uint64_t bit = (a >> PAGE_SHIFT) - pa->first_pfn;
        if (bit_get(pa->bitmap, bit)) { /* overlapping usable entries count once */
            bit_clear(pa->bitmap, bit);
            pa->free_pages++;
        }
    }
}

/* The lowest reserved range that overlaps [b, e), or NULL. */
static const struct phys_range *first_overlap(uint64_t b, uint64_t e, const struct phys_range *r,
                                              unsigned n)
{
    const struct phys_range *best = NULL;
    for (unsigned i = 0; i < n; i++)
        if (r[i].base < r[i].end && b < r[i].end && r[i].base < e &&
            (!best || r[i].base < best->base))
            best = &r[i];
    return best;
}

void page_alloc_init(struct page_alloc *pa, uint64_t *bitmap, const struct phys_range *usable,
                     unsigned n_usable, const struct phys_range *reserved, unsigned n_reserved)
{
    uint64_t lo, hi;
    usable_span(usable, n_usable, &lo, &hi);
    memset(pa, 0, sizeof *pa);
    size_t bytes = page_alloc_bitmap_bytes(usable, n_usable);
    pa->bitmap = bitmap;
    pa->allocated = bitmap + bytes / 2 / sizeof(uint64_t);
    pa->first_pfn = lo >> PAGE_SHIFT;
    pa->n_frames = (hi - lo) >> PAGE_SHIFT;
    memset(pa->bitmap, 0xFF, bytes / 2);
    memset(pa->allocated, 0, bytes / 2);

    /* Walk each usable range, freeing the gaps between the reserved ranges that cut it. */
    for (unsigned i = 0; i < n_usable; i++) {
        uint64_t cur = usable[i].base, end = page_down(usable[i].end);
        while (cur < end) {
            const struct phys_range *r = first_overlap(cur, end, reserved, n_reserved);
            if (!r) {
                free_span(pa, cur, end);
                break;
            }
            if (r->base > cur)
                free_span(pa, cur, page_down(r->base));
            cur = r->end;
        }
    }
    pa->usable_pages = pa->free_pages;
}

static bool run_free(const struct page_alloc *pa, uint64_t start, uint64_t count, uint64_t *bad)
{
    for (uint64_t i = start; i < start + count; i++) {
        if (bit_get(pa->bitmap, i)) {
            *bad = i;
            return false;
        }
    }
    return true;
}

static uint64_t search(struct page_alloc *pa, uint64_t from, uint64_t to, uint64_t count,
                       uint64_t align)
{
    uint64_t mask = align - 1;
    /* Alignment is of physical frame numbers, not of bitmap positions. */
    uint64_t i = ((pa->first_pfn + from + mask) & ~mask) - pa->first_pfn;
    while (i + count <= to) {
        /* Skip whole used words quickly. */
        if (i % BITS == 0 && pa->bitmap[i / BITS] == UINT64_MAX) {
            i += BITS;
            i = ((pa->first_pfn + i + mask) & ~mask) - pa->first_pfn;
            continue;
        }
        uint64_t bad;
        if (run_free(pa, i, count, &bad))
            return i;
        i = ((pa->first_pfn + bad + 1 + mask) & ~mask) - pa->first_pfn;
    }
    return UINT64_MAX;
}

uint64_t page_alloc(struct page_alloc *pa, uint64_t count, uint64_t align_pages)
{
    if (count == 0 || count > pa->free_pages || align_pages == 0 ||
        (align_pages & (align_pages - 1)))
        return 0;
    uint64_t i = search(pa, pa->next_hint, pa->n_frames, count, align_pages);
    if (i == UINT64_MAX)
        i = search(pa, 0, pa->n_frames, count, align_pages);
    if (i == UINT64_MAX)
        return 0;
    for (uint64_t k = i; k < i + count; k++) {
        bit_set(pa->bitmap, k);
        bit_set(pa->allocated, k);
    }
    pa->free_pages -= count;
    pa->next_hint = i + count;
    return (pa->first_pfn + i) << PAGE_SHIFT;
}

bool page_free(struct page_alloc *pa, uint64_t phys, uint64_t count)
{
    if (phys % PAGE_SIZE)
        return false;
    uint64_t pfn = phys >> PAGE_SHIFT;
    if (pfn < pa->first_pfn || count > pa->n_frames || pfn - pa->first_pfn > pa->n_frames - count)
        return false;
    uint64_t first = pfn - pa->first_pfn;
    /* Only pages this allocator handed out come back: never reserved pages or holes. */
    for (uint64_t k = first; k < first + count; k++)
        if (!bit_get(pa->allocated, k))
            return false;
    for (uint64_t k = first; k < first + count; k++) {
        bit_clear(pa->bitmap, k);
        bit_clear(pa->allocated, k);
    }
    pa->free_pages += count;
    if (first < pa->next_hint)
        pa->next_hint = first;
    return true;
}

bool page_is_free(const struct page_alloc *pa, uint64_t phys)
{
    uint64_t pfn = phys >> PAGE_SHIFT;
    if (pfn < pa->first_pfn || pfn - pa->first_pfn >= pa->n_frames)
        return false;
    return !bit_get(pa->bitmap, pfn - pa->first_pfn);
}
