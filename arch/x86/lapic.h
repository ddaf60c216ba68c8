/* Local APIC (SDM Vol. 3A chapter 10): the periodic tick. */
#ifndef TESSERA_ARCH_X86_LAPIC_H
#define TESSERA_ARCH_X86_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/apic_regs.h"

/* Enables the LAPIC and starts a periodic interrupt on `vector` every `period_us`, calibrated
 * against the TSC.  False when the CPU has no LAPIC. */
bool lapic_timer_start(uint8_t vector, uint8_t spurious_vector, uint32_t period_us, uint64_t tsc_hz);
void lapic_eoi(void);
uint64_t lapic_base(void);

#endif
