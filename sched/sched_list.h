/*
 * sched_list.h — intrusive FIFO lists of vGPU ids (the rr and credit run queues).
 *
 * The nodes live in one array indexed by vGPU id, shared by every list of a scheduler: a vGPU
 * is on at most one list at a time.  Append, remove and pop are O(1).
 */
#ifndef TESSERA_SCHED_SCHED_LIST_H
#define TESSERA_SCHED_SCHED_LIST_H

#include <stdbool.h>
#include <stdint.h>

#define SCHED_LIST_NIL UINT32_MAX

struct sched_list_node {
    uint32_t prev, next;
    uint8_t on; /* 0 = on no list, else list tag + 1 */
};

struct sched_list {
    struct sched_list_node *nodes;
    uint32_t head, tail, n;
    uint8_t tag;
};

void sched_list_init(struct sched_list *l, struct sched_list_node *nodes, uint8_t tag);
bool sched_list_contains(const struct sched_list *l, uint32_t id);
void sched_list_append(struct sched_list *l, uint32_t id); /* id must be on no list */
void sched_list_remove(struct sched_list *l, uint32_t id); /* no-op when not on l */
uint32_t sched_list_pop(struct sched_list *l);             /* SCHED_LIST_NIL when empty */

#endif
