#include "vmm/vcpu/vcpu_run.h"

#include "arch/x86/cpu.h"
#include "arch/x86/timer.h"
#include "vmm/vcpu/cpu_share.h"
#include "vmm/vcpu/exit.h"
#include "vmm/vcpu/guest_msr.h"
#include "vmm/vcpu/inject.h"
#include "vmm/vm.h"
#include "vmm/vcpu/vmx_setup.h"

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

/* TSC ticks until the vCPU must stop: the slice's end, or its APIC timer if that comes first. */
static uint64_t entry_budget(const struct vm *vm, uint64_t slice_left_ns, uint64_t tsc)
{
    uint64_t budget = slice_left_ns * (timer_tsc_hz() / 1000) / 1000000;
    uint64_t timer = vcpu_irq_next_timer(vm);
    if (timer != VLAPIC_NO_TIMER && timer - tsc < budget)
        budget = timer > tsc ? timer - tsc : 0;
    return budget;
}

/* ---- who is owed the CPU (vmm/vcpu/cpu_share.h) ------------------------------------------ */

#define MIN_RUN_NS 1000000ull /* a slice cut for a waiting guest still runs this long */

static struct cpu_share share;
static bool share_ready;
static uint64_t (*render_cpu)(unsigned id);
static const struct vm *on_cpu; /* the vCPU in run_slice, and since when */
static uint64_t on_cpu_since;

void vcpu_set_render_cpu(uint64_t (*fn)(unsigned id))
{
    render_cpu = fn;
}

/* Guest id's CPU so far: its vCPU's time (with the slice under way) and its rendering. */
static uint64_t cpu_total(const struct vm *vm, uint64_t now)
{
    uint64_t t = (vm->vcpu ? vm->vcpu->run_ns : 0) + (render_cpu ? render_cpu(vm->id) : 0);
    return vm == on_cpu && now > on_cpu_since ? t + now - on_cpu_since : t;
}

static void share_tick(uint64_t now)
{
    uint64_t total[CPU_SHARE_MAX];
    unsigned n = vm_count() < CPU_SHARE_MAX ? vm_count() : CPU_SHARE_MAX;
    if (!share_ready) {
        cpu_share_init(&share, now);
        for (unsigned i = 0; i < n; i++)
            cpu_share_set_weight(&share, i, vm_get(i)->cfg->weight);
        share_ready = true;
    }
    if (now < share.next_period_ns)
        return;
    for (unsigned i = 0; i < n; i++)
        total[i] = cpu_total(vm_get(i), now);
    cpu_share_tick(&share, now, total, n);
}

/* The earliest TSC at which a guest other than `runner` that has used less CPU than it wants
 * the CPU: now if it is runnable, at its APIC timer if it is halted; UINT64_MAX if none. */
static uint64_t owed_at(unsigned runner, uint64_t tsc)
{
    uint64_t now = timer_now_ns(), at = UINT64_MAX;
    share_tick(now);
    const struct vm *r = vm_get(runner);
    if (!r)
        return at;
    uint64_t r_total = cpu_total(r, now);
    for (unsigned i = 0; i < vm_count() && i < CPU_SHARE_MAX; i++) {
        struct vm *vm = vm_get(i);
        if (i == runner || vm->state != VM_RUNNING ||
            !cpu_share_owed(&share, i, cpu_total(vm, now), runner, r_total))
            continue;
        uint64_t when = !vm->vcpu->halted || vcpu_irq_wake(vm, tsc) ? tsc : vcpu_irq_next_timer(vm);
        if (when < at)
            at = when;
    }
    return at;
}

bool vcpu_owed_cpu(unsigned runner)
{
    uint64_t tsc = rdtsc();
    return owed_at(runner, tsc) <= tsc;
}

