#include "arch/x86/timer.h"

#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/pit.h"
#include "arch/x86/trap.h"

static uint64_t tsc_hz, tsc_boot;
static const char *tsc_source = "uncalibrated";
static volatile uint64_t ticks;
static void (*tick_hook)(void);

void timer_set_tick_hook(void (*hook)(void))
{
    tick_hook = hook;
}

static void tick(struct trap_frame *f)
{
    ticks++;
    if (tick_hook)
        tick_hook();
    lapic_eoi();
}

/* CPUID.15h (SDM Vol. 2A): TSC = crystal * EBX / EAX, usable only when ECX names the crystal. */
static uint64_t tsc_hz_from_cpuid(void)
{
    if (cpuid(0, 0).eax < 0x15)
        return 0;
    struct cpuid_regs r = cpuid(0x15, 0);
    if (!r.eax || !r.ebx || !r.ecx)
        return 0;
    return (uint64_t)r.ecx * r.ebx / r.eax;
}

bool timer_init(void)
{
    tsc_boot = rdtsc();
    tsc_hz = tsc_hz_from_cpuid();
    if (tsc_hz) {
        tsc_source = "CPUID 15h";
    } else {
        /* Best of three 10 ms windows: an emulator's host may preempt any one of them. */
        uint64_t best = UINT64_MAX;
        for (int i = 0; i < 3; i++) {
            uint64_t t = pit_measure_tsc(10000);
            if (t && t < best)
                best = t;
        }
        tsc_hz = best * 100;
        tsc_source = "PIT";
    }
    pic_disable(VEC_LEGACY_PIC_BASE);
    irq_register(VEC_TIMER, tick);
    return lapic_timer_start(VEC_TIMER, VEC_SPURIOUS, 1000000 / TIMER_TICK_HZ, tsc_hz);
}

/* An AP's tick only wakes it: the clock is the TSC, and the boot CPU's tick does the rest. */
static void ap_tick(struct trap_frame *f)
{
    lapic_eoi();
}

bool timer_start_here(void)
{
    irq_register(VEC_AP_TICK, ap_tick);
    return lapic_timer_start_here(VEC_AP_TICK);
}

uint64_t timer_tsc_hz(void)
{
    return tsc_hz;
}
const char *timer_tsc_source(void)
{
    return tsc_source;
}
uint64_t timer_ticks(void)
{
    return ticks;
}

uint64_t timer_now_ns(void)
{
    if (!tsc_hz)
        return 0;
    uint64_t d = rdtsc() - tsc_boot;
    /* Split to avoid overflow: whole seconds, then the remainder. */
    return d / tsc_hz * 1000000000ULL + d % tsc_hz * 1000000000ULL / tsc_hz;
}

uint64_t timer_uptime_us(void)
{
    return timer_now_ns() / 1000;
}

void timer_delay_us(uint64_t us)
{
    uint64_t t0 = rdtsc(), n = tsc_hz * us / 1000000;
    while (rdtsc() - t0 < n)
        cpu_pause();
}
