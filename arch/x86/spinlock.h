/* A ticket lock: CPUs take it in the order they asked, so none waits behind a stream of later
 * arrivals.  x86's locked XADD is a full barrier (SDM Vol. 3A §9.2.3.8), and the release store
 * orders every earlier store before it under x86-TSO. */
#ifndef TESSERA_ARCH_X86_SPINLOCK_H
#define TESSERA_ARCH_X86_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct spinlock {
    uint32_t next;    /* the next ticket to hand out */
    uint32_t serving; /* the ticket that holds the lock */
};

static inline uint32_t spin_ticket(struct spinlock *l)
{
    return __atomic_fetch_add(&l->next, 1, __ATOMIC_ACQ_REL);
}

static inline bool spin_served(const struct spinlock *l, uint32_t ticket)
{
    return __atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) == ticket;
}

static inline void spin_lock(struct spinlock *l)
{
    uint32_t t = spin_ticket(l);
    while (!spin_served(l, t))
        __builtin_ia32_pause();
}

/* Takes the lock only if nobody holds it or waits for it. */
static inline bool spin_trylock(struct spinlock *l)
{
    uint32_t t = __atomic_load_n(&l->serving, __ATOMIC_ACQUIRE);
    return __atomic_compare_exchange_n(&l->next, &t, t + 1, false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_RELAXED);
}

static inline void spin_unlock(struct spinlock *l)
{
    __atomic_store_n(&l->serving, l->serving + 1, __ATOMIC_RELEASE);
}

#endif
