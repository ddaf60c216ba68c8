/* Time-slicing the guests' vCPUs: each CPU that runs guests has its own run queue over the
 * vCPUs placed on it (run_queue.h: a slice each per round, weighted; a guest under its share
 * that wakes cuts the runner's slice after 1 ms and runs next), entered with VT-x.  One CPU,
 * the configuration's `render-cpu`, also runs the render loop between its slices (alone when no
 * guest is placed there).  The boot CPU runs the shell once per round, so the operator is never
 * locked out.  The other CPUs run their loop for good, taking the hypervisor lock
 * (vmm/hv_lock.h) for everything but the guest itself and their idle halt. */
#ifndef TESSERA_VMM_VCPU_RUN_H
#define TESSERA_VMM_VCPU_RUN_H

#include <stdbool.h>
#include <stdint.h>

/* Places every guest's vCPU, and the render loop, on a CPU: the one the configuration names
 * (`cpus`, `render-cpu`) when bit k of `usable` says CPU k can run them, else folded onto those
 * that can (vmm/smp/placement.h), with a log line; then gives each AP that got work its loop.
 * Once, on the boot CPU, holding the hypervisor lock, before any guest starts. */
void vcpu_place_all(uint64_t usable, unsigned render_cpu_wanted);
/* The CPU that runs the render loop. */
unsigned vcpu_render_cpu(void);
/* The render loop has its CPU to itself (an AP with no vCPU): what it does there is no guest's
 * CPU time, and nothing it holds the hypervisor lock for is charged to a run queue. */
bool vcpu_render_alone(void);
/* CPU `cpu` is out of service (smp_poll_lost, on the boot CPU): if it ran the render loop, the
 * boot CPU runs it from now on. */
void vcpu_cpu_lost(unsigned cpu);
/* Holding the hypervisor lock, after a guest gave the GPU work: the render loop's CPU, if it is
 * another and idle, wakes now rather than at its next tick. */
void vcpu_render_kick(void);
/* The vCPUs placed on CPU `cpu`, in out[0..max-1]; returns how many there are. */
struct vcpu;
unsigned vcpu_cpu_vcpus(unsigned cpu, const struct vcpu **out, unsigned max);
/* How often an AP waited before handling an exit because its guests' exits had taken more than
 * their weight's share of the hypervisor lock while others wanted it, and how long in all (ns). */
void vcpu_cpu_lock_waits(unsigned cpu, uint64_t *count, uint64_t *ns);
/* Runs one round of the boot CPU's work (holding the hypervisor lock): a piece of the render loop
 * if it runs there, a slice of each running guest there; false when nothing wanted the CPU. */
bool vcpu_run_round(void);
/* The boot CPU has nothing to do until an interrupt: it lets go of the lock and halts. */
void vcpu_idle(void);
/* Holding the hypervisor lock, for a guest whose vCPUs may be on other CPUs: kick makes their
 * CPUs look at them again soon (an interrupt may be ready), kick_one one vCPU's; hold returns
 * once every vCPU is out of the guest, where they stay until the lock is let go; ept_flush
 * returns once no CPU keeps a translation of its EPT from before. */
struct vm;
struct vcpu;
void vcpu_kick(struct vm *vm);
void vcpu_kick_one(struct vcpu *c);
void vcpu_hold(struct vm *vm);
void vcpu_ept_flush(struct vm *vm);
/* Runs fn(arg) on the CPU that owns vCPU c (an smp_call when that is another one), with whatever
 * VMCS was current there current again afterwards: what loads its VMCS must run there.  False
 * if that CPU did not answer. */
bool vcpu_on_owner(struct vcpu *c, void (*fn)(void *arg), void *arg);
/* The render loop: a piece of it per round of its CPU and after every guest's slice there (the
 * GPU model needs the CPU between slices, not once per round, or busy guests starve it).
 * Returns true if it still has work. */
void vcpu_set_render_loop(bool (*poll)(void));
/* True when the boot CPU's chores have work that should not wait for a round of its guests'
 * slices (input at the shell): its round stops after the slice under way. */
void vcpu_set_chores_waiting(bool (*waiting)(void));
/* True when a halted vCPU on the render loop's CPU has an interrupt ready (its timer fired, a
 * device raised one) and has not run since: the render loop then gives the CPU back (a GPU
 * would run beside it).  Never, when the render loop has its CPU to itself. */
bool vcpu_wake_pending(void);
/* The CPU the GPU model spent on guest id's work (vgpu): counted with its vCPU's time, so a
 * guest whose rendering eats CPU gets less of it, not its neighbour (vmm/vcpu/cpu_share.h). */
void vcpu_set_render_cpu(uint64_t (*fn)(unsigned id));
/* True when a guest on the render loop's CPU other than `runner` has used less CPU than runner
 * and wants the CPU now (runnable, or halted with an interrupt ready): rendering for runner
 * gives it back. */
bool vcpu_owed_cpu(unsigned runner);
/* Run-queue waiting, for the balloon controller's W: *wait is the time vCPUs that wanted the CPU
 * (used their whole last slice) spent waiting while others ran, *demand the time they wanted
 * it (round lengths); both accumulate from boot, in ns. */
void vcpu_wait_stats(uint64_t *wait, uint64_t *demand);
/* A vCPU's wake-ups from a halt until its APIC timer: how many, how late it got the CPU after
 * the timer's deadline and where that time went (run_queue.h), in ns since boot. */
struct rq_wake_stats;
void vcpu_wake_stats(const struct vcpu *c, struct rq_wake_stats *st);
/* The hypervisor's work inside a vCPU's exits of one reason, from the exit to the next entry's
 * decision: in all and the longest, in ns since boot. */
void vcpu_exit_work(const struct vcpu *c, unsigned reason, uint64_t *sum_ns, uint64_t *max_ns);
/* The exit of vCPU c (running on this CPU) is about to do cost_ns of work for the instruction at
 * `key` (its address): true if it is put off (rq_defer: a guest owed the CPU wants it within
 * that time); the exit then ends the slice without executing the instruction, and the guest
 * executes it again when it next runs. */
bool vcpu_defer_work(const struct vcpu *c, uint64_t key, uint64_t cost_ns);
/* How many pieces of a guest's exit work were put off, and how long they waited (ns). */
void vcpu_defer_stats(const struct vcpu *c, uint64_t *count, uint64_t *waited_ns);

#endif
