/* Guest time from the TSC.  RDTSC does not exit and the TSC keeps counting while the guest is
 * not scheduled, so this is wall-clock time, and a sleep that was descheduled past its deadline
 * ends at once.  Long sleeps wait for the APIC timer (irq.c); short ones yield with HLT, which
 * costs one exit per turn instead of the three a timer costs (arm, halt, EOI). */
#include "guests/lib/guest.h"
#include "guests/lib/internal.h"
#include "guests/lib/x86.h"

#define US_PER_S 1000000ULL

static uint64_t tsc_start;
static uint64_t tsc_per_s;

void guest_time_init(uint64_t tsc_hz)
{
    tsc_per_s = tsc_hz;
    tsc_start = x86_rdtsc();
}

/* ticks * 1e6 / hz without overflow for any TSC value a machine reaches: the remainder term
 * is below hz * 1e6, which fits 64 bits for any rate under 18 THz. */
static uint64_t ticks_to_us(uint64_t ticks)
{
    return ticks / tsc_per_s * US_PER_S + ticks % tsc_per_s * US_PER_S / tsc_per_s;
}

static uint64_t us_to_ticks(uint64_t us)
{
    return us / US_PER_S * tsc_per_s + us % US_PER_S * tsc_per_s / US_PER_S;
}

uint64_t guest_now_us(void)
{
    return ticks_to_us(x86_rdtsc() - tsc_start);
}

void guest_sleep_until_us(uint64_t t_us)
{
    uint64_t deadline = us_to_ticks(t_us), timer_min = us_to_ticks(GUEST_SLEEP_TIMER_MIN_US);
    for (uint64_t now; (now = x86_rdtsc() - tsc_start) < deadline;) {
        if (guest_irq_timer_ready() && deadline - now >= timer_min) {
            guest_timer_arm(tsc_start + deadline);
            guest_irq_wait(); /* the timer, or another interrupt: the loop checks */
        } else {
            x86_hlt();
        }
    }
}

void guest_sleep_us(uint64_t us)
{
    guest_sleep_until_us(guest_now_us() + us);
}
