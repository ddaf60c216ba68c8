/* The cross-CPU protocols of vmm/smp/ on real threads, built with ThreadSanitizer (mk/host.mk:
 * test_*_race.c): a producer and a consumer through the ring, the consumer sleeping whenever it
 * finds it empty and woken only when spsc_push says so; two requesters posting to a vCPU whose
 * owner enters the guest and idles, and leaves either only when kicked.  A lost wake-up or a
 * missing kick leaves a thread waiting: every wait has a deadline that fails the test, and
 * TSan fails it on a data race. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "vmm/smp/spsc_ring.h"
#include "vmm/smp/vcpu_request.h"

#define DEADLINE_S 20

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- the ring --------------------------------------------------------------------------- */

#define RING_MESSAGES 200000u

struct msg {
    uint64_t seq, check;
};

static struct {
    struct spsc_ring r;
    struct msg mem[16];
    unsigned wakes; /* the "IPI": the producer raises it, the sleeping consumer waits for it */
    unsigned sleeps, lost;
} ring;

static void *producer(void *arg)
{
    (void)arg;
    for (uint64_t i = 0; i < RING_MESSAGES; i++) {
        bool was_empty;
        while (!spsc_push(&ring.r, &(struct msg){ i, i * 0x9E3779B97F4A7C15ull }, &was_empty)) {
            if (__atomic_load_n(&ring.lost, __ATOMIC_SEQ_CST))
                return NULL; /* the consumer gave up */
            sched_yield();   /* full: the consumer is behind */
        }
        if (was_empty)
            __atomic_fetch_add(&ring.wakes, 1, __ATOMIC_SEQ_CST);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    uint64_t next = 0;
    while (next < RING_MESSAGES) {
        /* As a CPU does: interrupts off (the wake count read), look, and halt only if empty; a
         * wake sent after the look ends the halt. */
        unsigned seen = __atomic_load_n(&ring.wakes, __ATOMIC_SEQ_CST);
        struct msg m;
        if (spsc_pop(&ring.r, &m)) {
            if (m.seq != next || m.check != next * 0x9E3779B97F4A7C15ull)
                __atomic_fetch_add(&ring.lost, 1, __ATOMIC_SEQ_CST);
            next++;
            continue;
        }
        ring.sleeps++;
        double end = now_s() + DEADLINE_S;
        while (__atomic_load_n(&ring.wakes, __ATOMIC_SEQ_CST) == seen) {
            if (now_s() > end) {
                __atomic_store_n(&ring.lost, UINT32_MAX,
                                 __ATOMIC_SEQ_CST); /* asleep, a message in */
                return NULL;
            }
            sched_yield();
        }
    }
    return NULL;
}

static void ring_across_threads(void **state)
{
    (void)state;
    assert_true(spsc_init(&ring.r, ring.mem, 16, sizeof(struct msg)));
    pthread_t p, c;
    assert_int_equal(pthread_create(&c, NULL, consumer, NULL), 0);
    assert_int_equal(pthread_create(&p, NULL, producer, NULL), 0);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    assert_int_equal(ring.lost, 0);
    assert_int_equal(spsc_count(&ring.r), 0);
    print_message("ring: %u messages, the consumer slept %u times, woken %u times\n", RING_MESSAGES,
                  ring.sleeps, ring.wakes);
}

/* ---- requests and kicks ------------------------------------------------------------------ */

#define REQUESTERS 2
#define REQUESTS   20000u

static struct {
    struct vcpu_requests r;
    unsigned kick;     /* the IPI: requesters raise it, the owner in guest or idle waits for it */
    unsigned finished; /* requesters done */
    unsigned kicks, entries, idles, refused, handled_bits;
    unsigned failed;
} vc;

static void *owner(void *arg)
{
    (void)arg;
    unsigned round = 0;
    while (__atomic_load_n(&vc.finished, __ATOMIC_SEQ_CST) < REQUESTERS) {
        uint64_t upto;
        vc.handled_bits |= vreq_take(&vc.r, &upto);
        vreq_ack(&vc.r, upto);
        /* Interrupts off from here: a kick sent now is seen after the look below. */
        unsigned seen = __atomic_load_n(&vc.kick, __ATOMIC_SEQ_CST);
        bool idle = (++round & 3u) == 0;
        if (!vreq_leave(&vc.r, idle ? VCPU_IDLE : VCPU_IN_GUEST)) {
            vc.refused++;
            continue;
        }
        idle ? vc.idles++ : vc.entries++;
        /* In the guest the preemption timer ends a slice anyway (a few turns); idle, only a
         * kick (or the last requester's goodbye) does. */
        double end = now_s() + DEADLINE_S;
        for (unsigned turn = 0; __atomic_load_n(&vc.kick, __ATOMIC_SEQ_CST) == seen; turn++) {
            if ((!idle && turn > 50) ||
                __atomic_load_n(&vc.finished, __ATOMIC_SEQ_CST) == REQUESTERS)
                break;
            if (now_s() > end) {
                __atomic_store_n(&vc.failed, 1,
                                 __ATOMIC_SEQ_CST); /* idle with a request and no kick */
                break;
            }
            sched_yield();
        }
        vreq_back(&vc.r);
    }
    return NULL;
}

static void *requester(void *arg)
{
    uint32_t bit = 1u << (uintptr_t)arg;
    for (unsigned i = 0; i < REQUESTS; i++) {
        uint64_t ticket;
        if (vreq_post(&vc.r, bit, &ticket)) {
            __atomic_fetch_add(&vc.kicks, 1, __ATOMIC_SEQ_CST);
            __atomic_fetch_add(&vc.kick, 1, __ATOMIC_SEQ_CST);
        }
        double end = now_s() + DEADLINE_S;
        while (!vreq_handled(&vc.r, ticket)) {
            if (now_s() > end) {
                __atomic_store_n(&vc.failed, 2, __ATOMIC_SEQ_CST); /* never handled */
                __atomic_fetch_add(&vc.finished, 1, __ATOMIC_SEQ_CST);
                return NULL;
            }
            sched_yield();
        }
    }
    __atomic_fetch_add(&vc.finished, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void requests_across_threads(void **state)
{
    (void)state;
    vreq_init(&vc.r);
    pthread_t o, q[REQUESTERS];
    assert_int_equal(pthread_create(&o, NULL, owner, NULL), 0);
    for (uintptr_t i = 0; i < REQUESTERS; i++)
        assert_int_equal(pthread_create(&q[i], NULL, requester, (void *)i), 0);
    for (unsigned i = 0; i < REQUESTERS; i++)
        pthread_join(q[i], NULL);
    pthread_join(o, NULL);
    assert_int_equal(vc.failed, 0);
    assert_int_equal(vc.handled_bits, (1u << REQUESTERS) - 1);
    assert_int_equal(vc.r.done, (uint64_t)REQUESTERS * REQUESTS);
    /* A kick only for an owner that was leaving the hypervisor: at most one per entry, idle or
     * refused entry (where both sides saw each other: that kick is spurious). */
    assert_true(vc.kicks <= vc.entries + vc.idles + vc.refused);
    print_message("requests: %u posted, %u kicks, %u entries, %u idles, %u entries refused for "
                  "pending requests\n",
                  REQUESTERS * REQUESTS, vc.kicks, vc.entries, vc.idles, vc.refused);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ring_across_threads),
        cmocka_unit_test(requests_across_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
