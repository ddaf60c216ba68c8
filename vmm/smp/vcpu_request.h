/* Requests to a vCPU from other CPUs (stop, reset, inspect, flush its EPT translations, deliver
 * an interrupt): the owner of the vCPU, the one CPU that may load its VMCS, takes them at its
 * next look; a requester learns whether the owner must be kicked (an IPI, which makes a guest
 * exit or an idle CPU wake) and can wait until its request was handled.
 *
 * The owner is in one of three modes: running the hypervisor (it looks at its requests before
 * it enters the guest or idles), in the guest, or idle.  Entering the guest and idling follow
 * the same rule as posting, each side writing its own word and then reading the other's with a
 * full fence between: either the owner sees the request before it enters (and does not enter),
 * or the requester sees the owner in the guest (and kicks it).  A request is never left waiting
 * for an owner that sleeps or runs the guest without a kick, and an owner running the
 * hypervisor is never kicked.  Pure: the IPI is the caller's. */
#ifndef TESSERA_VMM_SMP_VCPU_REQUEST_H
#define TESSERA_VMM_SMP_VCPU_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

enum vcpu_mode {
    VCPU_IN_HYPERVISOR, /* will look at its requests before entering or idling */
    VCPU_IN_GUEST,      /* a request needs a kick: the guest exits on the IPI */
    VCPU_IDLE,          /* halted with interrupts on: a request needs a kick to wake it */
    VCPU_KICKED,        /* a requester has sent the kick; no other will until the owner looks */
};

struct vcpu_requests {
    uint32_t pending; /* request bits, set by requesters, taken by the owner */
    uint32_t mode;    /* enum vcpu_mode: the owner's */
    uint64_t posted;  /* requests posted so far; a request's ticket is its number */
    uint64_t done;    /* every ticket up to this one has been handled */
};

void vreq_init(struct vcpu_requests *r);

/* Requester: posts `bits` (non-zero).  Returns true when the caller must kick the owner (it was
 * in the guest or idle, and no other requester has kicked it since); *ticket is what
 * vreq_handled() waits for.  Any CPU, any number at once. */
bool vreq_post(struct vcpu_requests *r, uint32_t bits, uint64_t *ticket);

/* Requester: whether the request with `ticket` has been handled. */
bool vreq_handled(const struct vcpu_requests *r, uint64_t ticket);

/* Owner, running the hypervisor with interrupts off, about to enter the guest (or, with
 * VCPU_IDLE, to halt): announces it and returns true, or returns false and stays in the
 * hypervisor because requests are pending (take them first).  A requester may have seen the
 * announcement of a refused entry and kicked: that IPI arrives at an owner in the hypervisor and
 * costs at most one early exit. */
bool vreq_leave(struct vcpu_requests *r, enum vcpu_mode to);

/* Owner, back in the hypervisor (a VM exit, a wake-up). */
void vreq_back(struct vcpu_requests *r);

/* Owner: takes the pending bits (0 if none) and the ticket they cover; after handling them,
 * vreq_ack(r, upto) tells the requesters, also when no bits came (a request's bits can be
 * collected by the take before the one that covers its ticket). */
uint32_t vreq_take(struct vcpu_requests *r, uint64_t *upto);
void vreq_ack(struct vcpu_requests *r, uint64_t upto);

#endif
