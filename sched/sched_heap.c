/* sched_heap.c — indexed binary min-heap (see sched_heap.h). */
#include "sched/sched_heap.h"

#include <stdlib.h>

int sched_heap_init(struct sched_heap *h, uint32_t cap)
{
    h->n = 0;
    h->cap = cap;
    h->e = cap ? calloc(cap, sizeof(*h->e)) : NULL;
    h->pos = cap ? calloc(cap, sizeof(*h->pos)) : NULL;
    if (!h->e || !h->pos) {
        sched_heap_fini(h);
        return -1;
    }
    return 0;
}

void sched_heap_fini(struct sched_heap *h)
{
    free(h->e);
    free(h->pos);
    h->e = NULL;
    h->pos = NULL;
    h->n = h->cap = 0;
}

static bool less(const struct sched_heap_entry *a, const struct sched_heap_entry *b)
{
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static void place(struct sched_heap *h, uint32_t slot, struct sched_heap_entry ent)
{
    h->e[slot] = ent;
    h->pos[ent.id] = slot + 1;
}

static void sift_up(struct sched_heap *h, uint32_t slot)
{
    struct sched_heap_entry ent = h->e[slot];
    while (slot > 0) {
        uint32_t parent = (slot - 1) / 2;
        if (!less(&ent, &h->e[parent]))
            break;
        place(h, slot, h->e[parent]);
        slot = parent;
    }
    place(h, slot, ent);
}

static void sift_down(struct sched_heap *h, uint32_t slot)
{
    struct sched_heap_entry ent = h->e[slot];
    for (;;) {
        uint32_t child = 2 * slot + 1;
        if (child >= h->n)
            break;
        if (child + 1 < h->n && less(&h->e[child + 1], &h->e[child]))
            child++;
        if (!less(&h->e[child], &ent))
            break;
        place(h, slot, h->e[child]);
        slot = child;
    }
    place(h, slot, ent);
}

bool sched_heap_contains(const struct sched_heap *h, uint32_t id)
{
    return id < h->cap && h->pos[id] != 0;
}

int sched_heap_push(struct sched_heap *h, uint32_t id, uint64_t key, uint64_t seq)
{
    if (id >= h->cap || h->pos[id] != 0 || h->n >= h->cap)
        return -1;
    struct sched_heap_entry ent = { .key = key, .seq = seq, .id = id };
    place(h, h->n, ent);
    h->n++;
    sift_up(h, h->n - 1);
    return 0;
}

const struct sched_heap_entry *sched_heap_top(const struct sched_heap *h)
{
    return h->n ? &h->e[0] : NULL;
}

int sched_heap_remove(struct sched_heap *h, uint32_t id)
{
    if (!sched_heap_contains(h, id))
        return -1;
    uint32_t slot = h->pos[id] - 1;
    h->pos[id] = 0;
    h->n--;
    if (slot == h->n)
        return 0;
    /* Move the last entry into the hole and restore order in whichever direction it breaks. */
    struct sched_heap_entry last = h->e[h->n];
    place(h, slot, last);
    if (slot > 0 && less(&last, &h->e[(slot - 1) / 2]))
        sift_up(h, slot);
    else
        sift_down(h, slot);
    return 0;
}

uint32_t sched_heap_pop(struct sched_heap *h)
{
    if (h->n == 0)
        return UINT32_MAX;
    uint32_t id = h->e[0].id;
    sched_heap_remove(h, id);
    return id;
}

void sched_heap_halve_keys(struct sched_heap *h)
{
    for (uint32_t i = 0; i < h->n; i++)
        h->e[i].key >>= 1;
    for (uint32_t i = h->n / 2; i-- > 0;)
        sift_down(h, i);
}
