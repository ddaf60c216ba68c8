/* The run queue of one CPU: which guest's vCPU runs next, and until when.  Pure: the caller
 * gives the clock, what each guest wants, its CPU time so far and a way to enter it; vcpu_run.c
 * enters with VT-x, the host tests (tests/unit/test_vmx_run_queue.c) a simulated guest.
 *
 * A round gives each guest that wants the CPU (runnable, or halted with an interrupt ready) one
 * slice, in index order.  A slice ends at its length (the configured slice scaled by the
 * guest's weight), when the vCPU halts or yields, or, after RQ_MIN_RUN_NS, when a guest that
 * has used less CPU (cpu_share.h) wants the CPU.  Every entry's stop time (the VMX preemption
 * timer) is the earliest of those, the guest's own APIC timer and the next timer of such a
 * guest, so a vCPU that never exits (interrupts off, spinning) is cut there too.  A guest that
 * woke from a halt and is owed the CPU against the one whose turn is next runs first (wake-up
 * preemption, as BVT and CFS do): its wait after its timer is bounded by RQ_MIN_RUN_NS plus
 * one exit and the hypervisor's work after a slice, not by the other guests' slices.
 *
 * An exit whose work would run past the moment a guest owed the CPU wants it (a submission's
 * scan of a long batch) is put off instead (rq_defer): its instruction is executed again after
 * that guest has run, so the work of one guest's exit does not become another's wake-up
 * latency.  A piece of work waits at most as long as it takes, then runs whatever comes. */
#ifndef TESSERA_VMM_VCPU_RUN_QUEUE_H
#define TESSERA_VMM_VCPU_RUN_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "tessera/limits.h" /* TESSERA_MAX_GUESTS */
#include "vmm/vcpu/cpu_share.h"

#define RQ_MAX   TESSERA_MAX_GUESTS
#define RQ_NONE  RQ_MAX
#define RQ_NEVER UINT64_MAX
#define RQ_MIN_RUN_NS \
    1000000ull /* a slice cut for a guest that is owed the CPU still runs this long */
/* Exit work shorter than this is done at once (rq_defer): a tenth of the least run, it adds
 * little to a wake-up's wait and putting it off costs its guest the rest of its slice. */
#define RQ_DEFER_MIN_NS (RQ_MIN_RUN_NS / 10u)

/* Guest i as the caller sees it now.  Times are in the clock's ticks. */
struct rq_guest {
    bool runs;         /* started, has a vCPU (stopped or crashed: false) */
    bool halted;       /* halted and no interrupt ready: off the queue */
    uint64_t timer_at; /* its next APIC timer deadline; RQ_NEVER if none */
};

enum rq_exit {
    RQ_RESUME,  /* the exit is handled; enter it again */
    RQ_YIELD,   /* it halted or yielded: its slice ends */
    RQ_STOPPED, /* it stopped (crashed, powered off, reset) */
};

struct rq_ops {
    void *ctx;
    uint64_t (*now)(void *ctx); /* the clock, in ticks */
    void (*guest)(void *ctx, unsigned i, uint64_t now, struct rq_guest *g);
    /* Guest i's CPU since boot in ns: its vCPU's finished slices and the rendering done for it. */
    uint64_t (*cpu_ns)(void *ctx, unsigned i);
    bool (*slice_begin)(void *ctx, unsigned i); /* false: it cannot run now */
    /* Runs guest i until an exit, which must come by tick `until` (it may come earlier). */
    enum rq_exit (*enter)(void *ctx, unsigned i, uint64_t until);
    void (*slice_end)(void *ctx, unsigned i, uint64_t ns); /* its slice took ns */
    bool (*between)(void *ctx); /* after every slice (the render loop); true if it has more */
    /* After every slice: true when the hypervisor has work that should not wait for the round's
     * end (the operator typed at the shell).  The round stops there and the next one goes on
     * with the guests that had no turn yet.  May be NULL. */
    bool (*cut)(void *ctx);
};

