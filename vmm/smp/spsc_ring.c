/* The single-producer single-consumer ring (spsc_ring.h). */
#include "vmm/smp/spsc_ring.h"

#include <string.h>

bool spsc_init(struct spsc_ring *r, void *memory, uint32_t slots, uint32_t size)
{
    if (!r || !memory || size == 0 || slots < 2 || slots > (1u << 30) || (slots & (slots - 1)))
        return false;
    r->head = r->tail = 0;
    r->mask = slots - 1;
    r->size = size;
    r->slots = memory;
    return true;
}

bool spsc_push(struct spsc_ring *r, const void *msg, bool *was_empty)
{
    uint32_t tail = r->tail; /* only this side writes it */
    uint32_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    if (tail - head > r->mask)
        return false;
    memcpy(r->slots + (size_t)(tail & r->mask) * r->size, msg, r->size);
    /* The message is in its slot before the consumer can see the new tail. */
    __atomic_store_n(&r->tail, tail + 1, __ATOMIC_RELEASE);
    /* Whether the consumer had read everything before this one, looked at after publishing it
     * with a full fence (paired with spsc_pop's): either the consumer's last look for a message
     * sees this one, or this look sees that it had emptied the ring and may be idle.  A head
     * read before publishing would miss a consumer that emptied the ring meanwhile. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (was_empty)
        *was_empty = __atomic_load_n(&r->head, __ATOMIC_RELAXED) == tail;
    return true;
}

bool spsc_pop(struct spsc_ring *r, void *msg)
{
    uint32_t head = r->head;                 /* only this side writes it */
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the last head written before this look (push) */
    uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    if (head == tail)
        return false;
    memcpy(msg, r->slots + (size_t)(head & r->mask) * r->size, r->size);
    /* The slot is read before the producer may write it again. */
    __atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
    return true;
}

uint32_t spsc_count(const struct spsc_ring *r)
{
    uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    uint32_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    return tail - head;
}