/* Runs `vm` until its slice ends, it yields, or it stops.  True if it used the whole slice. */
static bool run_slice(struct vm *vm)
{
    uint8_t host_fpu[512] __attribute__((aligned(16)));
    struct vcpu *c = vm->vcpu;
    if (vmptrld(c->vmcs_phys) != VMX_OK) {
        vm_stop(vm, VM_CRASHED, "VMPTRLD of its VMCS failed");
        return false;
    }
    guest_msr_enter(vm);
    uint64_t start = timer_now_ns(), deadline = start + vm->slice_ns;
    on_cpu = vm;
    on_cpu_since = start;
    bool used_all = false;
    for (;;) {
        uint64_t now = timer_now_ns();
        if (now >= deadline) {
            used_all = true;
            break;
        }
        uint64_t tsc = rdtsc();
        /* A guest that used less CPU than this one and wants it now (or when its timer fires)
         * ends this slice, after MIN_RUN_NS: what waits for a timer or a poll's turn is the
         * guest that asks for little, so it must not wait behind one that asks for all. */
        uint64_t owed = owed_at(vm->id, tsc), tsc_per_ms = timer_tsc_hz() / 1000;
        uint64_t min_end = start + MIN_RUN_NS > now
                             ? (start + MIN_RUN_NS - now) * tsc_per_ms / 1000000
                             : 0;
        if (owed <= tsc && !min_end) {
            used_all = true; /* it wanted more: it counts as waiting while others run */
            break;
        }
        uint64_t budget = entry_budget(vm, deadline - now, tsc);
        if (owed != UINT64_MAX) {
            uint64_t stop = owed > tsc ? owed - tsc : 0;
            stop = stop > min_end ? stop : min_end;
            budget = budget < stop ? budget : stop;
        }
        vcpu_irq_before_entry(vm, tsc);
        vmwrite(VMCS_GUEST_PREEMPTION_TIMER, preemption_ticks(budget));
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
            break;
        }
        c->launched = true;
        enum exit_action a = exit_dispatch(vm);
        if (a == EXIT_RESUME)
            continue;
        used_all = a == EXIT_YIELD && c->last_exit == EXIT_REASON_PREEMPTION_TIMER;
        break;
    }
    guest_msr_leave(vm);
    on_cpu = NULL;
    c->run_ns += timer_now_ns() - start;
    return used_all;
}

static uint64_t wait_ns, demand_ns;
static bool (*between_slices)(void);

void vcpu_set_between_slices(bool (*fn)(void))
{
    between_slices = fn;
}

bool vcpu_wake_pending(void)
{
    bool any = false;
    for (unsigned i = 0; i < vm_count(); i++) {
        struct vm *vm = vm_get(i);
        struct vcpu *c = vm->vcpu; /* none when its creation failed: it never runs */
        if (!c)
            continue;
        if (vm->state == VM_RUNNING && c->halted && vcpu_irq_wake(vm, rdtsc()))
            c->woke = true;
        any |= c->woke;
    }
    return any;
}

/* How late a vCPU that halted until its APIC timer got the CPU back: from the timer's deadline
 * to the start of its next slice (the wait behind other guests' slices and the hypervisor's
 * work between them), in TSC ticks. */
static void note_wake(struct vcpu *c)
{
    if (c->halted_due && c->halted_due != VLAPIC_NO_TIMER) {
        uint64_t tsc = rdtsc(), late = tsc > c->halted_due ? tsc - c->halted_due : 0;
        c->wakes++;
        c->wake_late_tsc += late;
        if (late > c->wake_late_max_tsc)
            c->wake_late_max_tsc = late;
    }
}

void vcpu_wake_stats(const struct vm *vm, uint64_t *n, uint64_t *sum_ns, uint64_t *max_ns)
{
    const struct vcpu *c = vm->vcpu;
    uint64_t per_us = timer_tsc_hz() / 1000000;
    *n = c ? c->wakes : 0;
    *sum_ns = c && per_us ? c->wake_late_tsc * 1000 / per_us : 0;
    *max_ns = c && per_us ? c->wake_late_max_tsc * 1000 / per_us : 0;
}

bool vcpu_run_round(void)
{
    bool busy = false;
    uint64_t start = timer_now_ns();
    for (unsigned i = 0; i < vm_count(); i++) {
        struct vm *vm = vm_get(i);
        struct vcpu *c = vm->vcpu;
        if (!c)
            continue;
        c->round_ns = 0;
        /* A halted vCPU stays off the CPU until an interrupt is ready for it. */
        if (vm->state != VM_RUNNING || (c->halted && !vcpu_irq_wake(vm, rdtsc()))) {
            c->wanted_cpu = false;
            continue;
        }
        uint64_t t0 = c->run_ns;
        c->woke = false;
        note_wake(c);
        bool all = run_slice(vm);
        c->halted_due = c->halted ? vcpu_irq_next_timer(vm) : 0;
        c->round_ns = c->run_ns - t0;
        if (all)
            busy = true;
        c->wanted_cpu = all;
        if (between_slices && between_slices())
            busy = true;
    }
    uint64_t round = timer_now_ns() - start;
    for (unsigned i = 0; i < vm_count(); i++) {
        const struct vcpu *c = vm_get(i)->vcpu;
        if (c && c->wanted_cpu) {
            wait_ns += round - c->round_ns;
            demand_ns += round;
        }
    }
    return busy;
}

void vcpu_wait_stats(uint64_t *wait, uint64_t *demand)
{
    *wait = wait_ns;
    *demand = demand_ns;
}
