/* How many GGTT entries must be written, per cycle of switches, for a set of busy ranges in
 * one area (the guest low area, or the slots): the measure the placement planner minimises
 * and the floor the benchmarks print beside Tessera's figure (docs/gtt.md "The floor").
 *
 * Model: in one cycle every busy range is brought in once.  A unit (entry, or slot of
 * entries) covered by k busy ranges is written k times per cycle if k >= 2 (each holder finds
 * it holding another's value) and never if k == 1.  So the cost of a placement is the sum of k
 * over the units with k >= 2, and the least cost over all placements is reached by putting as
 * many ranges apart as fit and stacking all the others on one place. */
#include <stdlib.h>

#include "gtt/gtt.h"

struct edge {
    uint64_t at;
    int d;          /* +1 a range starts, -1 one ends */
};

static int cmp_edge(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->d - y->d;         /* ends before starts at the same unit */
}

uint64_t gtt_cover_cost(const uint64_t *start, const uint64_t *size, unsigned n)
{
    struct edge *e = malloc((2 * (size_t)n + 1) * sizeof *e);
    if (!e)
        return UINT64_MAX;
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!size[i])
            continue;
        e[m++] = (struct edge){start[i], +1};
        e[m++] = (struct edge){start[i] + size[i], -1};
    }
    qsort(e, m, sizeof *e, cmp_edge);
    uint64_t cost = 0;
    long k = 0;
    for (unsigned i = 0; i < m; i++) {
        if (i > 0 && k >= 2)
            cost += (uint64_t)k * (e[i].at - e[i - 1].at);
        k += e[i].d;
    }
    free(e);
    return cost;
}

static int cmp_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x > y ? -1 : x < y;
}

/* Equal sizes w, n of them, area a: with c = a / w ranges apart and r = a - c w left over,
 * n <= c costs nothing; n = c + 1 puts the extra one over the leftover and w - r units of a
 * neighbour: 2 (w - r); n >= c + 2 stacks the n - c extra ones over the leftover and w - r
 * units of a neighbour: (n - c) r + (n - c + 1)(w - r) = n w - a + w.  No placement does
 * better: units covered once are at most a minus the units covered more than once, and with
 * two or more ranges left over, those cover at least w units together. */
uint64_t gtt_floor_cycle(uint64_t area, const uint64_t *size, unsigned n)
{
    if (n == 0)
        return 0;
    bool equal = true;
    uint64_t total = 0;
    for (unsigned i = 0; i < n; i++) {
        equal &= size[i] == size[0];
        total += size[i];
    }
    if (total <= area)
        return 0;
    if (equal && size[0]) {
        uint64_t w = size[0], c = area / w, r = area - c * w;
        if (n <= c)
            return 0;
        if (n == c + 1)
            return 2 * (w - r);
        return n * w - area + w;
    }
    /* Unequal sizes: the largest apart from the left while they fit, the others right-aligned
     * on the end of the area, and the cost of that placement. */
    uint64_t *sz = malloc(n * sizeof *sz), *st = malloc(n * sizeof *st);
    if (!sz || !st) {
        free(sz);
        free(st);
        return UINT64_MAX;
    }
    for (unsigned i = 0; i < n; i++)
        sz[i] = size[i] < area ? size[i] : area;
    qsort(sz, n, sizeof *sz, cmp_desc);
    uint64_t at = 0;
    for (unsigned i = 0; i < n; i++) {
        if (at + sz[i] <= area) {
            st[i] = at;
            at += sz[i];
        } else {
            st[i] = area - sz[i];
        }
    }
    uint64_t cost = gtt_cover_cost(st, sz, n);
    free(sz);
    free(st);
    return cost;
}
