#include "vmm/hv_lock.h"

#include "arch/x86/cpu.h"
#include "arch/x86/smp.h"
#include "arch/x86/spinlock.h"

static struct spinlock lock;
static unsigned holder = HV_LOCK_NOBODY;
static void (*waiting)(void);
/* Per CPU: 1 + the ticket it waits with, 0 when it waits for none (hv_lock_drop_lost). */
static uint32_t waits_with[SMP_MAX_CPUS];
/* Per CPU, written by that CPU only: its use of the lock, and when it last took it. */
static struct hv_lock_use use[SMP_MAX_CPUS];
static uint64_t taken_at[SMP_MAX_CPUS];
/* The TSC from which use is counted (hv_lock_count_from); 0: from boot. */
static uint64_t count_from;

static uint64_t later(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

void hv_lock_count_from(uint64_t tsc)
{
    __atomic_store_n(&count_from, tsc, __ATOMIC_RELAXED);
}

void hv_lock_set_wait(void (*wait)(void))
{
    waiting = wait;
}

void hv_lock(void)
{
    unsigned cpu = smp_this_cpu();
    uint64_t t0 = rdtsc();
    uint32_t t = spin_ticket(&lock);
    __atomic_store_n(&waits_with[cpu], t + 1, __ATOMIC_RELAXED);
    while (!spin_served(&lock, t)) {
        if (waiting)
            waiting();
        cpu_pause();
    }
    __atomic_store_n(&waits_with[cpu], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&holder, cpu, __ATOMIC_RELAXED);
    taken_at[cpu] = rdtsc();
    uint64_t from = later(t0, __atomic_load_n(&count_from, __ATOMIC_RELAXED));
    if (taken_at[cpu] > from)
        use[cpu].waited += taken_at[cpu] - from;
}

void hv_unlock(void)
{
    unsigned cpu = __atomic_load_n(&holder, __ATOMIC_RELAXED);
    if (cpu < SMP_MAX_CPUS) {
        uint64_t now = rdtsc(),
                 from = later(taken_at[cpu], __atomic_load_n(&count_from, __ATOMIC_RELAXED));
        uint64_t held = now > from ? now - from : 0;
        use[cpu].held += held;
        if (held > use[cpu].longest)
            use[cpu].longest = held;
    }
    __atomic_store_n(&holder, HV_LOCK_NOBODY, __ATOMIC_RELAXED);
    spin_unlock(&lock);
}

void hv_lock_use(unsigned cpu, struct hv_lock_use *out)
{
    struct hv_lock_use none = { 0 };
    *out = cpu < SMP_MAX_CPUS ? use[cpu] : none;
}

bool hv_lock_contended(void)
{
    return __atomic_load_n(&lock.next, __ATOMIC_RELAXED) - lock.serving > 1;
}

void hv_lock_yield(void)
{
    if (hv_lock_contended()) {
        hv_unlock();
        hv_lock();
    }
}

/* What it held may be half changed; the other CPUs going on is still better than all stopping.
 * A CPU lost while it waited (its wait hook runs calls, which may fault) holds a ticket the lock
 * would serve to nobody: on that CPU, before it halts, the ticket is waited for and passed on. */
void hv_lock_drop_lost(unsigned cpu)
{
    uint32_t w = cpu < SMP_MAX_CPUS ? __atomic_load_n(&waits_with[cpu], __ATOMIC_RELAXED) : 0;
    if (w && cpu == smp_this_cpu()) {
        while (!spin_served(&lock, w - 1))
            cpu_pause();
        __atomic_store_n(&waits_with[cpu], 0, __ATOMIC_RELAXED);
        hv_unlock();
    } else if (__atomic_load_n(&holder, __ATOMIC_RELAXED) == cpu) {
        hv_unlock();
    }
}
