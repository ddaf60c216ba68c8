#include "arch/x86/lapic.h"

#include "arch/x86/cpu.h"
#include "arch/x86/regs.h"

static volatile uint32_t *regs;

static uint32_t rd(uint32_t off) { return regs[off / 4]; }
static void wr(uint32_t off, uint32_t v) { regs[off / 4] = v; }

uint64_t lapic_base(void) { return (uint64_t)(uintptr_t)regs; }

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

    wr(LAPIC_LVT_TIMER, LAPIC_LVT_PERIODIC | vector);
    wr(LAPIC_TIMER_INITIAL, (uint32_t)per_period);
    return true;
}

void lapic_eoi(void)
{
    wr(LAPIC_EOI, 0);
}
