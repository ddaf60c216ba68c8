/* sched_list.c — intrusive FIFO lists of vGPU ids (see sched_list.h). */
#include "sched/sched_list.h"

void sched_list_init(struct sched_list *l, struct sched_list_node *nodes, uint8_t tag)
{
    l->nodes = nodes;
    l->head = l->tail = SCHED_LIST_NIL;
    l->n = 0;
    l->tag = tag;
}

bool sched_list_contains(const struct sched_list *l, uint32_t id)
{
    return l->nodes[id].on == l->tag + 1;
}

void sched_list_append(struct sched_list *l, uint32_t id)
{
    struct sched_list_node *nd = &l->nodes[id];
    if (nd->on)
        return;
    nd->on = (uint8_t)(l->tag + 1);
    nd->next = SCHED_LIST_NIL;
    nd->prev = l->tail;
    if (l->tail != SCHED_LIST_NIL)
        l->nodes[l->tail].next = id;
    else
        l->head = id;
    l->tail = id;
    l->n++;
}

void sched_list_remove(struct sched_list *l, uint32_t id)
{
    struct sched_list_node *nd = &l->nodes[id];
    if (!sched_list_contains(l, id))
        return;
    if (nd->prev != SCHED_LIST_NIL)
        l->nodes[nd->prev].next = nd->next;
    else
        l->head = nd->next;
    if (nd->next != SCHED_LIST_NIL)
        l->nodes[nd->next].prev = nd->prev;
    else
        l->tail = nd->prev;
    nd->on = 0;
    nd->prev = nd->next = SCHED_LIST_NIL;
    l->n--;
}

uint32_t sched_list_pop(struct sched_list *l)
{
    uint32_t id = l->head;
    if (id != SCHED_LIST_NIL)
        sched_list_remove(l, id);
    return id;
}
