/* Requests to a vCPU and when to kick its owner (vcpu_request.h). */
#include "vmm/smp/vcpu_request.h"

void vreq_init(struct vcpu_requests *r)
{
    r->pending = 0;
    r->mode = VCPU_IN_HYPERVISOR;
    r->posted = r->done = 0;
}

bool vreq_post(struct vcpu_requests *r, uint32_t bits, uint64_t *ticket)
{
    /* The bits are set before the ticket is counted: an owner that sees the count (vreq_take)
     * also sees the bits it covers. */
    __atomic_fetch_or(&r->pending, bits, __ATOMIC_SEQ_CST);
    *ticket = __atomic_add_fetch(&r->posted, 1, __ATOMIC_SEQ_CST);
    /* The owner's mode is read after the request is visible (both sequentially consistent):
     * paired with vreq_leave's write-then-read. */
    uint32_t mode = __atomic_load_n(&r->mode, __ATOMIC_SEQ_CST);
    while (mode == VCPU_IN_GUEST || mode == VCPU_IDLE) {
        if (__atomic_compare_exchange_n(&r->mode, &mode, VCPU_KICKED, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
            return true;
    }
    return false;
}

bool vreq_handled(const struct vcpu_requests *r, uint64_t ticket)
{
    return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE) >= ticket;
}

bool vreq_leave(struct vcpu_requests *r, enum vcpu_mode to)
{
    __atomic_store_n(&r->mode, (uint32_t)to, __ATOMIC_SEQ_CST);
    /* Both words: a request whose bits an earlier take collected before its ticket was counted
     * is pending only as a ticket not yet acknowledged, and its requester did not kick (it saw
     * the owner in the hypervisor).  Leaving then would keep it waiting until the next exit. */
    if (__atomic_load_n(&r->pending, __ATOMIC_SEQ_CST) == 0 &&
        __atomic_load_n(&r->posted, __ATOMIC_SEQ_CST) == r->done)
        return true;
    __atomic_store_n(&r->mode, VCPU_IN_HYPERVISOR, __ATOMIC_SEQ_CST);
    return false;
}

void vreq_back(struct vcpu_requests *r)
{
    __atomic_store_n(&r->mode, VCPU_IN_HYPERVISOR, __ATOMIC_SEQ_CST);
}

uint32_t vreq_take(struct vcpu_requests *r, uint64_t *upto)
{
    /* The count first: every request it covers has its bits set already (vreq_post). */
    *upto = __atomic_load_n(&r->posted, __ATOMIC_SEQ_CST);
    return __atomic_exchange_n(&r->pending, 0, __ATOMIC_SEQ_CST);
}

void vreq_ack(struct vcpu_requests *r, uint64_t upto)
{
    /* What handling the requests wrote is visible before a requester sees them done. */
    __atomic_store_n(&r->done, upto, __ATOMIC_RELEASE);
}
