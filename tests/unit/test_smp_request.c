/* Requests to a vCPU and when its owner is kicked (vmm/smp/vcpu_request.c), on one thread: no
 * kick for an owner in the hypervisor, one kick for an owner in the guest or idle however many
 * requests come, an entry refused while requests are pending, tickets handled in order.
 * tests/host/test_smp_race.c runs it across threads under ThreadSanitizer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "vmm/smp/vcpu_request.h"

enum { REQ_STOP = 1u << 0, REQ_FLUSH_EPT = 1u << 1 };

static void owner_in_hypervisor_is_not_kicked(void **state)
{
    (void)state;
    struct vcpu_requests r;
    uint64_t t, upto;
    vreq_init(&r);
    assert_false(vreq_post(&r, REQ_FLUSH_EPT, &t));
    assert_int_equal(t, 1);
    assert_false(vreq_handled(&r, t));
    /* The owner does not enter with a request pending: it takes it first. */
    assert_false(vreq_leave(&r, VCPU_IN_GUEST));
    assert_int_equal(r.mode, VCPU_IN_HYPERVISOR);
    assert_int_equal(vreq_take(&r, &upto), REQ_FLUSH_EPT);
    assert_int_equal(upto, 1);
    vreq_ack(&r, upto);
    assert_true(vreq_handled(&r, t));
    assert_true(vreq_leave(&r, VCPU_IN_GUEST));
}

static void one_kick_per_entry(void **state)
{
    (void)state;
    struct vcpu_requests r;
    uint64_t t1, t2, t3, upto;
    vreq_init(&r);
    assert_true(vreq_leave(&r, VCPU_IN_GUEST));
    assert_true(vreq_post(&r, REQ_STOP, &t1));       /* in the guest: kick */
    assert_false(vreq_post(&r, REQ_FLUSH_EPT, &t2)); /* kicked already */
    vreq_back(&r);                                   /* the guest exited on the IPI */
    assert_int_equal(vreq_take(&r, &upto), REQ_STOP | REQ_FLUSH_EPT);
    assert_int_equal(upto, t2);
    vreq_ack(&r, upto);
    assert_true(vreq_handled(&r, t1) && vreq_handled(&r, t2));
    /* Idle is kicked the same way, once. */
    assert_true(vreq_leave(&r, VCPU_IDLE));
    assert_true(vreq_post(&r, REQ_STOP, &t3));
    assert_false(vreq_post(&r, REQ_STOP, &t3));
    assert_int_equal(t3, 4);
    vreq_back(&r);
    assert_false(vreq_handled(&r, t3));
    assert_int_equal(vreq_take(&r, &upto), REQ_STOP);
    vreq_ack(&r, upto);
    assert_true(vreq_handled(&r, t3));
}

/* A post interleaved with a take: the take collects the bits before the ticket is counted, and
 * the requester, seeing the owner in the hypervisor, does not kick.  The ticket alone is then
 * pending: the owner must not idle (nobody would wake it) until it has acknowledged it. */
static void a_ticket_alone_keeps_the_owner(void **state)
{
    (void)state;
    struct vcpu_requests r;
    uint64_t upto;
    vreq_init(&r);
    __atomic_fetch_or(&r.pending, REQ_FLUSH_EPT, __ATOMIC_SEQ_CST); /* vreq_post, first half */
    assert_int_equal(vreq_take(&r, &upto), REQ_FLUSH_EPT);
    assert_int_equal(upto, 0);
    vreq_ack(&r, upto);
    __atomic_add_fetch(&r.posted, 1, __ATOMIC_SEQ_CST); /* second half: ticket 1, no kick */
    assert_false(vreq_handled(&r, 1));
    assert_false(vreq_leave(&r, VCPU_IDLE));
    assert_int_equal(vreq_take(&r, &upto), 0);
    assert_int_equal(upto, 1);
    vreq_ack(&r, upto);
    assert_true(vreq_handled(&r, 1));
    assert_true(vreq_leave(&r, VCPU_IDLE));
}

static void nothing_pending_takes_nothing(void **state)
{
    (void)state;
    struct vcpu_requests r;
    uint64_t upto;
    vreq_init(&r);
    assert_int_equal(vreq_take(&r, &upto), 0);
    assert_int_equal(upto, 0);
    assert_true(vreq_handled(&r, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(owner_in_hypervisor_is_not_kicked),
        cmocka_unit_test(one_kick_per_entry),
        cmocka_unit_test(a_ticket_alone_keeps_the_owner),
        cmocka_unit_test(nothing_pending_takes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
