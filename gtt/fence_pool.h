/* The fence memory pool: a range of low graphics memory handed out first-fit to fenced guest
 * ranges, with neighbouring free ranges merged on release (gScale §4.2).  Pure bookkeeping of
 * graphics addresses; gtt/fence.c does the copying and the EPT remaps. */
#ifndef GTT_FENCE_POOL_H
#define GTT_FENCE_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "gtt/err.h"

/* At most this many live allocations (32 physical fence registers, with room to spare). */
#define GTT_POOL_MAX_RANGES 64u

struct gtt_pool_range {
    uint64_t start, size;
};

struct gtt_fence_pool {
    uint64_t base, size;
    unsigned n_free; /* free ranges, sorted by address, never adjacent */
    struct gtt_pool_range free[GTT_POOL_MAX_RANGES + 1];
    unsigned n_used; /* live allocations, sorted by address */
    struct gtt_pool_range used[GTT_POOL_MAX_RANGES];
    uint64_t allocs, frees, refusals;
};

void gtt_pool_init(struct gtt_fence_pool *p, uint64_t base, uint64_t size);
/* First fit: the lowest free range of at least `size` bytes (a page multiple).  0 and *start, or
 * GTT_EINVAL (size 0 or not a page multiple) / GTT_EFULL (no free range big enough, or too many
 * live allocations). */
int gtt_pool_alloc(struct gtt_fence_pool *p, uint64_t size, uint64_t *start);
/* Releases the allocation starting at `start`; GTT_ENOENT if there is none. */
int gtt_pool_free(struct gtt_fence_pool *p, uint64_t start);
uint64_t gtt_pool_used(const struct gtt_fence_pool *p);
uint64_t gtt_pool_largest_free(const struct gtt_fence_pool *p);
/* Self-check: free and used ranges tile the pool exactly, sorted, no overlap, free ranges not
 * adjacent.  Used by tests after every operation. */
bool gtt_pool_consistent(const struct gtt_fence_pool *p);

#endif
