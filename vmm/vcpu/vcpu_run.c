/* Every CPU's run queue (run_queue.h) over the vCPUs placed on it, entered with VT-x. */
#include "vmm/vcpu/vcpu_run.h"

#include "arch/x86/cpu.h"
#include "arch/x86/smp.h"
#include "arch/x86/timer.h"
#include "vmm/hv_lock.h"
#include "vmm/log.h"
#include "vmm/smp/placement.h"
#include "vmm/smp/vcpu_request.h"
#include "vmm/vcpu/exit.h"
#include "vmm/vcpu/guest_msr.h"
#include "vmm/vcpu/inject.h"
#include "vmm/vcpu/run_queue.h"
#include "vmm/vcpu/vmx_setup.h"
#include "vmm/vm.h"

#include <stdio.h>
#include <string.h>

static inline void fxsave(void *area)
{
    __asm__ volatile("fxsave64 (%0)" : : "r"(area) : "memory");
}
static inline void fxrstor(const void *area)
{
    __asm__ volatile("fxrstor64 (%0)" : : "r"(area) : "memory");
}

/* The preemption timer counts down at TSC >> shift (SDM §26.5.1); the field is 32 bits.  Rounded
 * up, so the exit comes no earlier than `tsc` ticks from now. */
static uint32_t preemption_ticks(uint64_t tsc)
{
    uint64_t t = (tsc >> vmx.preemption_shift) +
                 ((tsc & ((1ULL << vmx.preemption_shift) - 1)) != 0);
    return t == 0 ? 1 : t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

static uint64_t (*render_cpu)(unsigned id);
static bool (*render_poll)(void);
/* The CPU whose loop runs the render loop (render_poll): the boot CPU until placement says. */
static unsigned render_at;

void vcpu_set_render_cpu(uint64_t (*fn)(unsigned id))
{
    render_cpu = fn;
}

void vcpu_set_render_loop(bool (*poll)(void))
{
    render_poll = poll;
}

static bool (*chores_waiting)(void);

void vcpu_set_chores_waiting(bool (*waiting)(void))
{
    chores_waiting = waiting;
}

/* ---- each CPU's queue over the vCPUs it owns ------------------------------------------------ */

/* Requests to a CPU from the one holding the hypervisor lock: look again (an interrupt may be
 * ready, a guest stopped or restarted), or drop the EPT translations of its guests. */
enum { REQ_LOOK = 1u << 0, REQ_FLUSH_EPT = 1u << 1 };
/* The longest an AP waits for its turn at the lock after one exit (lock_share): with extreme
 * weights (1 beside 63 guests of 1000) one long exit would otherwise keep it out for seconds. */
#define LOCK_SHARE_MAX_WAIT_US 100000

struct cpu_queue {
    struct run_queue q;
    unsigned cpu;
    unsigned n;
    struct vcpu *vcpu_of[RQ_MAX]; /* slot -> vCPU */
    struct vcpu_requests req;
    uint64_t lock_after; /* an AP: no exit handled before this TSC (lock_share) */
    uint64_t backoffs, backoff_ticks;
};

static struct cpu_queue queues[SMP_MAX_CPUS];
static bool placed;
/* Some AP runs guests or the render loop: the lock changes hands and requests come.  Without,
 * the boot CPU keeps the lock through its guests' entries, as one CPU needs nobody's leave (a
 * CPUID exit's round trip costs 3,913 Bochs ticks that way and 5,611 through the lock and
 * requests). */
static bool shared;

static struct vcpu *vcpu_at(const struct cpu_queue *cq, unsigned slot)
{
    return cq->vcpu_of[slot];
}

static struct cpu_queue *queue_of(const struct vcpu *c)
{
    return &queues[c->pcpu];
}

static struct cpu_queue *render_queue(void)
{
    return &queues[render_at];
}

static struct cpu_queue *this_queue(void)
{
    return &queues[smp_this_cpu()];
}

/* Takes this CPU's requests, without the lock: the requester holds it and waits. */
static void take_requests(struct cpu_queue *cq)
{
    uint64_t upto;
    uint32_t bits = vreq_take(&cq->req, &upto);
    if (bits & REQ_FLUSH_EPT) {
        for (unsigned s = 0; s < cq->n; s++) {
            const struct vm *vm = vcpu_at(cq, s)->vm;
            if (vm->ept_ready)
                invept(INVEPT_SINGLE_CONTEXT, ept_eptp(&vm->ept));
        }
    }
    vreq_ack(&cq->req, upto);
}

/* From the holder of the lock: asks CPU cq for `bits`, kicking it when it is in a guest or idle,
 * and with `wait` returns once that CPU has taken them (or is lost: out of any guest). */
static void request(struct cpu_queue *cq, uint32_t bits, bool wait)
{
    uint64_t ticket;
    if (vreq_post(&cq->req, bits, &ticket))
        smp_kick(cq->cpu);
    while (wait && !vreq_handled(&cq->req, ticket)) {
        if (smp_state(smp_cpu(cq->cpu)) == CPU_LOST)
            return;
        cpu_pause();
    }
}

/* No vCPU is elsewhere while no AP runs guests: then the MSI and EPT paths read no LAPIC. */
static bool elsewhere(const struct vcpu *c)
{
    return shared && c->pcpu != smp_this_cpu();
}

void vcpu_kick_one(struct vcpu *c)
{
    if (elsewhere(c))
        request(queue_of(c), REQ_LOOK, false);
}

void vcpu_kick(struct vm *vm)
{
    for (unsigned i = 0; i < vm->n_vcpus; i++)
        vcpu_kick_one(vm->vcpus[i]);
}

void vcpu_hold(struct vm *vm)
{
    for (unsigned i = 0; i < vm->n_vcpus; i++)
        if (elsewhere(vm->vcpus[i]))
            request(queue_of(vm->vcpus[i]), REQ_LOOK, true);
}

void vcpu_render_kick(void)
{
    if (shared && render_at != smp_this_cpu())
        request(render_queue(), REQ_LOOK, false);
}

void vcpu_ept_flush(struct vm *vm)
{
    bool here = false;
    for (unsigned i = 0; i < vm->n_vcpus; i++) {
        if (elsewhere(vm->vcpus[i]))
            request(queue_of(vm->vcpus[i]), REQ_FLUSH_EPT, true);
        else
            here = true;
    }
    if (here)
        invept(INVEPT_SINGLE_CONTEXT, ept_eptp(&vm->ept));
}

/* ---- the hypervisor lock as a shared resource ------------------------------------------------ */

/* A guest alone on its core whose exits do long work (a batch scan, a fence rewrite) would hold
 * the hypervisor lock most of the time, and the boot CPU, whose render loop and guests need it
 * too, would wait: its core is its own, the lock is everybody's.  So when another CPU waited
 * for the lock while an AP handled an exit that held it for `held` ticks, that AP handles its
 * next exit no sooner than held * (W / w - 1) later, w being the guest's weight and W the sum
 * over the running guests: under contention its exits get at most their weight's share of the
 * lock (a wait is at most LOCK_SHARE_MAX_WAIT_US).  Uncontended, nothing waits.  The boot CPU's
 * guests share their CPU with the render loop through the run queue, which already charges
 * their exit work. */
static void lock_share(struct cpu_queue *cq, const struct vm *vm, uint64_t held)
{
    if (cq->cpu == 0 || !hv_lock_contended())
        return;
    uint64_t total = 0;
    for (unsigned i = 0; i < vm_count(); i++)
        if (vm_get(i)->state == VM_RUNNING)
            total += vm_get(i)->cfg->weight;
    uint32_t w = vm->cfg->weight ? vm->cfg->weight : 1;
    if (total <= w)
        return;
    uint64_t wait = held * (total - w) / w,
             most = timer_tsc_hz() / 1000000 * LOCK_SHARE_MAX_WAIT_US;
    if (wait > most)
        wait = most;
    cq->lock_after = rdtsc() + wait;
    cq->backoffs++;
    cq->backoff_ticks += wait;
}

/* What a CPU answers whenever it is out of its guest without the lock: requests, and a call in
 * its mailbox (an AP's). */
static void answer(struct cpu_queue *cq)
{
    take_requests(cq);
    smp_poll_mailbox();
}

/* Before taking the lock for an exit: an AP whose last exit took more than its share waits, as
 * it would for the lock, answering meanwhile. */
static void wait_lock_turn(struct cpu_queue *cq)
{
    while (rdtsc() < cq->lock_after) {
        answer(cq);
        cpu_pause();
    }
}

/* With interrupts off, about to enter a guest: lets go of the lock and announces the entry.
 * False, with the lock taken again and the requests answered, when requests came first. */
static bool leave_for_guest(struct cpu_queue *cq)
{
    if (!shared)
        return true;
    hv_unlock();
    if (vreq_leave(&cq->req, VCPU_IN_GUEST))
        return true;
    irq_enable();
    take_requests(cq);
    hv_lock();
    return false;
}

/* Back from the guest, interrupts still off: announces it, turns interrupts on, answers the
 * requests and takes the lock when this CPU's turn comes. */
static void back_from_guest(struct cpu_queue *cq)
{
    if (shared)
        vreq_back(&cq->req);
    irq_enable();
    if (!shared)
        return;
    take_requests(cq);
    wait_lock_turn(cq);
    hv_lock();
}

/* ---- what the run queue asks of the machine; its clock is the TSC ---------------------------- */

static uint64_t rq_now(void *ctx)
{
    return rdtsc();
}

/* Looking at a halted vCPU also wakes it if an interrupt is ready (vcpu_irq_wake). */
/* An AP waiting for its STARTUP does not run (nor does it count as halted: no timer wakes it). */
static void rq_guest(void *ctx, unsigned i, uint64_t now, struct rq_guest *g)
{
    struct vcpu *c = vcpu_at(ctx, i);
    g->runs = c->vm->state == VM_RUNNING && vcpu_started(c);
    g->halted = g->runs && c->halted && !vcpu_irq_wake(c, now);
    uint64_t t = g->runs ? vcpu_irq_next_timer(c) : VLAPIC_NO_TIMER;
    g->timer_at = t == VLAPIC_NO_TIMER ? RQ_NEVER : t;
}

/* The render loop's CPU is counted only where it is spent: with the vCPUs that share its CPU
 * (a guest's rendering with its first vCPU). */
static uint64_t rq_cpu_ns(void *ctx, unsigned i)
{
    const struct cpu_queue *cq = ctx;
    const struct vcpu *c = vcpu_at(cq, i);
    bool renders = render_cpu && cq->cpu == render_at && c->index == 0;
    return c->run_ns + (renders ? render_cpu(c->vm->id) : 0);
}

static bool rq_slice_begin(void *ctx, unsigned i)
{
    struct vcpu *c = vcpu_at(ctx, i);
    if (vmptrld(c->vmcs_phys) != VMX_OK) {
        vm_stop(c->vm, VM_CRASHED, "VMPTRLD of the VMCS of its vCPU %u failed", c->index);
        return false;
    }
    if (!vcpu_irq_take_startup(c))
        return false;
    guest_msr_enter(c);
    return true;
}

/* The guest runs without the lock.  Its CPU announces the entry to requesters (vreq_leave) with
 * interrupts off, so a request either keeps it out or kicks it out; back from the guest it takes
 * its requests before it waits for the lock.  A guest that was stopped or restarted meanwhile
 * (by the lock's holder) has nothing to dispatch. */
static enum rq_exit rq_enter(void *ctx, unsigned i, uint64_t until)
{
    uint8_t host_fpu[512] __attribute__((aligned(16)));
    struct cpu_queue *cq = ctx;
    struct vcpu *c = vcpu_at(cq, i);
    struct vm *vm = c->vm;
    uint64_t tsc = rdtsc(), life = vm->boot_count;
    vcpu_irq_before_entry(c, tsc);
    vmwrite(VMCS_GUEST_PREEMPTION_TIMER, preemption_ticks(until > tsc ? until - tsc : 0));
    /* Interrupts stay off from here to the exit; one that arrives meanwhile makes the guest
     * exit and is taken by the host right after (external-interrupt exiting, SDM 25.2;
     * Bochs 2.7 misses that exit for a guest entered with IF = 0: docs/vmx-pure.md). */
    irq_disable();
    if (!leave_for_guest(cq))
        return vm->boot_count == life && vm->state == VM_RUNNING ? RQ_RESUME : RQ_STOPPED;
    fxsave(host_fpu);
    fxrstor(c->fpu);
    int rc = vmx_run(&c->gprs, c->launched);
    fxsave(c->fpu);
    fxrstor(host_fpu);
    back_from_guest(cq);
    if (vm->boot_count != life || vm->state != VM_RUNNING)
        return RQ_STOPPED;
    if (rc != VMX_OK) {
        vm_stop(vm, VM_CRASHED, "%s failed: %s", c->launched ? "VMRESUME" : "VMLAUNCH",
                rc == VMX_FAIL_VALID ? vmx_instruction_error_name(vmx_instruction_error())
                                     : "no valid VMCS");
        return RQ_STOPPED;
    }
    c->launched = true;
    uint64_t t0 = rdtsc();
    enum exit_action a = exit_dispatch(c);
    uint64_t work = rdtsc() - t0;
    lock_share(cq, vm, work);
    if (c->last_exit < EXIT_REASON_COUNT) {
        c->exit_work[c->last_exit] += work;
        if (work > c->exit_work_max[c->last_exit])
            c->exit_work_max[c->last_exit] = work;
    }
    return a == EXIT_RESUME ? RQ_RESUME : a == EXIT_YIELD ? RQ_YIELD : RQ_STOPPED;
}

static void rq_slice_end(void *ctx, unsigned i, uint64_t ns)
{
    struct vcpu *c = vcpu_at(ctx, i);
    guest_msr_leave(c);
    c->run_ns += ns;
}

/* The render loop shares its CPU with the vCPUs there: a piece of it after every slice (the
 * GPU model needs the CPU between slices, not once per round, or busy guests starve it). */
static bool rq_between(void *ctx)
{
    const struct cpu_queue *cq = ctx;
    return cq->cpu == render_at && render_poll && render_poll();
}

/* The boot CPU's chores (the shell) do not wait for its round's end: a byte the operator typed
 * waits one slice, not a round of them. */
static bool rq_cut(void *ctx)
{
    const struct cpu_queue *cq = ctx;
    return cq->cpu == 0 && chores_waiting && chores_waiting();
}

static const struct rq_ops machine_ops = {
    .now = rq_now,
    .guest = rq_guest,
    .cpu_ns = rq_cpu_ns,
    .slice_begin = rq_slice_begin,
    .enter = rq_enter,
    .slice_end = rq_slice_end,
    .between = rq_between,
    .cut = rq_cut,
};

/* ---- placement, and the loop of a CPU other than the boot CPU -------------------------------- */

static void lock_wait(void)
{
    answer(this_queue());
}

/* Nothing to run until an interrupt: the lock is let go and the CPU halts, announced to
 * requesters as idle so that one kicks it awake. */
static void idle(struct cpu_queue *cq)
{
    hv_unlock();
    irq_disable();
    if (vreq_leave(&cq->req, VCPU_IDLE)) {
        irq_enable_and_halt();
        vreq_back(&cq->req);
    } else {
        irq_enable();
    }
    answer(cq);
    hv_lock();
}

/* One round of a CPU's work: a piece of the render loop when it runs here, then a slice of each
 * of its guests; true when either wants more CPU at once. */
static bool cpu_round(struct cpu_queue *cq)
{
    bool gpu_busy = cq->cpu == render_at && render_poll && render_poll();
    return rq_round(&cq->q) || gpu_busy;
}

/* An AP's loop, for good: its own run queue, and the render loop if it was placed here. */
static void cpu_loop(void *arg)
{
    struct cpu_queue *cq = arg;
    timer_start_here();
    hv_lock();
    for (;;)
        if (!cpu_round(cq))
            idle(cq);
}

static void queue_init(struct cpu_queue *cq, unsigned cpu)
{
    uint32_t weight[RQ_MAX];
    uint64_t slice[RQ_MAX];
    for (unsigned s = 0; s < cq->n; s++) {
        weight[s] = vcpu_at(cq, s)->vm->cfg->weight;
        slice[s] = vcpu_at(cq, s)->vm->slice_ns;
    }
    cq->cpu = cpu;
    vreq_init(&cq->req);
    rq_init(&cq->q, &machine_ops, cq->n, weight, slice, timer_tsc_hz() / 1000000);
    cq->q.ops.ctx = cq;
}

void vcpu_place_all(uint64_t usable, unsigned render_cpu_wanted)
{
    if (placed)
        return; /* once: a vCPU's VMCS never moves */
    render_at = smp_place(usable, render_cpu_wanted);
    if (render_at != render_cpu_wanted)
        log_warn("render loop: CPU %u cannot run it here: it runs on CPU %u", render_cpu_wanted,
                 render_at);
    for (unsigned i = 0; i < vm_count(); i++) {
        struct vm *vm = vm_get(i);
        for (unsigned k = 0; k < vm->n_vcpus; k++) {
            struct vcpu *c = vm->vcpus[k];
            unsigned want = vm->cfg->cpus.cpu[k], cpu = smp_place(usable, want);
            char which[24] = "";
            if (vm->n_vcpus > 1)
                snprintf(which, sizeof which, ", vCPU %u", k);
            if (cpu != want)
                log_warn("guest %u (%s)%s: CPU %u cannot run guests here: it runs on CPU %u", i,
                         vm->cfg->name, which, want, cpu);
            if (queues[cpu].n == RQ_MAX) {
                log_error("guest %u (%s)%s: CPU %u runs %u vCPUs already: this one never runs", i,
                          vm->cfg->name, which, cpu, RQ_MAX);
                c->pcpu = cpu;
                c->slot = RQ_NONE;
                continue;
            }
            c->pcpu = cpu;
            c->slot = queues[cpu].n;
            queues[cpu].vcpu_of[queues[cpu].n++] = c;
        }
    }
    for (unsigned cpu = 0; cpu < SMP_MAX_CPUS; cpu++)
        if (cpu == 0 || cpu == render_at || queues[cpu].n)
            queue_init(&queues[cpu], cpu);
    hv_lock_set_wait(lock_wait);
    smp_set_lost_hook(hv_lock_drop_lost);
    placed = true;
    for (unsigned cpu = 1; cpu < SMP_MAX_CPUS; cpu++) {
        unsigned k = queues[cpu].n;
        bool render = cpu == render_at;
        if (!k && !render)
            continue;
        shared = true; /* before the AP can take the lock */
        if (!smp_run(cpu, cpu_loop, &queues[cpu])) {
            log_error("cpu %u: could not be given its work: %s", cpu,
                      render ? "the boot CPU runs the render loop" : "its guests do not run");
            if (render)
                render_at = 0;
        } else if (render) {
            log_info("cpu %u: runs the render loop and %u guest%s", cpu, k, k == 1 ? "" : "s");
        } else {
            log_info("cpu %u: runs %u guest%s", cpu, k, k == 1 ? "" : "s");
        }
    }
}

unsigned vcpu_render_cpu(void)
{
    return render_at;
}

bool vcpu_render_alone(void)
{
    return shared && render_at != 0 && !queues[render_at].n;
}

void vcpu_cpu_lost(unsigned cpu)
{
    if (cpu != render_at || cpu == 0)
        return;
    render_at = 0;
    log_warn("render loop: CPU %u was lost: the boot CPU runs it", cpu);
}

unsigned vcpu_cpu_vcpus(unsigned cpu, const struct vcpu **out, unsigned max)
{
    if (cpu >= SMP_MAX_CPUS)
        return 0;
    unsigned n = queues[cpu].n < max ? queues[cpu].n : max;
    for (unsigned s = 0; s < n; s++)
        out[s] = queues[cpu].vcpu_of[s];
    return queues[cpu].n;
}

struct owner_call {
    void (*fn)(void *arg);
    void *arg;
};

static void call_keeping_vmcs(void *p)
{
    const struct owner_call *oc = p;
    uint64_t current = vmptrst();
    oc->fn(oc->arg);
    if (current != VMX_NO_VMCS)
        vmptrld(current);
}

bool vcpu_on_owner(struct vcpu *c, void (*fn)(void *arg), void *arg)
{
    struct owner_call oc = { fn, arg };
    if (!elsewhere(c)) {
        call_keeping_vmcs(&oc);
        return true;
    }
    return smp_call(c->pcpu, call_keeping_vmcs, &oc, SMP_CALL_WAIT_US);
}

void vcpu_cpu_lock_waits(unsigned cpu, uint64_t *count, uint64_t *ns)
{
    uint64_t per_us = timer_tsc_hz() / 1000000;
    bool known = cpu < SMP_MAX_CPUS && per_us;
    *count = known ? queues[cpu].backoffs : 0;
    *ns = known ? queues[cpu].backoff_ticks * 1000 / per_us : 0;
}

void vcpu_idle(void)
{
    idle(&queues[0]);
}

/* Before vcpu_place_all (no guests, or VT-x off): everything on the boot CPU. */
static struct run_queue *boot_queue(void)
{
    if (!placed)
        vcpu_place_all(1, 0);
    return &queues[0].q;
}

bool vcpu_run_round(void)
{
    boot_queue();
    return cpu_round(&queues[0]);
}

bool vcpu_wake_pending(void)
{
    boot_queue();
    return rq_wake_pending(&render_queue()->q);
}

/* A runner on another CPU than the render loop's competes there only with its rendering: any
 * vCPU there that woke goes first.  With no vCPU there, nobody is owed that CPU. */
bool vcpu_owed_cpu(unsigned runner)
{
    const struct vm *vm = vm_get(runner);
    boot_queue();
    struct run_queue *q = &render_queue()->q;
    const struct vcpu *c = vm && vm->n_vcpus ? vm->vcpus[0] : NULL; /* the one its render charges */
    if (!c || c->pcpu != render_at || c->slot == RQ_NONE)
        return rq_wake_pending(q);
    return rq_owed(q, c->slot);
}

void vcpu_wait_stats(uint64_t *wait, uint64_t *demand)
{
    boot_queue();
    *wait = *demand = 0;
    for (unsigned cpu = 0; cpu < SMP_MAX_CPUS; cpu++) {
        uint64_t w, d;
        if (cpu && !queues[cpu].n)
            continue;
        rq_wait_stats(&queues[cpu].q, &w, &d);
        *wait += w;
        *demand += d;
    }
}

void vcpu_exit_work(const struct vcpu *c, unsigned reason, uint64_t *sum_ns, uint64_t *max_ns)
{
    uint64_t per_us = timer_tsc_hz() / 1000000;
    bool known = per_us && reason < EXIT_REASON_COUNT;
    *sum_ns = known ? c->exit_work[reason] * 1000 / per_us : 0;
    *max_ns = known ? c->exit_work_max[reason] * 1000 / per_us : 0;
}

bool vcpu_defer_work(const struct vcpu *c, uint64_t key, uint64_t cost_ns)
{
    uint64_t per_us = timer_tsc_hz() / 1000000;
    boot_queue();
    return per_us && c->slot != RQ_NONE &&
           rq_defer(&queue_of(c)->q, c->slot, key, cost_ns / 1000 * per_us);
}

void vcpu_defer_stats(const struct vcpu *c, uint64_t *count, uint64_t *waited_ns)
{
    boot_queue();
    if (c->slot != RQ_NONE)
        rq_defer_stats(&queue_of(c)->q, c->slot, count, waited_ns);
    else
        *count = *waited_ns = 0;
}

void vcpu_wake_stats(const struct vcpu *c, struct rq_wake_stats *st)
{
    boot_queue();
    if (c->slot != RQ_NONE)
        rq_wake_stats(&queue_of(c)->q, c->slot, st);
    else
        memset(st, 0, sizeof *st);
}
