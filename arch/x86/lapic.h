/* Local APIC (SDM Vol. 3A chapter 10): the periodic tick, the APIC ID, interprocessor
 * interrupts. */
#ifndef TESSERA_ARCH_X86_LAPIC_H
#define TESSERA_ARCH_X86_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/apic_regs.h"

/* Enables the LAPIC and starts a periodic interrupt on `vector` every `period_us`, calibrated
 * against the TSC.  False when the CPU has no LAPIC. */
bool lapic_timer_start(uint8_t vector, uint8_t spurious_vector, uint32_t period_us,
                       uint64_t tsc_hz);
/* The same periodic timer on the CPU this runs on (an AP), at the rate lapic_timer_start
 * calibrated on the boot CPU: every LAPIC's timer counts the same bus clock (SDM Vol. 3A
 * §11.5.4).  False before that calibration or in x2APIC mode. */
bool lapic_timer_start_here(uint8_t vector);
void lapic_eoi(void);
/* Software-enables the LAPIC of the CPU this runs on (SVR, SDM Vol. 3A §11.4.7.2: after INIT an
 * AP's is disabled and takes no fixed interrupt), in xAPIC mode at the address the boot CPU
 * found.  False when the boot CPU's LAPIC is not known or is in x2APIC mode (not handled). */
bool lapic_enable_here(uint8_t spurious_vector);

/* True once the LAPIC can be used: its MMIO base is known (lapic_timer_start), or it is in
 * x2APIC mode. */
bool lapic_ready(void);
bool lapic_x2apic(void);
/* This CPU's APIC ID. */
uint32_t lapic_id(void);
/* Sends the IPI described by the low ICR word `icr` (LAPIC_ICR_* bits) to `apic_id`.  False
 * when the ID cannot be named in xAPIC mode (above XAPIC_MAX_ID). */
bool lapic_send_ipi(uint32_t apic_id, uint32_t icr);
/* The last IPI is still being delivered (xAPIC delivery status; x2APIC has none). */
bool lapic_ipi_pending(void);
uint64_t lapic_base(void);

#endif
