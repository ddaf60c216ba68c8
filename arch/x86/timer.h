/* Time: the TSC as the clock (calibrated once), and a LAPIC tick that wakes the idle loop. */
#ifndef TESSERA_ARCH_X86_TIMER_H
#define TESSERA_ARCH_X86_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#define TIMER_TICK_HZ 1000

/* Calibrates the TSC (CPUID leaf 15h when it names the crystal, else the PIT) and starts the
 * tick.  Returns false when no tick could be started (no LAPIC): time still works. */
bool timer_init(void);
/* On an AP: the same tick, so that its idle halt ends at least every 1/TIMER_TICK_HZ s. */
bool timer_start_here(void);
uint64_t timer_tsc_hz(void);
const char *timer_tsc_source(void);
uint64_t timer_uptime_us(void);
uint64_t timer_now_ns(void);
uint64_t timer_ticks(void);
void timer_delay_us(uint64_t us);
/* Work done on every tick, in interrupt context (the console's transmit drain). */
void timer_set_tick_hook(void (*hook)(void));

#endif
