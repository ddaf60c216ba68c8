/*
 * sched_heap.h — an indexed binary min-heap of vGPU ids, ordered by (key, seq).
 *
 * The fair and las policies keep their runnable vGPUs here: the one to run next is at the top
 * (O(1) to see, O(log n) to take out or put back).  `pos` maps an id to its slot so a vGPU that
 * goes idle can be taken out from the middle in O(log n) too.  seq breaks ties first-in
 * first-out, so equal keys are served in the order they were queued.
 */
#ifndef TESSERA_SCHED_SCHED_HEAP_H
#define TESSERA_SCHED_SCHED_HEAP_H

#include <stdbool.h>
#include <stdint.h>

struct sched_heap_entry {
    uint64_t key;
    uint64_t seq;
    uint32_t id;
};

struct sched_heap {
    struct sched_heap_entry *e;
    uint32_t *pos;   /* pos[id] = slot + 1, 0 when absent */
    uint32_t n, cap; /* ids are 0..cap-1 */
};

int sched_heap_init(struct sched_heap *h, uint32_t cap); /* 0 or -1 (no memory / cap 0) */
void sched_heap_fini(struct sched_heap *h);
bool sched_heap_contains(const struct sched_heap *h, uint32_t id);
/* 0, or -1 when id is out of range or already present. */
int sched_heap_push(struct sched_heap *h, uint32_t id, uint64_t key, uint64_t seq);
/* The top entry or NULL when empty. */
const struct sched_heap_entry *sched_heap_top(const struct sched_heap *h);
/* Takes the top out; returns its id or UINT32_MAX when empty. */
uint32_t sched_heap_pop(struct sched_heap *h);
/* 0, or -1 when absent. */
int sched_heap_remove(struct sched_heap *h, uint32_t id);
/* Halves every key (las's decay of history) and restores heap order, O(n): halving keeps the
 * keys' order but can create ties that seq then orders differently. */
void sched_heap_halve_keys(struct sched_heap *h);

#endif
