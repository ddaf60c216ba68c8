/* Time-slicing the guests' vCPUs on the boot CPU: its run queue (run_queue.h: a slice each per
 * round, weighted; a guest under its share that wakes cuts the runner's slice after 1 ms and
 * runs next), entered with VT-x.  Between slices the shell gets the CPU once per round, so the
 * operator is never locked out. */
#ifndef TESSERA_VMM_VCPU_RUN_H
#define TESSERA_VMM_VCPU_RUN_H

#include <stdbool.h>
#include <stdint.h>

/* Runs one round over the running guests; false when no guest wanted the CPU. */
bool vcpu_run_round(void);
/* Called after every guest's slice (the render loop: the GPU model needs the CPU between
 * slices, not once per round, or busy guests starve it).  Returns true if it still has work. */
void vcpu_set_between_slices(bool (*fn)(void));
/* True when a halted vCPU has an interrupt ready (its timer fired, a device raised one) and
 * has not run since: the render loop then gives the CPU back (a GPU would run beside it). */
bool vcpu_wake_pending(void);
/* The CPU the GPU model spent on guest id's work (vgpu): counted with its vCPU's time, so a
 * guest whose rendering eats CPU gets less of it, not its neighbour (vmm/vcpu/cpu_share.h). */
void vcpu_set_render_cpu(uint64_t (*fn)(unsigned id));
/* True when a guest other than `runner` has used less CPU than runner and wants the CPU now
 * (runnable, or halted with an interrupt ready): rendering for runner gives it back. */
bool vcpu_owed_cpu(unsigned runner);
/* Run-queue waiting, for the balloon controller's W: *wait is the time vCPUs that wanted the CPU
 * (used their whole last slice) spent waiting while others ran, *demand the time they wanted
 * it (round lengths); both accumulate from boot, in ns. */
void vcpu_wait_stats(uint64_t *wait, uint64_t *demand);
/* A guest's wake-ups from a halt until its APIC timer: how many, how late it got the CPU after
 * the timer's deadline and where that time went (run_queue.h), in ns since boot. */
struct vm;
struct rq_wake_stats;
void vcpu_wake_stats(const struct vm *vm, struct rq_wake_stats *st);
/* The hypervisor's work inside a guest's exits of one reason, from the exit to the next entry's
 * decision: in all and the longest, in ns since boot. */
void vcpu_exit_work(const struct vm *vm, unsigned reason, uint64_t *sum_ns, uint64_t *max_ns);
/* The running guest's exit is about to do cost_ns of work for the instruction at `key` (its
 * address): true if it is put off (rq_defer: a guest owed the CPU wants it within that time);
 * the exit then ends the slice without executing the instruction, and the guest executes it
 * again when it next runs. */
bool vcpu_defer_work(const struct vm *vm, uint64_t key, uint64_t cost_ns);
/* How many pieces of a guest's exit work were put off, and how long they waited (ns). */
void vcpu_defer_stats(const struct vm *vm, uint64_t *count, uint64_t *waited_ns);

#endif
