/* The boot CPU's run queue (run_queue.h) over the guests' vCPUs, entered with VT-x. */
#include "vmm/vcpu/vcpu_run.h"

#include "arch/x86/cpu.h"
#include "arch/x86/timer.h"
#include "vmm/vcpu/exit.h"
#include "vmm/vcpu/guest_msr.h"
#include "vmm/vcpu/inject.h"
#include "vmm/vcpu/run_queue.h"
#include "vmm/vcpu/vmx_setup.h"
#include "vmm/vm.h"

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
static bool (*between_slices)(void);

void vcpu_set_render_cpu(uint64_t (*fn)(unsigned id))
{
    render_cpu = fn;
}

void vcpu_set_between_slices(bool (*fn)(void))
{
    between_slices = fn;
}

/* ---- what the run queue asks of the machine; its clock is the TSC ---------------------------- */

static uint64_t rq_now(void *ctx)
{
    return rdtsc();
}

/* Looking at a halted vCPU also wakes it if an interrupt is ready (vcpu_irq_wake). */
static void rq_guest(void *ctx, unsigned i, uint64_t now, struct rq_guest *g)
{
    struct vm *vm = vm_get(i);
    struct vcpu *c = vm->vcpu; /* none when its creation failed: it never runs */
    g->runs = c && vm->state == VM_RUNNING;
    g->halted = g->runs && c->halted && !vcpu_irq_wake(vm, now);
    uint64_t t = c ? vcpu_irq_next_timer(vm) : VLAPIC_NO_TIMER;
    g->timer_at = t == VLAPIC_NO_TIMER ? RQ_NEVER : t;
}

static uint64_t rq_cpu_ns(void *ctx, unsigned i)
{
    const struct vm *vm = vm_get(i);
    return (vm->vcpu ? vm->vcpu->run_ns : 0) + (render_cpu ? render_cpu(i) : 0);
}

static bool rq_slice_begin(void *ctx, unsigned i)
{
    struct vm *vm = vm_get(i);
    if (vmptrld(vm->vcpu->vmcs_phys) != VMX_OK) {
        vm_stop(vm, VM_CRASHED, "VMPTRLD of its VMCS failed");
        return false;
    }
    guest_msr_enter(vm);
    return true;
}

static enum rq_exit rq_enter(void *ctx, unsigned i, uint64_t until)
{
    uint8_t host_fpu[512] __attribute__((aligned(16)));
    struct vm *vm = vm_get(i);
    struct vcpu *c = vm->vcpu;
    uint64_t tsc = rdtsc();
    vcpu_irq_before_entry(vm, tsc);
    vmwrite(VMCS_GUEST_PREEMPTION_TIMER, preemption_ticks(until > tsc ? until - tsc : 0));
    /* Interrupts stay off from here to the exit; one that arrives meanwhile makes the guest
     * exit and is taken by the host right after (external-interrupt exiting, SDM 25.2;
     * Bochs 2.7 misses that exit for a guest entered with IF = 0: docs/vmx-pure.md). */
    irq_disable();
    fxsave(host_fpu);
    fxrstor(c->fpu);
    int rc = vmx_run(&c->gprs, c->launched);
    fxsave(c->fpu);
    fxrstor(host_fpu);
    irq_enable();
    if (rc != VMX_OK) {
        vm_stop(vm, VM_CRASHED, "%s failed: %s", c->launched ? "VMRESUME" : "VMLAUNCH",
                rc == VMX_FAIL_VALID ? vmx_instruction_error_name(vmx_instruction_error())
                                     : "no valid VMCS");
        return RQ_STOPPED;
    }
    c->launched = true;
    uint64_t t0 = rdtsc();
    enum exit_action a = exit_dispatch(vm);
    uint64_t work = rdtsc() - t0;
    if (c->last_exit < EXIT_REASON_COUNT) {
        c->exit_work[c->last_exit] += work;
        if (work > c->exit_work_max[c->last_exit])
            c->exit_work_max[c->last_exit] = work;
    }
    return a == EXIT_RESUME ? RQ_RESUME : a == EXIT_YIELD ? RQ_YIELD : RQ_STOPPED;
}

static void rq_slice_end(void *ctx, unsigned i, uint64_t ns)
{
    struct vm *vm = vm_get(i);
    guest_msr_leave(vm);
    vm->vcpu->run_ns += ns;
}

static bool rq_between(void *ctx)
{
    return between_slices && between_slices();
}

static const struct rq_ops machine_ops = {
    .now = rq_now,
    .guest = rq_guest,
    .cpu_ns = rq_cpu_ns,
    .slice_begin = rq_slice_begin,
    .enter = rq_enter,
    .slice_end = rq_slice_end,
    .between = rq_between,
};

/* The guests are fixed once the configuration is loaded: the queue is set up at first use. */
static struct run_queue *queue(void)
{
    static struct run_queue q;
    static bool ready;
    if (!ready) {
        uint32_t weight[RQ_MAX];
        uint64_t slice[RQ_MAX];
        unsigned n = vm_count() < RQ_MAX ? vm_count() : RQ_MAX;
        for (unsigned i = 0; i < n; i++) {
            weight[i] = vm_get(i)->cfg->weight;
            slice[i] = vm_get(i)->slice_ns;
        }
        rq_init(&q, &machine_ops, n, weight, slice, timer_tsc_hz() / 1000000);
        ready = true;
    }
    return &q;
}

bool vcpu_run_round(void)
{
    return rq_round(queue());
}

bool vcpu_wake_pending(void)
{
    return rq_wake_pending(queue());
}

bool vcpu_owed_cpu(unsigned runner)
{
    return rq_owed(queue(), runner);
}

void vcpu_wait_stats(uint64_t *wait, uint64_t *demand)
{
    rq_wait_stats(queue(), wait, demand);
}

void vcpu_exit_work(const struct vm *vm, unsigned reason, uint64_t *sum_ns, uint64_t *max_ns)
{
    const struct vcpu *c = vm->vcpu;
    uint64_t per_us = timer_tsc_hz() / 1000000;
    bool known = c && per_us && reason < EXIT_REASON_COUNT;
    *sum_ns = known ? c->exit_work[reason] * 1000 / per_us : 0;
    *max_ns = known ? c->exit_work_max[reason] * 1000 / per_us : 0;
}

bool vcpu_defer_work(const struct vm *vm, uint64_t key, uint64_t cost_ns)
{
    uint64_t per_us = timer_tsc_hz() / 1000000;
    return per_us && rq_defer(queue(), vm->id, key, cost_ns / 1000 * per_us);
}

void vcpu_defer_stats(const struct vm *vm, uint64_t *count, uint64_t *waited_ns)
{
    rq_defer_stats(queue(), vm->id, count, waited_ns);
}

void vcpu_wake_stats(const struct vm *vm, struct rq_wake_stats *st)
{
    rq_wake_stats(queue(), vm->id, st);
}
