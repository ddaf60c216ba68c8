/*
 * Allowed graphics-address ranges: normalization (sorted, merged) and containment.  Kept
 * normalized so that "inside the union of the ranges" is "inside one range", which a binary
 * search answers.
 */
#include <stdlib.h>

#include "drivers/igpu/scanner/scan_internal.h"

/* End of a range, clipped at 2^64 - 1 so that start + size cannot wrap. */
static uint64_t range_end(const struct igpu_scan_range *r)
{
    return r->size > UINT64_MAX - r->start ? UINT64_MAX : r->start + r->size;
}

static int cmp_start(const void *a, const void *b)
{
    const struct igpu_scan_range *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

size_t igpu_scan_ranges_normalize(struct igpu_scan_range *r, size_t n)
{
    size_t i, out = 0;

    if (!r)
        return 0;
    for (i = 0; i < n; i++) /* drop empty ranges */
        if (r[i].size != 0)
            r[out++] = r[i];
    n = out;
    if (n == 0)
        return 0;
    qsort(r, n, sizeof(*r), cmp_start);
    out = 0;
    r[0].size = range_end(&r[0]) - r[0].start;
    for (i = 1; i < n; i++) {
        uint64_t end = range_end(&r[out]);
        if (r[i].start <= end) { /* overlapping or adjacent: merge */
            uint64_t e2 = range_end(&r[i]);
            if (e2 > end)
                r[out].size = e2 - r[out].start;
        } else {
            r[++out] = r[i];
            r[out].size = range_end(&r[out]) - r[out].start;
        }
    }
    return out + 1;
}

bool igpu_scan_ranges_normalized(const struct igpu_scan_range *r, size_t n)
{
    size_t i;

    if (n && !r)
        return false;
    for (i = 0; i < n; i++) {
        if (r[i].size == 0 || r[i].size > UINT64_MAX - r[i].start)
            return false;
        /* Strictly after the previous end: overlaps and adjacency must have been merged. */
        if (i > 0 && r[i].start <= r[i - 1].start + r[i - 1].size)
            return false;
    }
    return true;
}

long scan_range_find(const struct igpu_scan_range *r, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;

    /* Last range whose start is <= addr. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    lo--;
    return addr - r[lo].start < r[lo].size ? (long)lo : -1;
}

bool igpu_scan_ranges_contain(const struct igpu_scan_range *r, size_t n, uint64_t addr,
                              uint64_t size)
{
    long i;

    if (size == 0 || size > UINT64_MAX - addr)
        return false;
    i = scan_range_find(r, n, addr);
    return i >= 0 && addr + size - r[i].start <= r[i].size;
}
