#include "arch/x86/lapic.h"

#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"

static volatile uint32_t *regs;
static uint32_t tick_count; /* the boot CPU's calibrated initial count for one period */

static bool x2apic_mode(void);

static uint32_t rd(uint32_t off)
{
    return regs[off / 4];
}
static void wr(uint32_t off, uint32_t v)
{
    regs[off / 4] = v;
}

uint64_t lapic_base(void)
{
    return (uint64_t)(uintptr_t)regs;
}

bool lapic_timer_start(uint8_t vector, uint8_t spurious_vector, uint32_t period_us, uint64_t tsc_hz)
{
    if (!(cpuid(1, 0).edx & CPUID_1_EDX_APIC))
        return false;
    uint64_t base = rdmsr(MSR_IA32_APIC_BASE);
    wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_ENABLE);
    regs = (volatile uint32_t *)(uintptr_t)(base & APIC_BASE_ADDR_MASK);
    wr(LAPIC_SVR, LAPIC_SVR_ENABLE | spurious_vector);

    /* Count down from the maximum for 10 ms of TSC time to learn the timer's rate. */
    wr(LAPIC_TIMER_DIVIDE, LAPIC_DIVIDE_BY_16);
    wr(LAPIC_LVT_TIMER, LAPIC_LVT_MASKED | vector);
    wr(LAPIC_TIMER_INITIAL, 0xFFFFFFFFu);
    uint64_t t0 = rdtsc(), window = tsc_hz / 100;
    while (rdtsc() - t0 < window)
        cpu_pause();
    uint32_t elapsed = 0xFFFFFFFFu - rd(LAPIC_TIMER_CURRENT);
    uint64_t per_period = (uint64_t)elapsed * 100 * period_us / 1000000;
    if (per_period == 0)
        per_period = 1;

    tick_count = (uint32_t)per_period;
    wr(LAPIC_LVT_TIMER, LAPIC_LVT_PERIODIC | vector);
    wr(LAPIC_TIMER_INITIAL, tick_count);
    return true;
}

bool lapic_timer_start_here(uint8_t vector)
{
    if (!regs || !tick_count || x2apic_mode())
        return false;
    wr(LAPIC_TIMER_DIVIDE, LAPIC_DIVIDE_BY_16);
    wr(LAPIC_LVT_TIMER, LAPIC_LVT_PERIODIC | vector);
    wr(LAPIC_TIMER_INITIAL, tick_count);
    return true;
}

/* Read once: Tessera never switches modes, and an AP in another mode than the boot CPU is not
 * used (lapic_enable_here).  The ID read and IPIs are on hot paths (the hypervisor lock asks
 * which CPU it runs on), where an RDMSR each time would cost an exit under a hypervisor. */
static bool x2apic_mode(void)
{
    static int mode = -1;
    if (mode < 0)
        mode = (rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_EXTD) != 0;
    return mode;
}

bool lapic_enable_here(uint8_t spurious_vector)
{
    uint64_t base = rdmsr(MSR_IA32_APIC_BASE);
    if (!regs || x2apic_mode() || (base & APIC_BASE_EXTD))
        return false;
    if ((base & APIC_BASE_ADDR_MASK) != lapic_base())
        return false;
    wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_ENABLE);
    wr(LAPIC_SVR, LAPIC_SVR_ENABLE | spurious_vector);
    return true;
}

bool lapic_ready(void)
{
    return regs || x2apic_mode();
}

uint32_t lapic_id(void)
{
    if (x2apic_mode())
        return (uint32_t)rdmsr(X2APIC_MSR(LAPIC_ID));
    return rd(LAPIC_ID) >> XAPIC_ID_SHIFT;
}

bool lapic_send_ipi(uint32_t apic_id, uint32_t icr)
{
    /* SDM Vol. 3A §11.12.3: WRMSR to the x2APIC ICR is not serializing, so earlier stores
     * (what the target is to read when it wakes) are fenced first; the xAPIC's uncached
     * write is ordered after them already. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (x2apic_mode()) {
        wrmsr(X2APIC_MSR(LAPIC_ICR), (uint64_t)apic_id << X2APIC_ICR_DEST_SHIFT | icr);
        return true;
    }
    if (apic_id > XAPIC_MAX_ID)
        return false;
    wr(LAPIC_ICR_HIGH, apic_id << XAPIC_ICR_DEST_SHIFT);
    wr(LAPIC_ICR, icr);
    return true;
}

bool lapic_ipi_pending(void)
{
    return !x2apic_mode() && (rd(LAPIC_ICR) & LAPIC_ICR_PENDING);
}

bool lapic_x2apic(void)
{
    return x2apic_mode();
}

void lapic_eoi(void)
{
    wr(LAPIC_EOI, 0);
}
