/* The hypervisor lock: the hypervisor's state (guests, devices, the vGPU and its pure cores, the
 * shell, the log, the heap) is used by one CPU at a time, the one holding this lock.  Guests run
 * in parallel: a CPU lets go of the lock for the time it is in a guest or idle, and takes it again
 * to handle the exit.  A CPU waiting for it still answers what other CPUs ask of it without the
 * lock (a flush of EPT translations, an smp_call), so a holder can wait for those. */
#ifndef TESSERA_VMM_HV_LOCK_H
#define TESSERA_VMM_HV_LOCK_H

#include <stdbool.h>
#include <stdint.h>

#define HV_LOCK_NOBODY (~0u)

void hv_lock(void);
void hv_unlock(void);
/* From the holder, at a point where the state it changes is consistent: lets a CPU that waits
 * for the lock (one whose guest exited) have it first, then takes it again. */
void hv_lock_yield(void);
/* From the holder: another CPU is waiting for the lock now. */
bool hv_lock_contended(void);
/* What a CPU does while it waits for the lock (vmm/vcpu/vcpu_run.c: its requests and mailbox). */
void hv_lock_set_wait(void (*wait)(void));
/* How CPU `cpu` used the lock since hv_lock_count_from (boot, if never called), in TSC ticks: the
 * time it waited for it (its requests and calls answered meanwhile), the time it held it, and
 * its longest hold. */
struct hv_lock_use {
    uint64_t waited, held, longest;
};
void hv_lock_use(unsigned cpu, struct hv_lock_use *out);
/* Counts use from TSC `tsc` on: the end of boot, whose set-up holds the lock for seconds while the
 * APs that got work wait for their first turn. */
void hv_lock_count_from(uint64_t tsc);
/* A CPU being lost lets go of the lock if it holds it, or, on that CPU itself, passes on the
 * turn it was waiting for (arch/x86/smp.h's lost hook). */
void hv_lock_drop_lost(unsigned cpu);

#endif