struct rq_wake_stats {
    uint64_t wakes;                /* wake-ups from a timed halt */
    uint64_t late_ns, late_max_ns; /* the CPU after the timer's deadline: in all, the most */
    /* Where late_ns went: until the queue saw it ready (the exit, or the hypervisor's pass
     * between slices, under way at the deadline), other vCPUs' slices after that, and the
     * hypervisor's own work after that (render loop, wall, shell). */
    uint64_t unseen_ns, vcpus_ns, hypervisor_ns;
};

struct run_queue {
    struct rq_ops ops;
    unsigned n;
    uint64_t ticks_per_us;
    uint64_t slice[RQ_MAX]; /* ticks */
    struct cpu_share share;
    unsigned running; /* the guest in a slice, RQ_NONE between slices */
    uint64_t running_since;
    bool halted_seen[RQ_MAX]; /* it was halted when last looked at */
    bool woke[RQ_MAX];        /* came out of a halt, has not run since */
    bool ran[RQ_MAX];         /* had its turn this round */
    bool wanted[RQ_MAX];      /* used its whole slice last round */
    uint64_t round_ticks[RQ_MAX];
    uint64_t halted_due[RQ_MAX]; /* the timer it halted until at its last slice's end */
    uint64_t wakes[RQ_MAX], late[RQ_MAX], late_max[RQ_MAX]; /* ticks */
    uint64_t unseen[RQ_MAX], late_vcpus[RQ_MAX];
    uint64_t seen_at[RQ_MAX], seen_slices[RQ_MAX]; /* when its wake-up was seen; slice_ticks then */
    uint64_t slice_ticks;                          /* all vCPUs' time on this CPU, since init */
    /* Work put off (rq_defer): guest i wants no CPU before defer_until; the piece of work
     * (key) it has waited for since defer_since (defer_waiting); how many, how long in all. */
    uint64_t defer_until[RQ_MAX], defer_since[RQ_MAX], defer_key[RQ_MAX];
    bool defer_waiting[RQ_MAX];
    uint64_t deferred[RQ_MAX], deferred_ticks[RQ_MAX];
    uint64_t wait_ticks, demand_ticks;
    bool cut_short;       /* the last round stopped early (ops.cut): the next goes on with it */
    bool cut_busy;        /* ... and what it would have returned so far */
    uint64_t round_start; /* the round's start, across the calls of a round cut short */
};

/* n guests, their weights (100 = one slice) and slices (ns); the clock runs at ticks_per_us. */
void rq_init(struct run_queue *q, const struct rq_ops *ops, unsigned n, const uint32_t *weight,
             const uint64_t *slice_ns, uint64_t ticks_per_us);
/* One round over the guests, or its rest after a cut (ops.cut).  True when a guest used its
 * whole slice, `between` had more, or the round was cut short. */
bool rq_round(struct run_queue *q);
/* True when a guest other than `runner` that has used less CPU wants the CPU now: work done
 * for runner outside its slice (its rendering) gives the CPU back. */
bool rq_owed(struct run_queue *q, unsigned runner);
/* True when a guest came out of a halt and has not run since. */
bool rq_wake_pending(struct run_queue *q);
void rq_wake_stats(const struct run_queue *q, unsigned i, struct rq_wake_stats *st);
/* Guest i, running, is about to do `cost` ticks of work in an exit for the piece of work `key`
 * (the same key while it is retried: the instruction's address).  True: put it off, end the
 * slice and execute the instruction again later; the guest wants no CPU until the guest owed
 * it that was in the way has had it.  False: do it now (it is short, it fits before anyone
 * owed the CPU wants it, or it has already waited `cost`). */
bool rq_defer(struct run_queue *q, unsigned i, uint64_t key, uint64_t cost);
/* How many pieces of guest i's exit work were put off, and how long they waited in all (ns). */
void rq_defer_stats(const struct run_queue *q, unsigned i, uint64_t *count, uint64_t *waited_ns);
/* Run-queue waiting, for the balloon controller: the time guests that used their whole slice
 * waited while others ran, and the time they wanted the CPU (round lengths); ns since init. */
void rq_wait_stats(const struct run_queue *q, uint64_t *wait_ns, uint64_t *demand_ns);

#endif
