/* A bounded ring of fixed-size messages from one producer CPU to one consumer CPU, without a
 * lock: the producer alone writes `tail`, the consumer alone writes `head`, each publishes with
 * release and reads the other's with acquire (C11 memory model, as __atomic builtins).  One ring
 * per producer-consumer pair that the configuration fixes (a guest core's vGPU traps to the
 * render core, log lines to the boot CPU), so per-pair order is kept for free and no
 * multi-producer protocol is needed.  The memory is the caller's; nothing is allocated. */
#ifndef TESSERA_VMM_SMP_SPSC_RING_H
#define TESSERA_VMM_SMP_SPSC_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Indices run freely and are masked at use, so full (tail - head == slots) and empty
 * (tail == head) differ without a spare slot.  Head and tail sit on their own cache lines: the
 * two CPUs would otherwise bounce one line on every message. */
#define SPSC_CACHE_LINE 64

struct spsc_ring {
    _Alignas(SPSC_CACHE_LINE) uint32_t head; /* next slot to read: the consumer's */
    _Alignas(SPSC_CACHE_LINE) uint32_t tail; /* next slot to write: the producer's */
    _Alignas(SPSC_CACHE_LINE) uint32_t mask; /* slots - 1 */
    uint32_t size;                           /* bytes per message */
    uint8_t *slots;                          /* (mask + 1) * size bytes */
};

/* slots must be a power of two from 2 to 2^30; `memory` holds slots * size bytes.  False (the
 * ring unusable) otherwise. */
bool spsc_init(struct spsc_ring *r, void *memory, uint32_t slots, uint32_t size);

/* Producer: copies `msg` in.  False when the ring is full (nothing written: the producer keeps
 * the message and tries again).  *was_empty says whether the consumer had read every earlier
 * message when this one was published: only then may it be idle and need waking, so a burst
 * costs one wake-up, and a consumer that sleeps only after spsc_pop found the ring empty is
 * never left asleep with a message in it.  was_empty may be NULL. */
bool spsc_push(struct spsc_ring *r, const void *msg, bool *was_empty);

/* Consumer: copies the oldest message out.  False when the ring is empty. */
bool spsc_pop(struct spsc_ring *r, void *msg);

/* Either side: the messages in the ring at the moment of the call (a snapshot). */
uint32_t spsc_count(const struct spsc_ring *r);

#endif
