/* First-fit range allocator with coalescing for the fence memory pool. */
#include "gtt/fence_pool.h"

#include <string.h>

#include "gtt/hw.h"

void gtt_pool_init(struct gtt_fence_pool *p, uint64_t base, uint64_t size)
{
    memset(p, 0, sizeof *p);
    p->base = base;
    p->size = size;
    if (size) {
        p->free[0] = (struct gtt_pool_range){ base, size };
        p->n_free = 1;
    }
}

static void remove_at(struct gtt_pool_range *a, unsigned *n, unsigned i)
{
    memmove(&a[i], &a[i + 1], (*n - i - 1) * sizeof a[0]);
    (*n)--;
}

static void insert_at(struct gtt_pool_range *a, unsigned *n, unsigned i, struct gtt_pool_range r)
{
    memmove(&a[i + 1], &a[i], (*n - i) * sizeof a[0]);
    a[i] = r;
    (*n)++;
}

int gtt_pool_alloc(struct gtt_fence_pool *p, uint64_t size, uint64_t *start)
{
    if (size == 0 || size % GEN9_GTT_PAGE_SIZE)
        return GTT_EINVAL;
    if (p->n_used >= GTT_POOL_MAX_RANGES) {
        p->refusals++;
        return GTT_EFULL;
    }
    for (unsigned i = 0; i < p->n_free; i++) {
        struct gtt_pool_range *f = &p->free[i];
        if (f->size < size)
            continue;
        uint64_t s = f->start;
        f->start += size;
        f->size -= size;
        if (f->size == 0)
            remove_at(p->free, &p->n_free, i);
        unsigned j = 0;
        while (j < p->n_used && p->used[j].start < s)
            j++;
        insert_at(p->used, &p->n_used, j, (struct gtt_pool_range){ s, size });
        p->allocs++;
        *start = s;
        return 0;
    }
    p->refusals++;
    return GTT_EFULL;
}

int gtt_pool_free(struct gtt_fence_pool *p, uint64_t start)
{
    unsigned u = 0;
    while (u < p->n_used && p->used[u].start != start)
        u++;
    if (u == p->n_used)
        return GTT_ENOENT;
    struct gtt_pool_range r = p->used[u];
    remove_at(p->used, &p->n_used, u);

    /* Insert in address order, then merge with the neighbours it touches. */
    unsigned i = 0;
    while (i < p->n_free && p->free[i].start < r.start)
        i++;
    insert_at(p->free, &p->n_free, i, r);
    if (i + 1 < p->n_free && p->free[i].start + p->free[i].size == p->free[i + 1].start) {
        p->free[i].size += p->free[i + 1].size;
        remove_at(p->free, &p->n_free, i + 1);
    }
    if (i > 0 && p->free[i - 1].start + p->free[i - 1].size == p->free[i].start) {
        p->free[i - 1].size += p->free[i].size;
        remove_at(p->free, &p->n_free, i);
    }
    p->frees++;
    return 0;
}

uint64_t gtt_pool_used(const struct gtt_fence_pool *p)
{
    uint64_t sum = 0;
    for (unsigned i = 0; i < p->n_used; i++)
        sum += p->used[i].size;
    return sum;
}

uint64_t gtt_pool_largest_free(const struct gtt_fence_pool *p)
{
    uint64_t best = 0;
    for (unsigned i = 0; i < p->n_free; i++)
        if (p->free[i].size > best)
            best = p->free[i].size;
    return best;
}

bool gtt_pool_consistent(const struct gtt_fence_pool *p)
{
    /* Walk both sorted lists together; they must tile [base, base + size) exactly. */
    uint64_t at = p->base;
    unsigned i = 0, j = 0;
    bool prev_free = false;
    while (i < p->n_free || j < p->n_used) {
        bool take_free = j == p->n_used || (i < p->n_free && p->free[i].start < p->used[j].start);
        const struct gtt_pool_range *r = take_free ? &p->free[i++] : &p->used[j++];
        if (r->start != at || r->size == 0)
            return false;
        if (take_free && prev_free)
            return false; /* two adjacent free ranges: coalescing missed */
        prev_free = take_free;
        at += r->size;
    }
    return at == p->base + p->size;
}
