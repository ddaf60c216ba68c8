/* How many GGTT entries must be written for a set of busy ranges in one area (the guest low
 * area, or the slots): the measure the placement planner minimises and the floor the
 * benchmarks print beside Tessera's figure (docs/gtt.md "The floor").
 *
 * Model: busy vGPU i is brought in f_i times (f_i = 1 for all: a cycle in which each runs
 * once, which is what the host benchmark's round robin does).  A unit (entry, or slot of
 * entries) covered by k >= 2 busy ranges is rewritten at every switch-in of each of them
 * (another holder ran in between), a unit covered once never.  So a placement costs, summed
 * over units covered by k >= 2 ranges, the sum of their holders' f.  The least cost over all
 * placements puts as many ranges apart as fit, the most often switched in first, and stacks
 * all the others on one place. */
#include <stdlib.h>

#include "gtt/gtt.h"

struct edge {
    uint64_t at;
    int d;      /* +1 a range starts, -1 one ends */
    uint64_t w; /* its weight */
};

static int cmp_edge(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->d - y->d; /* ends before starts at the same unit */
}

uint64_t gtt_cover_cost_weighted(const uint64_t *start, const uint64_t *size, const uint64_t *w,
                                 unsigned n)
{
    struct edge *e = malloc((2 * (size_t)n + 1) * sizeof *e);
    if (!e)
        return UINT64_MAX;
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!size[i])
            continue;
        uint64_t wi = w ? w[i] : 1;
        e[m++] = (struct edge){ start[i], +1, wi };
        e[m++] = (struct edge){ start[i] + size[i], -1, wi };
    }
    qsort(e, m, sizeof *e, cmp_edge);
    uint64_t cost = 0, weight = 0;
    long k = 0;
    for (unsigned i = 0; i < m; i++) {
        if (i > 0 && k >= 2)
            cost += weight * (e[i].at - e[i - 1].at);
        k += e[i].d;
        weight = e[i].d > 0 ? weight + e[i].w : weight - e[i].w;
    }
    free(e);
    return cost;
}

uint64_t gtt_cover_cost(const uint64_t *start, const uint64_t *size, unsigned n)
{
    return gtt_cover_cost_weighted(start, size, NULL, n);
}

struct item {
    uint64_t size, w;
};

static int cmp_item(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return x->size > y->size ? -1 : x->size < y->size;
}

/* Equal sizes s, weights sorted f_1 >= ... >= f_n, area a, c = a / s ranges apart, r = a - c s
 * left over.  n <= c costs nothing.  n > c: the n - c least switched ranges are stacked over
 * the leftover and s - r units of the c-th (the least switched of those apart).  With two or
 * more stacked, every unit under the stack is covered at least twice: the stacked ones write
 * s each, the c-th writes s - r; with one stacked, the leftover is its alone: it and the c-th
 * write s - r each.  No placement does better: units covered once are at most a minus those
 * covered more than once; the ranges not apart cover at least s units between them, which
 * each of them rewrites whole (two or more) and any range apart under them rewrites where it
 * lies; which ranges are apart is best decided by weight. */
uint64_t gtt_floor_weighted(uint64_t area, const uint64_t *size, const uint64_t *f, unsigned n)
{
    if (n == 0)
        return 0;
    struct item *it = malloc(n * sizeof *it);
    uint64_t *st = malloc(n * sizeof *st), *sz = malloc(n * sizeof *sz),
             *ww = malloc(n * sizeof *ww);
    if (!it || !st || !sz || !ww) {
        free(it), free(st), free(sz), free(ww);
        return UINT64_MAX;
    }
    bool equal = true;
    uint64_t total = 0;
    for (unsigned i = 0; i < n; i++) {
        it[i] = (struct item){ size[i] < area ? size[i] : area, f ? f[i] : 1 };
        equal &= size[i] == size[0];
        total += it[i].size;
    }
    qsort(it, n, sizeof *it, cmp_item);
    uint64_t cost = 0;
    if (total <= area) {
        cost = 0;
    } else if (equal && it[0].size) {
        uint64_t s = it[0].size, c = area / s, r = area - c * s;
        if (n <= c) {
            cost = 0;
        } else if (n == c + 1) {
            cost = (it[n - 1].w + it[c - 1].w) * (s - r); /* c >= 1: s <= area */
        } else {
            for (unsigned i = (unsigned)c; i < n; i++)
                cost += it[i].w * s;
            if (c)
                cost += it[c - 1].w * (s - r);
        }
    } else {
        /* Unequal sizes: by weight, apart from the left while they fit, the others
         * right-aligned on the end of the area; the cost of that placement. */
        uint64_t at = 0;
        for (unsigned i = 0; i < n; i++) {
            sz[i] = it[i].size;
            ww[i] = it[i].w;
            if (at + sz[i] <= area) {
                st[i] = at;
                at += sz[i];
            } else {
                st[i] = area - sz[i];
            }
        }
        cost = gtt_cover_cost_weighted(st, sz, ww, n);
    }
    free(it), free(st), free(sz), free(ww);
    return cost;
}

uint64_t gtt_floor_cycle(uint64_t area, const uint64_t *size, unsigned n)
{
    return gtt_floor_weighted(area, size, NULL, n);
}
