#include "vmm/hv_lock.h"

#include "arch/x86/cpu.h"
#include "arch/x86/smp.h"
#include "arch/x86/spinlock.h"

static struct spinlock lock;
static unsigned holder = HV_LOCK_NOBODY;
static void (*waiting)(void);

void hv_lock_set_wait(void (*wait)(void))
{
    waiting = wait;
}

void hv_lock(void)
{
    uint32_t t = spin_ticket(&lock);
    while (!spin_served(&lock, t)) {
        if (waiting)
            waiting();
        cpu_pause();
    }
    __atomic_store_n(&holder, smp_this_cpu(), __ATOMIC_RELAXED);
}

void hv_unlock(void)
{
    __atomic_store_n(&holder, HV_LOCK_NOBODY, __ATOMIC_RELAXED);
    spin_unlock(&lock);
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

/* What it held may be half changed; the other CPUs going on is still better than all stopping. */
void hv_lock_drop_lost(unsigned cpu)
{
    if (__atomic_load_n(&holder, __ATOMIC_RELAXED) == cpu)
        hv_unlock();
}
